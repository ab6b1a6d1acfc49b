"""Islands stepped in parallel threads give bit-identical results at any thread count."""

import math

import numpy as np
import pytest

import os
import sys

import solver as lg
from probes import FRAME

BENCH = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "bench")
if BENCH not in sys.path:
    sys.path.insert(0, BENCH)

import scenes  # noqa: E402  (bench/scenes.py: the benchmarks' crowd of ragdolls)
from contacts import GRAVITY, populate  # noqa: E402


def _world(threads, **settings):
    """Several independent islands: jointed chains swinging into a wall of boxes, a stack, a
    kinematic paddle that touches two stacks (one island through it), a custom constraint, a
    lone box that falls asleep, a pulley over a swinging carrier (a joint over three bodies)."""
    w = lg.World(gravity=(0, 0, -9.81), threads=threads, **settings)
    w.add_body(lg.Box((20, 20, 0.5)), (0, 0, -0.5), kind="static")
    rng = np.random.default_rng(3)
    for c in range(4):
        x = 3.0 * c
        prev = None
        for k in range(5):
            b = w.add_body(lg.Capsule(0.05, 0.15), (x, 0.4 * k + 0.2, 2.0), mass=1.0 + k,
                           angular_velocity=rng.normal(size=3))
            anchor = (x, 0.4 * k, 2.0)
            if k % 2:
                w.add_hinge(prev, b, anchor, (1, 0, 0), lower=-1.0, upper=1.0)
            else:
                w.add_ragdoll(prev, b, anchor, (0, 1, 0), twist_lower=-0.3, twist_upper=0.3)
            prev = b
        for k in range(3):
            w.add_body(lg.Box((0.2, 0.2, 0.2)), (x, 1.2, 0.2 + 0.4 * k), mass=2.0)
    paddle = w.add_body(lg.Box((1.0, 0.1, 0.1)), (-4.0, 0.0, 0.6), kind="kinematic")
    for x in (-4.8, -3.2):
        for k in range(2):
            w.add_body(lg.Box((0.15, 0.15, 0.15)), (x, 0.3, 0.15 + 0.3 * k), mass=1.0)
    a = w.add_body(lg.Sphere(0.1), (6.0, -3.0, 1.5), mass=1.0)
    b = w.add_body(lg.Sphere(0.1), (6.5, -3.0, 1.5), mass=1.0)
    w.add_custom([a, b], "length(pA - pB) - 0.5")
    w.add_ball_socket(None, a, (6.0, -3.0, 2.0))
    w.add_body(lg.Box((0.3, 0.3, 0.3)), (-6.0, -4.0, 0.3), mass=5.0)
    # a pulley whose wheels sit on a swinging carrier: one island over three bodies
    carrier = w.add_body(lg.Box((0.4, 0.1, 0.1)), (-6.0, 3.0, 3.0), mass=0.5)
    w.add_hinge(None, carrier, (-6.0, 3.0, 3.0), (0, 1, 0))
    wa = w.add_body(lg.Sphere(0.1), (-6.3, 3.0, 2.0), mass=2.0)
    wb = w.add_body(lg.Sphere(0.1), (-5.7, 3.0, 2.2), mass=1.0)
    w.add_pulley(wa, wb, (-6.3, 3.0, 2.0), (-5.7, 3.0, 2.2), (-6.3, 3.0, 3.0), (-5.7, 3.0, 3.0),
                 fixed_bodies=(carrier, carrier))
    return w, paddle


def _run(threads, frames=150):
    w, paddle = _world(threads)
    states = []
    for f in range(frames):
        t = (f + 1) * FRAME
        w.set_kinematic_target(paddle, (-4.0 + 0.8 * math.sin(2 * t), 0.0, 0.6), (1, 0, 0, 0))
        w.step(FRAME)
        states.append((w.positions.copy(), w.orientations.copy(),
                       w.linear_velocities.copy(), w.angular_velocities.copy()))
    return w, states


