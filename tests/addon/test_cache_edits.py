"""Edited keys re-simulate from the first frame whose inputs differ, and the result is exactly
a simulation from scratch; a change at the start frame re-simulates everything."""


# An Animated pusher keyed at frames 1 and KEYS[1] at x = 0 (it waits there), then across to a
# pile of three crates, which it pushes over at the end of a 250-frame shot.
PUSH = """
    box("Ground", (20, 20, 1), (0, 0, -0.5), kind='STATIC')
    pusher = box("Pusher", (0.6, 0.6, 0.6), (0, 0, 0.3), kind='ANIMATED')
    pile = [box(f"Crate.{i}", (0.5, 0.5, 0.5), (3.0, 0, 0.25 + 0.5 * i)) for i in range(3)]
    scene.ligament_world.frame_end = 250
    for f, x in zip(KEYS, (0.0, 0.0, 1.4, 2.7)):
        pusher.location.x = x
        pusher.keyframe_insert("location", frame=f)
    stats = lig.addon.runtime.simulation.stats

    def play():
        for f in range(1, 251):
            scene.frame_set(f)
        return transforms(pile + [pusher])

    def edit_key(frame, dy):
        scene.frame_set(frame)
        pusher.location.y += dy
        pusher.keyframe_insert("location", frame=frame)
"""


def test_a_key_edited_by_a_script_replays_as_a_simulation_from_scratch(blender):
    out = blender.run("KEYS = (1, 215, 230, 250)", PUSH, """
        first = play()
        edit_key(230, 0.05)
        replay = play()
        bpy.ops.ligament.reset()
        scratch = play()
        result({"first": first, "replay": replay, "scratch": scratch})
    """)
    assert out["replay"] != out["first"], "the replay must show the edit"
    assert out["replay"] == out["scratch"]     # bit for bit


def test_a_key_edited_at_frame_200_re_simulates_from_there_exactly(blender):
    out = blender.run("KEYS = (1, 195, 200, 250)", PUSH, """
        play()
        builds, steps = stats["builds"], stats["steps"]
        edit_key(200, 0.05)
        bpy.context.view_layer.update()      # what an edit in the UI sends the handlers
        cached = lig.addon.runtime.cache.frame_info(scene)
        replay = play()
        resimulated = stats["steps"] - steps
        rebuilt = stats["builds"] - builds
        bpy.ops.ligament.reset()
        scratch = play()
        result({"cached": cached, "resimulated": resimulated, "rebuilt": rebuilt,
                "replay": replay, "scratch": scratch})
    """)
    # Bezier keys: the edit at 200 changes the curve from the key at 195 on (that key stays a
    # flat extreme), so frames 196-250 are stepped again and frames 1-195 stay cached.
    assert out["cached"] == [1, 195]
    assert out["rebuilt"] == 0
    assert out["resimulated"] == 55
    assert out["replay"] == out["scratch"]


def test_a_key_edited_at_the_start_frame_re_simulates_everything(blender):
    out = blender.run("KEYS = (1, 195, 200, 250)", PUSH, """
        play()
        builds, steps = stats["builds"], stats["steps"]
        edit_key(1, 0.05)
        replay = play()
        result({"resimulated": stats["steps"] - steps, "rebuilt": stats["builds"] - builds})
    """)
    assert out["rebuilt"] == 1
    assert out["resimulated"] == 249
