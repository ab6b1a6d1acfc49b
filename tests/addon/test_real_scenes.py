"""What an animator's real scene does: keyed dynamic bodies, joints that lose an object or
break, reported once and shown, while the rest of the scene simulates. The scenarios:
tests/addon/scenarios/real_scenes.py."""

import numpy as np


def test_keyed_dynamic_body_falls_in_live_playback_as_in_the_bake(blender):
    out = blender.call("real_scenes.keyed_dynamic_body")
    assert out["error"] is None
    live, baked = np.array(out["live"]), np.array(out["baked"])
    # The keys give the start pose; the simulation owns the body after it: it falls straight
    # down onto the ground (no velocity from the keys, as Blender's rigid bodies), and comes
    # to rest on its face, half a metre up.
    assert np.allclose(live[0], (0, 0, 3))
    assert abs(live[-1, 2] - 0.5) < 0.02
    assert np.abs(live[:, 0]).max() < 1e-3, "the keys' sideways motion leaked into the run"
    # Live playback and the bake show the same motion.
    assert np.abs(live - baked).max() < 1e-4
    # The user's keys were never touched, and come back once the simulation stops.
    assert out["keys_after_live"] == out["keys_before"] == out["keys_end"]
    assert out["delta_owned"] is True
    assert out["delta_end"] == [0.0, 0.0, 0.0]
    # Keys at frame 30: x = 2 * 29 / 59 with Bezier easing; anything but the simulated pose.
    assert 0.3 < out["keyed_again"][0] < 1.7 and abs(out["keyed_again"][2] - 3) < 1e-6


def test_keyed_dynamic_body_in_euler_mode_turns_with_the_simulation(blender):
    """The delta rotation carries the simulated rotation whatever the keys' rotation: a
    tilted keyed box falls and settles flat on the ground."""
    out = blender.call("real_scenes.keyed_tilted_box")
    assert out["error"] is None
    assert abs(out["z"][-1] - 0.5) < 0.02
    assert out["up"][-1] > 0.999, "the box did not settle flat"


def test_a_joint_whose_object_was_deleted_is_skipped_and_the_rest_simulates(blender):
    out = blender.call("real_scenes.joint_object_deleted")
    assert out["error"] is None
    # Both bodies fall freely: the free one, and the one the deleted post held.
    for name in ("Bob", "Free"):
        z = np.array(out["z"][name])
        t = 0.5  # frame 13 at 24 fps: still in the air, z = 3 - g t^2 / 2
        assert abs(z[12] - (3 - 9.81 * t * t / 2)) < 0.05, name
    assert "object A is not set" in out["status"]
    assert [p[0] for p in out["problems"]] == ["Ball"]
    printed = [l for l in blender.stdout.splitlines() if "joint 'Ball' skipped" in l]
    assert len(printed) == 1, blender.stdout[-2000:]


def test_a_joint_that_breaks_is_shown_broken_from_that_frame(blender):
    out = blender.call("real_scenes.joint_that_breaks")
    # 50 kg hanging from a joint that holds 100 N: it breaks in the first step.
    assert out["broken"] == {"Weak": 2}
    assert out["statuses"][0] is None
    assert out["statuses"][1:] == ["broke at frame 2"] * 23
    assert out["at_start"] is None
    printed = [l for l in blender.stdout.splitlines() if "joint 'Weak' broke at frame 2" in l]
    assert len(printed) == 1
