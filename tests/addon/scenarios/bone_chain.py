"""test_bone_chain.py's scenarios: bone chains (Add Bone Chain) on a plain armature and below
a ragdoll part. `chain_armature()` is shared with other scenario modules."""

import math

import bpy
from mathutils import Vector

from .rigs import enable_rigify, metarig


def chain_armature(name="Chain", bones=5, length=0.1, direction=(0, 0, -1),
                   location=(0, 0, 2)):
    """A root bone and `bones` connected bones in a line along `direction`, all selected in
    Pose Mode: (the armature, the bone names)."""
    scene = bpy.context.scene
    data = bpy.data.armatures.new(name)
    arm = bpy.data.objects.new(name, data)
    scene.collection.objects.link(arm)
    arm.location = location
    bpy.context.view_layer.objects.active = arm
    arm.select_set(True)
    bpy.ops.object.mode_set(mode='EDIT')
    d = Vector(direction).normalized() * length
    parent = None
    head = Vector((0, 0, 0))
    for i in range(bones + 1):
        eb = data.edit_bones.new("root" if i == 0 else f"b{i}")
        eb.head, eb.tail = head, head + d
        eb.roll = 0.0
        if parent is not None:
            eb.parent, eb.use_connect = parent, True
        parent, head = eb, head + d
    bpy.ops.object.mode_set(mode='POSE')
    names = ["root"] + [f"b{i}" for i in range(1, bones + 1)]
    for n in names:   # Blender 5 selects pose bones, older versions bones
        sel = arm.pose.bones[n] if hasattr(arm.pose.bones[n], "select") else arm.data.bones[n]
        sel.select = True
    arm.data.bones.active = arm.data.bones["root"]
    return arm, names


def key_root(arm, frames_values, index=1):
    """Key the armature's location (the chain's root follows it)."""
    for f, v in frames_values:
        arm.location[index] = v
        arm.keyframe_insert("location", index=index, frame=f)


def bone_points(arm, names):
    """World heads and tails of the bones as the evaluated pose has them."""
    m = arm.matrix_world
    pb = arm.pose.bones
    return [[list(m @ pb[n].head), list(m @ pb[n].tail)] for n in names]


def body_gap(arm, names):
    """The largest distance between where a bone's body puts the bone's head and where its
    parent's body puts the parent's tail: the joints' error (the bones themselves are
    connected, Blender keeps a connected bone's head on its parent's tail)."""
    targets = {o.ligament_ragdoll_part.bone: o for o in bpy.data.objects
               if o.ligament_ragdoll_part.role == 'TARGET'
               and o.ligament_ragdoll_part.armature == arm}

    def placed(n):
        t = targets[n]
        return t.parent.matrix_world @ t.matrix_basis
    worst = 0.0
    for parent, child in zip(names, names[1:]):
        tail = placed(parent) @ Vector((0, arm.data.bones[parent].length, 0))
        worst = max(worst, (placed(child).translation - tail).length)
    return worst


def play(arm, names, frames, gaps=None):
    out = []
    for f in frames:
        bpy.context.scene.frame_set(f)
        out.append(bone_points(arm, names))
        if gaps is not None:
            gaps.append(body_gap(arm, names))
    return out


def keyed_root_whip():
    """A five-bone TAIL chain whose root is keyed 0.4 m sideways over frames 1-8, 240 frames
    live and baked: the rest points, both plays, the joints' gaps, the chain's bodies."""
    scene = bpy.context.scene
    arm, names = chain_armature()
    bpy.ops.ligament.add_bone_chain(preset='TAIL')
    key_root(arm, [(1, 0.0), (8, 0.4)])
    scene.ligament_world.frame_end = 240
    rest = bone_points(arm, names)
    gaps = []
    live = play(arm, names, range(1, 241), gaps)
    bpy.ops.object.mode_set(mode='OBJECT')
    bpy.ops.ligament.bake(frame_start=1, frame_end=240)
    baked = play(arm, names, range(1, 241))
    return {"rest": rest, "live": live, "baked": baked, "gaps": gaps,
            "bodies": len([o for o in bpy.data.objects
                           if o.ligament_ragdoll_part.chain == "root"
                           and o.ligament_ragdoll_part.role == 'BODY'])}


def gravity_factors(factors):
    """A horizontal HAIR chain with each Gravity Factor of `factors`, 72 frames: its tip's
    height per frame and the largest gap."""
    scene = bpy.context.scene
    tips = {}
    for factor in factors:
        for o in list(bpy.data.objects):
            bpy.data.objects.remove(o)
        arm, names = chain_armature(name=f"G{factor}", direction=(1, 0, 0))
        bpy.ops.ligament.add_bone_chain(preset='HAIR')
        arm.pose.bones["root"].ligament_chain.gravity_factor = factor
        scene.ligament_world.frame_end = 72
        gaps = []
        points = play(arm, names, range(1, 73), gaps)
        bpy.ops.object.mode_set(mode='OBJECT')
        tips[str(factor)] = {"z": [p[-1][1][2] for p in points], "gap": max(gaps)}
    return tips


