"""numba's own Python work per compile, made cheaper process-wide (solver/jit.py), each
counted against what numba's own code does and gives:

* flags' hash and equality (`_quick_flag_compare`): typing looks up each call's
  implementation by a key holding the compile's flags, 300 000 comparisons in a cold
  compile; neither side's dict of all option values is built, and the answers are numba's.
* the variables of an IR statement (`_quick_list_vars`): asked about 1.2 million times in a
  cold compile; no Python call per attribute of a statement, and the same list in the same
  order as numba's.
* the reference-counted pointers inside a value (`_quick_meminfos`), for each incref and
  decref numba emits: no `extractvalue` of a field that holds none, and the same pointers
  (the same fields of the same value, in the same order) as numba's.
"""

import sys

import pytest
from llvmlite import ir as llvm_ir
from numba.core import ir, targetconfig, types
from numba.core.compiler import Flags, run_frontend
from numba.core.registry import cpu_target
from numba.core.runtime import context as nrt

from solver import contacts, jit, step


# numba's own methods, kept by jit when it replaces them
_NUMBA_FLAGS_HASH = getattr(jit, "_NUMBA_FLAGS_HASH", targetconfig.TargetConfig.__hash__)
_NUMBA_FLAGS_EQ = getattr(jit, "_NUMBA_FLAGS_EQ", targetconfig.TargetConfig.__eq__)
_NUMBA_GET_MEMINFOS = getattr(jit, "_NUMBA_GET_MEMINFOS", nrt.NRTContext.get_meminfos)
_NUMBA_REC_LIST_VARS = getattr(jit, "_NUMBA_REC_LIST_VARS", ir.Inst._rec_list_vars)


def _flag_sets():
    """Flags as numba's compiles make them: defaults, a helper's, a kernel's, one option set
    explicitly to its default, one with a value object (numba's fast-math options)."""
    plain = Flags()
    helper = Flags()
    helper.no_cpython_wrapper = True
    helper.no_cfunc_wrapper = True
    helper.forceinline = True
    helper.error_model = "numpy"
    kernel = Flags(helper)
    kernel.no_cpython_wrapper = False
    kernel.forceinline = False
    explicit_default = Flags()
    explicit_default.forceinline = False          # its default, set: equal to `plain`
    fast = Flags(helper)
    fast.fastmath = {"nnan"}
    return [plain, helper, kernel, explicit_default, fast, Flags(helper), Flags(fast)]


def test_flags_hash_and_compare_without_building_their_values():
    configs = _flag_sets()
    built = []

    def count(frame, event, arg):
        # numba's __hash__ and __eq__ call self.values(), which reads every option through
        # its property (`getter`)
        if event == "call" and frame.f_code.co_name in ("values", "getter"):
            built.append(frame.f_code.co_name)
    sys.setprofile(count)
    try:
        hashes = [hash(c) for c in configs]
        equal = [[a == b for b in configs] for a in configs]
    finally:
        sys.setprofile(None)
    assert built == [], f"option values read {len(built)} times"
    assert hashes == [_NUMBA_FLAGS_HASH(c) for c in configs]
    assert equal == [[_NUMBA_FLAGS_EQ(a, b) for b in configs] for a in configs]
    assert equal[0][3] and equal[1][5] and equal[4][6] and not equal[1][2] \
        and not equal[1][4]
    # what typing does with them: equal flags find each other's implementation
    cache = {("ctx", (types.float64,), (), c): i for i, c in enumerate(configs)}
    assert cache[("ctx", (types.float64,), (), Flags(configs[1]))] == 5


class _Loud(targetconfig.TargetConfig):
    """A configuration whose option is read by a getter of its own."""
    loud = targetconfig.Option(type=bool, default=False, doc="")


_Loud.loud = property(lambda self: "yes" if self._values.get("loud") else "no")


def test_flags_of_a_class_with_its_own_getter_compare_as_numba_compares_them():
    a, b = _Loud(), _Loud()
    b._values["loud"] = True
    assert (a == b) is False and a == _Loud() and hash(a) == _NUMBA_FLAGS_HASH(a)


