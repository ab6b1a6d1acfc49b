"""numba's own implementations (np.empty, np.zeros, array.fill ...) compiled once per
argument types and the options a callee inherits from its caller (solver/jit.py,
`_impls_per_inherited_flags`), not once per caller's flags.

numba keys an `@overload` implementation on the calling compile's whole flags, so the
solver's functions, which differ in flags that cannot change the implementation's code (a
Python entry point, `parallel`, `nogil`), each compiled np.empty again: 24 times in a cold
compile. The implementation's own flags take from the caller only nrt, fastmath,
error_model and forceinline (numba's CPU target, `inherit_if_not_set`), so two copies are
left here: the inlined short helper's (forceinline) and everyone else's.
"""

import json
import os
import subprocess
import sys

import numba
import numpy as np
from numba.core import targetconfig
from numba.core.compiler import Flags
from numba.core.typing import templates

from solver import jit
from solver.jit import helper, kernel

HERE = os.path.dirname(os.path.abspath(__file__))


# the same body five times: numba's cache keys a function by its name and line, so one
# Python function under two decorators would share (and clash in) one cache entry

@helper
def _short(n):
    """Inlined (forceinline: a short helper)."""
    a = np.empty(n)
    for i in range(n):
        a[i] = 0.5 * i
    return a.sum()


@helper(outline=True)
def _outlined(n):
    """A call of its own."""
    a = np.empty(n)
    for i in range(n):
        a[i] = 0.5 * i
    return a.sum()


@kernel(nogil=True)
def _nogil(n):
    a = np.empty(n)
    for i in range(n):
        a[i] = 0.5 * i
    return a.sum()


@helper(parallel=True)
def _parallel(n):
    a = np.empty(n)
    for i in numba.prange(n):
        a[i] = 0.5 * i
    s = 0.0
    for i in range(n):
        s += a[i]
    return s


@kernel
def _all(n):
    """Each of them and its own allocation (what they all compute: the sum of 0.5 * i)."""
    a = np.empty(n)
    for i in range(n):
        a[i] = 0.5 * i
    return a.sum() + _short(n) + _outlined(n) + _parallel(n)


CHILD = r"""
import sys, json
sys.path.insert(0, {solver_root!r}); sys.path.insert(0, {here!r})
from numba.core import event
import test_impl_flags as t
compiles = []
class Listener(event.Listener):
    def on_start(self, ev):
        pass
    def on_end(self, ev):
        compiles.append(ev.data["dispatcher"])
with event.install_listener("numba:compile", Listener()):
    values = [t._all(9), t._nogil(9)]
empties = [d for d in compiles if d.py_func.__qualname__.startswith("ol_np_empty.")]
inlined = []
for d in set(empties):
    for c in d.overloads.values():
        inlined.append(c.fndesc.inline)     # numba's forceinline: marked alwaysinline
print(json.dumps({{"values": values, "empties": len(empties), "inlined": sorted(inlined),
                   "solver": sorted(d.py_func.__name__ for d in compiles
                                    if d.py_func.__module__ == "test_impl_flags")}}))
"""


def test_np_empty_compiles_once_per_inherited_options(tmp_path):
    """Five callers of np.empty(int64) with four flag sets (a kernel, a nogil kernel, an
    outlined helper, a parallel helper) and the short helper's forceinline: numba compiled
    its implementation once per caller (5); here once for the four alike and once for the
    inlined helper, each with the flags numba gives it there, and every function still
    computes sum(0.5 * i)."""
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path))
    env.pop("LIGAMENT_KERNEL_CACHE", None)
    code = CHILD.format(solver_root=os.path.dirname(os.path.dirname(HERE)), here=HERE)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=env, timeout=600)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["solver"] == sorted(["_all", "_short", "_outlined", "_parallel", "_nogil"])
    expected = sum(0.5 * i for i in range(9))
    assert out["values"] == [4 * expected, expected]
    assert out["empties"] == 2, f"np.empty's implementation compiled {out['empties']} times"
    # the copies differ in what the callers differ in that the implementation inherits:
    # the short helper's is marked for inlining, as numba marks it there
    assert out["inlined"] == [False, True]


def test_the_key_keeps_what_an_implementation_inherits():
    """The key is numba's where the implementation's flags could differ: two callers that
    differ in an inherited option (forceinline, error_model, fastmath, nrt) get two
    implementations; two that differ in anything else share one."""
    assert jit._inherited_options() == ("nrt", "fastmath", "error_model", "forceinline")
    assert templates._OverloadFunctionTemplate._get_impl.__qualname__.startswith(
        "_impls_per_inherited_flags"), "numba's _get_impl is not replaced"

    class _Recorder(templates._OverloadFunctionTemplate):
        key = "recorder"
        metadata = {}
        _impl_cache = {}

        def __init__(self, context):
            self.context = context
            self.built = []

        def _build_impl(self, cache_key, args, kws):
            self.built.append(cache_key)
            self._impl_cache[cache_key] = ("impl", len(self.built)), args
            return self._impl_cache[cache_key]

    from numba.core.registry import cpu_target
    template = _Recorder(cpu_target.typing_context)
    base = Flags()
    base.no_cfunc_wrapper = True
    helper_flags = Flags(base)
    helper_flags.no_cpython_wrapper = True
    helper_flags.release_gil = True
    helper_flags.auto_parallel = numba.core.cpu.ParallelOptions(True)
    inlined = Flags(base)
    inlined.forceinline = True
    numpy_errors = Flags(base)
    numpy_errors.error_model = "numpy"
    impls = []
    for flags in (base, helper_flags, inlined, numpy_errors, Flags(inlined)):
        with targetconfig.ConfigStack().enter(flags):
            impls.append(template._get_impl((numba.int64,), {})[0])
    assert impls == [("impl", 1), ("impl", 1), ("impl", 2), ("impl", 3), ("impl", 2)]
