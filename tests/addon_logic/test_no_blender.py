"""The add-on modules tested in this folder import with Blender's modules out of reach (a
Python with bpy installed would hide an import that slipped in)."""

import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PURE = ["addon.baking.reduce", "addon.authoring.bonemap", "addon.authoring.presets",
        "addon.check.findings", "addon.check.joint_list", "addon.runtime.digests",
        "addon.scene.limit_shapes"]

BLOCK = """
import sys
for name in ("bpy", "bpy_extras", "mathutils", "gpu", "gpu_extras", "blf", "bmesh"):
    sys.modules[name] = None          # `import bpy` raises ImportError
sys.path.insert(0, {root!r})
import importlib
for name in {modules!r}:
    importlib.import_module(name)
print("imported", len({modules!r}))
"""


def test_the_bpy_free_modules_import_without_any_blender_module():
    out = subprocess.run([sys.executable, "-c", BLOCK.format(root=ROOT, modules=PURE)],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == f"imported {len(PURE)}"


def test_a_module_that_needs_blender_is_refused_by_the_same_check():
    """The check can fail: the scene check's entry point imports bpy."""
    out = subprocess.run([sys.executable, "-c", BLOCK.format(root=ROOT,
                                                             modules=["addon.check.doctor"])],
                         capture_output=True, text=True)
    assert out.returncode != 0 and "halted; None in sys.modules" in out.stderr, out.stderr[-2000:]
