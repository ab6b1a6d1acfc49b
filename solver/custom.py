"""Constraints users write themselves: World.add_custom(bodies, expression, ...).

The expression is a scalar position constraint C over up to four letters A, B, C, D, one for
each entry of `bodies` (a body id, or None for the static world; a body may appear under
several letters). Each letter offers these vectors (world coordinates, now):

    pA      the anchor: anchors[0] given in world coordinates at creation, then carried by
            the body (default: the body's centre of mass; for the world: the origin)
    xA      the body's centre of mass (the world: the origin)
    uA      an axis: axes[0] (world, at creation; made unit length) turning with the body
            (default (1, 0, 0) at creation)
    XA, YA, ZA  the body's own local X, Y and Z axes (the world: the world's axes)

and likewise pB, xB, ... for bodies[1], pC... for bodies[2], pD... for bodies[3].
The vocabulary:

    numbers, pi
    + -           scalar + scalar, vector + vector (and unary -)
    *             scalar * scalar, scalar * vector, vector * scalar
    /             scalar / scalar, vector / scalar
    **            scalar ** scalar
    v.x v.y v.z   a vector's components
    dot(v, w)  cross(v, w)  length(v)  normalize(v)  vec(a, b, c)
    sqrt sin cos tan asin acos atan exp log abs   (of a scalar)   atan2(y, x)

e.g. "length(pA - pB) - 1.5" (a rod), "length(pA - pC) + 2 * length(pB - pD) - 9" (a pulley
from bodies A and B over the points C and D, in the world or on bodies), "dot(uA, uB)" (two
axes kept perpendicular), "pA.z - 2" (a point kept at height 2), "pA.z + pB.z + pC.z - 3"
(three bodies' heights summed). With no bound the constraint holds
C = 0 (a constraint not at 0 when created is pulled there); with `lower` and/or `upper` it
keeps lower <= C <= upper (one-sided or a range).

Up to four different bodies take part, one per letter at most (joints/custom.py derives the
rows: over three or four bodies the constraint is one row over all of them). An expression that is not a scalar, an unknown name, a vector
where a scalar belongs (or the reverse) is refused with a ValueError naming it and its column.

Compiling. The expression's gradient is derived by sympy and written as a small Python
function (common subexpressions shared, `sympy.cse`) that numba compiles as a C function
(`cfunc`, cached on disk). The numbers written in the expression are not part of the
compiled code: they are inputs, like the letters' vectors, so "length(pA - pB) - 1.5" and
"length(pA - pB) - 2" share one function (numbers in exponents stay in the code: x ** 2 is a
multiplication, not a call to pow). The generated file is named by a hash of the expression
with its numbers taken out and of the solver's sources, and kept in `cache_folder()` (beside
the solver's kernels, or $LIGAMENT_CUSTOM_CACHE); a process that finds it compiled there
loads it without sympy and without compiling. Only that first derivation needs sympy.
"""

import ast
import ctypes
import hashlib
import importlib.util
import os
import re
import sys
import tempfile
import time

import numpy as np

from . import jit
from . import validate, vectors
from .atomic import atomic_joint
from .tables import SETTING, Table
from .joints import layout as L
from .joints.custom import (CF_ANCHOR, CF_AXIS, CF_DAMPING, CF_NUMBERS, CF_STIFFNESS,
                            CF_WIDTH, CI_FUNCTION, CI_JOINT, CI_NUMBERS, CI_SIDE, CI_USED,
                            CI_WIDTH, G_WIDTH, LETTERS, MAX_NUMBERS, PER_LETTER, Q_NUMBERS,
                            Q_WIDTH)

SCALAR, VECTOR = "a scalar", "a vector"
VECTOR_NAMES = "pxuXYZ"              # their order in a letter's block of q (joints/custom.py)
LETTER_NAMES = "ABCD"
_SYMBOL = re.compile(r"^([pxuXYZ])([A-Z])$")
S, V = SCALAR, VECTOR
FUNCTIONS = {                        # name: (argument kinds, result kind)
    "dot": ((V, V), S), "cross": ((V, V), V), "length": ((V,), S), "normalize": ((V,), V),
    "vec": ((S, S, S), V), "atan2": ((S, S), S),
    **{name: ((S,), S) for name in ("sqrt", "sin", "cos", "tan", "asin", "acos", "atan", "exp",
                                    "log", "abs")},
}
_OPERATORS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.Pow: "**"}

