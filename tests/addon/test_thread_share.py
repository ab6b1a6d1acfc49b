"""The World measures how fast each thread count steps a big island (solver/pool.py Spread)
and keeps the faster; the runtime sets the thread count from the scene only when it changes,
so playback gets past measuring."""


def test_thread_share_is_measured_after_a_few_frames_of_playback(blender):
    out = blender.run("""
        scene.render.threads_mode = 'FIXED'
        scene.render.threads = 2
        box("Ground", (40, 40, 1), (0, 0, -0.5), kind='STATIC')
        # 14 x 14 x 3 touching boxes: about 1700 contact manifolds, one island big enough to
        # be coloured (solver/colours.py COLOURED_MIN), where the World picks a thread count
        for i in range(14):
            for j in range(14):
                for k in range(3):
                    box(f"B{i}_{j}_{k}", (0.5, 0.5, 0.5), (i * 0.5, j * 0.5, 0.25 + 0.5 * k))
        scene.ligament_world.frame_end = 12
        spreads = []
        for f in range(1, 13):
            scene.frame_set(f)
            sim = lig.addon.runtime.cache.get(scene)
            spreads.append(id(sim.world._spread))
        result({"measured": sorted(sim.world._spread.cost), "runs": sim.world._spread.runs,
                "spreads": len(set(spreads)), "threads": sim.world.threads,
                "error": lig.addon.runtime.cache.error(scene)})
    """)
    assert out["error"] is None and out["threads"] == 2
    assert out["spreads"] == 1, "the thread share was started anew during playback"
    # both counts were timed (a count's first frame is not: it starts the threads)
    assert out["measured"] == [1, 2], out["runs"]
