"""Removing what Ligament made never loses the animator's work: after a bake, Remove Ragdoll and
Remove Body follow one rule (the baked keys stay as the object's animation, the action it had
before the bake is kept with a fake user and named in the report), and both survive a real
save and reopen."""

import pytest

from test_ragdoll import GROUND, RIGIFY

KEYS = """
    def action_keys(action):
        # {"path[index]": [[frame, value], ...]} of every F-curve of `action`, whichever
        # Blender (5.0 removed Action.fcurves: the channelbags of its layers' strips hold them)
        if hasattr(action, "layers") and len(action.layers):
            bags = [b for l in action.layers for s in l.strips for b in s.channelbags]
        else:
            bags = [action]
        return {f"{fc.data_path}[{fc.array_index}]": [[round(v, 6) for v in k.co]
                                                      for k in fc.keyframe_points]
                for bag in bags for fc in bag.fcurves}

    def reopen(path):
        bpy.ops.wm.save_as_mainfile(filepath=path)
        bpy.ops.wm.open_mainfile(filepath=path)
        return bpy.context.scene
"""


def test_remove_ragdoll_after_a_bake_keeps_the_bake_and_the_users_action_through_a_reopen(
        blender, tmp_path):
    path = str(tmp_path / "shot.blend")
    out = blender.run(RIGIFY, GROUND, KEYS, f"""
        arm = metarig(location=(0, 0, 1.0))
        # the animator's keys: a finger curls (a bone no ragdoll body moves) and the head turns
        for bone, angle in (("f_index.01.L", 0.8), ("spine.006", 0.4)):
            pb = arm.pose.bones[bone]
            pb.rotation_mode = 'XYZ'
            pb.rotation_euler = (0, 0, 0)
            pb.keyframe_insert("rotation_euler", frame=1)
            pb.rotation_euler = (angle, 0, 0)
            pb.keyframe_insert("rotation_euler", frame=24)
        user = arm.animation_data.action
        user.name = "RigWave"
        user_keys = action_keys(user)
        bpy.ops.ligament.ragdoll_from_armature()
        scene.ligament_world.frame_start, scene.ligament_world.frame_end = 1, 24
        assert bpy.ops.ligament.bake(frame_start=1, frame_end=24) == {{'FINISHED'}}
        bake_name = arm.animation_data.action.name
        scene.frame_set(24)
        baked_pose = [v for b in ("spine", "hand.L") for v in arm.pose.bones[b].matrix.translation]
        bpy.ops.object.select_all(action='DESELECT')
        arm.select_set(True)
        bpy.context.view_layer.objects.active = arm
        assert bpy.ops.ligament.remove_ragdoll() == {{'FINISHED'}}
        scene = reopen({path!r})
        arm = bpy.data.objects["Rig"]
        kept = bpy.data.actions.get("RigWave")
        scene.frame_set(1)
        scene.frame_set(24)
        result({{"user_keys": user_keys, "bake_name": bake_name,
                 "kept_keys": action_keys(kept) if kept else None,
                 "fake_user": kept.use_fake_user if kept else None,
                 "active": arm.animation_data.action.name if arm.animation_data and
                           arm.animation_data.action else None,
                 "baked_pose": baked_pose,
                 "pose": [v for b in ("spine", "hand.L")
                          for v in arm.pose.bones[b].matrix.translation],
                 "objects": sorted(o.name for o in bpy.data.objects)}})
    """)
    assert out["kept_keys"] is not None, "the animator's action was lost on reopen"
    assert out["kept_keys"] == out["user_keys"] and out["fake_user"] is True
    # the bake stays the armature's animation: the pose at frame 24 is the baked one
    assert out["active"] == out["bake_name"]
    assert out["pose"] == pytest.approx(out["baked_pose"], abs=1e-5)
    assert out["objects"] == ["Ground", "Rig"]
    assert "kept the bake" in blender.stdout and "'RigWave'" in blender.stdout


def test_remove_body_after_a_bake_keeps_the_bake_and_the_users_action_through_a_reopen(
        blender, tmp_path):
    path = str(tmp_path / "shot.blend")
    out = blender.run(KEYS, f"""
        box("Ground", (10, 10, 1), (0, 0, -0.5), kind='STATIC')
        crate = box("Crate", (0.5, 0.5, 0.5), (0, 0, 2.0))
        # the animator's own keys on the crate: a custom property the bake leaves alone
        crate["glow"] = 0.0
        crate.keyframe_insert('["glow"]', frame=1)
        crate["glow"] = 1.0
        crate.keyframe_insert('["glow"]', frame=24)
        user = crate.animation_data.action
        user.name = "CrateGlow"
        user_keys = action_keys(user)
        scene.ligament_world.frame_start, scene.ligament_world.frame_end = 1, 24
        assert bpy.ops.ligament.bake(frame_start=1, frame_end=24) == {{'FINISHED'}}
        bake_name = crate.animation_data.action.name
        scene.frame_set(24)
        baked_z = crate.matrix_world.translation.z
        bpy.ops.object.select_all(action='DESELECT')
        crate.select_set(True)
        bpy.context.view_layer.objects.active = crate
        assert bpy.ops.ligament.remove_body() == {{'FINISHED'}}
        scene = reopen({path!r})
        crate = bpy.data.objects["Crate"]
        kept = bpy.data.actions.get("CrateGlow")
        scene.frame_set(1)
        scene.frame_set(24)
        result({{"user_keys": user_keys, "bake_name": bake_name,
                 "kept_keys": action_keys(kept) if kept else None,
                 "fake_user": kept.use_fake_user if kept else None,
                 "active": crate.animation_data.action.name if crate.animation_data and
                           crate.animation_data.action else None,
                 "baked_z": baked_z, "z": crate.matrix_world.translation.z,
                 "enabled": crate.ligament_body.enabled}})
    """)
    # the crate fell onto the ground in the bake (centre 0.25 m up) ...
    assert out["baked_z"] == pytest.approx(0.25, abs=0.02)
    # ... and after Remove Body it still plays that bake, as a removed ragdoll does
    assert out["enabled"] is False
    assert out["active"] == out["bake_name"]
    assert out["z"] == pytest.approx(out["baked_z"], abs=1e-5)
    assert out["kept_keys"] == out["user_keys"] and out["fake_user"] is True
    assert "kept the bake" in blender.stdout and "'CrateGlow'" in blender.stdout