# What the last call of `compiled` did (the tests read it): whether sympy derived the
# expression, whether numba compiled it (not loaded from the cache), and its seconds.
last_build = {}
_loaded = {}                         # key -> compiled function, for this process


def cache_folder():
    """Where generated constraint functions are kept: $LIGAMENT_CUSTOM_CACHE if set, else
    the folder custom/ in the solver's kernel cache (jit.py)."""
    return os.environ.get("LIGAMENT_CUSTOM_CACHE") or os.path.join(jit.CACHE_FOLDER, "custom")


class Expression:
    """A parsed and checked expression: `numbers` (the values written in it, in order),
    `used` ((letter, vector) pairs it reads), `canonical` (its text with the numbers taken
    out, what its compiled function depends on)."""

    def __init__(self, text, letters):
        if not isinstance(text, str) or not text.strip():
            raise ValueError(f"expression must be a non-empty string, got {text!r}")
        self.text, self.letters = text.strip(), letters
        try:
            tree = ast.parse(self.text, mode="eval")
        except SyntaxError as e:
            raise ValueError(f"expression {self.text!r}: invalid syntax at column {e.offset}: "
                             f"{e.msg}") from None
        self._tree = tree.body
        kind, self.canonical, _ = self._walk(self._tree, None)
        if kind is VECTOR:
            raise ValueError(f"expression {self.text!r} is a vector, but a constraint is a "
                             f"scalar: take its length(...), a dot(...) or a component (.x)")
        if len(self.numbers) > MAX_NUMBERS:
            raise ValueError(f"expression {self.text!r} has {len(self.numbers)} numbers; at "
                             f"most {MAX_NUMBERS} are allowed")

    # --- the walk: kinds and canonical text, and with sympy (sp) the value -------------

    def _where(self, node):
        segment = ast.get_source_segment(self.text, node) or ""
        return f"at column {node.col_offset + 1} ({segment!r})"

    def _error(self, node, problem):
        return ValueError(f"expression {self.text!r}: {problem} {self._where(node)}")

    def _walk(self, node, sp):
        if node is self._tree:
            self.numbers, self.used = [], set()
        if isinstance(node, ast.Constant):
            if isinstance(node.value, bool) or not isinstance(node.value, (int, float)):
                raise self._error(node, f"{node.value!r} is not a number")
            i = len(self.numbers)
            self.numbers.append(float(node.value))
            return SCALAR, f"#{i}", sp.Symbol(f"k{i}", real=True) if sp else None
        if isinstance(node, ast.Name):
            return self._name(node, sp)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            kind, text, value = self._walk(node.operand, sp)
            if isinstance(node.op, ast.UAdd):
                return kind, text, value
            return kind, f"(-{text})", (None if sp is None else
                                         tuple(-c for c in value) if kind is VECTOR else -value)
        if isinstance(node, ast.BinOp) and type(node.op) in _OPERATORS:
            return self._binary(node, sp)
        if isinstance(node, ast.Attribute):
            kind, text, value = self._walk(node.value, sp)
            if node.attr not in ("x", "y", "z"):
                raise self._error(node, f"unknown component .{node.attr} (use .x, .y or .z)")
            if kind is not VECTOR:
                raise self._error(node, f"a component (.{node.attr}) of a scalar")
            return SCALAR, f"{text}.{node.attr}", \
                None if sp is None else value["xyz".index(node.attr)]
        if isinstance(node, ast.Call):
            return self._call(node, sp)
        raise self._error(node, f"{type(node).__name__} is not part of the vocabulary "
                                f"(numbers, letters' vectors, + - * / **, functions)")

    def _name(self, node, sp):
        name = node.id
        if name == "pi":
            return SCALAR, "pi", None if sp is None else sp.pi
        m = _SYMBOL.match(name)
        if not m or m.group(2) not in LETTER_NAMES:
            known = ", ".join(f"{v}{LETTER_NAMES[0]}" for v in VECTOR_NAMES)
            hint = " (a function needs parentheses)" if name in FUNCTIONS else ""
            raise self._error(node, f"unknown symbol {name!r}{hint}; symbols are {known} ... "
                                    f"for the letters A..{LETTER_NAMES[self.letters - 1]}, "
                                    f"and pi")
        letter = LETTER_NAMES.index(m.group(2))
        if letter >= self.letters:
            raise self._error(node, f"unknown symbol {name!r}: letter {m.group(2)} is "
                                    f"bodies[{letter}], but bodies has {self.letters} "
                                    f"entr{'y' if self.letters == 1 else 'ies'}")
        vector = VECTOR_NAMES.index(m.group(1))
        self.used.add((letter, vector))
        if sp is None:
            return VECTOR, name, None
        o = PER_LETTER * letter + 3 * vector
        return VECTOR, name, tuple(sp.Symbol(f"q{o + c}", real=True) for c in range(3))

    def _binary(self, node, sp):
        op = _OPERATORS[type(node.op)]
        lk, lt, lv = self._walk(node.left, sp)
        if op == "**" and isinstance(node.right, ast.Constant) and \
                isinstance(node.right.value, (int, float)) and \
                not isinstance(node.right.value, bool):
            # an exponent written as a number stays in the code (x ** 2: a multiplication)
            rk, rt = SCALAR, repr(node.right.value)
            rv = None if sp is None else sp.Rational(repr(node.right.value))
        else:
            rk, rt, rv = self._walk(node.right, sp)
        text = f"({lt} {op} {rt})"
        if op in "+-":
            if lk is not rk:
                raise self._error(node, f"cannot {'add' if op == '+' else 'subtract'} "
                                        f"{lk} and {rk}")
            kind = lk
        elif op == "*":
            if lk is VECTOR and rk is VECTOR:
                raise self._error(node, "cannot multiply two vectors (use dot or cross)")
            kind = VECTOR if VECTOR in (lk, rk) else SCALAR
        elif op == "/" and rk is VECTOR:
            raise self._error(node, "cannot divide by a vector")
        elif op == "**" and VECTOR in (lk, rk):
            raise self._error(node, f"** takes scalars, but its "
                                    f"{'base' if lk is VECTOR else 'exponent'} is a vector")
        else:
            kind = lk
        if sp is None:
            return kind, text, None
        return kind, text, _apply(op, lk, lv, rk, rv)

    def _call(self, node, sp):
        if not isinstance(node.func, ast.Name) or node.func.id not in FUNCTIONS:
            name = ast.get_source_segment(self.text, node.func)
            raise self._error(node, f"unknown function {name!r}; functions are "
                                    f"{', '.join(sorted(FUNCTIONS))}")
        name = node.func.id
        kinds, result = FUNCTIONS[name]
        if node.keywords or len(node.args) != len(kinds):
            raise self._error(node, f"{name} takes {len(kinds)} argument"
                                    f"{'s' if len(kinds) > 1 else ''}, got "
                                    f"{len(node.args) + len(node.keywords)}")
        texts, values = [], []
        for i, (arg, want) in enumerate(zip(node.args, kinds)):
            kind, text, value = self._walk(arg, sp)
            if kind is not want:
                raise self._error(arg, f"argument {i + 1} of {name} must be {want}, got {kind}")
            texts.append(text)
            values.append(value)
        text = f"{name}({', '.join(texts)})"
        return result, text, None if sp is None else _function(sp, name, values)

    def value(self, sp):
        """The expression as a sympy scalar over the symbols q<i> (vectors) and k<i>
        (numbers)."""
        return self._walk(self._tree, sp)[2]


