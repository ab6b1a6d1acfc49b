"""Put the repository root on sys.path so `import solver` works from any working directory;
give the quick tier its tests."""

import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

# The quick tier (`-m quick`, pytest.ini): every test under these folders of tests/ that is
# not marked slow or release.
QUICK_FOLDERS = ("solver", "addon_logic")


def pytest_collection_modifyitems(config, items):
    tests = os.path.join(ROOT, "tests")
    for item in items:
        folder = os.path.relpath(str(item.path), tests).split(os.sep)[0]
        if folder in QUICK_FOLDERS and item.get_closest_marker("slow") is None \
                and item.get_closest_marker("release") is None:
            item.add_marker(pytest.mark.quick)
