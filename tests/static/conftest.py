"""The static check of addon/ (tools/apicheck.py) starts as soon as pytest has collected the
tests, on one core, so that it reads the add-on while the solver's tests run on the other;
`apicheck_results` waits for it."""

import os
import sys
from concurrent.futures import ThreadPoolExecutor

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import apicheck  # noqa: E402  (tools/apicheck.py)

_pool = ThreadPoolExecutor(max_workers=1)
_run = []


def pytest_collection_finish(session):
    here = os.path.dirname(os.path.abspath(__file__))
    if any(str(item.path).startswith(here + os.sep) and "apicheck_results" in
           getattr(item, "fixturenames", ()) for item in session.items):
        _run.append(_pool.submit(apicheck.check, None, workers=1))


@pytest.fixture(scope="session")
def apicheck_results():
    """{line: ([finding], seconds)} of addon/ on every line of tools/blender_stubs.txt."""
    if not _run:
        _run.append(_pool.submit(apicheck.check, None))
    return _run[0].result()
