"""Custom constraints (World.add_custom, solver/custom.py): rows of a scalar expression C
that the user wrote over up to four points and frames ("letters" A..D) on up to four bodies.

Derivation. Each letter X sits on a body (or the static world) with centre x, orientation R,
velocity v and spin w, and offers the vectors of solver/custom.py's vocabulary:

    pX = x + R aX  (an anchor)     d pX / dt = v + w x (pX - x)
    xX = x         (the centre)    d xX / dt = v
    uX = R eX      (an axis)       d uX / dt = w x uX      (and the same for XX, YX, ZX)

With g_s = dC/ds the gradient of C with respect to the vector s (derived once by sympy and
compiled into a small function, see below), the chain rule and (w x s) . g = w . (s x g) give

    C* = sum_s g_s . ds/dt
       = sum over the letters of the body [ (g_p + g_x) . v
                                           + ((pX - x) x g_p + sum_axes s x g_s) . w ]

so the row's Jacobian for each body is

    Jv = sum (g_p + g_x),      Jw = sum ((pX - x) x g_p + uX x g_u + XX x g_X + ...)

summed over that body's letters; letters on the world add nothing. K = J M^-1 J^T as for any
row (docs/rows.md): the sum over the bodies of |Jv|^2 / m + Jw . I^-1 Jw. Over one or two
bodies the constraint is one row of the two-body kind every joint uses; over three or four
it is a row over all of them (rows.row_jacobian4: a block per body, two slots), which the
step treats as any row, the exact island solve included (direct.py). Either way:

    rigid, no bound       C = 0, with the joints' softness (primitives/coupling.py), so it is
                          an equality row that the direct solver (direct.py) takes exactly
    lower / upper         C - lower >= 0 and upper - C >= 0 (rows 0 and 1), one-sided limits,
                          speculative while inside the range, like every limit
    stiffness k, damping b (soft): the implicit spring-damper of XPBD with compliance 1/k
                          (and Box2D v3's soft step, docs/rows.md, written with k and b in
                          place of a frequency and a damping ratio): with m = 1/K the row's
                          effective mass, omega^2 = k/m and 2 zeta omega = b/m, so
                              bias rate      = k / (b + h k)
                              mass scale     = x / (1 + x),   x = h (b + h k) K
                              impulse scale  = 1 / (1 + x)
                          The row stays soft in the relax pass (SPRING, as user springs do),
                          and a soft bound acts only while it is violated.

The bodies: the joint's bodies A, B (and C, D over three or four) are the distinct bodies
of `bodies` in order; each letter reads the pose of its body (CI_SIDE: 0..3, -1 the world),
so a body named under several letters gets the sum of their blocks. The row goes through the
same machinery as a built-in joint: the same prepare, direct solve, warm start, sleeping,
breaking and save_state.

How the kernels reach the user's code. The expression's function is compiled by numba as a
`cfunc` (a C function void f(double *q, double *g): q the letters' vectors and the
expression's numbers, g = (C, dC/dq), written for the vectors it reads) in a generated file
cached by the hash of the expression's structure (solver/custom.py), and each custom
constraint stores the function's address. `prepare_custom` calls it through that address
(`_call`, an indirect call), so the step kernel is compiled once for any set of expressions,
and adding a custom constraint compiles only its own small function. (Not jit.py's @kernel
or @helper: those are cached beside the solver's sources by their hash and have no C
address; a generated function lives in the custom cache folder, see solver/custom.py.)
Alternatives:
  * a numba first-class function argument (types.FunctionType) to step_frame: numba looks
    the compiled function up again on every call from Python, 87 us per World.step even
    for a world without custom constraints;
  * a step kernel generated per set of expressions (calling them directly): every new set
    would compile step_frame again with all it inlines (not measured: step_frame is among
    the largest of the solver's compiles), where a cfunc of one expression takes 0.1-0.4 s.
The stage `prepare_custom` runs after `prepare_joints` each time the joints' rows are
prepared (step.py); joints/prepare.py only clears a custom joint's rows. Measured (a chain of
100 links, bench/custom.py and a loop over the stage alone): the stage costs about 70 ns a
constraint, of which about 40 ns are the call of the compiled function and the function
itself; a distance joint's prepare costs about as much, and a frame of the chain held by
custom constraints takes about as long as one held by distance joints (README).
"""

