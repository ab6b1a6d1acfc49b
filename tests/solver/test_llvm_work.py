"""numba's and llvmlite's work around LLVM made cheaper process-wide (solver/jit.py), each
counted against what numba's own code does and gives:

* ABI sizes (`_quick_abi_sizes`): llvmlite answers each by printing a module and having
  LLVM parse it; a literal type is parsed once per data layout, and the sizes are LLVM's.
* the LLVM lock's events (`_quick_lock_events`): no Event object per acquire and release
  when numba's own timers are the only listeners, and the timers measure as before; any
  other listener gets numba's events.
* the typing templates' order (`_quick_template_order`): worked out once per target and
  list of templates, not for every call typed; the same order.
* instructions' names (`_quick_names`): one method call per name, the same names.
* a NumPy ufunc's loop for argument types (`_quick_ufunc_loops`): searched once, the same
  loop.
"""

import sys

import llvmlite.binding as llvm
from llvmlite import ir as llvm_ir
from numba.core import event
from numba.core.registry import cpu_target

import operator

import numpy as np

from llvmlite.ir import _utils as llvm_ir_utils
from numba.core import types, utils
from numba.core.target_extension import get_local_target
from numba.np import numpy_support

from solver import jit

# numba's and llvmlite's own, kept by jit when it replaces them
_NUMBA_TEMPLATE_ORDER = getattr(jit, "_NUMBA_TEMPLATE_ORDER", utils.order_by_target_specificity)
_LLVMLITE_REGISTER = getattr(jit, "_LLVMLITE_REGISTER", llvm_ir_utils.NameScope.register)


def _count_parses():
    calls = []
    parse = llvm.parse_assembly

    def counting(text, *args, **kwargs):
        calls.append(text)
        return parse(text, *args, **kwargs)
    return calls, counting


def test_abi_size_of_a_literal_type_parsed_once(monkeypatch):
    ctx = cpu_target.target_context
    # a type no compile asks about: a struct of a pointer, 7 x i16 and a 3 x double array
    ty = llvm_ir.LiteralStructType([llvm_ir.IntType(8).as_pointer(),
                                    llvm_ir.ArrayType(llvm_ir.IntType(16), 7),
                                    llvm_ir.ArrayType(llvm_ir.DoubleType(), 3)])
    expected = ty.get_abi_size(ctx.target_data)         # llvmlite's own answer
    calls, counting = _count_parses()
    monkeypatch.setattr(llvm, "parse_assembly", counting)
    sizes = [ctx.get_abi_sizeof(ty) for _ in range(5)]
    sizes += [ctx.get_abi_sizeof(llvm_ir.LiteralStructType(list(ty.elements)))]  # equal type
    assert sizes == [expected] * 6 and expected == 8 + 14 + 2 + 24
    assert len(calls) <= 1, f"LLVM parsed {len(calls)} modules for one type's size"


def test_abi_size_of_an_identified_struct_asked_each_time(monkeypatch):
    ctx = cpu_target.target_context
    named = llvm_ir.global_context.get_identified_type("ligament_test_abi_size")
    if named.is_opaque:
        named.set_body(llvm_ir.IntType(64), llvm_ir.IntType(8))
    calls, counting = _count_parses()
    monkeypatch.setattr(llvm, "parse_assembly", counting)
    assert [ctx.get_abi_sizeof(named) for _ in range(2)] == [16, 16]
    assert len(calls) == 2                      # its body is its context's: not remembered


def _events_made(action):
    made = []

    def count(frame, what, arg):
        if what == "call" and frame.f_code is event.Event.__init__.__code__:
            made.append(1)
    sys.setprofile(count)
    try:
        action()
    finally:
        sys.setprofile(None)
    return len(made)


def _llvm_calls(n):
    for _ in range(n):
        llvm.get_process_triple()


def test_llvm_lock_timed_without_events():
    with event.install_timer("numba:llvm_lock", lambda seconds: None) as outer, \
            event.install_timer("numba:llvm_lock", lambda seconds: None) as inner:
        made = _events_made(lambda: _llvm_calls(200))
    assert made == 0, f"{made} events made for 200 LLVM calls"
    assert outer.done and inner.done and outer.duration > 0
    assert outer._depth == inner._depth == 0


