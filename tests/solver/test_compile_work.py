"""What numba does per compile, cut where the solver never uses the result (solver/jit.py).

* No C entry point: numba generates a C-callable wrapper (`cfunc.` + the mangled name) for
  every function it compiles, for first-class function values, which the solver never
  makes; generating it was about 6 % of a cold compile. Kernels keep their Python entry
  point (`cpython.`), helpers have neither, and both compute what their Python does.
* numba's flag values: typing looks up each call's implementation by a key holding the
  compile's flags, whose hash and equality build the dict of all option values each time;
  jit builds it in one pass, and it must be the dict numba's getters give.
"""

import json
import math
import os
import subprocess
import sys

import numpy as np
from numba.core import targetconfig
from numba.core.compiler import Flags

from solver import jit
from solver.jit import helper, kernel

HERE = os.path.dirname(os.path.abspath(__file__))


@helper
def _wave(x, k):
    total = 0.0
    for i in range(k):
        total += math.sin(x * (i + 1)) / (i + 1)
    return total


@helper
def _sum_waves(a, k):
    s = 0.0
    for i in range(a.shape[0]):
        s += _wave(a[i], k)
    return s


@kernel
def _waves(a, k):
    return _sum_waves(a, k) + _sum_waves(a[::-1], k + 1)


CHILD = r"""
import sys, json
sys.path.insert(0, {solver_root!r}); sys.path.insert(0, {here!r})
import numpy as np
import test_compile_work as t
a = np.linspace(-2.0, 3.0, 9)
value = t._waves(a, 4)
functions = {{}}
for d in (t._waves, t._sum_waves, t._wave):
    for cres in d.overloads.values():
        functions[d.py_func.__name__] = {{
            "defined": [f.name for f in cres.library._final_module.functions
                        if not f.is_declaration],
            "cfunc": cres.fndesc.llvm_cfunc_wrapper_name,
            "cpython": cres.fndesc.llvm_cpython_wrapper_name}}
print(json.dumps({{"value": value, "functions": functions}}))
"""


def test_no_function_is_given_a_c_entry_point(tmp_path):
    """Compiled in a fresh process with an empty cache (a kernel loaded from the cache has no
    module to look at): no library defines numba's `cfunc.` wrapper, the kernel its Python one,
    and the kernel returns what the helpers' Python functions compute."""
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path))
    code = CHILD.format(solver_root=os.path.dirname(os.path.dirname(HERE)), here=HERE)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=env, timeout=600)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert set(out["functions"]) == {"_waves", "_sum_waves", "_wave"}, out["functions"]
    for name, names in out["functions"].items():
        assert names["cfunc"] not in names["defined"], f"{name}'s library holds a C entry point"
    waves, wave = out["functions"]["_waves"], out["functions"]["_wave"]
    assert waves["cpython"] in waves["defined"], "the kernel has no Python entry point"
    assert wave["cpython"] not in wave["defined"]

    def wave(x, k):
        return sum(math.sin(x * (i + 1)) / (i + 1) for i in range(k))
    a = np.linspace(-2.0, 3.0, 9)
    expected = sum(wave(x, 4) for x in a) + sum(wave(x, 5) for x in a[::-1])
    assert math.isclose(out["value"], expected, rel_tol=1e-12, abs_tol=1e-12)


def _getters(config):
    """The option values as numba's generated properties read them, one by one."""
    return {name: getattr(config, name) for name in type(config).options}


def test_flag_values_are_read_in_one_pass_and_equal_numbas():
    assert targetconfig.TargetConfig.values.__qualname__.startswith("_quick_flag_values"), \
        "numba's TargetConfig.values is not replaced (jit._quick_flag_values)"
    plain = Flags()
    helper_flags = Flags()
    helper_flags.no_cpython_wrapper = True
    helper_flags.no_cfunc_wrapper = True
    helper_flags.forceinline = True
    helper_flags.error_model = "numpy"
    for flags in (plain, helper_flags, Flags(helper_flags)):
        assert flags.values() == _getters(flags)
    assert Flags(helper_flags) == helper_flags
    assert hash(Flags(helper_flags)) == hash(helper_flags)
    other = Flags(helper_flags)
    other.forceinline = False
    assert other != helper_flags and plain != helper_flags
    # the implementations typing caches under the flags: equal flags find each other's
    cache = {("context", (1,), (), helper_flags): "impl"}
    assert cache.get(("context", (1,), (), Flags(helper_flags))) == "impl"
    assert cache.get(("context", (1,), (), other)) is None


class _Shouting(targetconfig.TargetConfig):
    """A target configuration whose option is read by a getter of its own."""
    loud = targetconfig.Option(type=bool, default=False, doc="")


_Shouting.loud = property(lambda self: "yes" if self._values.get("loud") else "no")


def test_flag_values_of_a_class_with_its_own_getter_are_its_getters():
    config = _Shouting()
    assert config.values() == {"loud": "no"} == _getters(config)
    config._values["loud"] = True
    assert config.values() == {"loud": "yes"}
    assert jit._plain_options(Flags) and not jit._plain_options(_Shouting)
