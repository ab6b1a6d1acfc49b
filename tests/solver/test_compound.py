"""Compound bodies: a rigid union of convex parts, each colliding on its own.

Mass properties against integration over the union's volume (Gauss quadrature over each box,
disc slices for a solid of revolution); contacts against what the shape's geometry says
(a ball held between a bracket's uprights, an L tipping toward its centre of mass); free
flight against the conservation laws."""

import math

import numpy as np
import pytest

import solver as lg
from probes import FRAME, qmat
from test_determinism import _same
from test_mass_properties import RHO, _revolved

G = 9.81
ROT_Y_90 = (math.cos(math.pi / 4), 0.0, math.sin(math.pi / 4), 0.0)   # local x -> -z


def _box_integrals(lo, hi):
    """(mass, first moment (3,), second moment E[x x^T] (3,3)) of a uniform world-aligned
    box [lo, hi] at density RHO, by 3-point Gauss-Legendre in each axis (exact to degree 5)."""
    x, wts = np.polynomial.legendre.leggauss(3)
    lo, hi = np.asarray(lo, float), np.asarray(hi, float)
    nodes = [0.5 * (h - l) * x + 0.5 * (h + l) for l, h in zip(lo, hi)]
    weights = [0.5 * (h - l) * wts for l, h in zip(lo, hi)]
    m, first, second = 0.0, np.zeros(3), np.zeros((3, 3))
    for i, a in enumerate(nodes[0]):
        for j, b in enumerate(nodes[1]):
            for k, c in enumerate(nodes[2]):
                dm = RHO * weights[0][i] * weights[1][j] * weights[2][k]
                p = np.array([a, b, c])
                m += dm
                first += dm * p
                second += dm * np.outer(p, p)
    return m, first, second


def _inertia_from_integrals(regions):
    """Mass, centre of mass and inertia about it of the union of world-aligned boxes."""
    m, first, second = 0.0, np.zeros(3), np.zeros((3, 3))
    for lo, hi in regions:
        dm, df, ds = _box_integrals(lo, hi)
        m += dm
        first += df
        second += ds
    com = first / m
    cov = second - m * np.outer(com, com)          # integral of d d^T about the centre
    return m, com, np.trace(cov) * np.eye(3) - cov


def _l_shape(long_arm=1.0, short_arm=0.6, t=0.2):
    """An L of two boxes in the x-z plane, its outer corner at the origin: an arm of
    `long_arm` along +x and one of `short_arm` along +z (made as a box lying along x turned
    90 degrees about y), both t thick. Returns (Compound, its regions as boxes)."""
    half = t / 2
    arm_x = (lg.Box((long_arm / 2, half, half)), (long_arm / 2, 0.0, half))
    arm_z = (lg.Box((short_arm / 2, half, half)), (half, 0.0, t + short_arm / 2), ROT_Y_90)
    regions = [((0.0, -half, 0.0), (long_arm, half, t)),
               ((0.0, -half, t), (t, half, t + short_arm))]
    return lg.Compound([arm_x, arm_z]), regions


def _settle(w, seconds):
    for _ in range(int(round(seconds / FRAME))):
        w.step(FRAME)


# --- mass properties -------------------------------------------------------------------

def test_l_of_two_boxes_has_the_unions_mass_centre_and_inertia():
    shape, regions = _l_shape()
    m, com, inertia = _inertia_from_integrals(regions)
    assert abs(inertia[0, 2]) > 0.01 * inertia[0, 0]      # an L's tensor is not diagonal
    w = lg.World()
    position = np.array([0.3, -0.2, 1.0])
    b = w.add_body(shape, position, density=RHO)
    assert w.masses[b] == pytest.approx(m, rel=1e-12)
    assert np.allclose(w.positions[b], position + com, atol=1e-12)
    assert np.allclose(w.shape_origin(b), position, atol=1e-12)
    assert np.allclose(w.inertia(b), inertia, rtol=1e-10, atol=1e-12 * m)


def test_given_mass_is_spread_over_the_parts_by_volume():
    shape, regions = _l_shape()
    m, com, inertia = _inertia_from_integrals(regions)
    w = lg.World()
    q = (math.cos(0.3), math.sin(0.3), 0.0, 0.0)       # turned about x: the tensor turns too
    b = w.add_body(shape, (0, 0, 0), orientation=q, mass=7.0)
    r = qmat(np.array(q))
    assert w.masses[b] == pytest.approx(7.0)
    assert np.allclose(w.positions[b], r @ com, atol=1e-12)
    assert np.allclose(w.inertia(b), r @ inertia @ r.T * (7.0 / m), rtol=1e-10, atol=1e-12)