import math

import numpy as np
from llvmlite import ir
from numba.core import types
from numba.extending import intrinsic

from ..bodies import DYNAMIC
from ..jit import helper
from ..mathx import add, cross, qaxis, qrotate, sub, vec3_at
from ..primitives.coupling import coupling_range4, negated
from ..rows import ACTIVE, BIAS, EFF, HI, IMPULSE_SCALE, LO, MASS_SCALE, SPRING, row_jacobian4
from .frames import body_pose
from .layout import (BODY_A, BODY_C, BROKEN, ENABLED, FLAGS, HAS_LOWER, HAS_SPRING, HAS_UPPER,
                     LOWER, MAX_ROWS, UPPER)

LETTERS = 4                 # A, B, C, D
VECTORS = 6                 # per letter: p, x, u, X, Y, Z (3 numbers each)
PER_LETTER = 3 * VECTORS
MAX_NUMBERS = 32            # numbers written in one expression
Q_NUMBERS = LETTERS * PER_LETTER          # q[0:72] the letters' vectors, then the numbers
Q_WIDTH = Q_NUMBERS + MAX_NUMBERS
G_WIDTH = 1 + Q_NUMBERS                   # g[0] = C, g[1 + i] = dC/dq[i]

# ci columns (int64, one row per custom constraint)
CI_JOINT, CI_FUNCTION, CI_NUMBERS = range(3)
CI_SIDE = 3                 # 4: per letter the joint's body 0..3 (A..D), -1 = the world
CI_USED = CI_SIDE + LETTERS  # 4: per letter the vectors the expression reads, bit k = vector k
CI_WIDTH = CI_USED + LETTERS
# cf columns (float64)
CF_ANCHOR = 0               # 3 per letter: the anchor in the body's frame (world: the point)
CF_AXIS = 3 * LETTERS       # 3 per letter: the axis in the body's frame
CF_STIFFNESS = 6 * LETTERS
CF_DAMPING = CF_STIFFNESS + 1
CF_NUMBERS = CF_DAMPING + 1
CF_WIDTH = CF_NUMBERS + MAX_NUMBERS


@intrinsic
def _call(typingctx, address, q, g):
    """Call the C function void f(double *q, double *g) at `address` with the arrays' data."""
    def codegen(context, builder, signature, args):
        qa = context.make_array(signature.args[1])(context, builder, args[1])
        ga = context.make_array(signature.args[2])(context, builder, args[2])
        dptr = ir.DoubleType().as_pointer()
        fnty = ir.FunctionType(ir.VoidType(), [dptr, dptr])
        builder.call(builder.inttoptr(args[0], fnty.as_pointer()), [qa.data, ga.data])
        return context.get_dummy_value()
    return types.void(types.int64, q, g), codegen


@helper
def _store3(q, o, v):
    q[o] = v[0]
    q[o + 1] = v[1]
    q[o + 2] = v[2]


@helper
def _load3(g, o):
    return (g[o], g[o + 1], g[o + 2])


@helper
def _side_body(jt, j, side):
    """The body of side 0..3 (the joint's A..D; -1 the world)."""
    if side < 0:
        return -1
    return jt[j, BODY_A + side] if side < 2 else jt[j, BODY_C + side - 2]


