"""The kernel machinery of solver/jit.py: what a cached kernel is valid for, helpers refused
from Python, and the stable argsort that replaced numba's merge sort."""

import os
import shutil

import numpy as np
import pytest

from solver import jit
from solver.mathx import cross
from solver.sorting import argsort
from solver.stamp import source_hash


@jit.kernel
def _argsort(keys):
    return argsort(keys)


@pytest.mark.parametrize("n", [0, 1, 2, 3, 8, 33, 1000])
def test_argsort_is_numpys_stable_argsort(n):
    rng = np.random.default_rng(n)
    for keys in (rng.random(n), rng.integers(0, 4, n)):     # floats, and ints with ties
        assert np.array_equal(_argsort(keys), np.argsort(keys, kind="stable"))


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
