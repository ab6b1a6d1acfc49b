"""Rigs the ragdoll scenarios share: Blender's human metarig (rigify enabled first), a
Mixamo-named armature, an animated pose, the ground they drop on, and each joint's relative
rotation measured from the rest pose its limits count from."""

import math
import sys

import bpy
from mathutils import Euler, Matrix, Quaternion

from .helpers import box, lig


def enable_rigify():
    """rigify enabled (for its metarig operator); the add-on's ragdolls module."""
    bpy.ops.preferences.addon_enable(module="rigify")
    return ragdolls()


def ragdolls():
    """The add-on's addon.scene.ragdolls module."""
    return sys.modules[lig().__name__ + ".addon.scene.ragdolls"]


def ground():
    box("Ground", (30, 30, 1), (0, 0, -0.5), kind='STATIC')


def metarig(name="Rig", location=(0, 0, 0)):
    bpy.ops.object.armature_human_metarig_add()
    arm = bpy.context.active_object
    arm.name = name
    arm.location = location
    bpy.context.view_layer.update()
    return arm


def ragdolled_metarigs(heights):
    """Metarigs side by side (4 m apart) over a ground, raised to `heights`, each made a
    ragdoll at the add-on's defaults."""
    enable_rigify()
    ground()
    rigs = []
    for i, height in enumerate(heights):
        rigs.append(metarig(name=f"Rig{i}", location=(4.0 * i - 8.0, 0, height)))
        bpy.ops.ligament.ragdoll_from_armature()
    return rigs


def metarig_and_generated_rig(location=(0, 0, 0)):
    """(the human metarig at `location`, its face left out, the rig Rigify generates from it
    placed where the metarig is), Rigify enabled first."""
    enable_rigify()
    arm = metarig(location=location)
    remove_face(arm)
    bpy.ops.pose.rigify_generate()
    rig = arm.data.rigify_target_rig
    rig.matrix_world = arm.matrix_world
    return arm, rig


def remove_face(meta):
    """The metarig `meta` without its face: no ragdoll bone is in it (the ragdoll made from
    the metarig is the same), and Rigify's face rig is most of the generated rig's bones and
    constraints, so generating it and evaluating the rig each frame cost seconds."""
    bpy.context.view_layer.objects.active = meta
    bpy.ops.object.mode_set(mode='EDIT')
    edit = meta.data.edit_bones
    if "face" in edit:
        for b in [edit["face"]] + list(edit["face"].children_recursive):
            edit.remove(b)
    bpy.ops.object.mode_set(mode='OBJECT')


def ragdoll_bodies(arm):
    return sorted(ragdolls().bodies(arm), key=lambda o: o.name)


def matrix16(values):
    return Matrix([values[0:4], values[4:8], values[8:12], values[12:16]])


def joint_angles(arm):
    """Each joint's relative rotation, measured from the rest pose the limits count from:
    [(type, limits, twist or hinge angle, swing about X, swing about Z)]."""
    out = []
    for e in ragdolls().members(arm, 'JOINT'):
        j = e.ligament_joint
        a, b = j.object_a, j.object_b
        ref = {o: Matrix.LocRotScale(*(arm.matrix_world @ matrix16(
                   o.ligament_ragdoll_part.rest_frame)).decompose()[:2], None)
               for o in (a, b)}
        qj = (ref[a] @ e.matrix_basis).to_quaternion()
        fa = ref[a].to_quaternion().inverted() @ qj
        fb = ref[b].to_quaternion().inverted() @ qj
        rel = (a.matrix_world.to_quaternion() @ fa).inverted() @ \
            (b.matrix_world.to_quaternion() @ fb)
        if rel.w < 0:
            rel.negate()
        if j.type == 'HINGE':
            out.append(("HINGE", [j.limit_ang_lower, j.limit_ang_upper],
                        2 * math.atan2(rel.z, rel.w), 0.0, 0.0))
            continue
        twist = Quaternion((rel.w, 0, rel.y, 0)).normalized()
        swing = rel @ twist.inverted()
        axis, angle = swing.to_axis_angle()
        angle = angle - 2 * math.pi if angle > math.pi else angle
        out.append(("RAGDOLL", [j.limit_ang_lower, j.limit_ang_upper, j.swing_1, j.swing_2],
                    2 * math.atan2(twist.y, twist.w), axis.x * angle, axis.z * angle))
    return out


