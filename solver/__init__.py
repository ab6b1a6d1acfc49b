"""Ligament's headless rigid-body solver: numpy + numba, no Blender.

    import solver as lg
    w = lg.World(gravity=(0, 0, -9.81), substeps=8, iterations=1)
    ground = w.add_body(lg.Box((20, 20, 0.5)), position=(0, 0, -0.5), kind="static")
    a = w.add_body(lg.Capsule(radius=0.1, half_height=0.3), position=(0, 0, 2), mass=3.0)
    j = w.add_hinge(ground, a, anchor=(0, 0, 2.4), axis=(0, 1, 0))
    w.step(1 / 60)
"""

from .shapes import (Box, Capsule, Compound, ConvexHull, Cylinder, Plane, Sphere,  # noqa: F401
                     TriangleMesh)
from .world import World  # noqa: F401
from . import warmup as _warmup, world as _world

# the first step of a process prepares the kernels (world.py cannot import warmup, which
# imports it); looked up at each call, so a replaced warmup.prepare is the one called
_world.prepare_kernels = lambda: _warmup.prepare()

__all__ = ["World", "Sphere", "Capsule", "Cylinder", "Box", "ConvexHull", "Compound",
           "TriangleMesh", "Plane"]
