"""addon/motion loaded from its folder under a name of its own, for the headless tests of the
physics check and fix (test_motion_check.py, test_motion_reach.py): it imports neither bpy
nor the solver."""

import importlib
import importlib.util
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
NAME = "_ligament_motion"


def load(module):
    """addon/motion's `module` (check, fix, ...)."""
    if NAME not in sys.modules:
        spec = importlib.util.spec_from_file_location(
            NAME, os.path.join(ROOT, "addon", "motion", "__init__.py"),
            submodule_search_locations=[os.path.join(ROOT, "addon", "motion")])
        package = importlib.util.module_from_spec(spec)
        sys.modules[NAME] = package
        spec.loader.exec_module(package)
    return importlib.import_module(NAME + "." + module)
