"""addon/motion loaded from its folder under a name of its own, for the headless tests of the
physics check and fix (test_motion_check.py, test_motion_reach.py): it imports neither bpy
nor the solver's kernels. Its `..kernels` is a module holding what the check takes from the
solver, its numpy-only `polygon.py` (in Blender, addon/kernels.py loads it with the rest)."""

import importlib
import importlib.util
import os
import sys
import types

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PARENT = "_ligament_headless"
NAME = PARENT + ".motion"


def _from_file(name, path, package_dir=None):
    spec = importlib.util.spec_from_file_location(
        name, path, submodule_search_locations=None if package_dir is None else [package_dir])
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def load(module):
    """addon/motion's `module` (check, fix, ...)."""
    if NAME not in sys.modules:
        parent = types.ModuleType(PARENT)
        parent.__path__ = []                 # a package: motion and kernels live under it
        sys.modules[PARENT] = parent
        kernels = types.ModuleType(PARENT + ".kernels")
        kernels.polygon = _from_file(PARENT + ".polygon",
                                     os.path.join(ROOT, "solver", "polygon.py"))
        sys.modules[PARENT + ".kernels"] = kernels
        _from_file(NAME, os.path.join(ROOT, "addon", "motion", "__init__.py"),
                   os.path.join(ROOT, "addon", "motion"))
    return importlib.import_module(NAME + "." + module)
