"""Compound bodies in Blender: a parent whose children are its parts (as Bullet's Compound
Parent), and a concave mesh split into convex parts by the bundled CoACD. The scenarios:
tests/addon/scenarios/compound.py."""

import numpy as np
import pytest


def test_bracket_of_three_child_cubes_under_a_compound_parent_holds_a_ball(blender):
    """Two U brackets, each three cubes parented to a Compound body (an empty, and a small
    mesh whose own geometry is not a part); a ball thrown into each stays between the
    uprights and comes to rest on the base."""
    out = blender.call("compound.brackets_holding_balls")
    assert out["error"] is None
    assert out["builds"] == 1 and out["rebuilt"] == 1
    # the parts are no bodies of their own: two brackets, two balls, the ground
    assert out["bodies"] == ["Ball0", "Ball3", "BracketEMPTY", "BracketMESH", "Ground"]
    for name, x in (("Ball0", 0.0), ("Ball3", 3.0)):
        path = np.array(out["track"][name])
        assert np.all(np.abs(path[:, 0] - x) < 0.3 + 0.01), (name, path[:, 0].min(),
                                                             path[:, 0].max())
        assert path[-1, 2] == pytest.approx(0.2, abs=0.02), (name, path[-1])
    for name, x in (("BracketEMPTY", 0.0), ("BracketMESH", 3.0)):
        path = np.array(out["track"][name])
        assert np.allclose(path[-1], (x, 0, 0.3), atol=0.02), (name, path[-1])


def test_concave_u_split_into_convex_parts_holds_a_ball_its_hull_does_not(blender):
    out = blender.call("compound.u_split_and_its_hull")
    assert out["error"] is None
    assert out["status"] == ["FINISHED"] and out["again"] == ["FINISHED"]
    assert out["shape"] == 'COMPOUND'
    assert 3 <= out["parts"] <= 8, out["parts"]         # a floor and two walls, or a few more
    assert len(out["parts_again"]) == out["parts"]
    assert out["part_shapes"] == ['CONVEX_HULL'] and out["wire"]
    print(f"split a 16-vertex U into {out['parts']} convex parts in {out['seconds']:.2f} s")
    ball = np.array(out["track"]["BallSplit"])
    # inside the split U: between the walls (inner faces at |x| = 0.4), on its floor (0.1)
    assert np.all(np.abs(ball[:, 0]) < 0.3 + 0.01)
    assert abs(ball[-1, 2] - 0.2) < 0.02, ball[-1]
    # on the hull the ball lies on the lid the hull puts over the U (z = 0.7)
    assert abs(out["track"]["BallHull"][-1][2] - 0.8) < 0.02
    u = np.array(out["track"]["SplitU"])
    assert np.allclose(u[-1], (0, 0, 0), atol=0.02)


def test_l_shape_tips_onto_the_same_arm_as_bullets_compound_parent(blender):
    """An L of two child boxes set down on its outer corner, arms at 45 degrees, falls onto the
    arm its centre of mass lies over: Ligament's Compound body and Blender's own rigid body
    (Compound Parent, its origin put at the L's centre of mass, which is where Bullet puts a
    compound's) side by side in the same scene, for a long arm along X and one along Z."""
    out = blender.call("compound.l_shapes_beside_bullet")
    assert out["error"] is None
    print("L's local Z in the world after 5 s (Ligament, Bullet):", out["up_z"])
    for key, (ligament, bullet) in out["up_z"].items():
        # the body's local Z axis in the world: up when it lies on the X arm, level when on
        # the Z arm
        on_x = ligament[2] > 0.99
        assert on_x == (key == "x"), (key, ligament)
        assert (bullet[2] > 0.99) == on_x, (key, bullet)
        if not on_x:
            assert abs(ligament[2]) < 0.05 and abs(bullet[2]) < 0.05, (key, ligament, bullet)
