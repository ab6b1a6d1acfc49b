"""Every convex pair collides (GJK/SAT + clipping for the pairs without a dedicated routine):
the measured overlap of shapes stacked upright, hull stacks, cylinder side and cap contacts,
a sphere on a hull's apex. 60 Hz frames, 4 substeps.
"""

import itertools
import math

import numpy as np
import pytest

import solver as lg
from solver.contacts import P0

FRAME = 1.0 / 60.0
G = 9.81


def world():
    # Sleeping off: these tests measure the contact solver's own rest, and a sleeping body's
    # velocity is zero by decree (test_sleeping.py covers sleeping).
    return lg.World(gravity=(0, 0, -G), substeps=4, sleeping=False)


def cube_points(hx, hy, hz):
    return np.array([[x, y, z] for x in (-hx, hx) for y in (-hy, hy) for z in (-hz, hz)])


def octagonal_prism(r, hz):
    a = np.arange(8) * math.pi / 4 + math.pi / 8
    ring = np.stack([r * np.cos(a), r * np.sin(a)], 1)
    return np.concatenate([np.c_[ring, np.full(8, -hz)], np.c_[ring, np.full(8, hz)]])


# upright shapes: (shape, half height along Z of the shape, i.e. top = bottom = this)
SHAPES = {
    "sphere": (lambda: lg.Sphere(0.2), 0.2),
    "capsule": (lambda: lg.Capsule(0.15, 0.1), 0.25),
    "cylinder": (lambda: lg.Cylinder(0.3, 0.1), 0.1),
    "box": (lambda: lg.Box((0.3, 0.25, 0.12)), 0.12),
    "hull": (lambda: lg.ConvexHull(octagonal_prism(0.3, 0.15)), 0.15),
}


@pytest.mark.parametrize("lower,upper", list(itertools.product(SHAPES, SHAPES)))
def test_every_convex_pair_reports_its_overlap_along_the_vertical(lower, upper):
    make_lo, h_lo = SHAPES[lower]
    make_up, h_up = SHAPES[upper]
    w = world()
    w.add_body(make_lo(), (0, 0, 0), kind="static")
    w.add_body(make_up(), (0, 0, h_lo + h_up - 0.004))
    w.step(FRAME)
    # the narrowphase's own record: normal and separation at collide time
    c = w._contacts
    assert c.n == 1 and c.mi[0, 2] > 0
    assert abs(c.mf[0, 2]) > 0.99, c.mf[0, 0:3]
    seps = [c.mf[0, P0 + 8 * k + 6] for k in range(c.mi[0, 2])]
    assert abs(min(seps) + 0.004) < 1e-4, seps


@pytest.mark.parametrize("name", list(SHAPES))
@pytest.mark.parametrize("ground", ["plane", "mesh"])
def test_every_convex_shape_collides_with_planes_and_meshes(name, ground):
    make, h = SHAPES[name]
    w = world()
    if ground == "plane":
        w.add_body(lg.Plane(), (0, 0, 0), kind="static")
    else:
        v = np.array([[-3, -3, 0], [3, -3, 0], [3, 3, 0], [-3, 3, 0]], dtype=float)
        w.add_body(lg.TriangleMesh(v, [(0, 1, 2), (0, 2, 3)]), (0, 0, 0), kind="static")
    b = w.add_body(make(), (0, 0, h + 0.2))
    for _ in range(90):
        w.step(FRAME)
    assert abs(w.positions[b, 2] - h) < 0.01
    assert np.linalg.norm(w.linear_velocities[b]) < 1e-3


def _rest(w, bodies, frames=180):
    for _ in range(frames):
        w.step(FRAME)
    return max(float(np.linalg.norm(w.linear_velocities[b])) for b in bodies)


def test_hull_stack_of_three_rests():
    w = world()
    w.add_body(lg.Plane(), (0, 0, 0), kind="static")
    hull = lg.ConvexHull(octagonal_prism(0.3, 0.15))
    bodies = [w.add_body(hull, (0.01 * i, 0, 0.15 + 0.3 * i + 0.01 * i)) for i in range(3)]
    speed = _rest(w, bodies)
    assert speed < 1e-3
    for i, b in enumerate(bodies):
        assert abs(w.positions[b, 2] - (0.15 + 0.3 * i)) < 0.01, w.positions[b]


def test_box_stacked_on_rotated_hull_rests_on_its_top_face():
    w = world()
    w.add_body(lg.Plane(), (0, 0, 0), kind="static")
    hq = (math.cos(0.3), 0.0, 0.0, math.sin(0.3))        # turned about Z
    h = w.add_body(lg.ConvexHull(cube_points(0.4, 0.4, 0.2)), (0, 0, 0.2), orientation=hq)
    b = w.add_body(lg.Box((0.2, 0.2, 0.2)), (0.05, 0, 0.62))
    speed = _rest(w, [h, b])
    assert speed < 1e-3
    assert abs(w.positions[b, 2] - 0.6) < 0.01


def test_cylinder_stands_on_cylinder_cap():
    w = world()
    w.add_body(lg.Cylinder(0.4, 0.2), (0, 0, 0.2), kind="static")
    b = w.add_body(lg.Cylinder(0.2, 0.3), (0.05, 0, 0.75))
    assert _rest(w, [b]) < 1e-3
    assert abs(w.positions[b, 2] - 0.7) < 0.01