def _apply(op, lk, lv, rk, rv):
    if op == "+":
        return tuple(a + b for a, b in zip(lv, rv)) if lk is VECTOR else lv + rv
    if op == "-":
        return tuple(a - b for a, b in zip(lv, rv)) if lk is VECTOR else lv - rv
    if op == "*":
        if lk is VECTOR:
            return tuple(a * rv for a in lv)
        if rk is VECTOR:
            return tuple(lv * b for b in rv)
        return lv * rv
    if op == "/":
        return tuple(a / rv for a in lv) if lk is VECTOR else lv / rv
    return lv ** rv


def _function(sp, name, args):
    if name == "dot":
        return sum(a * b for a, b in zip(*args))
    if name == "cross":
        (a0, a1, a2), (b0, b1, b2) = args
        return (a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0)
    if name == "length":
        return sp.sqrt(sum(a * a for a in args[0]))
    if name == "normalize":
        n = sp.sqrt(sum(a * a for a in args[0]))
        return tuple(a / n for a in args[0])
    if name == "vec":
        return tuple(args)
    if name == "abs":
        return sp.Abs(args[0])
    return getattr(sp, name)(*args)


# --- code generation and the cache -------------------------------------------------------

def key(expression):
    """The hash naming an expression's compiled function (its structure and the solver's
    sources: an edit of the solver rebuilds them, as it does the solver's kernels)."""
    return hashlib.sha256(f"{jit.STAMP}\n{expression.canonical}".encode()).hexdigest()[:20]


