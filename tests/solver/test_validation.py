"""Bad input raises ValueError whose message names the bad argument."""

import math

import pytest

import solver as lg

NAN, INF = math.nan, math.inf


@pytest.fixture
def world():
    w = lg.World()
    w.add_body(lg.Sphere(0.1), (0, 0, 0))
    w.add_body(lg.Sphere(0.1), (1, 0, 0))
    return w


CASES = [
    # (argument named in the message, the call)
    ("a and b", lambda w: w.add_ball_socket(0, 0, (0, 0, 0))),
    ("a and b", lambda w: w.add_hinge(1, 1, (0, 0, 0), (0, 1, 0))),
    ("a and b", lambda w: w.add_fixed(None, None, (0, 0, 0))),
    ("radius", lambda w: lg.Sphere(0.0)),
    ("radius", lambda w: lg.Sphere(-1.0)),
    ("radius", lambda w: lg.Capsule(0.0, 0.5)),
    ("half_height", lambda w: lg.Cylinder(0.5, -0.1)),
    ("half_extents", lambda w: lg.Box((0.1, 0.0, 0.1))),
    ("half_extents", lambda w: lg.Box((0.1, NAN, 0.1))),
    ("mass", lambda w: w.add_body(lg.Sphere(0.1), (0, 0, 0), mass=0.0)),
    ("mass", lambda w: w.add_body(lg.Sphere(0.1), (0, 0, 0), mass=-2.0)),
    ("density", lambda w: w.add_body(lg.Sphere(0.1), (0, 0, 0), density=0.0)),
    ("position", lambda w: w.add_body(lg.Sphere(0.1), (NAN, 0, 0))),
    ("position", lambda w: w.add_body(lg.Sphere(0.1), (0, 0))),
    ("linear_velocity", lambda w: w.add_body(lg.Sphere(0.1), (0, 0, 0),
                                             linear_velocity=(INF, 0, 0))),
    ("angular_velocity", lambda w: w.add_body(lg.Sphere(0.1), (0, 0, 0),
                                              angular_velocity=(0, NAN, 0))),
    ("orientation", lambda w: w.add_body(lg.Sphere(0.1), (0, 0, 0), orientation=(0, 0, 0, 0))),
    ("anchor", lambda w: w.add_ball_socket(0, 1, (0, INF, 0))),
    ("gravity", lambda w: lg.World(gravity=(0, 0, NAN))),
    ("axis", lambda w: w.add_hinge(0, 1, (0, 0, 0), (0, 0, 0))),
    ("axis", lambda w: w.add_prismatic(0, 1, (0, 0, 0), (0, 0, 0))),
    ("axis", lambda w: w.add_angular_motor(0, 1, (0, 0, 0), 1.0, 1.0)),
    ("twist_axis", lambda w: w.add_ragdoll(0, 1, (0, 0, 0), (0, 0, 0))),
    ("b", lambda w: w.add_ball_socket(0, 7, (0, 0, 0))),
    ("a", lambda w: w.add_hinge(-3, 1, (0, 0, 0), (0, 1, 0))),
    ("b", lambda w: w.add_rope(0, "1", (0, 0, 0), (1, 0, 0), 2.0)),
    ("body", lambda w: w.inertia(5)),
    ("body", lambda w: w.set_kinematic_target(9, (0, 0, 0))),
    ("joint", lambda w: w.remove_joint(0)),
    ("joint", lambda w: w.joint_broken(3)),
    ("length", lambda w: w.add_rope(0, 1, (0, 0, 0), (1, 0, 0), 0.0)),
    ("lower", lambda w: w.add_hinge(0, 1, (0, 0, 0), (0, 1, 0), lower=1.0, upper=-1.0)),
    ("break_force", lambda w: w.add_ball_socket(0, 1, (0, 0, 0), break_force=-1.0)),
    ("dt", lambda w: w.step(0.0)),
]


@pytest.mark.parametrize("name, call", CASES, ids=[f"{i:02d}-{c[0]}" for i, c in enumerate(CASES)])
def test_bad_input_raises_value_error_naming_the_argument(world, name, call):
    with pytest.raises(ValueError) as info:
        call(world)
    assert name in str(info.value), f"message {str(info.value)!r} does not name {name!r}"


def test_bad_input_leaves_the_world_unchanged(world):
    with pytest.raises(ValueError):
        world.add_ball_socket(0, 9, (0, 0, 0))
    with pytest.raises(ValueError):
        world.add_body(lg.Sphere(0.1), (NAN, 0, 0))
    assert world.body_count == 2 and world.joint_count == 0
