"""numba's and llvmlite's work around LLVM made cheaper process-wide (solver/jit.py), each
counted against what numba's own code does and gives:

* ABI sizes (`_quick_abi_sizes`): llvmlite answers each by printing a module and having
  LLVM parse it; a literal type is parsed once per data layout, and the sizes are LLVM's.
"""

import llvmlite.binding as llvm
from llvmlite import ir as llvm_ir
from numba.core.registry import cpu_target

import solver  # noqa: F401  (installs the patches)


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

