"""A function that only borrows its arrays (solver/jit.py `_borrows_only`) is lowered
without reference-count operations at all (`_quiet_refcounts`): numba emitted each incref
and decref with the reads of the value's pointers, and `_BorrowingLower` then deleted the
calls (LLVM the reads). Counted here against numba's own emission, and the machine code
compared with the one numba's emitting and deleting gives."""

import re
import sys

import numba
import numpy as np
from numba.core import types
from numba.core.runtime import context as nrt

from solver import jit

# numba's own, kept by jit when it replaces it
_NUMBA_INCREF_DECREF = getattr(jit, "_NUMBA_INCREF_DECREF", nrt.NRTContext._call_incref_decref)

A1 = types.float64[::1]
A2 = types.float64[:, ::1]


def _borrower(t, b, m):
    s = 0.0
    for i in range(b.shape[0]):
        s += t[0][i] * t[1][i] + b[i] + m[i, 0]
    return s


def _allocator(t, b):
    c = np.empty(b.shape[0])               # allocates: keeps its reference counting
    for i in range(b.shape[0]):
        c[i] = t[0][i] + b[i]
    return c.sum()


def _compiled(py_func, sig):
    """A fresh compile of `py_func` (no cache) through the solver's pipeline, counting the
    incref/decref emissions numba's own code makes into the function itself."""
    made = []

    def count(frame, what, arg):
        if what == "call" and frame.f_code is _NUMBA_INCREF_DECREF.__code__:
            made.append(frame.f_locals["builder"].function.name)
    dispatcher = numba.njit(pipeline_class=jit._PIPELINE, no_cfunc_wrapper=True)(py_func)
    sys.setprofile(count)
    try:
        dispatcher.compile(sig)
    finally:
        sys.setprofile(None)
    cres = dispatcher.overloads[sig]
    mine = [name for name in made if name == cres.fndesc.mangled_name]
    return dispatcher, cres, mine


def _machine_code(cres):
    asm = cres.library.get_asm_str()
    asm = re.sub(r"_ZN\w+", "SYMBOL", asm)           # per-compile numbering in the names
    return [line for line in asm.splitlines()
            if line.strip() and not line.lstrip().startswith((".file", ".ident", "#"))]


SIG = (types.Tuple((A1, A1)), A1, A2)


def test_a_borrowing_function_emits_no_reference_counts(monkeypatch):
    dispatcher, cres, made = _compiled(_borrower, SIG)
    assert made == [], f"{len(made)} reference-count operations emitted, then deleted"
    assert "NRT_incref" not in cres.library.get_llvm_str()
    a, b = np.arange(4.0), np.full(4, 2.0)
    m = np.ones((4, 2))
    assert dispatcher((a, b), a, m) == sum(a * b + a + 1)
    # the machine code numba's emitting and deleting gives
    monkeypatch.setattr(jit, "_QUIET_REFCOUNTS", False)
    _, theirs, emitted = _compiled(_borrower, SIG)
    assert len(emitted) > 4
    assert _machine_code(cres) == _machine_code(theirs)


def test_a_function_that_allocates_counts_as_numba_counts():
    dispatcher, cres, made = _compiled(_allocator, SIG[:2])
    assert len(made) > 0 and "NRT_decref" in cres.library.get_llvm_str()
    assert dispatcher((np.arange(3.0), np.zeros(3)), np.ones(3)) == 6.0


def test_lowered_again_when_it_allocates_after_all(monkeypatch):
    """The types show a borrower; its module then calls another NRT function (stood in for
    by `_borrows_only` answering no): the function is lowered again, counting."""
    lowered = []
    monkeypatch.setattr(jit, "_borrows_only", lambda lower: lowered.append(1) and False)
    dispatcher, cres, made = _compiled(_borrower, SIG)
    assert len(lowered) == 2 and len(made) > 4         # the second time emitting them
    a = np.arange(3.0)
    assert dispatcher((a, a), a, np.zeros((3, 1))) == sum(a * a + a)
