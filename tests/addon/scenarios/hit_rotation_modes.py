"""test_hit_rotation_modes.py's scenario: an Animated board with a Hit Impulse in each
rotation mode, a block dropped onto it."""

import sys

import bpy
from mathutils import Euler

from .helpers import box, lig


def _play(mode):
    scene = bpy.context.scene
    for o in list(bpy.data.objects):
        bpy.data.objects.remove(o)
    ws = scene.ligament_world
    ws.frame_start, ws.frame_end = 1, 30
    box("Ground", (30, 30, 1), (0, 0, -0.5), kind='STATIC')
    # a keyed board turning slowly about Z, and a 2 kg block dropped 2 m onto it
    board = box("Board", (2, 2, 0.25), (0, 0, 0.375), kind='ANIMATED', hit_impulse=5.0)
    board.rotation_mode = mode
    board.keyframe_insert("location", frame=1)
    board.keyframe_insert("location", frame=30)
    path = {'QUATERNION': "rotation_quaternion",
            'AXIS_ANGLE': "rotation_axis_angle"}.get(mode, "rotation_euler")
    board.keyframe_insert(path, frame=1)
    if mode == 'QUATERNION':
        board.rotation_quaternion = Euler((0, 0, 0.3)).to_quaternion()
    elif mode == 'AXIS_ANGLE':
        board.rotation_axis_angle = (0.3, 0, 0, 1)
    else:
        board.rotation_euler = (0, 0, 0.3)
    board.keyframe_insert(path, frame=30)
    block = box("Block", (0.25, 0.25, 0.25), (0, 0, 0.5 + 0.125 + 2.0), mass=2.0)
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
