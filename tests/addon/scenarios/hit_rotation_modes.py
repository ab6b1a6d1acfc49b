"""test_hit_rotation_modes.py's scenario: an Animated board with a Hit Impulse in each
rotation mode, a block dropped onto it."""

import sys

import bpy

from .helpers import lig
from .hit_rotation import board_and_block


def _play(mode):
    scene = bpy.context.scene
    for o in list(bpy.data.objects):
        bpy.data.objects.remove(o)
    board, block = board_and_block(mode)
    bpy.ops.ligament.reset()
    cache = lig().addon.runtime.cache
    board_z, block_z = [], []
    for f in range(1, 31):
        scene.frame_set(f)
        board_z.append(board.matrix_world.translation.z)
        block_z.append(block.matrix_world.translation.z)
    sim = cache.get(scene)
    doctor = sys.modules[lig().__name__ + ".addon.check.doctor"]
    return {"error": cache.error(scene), "board_z": board_z, "block_z": block_z,
            "hits": sim.hit_list() if sim is not None else None,
            "findings": [f.line() for f in doctor.check(scene)]}


def boards_in_each_mode(modes):
    """Each mode of `modes` played in turn (the scene made anew): the error, both heights
    per frame, the hits, the check's findings."""
    return {m: _play(m) for m in modes}
