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
    # box() once, then copies of it (its mesh and body settings too) linked without an
    # operator: each operator updates the view layer, which costs in proportion to the
    # objects already there (most of this scenario's time when every box was made by one)
    first = box("B0_0_0", (0.5, 0.5, 0.5), (0, 0, 0.25))
    for i in range(14):
        for j in range(14):
            for k in range(3):
                if i or j or k:
                    obj = first.copy()
                    obj.data = first.data.copy()
                    obj.name = f"B{i}_{j}_{k}"
                    obj.location = (i * 0.5, j * 0.5, 0.25 + 0.5 * k)
                    scene.collection.objects.link(obj)
    bpy.context.view_layer.update()
    copies = [o for o in scene.objects if o.name.startswith("B")]
    assert len(copies) == 14 * 14 * 3 and all(o.ligament_body.enabled and
                                              o.ligament_body.kind == 'DYNAMIC' and
                                              tuple(o.scale) == (0.5, 0.5, 0.5) for o in copies)
    scene.ligament_world.frame_end = 12
    spreads = []
    for f in range(1, 13):
        scene.frame_set(f)
        sim = addon.runtime.cache.get(scene)
        spreads.append(id(sim.world._spread))
    return {"measured": sorted(sim.world._spread.cost), "runs": sim.world._spread.runs,
            "spreads": len(set(spreads)), "threads": sim.world.threads,
            "error": addon.runtime.cache.error(scene)}