@helper
def _letter_inputs(used, o, anchor, axis, x, rot, q):
    """Letter's vectors into q[o:o + 18] (those the expression reads: bit k of `used`)."""
    if used & 1:
        _store3(q, o, add(x, qrotate(rot, anchor)))
    if used & 2:
        _store3(q, o + 3, x)
    if used & 4:
        _store3(q, o + 6, qrotate(rot, axis))
    for k in range(3):
        if used & (8 << k):
            _store3(q, o + 9 + 3 * k, qaxis(rot, k))


@helper
def _inputs(c, ci, cf, jt, j, B_s, q):
    """The vectors the expression reads (p, x, u, X, Y, Z of each letter) and its numbers
    into q."""
    for i in range(LETTERS):
        used = ci[c, CI_USED + i]
        if used != 0:
            x, rot = body_pose(B_s, _side_body(jt, j, ci[c, CI_SIDE + i]))
            _letter_inputs(used, PER_LETTER * i, vec3_at(cf, c, CF_ANCHOR + 3 * i),
                           vec3_at(cf, c, CF_AXIS + 3 * i), x, rot, q)
    for k in range(ci[c, CI_NUMBERS]):
        q[Q_NUMBERS + k] = cf[c, CF_NUMBERS + k]


@helper
def _gradient_finite(c, ci, g):
    """Whether C and every derivative the function wrote are finite (a length of a zero
    vector divides by 0)."""
    total = g[0] * 0.0
    for i in range(LETTERS):
        used = ci[c, CI_USED + i]
        for k in range(VECTORS):
            if used & (1 << k):
                o = 1 + PER_LETTER * i + 3 * k
                total += (g[o] + g[o + 1] + g[o + 2]) * 0.0
    return total == 0.0


@helper
def _letter_jacobian(used, o, q, g, centre, jv, jw):
    """(Jv, Jw) plus one letter's part (its vectors at q[o:], their gradient at g[1 + o:])."""
    if used & 1:
        gp = _load3(g, 1 + o)
        jv = add(jv, gp)
        jw = add(jw, cross(sub(_load3(q, o), centre), gp))
    if used & 2:
        jv = add(jv, _load3(g, 1 + o + 3))
    for k in range(2, VECTORS):
        if used & (1 << k):
            jw = add(jw, cross(_load3(q, o + 3 * k), _load3(g, 1 + o + 3 * k)))
    return jv, jw


@helper(outline=True)
def _jacobian(c, ci, q, g, side, centre):
    """(Jv, Jw) of the constraint for the body on `side` (0..3: A..D) whose centre of mass
    is `centre`, from the gradient g (the derivation in the header). A call of its own:
    inlined, its unrolled letters were four copies in each of the four sides' calls."""
    jv = (0.0, 0.0, 0.0)
    jw = (0.0, 0.0, 0.0)
    for i in range(LETTERS):
        used = ci[c, CI_USED + i]
        if ci[c, CI_SIDE + i] == side and used != 0:
            jv, jw = _letter_jacobian(used, PER_LETTER * i, q, g, centre, jv, jw)
    return jv, jw


@helper
def _soft_row(r, bodies, jac, c, stiffness, damping, h, R_b, R_j, R_d, R_p, R_k, B_s, B_inv,
              B_I):
    """C = c pulled toward 0 by a spring of `stiffness` and a damper of `damping` (header)."""
    row_jacobian4(r, bodies, jac, R_b, R_j, R_d, R_p, R_k, B_s, B_inv, B_I)
    if R_p[r, ACTIVE] == 0.0:
        return
    d = damping + h * stiffness
    x = h * d / R_p[r, EFF]
    R_p[r, BIAS] = stiffness / d * c
    R_p[r, MASS_SCALE] = x / (1.0 + x)
    R_p[r, IMPULSE_SCALE] = 1.0 / (1.0 + x)
    R_p[r, SPRING] = 1.0


