"""The simulation built ahead of play: an edit schedules a build for when the edits pause
(a timer; timers do not fire in background mode, so the test runs the timer's function
itself), the start frame then finds it built, and the frames it plays are the same as
without it."""

SCENE = """
    floor = box("Floor", (10, 10, 1), (0, 0, -0.5), kind='STATIC')
    crates = [box(f"Crate{i}", (1, 1, 1), (0.3 * i, 0, 1 + 1.1 * i)) for i in range(4)]
    hinge = joint("Hinge", 'HINGE', crates[0], crates[1], (0, 0, 1.55))
    scene.ligament_world.enabled = True
    handlers = lig.addon.ui.handlers
    cache = lig.addon.runtime.cache

    def play(frames):
        out = []
        for f in range(1, frames + 1):
            scene.frame_set(f)
            out.append([list(c.matrix_world.translation) for c in crates])
        return out
"""


def test_an_edit_schedules_a_build_that_the_start_frame_then_uses(blender):
    out = blender.run(SCENE, """
        # an edit with no simulation built schedules one (the depsgraph handler)
        crates[3].location.x += 0.1
        bpy.context.view_layer.update()
        handlers.on_depsgraph_update_post(scene, None)
        scheduled = bpy.app.timers.is_registered(handlers.prebuild)
        # too soon after the edit: the timer waits for the edits to pause
        again_in = handlers.prebuild()
        waited = cache.get(scene) is None
        handlers._last_edit[0] -= 10.0
        done = handlers.prebuild()
        built = cache.get(scene)
        scene.frame_set(1)
        same = cache.get(scene) is built
        frames = play(30)
        # an edit after it drops that build and schedules the next
        crates[2].location.y += 0.2
        bpy.context.view_layer.update()
        handlers.on_depsgraph_update_post(scene, None)
        dropped = cache.get(scene) is None or cache.get(scene) is not built
        result({"scheduled": scheduled, "again_in": again_in, "waited": waited,
                "done": done, "built": built is not None, "same": same, "frames": frames,
                "dropped": dropped,
                "rescheduled": bpy.app.timers.is_registered(handlers.prebuild)})
    """)
    plain = blender.run(SCENE, """
        crates[3].location.x += 0.1
        bpy.context.view_layer.update()
        result(play(30))
    """)
    assert out["scheduled"] and out["waited"] and 0 < out["again_in"] <= 0.5
    assert out["done"] is None and out["built"] and out["same"], out
    assert out["frames"] == plain, "a prebuilt simulation plays exactly as one built at play"
    assert out["dropped"] and out["rescheduled"]


def test_no_build_while_the_world_is_off_and_a_scene_that_fails_shows_its_error_early(blender):
    out = blender.run(SCENE, """
        scene.ligament_world.enabled = False
        handlers._last_edit[0] = 0.0
        off = [handlers.prebuild(), cache.get(scene) is None]
        scene.ligament_world.enabled = True
        crates[2].ligament_body.shape = 'MESH'     # a moving body cannot be a triangle mesh
        handlers._last_edit[0] = 0.0
        failed = [handlers.prebuild(), cache.get(scene) is None, cache.error(scene)]
        result({"off": off, "failed": failed})
    """)
    assert out["off"] == [None, True]
    done, none, error = out["failed"]
    assert done is None and none and "Crate2" in error, out["failed"]


KEYED = """
    floor = box("Floor", (10, 10, 1), (0, 0, -0.5), kind='STATIC')
    pusher = box("Pusher", (0.5, 2, 0.5), (-3, 0, 0.25), kind='ANIMATED')
    pusher.keyframe_insert("location", frame=1)
    pusher.location.x = 2
    pusher.keyframe_insert("location", frame=60)
    crates = [box(f"Crate{i}", (0.5, 0.5, 0.5), (-1 + 0.6 * i, 0, 0.25)) for i in range(3)]
    scene.ligament_world.enabled = True
    handlers = lig.addon.ui.handlers
    cache = lig.addon.runtime.cache
    for f in range(1, 41):
        scene.frame_set(f)
"""


def test_a_build_ahead_after_playing_and_editing_keys_plays_on_as_a_build_at_play(blender):
    # an animator's session: a keyed pusher, played to frame 40, a body's setting edited
    # there (the simulation goes), then the idle-time build while the scene stands on 40
    edit = """
        crates[2].ligament_body.friction = 0.2
        """
    out = blender.run(KEYED, edit, """
        handlers._last_edit[0] = 0.0
        handlers.prebuild()
        built = cache.get(scene)
        frame_after = scene.frame_current
        poses = []
        for f in range(41, 61):
            scene.frame_set(f)
            poses.append([list(c.matrix_world.translation) for c in crates])
        result({"built": built is not None, "same": cache.get(scene) is built,
                "frame": frame_after, "poses": poses})
    """)
    plain = blender.run(KEYED, edit, """
        poses = []
        for f in range(41, 61):
            scene.frame_set(f)
            poses.append([list(c.matrix_world.translation) for c in crates])
        result(poses)
    """)
    assert out["built"] and out["same"] and out["frame"] == 40
    assert out["poses"] == plain
    assert max(p[0][0] for p in plain) > -0.9, "the pusher moved the first crate"
