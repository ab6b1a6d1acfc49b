"""test_kernel_cache_unwritable.py's scenario: a cube dropped in a Blender whose kernel
cache folder it may not write."""

import bpy

from .helpers import box, lig


def drop_cube():
    """Whether the kernels counted as prepared before the first frame, where the cube is
    after three frames (24 fps) from z = 2, and the simulation's error, if any."""
    scene = bpy.context.scene
    box("Ground", (4, 4, 1), (0, 0, -0.5), kind='STATIC')
    cube = box("Cube", (1, 1, 1), (0, 0, 2))
    ready = lig().addon.kernels.ready()
    for f in range(1, 5):
        scene.frame_set(f)
    return {"ready": ready, "z": cube.matrix_world.translation.z,
            "error": lig().addon.runtime.cache.error(scene)}
