"""test_pins.py's scenarios: Add Pin on bodies and on a ragdoll's pose bones, and Transfer
Pose onto the armature or its control rig."""

import math

import numpy as np

import bpy
from mathutils import Vector

from .helpers import box, lig
from .rigs import enable_rigify, ground, metarig

FRAME = 30      # the frame Transfer Pose keys


def pinned(body_name, **settings):
    """Add Pin on one selected body; its pin empty."""
    for o in bpy.context.view_layer.objects:
        o.select_set(False)
    body = bpy.data.objects[body_name]
    body.select_set(True)
    bpy.context.view_layer.objects.active = body
    assert bpy.ops.ligament.add_pin(**settings) == {'FINISHED'}
    return bpy.context.active_object


def point_error(pin):
    """How far the body's pinned point is from the pin empty as Blender evaluates it."""
    js = pin.ligament_joint
    p = js.object_b.matrix_world @ Vector(js.pin_offset)
    return (p - pin.matrix_world.translation).length


def ragdoll():
    """A metarig ragdoll 1 m above the ground, 40 frames: (the ragdolls module, the
    armature)."""
    ragdoll_mod = enable_rigify()
    ground()
    arm = metarig(location=(0, 0, 1.0))
    assert bpy.ops.ligament.ragdoll_from_armature() == {'FINISHED'}
    bpy.context.scene.ligament_world.frame_end = 40
    return ragdoll_mod, arm


def select_bones(arm, names):
    for b in arm.data.bones:    # selection is the pose bone's from Blender 5.0 on
        owner = arm.pose.bones[b.name] if hasattr(arm.pose.bones[b.name], "select") else b
        owner.select = b.name in names


def bone_world(target, names):
    return {n: target.matrix_world @ target.pose.bones[n].matrix for n in names}


def angle(q1, q2):
    """Degrees between two rotations (q and -q are one rotation), in float64 and by atan2:
    mathutils computes in float32, and 2 acos(q1 . q2) of a float32 dot cannot tell apart
    rotations closer than 0.03 degrees (the dot's rounding, 6e-8, is 7e-4 rad)."""
    a, b = np.array(q1, dtype=np.float64), np.array(q2, dtype=np.float64)
    a, b = a / np.linalg.norm(a), b / np.linalg.norm(b)
    b = b if a @ b >= 0.0 else -b
    return math.degrees(4.0 * math.atan2(np.linalg.norm(a - b), np.linalg.norm(a + b)))


def compare(a, b):
    """(m, degrees): the largest difference between two {bone: world matrix}."""
    dist = max((a[n].translation - b[n].translation).length for n in a)
    turn = max(angle(a[n].to_quaternion(), b[n].to_quaternion()) for n in a)
    return dist, turn


def add_pin_on_a_selection():
    """Add Pin with two bodies selected, then with a static one."""
    scene = bpy.context.scene
    a = box("A", (0.4, 0.4, 0.4), (0, 0, 2))
    b = box("B", (0.2, 0.6, 0.2), (2, 1, 3), rotation=(0.3, 0, 0.5))
    wall = box("Wall", (1, 1, 1), (5, 0, 0), kind='STATIC')
    for o in scene.objects:
        o.select_set(o in (a, b))
    res = bpy.ops.ligament.add_pin()
    pins = sorted((o for o in scene.objects if o.type == 'EMPTY'), key=lambda o: o.name)
    rows = [(p.name, p.ligament_joint.type, p.ligament_joint.object_b.name,
             p.ligament_joint.enabled, list(p.matrix_world.translation),
             list(p.ligament_joint.object_b.matrix_world @ Vector(p.ligament_joint.pin_offset)),
             abs(p.matrix_world.to_quaternion().dot(
                 p.ligament_joint.object_b.matrix_world.to_quaternion())))
            for p in pins]
    for o in scene.objects:
        o.select_set(o == wall)
    bpy.context.view_layer.objects.active = wall
    try:
        refused = list(bpy.ops.ligament.add_pin())
    except RuntimeError as exc:      # the operator's error report
        refused = str(exc)
    return {"res": list(res), "rows": rows, "refused": refused,
            "count": len([o for o in scene.objects if o.type == 'EMPTY'])}