def single_bone_spring():
    """One bone (stiffness 2, no damping or gravity) on a root that jumps 1 cm sideways over
    frames 1-4, at 120 fps for 360 frames: the bone points per frame."""
    scene = bpy.context.scene
    scene.render.fps = 120
    arm, names = chain_armature(bones=1, direction=(1, 0, 0))
    bpy.ops.ligament.add_bone_chain(preset='JIGGLE')
    c = arm.pose.bones["root"].ligament_chain
    c.preset = 'CUSTOM'
    c.stiffness, c.damping, c.gravity_factor, c.swing_limit = 2.0, 0.0, 0.0, 60.0
    key_root(arm, [(1, 0.0), (4, 0.01)])
    scene.ligament_world.frame_end = 360
    return play(arm, names, range(1, 361))


def chain_below_a_ragdoll_hand():
    """A metarig ragdoll falling freely for 48 frames with a TAIL chain on its left index
    finger: what the chain's joints hang from, the hand's height, how far the finger's body
    is from where the hand holds it, the chain's gaps."""
    scene = bpy.context.scene
    enable_rigify()
    arm = metarig(location=(0, 0, 1.0))
    bpy.ops.ligament.ragdoll_from_armature()
    bpy.context.view_layer.objects.active = arm
    bpy.ops.object.mode_set(mode='POSE')
    names = ["f_index.01.L", "f_index.02.L", "f_index.03.L"]
    for pb in arm.pose.bones:
        (pb if hasattr(pb, "select") else pb.bone).select = pb.name in names
    arm.data.bones.active = arm.data.bones[names[0]]
    bpy.ops.ligament.add_bone_chain(preset='TAIL')
    joints = [o for o in bpy.data.objects if o.ligament_ragdoll_part.chain == names[0]
              and o.ligament_ragdoll_part.role == 'JOINT']
    hangs = sorted(j.ligament_joint.object_a.name for j in joints)
    scene.ligament_world.frame_end = 48
    targets = {o.ligament_ragdoll_part.bone: o for o in bpy.data.objects
               if o.ligament_ragdoll_part.role == 'TARGET'}

    def placed(n):       # the bone's matrix as its body puts it
        t = targets[n]
        return t.parent.matrix_world @ t.matrix_basis
    bones = arm.data.bones
    # where the finger's second bone's head sits on the hand (at rest, hand space)
    on_hand = bones["hand.L"].matrix_local.inverted() @ bones[names[1]].head_local
    hand_z, held, gaps = [], [], []
    for f in range(1, 49):
        scene.frame_set(f)
        hand_z.append(placed("hand.L").translation.z)
        held.append((placed(names[1]).translation - placed("hand.L") @ on_hand).length)
        gaps.append(body_gap(arm, names[1:]))
    return {"hangs": hangs, "hand_z": hand_z, "held": held, "gaps": gaps}


def chain_settings_and_removal():
    """A three-bone HAIR chain: its settings, then the JIGGLE preset's, a body's width at
    radius 0.02, the errors of Add Bone Chain on one bone and on bones simulated already,
    and what Remove Bone Chain leaves."""
    arm, names = chain_armature(bones=3)
    bpy.ops.ligament.add_bone_chain(preset='HAIR')
    c = arm.pose.bones["root"].ligament_chain
    members = [o for o in bpy.data.objects if o.ligament_ragdoll_part.chain == "root"]
    joints = [o for o in members if o.ligament_ragdoll_part.role == 'JOINT']
    b1 = next(o for o in members if o.ligament_ragdoll_part.role == 'BODY'
              and o.ligament_ragdoll_part.part == "b1")
    hair = (c.stiffness, c.damping, c.gravity_factor,
            round(math.degrees(joints[0].ligament_joint.swing_1), 6))
    c.preset = 'JIGGLE'
    jiggle = (c.stiffness, c.damping, c.gravity_factor,
              round(math.degrees(joints[0].ligament_joint.swing_1), 6))
    c.radius = 0.02
    xs = [v.co.x for v in b1.data.vertices]
    width = max(xs) - min(xs)
    # errors: a single bone with no children, a bone simulated already
    errors = []
    for sel in (["b3"], ["b1", "b2"]):
        for pb in arm.pose.bones:
            (pb if hasattr(pb, "select") else pb.bone).select = pb.name in sel
        arm.data.bones.active = arm.data.bones[sel[0]]
        try:
            bpy.ops.ligament.add_bone_chain()
            errors.append(None)
        except RuntimeError as exc:
            errors.append(str(exc))
    arm.data.bones.active = arm.data.bones["b2"]
    bpy.ops.ligament.remove_bone_chain()
    left = [o.name for o in bpy.data.objects if o.ligament_ragdoll_part.chain]
    cons = [con.name for pb in arm.pose.bones for con in pb.constraints]
    return {"hair": hair, "jiggle": jiggle, "width": width, "errors": errors, "left": left,
            "constraints": cons, "enabled": arm.ligament_ragdoll.enabled,
            "chain": c.enabled,
            "root_simulated": arm.pose.bones["root"].ligament_ragdoll.simulated}
