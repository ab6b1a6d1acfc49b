"""step_frame's contact stages are called by symbol (solver/colours.py, jit.py
`helper(separate=True)`).

numba links each callee's module into its caller's and optimises and compiles it there again:
the colour plan, the contact rows' preparation, refresh and update, the warm start, the
integration of positions, the impulses and the restitution were optimised and compiled in
step_frame's module, in one process after everything else. A kernel calling a
stage by symbol names it in its cache entry, so that a process loading the kernel loads the
stage first: the test reads that entry.
"""

from solver import jit, warmup
from solver.step import step_frame

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

