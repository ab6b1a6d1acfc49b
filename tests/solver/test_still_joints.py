"""Joints that lie still between substeps: what any schedule that prepares an articulation
island's joint rows fewer times a substep (issue 44 item 2) must keep. The joints' hold at
rest and on the way there, limits pressed at rest, rigid joints (joint_hertz = 0: no soft
bias rate), a hanging limb's joint force, the same result at any thread count, and a crowd
of ragdolls coming to rest (the check that a schedule keeping joint rows across substeps,
tried 2026-11-29, failed: docs/performance.md, "Joint rows kept across substeps")."""

import math
import os
import sys

import numpy as np
import pytest
import solver as lg
from probes import FRAME, G, Anchor, note, qconj, qmul, separation, twist_angle

BENCH = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "bench")
if BENCH not in sys.path:
    sys.path.insert(0, BENCH)

import scenes  # noqa: E402  (bench/scenes.py: the benchmarks' ragdolls)
from contacts import GRAVITY, populate  # noqa: E402  (bench/contacts.py: a scene into a World)


def _limb(w, x0, y0, links=5, pressed=False):
    """Capsules along x joined alternately by ball sockets, limited hinges and ragdoll
    joints; `pressed`: the hinges' and ragdolls' ranges start beyond the pose, so the
    limbs lie with those limits pushing. Returns the bodies and the anchor pairs."""
    radius, half = 0.04, 0.12
    step = 2 * (radius + half)
    bodies = [w.add_body(lg.Capsule(radius, half), (x0 + k * step, y0, 0.3),
                         (math.cos(math.pi / 4), 0, math.sin(math.pi / 4), 0), mass=1.0 + k)
              for k in range(links)]
    ends = []
    for k in range(links - 1):
        a, b = bodies[k], bodies[k + 1]
        anchor = (x0 + (k + 0.5) * step, y0, 0.3)
        if k % 3 == 0:
            w.add_ball_socket(a, b, anchor)
        elif k % 3 == 1:
            lo, hi = (0.3, 0.6) if pressed else (-0.6, 0.6)
            w.add_hinge(a, b, anchor, (0, 1, 0), lower=lo, upper=hi)
        else:
            lo, hi = (0.2, 0.4) if pressed else (-0.2, 0.2)
            w.add_ragdoll(a, b, anchor, (1, 0, 0), swing1=0.5, swing2=0.3, twist_lower=lo,
                          twist_upper=hi)
        ends.append((Anchor(w, a, anchor), Anchor(w, b, anchor)))
    return bodies, ends


def _ground(w):
    w.add_body(lg.Box((8, 8, 0.5)), (0, 0, -0.5), kind="static")


def _gaps(w, frames, ends):
    """The largest joint gap over the frames, and over their last third (at rest)."""
    every = rest = 0.0
    for f in range(frames):
        w.step(FRAME)
        gap = max(separation(a, b) for a, b in ends)
        every = max(every, gap)
        if f >= 2 * frames // 3:
            rest = max(rest, gap)
    return every, rest


def test_limbs_pressing_their_limits_at_rest_keep_joints_and_limits():
    # the limits start violated, so the projection runs until they are met; then the limb
    # lies with them pressed
    w = lg.World(gravity=(0, 0, -G), sleeping=False)
    _ground(w)
    bodies, ends = _limb(w, 0.0, 0.0, pressed=True)
    every, rest = _gaps(w, 180, ends)
    q = w.orientations
    # the hinge (bodies 1, 2: both start turned alike about y, its axis) turned into its
    # range [0.3, 0.6] rad, whichever way the joint counts its angle
    hinge = abs(twist_angle(qmul(qconj(q[bodies[1]]), q[bodies[2]]), (0.0, 1.0, 0.0)))
    note("pressed limbs: largest joint gap at rest (m)", rest, "< 1e-7")
    note("pressed limbs: the hinge's angle at rest (rad)", hinge, "in [0.3, 0.6]")
    assert rest < 1e-7, f"a joint opened {1e3 * rest:.6f} mm at rest"
    assert float(np.abs(w.linear_velocities[bodies]).max()) < 0.05
    assert 0.3 - 1e-6 <= hinge <= 0.6 + 1e-6, f"the hinge lies at {hinge:.7f} rad"


def test_rigid_joints_without_a_bias_rate_hold_at_rest():
    # joint_hertz = 0: the solve pass's rows carry no position bias at all; the projection
    # alone holds the joints
    w = lg.World(gravity=(0, 0, -G), sleeping=False, joint_hertz=0.0)
    _ground(w)
    bodies, ends = _limb(w, 0.0, 0.0)
    w.apply_impulse(bodies[-1], (0, 1.0, 2.0))
    every, rest = _gaps(w, 180, ends)
    note("rigid joints: largest joint gap (m)", every, "< 1e-7")
    assert every < 1e-7, f"a joint opened {1e3 * every:.6f} mm"