def rigid_pin_keyed_a_metre():
    """A box pinned by a corner to an empty keyed 1 m along x over 24 frames (linear)."""
    scene = bpy.context.scene
    box("Box", (0.4, 0.2, 0.6), (0, 0, 2))
    pin = pinned("Box")
    pin.ligament_joint.pin_offset = (0.5, 0.5, 0.5)      # the corner, in local space
    bpy.context.view_layer.update()
    corner = bpy.data.objects["Box"].matrix_world @ Vector((0.5, 0.5, 0.5))
    for f, dx in ((1, 0.0), (25, 1.0)):
        pin.location = corner + Vector((dx, 0, 0))
        pin.keyframe_insert("location", frame=f)
    for fc in lig().addon.scene.animation.action_fcurves(pin).values():
        for k in fc.keyframe_points:
            k.interpolation = 'LINEAR'
    errors = []
    for f in range(1, 26):
        scene.frame_set(f)
        errors.append(point_error(pin))
    box_obj = bpy.data.objects["Box"]
    turned = 2 * math.acos(min(1.0, abs(box_obj.matrix_world.to_quaternion().w)))
    return {"errors": errors, "turned": turned,
            "moved": pin.matrix_world.translation.x - corner.x,
            "error": lig().addon.runtime.cache.error(scene)}


def pin_parented_and_switched():
    """A ball pinned to an empty parented to a keyed carrier, its `enabled` keyed off at
    frame 10 and on at 20, a free ball beside it: per frame the pin's point error, the
    ball's z, the pin's x, the free ball's z."""
    scene = bpy.context.scene
    box("Ball", (0.2, 0.2, 0.2), (0, 0, 3), shape='SPHERE')
    free = box("Free", (0.2, 0.2, 0.2), (0, 5, 3), shape='SPHERE')
    pin = pinned("Ball")
    carrier = bpy.data.objects.new("Carrier", None)
    scene.collection.objects.link(carrier)
    carrier.location = (0, 0, 0)
    for f, x in ((1, 0.0), (41, 2.0)):
        carrier.location.x = x
        carrier.keyframe_insert("location", frame=f)
    pin.parent = carrier
    pin.matrix_parent_inverse = carrier.matrix_world.inverted()
    js = pin.ligament_joint
    for f, on in ((1, True), (10, False), (20, True)):
        js.enabled = on
        js.keyframe_insert("enabled", frame=f)
    ball = bpy.data.objects["Ball"]
    rows = []
    for f in range(1, 31):
        scene.frame_set(f)
        rows.append((f, point_error(pin), ball.matrix_world.translation.z,
                     pin.matrix_world.translation.x, free.matrix_world.translation.z))
    return {"rows": rows, "error": lig().addon.runtime.cache.error(scene)}


def pin_force_limited(max_force):
    """A 2 kg box 5 m up on a rigid pin of at most `max_force` N: its height over 24
    frames, and the pin's setting."""
    scene = bpy.context.scene
    box("Box", (0.3, 0.3, 0.3), (0, 0, 5), mass=2.0)
    pin = pinned("Box", max_force=max_force)
    zs = []
    for f in range(1, 25):
        scene.frame_set(f)
        zs.append(bpy.data.objects["Box"].matrix_world.translation.z)
    return {"zs": zs, "max_force": pin.ligament_joint.pin_max_force}


def pose_bone_pin_on_a_hand():
    """Add Pin in Pose Mode with hand.L selected, the pin keyed 0.5 m up over 24 frames:
    the pinned part, its bones, and the pin's point error over 30 frames."""
    scene = bpy.context.scene
    ragdoll_mod, arm = ragdoll()
    bpy.context.view_layer.objects.active = arm
    bpy.ops.object.mode_set(mode='POSE')
    select_bones(arm, {"hand.L"})
    res = bpy.ops.ligament.add_pin()
    bpy.ops.object.mode_set(mode='OBJECT')
    pin = next(o for o in scene.objects
               if o.type == 'EMPTY' and o.ligament_joint.type == 'PIN')
    body = pin.ligament_joint.object_b
    start = pin.matrix_world.translation.copy()
    for f, dz in ((1, 0.0), (25, 0.5)):
        pin.location = start + Vector((0, 0, dz))
        pin.keyframe_insert("location", frame=f)
    errors = []
    for f in range(1, 31):
        scene.frame_set(f)
        errors.append(point_error(pin))
    return {"res": list(res), "body": body.ligament_ragdoll_part.part,
            "bone_of_body": sorted(t.ligament_ragdoll_part.bone for t in
                                   ragdoll_mod.members(arm, 'TARGET')
                                   if t.ligament_ragdoll_part.part ==
                                   body.ligament_ragdoll_part.part),
            "errors": errors, "error": lig().addon.runtime.cache.error(scene)}