def test_dumbbell_of_two_spheres_and_a_capsule_matches_slice_integration():
    r, h, big = 0.05, 0.3, 0.15          # the spheres just touch the capsule's caps
    c = h + r + big
    dumbbell = lg.Compound([(lg.Capsule(r, h), (0, 0, 0)),
                            (lg.Sphere(big), (0, 0, c)), (lg.Sphere(big), (0, 0, -c))])

    def profile(z):
        za = np.abs(z)
        cap = np.where(za <= h, r * r, np.maximum(r * r - (za - h) ** 2, 0.0))
        ball = np.maximum(big * big - (za - c) ** 2, 0.0)
        return np.maximum(cap, ball)

    # the radius^2 is quadratic on each piece between these heights
    edges = [-c - big, -h - r, -h, h, h + r, c + big]
    m = ixx = izz = 0.0
    for lo, hi in zip(edges[:-1], edges[1:]):
        dm, dxx, dzz = _revolved(profile, lo, hi)
        m, ixx, izz = m + dm, ixx + dxx, izz + dzz
    w = lg.World()
    b = w.add_body(dumbbell, (0, 0, 2), density=RHO)
    assert w.masses[b] == pytest.approx(m, rel=1e-12)
    assert np.allclose(w.positions[b], (0, 0, 2), atol=1e-12)
    assert np.allclose(w.inertia(b), np.diag([ixx, ixx, izz]), rtol=1e-10)


def test_nested_compound_is_flattened_with_its_pose():
    shape, regions = _l_shape()
    q = (math.cos(0.4), 0.0, 0.0, math.sin(0.4))
    outer = lg.Compound([(shape, (1.0, 2.0, 3.0), q)])
    assert len(outer.parts) == 2
    v, com, inertia = shape.mass_properties()
    v2, com2, inertia2 = outer.mass_properties()
    r = qmat(np.array(q))
    assert v2 == pytest.approx(v)
    assert np.allclose(com2, (1.0, 2.0, 3.0) + r @ com)
    assert np.allclose(inertia2, r @ inertia @ r.T)


@pytest.mark.parametrize("parts, word", [
    ([], "at least one part"),
    ([(lg.Plane(), (0, 0, 0))], "parts[0] must be a Sphere"),
    ([(lg.Box((1, 1, 1)), (0, 0))], "parts[0] position"),
    ([(lg.Box((1, 1, 1)), (0, 0, 0), (0, 0, 0, 0))], "non-zero quaternion"),
    (5, "sequence"),
])
def test_bad_parts_are_refused_by_name(parts, word):
    with pytest.raises(ValueError, match=word.replace("[", r"\[").replace("]", r"\]")):
        lg.Compound(parts)


# --- contacts ----------------------------------------------------------------------------

def _bracket():
    """A U of three boxes: a base 1 m wide (x), uprights 0.6 m tall at its ends."""
    base = lg.Box((0.5, 0.3, 0.05))
    upright = lg.Box((0.05, 0.3, 0.3))
    return lg.Compound([(base, (0, 0, 0.05)), (upright, (-0.45, 0, 0.4)),
                        (upright, (0.45, 0, 0.4))])


def test_u_bracket_holds_a_ball_thrown_into_it():
    w = lg.World(gravity=(0, 0, -G))
    w.add_body(lg.Plane(), (0, 0, 0), kind="static")
    u = w.add_body(_bracket(), (0, 0, 0), mass=5.0, friction=0.8)
    ball = w.add_body(lg.Sphere(0.1), (0.1, 0, 0.5), mass=0.5, linear_velocity=(3.0, 0, 0),
                      restitution=0.5)
    lowest, xs = np.inf, []
    for _ in range(int(3.0 / FRAME)):
        w.step(FRAME)
        xs.append(w.positions[ball, 0])
        lowest = min(lowest, w.positions[ball, 2])
    xs = np.array(xs)
    # inside faces at |x| = 0.4: the ball's centre stays within 0.3 (it hit an upright and
    # came back), and it rests on the base's top (z = 0.1) - not on the uprights' tops
    # (z = 0.7) as it would on the U's convex hull
    assert xs.max() > 0.25 and np.all(np.abs(xs) < 0.3 + 0.01), (xs.min(), xs.max())
    assert w.positions[ball, 2] == pytest.approx(0.2, abs=0.01)
    assert lowest > 0.2 - 0.02
    up = qmat(w.orientations[u])[:, 2]
    assert up[2] > 0.999                            # the bracket stands as it was set down


