"""Stages compiled to machine code of their own and called by symbol (solver/jit.py,
`helper(separate=True)`: step_frame's big stages, solver/step.py).

numba links every callee's module into its caller's and optimises and compiles the whole
again; a separate stage is optimised and compiled once, in its own library, and its callers'
modules only declare it (the execution engine resolves the call against the stage's machine
code, loaded first). These check that a kernel calling a stage directly and through a helper
computes what the Python does, that the stage's code is in its library alone (not in the
kernel's or the helper's), and that a fresh process loads the kernel from the cache after
its stage, also when the stage itself has to compile again.
"""

import glob
import json
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
def _term(x, k):
    total = 0.0
    for i in range(k):
        total += math.sin(x * (i + 1)) / (i + 1)
    return 0.5 * total + x


@helper(separate=True)
def _stage(a, k, out):
    for j in range(out.shape[0]):
        s = 0.0
        for i in range(a.shape[0]):
            s += _term(a[i], k + j)
        out[j] += s


@helper
def _through(a, k, out):
    # long enough not to be inlined by LLVM: the stage is called from a helper's module
    _stage(a, k, out)
    for j in range(out.shape[0]):
        out[j] = out[j] * 0.5 + 1.0
        if out[j] > 1e9:
            out[j] = 1e9
    s = 0.0
    for j in range(out.shape[0]):
        s += out[j]
    out[0] += s * 1e-3
    out[-1] -= s * 1e-3
    for j in range(out.shape[0]):
        out[j] = math.floor(out[j] * 1e6) / 1e6 + out[j] * 1e-9
    return s


@kernel
def _calls(a, k, out):
    _through(a, k, out)
    _stage(a, k + 1, out)


def _python(a, k, n):
    """What _calls computes, by the Python functions."""
    out = np.zeros(n)

    def stage(kk):
        for j in range(n):
            out[j] += sum(_term.py_func(x, kk + j) for x in a)
    stage(k)
    for j in range(n):
        out[j] = out[j] * 0.5 + 1.0
        out[j] = min(out[j], 1e9)
    s = float(np.sum(out))
    out[0] += s * 1e-3
    out[-1] -= s * 1e-3
    for j in range(n):
        out[j] = math.floor(out[j] * 1e6) / 1e6 + out[j] * 1e-9
    stage(k + 1)
    return out


CHILD = r"""
import sys, json
sys.path.insert(0, {solver_root!r}); sys.path.insert(0, {here!r})
import numpy as np
from numba.core import event
import test_separate_stages as t
a = np.linspace(-2.0, 3.0, 9)
with event.install_recorder("numba:compile") as rec:
    out = np.zeros(3)
    t._calls(a, 4, out)
symbol = [c.fndesc.mangled_name for c in t._stage.overloads.values()][0]
libraries = {{}}
for d in (t._calls, t._through, t._stage):
    for cres in d.overloads.values():
        lib = cres.library
        ir = str(lib._final_module) if lib._final_module is not None else ""
        defined = [l for l in ir.splitlines() if l.startswith("define") and symbol in l]
        declared = [l for l in ir.splitlines() if l.startswith("declare") and symbol in l]
        libraries[d.py_func.__name__] = {{
            "machine": bool(getattr(lib, "_compiled_object", None)),
            "defines_stage": bool(defined), "declares_stage": bool(declared),
            "stages": len(getattr(lib, "_stages", {{}}))}}
compiled = sorted({{ev.data["dispatcher"].py_func.__name__ for ts, ev in rec.buffer
                    if ev.is_start}})
print(json.dumps({{"value": out.tolist(), "compiled": compiled, "libraries": libraries}}))
"""


def _child(cache):
    env = dict(os.environ, NUMBA_CACHE_DIR=cache)
    env.pop("LIGAMENT_SEPARATE_STAGES", None)
    code = CHILD.format(solver_root=os.path.dirname(os.path.dirname(HERE)), here=HERE)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=env, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_a_kernel_calling_a_stage_computes_what_the_python_does():
    a = np.linspace(-2.0, 3.0, 17)
    out = np.zeros(5)
    _calls(a, 3, out)
    np.testing.assert_allclose(out, _python(a, 3, 5), rtol=1e-12, atol=1e-12)


def test_a_stages_code_is_in_its_own_library_alone(tmp_path):
    """Compiled in a fresh process with an empty cache: the stage's library holds machine
    code; the kernel's and the helper's modules declare the stage and do not define it (with
    numba's linking, both would hold a copy of its code, optimised twice)."""
    if not jit.SEPARATE_STAGES:
        pytest.skip("numba's internals differ: stages linked as numba links callees")
    out = _child(str(tmp_path))
    assert set(out["compiled"]) >= {"_calls", "_through", "_stage", "_term"}, out
    libs = out["libraries"]
    assert libs["_stage"]["machine"] and libs["_calls"]["machine"], libs
    assert not libs["_through"]["machine"], libs          # a helper: linked, as before
    for name in ("_calls", "_through"):
        assert libs[name]["declares_stage"] and not libs[name]["defines_stage"], (name, libs)
        assert libs[name]["stages"] == 1, (name, libs)
    np.testing.assert_allclose(out["value"], _python(np.linspace(-2.0, 3.0, 9), 4, 3),
                               rtol=1e-12, atol=1e-12)


def test_a_cached_kernel_loads_after_its_stage_in_a_fresh_process(tmp_path):
    """The second process compiles nothing: the kernel's cache entry names its stage, which
    loads first. With the stage's cache files gone, only the stage compiles again (its symbol
    is the same whichever process compiles it) and the kernel still loads."""
    first = _child(str(tmp_path))
    second = _child(str(tmp_path))
    assert second["compiled"] == [], second
    assert second["value"] == first["value"]
    if not jit.SEPARATE_STAGES:
        return
    gone = glob.glob(os.path.join(str(tmp_path), "**", "*._stage-*"), recursive=True)
    assert gone
    for path in gone:
        os.remove(path)
    third = _child(str(tmp_path))
    assert third["compiled"] == ["_stage"], third
    assert third["value"] == first["value"]
