"""The Blender side of Ligament: properties, operators, panels, handlers, bake, batch command.

Nothing here does physics: `bridge` turns the scene into a solver World and poses back into
transforms, `cache` keeps the per-frame states, the rest is Blender UI and bookkeeping.
"""

import os

import bpy


def _numba_cache_dir():
    """Point numba's on-disk cache at the extension's user folder before numba is imported:
    the extension's own folder may be read-only and is wiped on upgrade."""
    package = __package__.rpartition(".")[0]  # bl_ext.<repo>.ligament
    try:
        path = bpy.utils.extension_path_user(package, path="numba", create=True)
    except ValueError:  # not installed as an extension (e.g. a development checkout)
        return
    os.environ["NUMBA_CACHE_DIR"] = path


_modules = None


def register():
    global _modules
    _numba_cache_dir()
    from . import cli, handlers, operators, overlay, panels, properties
    _modules = (properties, operators, panels, handlers, overlay, cli)
    for m in _modules:
        m.register()


def unregister():
    global _modules
    for m in reversed(_modules or ()):
        m.unregister()
    _modules = None
