"""Ligament: a Blender extension with its own rigid-body constraint solver.

Inside Blender this folder is the extension package; `register`/`unregister` come from
`addon`. Outside Blender nothing here is imported: use `import solver` for the headless solver.
"""

from .addon import register, unregister  # noqa: F401