def test_other_listeners_get_numbas_events():
    with event.install_timer("numba:llvm_lock", lambda seconds: None) as timer, \
            event.install_recorder("numba:llvm_lock") as recorder:
        _llvm_calls(10)
    kinds = [(ev.kind, ev.is_start) for _, ev in recorder.buffer]
    # each LLVM call (two per triple: the call and the string's release) starts and ends one
    assert len(kinds) >= 40 and \
        kinds == [("numba:llvm_lock", True), ("numba:llvm_lock", False)] * (len(kinds) // 2)
    assert timer.done and timer._depth == 0


def _calls_of(code, action):
    calls = []

    def count(frame, what, arg):
        if what == "call" and frame.f_code in code:
            calls.append(frame.f_code.co_name)
    sys.setprofile(count)
    try:
        result = action()
    finally:
        sys.setprofile(None)
    return calls, result


def test_typing_templates_ordered_once():
    ctx = cpu_target.typing_context
    ctx.refresh()                     # numba's registries loaded, as a compile loads them
    add = ctx.resolve_value_type(operator.add)
    target = get_local_target(ctx)
    calls, orders = _calls_of({_NUMBA_TEMPLATE_ORDER.__code__}, lambda: [
        utils.order_by_target_specificity(target, add.templates, fnkey="add")
        for _ in range(5)])
    assert len(calls) <= 1, f"numba's order worked out {len(calls)} times for one list"
    assert orders == [_NUMBA_TEMPLATE_ORDER(target, add.templates, fnkey="add")] * 5
    assert len(orders[0]) >= 5
    # typing a + b again and again
    calls, sigs = _calls_of({_NUMBA_TEMPLATE_ORDER.__code__}, lambda: [
        ctx.resolve_function_type(add, (types.float64, types.int64), {}) for _ in range(5)])
    assert len(calls) <= 1 and [str(s) for s in sigs] == ["(float64, float64) -> float64"] * 5


def test_instruction_names_registered_in_one_call(monkeypatch):
    names = ["", "ptr", ".5", "arg.x", "", "ptr", "ptr.1", "", ".5", "x\"y"] * 30
    ours, theirs = llvm_ir_utils.NameScope(), llvm_ir_utils.NameScope()
    helpers = {llvm_ir_utils.NameScope.is_used.__code__,
               llvm_ir_utils.NameScope.deduplicate.__code__}
    calls, given = _calls_of(helpers, lambda: [ours.register(n, deduplicate=True)
                                               for n in names])
    assert calls == [], f"{len(calls)} calls of is_used/deduplicate for {len(names)} names"
    assert given == [_LLVMLITE_REGISTER(theirs, n, deduplicate=True) for n in names]
    assert len(set(given)) == len(given)
    for scope, register in ((ours, llvm_ir_utils.NameScope.register),
                            (theirs, _LLVMLITE_REGISTER)):
        try:
            register(scope, "ptr")
        except llvm_ir_utils.DuplicatedNameError as e:
            assert str(e) == "ptr"
        else:
            raise AssertionError("a used name registered without deduplicating")
    # a function's instructions, named as llvmlite names them
    def function_names():
        module = llvm_ir.Module()
        fn = llvm_ir.Function(module, llvm_ir.FunctionType(llvm_ir.DoubleType(),
                                                          [llvm_ir.DoubleType()]), "f")
        builder = llvm_ir.IRBuilder(fn.append_basic_block())
        value = fn.args[0]
        for i in range(50):
            value = builder.fadd(value, value, name="" if i % 2 else "sum")
        builder.ret(value)
        return str(module)
    text = function_names()
    monkeypatch.setattr(llvm_ir_utils.NameScope, "register", _LLVMLITE_REGISTER)
    assert text == function_names() and '%"sum.1" = fadd' in text


def test_ufunc_loops_searched_once():
    original = getattr(jit, "_NUMBA_UFUNC_LOOP", numpy_support.ufunc_find_matching_loop)
    args = [types.float64, types.int64]
    calls, loops = _calls_of({original.__code__}, lambda: [
        numpy_support.ufunc_find_matching_loop(np.add, args) for _ in range(5)])
    assert len(calls) <= 1, f"the loop searched {len(calls)} times for one ufunc and types"
    assert loops == [original(np.add, args)] * 5
    assert loops[0].ufunc_sig == "dd->d"
    loops[0].inputs.append(None)                    # a caller's change stays its own
    assert numpy_support.ufunc_find_matching_loop(np.add, args) == loops[1]
    assert numpy_support.ufunc_find_matching_loop(np.add, [types.unicode_type] * 2) is None
    # typing a + b of arrays through the ufunc templates
    ctx = cpu_target.typing_context
    ctx.refresh()
    add = ctx.resolve_value_type(operator.add)
    array = types.float64[::1]
    calls, sigs = _calls_of({original.__code__}, lambda: [
        ctx.resolve_function_type(add, (array, types.float64), {}) for _ in range(3)])
    assert len(calls) <= 1 and len({str(s) for s in sigs}) == 1
    assert sigs[0].return_type.ndim == 1 and sigs[0].return_type.dtype == types.float64
