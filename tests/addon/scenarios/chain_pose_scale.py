"""test_chain_pose_scale.py's scenarios: a bone chain added under a pose bone scaled in the
pose (not in Edit Mode), as an animator scales a tail or a strand bigger."""

import bpy
from mathutils import Vector

from .bone_chain import body_gap
from .helpers import lig


def _armature(length=0.2):
    """A 'base' bone and under it 'mid' and three more, 'b1' to 'b3', connected in a line
    down from 2 m."""
    scene = bpy.context.scene
    data = bpy.data.armatures.new("Rig")
    arm = bpy.data.objects.new("Rig", data)
    scene.collection.objects.link(arm)
    arm.location = (0, 0, 2)
    bpy.context.view_layer.objects.active = arm
    arm.select_set(True)
    bpy.ops.object.mode_set(mode='EDIT')
    d = Vector((0, 0, -length))
    head, parent = Vector(), None
    for name in ("base", "mid", "b1", "b2", "b3"):
        eb = data.edit_bones.new(name)
        eb.head, eb.tail, eb.roll = head, head + d, 0.0
        if parent is not None:
            eb.parent, eb.use_connect = parent, True
        parent, head = eb, head + d
    bpy.ops.object.mode_set(mode='POSE')
    return arm


def _world_bones(arm, names):
    """What Blender shows: the evaluated pose bones' world heads, tails and lengths."""
    m = arm.matrix_world
    out = {}
    for n in names:
        pb = arm.pose.bones[n]
        head, tail = m @ pb.head, m @ pb.tail
        out[n] = {"head": list(head), "tail": list(tail), "length": (tail - head).length,
                  "matrix": [list(r) for r in m @ pb.matrix]}
    return out


def chain_under_a_scaled_bone(scale, frames):
    """'mid' scaled by `scale` in the pose, a chain added on 'mid' and its children at frame
    1 (the start): what Blender showed before the chain, and for each of `frames` after it;
    the joints' error each frame; the helper capsules' lengths along their axis."""
    scene = bpy.context.scene
    scene.ligament_world.frame_start, scene.ligament_world.frame_end = 1, 30
    arm = _armature()
    arm.pose.bones["mid"].scale = (scale, scale, scale)
    names = ["mid", "b1", "b2", "b3"]
    scene.frame_set(1)
    bpy.context.view_layer.update()
    before = _world_bones(arm, names)
    lig().addon.authoring.chain.create(scene, arm, names)
    after, gaps = {}, {}
    for f in frames:
        scene.frame_set(f)
        after[f] = _world_bones(arm, names)
        gaps[f] = body_gap(arm, names)
    capsules = _capsules(arm)
    error = lig().addon.runtime.cache.error(scene)
    scene.frame_set(1)
    arm.pose.bones["mid"].ligament_chain.radius = 0.02     # the chain's Radius edited
    return {"before": before, "after": after, "gaps": gaps, "capsules": capsules,
            "error": error, "capsules_after_radius": _capsules(arm)}


def _capsules(arm):
    """The length and width of each chain body's capsule mesh, by bone."""
    out = {}
    for o in bpy.data.objects:
        p = o.ligament_ragdoll_part
        if p.role == 'BODY' and p.armature == arm:
            zs = [v.co.z for v in o.data.vertices]
            xs = [v.co.x for v in o.data.vertices]
            out[p.part] = {"length": max(zs) - min(zs), "width": max(xs) - min(xs)}
    return out