def generate(expression):
    """Python source of the numba C function void constraint(double *q, double *g) that
    writes g[0] = C and g[1 + i] = dC/dq[i] for every q the expression reads (0 included:
    the step reads them without clearing g)."""
    try:
        import sympy as sp
        from sympy.printing.pycode import PythonCodePrinter
    except ImportError:
        raise ImportError(f"the custom constraint {expression.text!r} is new and deriving it "
                          f"needs sympy (pip install sympy); expressions derived before are "
                          f"loaded from {cache_folder()} without it") from None

    c = expression.value(sp)
    inputs = [sp.Symbol(f"q{PER_LETTER * letter + 3 * vector + k}", real=True)
              for letter, vector in sorted(expression.used) for k in range(3)]
    outputs = [(0, c)] + [(1 + int(s.name[1:]), sp.diff(c, s)) for s in inputs]
    shared, reduced = sp.cse([e for _, e in outputs])
    printer = PythonCodePrinter({"standard": "python3"})
    free = set().union(*(e.free_symbols for e in reduced), *(e.free_symbols for _, e in shared))
    body = []
    for s in sorted(free, key=lambda s: (s.name[0], int(s.name[1:]))):
        if s.name[0] == "q":
            body.append(f"    {s.name} = q[{s.name[1:]}]")
        elif s.name[0] == "k":
            body.append(f"    {s.name} = q[{Q_NUMBERS + int(s.name[1:])}]")
    body += [f"    {s.name} = {printer.doprint(e)}" for s, e in shared]
    body += [f"    g[{i}] = {printer.doprint(e)}" for (i, _), e in zip(outputs, reduced)]
    return "\n".join([
        f'"""Generated by solver/custom.py from {expression.text!r}:',
        f"    C = {expression.canonical}",
        '(#i: the i-th number of the expression, read from q). Do not edit."""',
        "", "import math", "", "from numba import cfunc, types", "", "",
        "@cfunc(types.void(types.CPointer(types.float64), types.CPointer(types.float64)),",
        '       cache=True, error_model="numpy")',
        "def constraint(q, g):",
        *body, ""])


