"""Bad input raises ValueError whose message names the bad argument, and leaves the world as it
was: the table of bad values a probe of the public API found (each case its own world)."""

import math

import numpy as np
import pytest

import solver as lg

NAN, INF = math.nan, math.inf


@pytest.fixture
def world():
    w = lg.World()
    w.add_body(lg.Sphere(0.1), (0, 0, 0))
    w.add_body(lg.Sphere(0.1), (1, 0, 0))
    return w


def _set(view, index, value):
    view[index] = value


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
    ("dt", lambda w: w.step(NAN)),
    ("dt", lambda w: w.step(INF)),
    ("dt", lambda w: w.step(-1.0 / 60)),
    ("friction", lambda w: w.add_body(lg.Sphere(0.1), (0, 0, 0), friction=-1.0)),
    ("friction", lambda w: w.add_body(lg.Sphere(0.1), (0, 0, 0), friction=NAN)),
    ("restitution", lambda w: w.add_body(lg.Sphere(0.1), (0, 0, 0), restitution=2.0)),
    ("linear_damping", lambda w: w.add_body(lg.Sphere(0.1), (0, 0, 0), linear_damping=-1.0)),
    ("kind", lambda w: w.add_body(lg.Sphere(0.1), (0, 0, 0), kind="floppy")),
    ("mass or density", lambda w: w.add_body(lg.Sphere(0.1), (0, 0, 0), mass=1.0,
                                             density=1.0)),
    ("collision_group", lambda w: w.add_body(lg.Sphere(0.1), (0, 0, 0), collision_group=-1)),
    ("radius", lambda w: lg.Sphere(1e200)),
    ("radius", lambda w: lg.Sphere(INF)),
    ("radius", lambda w: lg.Capsule(NAN, 1.0)),
    ("half_extents", lambda w: lg.Box((1e7, 1.0, 1.0))),
    ("4 points", lambda w: lg.ConvexHull([(0, 0, 0), (1, 0, 0)])),
    ("one plane", lambda w: lg.ConvexHull([(0, 0, 0), (1, 0, 0), (0, 1, 0), (1, 1, 0)])),
    ("finite", lambda w: lg.ConvexHull([(0, 0, 0), (1, 0, 0), (0, 1, 0), (0, 0, NAN)])),
    ("indices", lambda w: lg.TriangleMesh([(0, 0, 0), (1, 0, 0), (0, 1, 0)], [(0, 1, 5)])),
    ("static", lambda w: w.add_body(lg.TriangleMesh([(0, 0, 0), (1, 0, 0), (0, 1, 0)],
                                                    [(0, 1, 2)]), (0, 0, 0))),
    ("normal", lambda w: lg.Plane((0, 0, 0), 0.0)),
    ("substeps", lambda w: lg.World(substeps=0)),
    ("iterations", lambda w: lg.World(iterations=-1)),
    ("threads", lambda w: lg.World(threads=0)),
    ("max_frame", lambda w: lg.World(max_frame=0.0)),
    ("gravity", lambda w: setattr(w, "gravity", (0, 0, INF))),
    ("kind", lambda w: w.set_kind(0, "static2")),
    ("kinematic", lambda w: w.set_kinematic_target(0, (0, 0, 1))),
    ("body", lambda w: w.contact_impulses(9)),
    ("body", lambda w: w.wake(-1)),
    ("length", lambda w: w.add_rope(0, 1, (0, 0, 0), (1, 0, 0), -1.0)),
    ("min_length", lambda w: w.add_distance(0, 1, (0, 0, 0), (1, 0, 0), min_length=2.0,
                                            max_length=1.0)),
    ("swing1", lambda w: w.add_ragdoll(0, 1, (0, 0, 0), (0, 0, 1), swing1=-0.1)),
    ("hinge_a", lambda w: w.add_gear(5, 7, 1.0)),
    ("syntax", lambda w: w.add_custom([0, 1], "pA.z +* 1")),
    ("unknown function 'foo'", lambda w: w.add_custom([0, 1], "foo(pA.z)")),
    ("save_state", lambda w: w.load_state({"x": 1})),
    ("save_state", lambda w: w.load_state(None)),
    ("saved from this world", lambda w: w.load_state(lg.World().save_state())),
    # values written straight into the state views: refused before anything moves
    ("bodies [0]", lambda w: (_set(w.positions, (0, 0), NAN), w.step())),
    ("bodies [1]", lambda w: (_set(w.linear_velocities, (1, 2), INF), w.step())),
    ("bodies [1]", lambda w: (_set(w.orientations, 1, 0.0), w.step())),
    ("bodies [0]", lambda w: (_set(w.angular_velocities, (0, 1), NAN), w.step())),
]


@pytest.mark.parametrize("name, call", CASES, ids=[f"{i:02d}-{c[0]}" for i, c in enumerate(CASES)])
def test_bad_input_raises_value_error_naming_the_argument(world, name, call):
    with pytest.raises(ValueError) as info:
        call(world)
    assert name in str(info.value), f"message {str(info.value)!r} does not name {name!r}"


def _same_state(a, b):
    if a.keys() != b.keys():
        return False
    for key in a:
        x, y = a[key], b[key]
        if isinstance(x, np.ndarray):
            if not np.array_equal(x, y, equal_nan=True):
                return False
        elif isinstance(x, tuple):        # the islands' kept factors: a tuple of arrays
            if not isinstance(y, tuple) or len(x) != len(y) or \
                    not all(np.array_equal(u, v, equal_nan=True) for u, v in zip(x, y)):
                return False
        elif key != "contacts" and x != y:
            return False
    return True


@pytest.mark.parametrize("name, call", CASES, ids=[f"{i:02d}-{c[0]}" for i, c in enumerate(CASES)])
def test_bad_input_leaves_the_world_unchanged(world, name, call):
    world.step(1 / 60)   # a stepped world: velocities, contacts and time in its state
    before, bodies, joints = world.save_state(), world.body_count, world.joint_count
    views = [v.copy() for v in (world.positions, world.orientations, world.linear_velocities,
                                world.angular_velocities)]
    with pytest.raises(ValueError):
        call(world)
    assert world.body_count == bodies and world.joint_count == joints
    if name.startswith("bodies ["):   # the refused write itself stays where it was written;
        for v, old in zip((world.positions, world.orientations, world.linear_velocities,
                           world.angular_velocities), views):
            v[:] = old                # put back, the world steps on from where it was
        world.step(1 / 60)
        assert np.isfinite(world.positions).all()
        return
    assert _same_state(world.save_state(), before)
