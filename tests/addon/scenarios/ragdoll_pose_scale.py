"""test_ragdoll_pose_scale.py's scenarios: Ragdoll from Armature on a metarig with a bone
scaled in the pose (not in Edit Mode), as an animator makes an arm or a head bigger."""

import bpy

from .helpers import lig
from .rigs import enable_rigify, ground, metarig


def _world_bones(arm, names):
    """What Blender shows: the evaluated pose bones' world lengths and matrices."""
    m = arm.matrix_world
    out = {}
    for n in names:
        pb = arm.pose.bones[n]
        out[n] = {"length": (m @ pb.tail - m @ pb.head).length,
                  "head": list(m @ pb.head), "tail": list(m @ pb.tail),
                  "matrix": [list(r) for r in m @ pb.matrix]}
    return out


def ragdoll_of_a_scaled_bone(bone, scale, shown, frames):
    """A metarig standing on the ground with `bone` scaled by `scale` in the pose, given a
    ragdoll at frame 1 (the start) and falling: the bones `shown` as Blender showed them
    before, and at each of `frames` after; each ragdoll body's length."""
    ragdolls = enable_rigify()
    scene = bpy.context.scene
    scene.ligament_world.frame_start, scene.ligament_world.frame_end = 1, 30
    ground()
    arm = metarig(location=(0, 0, 0.05))
    arm.pose.bones[bone].scale = (scale, scale, scale)
    scene.frame_set(1)
    bpy.context.view_layer.update()
    before = _world_bones(arm, shown)
    assert bpy.ops.ligament.ragdoll_from_armature() == {'FINISHED'}
    after = {}
    for f in frames:
        scene.frame_set(f)
        after[f] = _world_bones(arm, shown)
    sizes = {}
    for body in ragdolls.bodies(arm):
        p = body.ligament_ragdoll_part
        zs = [v.co.z for v in body.data.vertices]
        sizes[p.part] = max(zs) - min(zs)
    return {"before": before, "after": after, "sizes": sizes,
            "error": lig().addon.runtime.cache.error(scene)}


def body_sizes(object_scale):
    """Each ragdoll body's mesh extents (x, y, z: z along the part) of a metarig whose object
    is scaled by `object_scale`."""
    ragdolls = enable_rigify()
    arm = metarig()
    arm.scale = (object_scale,) * 3
    bpy.context.view_layer.update()
    assert bpy.ops.ligament.ragdoll_from_armature() == {'FINISHED'}
    out = {}
    for body in ragdolls.bodies(arm):
        vs = [v.co for v in body.data.vertices]
        out[body.ligament_ragdoll_part.part] = [max(v[i] for v in vs) - min(v[i] for v in vs)
                                                for i in range(3)]
    return out
