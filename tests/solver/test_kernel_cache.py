"""The kernel machinery of solver/jit.py: what a cached kernel is valid for, helpers refused
from Python, the stable argsort that replaced numba's merge sort and the pair sort beside it."""

import os
import shutil

import numpy as np
import pytest

from compile_listener import LISTENER
from solver import jit
from solver.mathx import cross
from solver.sorting import SMALL_RUN, argsort, pair_order, search_sorted
from solver.stamp import source_hash


@jit.kernel
def _argsort(keys):
    return argsort(keys)


@pytest.mark.parametrize("n", [0, 1, 2, 3, 8, 33, 1000])
def test_argsort_is_numpys_stable_argsort(n):
    rng = np.random.default_rng(n)
    for keys in (rng.random(n), rng.integers(0, 4, n)):     # floats, and ints with ties
        assert np.array_equal(_argsort(keys), np.argsort(keys, kind="stable"))


@jit.kernel
def _pair_order(pairs):
    return pair_order(pairs)


@pytest.mark.parametrize("k", [0, 1, 5, 200, 3000])
def test_pair_order_is_numpys_stable_lexsort(k):
    """Runs of one first id short (insertion) and long (a floor box under every brick:
    past SMALL_RUN), repeated pairs keeping their order."""
    rng = np.random.default_rng(k)
    pairs = np.stack([rng.integers(0, 40, k), rng.integers(0, 60, k)], axis=1)
    pairs[: k // 3, 0] = 7                      # one first id shared by a third of them
    assert k < 200 or np.count_nonzero(pairs[:, 0] == 7) > SMALL_RUN
    want = np.lexsort((pairs[:, 1], pairs[:, 0]))     # stable: by first, then second
    assert np.array_equal(_pair_order(pairs.astype(np.int64)), want)


def test_a_helper_called_from_python_raises_instead_of_crashing():
    with pytest.raises(TypeError, match="helper"):
        cross((1.0, 0.0, 0.0), (0.0, 1.0, 0.0))


def test_kernels_are_stamped_by_the_sources_contents_not_their_files(tmp_path):
    copy = tmp_path / "solver"
    shutil.copytree(jit.SOLVER_DIR, copy, ignore=shutil.ignore_patterns("_kernels", "__pycache__"))
    assert source_hash(str(copy)) == jit.STAMP          # a reinstall: same kernels
    os.utime(copy / "rows.py", (1, 1))                   # new file times change nothing
    assert source_hash(str(copy)) == jit.STAMP
    with open(copy / "primitives" / "plane.py", "a") as f:
        f.write("\n# an edit in a callee's file\n")
    assert source_hash(str(copy)) != jit.STAMP          # an edit anywhere: all recompile
    assert os.path.basename(jit.CACHE_FOLDER) == jit.STAMP[:16]


@pytest.mark.slow
def test_the_compile_worker_shares_this_solver_and_its_cache():
    """warmup.prepare's second process imports this solver under the same package name and
    reads the same kernel folder, so what it compiles this process loads (with every kernel
    ready, the worker loads all of its own and compiles none)."""
    from solver import warmup
    if not warmup.ready():
        warmup.warm_up()                          # compiles (or loads) every kernel here
    progress = warmup._Progress(1000, lambda percent: None)
    worker = warmup._Worker(progress)
    assert worker.finish(), worker.lines
    assert f"worker solver {jit.CACHE_FOLDER}" in worker.lines
    assert progress.done == 0                     # every collision kernel loaded from the cache



def _refcount_calls(dispatcher, sig):
    """The NRT_incref and NRT_decref calls left in the optimised function itself, compiled
    here from its Python source (one numba loads from its cache has no LLVM IR to read)."""
    from numba.core.caching import NullCache
    fresh = type(dispatcher)(dispatcher.py_func, wrapper=False, inline=False)
    fresh._cache = NullCache()
    fresh.compile(sig)
    name = fresh.overloads[sig].fndesc.mangled_name
    llvm = fresh.inspect_llvm(sig)
    body = llvm[llvm.index(name + "("):]
    body = body[:body.index("\n}\n")]
    return body.count("@NRT_incref(") + body.count("@NRT_decref(")


def test_a_function_that_only_borrows_arrays_does_no_reference_counting():
    """warm_start takes arrays, returns nothing, allocates nothing, and has two exits: numba
    0.66 and later left an atomic increment and decrement per array in it, which inlined
    into the step's loops over rows made every frame about 4 times slower
    (jit._BorrowingLower)."""
    from numba.core import types
    from solver.rows import warm_start
    a2, a1 = types.float64[:, ::1], types.float64[::1]
    sig = (types.int64, types.int64[:, ::1], a2, a2, a2, a1, a2, a1)
    assert _refcount_calls(warm_start, sig) == 0


@jit.kernel
def _tail(a):
    return a[1:]


def test_a_function_that_hands_back_a_view_keeps_its_reference_counting():
    from numba.core import types
    assert _refcount_calls(_tail, (types.float64[::1],)) > 0
    a = np.arange(4.0)
    view = _tail(a)
    del a
    assert list(view) == [1.0, 2.0, 3.0]


def test_the_steps_parts_are_typed_as_step_frame_calls_them():
    """warmup compiles step_frame's big subtrees on their own, some in the worker, so that
    step_frame loads them from the cache instead of compiling them again in one process:
    typed otherwise than step_frame calls them, each would compile twice. After a
    preparation the cache of each part holds one signature, the part's own."""
    from solver import warmup
    warmup.prepare()
    w = warmup.every_feature_world()
    parts = warmup._parts(w._step_args(1 / 60, w._contacts.kernel_args()))
    assert set(parts) == set(warmup.WORKER_PARTS + warmup.MAIN_PARTS)
    for name, (dispatcher, sig) in parts.items():
        if callable(sig):
            sig = sig()
        saved = {key[0] for key in dispatcher._cache._cache_file._load_index()}
        assert saved == {sig}, (name, saved)


@jit.kernel
def _search_sorted(keys, key):
    return search_sorted(keys, key)


@pytest.mark.parametrize("n", [0, 1, 2, 7, 64])
def test_search_sorted_is_numpys_searchsorted(n):
    rng = np.random.default_rng(n)
    keys = np.sort(rng.integers(0, 20, n)).astype(np.int64)       # ties and gaps
    for key in range(-1, 22):
        assert _search_sorted(keys, key) == np.searchsorted(keys, key), (keys, key)


def test_the_first_step_of_a_process_prepares_the_kernels(monkeypatch):
    """A script that only builds a world and steps gets the kernels compiled on every free
    core (warmup.prepare, which returns at once when the cache is complete), once per
    process."""
    import solver as lg
    from solver import warmup, world
    calls = []
    monkeypatch.setattr(world, "_kernels_checked", False)
    monkeypatch.setattr(warmup, "prepare", lambda *a, **k: calls.append(a) or 0.0)
    w = lg.World()
    w.step(1 / 60)                              # no bodies: nothing to compile for
    assert calls == []
    w.add_body(lg.Sphere(0.1), (0, 0, 1))
    w.step(1 / 60)
    w.step(1 / 60)
    other = lg.World()
    other.add_body(lg.Box((1, 1, 1)), (0, 0, 2))
    other.step(1 / 60)                          # another world of the same process
    assert len(calls) == 1


# Imports the solver from `folder` under the package name `name` (as the extension does,
# addon/kernels.py) with the kernel folder `cache`, runs `what` and prints the solver
# kernels numba compiled meanwhile (none when all of them loaded from the cache).
_UNDER_ANOTHER_NAME = """
import importlib, importlib.util, json, os, sys
name, folder, what = sys.argv[1:4]
spec = importlib.util.spec_from_file_location(name, os.path.join(folder, "__init__.py"),
                                              submodule_search_locations=[folder])
module = importlib.util.module_from_spec(spec)
sys.modules[name] = module
spec.loader.exec_module(module)
warmup = importlib.import_module(name + ".warmup")
PACKAGE = name
""" + LISTENER + """
with event.install_listener("numba:compile", Listener()):
    if what == "waking":
        warmup._compile_waking()
    else:
        w = warmup.every_feature_world()
        for _ in range(3):
            w.step(1 / 60)
        w.remove_joint(0)
        w.step(1 / 60)
        w.field_forces()
        warmup._compile_waking()
print(json.dumps({"cache": importlib.import_module(name + ".jit").CACHE_FOLDER,
                  "compiled": compiled}))
"""


def _under_another_name(name, cache, what, solver_dir=jit.SOLVER_DIR):
    import json
    import subprocess
    import sys
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "PYTHONPATH")}
    env["LIGAMENT_KERNEL_CACHE"] = str(cache)
    proc = subprocess.run([sys.executable, "-c", _UNDER_ANOTHER_NAME, name, str(solver_dir),
                           what], capture_output=True, text=True, env=env, timeout=900)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-3000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["cache"] == os.path.join(str(cache), jit.STAMP[:16])
    return out["compiled"]


