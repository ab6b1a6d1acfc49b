"""test_ragdoll_substeps.py's scenarios: metarig ragdolls landing at a Jointed Substeps
count."""

import bpy

from .helpers import lig
from .rigs import enable_rigify, joint_angles, ragdoll_bodies, ragdolled_metarigs


def five_drops_at(jointed, heights):
    """Metarigs side by side dropped from `heights` with Scene > Ligament World > Jointed
    Substeps `jointed` (Substeps 8), 60 frames: each frame's joint angles per rig and the
    lowest point of any rig's body over the run (m; 0 is the ground's top)."""
    scene = bpy.context.scene
    rigs = ragdolled_metarigs(heights)
    ws = scene.ligament_world
    ws.frame_end = 60
    ws.substeps, ws.jointed_substeps = 8, jointed
    bodies = [o for arm in rigs for o in ragdoll_bodies(arm)]
    angles, lowest = [], 1e9
    for f in range(1, 61):
        scene.frame_set(f)
        angles.append([joint_angles(arm) for arm in rigs])
        lowest = min(lowest, min((o.matrix_world @ v.co).z for o in bodies
                                 for v in o.data.vertices))
    return {"error": lig().addon.runtime.cache.error(scene), "angles": angles,
            "lowest": lowest}


def character_landing(jointed, frames=40):
    """characters.py's metarig (a Hero in its own collection, 1 m up, as test_characters and
    test_crowds build it) dropped in a new shot at 24 fps with Substeps 8 and Jointed Substeps
    `jointed`: per frame, the lowest point of its ragdoll's bodies (m; 0 is the floor's
    top)."""
    from .characters import character, new_shot
    enable_rigify()
    scene = new_shot(frames)
    ws = scene.ligament_world
    ws.substeps, ws.jointed_substeps = 8, jointed
    bodies = ragdoll_bodies(character())
    lowest = []
    for f in range(1, frames + 1):
        scene.frame_set(f)
        lowest.append(min((o.matrix_world @ v.co).z for o in bodies for v in o.data.vertices))
    return {"error": lig().addon.runtime.cache.error(scene), "lowest": lowest}
