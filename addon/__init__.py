"""The Blender side of Ligament, in layers that import downward only:

    ui/         properties, panels, operators, overlay, handlers (what Blender registers)
    motion/     the physics check and fix of a ragdolled armature's keyed animation
    cli.py      the batch command (`blender -b FILE -c ligament ...`, `cli.main(argv)`)
    baking/     simulated poses written as keyframes
    authoring/  ragdolls made from armatures, bone maps, presets
    check/      the scene check (doctor): problems found before a simulation runs
    runtime/    the per-frame cache: a Simulation per scene, the change check, rest poses
    world/      a solver World built from the scene: bodies, joints, mechanisms, ragdolls
    scene/      reading the scene: animation at any frame, shapes, curves, objects
    kernels.py  the solver loaded under a module name of its own, its kernels prepared

Nothing here does physics; docs/architecture-addon.md follows a frame through the layers.

bpy is imported where it is used, not here: the modules below that do not import it (key
reduction, bone maps and presets, the scene check's findings, the frames' read digests, the
overlay's geometry) import without Blender, and tests/addon_logic tests them so.
"""

import atexit
import shutil

_modules = None


def _remove_old_kernel_cache():
    """Versions before the shipped kernels cached them in the extension's user folder
    (numba/<fingerprint>/); the kernels now live beside the installed solver."""
    import bpy
    try:
        old = bpy.utils.extension_path_user(__package__.rpartition(".")[0], path="numba")
    except ValueError:             # not installed as an extension (a development checkout)
        return
    shutil.rmtree(old, ignore_errors=True)


def register():
    global _modules
    from . import cli, kernels
    from .check import doctor
    from .ui import handlers, motion_overlay, operators, overlay, panels, properties, timeline
    atexit.register(kernels.stop)
    _remove_old_kernel_cache()
    _modules = (properties, operators, panels, handlers, overlay, motion_overlay, timeline, doctor,
                cli)
    for m in _modules:
        m.register()


def unregister():
    global _modules
    for m in reversed(_modules or ()):
        m.unregister()
    _modules = None
    from . import kernels
    kernels.stop()
    atexit.unregister(kernels.stop)