@pytest.mark.parametrize("long_arm, short_arm", [(1.0, 0.6), (0.6, 1.0)])
def test_l_tips_onto_the_arm_its_centre_of_mass_lies_over(long_arm, short_arm):
    """Set down on its outer corner with both arms at 45 degrees, the L turns about the corner
    toward the side its centre of mass lies on, and comes to rest on that arm's outer face."""
    shape, regions = _l_shape(long_arm, short_arm)
    _, com, _ = _inertia_from_integrals(regions)
    q = (math.cos(-math.pi / 8), 0.0, math.sin(-math.pi / 8), 0.0)   # -45 degrees about y
    r = qmat(np.array(q))
    side = (r @ com)[0]                              # > 0: the x arm's side of the corner
    assert abs(side) > 0.02
    w = lg.World(gravity=(0, 0, -G))
    w.add_body(lg.Box((5, 5, 0.5)), (0, 0, -0.5), kind="static", friction=0.8)
    b = w.add_body(shape, (0, 0, 0.01), orientation=q, friction=0.8)
    _settle(w, 3.0)
    axes = qmat(w.orientations[b])
    if side > 0:       # lying on the x arm: its outer face (-z) down, body z up
        assert axes[2, 2] > 0.999, axes
        expected_height = com[2]
    else:              # lying on the z arm: its outer face (-x) down, body x up
        assert axes[2, 0] > 0.999, axes
        expected_height = com[0]
    assert w.positions[b, 2] == pytest.approx(expected_height, abs=0.01)
    assert np.linalg.norm(w.linear_velocities[b]) < 0.01


def test_compound_of_one_part_moves_as_that_shape():
    q = (math.cos(0.35), 0.3, math.sin(0.35), 0.2)
    q = tuple(np.array(q) / np.linalg.norm(q))
    runs = []
    for shape in (lg.Box((0.3, 0.2, 0.1)), lg.Compound([(lg.Box((0.3, 0.2, 0.1)), (0, 0, 0))])):
        w = lg.World(gravity=(0, 0, -G))
        w.add_body(lg.Plane(), (0, 0, 0), kind="static")
        b = w.add_body(shape, (0, 0, 1.0), orientation=q, angular_velocity=(2, -1, 3),
                       linear_velocity=(0.5, 0, 0))
        _settle(w, 2.0)
        runs.append(np.concatenate([w.positions[b], w.orientations[b]]))
    assert np.allclose(runs[0], runs[1], atol=1e-9)
    assert runs[0][2] == pytest.approx(0.1, abs=0.01)       # it fell and lies on its face


def test_offset_turned_part_moves_as_the_shape_placed_there():
    """A compound whose only part is a capsule off the compound's origin and turned is that
    capsule: the same fall onto a box floor, pose for pose."""
    turn = (math.cos(0.5), math.sin(0.5), 0.0, 0.0)
    paths = []
    for make in ("capsule", "compound"):
        w = lg.World(gravity=(0, 0, -G))
        w.add_body(lg.Box((5, 5, 0.5)), (0, 0, -0.5), kind="static")
        if make == "capsule":
            b = w.add_body(lg.Capsule(0.1, 0.3), (0.5, 0, 1.0), orientation=turn)
        else:
            b = w.add_body(lg.Compound([(lg.Capsule(0.1, 0.3), (0.5, 0, 0), turn)]),
                           (0, 0, 1.0))
        track = []
        for _ in range(90):
            w.step(FRAME)
            track.append(w.positions[b].copy())
        paths.append(np.array(track))
    assert np.allclose(paths[0], paths[1], atol=1e-6)
    assert paths[0][-1, 2] == pytest.approx(0.1, abs=0.01)