def transfer_pose_onto_the_armature():
    """The ragdoll played to frame 30 and Transfer Pose: the bones keyed, at which frames,
    how far the keyed pose is from the simulated one; then in Pose Mode with forearm.R
    selected, the bones keyed."""
    scene = bpy.context.scene
    addon = lig().addon
    ragdoll_mod, arm = ragdoll()
    for f in range(1, FRAME + 1):
        scene.frame_set(f)
    moved = sorted({t.ligament_ragdoll_part.bone for t in ragdoll_mod.members(arm, 'TARGET')})
    simulated = bone_world(arm, moved)
    rest = {n: arm.matrix_world @ arm.data.bones[n].matrix_local for n in moved}
    fell = max((simulated[n].translation - rest[n].translation).length for n in moved)
    bpy.context.view_layer.objects.active = arm
    arm.select_set(True)
    res = bpy.ops.ligament.transfer_pose()
    keyed = sorted({fc.data_path.split('"')[1] for fc in
                    addon.scene.animation.action_fcurves(arm).values()})
    frames = sorted({k.co.x for fc in addon.scene.animation.action_fcurves(arm).values()
                     for k in fc.keyframe_points})
    scene.ligament_world.enabled = False       # the bones as their keys pose them
    scene.frame_set(FRAME)
    dist, turn = compare(bone_world(arm, moved), simulated)

    # In Pose Mode, the selected bone's part only
    scene.ligament_world.enabled = True
    arm.animation_data.action = None
    for f in range(1, FRAME + 1):
        scene.frame_set(f)
    bpy.ops.object.mode_set(mode='POSE')
    select_bones(arm, {"forearm.R"})
    res_part = bpy.ops.ligament.transfer_pose()
    bpy.ops.object.mode_set(mode='OBJECT')
    part_keyed = sorted({fc.data_path.split('"')[1] for fc in
                         addon.scene.animation.action_fcurves(arm).values()})
    return {"res": list(res), "res_part": list(res_part), "moved": moved, "keyed": keyed,
            "frames": frames, "dist": dist, "turn": turn, "fell": fell,
            "part_keyed": part_keyed}


def transfer_pose_onto_a_control_rig():
    """A plain control rig (the ragdoll's bones under other names, rolled 30 degrees) paired
    with the ragdoll, Transfer Pose at frame 30: how far each control is from its source,
    and the keys on the armature and on the rig."""
    scene = bpy.context.scene
    addon = lig().addon
    ragdoll_mod, arm = ragdoll()
    plain_data = bpy.data.armatures.new("Plain")
    plain = bpy.data.objects.new("Plain", plain_data)
    scene.collection.objects.link(plain)
    plain.matrix_world = arm.matrix_world
    bpy.context.view_layer.objects.active = plain
    bpy.ops.object.mode_set(mode='EDIT')
    moved = sorted({t.ligament_ragdoll_part.bone for t in ragdoll_mod.members(arm, 'TARGET')})
    names = {}
    for n in moved:
        b = arm.data.bones[n]
        e = plain_data.edit_bones.new("P_" + n.replace(".", "_"))
        e.head, e.tail = b.head_local, b.tail_local
        e.align_roll(b.matrix_local.to_3x3() @ Vector((math.sin(0.52), 0, math.cos(0.52))))
        names[n] = e.name
    for n in moved:
        b = arm.data.bones[n]
        if b.parent is not None and b.parent.name in names:
            plain_data.edit_bones[names[n]].parent = plain_data.edit_bones[names[b.parent.name]]
    bpy.ops.object.mode_set(mode='OBJECT')
    arm.ligament_ragdoll.control_rig = plain
    addon.authoring.controls.set_pairs(arm, sorted(names.items()))
    for f in range(1, FRAME + 1):
        scene.frame_set(f)
    simulated = bone_world(arm, moved)
    rest_s = {n: arm.matrix_world @ arm.data.bones[n].matrix_local for n in moved}
    for o in scene.objects:
        o.select_set(False)
    arm.select_set(True)
    bpy.context.view_layer.objects.active = arm
    res = bpy.ops.ligament.transfer_pose()
    arm_keys = len(addon.scene.animation.action_fcurves(arm))
    scene.ligament_world.enabled = False
    scene.frame_set(FRAME)
    # each control lands where its source is, turned from its rest as the source is
    dist, turn = 0.0, 0.0
    for s, t in names.items():
        m = plain.matrix_world @ plain.pose.bones[t].matrix
        t0 = plain.matrix_world @ plain.data.bones[t].matrix_local
        dist = max(dist, (m.translation - simulated[s].translation).length)
        q_t = m.to_quaternion() @ t0.to_quaternion().inverted()
        q_s = simulated[s].to_quaternion() @ rest_s[s].to_quaternion().inverted()
        turn = max(turn, angle(q_t, q_s))
    return {"res": list(res), "dist": dist, "turn": turn, "arm_keys": arm_keys,
            "rig_keys": len(addon.scene.animation.action_fcurves(plain))}
