"""The Blender side of Ligament: properties, operators, panels, handlers, bake, batch command.

Nothing here does physics: `bridge` turns the scene into a solver World and poses back into
transforms, `cache` keeps the per-frame states, the rest is Blender UI and bookkeeping.
"""

import atexit
import shutil

import bpy

_modules = None


def _remove_old_kernel_cache():
    """Versions before the shipped kernels cached them in the extension's user folder
    (numba/<fingerprint>/); the kernels now live beside the installed solver."""
    try:
        old = bpy.utils.extension_path_user(__package__.rpartition(".")[0], path="numba")
    except ValueError:             # not installed as an extension (a development checkout)
        return
    shutil.rmtree(old, ignore_errors=True)


def register():
    global _modules
    from . import cli, handlers, kernels, operators, overlay, panels, properties
    atexit.register(kernels.stop)
    _remove_old_kernel_cache()
    _modules = (properties, operators, panels, handlers, overlay, cli)
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
