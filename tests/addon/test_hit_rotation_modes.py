"""An Animated body with a Hit Impulse in each rotation mode (addon/world/hits.py): Euler and
Quaternion bodies are hit and leave their keys (Axis Angle ones too: test_hit_axis_angle.py),
and the rest of the scene simulates.
The scenario: tests/addon/scenarios/hit_rotation_modes.py."""

import math

import pytest


@pytest.fixture(scope="module")
def runs(blender):
    return blender.call("hit_rotation_modes.boards_in_each_mode",
                        ['XYZ', 'ZXY', 'QUATERNION', 'AXIS_ANGLE'])


@pytest.mark.parametrize("mode", ['XYZ', 'ZXY', 'QUATERNION', 'AXIS_ANGLE'])
def test_the_scene_simulates_and_the_block_lands_in_every_rotation_mode(runs, mode):
    run = runs[mode]
    assert run["error"] is None
    # the block fell and came to rest on the board or, once the board was knocked off its
    # keys, with it lower down: never still up in the air or through the ground
    assert run["block_z"][0] == pytest.approx(2.625, abs=1e-6)
    assert 0.1 < run["block_z"][-1] < 0.8


@pytest.mark.parametrize("mode", ['XYZ', 'ZXY', 'QUATERNION'])
def test_euler_and_quaternion_boards_are_hit_and_leave_their_keys(runs, mode):
    run = runs[mode]
    hits = [h for h in run["hits"] if h[1] == "Board"]
    assert hits and hits[0][2] > 5.0
    frame = hits[0][0]
    assert abs((frame - 1) / 24 - math.sqrt(2 * 2.0 / 9.81)) <= 2.0 / 24
    # knocked off its keys (which hold it at 0.375 m): it sinks into its new rest on the ground
    assert min(run["board_z"][frame:]) < 0.375 - 1e-3
    assert not any("Board" in f and "Axis Angle" in f for f in run["findings"])
