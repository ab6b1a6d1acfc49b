"""Ragdoll from Armature builds from the posed bones as Blender shows them, their pose scale
included: a metarig whose upper arm is scaled 1.5 in the pose keeps its arm's size once it
is a ragdoll, as it falls. The scenario:
tests/addon/scenarios/ragdoll_pose_scale.py."""

import numpy as np

import pytest

FRAMES = [1, 2, 3, 4, 12, 24]
SCALE = 1.5
ARM = ("upper_arm.L", "forearm.L", "hand.L")


@pytest.fixture(scope="module")
def run(blender):
    return blender.call("ragdoll_pose_scale.ragdoll_of_a_scaled_bone", "upper_arm.L", SCALE,
                        list(ARM) + ["upper_arm.R", "spine.003"], FRAMES)


def test_blender_shows_the_arm_scaled_before_the_ragdoll(run):
    # the premise: pose scale is inherited, the whole arm is 1.5 times its other arm
    shown = run["before"]
    assert shown["upper_arm.L"]["length"] == pytest.approx(
        SCALE * shown["upper_arm.R"]["length"], rel=1e-5)


def test_the_scaled_arm_s_bodies_are_the_scaled_size_of_the_other_arm_s(run):
    for n in ARM:
        left, right = run["sizes"][n], run["sizes"][n[:-1] + "R"]
        print(n, "body", left, "its mirror", right)
        assert left == pytest.approx(SCALE * right, rel=1e-4)


@pytest.mark.parametrize("frame", FRAMES)
def test_the_ragdoll_keeps_the_bones_world_size(run, frame):
    assert run["error"] is None
    for n, shown in run["before"].items():
        got = run["after"][str(frame)][n]["length"]
        print(frame, n, shown["length"], got)
        assert got == pytest.approx(shown["length"], abs=1e-5)


def test_at_the_start_frame_the_bones_are_where_blender_showed_them(run):
    for n, shown in run["before"].items():
        for a, b in zip(run["after"]["1"][n]["matrix"], shown["matrix"]):
            assert a == pytest.approx(b, abs=1e-4)



def test_an_armature_scaled_2_gets_bodies_twice_the_size(blender):
    one = blender.call("ragdoll_pose_scale.body_sizes", 1.0)
    two = blender.call("ragdoll_pose_scale.body_sizes", 2.0)
    assert set(one) == set(two)
    for part, extents in one.items():
        print(part, extents, two[part])
        assert two[part] == pytest.approx([2 * e for e in extents], rel=1e-4)
