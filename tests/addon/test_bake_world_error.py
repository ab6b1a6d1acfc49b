"""Reduced keys of a ragdoll bound where the bones are, not only each bone's own channels: the
errors of the channels add up down a chain (spine, shoulder, arm, forearm, hand, fingers), so
the bake checks every bone's head and tail in world space, as Blender poses them, against the
bake with a key on every frame, and keys the bones above one that is off until none is."""

import numpy as np

from test_ragdoll import GROUND, RIGIFY


def test_every_bone_of_a_reduced_ragdoll_bake_stays_within_the_location_tolerance(blender):
    out = blender.run(RIGIFY, GROUND, """
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
        count = lig.addon.baking.bake.last_key_count(scene)
        result({"full": full, "reduced": reduced, "names": [b.name for b in arm.pose.bones],
                "count": [count.written, count.full]})
    """)
    full, reduced = np.array(out["full"]), np.array(out["reduced"])
    # the ragdoll fell: the hands moved far, so the check is not of a still pose
    moved = np.linalg.norm(full[-1, :, :3] - full[0, :, :3], axis=1)
    assert moved.max() > 0.5
    err = np.maximum(np.linalg.norm(full[:, :, :3] - reduced[:, :, :3], axis=2),
                     np.linalg.norm(full[:, :, 3:] - reduced[:, :, 3:], axis=2))
    worst = err.max(axis=0)
    k = int(np.argmax(worst))
    print(f"worst bone {out['names'][k]}: {worst[k] * 1000:.3f} mm; keys {out['count']}")
    assert worst.max() <= 0.001 + 1e-6, \
        f"'{out['names'][k]}' is {worst[k] * 1000:.2f} mm off in world space"
    # still a reduction worth having
    assert out["count"][1] > 2 * out["count"][0]
