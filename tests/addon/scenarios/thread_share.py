"""test_thread_share.py's scenario: the World's measured thread share during playback."""

import bpy

from .helpers import box, lig


def big_island_played():
    """Blender's threads fixed at 2; 14 x 14 x 3 touching boxes (about 1700 contact
    manifolds, one island big enough to be coloured, solver/colours.py COLOURED_MIN, where
    the World picks a thread count) played 12 frames: the counts measured, the share's runs,
    how many shares there were, the thread count."""
    scene = bpy.context.scene
    addon = lig().addon
    scene.render.threads_mode = 'FIXED'
    scene.render.threads = 2
    box("Ground", (40, 40, 1), (0, 0, -0.5), kind='STATIC')
    for i in range(14):
        for j in range(14):
            for k in range(3):
                box(f"B{i}_{j}_{k}", (0.5, 0.5, 0.5), (i * 0.5, j * 0.5, 0.25 + 0.5 * k))
    scene.ligament_world.frame_end = 12
    spreads = []
    for f in range(1, 13):
        scene.frame_set(f)
        sim = addon.runtime.cache.get(scene)
        spreads.append(id(sim.world._spread))
    return {"measured": sorted(sim.world._spread.cost), "runs": sim.world._spread.runs,
            "spreads": len(set(spreads)), "threads": sim.world.threads,
            "error": addon.runtime.cache.error(scene)}
