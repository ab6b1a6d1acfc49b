"""The static check of addon/ (tools/apicheck.py) starts as soon as pytest has collected the
tests: one basedpyright process reads the add-on against every Blender line on one core
while the solver's tests run on the other; `apicheck_results` waits for it. Nothing runs
when addon/ is that of the last run (build/apicheck/LINE/result.json)."""

import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import apicheck  # noqa: E402  (tools/apicheck.py)

_run = []


def pytest_collection_finish(session):
    here = os.path.dirname(os.path.abspath(__file__))
    if any(str(item.path).startswith(here + os.sep) and "apicheck_results" in
           getattr(item, "fixturenames", ()) for item in session.items):
        _run.append(apicheck.start(workers=1))


@pytest.fixture(scope="session")
def apicheck_results():
    """{line: ([finding], seconds)} of addon/ on every line of tools/blender_stubs.txt."""
    if not _run:
        _run.append(apicheck.start())
    return _run[0]()
