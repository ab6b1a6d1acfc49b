"""A bone chain is built from the posed bones as Blender shows them, their pose scale
included: a chain under a bone scaled 1.5 in the pose keeps its size when it starts to
simulate. The scenario: tests/addon/scenarios/chain_pose_scale.py (a rig of five 0.2 m bones
in a line down, the second scaled in the pose, a chain on it and the three below)."""

import pytest

SCALE = 1.5


@pytest.fixture(scope="module")
def run(blender):
    return blender.call("chain_pose_scale.chain_under_a_scaled_bone", SCALE, [1, 2, 3, 4])


def test_blender_shows_the_chain_bones_scaled_before_the_chain(run):
    # the premise: pose scale is inherited, so every bone from 'mid' down is 0.3 m long
    for n in ("mid", "b1", "b2", "b3"):
        assert run["before"][n]["length"] == pytest.approx(0.2 * SCALE, abs=1e-6)


@pytest.mark.parametrize("frame", [1, 2, 3, 4])
def test_the_chain_keeps_the_bones_world_size_in_its_first_frames(run, frame):
    assert run["error"] is None
    for n in ("mid", "b1", "b2", "b3"):
        assert run["after"][str(frame)][n]["length"] == pytest.approx(
            run["before"][n]["length"], abs=1e-5)


def test_at_the_start_frame_the_chain_is_where_blender_showed_the_bones(run):
    for n in ("mid", "b1", "b2", "b3"):
        for a, b in zip(run["after"]["1"][n]["matrix"], run["before"][n]["matrix"]):
            assert a == pytest.approx(b, abs=1e-5)


def test_the_chain_joints_hold_the_scaled_bones_together(run):
    # each body's bone head on its parent body's bone tail, as built
    assert max(run["gaps"].values()) < 1e-3


def test_the_capsules_are_as_long_as_the_scaled_bones(run):
    for n in ("b1", "b2", "b3"):
        # a capsule spans its bone from head to tail; the Hair preset's radius is 0.15 of the
        # chain's mean bone length, the posed one
        c = run["capsules"][n]
        assert c["length"] == pytest.approx(0.2 * SCALE, rel=0.01)
        assert c["width"] == pytest.approx(2 * 0.15 * 0.2 * SCALE, rel=0.05)


def test_a_new_radius_keeps_the_capsules_as_long_as_the_scaled_bones(run):
    # the Radius is in the bones' rest units, as the preset's: the pose scales it too
    for n in ("b1", "b2", "b3"):
        c = run["capsules_after_radius"][n]
        assert c["length"] == pytest.approx(0.2 * SCALE, rel=0.01)
        assert c["width"] == pytest.approx(2 * 0.02 * SCALE, rel=0.05)