@pytest.mark.slow
def test_kernels_load_whatever_name_the_solver_package_was_imported_under(tmp_path):
    """numba records the module a kernel was compiled in and imports it by name on load;
    the extension imports the solver as `_ligament_solver_<hash>`, tests and scripts as
    `solver`. The kernel cache is read by package-relative names (jit._PortableCacheFile),
    so one compile serves both: what one name compiled, the others load. (A copy of the
    sources without solver/_kernels: a run by hand keeps its kernels beside the sources, and
    those would seed the empty cache.)"""
    sources = tmp_path / "sources" / "solver"
    shutil.copytree(jit.SOLVER_DIR, sources,
                    ignore=shutil.ignore_patterns("_kernels", "__pycache__"))
    cache = tmp_path / "cache"
    first = _under_another_name("_ligament_solver_probe", cache, "waking", sources)
    assert {"sleep.wake_marked", "contacts.awake_first"} <= set(first)
    assert _under_another_name("solver", cache, "waking", sources) == []
    assert _under_another_name("_ligament_solver_other", cache, "waking", sources) == []


@pytest.mark.slow
def test_every_kernel_this_process_prepared_loads_under_the_extensions_name():
    """The complete set the session prepared as `solver` (conftest) serves a simulation of
    every feature in a process that imports the solver as the extension does: nothing
    compiles."""
    from solver import warmup
    warmup.prepare()
    cache = os.path.dirname(jit.CACHE_FOLDER)
    assert _under_another_name("_ligament_solver_" + jit.STAMP[:16], cache, "all") == []