def key_pose(arm):
    """An animated pose: an arm raised and bending, a leg stepping, the chest and neck
    turning, between frames 1 and 60. Every key is inside the joints' limits (the knee
    flexes about the shin's +X, range [0, 140] deg), so full-strength drives can reach it."""
    poses = {1: {"upper_arm.L": (0.9, 0.0, 0.0), "forearm.L": (0.6, 0.0, 0.0),
                 "thigh.R": (0.5, 0.0, 0.0), "shin.R": (0.4, 0.0, 0.0),
                 "spine.003": (0.0, 0.2, 0.0), "spine.004": (0.2, 0.0, 0.1)},
             60: {"upper_arm.L": (0.3, 0.0, 0.6), "forearm.L": (1.2, 0.0, 0.0),
                  "thigh.R": (-0.3, 0.0, 0.0), "shin.R": (1.0, 0.0, 0.0),
                  "spine.003": (0.0, -0.2, 0.1), "spine.004": (-0.1, 0.3, 0.0)}}
    for frame, pose in poses.items():
        for bone, euler in pose.items():
            pb = arm.pose.bones[bone]
            pb.rotation_quaternion = Euler(euler).to_quaternion()
            pb.keyframe_insert("rotation_quaternion", frame=frame)


def mixamo_rig(prefix="mixamorig:"):
    """A T-posed character with Mixamo's bone names, facing -Y like Blender's metarig."""
    data = bpy.data.armatures.new("MixamoRig")
    arm = bpy.data.objects.new("Mixamo", data)
    bpy.context.scene.collection.objects.link(arm)
    bpy.context.view_layer.objects.active = arm
    bpy.ops.object.mode_set(mode='EDIT')
    bones = {}

    def bone(name, head, tail, parent=None):
        b = data.edit_bones.new(prefix + name)
        b.head, b.tail = head, tail
        if parent:
            b.parent = bones[parent]
            b.use_connect = (bones[parent].tail - b.head).length < 1e-6
        bones[name] = b
    bone("Hips", (0, 0, 1.0), (0, 0, 1.1))
    bone("Spine", (0, 0, 1.1), (0, 0, 1.25), "Hips")
    bone("Spine1", (0, 0, 1.25), (0, 0, 1.38), "Spine")
    bone("Spine2", (0, 0, 1.38), (0, 0, 1.5), "Spine1")
    bone("Neck", (0, 0, 1.5), (0, 0, 1.6), "Spine2")
    bone("Head", (0, 0, 1.6), (0, 0, 1.8), "Neck")
    for side, s in (("Left", 1), ("Right", -1)):
        bone(side + "Shoulder", (0.05 * s, 0, 1.45), (0.17 * s, 0, 1.45), "Spine2")
        bone(side + "Arm", (0.17 * s, 0, 1.45), (0.45 * s, 0, 1.45), side + "Shoulder")
        bone(side + "ForeArm", (0.45 * s, 0, 1.45), (0.7 * s, 0, 1.45), side + "Arm")
        bone(side + "Hand", (0.7 * s, 0, 1.45), (0.8 * s, 0, 1.45), side + "ForeArm")
        bone(side + "HandIndex1", (0.8 * s, 0, 1.45), (0.84 * s, 0, 1.45), side + "Hand")
        bone(side + "UpLeg", (0.1 * s, 0, 1.0), (0.1 * s, 0, 0.55), "Hips")
        bone(side + "Leg", (0.1 * s, 0, 0.55), (0.1 * s, 0, 0.1), side + "UpLeg")
        bone(side + "Foot", (0.1 * s, 0, 0.1), (0.1 * s, -0.12, 0.03), side + "Leg")
        bone(side + "ToeBase", (0.1 * s, -0.12, 0.03), (0.1 * s, -0.18, 0.03), side + "Foot")
    bpy.ops.object.mode_set(mode='OBJECT')
    return arm


def fcurves(action, slot):
    """The F-curves of `action` for `slot` (slotted actions)."""
    from bpy_extras import anim_utils
    return anim_utils.action_get_channelbag_for_slot(action, slot).fcurves
