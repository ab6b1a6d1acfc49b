"""test_bake_world_error.py's scenario: a ragdoll's reduced bake checked bone by bone in
world space."""

import math

import bpy

from .helpers import lig
from .rigs import enable_rigify, ground, metarig


def reduced_ragdoll_bake_in_world_space():
    """A metarig (1 m up, turned 0.4 rad) dropped for 60 frames, baked with a key on every
    frame and then reduced (1 mm, 0.5 deg): every pose bone's head and tail in world space
    at each frame of both, and the key counts."""
    scene = bpy.context.scene
    enable_rigify()
    ground()
    arm = metarig(location=(0, 0, 1.0))
    arm.rotation_euler.z = 0.4
    bpy.ops.ligament.ragdoll_from_armature()
    scene.ligament_world.frame_start, scene.ligament_world.frame_end = 1, 60
    frames = list(range(1, 61))

    def world_points():
        # [frame][bone] head and tail in world space, as Blender poses them
        out = []
        for f in frames:
            scene.frame_set(f)
            m = arm.matrix_world
            out.append([[*(m @ pb.head), *(m @ pb.tail)] for pb in arm.pose.bones])
        return out
    assert bpy.ops.ligament.bake(frame_start=1, frame_end=60) == {'FINISHED'}
    full = world_points()
    bpy.ops.ligament.clear_bake()
    assert bpy.ops.ligament.bake(frame_start=1, frame_end=60, reduce_keys=True,
                                 tolerance_location=0.001,
                                 tolerance_rotation=math.radians(0.5)) == {'FINISHED'}
    reduced = world_points()
    count = lig().addon.baking.bake.last_key_count(scene)
    return {"full": full, "reduced": reduced, "names": [b.name for b in arm.pose.bones],
            "count": [count.written, count.full]}
