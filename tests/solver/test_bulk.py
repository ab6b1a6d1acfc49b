"""Bulk creation: `add_bodies` builds what `add_body` called row by row builds, to the bit,
and checks its rows as `add_body` checks its arguments (atomically: a bad row adds nothing)."""

import math

import numpy as np
import pytest

import solver as lg

NAN = math.nan


def _tables(w):
    """Every body table of the world (live rows), by attribute name."""
    return {name: t.view.copy() for name, t in vars(w).items()
            if name.startswith(("_b", "_k")) and hasattr(t, "view")}


def _hull():
    # an off-centre hull: its centre of mass is not its origin
    pts = [(x, y, z) for x in (0.0, 0.4) for y in (0.1, 0.3) for z in (0.0, 0.2)]
    return lg.ConvexHull(pts + [(0.5, 0.2, 0.1)])


def _mixed_rows():
    """(shape, keyword arguments of add_body) for a batch with every kind of row."""
    r = math.sqrt(0.5)
    return [
        (lg.Box((2.0, 2.0, 0.25)), dict(position=(0, 0, -0.25), kind="static", friction=0.8)),
        (lg.Box((0.2, 0.3, 0.1)), dict(position=(0, 0, 0.5), mass=2.0, restitution=0.3)),
        (lg.Sphere(0.15), dict(position=(0.6, 0, 0.6), density=500.0,
                               linear_velocity=(0.5, 0, 0))),
        (lg.Capsule(0.1, 0.2), dict(position=(-0.6, 0.1, 0.7), orientation=(r, r, 0, 0),
                                    angular_velocity=(0, 0, 3.0), linear_damping=0.1,
                                    angular_damping=0.2, rolling_friction=0.01)),
        (lg.Cylinder(0.1, 0.15), dict(position=(0.0, 0.7, 0.4), kind="kinematic")),
        (_hull(), dict(position=(0.2, -0.6, 0.5), orientation=(0.9, 0.1, 0.3, 0.2), mass=1.5,
                       collision_group=2, collision_mask=3)),
        (lg.Plane(), dict(position=(0, 0, -1.0), kind="static")),
    ]


def _one_by_one(rows):
    w = lg.World()
    for shape, kw in rows:
        w.add_body(shape, **kw)
    return w


def _at_once(rows):
    """The same rows through add_bodies: per-row values where they differ."""
    w = lg.World()
    keys = {k for _, kw in rows for k in kw}
    defaults = dict(orientation=(1.0, 0.0, 0.0, 0.0), mass=None, density=None, kind="dynamic",
                    friction=0.5, restitution=0.0, linear_velocity=(0.0, 0.0, 0.0),
                    angular_velocity=(0.0, 0.0, 0.0), linear_damping=0.0,
                    angular_damping=0.0, rolling_friction=0.0, collision_group=1,
                    collision_mask=0xFFFFFFFF)
    columns = {k: [kw.get(k, defaults.get(k)) for _, kw in rows] for k in keys}
    positions = columns.pop("position")
    orientations = columns.pop("orientation")
    ids = w.add_bodies([s for s, _ in rows], positions, orientations, **columns)
    return w, ids


def test_a_batch_builds_the_tables_add_body_builds_and_steps_the_same():
    rows = _mixed_rows()
    slow = _one_by_one(rows)
    fast, ids = _at_once(rows)
    assert ids.dtype == np.int64 and list(ids) == list(range(len(rows)))
    a, b = _tables(slow), _tables(fast)
    assert a.keys() == b.keys() and len(a) > 15
    for name in a:
        assert np.array_equal(a[name], b[name]), name
    for _ in range(60):
        slow.step(1 / 60)
        fast.step(1 / 60)
    assert np.array_equal(slow.positions, fast.positions)
    assert np.array_equal(slow.orientations, fast.orientations)
    # and it did move: the dynamic ones fell onto the static box
    assert slow.positions[1, 2] < 0.5 - 0.3