def test_one_and_two_threads_bit_identical():
    w1, one = _run(1)
    w2, two = _run(2)
    assert w2.threads == 2
    moved = np.linalg.norm(one[-1][0] - one[0][0], axis=1)
    assert (moved > 0.05).sum() >= 20             # the scene does move
    assert any(w1.is_sleeping(b) for b in range(w1.body_count))   # and some of it sleeps
    for f, (s1, s2) in enumerate(zip(one, two)):
        for a1, a2 in zip(s1, s2):
            assert np.array_equal(a1, a2), f"frame {f} differs between 1 and 2 threads"
    for j in range(11):
        assert np.array_equal(w1.joint_impulse(j)[0], w2.joint_impulse(j)[0])


def test_more_threads_than_islands_and_cores():
    _, one = _run(1, 40)
    _, many = _run(7, 40)
    for s1, s2 in zip(one[-1], many[-1]):
        assert np.array_equal(s1, s2)


def _rolling_run(pendulum, frames=120):
    """A capsule rolling and turning on the floor with rolling friction (its world inertia
    changes as it turns), alone or beside a pendulum (an island of its own, with a joint)."""
    w = lg.World(gravity=(0, 0, -9.81), threads=1, sleeping=False)
    w.add_body(lg.Box((20, 20, 0.5)), (0, 0, -0.5), kind="static", rolling_friction=0.3)
    half = math.sqrt(0.5)
    roller = w.add_body(lg.Capsule(0.1, 0.6), (0, 0, 0.1), orientation=(half, 0, half, 0),
                        mass=1.0, rolling_friction=0.3, friction=0.8,
                        linear_velocity=(0, 1.0, 0), angular_velocity=(-10, 0, 2))
    if pendulum:
        bob = w.add_body(lg.Box((0.1, 0.1, 0.1)), (5, 5, 3), mass=1.0)
        w.add_ball_socket(bob, None, (5, 5, 4))
    start = w.positions[roller].copy()
    for _ in range(frames):
        w.step(FRAME)
    return start, w.positions[roller].copy(), w.orientations[roller].copy()


def test_an_island_rolls_the_same_beside_a_jointed_one():
    # islands share a batch (one thread) or not (another thread count) and must not feel it.
    # The rolling rows read the world inertia: a batch with joints renewed it every substep
    # for all of its bodies, one without kept the frame's first, so a rolling body beside
    # an unrelated pendulum moved 3.8 um differently after 2 s. Only the joints' bodies
    # renew it now.
    start, p1, q1 = _rolling_run(False)
    _, p2, q2 = _rolling_run(True)
    assert np.linalg.norm(p1 - start) > 0.05          # it rolls
    assert np.array_equal(p1, p2) and np.array_equal(q1, q2)


def _shares(w):
    """How many threads' shares islands.partition cuts this frame's islands into."""
    B, J, R, K = w._kernel_args()
    return int(w._partition(B, J, K, w._collide(FRAME), w.threads)[7].max()) + 1


def test_little_work_stays_on_one_thread():
    # a worker thread costs 0.1-0.2 ms to hand a share to: two pendulums stay on this one
    w = lg.World(gravity=(0, 0, -9.81), threads=2)
    for x in (0.0, 3.0):
        bob = w.add_body(lg.Box((0.1, 0.1, 0.1)), (x, 0, 3), mass=1.0)
        w.add_ball_socket(bob, None, (x, 0, 4))
    w.step(FRAME)
    assert _shares(w) == 1
    # four chains, stacks and more: two shares, with the chains at 8 substeps (at the default
    # jointed 4 their work is half and this frame's islands fit one share)
    big, _ = _world(2, jointed_substeps=8)
    big.step(FRAME)
    assert _shares(big) == 2


def test_threads_argument():
    assert lg.World().threads >= 1
    w = lg.World(threads=3)
    assert w.threads == 3
    w.threads = None
    assert w.threads >= 1
    for bad in (0, -1, 1.5, "2", True):
        with pytest.raises(ValueError, match="threads"):
            lg.World(threads=bad)


