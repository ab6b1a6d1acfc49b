"""test_ragdoll_presets.py's scenarios: a tuned ragdoll saved by body part, applied to a
Mixamo rig, mirrored, dropped face down; a preset file with an unknown part."""

import math
import os
from importlib import import_module

import bpy

from .helpers import lig
from .rigs import enable_rigify, ground, metarig, mixamo_rig


def tuning():
    """The add-on's addon.authoring.tuning module."""
    return import_module(lig().__name__ + ".addon.authoring.tuning")


def tune_left(arm):
    """What an animator tunes on one side: a mass, a material, a shape, limits, a drive."""
    ps = tuning().parts(arm)
    ua, fa, th = ps["upper_arm.L"], ps["forearm.L"], ps["thigh.L"]
    ua.body.ligament_body.mass = 4.2
    ua.body.ligament_body.friction, ua.body.ligament_body.restitution = 0.9, 0.3
    ua.joint.ligament_joint.limit_ang_lower = math.radians(10)
    ua.joint.ligament_joint.limit_ang_upper = math.radians(40)
    ua.joint.ligament_joint.swing_1 = math.radians(50)
    fa.joint.ligament_joint.limit_ang_lower += math.radians(60)
    fa.joint.ligament_joint.limit_ang_upper -= math.radians(40)
    th.joint.ligament_joint.limit_ang_lower = math.radians(-5)
    th.joint.ligament_joint.limit_ang_upper = math.radians(25)
    th.body.scale = (1.3, 1.3, 1.0)          # a thicker thigh
    for b in ua.bones:
        arm.pose.bones[b].ligament_ragdoll.drive_strength = 0.4
    arm.ligament_ragdoll.drive_strength = 0.6
    arm.ligament_ragdoll.drive_stiffness = 25.0


def metarig_preset_onto_mixamo():
    """A metarig ragdoll tuned on its left side, saved as "Tuned hero" and applied to a
    Mixamo rig's ragdoll: the file, both rigs' tuning read back, and a few values."""
    enable_rigify()
    t = tuning()
    rig = metarig()
    bpy.ops.ligament.ragdoll_from_armature(total_mass=70.0)
    tune_left(rig)
    assert bpy.ops.ligament.ragdoll_preset_save(name="Tuned hero") == {'FINISHED'}
    path = t.user_presets()["Tuned hero"]
    with open(path) as f:
        text = f.read()
    source = t.read(rig)
    mix = mixamo_rig()
    mix.location.x = 3.0
    for o in bpy.context.selected_objects:
        o.select_set(False)
    bpy.context.view_layer.objects.active = mix
    bpy.ops.ligament.ragdoll_from_armature(total_mass=55.0)
    before = t.read(mix)
    res = bpy.ops.ligament.ragdoll_preset_apply(preset="Tuned hero")
    after = t.read(mix)
    ps = t.parts(mix)
    return {"res": list(res), "dir": os.path.dirname(path), "text": text,
            "source": source, "before": before, "after": after,
            "rig": mix.ligament_ragdoll.bone_map,
            "mass": ps["upper_arm.L"].body.ligament_body.mass,
            "total": mix.ligament_ragdoll.total_mass,
            "drive": [mix.pose.bones[b].ligament_ragdoll.drive_strength
                      for b in ps["upper_arm.L"].bones],
            "heights": [t.height(rig), t.height(mix)]}


def mirrored_left_to_right():
    """A metarig ragdoll tuned on its left side and mirrored left to right: the mirror signs
    per part, the tuning read back, the joint types."""
    enable_rigify()
    t = tuning()
    rig = metarig()
    bpy.ops.ligament.ragdoll_from_armature(total_mass=70.0)
    tune_left(rig)
    ps = t.parts(rig)
    reflect = t._mirror_matrix(ps)
    signs = {r[:-2]: t.mirror_signs(ps[r], ps[r[:-2] + ".R"], ps, reflect)
             for r in ps if r.endswith(".L")}
    res = bpy.ops.ligament.ragdoll_mirror(direction='L_TO_R')
    d = t.read(rig)["parts"]
    return {"res": list(res), "signs": signs, "parts": d,
            "types": {r: p.joint.ligament_joint.type for r, p in t.parts(rig).items()
                      if p.joint is not None}}


def mirrored_drop_face_down():
    """A metarig ragdoll dropped face down from 0.5 m for 60 frames, untuned, left-tuned,
    mirrored, and with the limits copied unmirrored: both hands' heads per frame of each."""
    scene = bpy.context.scene
    addon = lig().addon
    enable_rigify()
    ground()
    t = tuning()
    rig = metarig(location=(0, 0, 0.5))
    rig.rotation_euler.x = math.radians(90)       # face down; x = 0 stays the mirror plane
    bpy.context.view_layer.update()
    bpy.ops.ligament.ragdoll_from_armature(total_mass=70.0)
    scene.ligament_world.frame_end = 60

    def hands():
        track = []
        addon.runtime.cache.invalidate(scene)
        for f in range(1, 61):
            scene.frame_set(f)
            track.append([list(rig.matrix_world @ rig.pose.bones[b].head)
                          for b in ("hand.L", "hand.R")])
        return track
    runs = {"untuned": hands()}
    tune_left(rig)
    runs["left_tuned"] = hands()
    bpy.ops.ligament.ragdoll_mirror(direction='L_TO_R')
    runs["mirrored"] = hands()
    # the limits copied without mirroring them: what the sign rule is for
    ps = t.parts(rig)
    for role in ("upper_arm", "thigh"):
        a, b = ps[role + ".L"].joint.ligament_joint, ps[role + ".R"].joint.ligament_joint
        b.limit_ang_lower, b.limit_ang_upper = a.limit_ang_lower, a.limit_ang_upper
    runs["copied"] = hands()
    runs["error"] = addon.runtime.cache.error(scene)
    return runs


def preset_file_applied(path):
    """The preset file `path` applied to a metarig ragdoll: the error, and whether the
    ragdoll's tuning stayed as it was."""
    enable_rigify()
    t = tuning()
    rig = metarig()
    bpy.ops.ligament.ragdoll_from_armature(total_mass=70.0)
    before = t.read(rig)
    try:
        bpy.ops.ligament.ragdoll_preset_apply(filepath=path)
        message = None
    except RuntimeError as exc:
        message = str(exc)
    return {"message": message, "same": t.read(rig) == before}
