"""The Blender side of Ligament: properties, operators, panels, handlers, bake, batch command.

Nothing here does physics: `bridge` turns the scene into a solver World and poses back into
transforms, `cache` keeps the per-frame states, the rest is Blender UI and bookkeeping.
"""

import hashlib
import os
import shutil

import bpy


def _solver_fingerprint():
    """A hash of the solver's sources. numba checks a cached kernel only against its own
    file's time stamp, not the files it calls into, so each version of the solver gets a
    cache folder of its own."""
    root = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "solver")
    digest = hashlib.sha1()
    for folder, dirs, files in sorted(os.walk(root)):
        dirs.sort()
        for name in sorted(files):
            if name.endswith(".py"):
                with open(os.path.join(folder, name), "rb") as f:
                    digest.update(name.encode() + f.read())
    return digest.hexdigest()[:12]


def _numba_cache_dir():
    """Point numba's on-disk cache at the extension's user folder before numba is imported:
    the extension's own folder may be read-only and is wiped on upgrade."""
    package = __package__.rpartition(".")[0]  # bl_ext.<repo>.ligament
    try:
        base = bpy.utils.extension_path_user(package, path="numba", create=True)
    except ValueError:  # not installed as an extension (e.g. a development checkout)
        return
    key = _solver_fingerprint()
    for old in os.listdir(base):                 # caches of earlier solver versions
        if old != key:
            shutil.rmtree(os.path.join(base, old), ignore_errors=True)
    path = os.path.join(base, key)
    os.makedirs(path, exist_ok=True)
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
