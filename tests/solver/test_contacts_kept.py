"""Kept manifolds (contacts.py, `_keep_manifold`): a pair whose bodies barely moved relative to
each other since the narrowphase found its points keeps them. What it keeps must be what the
narrowphase would find now, and a body that moves on must get fresh points.
"""

import math

import numpy as np

import solver as lg
from probes import FRAME, G, qaxis_angle, qmat, qmul, rotation_angle
from solver.contacts import P0, POSE, ContactState


def settled_scene():
    w = lg.World(gravity=(0, 0, -G), sleeping=False)
    w.add_body(lg.Plane(), (0, 0, 0), kind="static")
    for row in range(3):                                  # a three-row pyramid of boxes
        for j in range(3 - row):
            w.add_body(lg.Box((0.25, 0.25, 0.25)),
                       ((j - (2 - row) / 2.0) * 0.5, 0, 0.25 + 0.5 * row))
    w.add_body(lg.Box((0.4, 0.4, 0.1)), (3, 0, 0.1))       # a capsule lying on a slab
    w.add_body(lg.Capsule(0.1, 0.2), (3, 0, 0.3), orientation=(math.cos(math.pi / 4), 0,
                                                               math.sin(math.pi / 4), 0))
    w.add_body(lg.Sphere(0.2), (-3, 0, 0.2))
    w.add_body(lg.ConvexHull(np.array([[x, y, z] for x in (-0.2, 0.2) for y in (-0.3, 0.3)
                                        for z in (-0.1, 0.1)])), (0, 3, 0.1))
    for _ in range(120):
        w.step(FRAME)
    return w


def manifolds(c):
    """Per pair: (normal, sorted separations) of the current table."""
    out = {}
    for m in range(c.n):
        a, b, cnt = (int(x) for x in c.mi[m, 0:3])
        seps = sorted(c.mf[m, P0 + 8 * k + 6] for k in range(cnt))
        out[(a, b)] = (c.mf[m, 0:3].copy(), np.array(seps))
    return out


def relative_pose_now(w, a, b):
    """B's position in A's frame, from the public poses."""
    return qmat(w.orientations[a]).T @ (w.positions[b] - w.positions[a])


def nudge(w, body, shift, turn_deg, axis):
    """Move a body by `shift` and turn it about `axis` through its centre (inside KEEP_SHIFT
    and KEEP_TURN, so its pairs keep their points)."""
    bs = w._bs.view
    bs[body, 0:3] += shift
    bs[body, 3:7] = qmul(qaxis_angle(axis, math.radians(turn_deg)), bs[body, 3:7].copy())


def test_kept_manifolds_are_what_the_narrowphase_finds_at_rest():
    w = settled_scene()
    # each dynamic body a little off its rest pose: the kept points must follow it
    for i, body in enumerate(range(1, w.body_count)):
        nudge(w, body, (0.0001 * (i % 3 - 1), 0.0001, -0.0003 + 0.0001 * (i % 4)),
              0.03 + 0.01 * (i % 3), (1.0, 0.5 * i, 0.3))
    w._collide(FRAME)                     # this pose's manifolds, kept where the pair rested
    kept = manifolds(w._contacts)
    c = w._contacts
    # the points of most pairs were found frames ago: their recorded pose is not this one
    # (it is within KEEP_SHIFT of it)
    older = sum(1 for m in range(c.n) if np.linalg.norm(
        c.mf[m, POSE:POSE + 3] - relative_pose_now(w, c.mi[m, 0], c.mi[m, 1])) > 1e-9)
    assert older >= c.n // 2, (older, c.n)
    w._contacts = ContactState(*c.params[[0, 1, 2, 3, 5]])    # no old manifolds: all fresh
    w._collide(FRAME)
    fresh = manifolds(w._contacts)
    assert kept.keys() == fresh.keys()
    for pair, (n_fresh, s_fresh) in fresh.items():
        n_kept, s_kept = kept[pair]
        assert np.dot(n_fresh, n_kept) > math.cos(math.radians(0.5)), (pair, n_fresh, n_kept)
        assert len(s_kept) == len(s_fresh), (pair, s_kept, s_fresh)
        assert np.max(np.abs(s_kept - s_fresh)) < 1e-4, (pair, s_kept, s_fresh)


def test_box_sliding_slowly_off_a_table_tips_once_its_centre_passes_the_edge():
    # 3 cm/s on a frictionless table: half a millimetre a frame, under KEEP_SHIFT, so its
    # points are kept for a frame or two at a time while the patch shrinks at the edge.
    # Past the edge by d = v t, the box turns about the edge under m g d: I theta'' = m g v t,
    # theta = m g v t^3 / (6 I) (I about the edge, small angles): it reaches one degree at
    # x = v t1. Support kept too long (stale points past the edge) tips it centimetres late.
    v, half = 0.03, 0.1
    w = lg.World(gravity=(0, 0, -G), sleeping=False)
    w.add_body(lg.Box((1.0, 1.0, 0.5)), (-1.0, 0, 0.5), kind="static", friction=0.0)
    box = w.add_body(lg.Box((half, half, half)), (-0.12, 0, 1.0 + half), friction=0.0,
                     linear_velocity=(v, 0, 0))
    i_edge = (2 * half) ** 2 / 6.0 + 2 * half * half           # per unit mass
    t1 = (6.0 * i_edge * math.radians(1.0) / (G * v)) ** (1.0 / 3.0)
    tipped_at = None
    for _ in range(300):
        w.step(FRAME)
        x = w.positions[box, 0]
        tilt = math.degrees(rotation_angle(w.orientations[box]))
        if x < -0.002:
            assert tilt < 0.2, (x, tilt)                   # supported: it must stay flat
        if tipped_at is None and tilt > 1.0:
            tipped_at = x
    assert tipped_at is not None and 0.0 < tipped_at < 2.0 * v * t1, (tipped_at, v * t1)
    assert w.positions[box, 2] < 1.0 - half, w.positions[box]     # and it fell off
