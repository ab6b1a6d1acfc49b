"""Before Simulation Start, and outside a baked range, the user's animation plays as keyed: a
ragdoll's bones play their keys until the simulation starts, and a bake writes its keys over
the baked frames only, keeping the user's keys before and after them."""

import pytest

from test_animation_sources import HELPERS
from test_ragdoll import GROUND, POSE, RIGIFY

pytestmark = pytest.mark.usefixtures("blender")


def test_a_ragdolls_bones_play_their_keys_before_the_start_and_its_bake_keeps_them(blender):
    """A metarig whose arm rises over frames 1-60, ragdolled with the simulation starting at
    frame 20: on frames 1-19 its bones are where the keys put them (measured before the
    ragdoll was made), not pinned to the frame-20 pose; a bake of frames 20-30 keeps the
    bones' keys before frame 20, so the baked rig still plays them there."""
    out = blender.run(RIGIFY, POSE, GROUND, """
        arm = metarig(location=(0, 0, 1.0))
        key_pose(arm)
        bones = ("upper_arm.L", "forearm.L", "thigh.R", "spine.004")

        def world(f):
            scene.frame_set(f)
            return {b: [list(r) for r in arm.matrix_world @ arm.pose.bones[b].matrix]
                    for b in bones}
        keyed = {f: world(f) for f in range(1, 20)}

        def keys_before(frame):
            fcurves = lig.addon.scene.animation.action_fcurves(arm).values()
            return sorted((fc.data_path, fc.array_index,
                           [list(k.co) for k in fc.keyframe_points if k.co[0] < frame])
                          for fc in fcurves if "upper_arm.L" in fc.data_path)
        before = keys_before(20)
        bpy.ops.ligament.ragdoll_from_armature()
        ws = scene.ligament_world
        ws.frame_start, ws.frame_end = 20, 30
        live = {f: world(f) for f in range(1, 20)}
        error = lig.addon.runtime.cache.error(scene)
        bpy.ops.ligament.bake(frame_start=20, frame_end=30)
        baked = {f: world(f) for f in range(1, 20)}
        result({"keyed": keyed, "live": live, "baked": baked, "before": before,
                "after": keys_before(20), "error": error})
    """)
    assert out["error"] is None

    def worst(a, b):
        return max(abs(x - y) for f in a for bone in a[f]
                   for ra, rb in zip(a[f][bone], b[f][bone]) for x, y in zip(ra, rb))
    assert worst(out["keyed"], out["live"]) < 1e-4
    # the user's keys are all there (with one on frame 19, where the bake's keys take over)
    after = {(p, i): keys for p, i, keys in out["after"]}   # the bake adds location curves
    for p, i, keys in out["before"]:
        assert [k for k in after[p, i] if k[0] < 19] == keys, (p, i, keys, after[p, i])
    assert worst(out["keyed"], out["baked"]) < 1e-4


def test_a_bake_keeps_a_keyed_bodys_keys_before_the_start(blender):
    """A box keyed to be thrown in over frames 1-10 (x from -5 to 0, high up), simulated from
    frame 10: after a bake of frames 10-40 it still comes in on frames 1-9 as keyed (it sat
    at its frame-10 pose on every frame before the start)."""
    out = blender.run(HELPERS, GROUND, """
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
        baked, after = {}, {}
        for f in range(1, 10):
            scene.frame_set(f)
            baked[f] = list(body.matrix_world.translation)
        scene.frame_set(40)
        result({"keyed": keyed, "baked": baked, "landed": body.matrix_world.translation.z,
                "error": cache.error(scene)})
    """)
    assert out["error"] is None
    assert out["landed"] < 0.3                     # the bake holds the fall
    for f in out["keyed"]:
        assert max(abs(a - b) for a, b in zip(out["keyed"][f], out["baked"][f])) < 1e-5, \
            (f, out["keyed"][f], out["baked"][f])


def test_baking_part_of_an_armed_animated_bodys_shot_keeps_its_keys_outside_it(blender):
    """An Animated box with a Hit Impulse keyed over frames 1-60, baked over frames 20-30
    only: outside 20-30 it plays its own keys as before (its motion was frozen there)."""
    out = blender.run(HELPERS, """
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
        result({"keyed": keyed, "baked": baked, "error": cache.error(scene)})
    """)
    assert out["error"] is None
    for f in out["keyed"]:
        assert max(abs(a - b) for a, b in zip(out["keyed"][f], out["baked"][f])) < 1e-5, \
            (f, out["keyed"][f], out["baked"][f])
