"""Put the repository root on sys.path so `import solver` works from any working directory;
give the quick tier its tests; keep every test's seconds in build/durations/."""

import os
import sys
import time

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

# The quick tier (`-m quick`, pytest.ini): every test under these folders of tests/ that is
# not marked slow or release.
QUICK_FOLDERS = ("solver", "addon_logic", "static")


def pytest_collection_modifyitems(config, items):
    tests = os.path.join(ROOT, "tests")
    for item in items:
        folder = os.path.relpath(str(item.path), tests).split(os.sep)[0]
        if folder in QUICK_FOLDERS and item.get_closest_marker("slow") is None \
                and item.get_closest_marker("release") is None:
            item.add_marker(pytest.mark.quick)


# Every test's seconds (setup, call and teardown), slowest first, written when the session
# ends to build/durations/NAME.txt: NAME is tools/test.sh's run (solver-py311, addon-py313...)
# or last-pyXY for a run of pytest by hand. tools/test.sh's lanes are balanced from these.
_seconds = {}


def pytest_runtest_logreport(report):
    _seconds[report.nodeid] = _seconds.get(report.nodeid, 0.0) + report.duration


def pytest_sessionfinish(session, exitstatus):
    if not _seconds or hasattr(session.config, "workerinput"):
        return
    name = os.environ.get("LIGAMENT_TEST_RUN") or "last-py%d%d" % sys.version_info[:2]
    folder = os.path.join(ROOT, "build", "durations")
    os.makedirs(folder, exist_ok=True)
    rows = sorted(_seconds.items(), key=lambda kv: -kv[1])
    with open(os.path.join(folder, name + ".txt"), "w") as f:
        f.write(f"# {len(rows)} tests, {sum(_seconds.values()):.1f} s in all, "
                f"{time.strftime('%Y-%m-%d %H:%M')}, Python {sys.version.split()[0]}, "
                f"pytest {' '.join(session.config.invocation_params.args)}\n")
        for nodeid, seconds in rows:
            f.write(f"{seconds:9.2f}  {nodeid}\n")
