"""The simulation built ahead of play: an edit schedules a build for when the edits pause
(a timer; timers do not fire in background mode, so the test runs the timer's function
itself), the start frame then finds it built, and the frames it plays are the same as
without it. The scenarios:
tests/addon/scenarios/prebuild.py."""


def test_an_edit_schedules_a_build_that_the_start_frame_then_uses(blender):
    out = blender.call("prebuild.edit_schedules_a_build")
    plain = blender.call("prebuild.same_edit_played")
    assert out["scheduled"] and out["waited"] and 0 < out["again_in"] <= 0.5
    assert out["done"] is None and out["built"] and out["same"], out
    assert out["frames"] == plain, "a prebuilt simulation plays exactly as one built at play"
    assert out["dropped"] and out["rescheduled"]


def test_no_build_while_the_world_is_off_and_a_scene_that_fails_shows_its_error_early(blender):
    out = blender.call("prebuild.prebuild_off_and_failing")
    assert out["off"] == [None, True]
    done, none, error = out["failed"]
    assert done is None and none and "Crate2" in error, out["failed"]


def test_a_build_ahead_after_playing_and_editing_keys_plays_on_as_a_build_at_play(blender):
    # an animator's session: a keyed pusher, played to frame 40, a body's setting edited
    # there (the simulation goes), then the idle-time build while the scene stands on 40
    out = blender.call("prebuild.build_ahead_after_a_key_edit")
    plain = blender.call("prebuild.played_on_after_a_key_edit")
    assert out["built"] and out["same"] and out["frame"] == 40
    assert out["poses"] == plain
    assert max(p[0][0] for p in plain) > -0.9, "the pusher moved the first crate"
