"""Ligament: a Blender extension with its own rigid-body constraint solver.

Inside Blender this folder is the extension package; `register`/`unregister` come from
`addon`. Outside Blender use `import solver` for the headless solver: importing this folder
as a package (pytest does, for the tests under it) must not need bpy, so `addon` is imported
when Blender registers the extension, which it does right after importing it.
"""


def register():
    from .addon import register
    register()


def unregister():
    from .addon import unregister
    unregister()
