"""step_frame's contact stages and the parallel helpers under them are called by symbol
(solver/colours.py, jit.py `helper(separate=True)`).

numba links each callee's module into its caller's and optimises and compiles it there again:
the colour plan, the contact rows' preparation, refresh and update, the warm start, the
integration of positions, the impulses and the restitution were optimised and compiled in
step_frame's module, in one process after everything else, and a parallel helper (numba
compiles it to machine code of its own anyway) once more in each caller. A kernel calling a
stage by symbol names it in its cache entry, so that a process loading the kernel loads the
stage first: these read those entries.
"""

from solver import jit, warmup
from solver.colours import prepare_stage, warm_start_stage
from solver.step import begin_substep, solve_pass, step_frame

import pytest

CONTACT_STAGES = {"colour_plan", "prepare_stage", "refresh_stage", "update_stage",
                  "warm_start_stage", "positions_stage", "impulses_stage",
                  "restitution_stage"}

pytestmark = pytest.mark.skipif(not jit.SEPARATE_STAGES,
                                reason="numba's internals differ: stages linked as numba "
                                       "links callees")


def _called_by_symbol(dispatcher):
    """The qualified names of the stages `dispatcher`'s cached code calls by symbol."""
    cache = dispatcher._cache._cache_file
    keys = list(cache._load_index())
    assert keys, f"{dispatcher.py_func.__qualname__}: nothing cached"
    names = set()
    for key in keys:
        _, kind, data = cache.load(key)[0]
        if kind == jit._CALLS_KIND:
            names.update(stage[2] for stage in data[0])
    return names


@pytest.fixture(scope="module", autouse=True)
def _prepared():
    warmup.prepare()


def test_step_frame_calls_its_contact_stages_by_symbol():
    assert CONTACT_STAGES <= _called_by_symbol(step_frame)


def test_a_parallel_helpers_callers_call_its_code():
    assert {"_rows_in_ranges"} <= _called_by_symbol(prepare_stage)
    assert {"_warm_start_blocks", "_warm_start_colour"} <= _called_by_symbol(warm_start_stage)
    assert {"_velocities_in_ranges"} <= _called_by_symbol(begin_substep)
    # sweep_contacts is a helper linked into the solve pass: its stages are the pass's
    assert {"_solve_blocks", "_solve_colour"} <= _called_by_symbol(solve_pass)
