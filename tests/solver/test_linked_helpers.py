"""Helpers compiled only into the kernels that call them (solver/jit.py, `_HelperLibrary`).

numba links every callee's module into its caller's and optimises and compiles the caller's
module with all of it; a helper's own library is never run. These check that a helper four
calls deep gives a kernel the same numbers as the Python functions it was written from, that
no helper's library holds machine code (a kernel's does), and that a helper loaded from the
cache in a fresh process links into a new kernel as a freshly compiled one does.
"""

import math
import os
import subprocess
import sys

import numpy as np
import pytest

from solver import jit
from solver.jit import helper, kernel

HERE = os.path.dirname(os.path.abspath(__file__))


@helper
def _deep(x, k):
    # long enough (and with a loop) that LLVM keeps it a call of its own unless it inlines it
    total = 0.0
    for i in range(k):
        total += math.sin(x * (i + 1)) / (i + 1)
        if total > 1e9:
            return total
    y = total * total
    y += math.cos(total)
    y -= 0.25 * total
    y *= 1.0 + 1e-3 * k
    y += math.sqrt(abs(x) + 1.0)
    y /= 1.0 + abs(total)
    y += math.atan2(y, 1.0 + x * x)
    y -= math.exp(-abs(y))
    y += math.log1p(abs(x))
    y *= 0.5
    y += x
    y -= 0.125 * total
    return y


@helper
def _third(a, k):
    s = 0.0
    for i in range(a.shape[0]):
        s += _deep(a[i], k)
    return s


@helper
def _second(a, k):
    return _third(a, k) + _third(a[::-1], k + 1)


@helper
def _first(a, k, out):
    for j in range(out.shape[0]):
        out[j] = _second(a, k + j)


@kernel
def _top(a, k, out):
    _first(a, k, out)


@kernel
def _other_top(a, k):
    return _second(a, k) - _third(a, k)


@helper
def _gathered(a):
    # numba's own implementations, each compiled for these argument types: np.zeros,
    # np.empty inside it, the zero fill
    b = np.zeros(a.shape[0])
    for i in range(a.shape[0]):
        b[i] = 2.0 * a[i]
    c = b.copy()
    c[0] = -1.0
    return b[0] + c[0] + b[-1]


@kernel
def _gathering(a):
    return _gathered(a)


def _python(a, k, n):
    """What _top computes, by the helpers' Python functions."""
    def third(b, kk):
        return sum(_deep.py_func(x, kk) for x in b)

    def second(b, kk):
        return third(b, kk) + third(b[::-1], kk + 1)
    return np.array([second(a, k + j) for j in range(n)])


def test_a_kernel_of_nested_helpers_computes_what_the_python_does():
    a = np.linspace(-2.0, 3.0, 17)
    out = np.zeros(5)
    _top(a, 3, out)
    expected = _python(a, 3, 5)
    np.testing.assert_allclose(out, expected, rtol=1e-12, atol=1e-12)


def test_no_helper_library_holds_machine_code(tmp_path):
    """Compiled in a fresh process with an empty cache (a kernel loaded from the cache has no
    compiled object to look at): the kernel's library holds machine code, no helper's does."""
    if not getattr(jit, "LINKED_HELPERS", True):
        pytest.skip("numba's internals differ: helpers compiled as numba compiles them")
    out = _child("machine", str(tmp_path))
    assert set(out["compiled"]) >= {"_top", "_first", "_second", "_third", "_deep"}, out
    assert out["value"]["_top"], "the kernel has no machine code"
    for name in ("_first", "_second", "_third", "_deep"):
        assert not out["value"][name], f"{name}'s library was compiled to machine code"


def test_numbas_own_implementations_hold_no_machine_code(tmp_path):
    """numba compiles its implementation of np.zeros, np.empty, np.full ... for each
    argument type into a library of its own; compiled for a solver kernel, these only link
    into it (no machine code of their own), and the kernel computes what NumPy does."""
    if not getattr(jit, "LINKED_HELPERS", True):
        pytest.skip("numba's internals differ: helpers compiled as numba compiles them")
    out = _child("numba", str(tmp_path))
    a = np.linspace(-2.0, 3.0, 9)
    assert out["value"]["result"] == 2.0 * a[0] - 1.0 + 2.0 * a[-1]
    libraries = out["value"]["libraries"]
    assert any("zeros" in name for name in libraries), libraries
    assert any("empty" in name for name in libraries), libraries
    compiled = [name for name, machine in libraries.items() if machine]
    assert compiled == [], f"compiled to machine code of their own: {compiled}"


CHILD = r"""
import sys, json
sys.path.insert(0, {solver_root!r}); sys.path.insert(0, {here!r})
import numpy as np
from numba.core import event
import test_linked_helpers as t
a = np.linspace(-2.0, 3.0, 9)
with event.install_recorder("numba:compile") as rec:
    if sys.argv[1] == "first":
        out = np.zeros(3); t._top(a, 4, out); value = out.tolist()
    elif sys.argv[1] == "machine":        # whose library holds machine code
        t._top(a, 2, np.zeros(2))
        value = {{d.py_func.__name__: any(bool(getattr(c.library, "_compiled_object", None))
                                          for c in d.overloads.values())
                  for d in (t._top, t._first, t._second, t._third, t._deep)}}
    elif sys.argv[1] == "numba":           # numba's implementations linked into a kernel
        result = t._gathering(a)
        libraries, todo = {{}}, [t._gathering.overloads[k].library
                                for k in t._gathering.overloads]
        while todo:
            lib = todo.pop()
            todo.extend(lib._linking_libraries)
            if not lib.name.startswith("_"):       # not the test's kernel and helpers
                libraries[lib.name] = bool(getattr(lib, "_compiled_object", None))
        value = {{"result": result, "libraries": libraries}}
    else:
        value = t._other_top(a, 4)
compiled = sorted({{ev.data["dispatcher"].py_func.__name__ for ts, ev in rec.buffer
                    if ev.is_start}})
print(json.dumps({{"value": value, "compiled": compiled}}))
"""


def _child(step, cache):
    import json
    env = dict(os.environ, NUMBA_CACHE_DIR=cache)
    code = CHILD.format(solver_root=os.path.dirname(os.path.dirname(HERE)), here=HERE)
    proc = subprocess.run([sys.executable, "-c", code, step], capture_output=True, text=True,
                          env=env, timeout=600)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_cached_helpers_link_into_a_new_kernel_in_a_fresh_process(tmp_path):
    """The first process compiles _top and its helpers into an empty cache; the second finds
    the helpers there (their cache entries, not machine code) and compiles only the new kernel
    that calls them, whose result is the Python's."""
    first = _child("first", str(tmp_path))
    assert set(first["compiled"]) >= {"_top", "_first", "_second", "_third", "_deep"}
    a = np.linspace(-2.0, 3.0, 9)
    np.testing.assert_allclose(first["value"], _python(a, 4, 3), rtol=1e-12, atol=1e-12)
    second = _child("second", str(tmp_path))
    assert second["compiled"] == ["_other_top"], second["compiled"]
    expected = _python(a, 4, 1)[0] - sum(_deep.py_func(x, 4) for x in a)
    assert second["value"] == pytest.approx(expected, rel=1e-12, abs=1e-12)