@pytest.mark.parametrize("floor", ["plane", "mesh", "compound"])
def test_dumbbell_rests_on_both_balls_on_any_floor(floor):
    """Each ball is a part with a manifold of its own against the floor (a plane, a mesh, the
    parts of a static compound): two points, one under each ball, half the weight each."""
    w = lg.World(gravity=(0, 0, -G), sleeping=False)      # awake: its contacts push each frame
    if floor == "plane":
        w.add_body(lg.Plane(), (0, 0, 0), kind="static")
    elif floor == "mesh":
        v = np.array([[-3, -3, 0], [3, -3, 0], [3, 3, 0], [-3, 3, 0]], float)
        w.add_body(lg.TriangleMesh(v, [[0, 1, 2], [0, 2, 3]]), (0, 0, 0), kind="static")
    else:                   # two slabs side by side, one compound
        slab = lg.Box((1.5, 3, 0.25))
        w.add_body(lg.Compound([(slab, (-1.5, 0, -0.25)), (slab, (1.5, 0, -0.25))]),
                   (0, 0, 0), kind="static")
    r, h, big = 0.05, 0.3, 0.15
    c = h + r + big
    bar = (math.cos(math.pi / 4), 0.0, math.sin(math.pi / 4), 0.0)     # lying along x
    dumbbell = lg.Compound([(lg.Capsule(r, h), (0, 0, 0)), (lg.Sphere(big), (0, 0, c)),
                            (lg.Sphere(big), (0, 0, -c))])
    b = w.add_body(dumbbell, (0, 0, 0.5), orientation=bar)
    _settle(w, 2.0)
    assert w.positions[b, 2] == pytest.approx(big, abs=0.005)
    contacts = w.contacts()
    points = contacts["points"][np.any(contacts["bodies"] == b, axis=1)]
    assert len(points) == 2                                  # one under each ball
    assert np.allclose(np.sort(points[:, 0]), (-c, c), atol=0.01)
    # the contacts carry the weight over the frame (N s), each ball half of it
    _, pushes = w.contact_impulses(b)
    assert pushes.sum(axis=0) == pytest.approx((0, 0, w.masses[b] * G * FRAME), rel=0.02,
                                               abs=1e-3)
    impulses = contacts["impulses"][np.any(contacts["bodies"] == b, axis=1)]
    assert impulses[0] == pytest.approx(impulses[1], rel=0.05)


def test_compound_stacks_on_a_compound():
    """A bracket on a bracket (upside down over it): the top rests on the uprights' tops."""
    w = lg.World(gravity=(0, 0, -G))
    w.add_body(lg.Plane(), (0, 0, 0), kind="static")
    low = w.add_body(_bracket(), (0, 0, 0))
    flip = (0.0, 1.0, 0.0, 0.0)                        # 180 degrees about x: the U opens down
    high = w.add_body(_bracket(), (0, 0, 1.5), orientation=flip)
    _settle(w, 2.5)
    # low: uprights' tops at 0.7; the flipped bracket's uprights stand on them, its frame
    # origin (the base's outer face) 0.7 above them
    assert w.shape_origin(high)[2] == pytest.approx(1.4, abs=0.01)
    assert w.shape_origin(low)[2] == pytest.approx(0.0, abs=0.01)
    assert np.linalg.norm(w.linear_velocities[high]) < 0.01


# --- free flight and determinism -------------------------------------------------------

def test_free_tumbling_l_keeps_momentum_and_energy():
    shape, _ = _l_shape()
    w = lg.World(gravity=(0, 0, 0), substeps=8)
    b = w.add_body(shape, (0, 0, 0), linear_velocity=(0.3, -0.1, 0.2),
                   angular_velocity=(2.0, 0.5, -1.0))

    def momenta():
        inertia = w.inertia(b)
        spin = w.angular_velocities[b]
        return (w.masses[b] * w.linear_velocities[b].copy(), inertia @ spin,
                0.5 * spin @ inertia @ spin)

    p0, l0, e0 = momenta()
    assert np.linalg.norm(np.cross(l0, w.angular_velocities[b])) > 0.1 * np.linalg.norm(l0)
    for _ in range(240):
        w.step(FRAME)
        p, angular, e = momenta()
        assert np.allclose(p, p0, rtol=1e-12, atol=1e-12)
        assert np.allclose(angular, l0, rtol=1e-9, atol=1e-12)
        assert e == pytest.approx(e0, rel=1e-3)


def _pile():
    w = lg.World(gravity=(0, 0, -G))
    w.add_body(lg.Plane(), (0, 0, 0), kind="static")
    for k in range(3):
        shape, _ = _l_shape()
        w.add_body(shape, (0.1 * k, 0.05 * k, 0.3 + 0.5 * k),
                   orientation=(math.cos(0.3 * k), 0.0, 0.0, math.sin(0.3 * k)),
                   angular_velocity=(0.5 * k, 0, 1.0))
    w.add_body(_bracket(), (2, 0, 0.5))
    w.add_body(lg.Sphere(0.1), (2.1, 0, 1.2))
    return w


def test_compound_pile_is_bit_identical_run_to_run_and_after_load_state():
    w1, w2 = _pile(), _pile()
    for _ in range(60):
        w1.step(FRAME)
        w2.step(FRAME)
    assert _same(w1.save_state(), w2.save_state())
    saved = w1.save_state()
    for _ in range(30):
        w1.step(FRAME)
    after = w1.save_state()
    w1.load_state(saved)
    for _ in range(30):
        w1.step(FRAME)
    assert _same(w1.save_state(), after)
