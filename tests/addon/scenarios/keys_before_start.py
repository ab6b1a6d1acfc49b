"""test_keys_before_start.py's scenarios: the user's animation before Simulation Start and
outside a baked range."""

import bpy

from .animation_sources import slide
from .helpers import box, lig
from .rigs import enable_rigify, ground, key_pose, metarig


def ragdoll_keys_before_the_start():
    """A posed metarig ragdoll with the simulation over frames 20-30: four bones' world
    matrices on frames 1-19 before the ragdoll, live, and after a bake of 20-30; the
    upper_arm.L keys before frame 20 before and after the bake."""
    scene = bpy.context.scene
    addon = lig().addon
    enable_rigify()
    ground()
    arm = metarig(location=(0, 0, 1.0))
    key_pose(arm)
    bones = ("upper_arm.L", "forearm.L", "thigh.R", "spine.004")

    def world(f):
        scene.frame_set(f)
        return {b: [list(r) for r in arm.matrix_world @ arm.pose.bones[b].matrix]
                for b in bones}
    keyed = {f: world(f) for f in range(1, 20)}

    def keys_before(frame):
        fcurves = addon.scene.animation.action_fcurves(arm).values()
        return sorted((fc.data_path, fc.array_index,
                       [list(k.co) for k in fc.keyframe_points if k.co[0] < frame])
                      for fc in fcurves if "upper_arm.L" in fc.data_path)
    before = keys_before(20)
    bpy.ops.ligament.ragdoll_from_armature()
    ws = scene.ligament_world
    ws.frame_start, ws.frame_end = 20, 30
    live = {f: world(f) for f in range(1, 20)}
    error = addon.runtime.cache.error(scene)
    bpy.ops.ligament.bake(frame_start=20, frame_end=30)
    baked = {f: world(f) for f in range(1, 20)}
    return {"keyed": keyed, "live": live, "baked": baked, "before": before,
            "after": keys_before(20), "error": error}


def thrown_body_baked_from_frame_10():
    """A box keyed from x -5 to 0 over frames 1-10, simulated over 10-40 and baked: its
    translation on frames 1-9 before and after the bake, its height at frame 40."""
    scene = bpy.context.scene
    ground()
    ws = scene.ligament_world
    ws.enabled = True
    ws.frame_start, ws.frame_end = 10, 40
    body = box("Thrown", (0.5, 0.5, 0.5), (0, 0, 3))
    slide(body, [(1, -5.0), (10, 0.0)])
    keyed = {}
    for f in range(1, 10):
        scene.frame_set(f)
        keyed[f] = list(body.matrix_world.translation)
    bpy.ops.ligament.bake(frame_start=10, frame_end=40)
    baked = {}
    for f in range(1, 10):
        scene.frame_set(f)
        baked[f] = list(body.matrix_world.translation)
    scene.frame_set(40)
    return {"keyed": keyed, "baked": baked, "landed": body.matrix_world.translation.z,
            "error": lig().addon.runtime.cache.error(scene)}


def armed_body_baked_over_part_of_its_shot():
    """An Animated box with a Hit Impulse keyed over frames 1-60 (no gravity), baked over
    20-30: its translation outside 20-30 before and after the bake."""
    scene = bpy.context.scene
    scene.use_gravity = False
    ws = scene.ligament_world
    ws.enabled = True
    ws.frame_start, ws.frame_end = 1, 60
    body = box("Armed", (0.5, 0.5, 0.5), (0, 0, 2), kind='ANIMATED', mass=2.0,
               hit_impulse=10.0)
    slide(body, [(1, 0.0), (60, 6.0)])
    slide(body, [(1, 2.0), (30, 3.0), (60, 2.0)], index=2)

    def path():
        out = {}
        for f in list(range(1, 20)) + list(range(31, 61)):
            scene.frame_set(f)
            out[f] = list(body.matrix_world.translation)
        return out
    keyed = path()
    bpy.ops.ligament.bake(frame_start=20, frame_end=30)
    baked = path()
    return {"keyed": keyed, "baked": baked, "error": lig().addon.runtime.cache.error(scene)}