def test_single_values_apply_to_every_row_and_ids_continue():
    w = lg.World()
    w.add_body(lg.Sphere(0.1), (5, 0, 0))
    ids = w.add_bodies([lg.Box((0.1, 0.1, 0.1)) for _ in range(4)],
                       [(i, 0, 1) for i in range(4)], mass=3.0, friction=0.2)
    assert list(ids) == [1, 2, 3, 4]
    assert np.allclose(w.masses[1:], 3.0)
    assert np.allclose(w.positions[1:, 0], [0, 1, 2, 3])
    assert w.add_bodies([], np.zeros((0, 3))).shape == (0,)
    assert w.add_bodies([], [], mass=[], kind=[]).shape == (0,)
    # empty joint batches too (a scene with no joints of a kind)
    for add in (w.add_ball_sockets, w.add_hinges, w.add_ragdolls):
        args = ([], [], []) if add == w.add_ball_sockets else ([], [], [], [])
        assert add(*args).shape == (0,)
    assert w.joint_count == 0 and w.joint_anchors().shape == (0, 2, 3)
    w.step(1 / 60)


@pytest.mark.parametrize("named, kw", [
    ("positions of row 1", dict(positions=[(0, 0, 0), (NAN, 0, 0)])),
    ("orientations of row 0", dict(orientations=[(0, 0, 0, 0), (1, 0, 0, 0)])),
    ("mass of row 1", dict(mass=[1.0, 0.0])),
    ("density of row 0", dict(density=[-1.0, None])),
    ("row 1: give either mass or density", dict(mass=[None, 1.0], density=[None, 2.0])),
    ("friction of row 1", dict(friction=[0.5, -0.1])),
    ("restitution of row 0", dict(restitution=[1.5, 0.0])),
    ("kind of row 1", dict(kind=["dynamic", "ghost"])),
    ("collision_mask of row 0", dict(collision_mask=[-1, 1])),
    ("linear_velocity", dict(linear_velocity=[(1, 2)])),
    ("mass must be one value or one per row", dict(mass=[1.0, 2.0, 3.0])),
])
def test_a_bad_row_is_named_and_nothing_is_added(named, kw):
    w = lg.World()
    w.add_body(lg.Sphere(0.1), (5, 0, 0))
    args = dict(positions=[(0, 0, 0), (1, 0, 0)])
    args.update(kw)
    with pytest.raises(ValueError, match=named.replace("(", r"\(")):
        w.add_bodies([lg.Sphere(0.1), lg.Sphere(0.2)], **args)
    assert w.body_count == 1 and len(_tables(w)["_bs"]) == 1


def test_a_static_only_shape_must_be_static():
    w = lg.World()
    with pytest.raises(ValueError, match="row 0: Plane.*can only be static"):
        w.add_bodies([lg.Plane()], [(0, 0, 0)])


def test_new_bodies_wake_the_sleepers_they_reach_only():
    w = lg.World()
    w.add_body(lg.Box((5, 5, 0.5)), (0, 0, -0.5), kind="static")
    near = w.add_body(lg.Box((0.5, 0.5, 0.5)), (0, 0, 0.5))
    far = w.add_body(lg.Box((0.5, 0.5, 0.5)), (3, 0, 0.5))
    for _ in range(120):
        w.step(1 / 60)
    assert w.is_sleeping(near) and w.is_sleeping(far)
    w.add_bodies([lg.Sphere(0.2)], [(0, 0, 1.25)])
    assert not w.is_sleeping(near) and w.is_sleeping(far)


def _joint_tables(w):
    return {name: getattr(w, name).view.copy() for name in ("_jt", "_jf", "_jacc", "_jimp")}


def _limbs(w):
    """Eight capsules at odd poses (jointed below) and a static floor."""
    rng = np.random.default_rng(7)
    w.add_body(lg.Box((3, 3, 0.25)), (0, 0, -0.25), kind="static")
    for i in range(8):
        q = rng.normal(size=4)
        w.add_body(lg.Capsule(0.05, 0.15), (0.3 * i, 0.1 * i, 1.0 + 0.05 * i), tuple(q), mass=2.0)


RAGDOLLS = [  # a, b, anchor, twist axis, swing axis, swing1, swing2, twist range, collide, break
    (1, 2, (0.15, 0.05, 1.0), (1, 0.2, 0), None, 0.5, 0.7, (-0.3, 0.4), False, None),
    (2, 3, (0.45, 0.15, 1.1), (0, 0, 1), (1, 0, 0), 0.6, 0.2, (-0.1, 0.1), True, 900.0),
    (None, 4, (0.9, 0.3, 1.2), (0.1, 0.2, 0.95), (0, 1, 0), 1.0, 1.2, (0.0, 0.0), False, None),
    (4, 5, (1.2, 0.4, 1.2), (0.3, -1, 0.2), None, 0.4, 0.4, (-1.0, 1.0), False, 50.0),
]
HINGES = [  # a, b, anchor, axis, lower, upper, collide
    (5, 6, (1.5, 0.5, 1.25), (0, 1, 0), -0.5, 1.0, False),
    (6, 7, (1.8, 0.6, 1.3), (1, 1, 0), None, 0.2, True),
    (7, 8, (2.0, 0.7, 1.35), (0, 0, -1), -math.inf, None, False),
    (8, None, (2.2, 0.7, 1.4), (0.2, 0.9, 0.1), -0.1, -0.1, False),
]


