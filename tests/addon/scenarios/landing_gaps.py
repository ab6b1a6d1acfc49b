"""test_landing_gaps.py's scenario: a metarig ragdoll landing in a 24 fps shot."""

import bpy
import numpy as np

from .characters import character, lean_chest, new_shot
from .helpers import lig


def joint_gaps(frames):
    """A metarig ragdoll 1 m up in a 24 fps shot with the ground (its chest keyed to lean,
    as an animator's character: tests/addon/scenarios/override_tools.py), played `frames`
    frames (`_played`)."""
    scene = new_shot(frames)
    bpy.ops.preferences.addon_enable(module="rigify")
    lean_chest(character())
    return _played(scene, frames)


def tilted_crowd_gaps(count, frames):
    """test_frame_path's `count` tilted metarigs dropped from 0.4 m at 24 fps at Jointed
    Substeps 4, played `frames` frames (`_played`)."""
    from .frame_path import _crowd
    scene = bpy.context.scene
    _crowd(count, 0.4)
    scene.frame_start, scene.frame_end = 1, frames
    scene.ligament_world.frame_end = frames
    scene.ligament_world.jointed_substeps = 4
    return _played(scene, frames)


def _played(scene, frames):
    """Play `frames` frames: per frame the widest joint gap (m, between each joint's anchor
    on its two bodies, solver/world.py `joint_anchors`) and the lowest body centre (m)."""
    addon = lig().addon
    gaps, lowest = [], []
    for f in range(1, frames + 1):
        scene.frame_set(f)
        world = addon.runtime.cache.get(scene).world
        a = world.joint_anchors()
        gaps.append(float(np.linalg.norm(a[:, 0] - a[:, 1], axis=1).max()))
        lowest.append(float(world.positions[:, 2].min()))
    return {"error": addon.runtime.cache.error(scene), "gaps": gaps, "lowest": lowest}
