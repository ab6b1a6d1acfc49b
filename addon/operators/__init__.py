"""Operators. `bl_idname`s are a contract: scripts and tests call them."""

from . import bake, bodies, joints, world

modules = (bodies, joints, bake, world)


def register():
    for m in modules:
        m.register()


def unregister():
    for m in reversed(modules):
        m.unregister()
