"""Which helpers LLVM inlines (solver/jit.py `helper`): a short helper everywhere it is called,
a long or `outline=True` one nowhere, whoever calls it first.

numba's CPU target gives a function compiled without a forceinline option its caller's
(`inherit_if_not_set`): a long helper first compiled from a short one was inlined into
every caller, the step's outlined stages into the step (docs/performance.md, "First run and
compile time"). Checked in a fresh process with an empty cache, on the function attributes
each helper's library holds (numba marks an inlined function `alwaysinline`).
"""

import json
import math
import os
import subprocess
import sys

import numpy as np

from solver.jit import helper, kernel

HERE = os.path.dirname(os.path.abspath(__file__))


@helper
def _long(x, k):
    # more than jit.SHORT_HELPER lines: a call of its own
    total = 0.0
    for i in range(k):
        total += math.sin(x * (i + 1)) / (i + 1)
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


@helper(outline=True)
def _outlined(x):
    return 2.0 * x + 1.0


@helper
def _short(x, k):
    return _long(x, k) + _outlined(x)


@kernel
def _entry(a, k, out):
    for i in range(a.shape[0]):
        out[i] = _short(a[i], k)


CHILD = r"""
import sys, json
sys.path.insert(0, {solver_root!r}); sys.path.insert(0, {here!r})
import numpy as np
import test_inline_choice as t
a = np.linspace(-2.0, 3.0, 7)
out = np.zeros(7)
t._entry(a, 3, out)
inlined = {{}}
for d in (t._short, t._long, t._outlined):
    (cres,) = d.overloads.values()
    fn = cres.library._final_module.get_function(cres.fndesc.mangled_name)
    inlined[d.py_func.__name__] = any(b"alwaysinline" in bytes(x) for x in fn.attributes)
print(json.dumps({{"out": out.tolist(), "inlined": inlined}}))
"""


def test_only_short_helpers_are_inlined_whoever_compiles_them_first(tmp_path):
    """_long and _outlined are compiled first from _short, which is inlined: they are not."""
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path))
    env.pop("LIGAMENT_KERNEL_CACHE", None)
    code = CHILD.format(solver_root=os.path.dirname(os.path.dirname(HERE)), here=HERE)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=env, timeout=600)
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert result["inlined"] == {"_short": True, "_long": False, "_outlined": False}, result
    a = np.linspace(-2.0, 3.0, 7)
    expected = [_long.py_func(x, 3) + _outlined.py_func(x) for x in a]
    np.testing.assert_allclose(result["out"], expected, rtol=1e-12, atol=1e-12)
