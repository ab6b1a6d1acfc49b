"""Live Mode (live/session.py): the simulation run in place at the current frame, its verbs
called directly as the 3D View's operator calls them, the view's rays given as numbers. The
scenarios: tests/addon/scenarios/live.py (a free box, Rigify's metarig made a ragdoll)."""

import math

import numpy as np

G = 9.81


def test_a_drag_pulls_in_the_very_next_step_at_its_force_limit(blender):
    out = blender.call("live.pull_acts_in_the_next_step", 10.0)
    assert out["grabbed"] == "Box"
    # grabbed, not moved: the pull's target is the grabbed point, the box stays at rest
    assert max(abs(v) for v in out["still"]) < 1e-9, out["still"]
    # the target 10 m away: the capped pull (10 N) on 2 kg for one frame, dv = F / m dt
    # (the spring reaches the cap within the first 0.2 % of the frame's target motion)
    expected = 10.0 / out["mass"] * out["dt"]
    vx = out["after"][0]
    assert abs(vx - expected) < 0.02 * expected, (vx, expected)
    # never more than the cap in any direction (the grab is off the centre: the box turns
    # and the pull with it, a little)
    assert np.linalg.norm(out["after"]) < expected * (1.0 + 1e-6), (out["after"], expected)


def test_gravity_off_a_released_body_keeps_its_momentum(blender):
    steps = 24
    out = blender.call("live.released_body_keeps_its_momentum", steps)
    v0, v1 = np.array(out["v0"]), np.array(out["v1"])
    w0, w1 = np.array(out["w0"]), np.array(out["w1"])
    assert np.linalg.norm(v0) > 0.3            # it was pulled
    # no force: the same velocity (a cube's spin too: its inertia is the same about every
    # axis), and the centre moved by v t
    assert np.abs(v1 - v0).max() < 1e-9, (v0, v1)
    assert np.abs(w1 - w0).max() < 1e-6 * max(1.0, np.linalg.norm(w0)), (w0, w1)
    travelled = np.array(out["p1"]) - np.array(out["p0"])
    assert np.abs(travelled - v0 * steps * out["dt"]).max() < 1e-6, travelled
    # the box's object is written where the body is (a cube's origin is its centre)
    assert np.abs(np.array(out["shown"]) - np.array(out["p1"])).max() < 1e-5


def test_a_dropped_ragdoll_falls_and_comes_to_rest_on_the_floor(blender):
    out = blender.call("live.dropped_ragdoll_comes_to_rest_on_the_floor", 150)
    assert out["start_top"] > 2.2                  # the head, a 1.8 m figure 1 m up
    assert out["end_top"] < 0.5, out               # lying on the floor
    assert out["fastest"] < 0.05, out              # at rest
    assert out["lowest_vertex"] > -0.01, out       # on the floor, not through it


def test_tense_doubles_every_drive_and_the_pose_error_under_gravity_falls(blender):
    # 10 Hz, 20 Hz tensed: the default 40 Hz tensed to 80 Hz is more than 8 substeps at
    # 24 fps resolve (the joints shake, docs/guide.md)
    out = blender.call("live.tense_and_relax", 48, 10.0)
    normal, tense, relaxed = out["normal"], out["tense"], out["relaxed"]
    # the drives as the ragdoll's settings make them (strength x stiffness per joint),
    # twice that tensed, back to them relaxed
    assert np.allclose(normal["hertz"], out["strength"], rtol=1e-12)
    assert np.allclose(tense["hertz"], 2.0 * np.array(out["strength"]), rtol=1e-12)
    assert np.allclose(relaxed["hertz"], out["strength"], rtol=1e-12)
    # a spring holding a weight sags by load / k, k ~ hertz^2: a quarter of the error at
    # twice the frequency (the limbs hang from the held root under gravity)
    e1, e2, e3 = (sum(x["errors"]) for x in (normal, tense, relaxed))
    assert e1 > 0.1, e1
    assert 0.15 < e2 / e1 < 0.35, (e1, e2)
    assert abs(e3 - e1) < 0.05 * e1, (e1, e3)


def _same_state(before, after):
    """The World's arrays equal bit for bit (a table that gained the pins made since holds
    the earlier rows unchanged), the gravity and every object's matrix the same."""
    for key, a in before["arrays"].items():
        b = after["arrays"][key]
        if len(a) != len(b):
            b = b[:len(a)]
        assert a == b, key
    assert before["gravity"] == after["gravity"]
    assert before["objects"] == after["objects"]


def test_undo_steps_back_through_the_changes_bit_for_bit(blender):
    out = blender.call("live.undo_restores_bit_for_bit")
    assert out["pinned"] == "PINNED"
    assert out["labels"] == ["Pin Box", "Drag Box", "Gravity Off"]
    assert out["more"] is None
    for before, after in zip(out["before"], out["after"]):
        _same_state(before, after)
    # and each change did change the state
    for a, b in zip(out["before"], out["before"][1:]):
        assert a["objects"] != b["objects"]
    assert abs(out["after"][-1]["gravity"][2] + G) < 1e-6      # the scene's, back on


def test_transfer_keys_the_live_pose_at_the_frame(blender):
    out = blender.call("live.transfer_keys_the_live_pose", 10, 30)
    assert out["from_rest"] > 0.1                  # the live pose is not the rest pose
    assert out["keyed"] == out["moved"]
    assert out["frames"] == [10.0]
    assert out["dist"] < 1e-4, out["dist"]
    assert out["turn"] < 0.01, out["turn"]


def test_leaving_without_transfer_leaves_the_scene_as_it_was(blender):
    out = blender.call("live.leaving_restores_the_scene", 12)
    assert out["during"][0] != out["before"][0]    # Live Mode moved the bodies
    assert out["after"] == out["before"]           # every matrix, no new action
    assert out["again"] == out["before"]
    assert out["kept"] and out["frame"] == 12      # the cache kept, the timeline not moved


def test_the_header_says_when_the_machine_cannot_keep_up(blender):
    fast = blender.call("live.header_status", 0.010)
    assert fast["first"] == fast["status"] == "Live at 24 fps"
    assert math.isclose(fast["step_time"], 0.010)
    slow = blender.call("live.header_status", 0.080)
    assert slow["first"] == "Live at 24 fps"
    assert "80 ms a step, slower than the scene's 24 fps (42 ms)" in slow["status"]
    assert "12.5 fps" in slow["status"]


def test_live_mode_refuses_with_the_simulation_off_or_already_running(blender):
    out = blender.call("live.refusals")
    assert "Simulate" in out["off"] and "is off" in out["off"]
    assert "already runs" in out["twice"]
    assert out["after_stop"] is True
    assert out["poll"] is False             # no 3D View in background


def test_a_click_pins_a_part_where_it_is_and_a_second_click_lets_it_fall(blender):
    steps = 24
    out = blender.call("live.pin_and_unpin", steps)
    assert out["done"] == ["PINNED", "Box"] and out["undone"] == ["UNPINNED", "Box"]
    assert out["stray"] < 1e-3, out["stray"]            # a rigid pin: the point stays put
    # free again: it falls at g (the little damping of the box's settings aside: 0 here)
    fall = out["v1"][2] - out["v0"][2]
    assert abs(fall + G * steps * out["dt"]) < 1e-3 * G * steps * out["dt"], fall
