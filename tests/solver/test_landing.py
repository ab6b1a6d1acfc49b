"""Landings on light end bodies: a contact under a foot that carries a body many times its
mass is solved with the foot's joints (direct.py), so the whole body stops at once instead of
the joints pulling the foot through the floor (the landing dip)."""

import os
import sys

import numpy as np

import solver as lg
from probes import FRAME, G, note

BENCH = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "bench")
if BENCH not in sys.path:
    sys.path.insert(0, BENCH)

import landing  # noqa: E402  (bench/landing.py: the 70 kg ragdoll drop)
import scenes  # noqa: E402


def _foot_and_load(light, heavy, drop):
    """A light 20 cm box (the foot) with a heavy one welded above it (a fixed joint: a ball
    socket would let the load topple), both falling from `drop` m above a static floor."""
    w = lg.World(sleeping=False)
    w.add_body(lg.Box((5, 5, 0.5)), (0, 0, -0.5), kind="static")
    foot = w.add_body(lg.Box((0.1, 0.1, 0.1)), (0, 0, 0.1 + drop), mass=light)
    load = w.add_body(lg.Box((0.1, 0.1, 0.1)), (0, 0, 0.4 + drop), mass=heavy)
    w.add_fixed(foot, load, (0, 0, 0.25 + drop))
    return w, foot, load


def test_a_60_kg_load_on_a_1_kg_foot_stops_when_the_foot_lands():
    # Dropped 0.2 m, both land at sqrt(2 g 0.2) = 2 m/s. Perfectly inelastic: after the
    # landing frame the pair rests (no bounce, no sink beyond the soft contact's own).
    light, heavy, drop = 1.0, 60.0, 0.2
    w, foot, load = _foot_and_load(light, heavy, drop)
    lowest, up, landed = np.inf, 0.0, None
    for f in range(90):
        w.step(FRAME)
        bottom = w.positions[foot][2] - 0.1
        lowest = min(lowest, bottom)
        if landed is None and bottom < 1e-3:
            landed = f
        if landed is not None and f > landed:
            up = max(up, float(np.abs(w.linear_velocities[[foot, load], 2]).max()))
    note("foot's deepest point below the floor (mm)", -1e3 * lowest, "< 5")
    note("fastest vertical speed after landing (m/s)", up, "< 0.05 (landed at 2 m/s)")
    assert landed is not None, "the foot never reached the floor"
    assert lowest > -5e-3, f"the foot sank {-1e3 * lowest:.1f} mm into the floor"
    assert up < 0.05, f"the pair still moves at {up:.3f} m/s after landing (bounce or sink)"
    # resting: the floor carries both weights
    assert abs(w.positions[load][2] - 0.4) < 5e-3


def test_a_70_kg_ragdoll_dropped_feet_first_from_1_m_dips_under_2_cm():
    s = landing.scene()
    assert abs(sum(b.mass for b in s.bodies) - 70.0) < 1e-9
    low, when, pelvis, _ = landing.run({}, 120)
    note("lowest surface point of the ragdoll (cm)", 100 * low, ">= -2")
    assert low >= -0.02, f"the ragdoll sank {-100 * low:.2f} cm into the floor at frame {when}"
    assert pelvis > 0.0, "the pelvis ended below the floor"
