"""test_landing_gaps.py's scenario: a metarig ragdoll landing in a 24 fps shot."""

import bpy
import numpy as np

from .characters import character, new_shot
from .helpers import lig


def joint_gaps(frames):
    """A metarig ragdoll 1 m up in a 24 fps shot with the ground (its chest keyed to lean,
    as an animator's character: tests/addon/scenarios/override_tools.py), played `frames`
    frames: per frame the widest joint gap (m, between each joint's anchor on its two
    bodies, solver/world.py `joint_anchors`) and the lowest body centre (m)."""
    scene = new_shot(frames)
    bpy.ops.preferences.addon_enable(module="rigify")
    arm = character()
    pb = arm.pose.bones["spine.003"]
    pb.rotation_mode = 'XYZ'
    pb.keyframe_insert("rotation_euler", frame=1)
    pb.rotation_euler = (0.3, 0, 0)
    pb.keyframe_insert("rotation_euler", frame=30)
    addon = lig().addon
    gaps, lowest = [], []
    for f in range(1, frames + 1):
        scene.frame_set(f)
        world = addon.runtime.cache.get(scene).world
        a = world.joint_anchors()
        gaps.append(float(np.linalg.norm(a[:, 0] - a[:, 1], axis=1).max()))
        lowest.append(float(world.positions[:, 2].min()))
    return {"error": addon.runtime.cache.error(scene), "gaps": gaps, "lowest": lowest}
