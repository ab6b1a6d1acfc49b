"""Operators. `bl_idname`s are a contract: scripts and tests call them."""

from . import bake, bodies, chain, doctor, drag, joints, live, motion, pins, ragdoll, world

modules = (bodies, joints, pins, drag, live, bake, world, ragdoll, chain, doctor, motion)


def register():
    for m in modules:
        m.register()


def unregister():
    for m in reversed(modules):
        m.unregister()
