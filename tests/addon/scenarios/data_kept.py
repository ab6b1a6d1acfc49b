"""test_data_kept.py's scenarios: Remove Ragdoll and Remove Body after a bake, then a real
save and reopen."""

import bpy

from .helpers import box
from .rigs import enable_rigify, ground, metarig


def action_keys(action):
    """{"path[index]": [[frame, value], ...]} of every F-curve of `action`, whichever
    Blender (5.0 removed Action.fcurves: the channelbags of its layers' strips hold them)."""
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


def remove_ragdoll_after_a_bake(path):
    """A metarig with the animator's keys (a finger and the head) made a ragdoll, baked for
    24 frames, its ragdoll removed, saved to `path` and reopened."""
    scene = bpy.context.scene
    enable_rigify()
    ground()
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
    assert bpy.ops.ligament.bake(frame_start=1, frame_end=24) == {'FINISHED'}
    bake_name = arm.animation_data.action.name
    scene.frame_set(24)
    baked_pose = [v for b in ("spine", "hand.L") for v in arm.pose.bones[b].matrix.translation]
    bpy.ops.object.select_all(action='DESELECT')
    arm.select_set(True)
    bpy.context.view_layer.objects.active = arm
    assert bpy.ops.ligament.remove_ragdoll() == {'FINISHED'}
    scene = reopen(path)
    arm = bpy.data.objects["Rig"]
    kept = bpy.data.actions.get("RigWave")
    scene.frame_set(1)
    scene.frame_set(24)
    return {"user_keys": user_keys, "bake_name": bake_name,
            "kept_keys": action_keys(kept) if kept else None,
            "fake_user": kept.use_fake_user if kept else None,
            "active": arm.animation_data.action.name if arm.animation_data and
            arm.animation_data.action else None,
            "baked_pose": baked_pose,
            "pose": [v for b in ("spine", "hand.L")
                     for v in arm.pose.bones[b].matrix.translation],
            "objects": sorted(o.name for o in bpy.data.objects)}


def remove_body_after_a_bake(path):
    """A crate with the animator's keys on a custom property, baked for 24 frames, its body
    removed, saved to `path` and reopened."""
    scene = bpy.context.scene
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
    assert bpy.ops.ligament.bake(frame_start=1, frame_end=24) == {'FINISHED'}
    bake_name = crate.animation_data.action.name
    scene.frame_set(24)
    baked_z = crate.matrix_world.translation.z
    bpy.ops.object.select_all(action='DESELECT')
    crate.select_set(True)
    bpy.context.view_layer.objects.active = crate
    assert bpy.ops.ligament.remove_body() == {'FINISHED'}
    scene = reopen(path)
    crate = bpy.data.objects["Crate"]
    kept = bpy.data.actions.get("CrateGlow")
    scene.frame_set(1)
    scene.frame_set(24)
    return {"user_keys": user_keys, "bake_name": bake_name,
            "kept_keys": action_keys(kept) if kept else None,
            "fake_user": kept.use_fake_user if kept else None,
            "active": crate.animation_data.action.name if crate.animation_data and
            crate.animation_data.action else None,
            "baked_z": baked_z, "z": crate.matrix_world.translation.z,
            "enabled": crate.ligament_body.enabled}
