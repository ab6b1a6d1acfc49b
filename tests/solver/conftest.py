"""The solver's kernels compiled (or loaded) once, before the first test steps a world: on
two cores the collision kernels compile in a worker process meanwhile (solver.warmup)."""

import pytest


@pytest.fixture(scope="session", autouse=True)
def kernels_prepared():
    from solver import warmup
    warmup.prepare()
