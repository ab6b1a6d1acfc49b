"""The compile worker ends as soon as its kernels are in the cache (solver/warmup.py,
`_end_now`).

`prepare` waits for the worker's process to end before it steps. After a cold compile,
Python's teardown of the worker (freeing the compiler's modules and objects one by one)
took about 1.6 CPU s after its last kernel (2026-11-29, a cold `bench/startup.py` run:
the worker's CPU at its last print against its process's CPU at its end), and the worker
is the process that ends last: the first step waited for that teardown, doing nothing.
"""

import os

import pytest

from solver import jit, warmup

TEARDOWN = "teardown ran"


@pytest.mark.slow
def test_the_worker_skips_pythons_teardown(tmp_path, monkeypatch):
    """An exit hook planted in the worker's Python (a sitecustomize on its path, which every
    Python start imports) never runs; the worker still reports its solver and cache and
    ends with success, and with every kernel ready it compiles nothing."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(
        "import atexit\n"
        f"atexit.register(lambda: print({TEARDOWN!r}, flush=True))\n")
    monkeypatch.syspath_prepend(str(site))       # the worker's PYTHONPATH is this sys.path
    if not warmup.ready():
        warmup.warm_up()
    progress = warmup._Progress(1000, lambda percent: None)
    worker = warmup._Worker(progress)
    assert worker.finish(), worker.lines
    assert f"worker solver {jit.CACHE_FOLDER}" in worker.lines
    assert progress.done == 0
    assert TEARDOWN not in worker.lines, "the worker ran Python's teardown before it ended"


def test_a_planted_exit_hook_runs_in_a_python_that_ends_normally(tmp_path):
    """The probe itself: the same sitecustomize in a Python that ends as Python does prints
    its line (so its absence above is the worker's doing)."""
    import subprocess
    import sys
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(
        "import atexit\n"
        f"atexit.register(lambda: print({TEARDOWN!r}, flush=True))\n")
    env = dict(os.environ, PYTHONPATH=str(site))
    out = subprocess.run([sys.executable, "-c", "print('ran')"], env=env, capture_output=True,
                         text=True, timeout=120).stdout.split("\n")
    assert out[:2] == ["ran", TEARDOWN]