def test_a_hanging_limb_reports_the_weight_its_joint_carries():
    # a limb hanging straight down from a fixed point (ball socket, limited hinge, ragdoll
    # joint, ball socket), still: the top socket carries the limb's weight (statics)
    w = lg.World(gravity=(0, 0, -G), sleeping=False)
    radius, half = 0.04, 0.12
    step = 2 * (radius + half)
    bodies = [w.add_body(lg.Capsule(radius, half), (0, 0, -k * step), mass=1.0 + k)
              for k in range(4)]
    top = w.add_ball_socket(None, bodies[0], (0, 0, 0.5 * step))
    ends = []
    for k in range(3):
        a, b = bodies[k], bodies[k + 1]
        anchor = (0, 0, -(k + 0.5) * step)
        if k == 0:
            w.add_hinge(a, b, anchor, (0, 1, 0), lower=-0.6, upper=0.6)
        elif k == 1:
            w.add_ragdoll(a, b, anchor, (0, 0, -1), swing1=0.5, swing2=0.3, twist_lower=-0.2,
                          twist_upper=0.2)
        else:
            w.add_ball_socket(a, b, anchor)
        ends.append((Anchor(w, a, anchor), Anchor(w, b, anchor)))
    every, rest = _gaps(w, 240, ends)
    weight = G * sum(1.0 + k for k in range(4))
    force = float(np.linalg.norm(w.joint_impulse(top)[0])) / FRAME
    note("hanging limb: the top socket's force / the limb's weight", force / weight, "1 +- 1e-6")
    note("hanging limb: largest joint gap (m)", every, "< 1e-7")
    assert abs(force / weight - 1.0) < 1e-6, f"{force:.6f} N against a weight of {weight:.6f} N"
    assert every < 1e-7, f"a joint opened {1e3 * every:.6f} mm"


def _crowd(threads):
    w = lg.World(gravity=(0, 0, -G), sleeping=False, threads=threads)
    _ground(w)
    limbs = [_limb(w, 2.0 * (k % 3) - 2.0, 1.5 * (k // 3) - 1.0, pressed=k % 2 == 1)
             for k in range(6)]
    w.apply_impulse(limbs[0][0][-1], (0, 1.0, 2.0))
    return w


def test_limbs_lying_still_are_bit_identical_at_one_and_two_threads():
    w1, w2 = _crowd(1), _crowd(2)
    for f in range(150):
        w1.step(FRAME)
        w2.step(FRAME)
    for a1, a2 in ((w1.positions, w2.positions), (w1.orientations, w2.orientations),
                   (w1.linear_velocities, w2.linear_velocities),
                   (w1.angular_velocities, w2.angular_velocities)):
        assert np.array_equal(a1, a2)


@pytest.mark.slow          # about a minute: 20 ragdolls, 6 s
def test_a_crowd_of_ragdolls_comes_to_rest():
    # bench/scenes.py's 20 ragdolls dropped on the floor at World() defaults, awake, each body
    # with the damping the add-on gives it by default (Blender's rigid body defaults: linear
    # 0.04, angular 0.1): after 5 s every body is still. Without damping a limb left hanging
    # clear swings on as a frictionless pendulum, and which one is left hanging is the
    # landing's chaos: on a CPU whose libm and BLAS round differently in the last bit
    # (docs/testing.md, "One arithmetic"), ragdoll 13's head hung from its chest lying on a
    # neighbour and swung on its neck at 0.3-0.7 m/s through frames 300-900, losing a third of
    # its energy over those 10 s (0.715 m/s over frames 300-360, 0.19 with the damping). A
    # schedule that kept joint rows across substeps left one arm swinging at 0.9-1.4 m/s
    # through these frames, in every such run (2026-11-29, undamped).
    scene = scenes.ragdolls(20)
    w = lg.World(gravity=GRAVITY, sleeping=False, threads=1)
    populate(w, scene, linear_damping=0.04, angular_damping=0.1)
    fastest = 0.0
    for f in range(360):
        w.step(FRAME)
        if f >= 300:
            fastest = max(fastest, float(np.linalg.norm(w.linear_velocities, axis=1).max()))
    note("20 ragdolls, damped as the add-on's: the fastest body over frames 300-360 (m/s)",
         fastest, "< 0.5")
    assert fastest < 0.5, f"a body still moves at {fastest:.3f} m/s after 5 s"