def compiled(expression):
    """The numba C function of the expression: from this process's memory, else from the
    cache folder (loaded, or compiled there once), else derived with sympy first."""
    name = key(expression)
    if name in _loaded:
        last_build.update(derived=False, compiled=False, seconds=0.0)
        return _loaded[name]
    t0 = time.perf_counter()
    folder = cache_folder()
    path = os.path.join(folder, f"custom_{name}.py")
    derived = not os.path.exists(path)
    if derived:
        source = generate(expression)
        os.makedirs(folder, exist_ok=True)
        fd, tmp = tempfile.mkstemp(suffix=".tmp", dir=folder)
        with os.fdopen(fd, "w") as f:
            f.write(source)
        os.replace(tmp, path)                  # whole or absent for another process
    module_name = f"ligament_custom_{name}"
    spec = importlib.util.spec_from_file_location(module_name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    spec.loader.exec_module(module)
    function = module.constraint
    _loaded[name] = function
    last_build.update(derived=derived, compiled=function.cache_hits == 0,
                      seconds=time.perf_counter() - t0)
    return function


# --- World.add_custom -------------------------------------------------------------------

class CustomConstraints:
    """add_custom, a mixin of World (world.py)."""

    def _init_custom(self):
        self._ci = Table(CI_WIDTH, np.int64, state=SETTING)
        self._cf = Table(CF_WIDTH, np.float64, state=SETTING)
        self._cfunctions = []        # the compiled functions whose addresses _ci holds

    def _custom_args(self):
        return self._ci.view, self._cf.view

    def _letter_vectors(self, name, values, n):
        """anchors or axes: None, or n entries of None or 3 numbers."""
        if values is None:
            return [None] * n
        try:
            values = list(values)
        except TypeError:
            raise ValueError(f"{name} must be a list of {n} points (or None entries), one per "
                             f"entry of bodies, got {values!r}") from None
        if len(values) != n:
            raise ValueError(f"{name} must have one entry per entry of bodies ({n}), got "
                             f"{len(values)}")
        out = []
        for i, v in enumerate(values):
            if v is None:
                out.append(None)
            elif name == "axes":
                out.append(validate.direction(f"axes[{i}]", v))
            else:
                out.append(validate.vector(f"anchors[{i}]", v))
        return out

    @atomic_joint
    def _check_start_value(self, expr, function, ids, points, directions):
        """Refuse an expression that is undefined where the bodies are now (a square root of
        a negative number, a length of a zero vector under a division): the step would
        skip it every frame and the constraint would silently do nothing. Evaluates the
        compiled function on the letters' vectors as the step gathers them."""
        q = np.zeros(Q_WIDTH)
        g = np.zeros(G_WIDTH)
        for i, body in enumerate(ids):
            x, rot = (np.zeros(3), np.eye(3)) if body < 0 else \
                (self._bs.view[body, 0:3], vectors.qmat(self._bs.view[body, 3:7]))
            o = PER_LETTER * i
            q[o:o + 3] = x if points[i] is None else points[i]
            q[o + 3:o + 6] = x
            q[o + 6:o + 9] = (1.0, 0.0, 0.0) if directions[i] is None else directions[i]
            q[o + 9:o + 18] = rot.T.ravel()          # the body's X, Y and Z axes
        q[Q_NUMBERS:Q_NUMBERS + len(expr.numbers)] = expr.numbers
        function.ctypes(q.ctypes.data_as(ctypes.POINTER(ctypes.c_double)),
                        g.ctypes.data_as(ctypes.POINTER(ctypes.c_double)))
        read = [1 + PER_LETTER * letter + 3 * vector + k for letter, vector in expr.used
                for k in range(3)]
        if not np.isfinite(g[0]) or not np.all(np.isfinite(g[read])):
            gradient = ", but its gradient is not finite" if np.isfinite(g[0]) else ""
            raise ValueError(f"expression {expr.text!r} is undefined where the bodies are now "
                             f"(C = {g[0]:g}{gradient}), so the constraint would do nothing: "
                             "move the bodies or change the expression so that it has a value "
                             "where they start")

    def add_custom(self, bodies, expression, lower=None, upper=None, stiffness=None,
                   damping=0.0, anchors=None, axes=None, collide_connected=False,
                   break_force=None, break_torque=None):
        """A constraint written as an expression over the letters A..D of `bodies` (body ids,
        None for the static world; a body may stand for several letters): see
        solver/custom.py for the symbols (pA anchors, xA centres, uA axes, XA YA ZA body
        axes) and functions.

        The expression C is held at 0, or with `lower` / `upper` kept in [lower, upper].
        `anchors` and `axes` give each letter's anchor point and axis in world coordinates
        now (None entries: the default). stiffness=None is rigid; a stiffness k (N/m for a
        length, N m/rad for an angle: the force is -k C) makes it a spring, with XPBD's
        compliance 1/k, and `damping` (N s/m) a damper on C's rate; a soft bound pushes only
        while it is violated. The first use of an expression derives and compiles it (about a
        second, see README), later uses and later processes load it. The joint's impulse
        (joint_impulse) is reported on its second body (the second different body of
        `bodies`), about that body's centre of mass; all its bodies are one island."""
        if isinstance(bodies, (str, bytes)) or not hasattr(bodies, "__len__"):
            raise ValueError(f"bodies must be a list of 1 to {LETTERS} body ids (None for the "
                             f"static world), got {bodies!r}")
        n = len(bodies)
        if not 1 <= n <= LETTERS:
            raise ValueError(f"bodies must have 1 to {LETTERS} entries (letters A to D), got {n}")
        ids = [self._body(f"bodies[{i}]", b, allow_world=True) for i, b in enumerate(bodies)]
        moving = list(dict.fromkeys(i for i in ids if i >= 0))
        if not moving:
            raise ValueError("bodies must name at least one body: all entries are None (the "
                             "static world), so there is nothing to constrain")
        expr = Expression(expression, n)
        if not any(ids[letter] >= 0 for letter, _ in expr.used):
            raise ValueError(f"expression {expr.text!r} reads no letter of a body (only the "
                             f"world's), so it constrains nothing")
        points = self._letter_vectors("anchors", anchors, n)
        directions = self._letter_vectors("axes", axes, n)
        k = validate.optional_number("stiffness", stiffness, minimum=0.0)
        b = validate.number("damping", damping, minimum=0.0)
        if k is None and b > 0.0:
            raise ValueError("damping needs a stiffness: a rigid constraint (stiffness=None) "
                             "has no damping; give stiffness (0 for a pure damper)")
        if k == 0.0 and b == 0.0:
            raise ValueError("stiffness=0 with damping=0 does nothing: give a stiffness > 0, a "
                             "damping > 0, or stiffness=None for a rigid constraint")
        lo, hi = (validate.optional_number(name, value, allow_inf=True)
                  for name, value in (("lower", lower), ("upper", upper)))
        if lo is not None and hi is not None and lo > hi:
            raise ValueError(f"lower ({lo:g}) must not be greater than upper ({hi:g})")
        function = compiled(expr)
        self._check_start_value(expr, function, ids, points, directions)
        joint_bodies = ([None] if len(moving) == 1 else []) + moving + [-1] * (4 - len(moving))
        a, bb = joint_bodies[:2]
        centre = lambda i: np.zeros(3) if i is None else self._bs.view[i, 0:3].copy()
        j = self._new_joint(L.CUSTOM, a, bb, centre(a), centre(bb), np.array([1.0, 0, 0, 0]),
                            collide_connected, break_force, break_torque,
                            more=tuple(joint_bodies[2:4]))
        self._set_range(j, lower, upper, "lower", "upper")
        ci = np.zeros(CI_WIDTH, dtype=np.int64)
        cf = np.zeros(CF_WIDTH)
        ci[[CI_JOINT, CI_FUNCTION, CI_NUMBERS]] = (j, function.address, len(expr.numbers))
        for letter, vector in expr.used:
            ci[CI_USED + letter] |= 1 << vector
        for i, body in enumerate(ids):
            ci[CI_SIDE + i] = -1 if body < 0 else joint_bodies.index(body)
            x, rot = (np.zeros(3), np.eye(3)) if body < 0 else \
                (self._bs.view[body, 0:3], vectors.qmat(self._bs.view[body, 3:7]))
            p = x if points[i] is None else points[i]
            u = np.array([1.0, 0.0, 0.0]) if directions[i] is None else directions[i]
            cf[CF_ANCHOR + 3 * i:CF_ANCHOR + 3 * i + 3] = rot.T @ (p - x)
            cf[CF_AXIS + 3 * i:CF_AXIS + 3 * i + 3] = rot.T @ u
        cf[CF_NUMBERS:CF_NUMBERS + len(expr.numbers)] = expr.numbers
        if k is not None:
            cf[[CF_STIFFNESS, CF_DAMPING]] = (k, b)
            self._set_flags(j, on=L.HAS_SPRING)
        self._ci.append(ci)
        self._cf.append(cf)
        self._cfunctions.append(function)
        return j
