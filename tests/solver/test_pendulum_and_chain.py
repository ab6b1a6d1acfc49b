"""Pendulum period against the physical-pendulum formula; chains with a heavy end mass."""

import math

import numpy as np
import pytest

import solver as lg
from probes import FRAME, G, Anchor, note, period_from_crossings, relative, separation


def test_pendulum_period_matches_physical_pendulum():
    # A sphere bob hung 1 m below a ball-socket: a physical pendulum with
    # I_pivot = m (L^2 + 2/5 r^2), T0 = 2 pi sqrt(I / (m g L)), and the finite-amplitude
    # series T = T0 (1 + theta0^2 / 16 + 11 theta0^4 / 3072).
    length, radius, mass = 1.0, 0.1, 1.0
    theta0 = math.radians(5.0)
    pivot = np.array([0.0, 0.0, 2.0])
    w = lg.World(gravity=(0, 0, -G))
    bob = w.add_body(lg.Sphere(radius), pivot + length * np.array([math.sin(theta0), 0.0,
                                                                   -math.cos(theta0)]),
                     mass=mass)
    w.add_ball_socket(None, bob, pivot)

    inertia = mass * (length ** 2 + 0.4 * radius ** 2)
    t0 = 2 * math.pi * math.sqrt(inertia / (mass * G * length))
    expected = t0 * (1 + theta0 ** 2 / 16 + 11 * theta0 ** 4 / 3072)

    times, xs = [0.0], [w.positions[bob, 0] - pivot[0]]
    for _ in range(int(5.2 * expected / FRAME)):
        w.step(FRAME)
        times.append(w.time)
        xs.append(w.positions[bob, 0] - pivot[0])
    period = period_from_crossings(times, xs)
    note("pendulum period (s)", period, f"{expected:.5f} within 0.5 %")
    assert relative(period, expected) < 0.005, \
        f"period {period:.5f} s vs physical pendulum {expected:.5f} s " \
        f"({100 * relative(period, expected):.3f} %, allowed 0.5 %)"


def _heavy_chain(ball_mass, links=20, link_mass=0.1, link_length=0.1):
    """`links` light boxes in a row along +x from a world pivot, a heavy ball at the end,
    all joined by ball-sockets and released horizontally. Returns (world, anchor pairs)."""
    w = lg.World(gravity=(0, 0, -G))
    half = 0.5 * link_length
    prev, pairs = None, []
    for i in range(links):
        body = w.add_body(lg.Box((half, 0.01, 0.01)), (link_length * i + half, 0.0, 0.0),
                          mass=link_mass)
        p = (link_length * i, 0.0, 0.0)
        w.add_ball_socket(prev, body, p)
        pairs.append((Anchor(w, prev, p), Anchor(w, body, p)))
        prev = body
    radius = 0.05
    end = link_length * links
    ball = w.add_body(lg.Sphere(radius), (end + radius, 0.0, 0.0), mass=ball_mass)
    w.add_ball_socket(prev, ball, (end, 0.0, 0.0))
    pairs.append((Anchor(w, prev, (end, 0, 0)), Anchor(w, ball, (end, 0, 0))))
    return w, pairs


def _worst_separation(w, pairs, seconds):
    worst = 0.0
    for _ in range(int(round(seconds / FRAME))):
        w.step(FRAME)
        worst = max(worst, max(separation(a, b) for a, b in pairs))
    return worst


def test_chain_with_100_to_1_end_mass_stays_joined_within_1_cm():
    w, pairs = _heavy_chain(ball_mass=10.0)
    worst = _worst_separation(w, pairs, 5.0)
    note("100:1 chain max joint separation (m)", worst, "< 0.01")
    assert worst < 0.01, f"max joint separation {100 * worst:.2f} cm over 5 s (allowed 1 cm)"


@pytest.mark.slow
def test_chain_with_1000_to_1_end_mass_does_not_blow_up():
    w, pairs = _heavy_chain(ball_mass=100.0)
    worst = _worst_separation(w, pairs, 5.0)
    note("1000:1 chain max joint separation (m)", worst, "< 0.10")
    assert np.all(np.isfinite(w.positions))
    assert worst < 0.10, f"max joint separation {100 * worst:.2f} cm over 5 s (allowed 10 cm)"