def _statements():
    """Every statement of the untyped IR of the step's and the contacts' functions."""
    found = []
    for module in (step, contacts):
        for value in vars(module).values():
            py_func = getattr(value, "py_func", None)
            if py_func is not None and py_func.__module__ == module.__name__:
                for block in run_frontend(py_func).blocks.values():
                    found.extend(block.body)
    return found


def test_statement_variables_without_a_call_per_attribute():
    statements = _statements()
    assert len(statements) > 2000
    calls = [0]

    def count(frame, event, arg):
        if event == "call" and frame.f_code.co_name == "_rec_list_vars":
            calls[0] += 1
    sys.setprofile(count)
    try:
        lists = [s.list_vars() for s in statements]
    finally:
        sys.setprofile(None)
    # numba's recursion calls itself once per attribute of each statement (its location,
    # its names ...) and of each expression inside it: several per statement
    assert calls[0] <= len(statements), \
        f"{calls[0]} recursive calls for {len(statements)} statements"
    ours = ir.Inst._rec_list_vars
    ir.Inst._rec_list_vars = _NUMBA_REC_LIST_VARS
    try:
        numbas = [s.list_vars() for s in statements]
    finally:
        ir.Inst._rec_list_vars = ours
    assert len(lists) == len(numbas)
    for statement, mine, theirs in zip(statements, lists, numbas):
        assert len(mine) == len(theirs) and all(a is b for a, b in zip(mine, theirs)), \
            statement
    assert sum(map(len, lists)) > len(statements)          # not a list of empty lists


def _path(value, argument):
    """The fields (`extractvalue` indices, outermost first) `value` was read from."""
    path = []
    while value is not argument:
        assert isinstance(value, llvm_ir.ExtractValue), value
        path[:0] = value.indices
        value = value.aggregate
    return tuple(path)


def _meminfos(get_meminfos, ty):
    ctx = cpu_target.target_context
    module = llvm_ir.Module()
    fn = llvm_ir.Function(module, llvm_ir.FunctionType(llvm_ir.VoidType(),
                                                      [ctx.get_value_type(ty)]), "f")
    builder = llvm_ir.IRBuilder(fn.append_basic_block())
    # an NRTContext of its own: numba 0.68 caches the context's `nrt` (enabled or not) on
    # first use, and every compile's context is a copy of this one
    found = get_meminfos(nrt.NRTContext(ctx, True), builder, ty, fn.args[0])
    emitted = len(fn.blocks[0].instructions)
    return [(t, _path(v, fn.args[0])) for t, v in found], emitted


ARRAY2 = types.float64[:, :]
VALUES = [
    ARRAY2,
    types.int64[:],
    types.UniTuple(types.float64, 3),
    types.Tuple((ARRAY2, types.int64, types.UniTuple(types.float64[:], 2))),
    types.Tuple((types.float64, types.intp[:], types.UniTuple(types.intp, 2), ARRAY2)),
]


@pytest.mark.parametrize("ty", VALUES, ids=str)
def test_reference_counted_pointers_read_without_the_other_fields(ty):
    ours, emitted = _meminfos(nrt.NRTContext.get_meminfos, ty)
    # one `extractvalue` per field on the way to each pointer, none elsewhere
    needed = len({path[:i] for _, path in ours for i in range(1, len(path) + 1)})
    assert emitted == needed, f"{emitted} instructions emitted where {needed} read them"
    numbas, numba_emitted = _meminfos(_NUMBA_GET_MEMINFOS, ty)
    assert ours == numbas
    assert numba_emitted >= emitted


def test_the_patches_are_installed():
    """The process-wide patches are on with the numbas the solver supports (0.65, 0.68);
    on a numba of another shape they fall back to numba's own code (checked at import)."""
    names = [targetconfig.TargetConfig.__eq__, targetconfig.TargetConfig.__hash__,
             ir.Inst._rec_list_vars, nrt.NRTContext.get_meminfos]
    assert all(f.__qualname__.startswith("_quick_") for f in names), \
        [f.__qualname__ for f in names]
    assert _NUMBA_FLAGS_HASH.__code__.co_names == ("hash", "tuple", "sorted", "values")
