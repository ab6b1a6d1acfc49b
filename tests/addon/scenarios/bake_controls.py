"""test_bake_controls.py's scenario: a metarig ragdoll baked onto the rig Rigify generated
from it, onto a plain armature through pairs picked by hand (full and reduced keys), and
the pairs kept in a ragdoll preset."""

import math
import os

import bpy
from mathutils import Vector

from .helpers import lig
from .rigs import ground, metarig_and_generated_rig

END = 36


def baked_onto_controls():
    """The metarig (1 m up, its face left out: rigs.remove_face) with its generated Rigify
    rig and a plain armature of its ragdoll bones under other names, rolled 30 degrees; 36
    frames baked onto each: the worst (mm, deg) of the targets against the simulated bones,
    the pairs, the key counts, and the pairs after a preset save and apply."""
    scene = bpy.context.scene
    addon = lig().addon
    ground()
    arm, rig = metarig_and_generated_rig(location=(0, 0, 1.0))
    # a plain armature: the metarig's ragdoll bones under other names, rolled 30 degrees
    plain_data = bpy.data.armatures.new("Plain")
    plain = bpy.data.objects.new("Plain", plain_data)
    scene.collection.objects.link(plain)
    plain.matrix_world = arm.matrix_world
    bpy.context.view_layer.objects.active = plain
    bpy.ops.object.mode_set(mode='EDIT')
    names = {}
    for b in arm.data.bones:
        if b.name.startswith(("spine", "upper_arm", "forearm", "hand.", "thigh", "shin",
                              "foot.", "toe.")) and "." in b.name[-4:] or b.name == "spine":
            e = plain_data.edit_bones.new("P_" + b.name.replace(".", "_"))
            e.head, e.tail = b.head_local, b.tail_local
            e.align_roll(b.matrix_local.to_3x3() @ Vector((math.sin(0.52), 0, math.cos(0.52))))
            names[b.name] = e.name
    for b in arm.data.bones:
        if b.name in names and b.parent is not None and b.parent.name in names:
            plain_data.edit_bones[names[b.name]].parent = \
                plain_data.edit_bones[names[b.parent.name]]
    bpy.ops.object.mode_set(mode='OBJECT')
    for o in bpy.context.view_layer.objects:
        o.select_set(False)
    bpy.context.view_layer.objects.active = arm
    arm.select_set(True)
    assert bpy.ops.ligament.ragdoll_from_armature() == {'FINISHED'}
    scene.ligament_world.frame_end = END
    rest_world = {b.name: arm.matrix_world @ b.matrix_local for b in arm.data.bones}
    live = {}
    for f in range(1, END + 1):
        scene.frame_set(f)
        live[f] = {b.name: arm.matrix_world @ arm.pose.bones[b.name].matrix
                   for b in arm.data.bones}

    def worst(target, pairs):
        # (mm, deg): each target's head against its source's, and its turn from rest against
        # the source's, at every baked frame, the simulation off
        scene.ligament_world.enabled = False
        err = [0.0, 0.0, ""]
        for f in range(1, END + 1):
            scene.frame_set(f)
            for s, t in pairs:
                m = target.matrix_world @ target.pose.bones[t].matrix
                t0 = target.matrix_world @ target.data.bones[t].matrix_local
                d = (m.translation - live[f][s].translation).length * 1000
                turn_t = (m.to_quaternion() @ t0.to_quaternion().inverted())
                turn_s = (live[f][s].to_quaternion() @ rest_world[s].to_quaternion().inverted())
                a = math.degrees(2 * math.acos(min(1.0, abs(turn_t.normalized().dot(
                    turn_s.normalized())))))
                if d > err[0]:
                    err[0] = d
                if a > err[1]:
                    err[1], err[2] = a, f"{t} at {f}"
        scene.ligament_world.enabled = True
        return err

    def channel_error(target, bones, before):
        # (mm, deg) between the keyed channels now and `before` ({f: {bone: matrix_basis}})
        scene.ligament_world.enabled = False
        err, now = [0.0, 0.0], {}
        for f in range(1, END + 1):
            scene.frame_set(f)
            now[f] = {b: target.pose.bones[b].matrix_basis.copy() for b in bones}
            for b in (bones if before else ()):
                m, m0 = now[f][b], before[f][b]
                err[0] = max(err[0], (m.translation - m0.translation).length * 1000)
                q, q0 = m.to_quaternion(), m0.to_quaternion()
                err[1] = max(err[1], math.degrees(2 * math.acos(min(1.0, abs(q.dot(q0))))))
        scene.ligament_world.enabled = True
        return err, now

    rd = arm.ligament_ragdoll
    assert bpy.ops.ligament.bake(frame_start=1, frame_end=END) == {'FINISHED'}
    pairs = [(c.source, c.target) for c in rd.controls]
    fk = {pb.name: pb["IK_FK"] for pb in rig.pose.bones if "IK_FK" in pb.keys()}
    deform = [(s, "DEF-" + s) for s in sorted({s for s, _ in pairs})
              if "DEF-" + s in rig.pose.bones]
    rigify = worst(rig, deform)
    moved = max(((live[END][s].translation - live[1][s].translation).length
                 for s, _ in pairs))
    rigify_keys = sum(len(fc.keyframe_points) for fc in
                      addon.scene.animation.action_fcurves(rig).values())
    assert bpy.ops.ligament.clear_bake() == {'FINISHED'}
    cleared = rig.animation_data is None or rig.animation_data.action is None

    rd.control_rig = plain
    addon.authoring.controls.set_pairs(arm, sorted(names.items()))
    assert bpy.ops.ligament.bake(frame_start=1, frame_end=END) == {'FINISHED'}
    custom = worst(plain, sorted(names.items()))
    _, full_channels = channel_error(plain, list(names.values()), None)
    # reduced keys: each channel within the tolerance of the full bake's
    assert bpy.ops.ligament.clear_bake() == {'FINISHED'}
    assert bpy.ops.ligament.bake(frame_start=1, frame_end=END, reduce_keys=True,
                                 tolerance_location=0.001,
                                 tolerance_rotation=math.radians(0.5)) == {'FINISHED'}
    reduced, _ = channel_error(plain, list(names.values()), full_channels)
    count = addon.baking.bake.last_key_count(scene)

    path = os.path.join(bpy.app.tempdir or ".", "controls_preset.toml")
    addon.authoring.tuning.save(arm, path)
    saved = [(c.source, c.target) for c in rd.controls]
    rd.controls.clear()
    addon.authoring.tuning.apply(arm, addon.authoring.tuning.load(path))
    return {"rigify_pairs": pairs, "fk": fk, "rigify": rigify, "moved": moved,
            "rigify_keys": rigify_keys, "cleared": cleared, "custom": custom,
            "reduced": reduced, "keys": [count.written, count.full], "saved": saved,
            "applied": [(c.source, c.target) for c in rd.controls],
            "error": addon.runtime.cache.error(scene)}
