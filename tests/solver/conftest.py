"""The solver's kernels compiled (or loaded) once, before the first test steps a world: on
two cores the collision kernels compile in a worker process meanwhile (solver.warmup)."""

import os

import pytest

# numba runs a coloured island's stages on OpenMP threads (GNU libgomp here), whose idle
# threads spin for a while before they sleep: on a machine whose cores are busy with other
# work (CI's two lanes, other runs) the spinning took ten times the CPU of the work itself,
# 20 s instead of 1.3 s for test_colours' wall stepped on two threads. Passive waiting
# changes no result (the thread counts give bit-identical steps either way, which those
# tests check). Set before the solver loads numba's threading layer; a value of the
# user's own is kept.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")


@pytest.fixture(scope="session", autouse=True)
def kernels_prepared():
    from solver import warmup
    warmup.prepare()