def test_batches_of_joints_build_what_single_adds_build_and_step_the_same():
    slow, fast = lg.World(), lg.World()
    _limbs(slow)
    _limbs(fast)
    for a, b, p, t, s, s1, s2, (lo, hi), cc, bf in RAGDOLLS:
        slow.add_ragdoll(a, b, p, t, swing1=s1, swing2=s2, twist_lower=lo, twist_upper=hi,
                         swing_axis=s, collide_connected=cc, break_force=bf)
    for a, b, p, axis, lo, hi, cc in HINGES:
        slow.add_hinge(a, b, p, axis, lower=lo, upper=hi, collide_connected=cc)
    slow.add_ball_socket(3, 8, (1.0, 0.5, 1.3), break_torque=20.0)
    # the ragdolls in two batches: with and without swing axes
    cols = list(zip(*RAGDOLLS))
    for rows in ((0, 3), (1, 2)):
        pick = [[c[i] for i in rows] for c in cols]
        a, b, p, t, s, s1, s2, lims, cc, bf = pick
        got = fast.add_ragdolls(a, b, p, t, swing1=s1, swing2=s2,
                                twist_lower=[x[0] for x in lims],
                                twist_upper=[x[1] for x in lims],
                                swing_axes=None if rows == (0, 3) else s,
                                collide_connected=cc, break_force=bf)
        assert len(got) == 2
    # fast has ragdolls 0, 3, 1, 2: build slow's in that order instead
    slow = _reordered(slow)
    a, b, p, axis, lo, hi, cc = zip(*HINGES)
    fast.add_hinges(a, b, p, axis, lower=list(lo), upper=list(hi), collide_connected=cc)
    assert list(fast.add_ball_sockets([3], [8], [(1.0, 0.5, 1.3)], break_torque=20.0)) == [8]
    x, y = _joint_tables(slow), _joint_tables(fast)
    for name in x:
        assert np.array_equal(x[name], y[name]), name
    start = fast.positions.copy()
    for _ in range(90):
        slow.step(1 / 60)
        fast.step(1 / 60)
    assert np.array_equal(slow.positions, fast.positions)
    assert np.array_equal(slow.orientations, fast.orientations)
    # and they did move: the limbs swing from the world (joints to None) under gravity
    assert np.linalg.norm(fast.positions - start, axis=1).max() > 0.1


def _reordered(_):
    """The slow world again with its ragdolls added in the order 0, 3, 1, 2."""
    w = lg.World()
    _limbs(w)
    for k in (0, 3, 1, 2):
        a, b, p, t, s, s1, s2, (lo, hi), cc, bf = RAGDOLLS[k]
        w.add_ragdoll(a, b, p, t, swing1=s1, swing2=s2, twist_lower=lo, twist_upper=hi,
                      swing_axis=s, collide_connected=cc, break_force=bf)
    for a, b, p, axis, lo, hi, cc in HINGES:
        w.add_hinge(a, b, p, axis, lower=lo, upper=hi, collide_connected=cc)
    w.add_ball_socket(3, 8, (1.0, 0.5, 1.3), break_torque=20.0)
    return w