def _pile_run(threads, frames=150, count_pairs=True):
    """A 12-row pyramid of boxes, hit late by a heavy ball, beside a box row that sleeps:
    enough pairs for the narrowphase to be shared out among threads, and sleeping pairs
    whose manifolds are carried over after the shared-out ones. The most pairs touching in
    a frame is counted from the contact report (read-only, and most of the run's time in
    Python: 0 unless `count_pairs`)."""
    w = lg.World(gravity=(0, 0, -9.81), threads=threads)
    w.add_body(lg.Box((30, 30, 0.5)), (0, 0, -0.5), kind="static")
    for i in range(12):
        for j in range(12 - i):
            w.add_body(lg.Box((0.25, 0.25, 0.25)), ((j - (11 - i) / 2) * 0.5, 0, 0.25 + 0.5 * i),
                       mass=1.0)
    for k in range(6):
        w.add_body(lg.Box((0.2, 0.2, 0.2)), (8.0 + 0.5 * k, 5.0, 0.2), mass=1.0)
    ball = w.add_body(lg.Sphere(0.3), (-12.0, 0.0, 1.5), mass=20.0)
    w.set_kind(ball, "kinematic")
    states, pairs, slept, runs = [], 0, False, 1
    for f in range(frames):
        if f == 60:
            w.set_kind(ball, "dynamic")
            w.linear_velocities[ball] = (12.0, 0.0, 0.0)
        w.step(FRAME)
        if count_pairs:
            pairs = max(pairs, len({tuple(p) for p in w.contacts()["bodies"]}))
        runs = max(runs, w._contacts.runs)
        slept = slept or w.is_sleeping(w.body_count - 2)
        states.append((w.positions.copy(), w.orientations.copy(),
                       w.linear_velocities.copy(), w.angular_velocities.copy()))
    return states, pairs, slept, runs


@pytest.mark.slow
def test_narrowphase_shared_among_threads_is_bit_identical():
    from solver.contacts import MIN_PAIRS_PER_THREAD
    one, pairs, slept, _ = _pile_run(1)
    assert pairs >= 2 * MIN_PAIRS_PER_THREAD, "too few pairs to share the narrowphase out"
    assert slept, "the box row should fall asleep (its manifolds parked)"
    hit = np.linalg.norm(one[-1][0] - one[59][0], axis=1)
    assert (hit > 0.1).sum() >= 10, "the ball should scatter the pyramid"
    for threads in (2, 3):
        other, _, _, runs = _pile_run(threads, count_pairs=False)
        # shared out while the pile falls and scatters (resting pairs keep their manifolds,
        # and a narrowphase with little fresh work stays on one thread)
        assert runs == threads, (runs, threads)
        for f, (s1, s2) in enumerate(zip(one, other)):
            for a1, a2 in zip(s1, s2):
                assert np.array_equal(a1, a2), f"frame {f} differs between 1 and {threads} threads"


def _crowd_run(threads, frames=60):
    """bench/scenes.py's 20 ragdolls at World() defaults: per frame the bodies' poses."""
    s = scenes.ragdolls(20)
    w = lg.World(gravity=GRAVITY, sleeping=False, threads=threads)
    populate(w, s)
    poses = []
    for _ in range(frames):
        w.step(FRAME)
        poses.append(np.concatenate([w.positions, w.orientations, w.linear_velocities],
                                    axis=1))
    return poses


def test_a_landing_crowd_is_bit_identical_at_any_thread_count():
    # Landing, some ragdolls of a batch take the projection's further Newton steps and the
    # others not; those steps factored every island of the batch again, and one whose own
    # projection had moved it a little past REUSE_TURN since its kept factoring was
    # factored anew: its result hung on the batch it was in (1 and 2 threads parted on
    # frame 33). They factor only the islands that take them (direct.factor_islands' which)
    one = _crowd_run(1)
    for threads in (2, 3):
        other = _crowd_run(threads)
        for f, (a, b) in enumerate(zip(one, other)):
            assert np.array_equal(a, b), f"frame {f + 1} differs between 1 and {threads} threads"