def test_cylinder_lying_across_cylinder_cap_rests_on_its_side():
    w = world()
    w.add_body(lg.Cylinder(0.4, 0.2), (0, 0, 0.2), kind="static")
    lying = (math.cos(math.pi / 4), math.sin(math.pi / 4), 0.0, 0.0)
    b = w.add_body(lg.Cylinder(0.1, 0.3), (0, 0, 0.55), orientation=lying)
    assert _rest(w, [b]) < 1e-3
    assert abs(w.positions[b, 2] - 0.5) < 0.01


def test_cylinder_standing_on_lying_cylinder_side_rests():
    # a flat cap on a round side is stable while the centre of mass sits below the
    # side's radius of curvature (0.1 < 0.5)
    w = world()
    lying = (math.cos(math.pi / 4), math.sin(math.pi / 4), 0.0, 0.0)
    w.add_body(lg.Cylinder(0.5, 1.0), (0, 0, 0.5), orientation=lying, kind="static")
    b = w.add_body(lg.Cylinder(0.2, 0.1), (0, 0, 1.12))
    assert _rest(w, [b]) < 1e-3
    assert abs(w.positions[b, 2] - 1.1) < 0.01


def test_lying_cylinders_parallel_touch_along_a_line():
    w = world()
    lying = (math.cos(math.pi / 4), math.sin(math.pi / 4), 0.0, 0.0)
    w.add_body(lg.Cylinder(0.2, 0.5), (0, 0, 0.2), orientation=lying, kind="static")
    b = w.add_body(lg.Cylinder(0.2, 0.5), (0, 0, 0.61), orientation=lying)
    for _ in range(5):
        w.step(FRAME)
    assert w.contact_count() == 2                  # two ends of the line
    assert _rest(w, [b]) < 1e-3
    assert abs(w.positions[b, 2] - 0.6) < 0.01


def test_sphere_falling_on_hull_apex_rests_on_the_vertex():
    pyramid = np.array([[-0.5, -0.5, 0], [0.5, -0.5, 0], [0.5, 0.5, 0], [-0.5, 0.5, 0],
                        [0, 0, 0.6]])
    w = world()
    w.add_body(lg.ConvexHull(pyramid), (0, 0, 0), kind="static")
    r = 0.1
    s = w.add_body(lg.Sphere(r), (0, 0, 1.2))
    low = 1e9
    for _ in range(120):
        w.step(FRAME)
        low = min(low, w.positions[s, 2])
    assert abs(w.positions[s, 2] - (0.6 + r)) < 0.01
    assert low > 0.6 + r - 0.01                    # never sank into the vertex
    assert np.linalg.norm(w.linear_velocities[s]) < 1e-3


def test_sphere_beside_hull_apex_rolls_down_the_face_without_sinking():
    pyramid = np.array([[-0.5, -0.5, 0], [0.5, -0.5, 0], [0.5, 0.5, 0], [-0.5, 0.5, 0],
                        [0, 0, 0.6]])
    w = world()
    w.add_body(lg.Plane(), (0, 0, 0), kind="static")
    w.add_body(lg.ConvexHull(pyramid), (0, 0, 0), kind="static")
    r = 0.1
    s = w.add_body(lg.Sphere(r), (0.05, 0.0, 1.0))
    # face x>0: normal (0.6, 0, 0.5)/|.|, plane through (0.5,0,0) and apex
    nf = np.array([0.6, 0.0, 0.5]) / math.hypot(0.6, 0.5)
    worst = 1e9
    for _ in range(60):
        w.step(FRAME)
        x = w.positions[s]
        if 0.1 < x[0] < 0.45:
            worst = min(worst, (x - np.array([0.5, 0, 0])) @ nf)
    assert worst > r - 0.01
    assert w.positions[s, 0] > 0.3                  # it went down the +x face


def test_capsule_lying_on_hull_face_rests():
    w = world()
    w.add_body(lg.ConvexHull(cube_points(0.5, 0.5, 0.2)), (0, 0, 0.2), kind="static")
    lying = (math.cos(math.pi / 4), math.sin(math.pi / 4), 0.0, 0.0)
    b = w.add_body(lg.Capsule(0.1, 0.25), (0.02, 0, 0.55), orientation=lying)
    assert _rest(w, [b]) < 1e-3
    assert abs(w.positions[b, 2] - 0.5) < 0.01


def test_hull_with_64_corner_faces_stands_on_a_hull_and_a_mesh():
    a = np.arange(64) * 2 * math.pi / 64
    ring = np.stack([0.3 * np.cos(a), 0.3 * np.sin(a)], 1)
    disc = lg.ConvexHull(np.concatenate([np.c_[ring, np.full(64, -0.1)],
                                         np.c_[ring, np.full(64, 0.1)]]))
    w = world()
    w.add_body(lg.ConvexHull(cube_points(0.5, 0.5, 0.2)), (0, 0, 0.2), kind="static")
    v = np.array([[-3, -3, 0], [3, -3, 0], [3, 3, 0], [-3, 3, 0]], dtype=float) + (2, 0, 0)
    w.add_body(lg.TriangleMesh(v, [(0, 1, 2), (0, 2, 3)]), (0, 0, 0), kind="static")
    on_hull = w.add_body(disc, (0.03, 0, 0.52), orientation=(0.99, 0.0, 0.0, 0.141))
    on_mesh = w.add_body(disc, (2.0, 0, 0.12))
    assert _rest(w, [on_hull, on_mesh]) < 1e-3
    assert abs(w.positions[on_hull, 2] - 0.5) < 0.01
    assert abs(w.positions[on_mesh, 2] - 0.1) < 0.01