@pytest.mark.parametrize("named, call", [
    ("row 1: a joint needs two different bodies",
     lambda w: w.add_ragdolls([1, 2], [2, 2], [(0, 0, 1)] * 2, (0, 0, 1))),
    ("b of row 0 must be a body id", lambda w: w.add_hinges([1], [99], [(0, 0, 1)], (0, 1, 0))),
    ("anchors of row 1 must be finite",
     lambda w: w.add_ball_sockets([1, 2], [2, 3], [(0, 0, 1), (NAN, 0, 0)])),
    ("axes of row 0 must not be zero", lambda w: w.add_hinges([1], [2], [(0, 0, 1)], [(0, 0, 0)])),
    ("lower of row 1 .0.5. must not be greater than upper",
     lambda w: w.add_hinges([1, 2], [2, 3], [(0, 0, 1)] * 2, (0, 1, 0), lower=[0, 0.5],
                            upper=[1, 0.2])),
    ("swing2 of row 0 must be below pi",
     lambda w: w.add_ragdolls([1], [2], [(0, 0, 1)], (0, 0, 1), swing2=3.5)),
    ("swing_axes of row 0 must not be parallel",
     lambda w: w.add_ragdolls([1], [2], [(0, 0, 1)], (0, 0, 1), swing_axes=[(0, 0, 2)])),
    ("twist_lower of row 0", lambda w: w.add_ragdolls([1], [2], [(0, 0, 1)], (0, 0, 1),
                                                     twist_lower=0.5, twist_upper=0.1)),
    ("break_force of row 0", lambda w: w.add_ball_sockets([1], [2], [(0, 0, 1)],
                                                          break_force=-1.0)),
])
def test_a_bad_joint_row_is_named_and_nothing_is_added(named, call):
    w = lg.World()
    _limbs(w)
    with pytest.raises(ValueError, match=named):
        call(w)
    assert w.joint_count == 0 and all(len(t) == 0 for t in _joint_tables(w).values())


@pytest.mark.parametrize("call", [
    lambda w: w.add_hinge(1, 2, (0, 0, 1), (0, 1, 0), lower=0.5, upper=-0.5),
    lambda w: w.add_hinge(1, 2, (0, 0, 1), (0, 1, 0), motor_speed=1.0, max_motor_torque=-1.0),
    lambda w: w.add_prismatic(1, 2, (0, 0, 1), (0, 1, 0), spring_hz=-2.0),
    lambda w: w.add_distance(1, 2, (0, 0, 1), (0, 0, 1)),
    lambda w: w.add_line(1, 2, (0, 0, 1), (1, 0, 0), lower=1.0, upper=0.0),
    lambda w: w.add_path(1, (0, 0, 1), [(0, 0, 1), (1, 0, 1)], motor_speed=NAN),
])
def test_a_joint_refused_after_its_row_was_added_leaves_nothing_behind(call):
    # the range, motor or spring are checked once the joint exists: the call that raises
    # takes its rows back, so the world steps as if it had not been made
    w, clean = lg.World(), lg.World()
    _limbs(w)
    _limbs(clean)
    before = _joint_tables(w)
    with pytest.raises(ValueError):
        call(w)
    assert w.joint_count == 0 and w._jpts.n == 0
    for name, table in _joint_tables(w).items():
        assert np.array_equal(table, before[name]), name
    w.add_ball_socket(1, 2, (0, 0, 1))
    clean.add_ball_socket(1, 2, (0, 0, 1))
    for _ in range(30):
        w.step(1 / 60)
        clean.step(1 / 60)
    assert np.array_equal(w.positions, clean.positions)


def test_joint_anchors_are_where_the_joints_were_made_and_follow_their_bodies():
    w = lg.World()
    _limbs(w)
    w.add_ball_socket(1, 2, (0.15, 0.05, 1.0))
    w.add_hinge(None, 3, (0.6, 0.2, 1.1), (0, 1, 0))
    w.add_distance(4, 5, (0.9, 0.3, 1.2), (1.3, 0.4, 1.3))
    at = w.joint_anchors()
    assert at.shape == (3, 2, 3)
    assert np.allclose(at[0], [(0.15, 0.05, 1.0)] * 2, atol=1e-12)
    assert np.allclose(at[1], [(0.6, 0.2, 1.1)] * 2, atol=1e-12)
    assert np.allclose(at[2], [(0.9, 0.3, 1.2), (1.3, 0.4, 1.3)], atol=1e-12)
    for _ in range(30):
        w.step(1 / 60)
    at = w.joint_anchors()
    # the ball's two anchors still meet (the joint holds) while its bodies fell; the hinge's
    # world side stays put; each anchor is a fixed point of its body: its distance to the
    # body's centre is what it was
    assert np.linalg.norm(at[0, 0] - at[0, 1]) < 1e-3
    assert at[0, 0, 2] < 1.0 - 0.05
    assert np.allclose(at[1, 0], (0.6, 0.2, 1.1)) and np.linalg.norm(at[1, 1] - at[1, 0]) < 1e-3
    p0 = np.array((0.15, 0.05, 1.0)) - np.array((0.3, 0.1, 1.05))
    assert abs(np.linalg.norm(at[0, 1] - w.positions[2]) - np.linalg.norm(p0)) < 1e-9
