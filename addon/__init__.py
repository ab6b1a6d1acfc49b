"""The Blender side of Ligament: properties, operators, panels, handlers, bake, batch command.

Nothing here does physics: `bridge` turns the scene into a solver World and poses back into
transforms, `cache` keeps the per-frame states, the rest is Blender UI and bookkeeping.
"""

import atexit

_modules = None


def register():
    global _modules
    from . import cli, handlers, kernels, operators, overlay, panels, properties
    atexit.register(kernels.stop)
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
