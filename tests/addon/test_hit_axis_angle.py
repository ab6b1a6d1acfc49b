"""An Animated body with a Hit Impulse is hit the same in every rotation mode. An Axis Angle
body, which has no delta rotation in Blender's API, is moved off its keys through its rotation
with its rotation curves muted meanwhile (addon/scene/animation.py, hold_axis_angle), and
gets them back when the simulation lets it go. The scenarios: tests/addon/scenarios/
hit_rotation.py (a keyed board turning about Z, a 2 kg block dropped 2 m onto it)."""

import math

import pytest

MODES = ['XYZ', 'ZXY', 'YZX', 'QUATERNION', 'AXIS_ANGLE']


@pytest.fixture(scope="module")
def runs(blender):
    return {m: blender.call("hit_rotation.play", m) for m in MODES}


def _board_hits(run):
    return [h for h in run["hits"] if h[1] == "Board"]


@pytest.mark.parametrize("mode", MODES)
def test_the_board_is_hit_when_the_block_lands_and_leaves_its_keys(runs, mode):
    run = runs[mode]
    assert run["error"] is None
    hits = _board_hits(run)
    assert hits and hits[0][2] > 5.0
    frame = hits[0][0]
    # the block falls 2 m - 0.125 m of its half height: about sqrt(2 h / g) after frame 1
    assert abs((frame - 1) / 24 - math.sqrt(2 * 2.0 / 9.81)) <= 2.0 / 24
    # knocked off its keys (which hold it at 0.375 m): it sinks toward the ground
    assert min(run["board_z"][frame:]) < 0.375 - 1e-3
    assert not any("Board" in f and "Axis Angle" in f for f in run["findings"])


@pytest.mark.parametrize("mode", ['ZXY', 'YZX', 'AXIS_ANGLE'])
def test_a_turn_about_z_keyed_in_any_mode_gives_the_figures_of_the_xyz_board(runs, mode):
    # the same angle interpolated the same way: the same simulation, to rounding
    run, xyz = runs[mode], runs['XYZ']
    assert [h[:2] for h in _board_hits(run)] == [h[:2] for h in _board_hits(xyz)]
    assert [h[2] for h in _board_hits(run)] == pytest.approx(
        [h[2] for h in _board_hits(xyz)], rel=1e-6)
    assert run["board_z"] == pytest.approx(xyz["board_z"], abs=1e-6)
    assert run["block_z"] == pytest.approx(xyz["block_z"], abs=1e-6)
    # Blender shows the same world rotation of the board, hit and all
    for q, r in zip(run["board_q"], xyz["board_q"]):
        assert abs(sum(a * b for a, b in zip(q, r))) == pytest.approx(1.0, abs=1e-6)


def test_an_axis_angle_board_gives_the_figures_of_a_quaternion_board(runs):
    # quaternion keys interpolate the quaternion's components, not the angle: a hair apart
    aa, quat = runs['AXIS_ANGLE'], runs['QUATERNION']
    assert [h[:2] for h in _board_hits(aa)] == [h[:2] for h in _board_hits(quat)]
    assert _board_hits(aa)[0][2] == pytest.approx(_board_hits(quat)[0][2], rel=0.02)
    assert aa["board_z"] == pytest.approx(quat["board_z"], abs=2e-3)
    assert aa["block_z"] == pytest.approx(quat["block_z"], abs=2e-3)


def test_an_axis_angle_board_gets_its_keys_back_when_the_simulation_lets_it_go(runs):
    run = runs['AXIS_ANGLE']
    # off its keys at frame 30: its rotation curves muted for the simulation ...
    assert run["curves_while_off"] == [[i, True] for i in range(4)]
    after = run["after"]
    # ... and back at the start: unmuted, the keys playing, nothing of ours left on it
    assert after["curves"] == [[i, False] for i in range(4)]
    assert after["axis_angle"] == pytest.approx(after["keys_at_15"], abs=1e-6)
    assert after["props"] == [] and after["sim_delta"] is False


def test_an_unkeyed_axis_angle_rotation_is_given_back_as_it_was(blender):
    run = blender.call("hit_rotation.play", 'AXIS_ANGLE', False)
    assert _board_hits(run)
    after = run["after"]
    assert after["curves"] == []
    assert after["axis_angle"] == pytest.approx(after["own_axis_angle"], abs=1e-6)
    assert after["own_axis_angle"] == pytest.approx([0.3, 0, 0, 1], abs=1e-6)
    assert after["props"] == []


def test_an_axis_angle_rotation_on_a_driver_is_warned_of_and_takes_no_hits(blender):
    run = blender.call("hit_rotation.play_with_rotation_on_a_driver")
    assert [h for h in run["hits"] if h[1] == "Board"] == []
    warning = [f for f in run["findings"] if "'Board'" in f and "Axis Angle" in f]
    assert warning and "driver" in warning[0] and "Quaternion" in warning[0]
    assert run["angle"] == pytest.approx(0.30, abs=1e-6)     # the driver's, at frame 30


def test_a_keyed_dynamic_axis_angle_body_simulates_as_an_euler_one(blender):
    aa = blender.call("hit_rotation.keyed_dynamic", 'AXIS_ANGLE')
    xyz = blender.call("hit_rotation.keyed_dynamic", 'XYZ')
    assert aa["error"] is None and xyz["error"] is None
    # it fell from 2 m onto the ground (its half height 0.25 m) ...
    assert aa["matrices"][-1][2][3] == pytest.approx(0.25, abs=0.01)
    # ... as the Euler box with the same keys did, turned and all (to a tenth of a mm: the
    # keys' float32 values differ by a bit, and the landing makes a bit a little more)
    for m, n in zip(aa["matrices"], xyz["matrices"]):
        assert m == [pytest.approx(r, abs=1e-4) for r in n]
    assert aa["curves"] == [[i, False] for i in range(4)] and aa["props"] == []


def test_a_baked_axis_angle_board_plays_what_played_live(blender):
    out = blender.call("hit_rotation.bake_after_play", 'AXIS_ANGLE')
    for m, n in zip(out["baked"], out["live"]):
        assert m == [pytest.approx(r, abs=1e-5) for r in n]
    # it was knocked off its keys, and its baked rotation keys play (none muted)
    assert min(m[2][3] for m in out["live"]) < 0.375 - 1e-3
    assert out["curves"] and all(not muted for _, muted in out["curves"])
    assert out["props"] == []


def test_a_file_saved_while_an_axis_angle_body_is_off_its_keys_keeps_its_curves_unmuted(
        blender, tmp_path):
    out = blender.call("hit_rotation.saved_while_off_its_keys", str(tmp_path / "shot.blend"))
    # at the save the hit had taken the board off its keys: the session holds its curves muted
    assert out["held_before"] and out["held_after"]
    assert out["shown_after"] == out["shown_before"]
    assert out["curves_after"] and all(mute for _, mute in out["curves_after"])
    # the file holds the user's animation as keyed: every rotation curve unmuted, no trace of
    # the simulation's hold (a file opened without the add-on plays its keys)
    assert out["file_curves"] == [[i, False] for i, _ in out["curves_after"]]
    assert out["file_props"] == []
    # and the play goes on as if nothing was saved, bit for bit
    assert out["saved_run"] == out["plain"]