@pytest.mark.slow
def test_the_zips_check_passes_kernels_compiled_as_solver_and_refuses_an_incomplete_set(
        tmp_path):
    """`addon/kernels.py --verify` (what tools/build_extension.py runs on every zip it builds)
    loads the kernels beside the sources under the extension's package name: a complete set
    this process compiled as `solver` passes; with one kernel's cache files gone that kernel
    would compile on a user's first frame, and the check fails naming it."""
    import subprocess
    import sys
    from solver import warmup
    warmup.prepare()
    root = tmp_path / "ligament"
    shutil.copytree(jit.SOLVER_DIR, root / "solver",
                    ignore=shutil.ignore_patterns("_kernels", "__pycache__"))
    (root / "addon").mkdir()
    shutil.copy2(os.path.join(os.path.dirname(jit.SOLVER_DIR), "addon", "kernels.py"),
                 root / "addon" / "kernels.py")
    kernels = root / "solver" / "_kernels" / jit.STAMP[:16]
    shutil.copytree(jit.CACHE_FOLDER, kernels, ignore=shutil.ignore_patterns("__pycache__"))
    env = {k: v for k, v in os.environ.items()
           if k not in ("NUMBA_CACHE_DIR", "LIGAMENT_KERNEL_CACHE", "PYTHONPATH")}

    def verify():
        return subprocess.run([sys.executable, str(root / "addon" / "kernels.py"), "--verify"],
                              capture_output=True, text=True, env=env, timeout=900)

    passed = verify()
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert "load without compiling" in passed.stdout
    gone = list(kernels.glob("sleep.wake_marked-*"))
    assert gone
    for path in gone:
        path.unlink()
    refused = verify()
    assert refused.returncode == 1, refused.stdout + refused.stderr
    assert "compiled instead of loading" in refused.stdout and "wake_marked" in refused.stdout