@helper
def _soft_bound(r, bodies, jac, c, stiffness, damping, h, R_b, R_j, R_d, R_p, R_k, B_s, B_inv,
                B_I):
    """C = c >= 0, softly, acting (pushing only) while c < 0."""
    if c >= 0.0:
        return
    _soft_row(r, bodies, jac, c, stiffness, damping, h, R_b, R_j, R_d, R_p, R_k, B_s, B_inv, B_I)
    R_p[r, LO] = 0.0
    R_p[r, HI] = math.inf


@helper
def _awake(i, bkind):
    return i >= 0 and bkind[i] == DYNAMIC


@helper(outline=True)
def prepare_custom(ci, cf, jt, jf, bkind, S, R_b, R_j, R_d, R_p, R_k, B_s, B_inv, B_I):
    """Fill the rows of every awake custom constraint (after prepare_joints left them
    inactive). S: the joints' softness (bias rate, mass scale, impulse scale, h, 1/h)."""
    if ci.shape[0] == 0:
        return
    q = np.zeros(Q_WIDTH)
    g = np.zeros(G_WIDTH)
    for c in range(ci.shape[0]):
        j = ci[c, CI_JOINT]
        flags = jt[j, FLAGS]
        bodies = (_side_body(jt, j, 0), _side_body(jt, j, 1), _side_body(jt, j, 2),
                  _side_body(jt, j, 3))
        if not flags & ENABLED or flags & BROKEN or not (
                _awake(bodies[0], bkind) or _awake(bodies[1], bkind)
                or _awake(bodies[2], bkind) or _awake(bodies[3], bkind)):
            continue
        _inputs(c, ci, cf, jt, j, B_s, q)
        _call(ci[c, CI_FUNCTION], q, g)
        if not _gradient_finite(c, ci, g):
            continue                # the rows stay inactive this time
        jva, jwa = _jacobian(c, ci, q, g, 0, body_pose(B_s, bodies[0])[0])
        jvb, jwb = _jacobian(c, ci, q, g, 1, body_pose(B_s, bodies[1])[0])
        jvc, jwc = _jacobian(c, ci, q, g, 2, body_pose(B_s, bodies[2])[0])
        jvd, jwd = _jacobian(c, ci, q, g, 3, body_pose(B_s, bodies[3])[0])
        jac = (jva, jwa, jvb, jwb, jvc, jwc, jvd, jwd)
        r0 = j * MAX_ROWS
        value = g[0]
        has_lower = (flags & HAS_LOWER) != 0
        has_upper = (flags & HAS_UPPER) != 0
        if flags & HAS_SPRING:
            k_ = cf[c, CF_STIFFNESS]
            b_ = cf[c, CF_DAMPING]
            if not (has_lower or has_upper):
                _soft_row(r0, bodies, jac, value, k_, b_, S[3], R_b, R_j, R_d, R_p, R_k, B_s,
                          B_inv, B_I)
            if has_lower:
                _soft_bound(r0, bodies, jac, value - jf[j, LOWER], k_, b_, S[3], R_b, R_j, R_d,
                            R_p, R_k, B_s, B_inv, B_I)
            if has_upper:
                _soft_bound(r0 + 2, bodies, negated(jac), jf[j, UPPER] - value, k_, b_, S[3],
                            R_b, R_j, R_d, R_p, R_k, B_s, B_inv, B_I)
        else:
            coupling_range4(r0, bodies, jac, value, 0.0, has_lower, jf[j, LOWER], has_upper,
                            jf[j, UPPER], S, R_b, R_j, R_d, R_p, R_k, B_s, B_inv, B_I)


@helper(inline=True)
def prepare_custom_rows(X, jt, jf, bkind, S, R, B):
    """`prepare_custom` for X = (ci, cf), R = (rb, rj, rd, rp, rk), B = (bs, binv, bI);
    not called without custom constraints: it allocates, so numba counts the references of
    its 14 arrays on each call (twice a substep)."""
    if X[0].shape[0] > 0:
        prepare_custom(X[0], X[1], jt, jf, bkind, S, *R, *B)
