"""Soak: a mixed scene run for a long time, looking for what only shows after thousands of
frames (a NaN, energy that creeps up, frames that get slower).

    .venv/py311/bin/python bench/soak.py                  # 10 000 frames at 60 fps
    .venv/py311/bin/python bench/soak.py --frames 2000

The scene (`build`): 96 moving bodies and 21 joints on a walled static floor with a
20-degree ramp: a
pile of boxes, spheres, capsules and cylinders dropped in a loose heap, a 10-link hinge
chain hanging from the world, a motorised wheel on a hinge, a pendulum on a rope, a
prismatic slider with limits and a spring, ragdoll cones in a 6-link chain, a kinematic
paddle sweeping the pile (a keyed motion, so the scene never fully sleeps), and a ball on a
distance joint. Prints, per block of 1000 frames, the ms/frame (median of the block), the
mechanical energy (kinetic + potential, J) of the dynamic bodies, the fastest body and
whether any value went non-finite. Asserts nothing: tests/solver/test_soak.py runs the
same scene for fewer frames and checks it.
"""

import argparse
import math
import os
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

import solver as lg  # noqa: E402

FRAME = 1.0 / 60.0
G = 9.81
PADDLE_PERIOD = 4.0      # s: one sweep of the kinematic paddle, there and back
# the joints (by id) whose two anchors coincide: the hinge chain, the wheel's hinge and the
# ragdoll cones (the rope, slider, distance joint and motor keep theirs apart)
PINNED = list(range(0, 11)) + list(range(13, 19))


def build():
    """(world, dynamic body ids, the paddle's body id) of the soak scene."""
    w = lg.World()
    w.add_body(lg.Box((12, 12, 0.5)), (0, 0, -0.5), kind="static")
    for x, y, hx, hy in ((8, 0, 0.2, 8), (-8, 0, 0.2, 8), (0, 8, 8, 0.2), (0, -8, 8, 0.2)):
        w.add_body(lg.Box((hx, hy, 0.5)), (x, y, 0.5), kind="static")   # walls: all stay in
    w.add_body(lg.Box((2, 2, 0.1)), (6, 0, 0.6), kind="static",
               orientation=_about((0, 1, 0), math.radians(20)))
    rng = np.random.default_rng(7)
    shapes = [lg.Box((0.2, 0.15, 0.1)), lg.Sphere(0.15), lg.Capsule(0.1, 0.15),
              lg.Cylinder(0.12, 0.1)]
    ids = []
    for i in range(60):   # the loose heap
        p = (rng.uniform(-1.5, 1.5), rng.uniform(-1.5, 1.5), 0.5 + 0.35 * i / 4)
        ids.append(w.add_body(shapes[i % 4], p, orientation=_about(rng.normal(size=3),
                                                                   rng.uniform(0, math.pi)),
                              density=rng.choice([300.0, 1000.0, 3000.0]), friction=0.6,
                              restitution=0.1 * (i % 3)))
    chain = []            # a hinge chain hanging from the world
    for k in range(10):
        chain.append(w.add_body(lg.Capsule(0.04, 0.1), (-4, 0, 4.8 - 0.3 * k), density=800.0))
        w.add_hinge(chain[k - 1] if k else None, chain[k], (-4, 0, 4.95 - 0.3 * k), (0, 1, 0))
    ids += chain
    w.linear_velocities[chain[-1]] = (3.0, 0, 0)
    axle = w.add_body(lg.Cylinder(0.5, 0.1), (4, -4, 1.0), density=500.0,
                      orientation=_about((1, 0, 0), math.pi / 2))
    w.add_hinge(None, axle, (4, -4, 1.0), (0, 1, 0), motor_speed=2.0, max_motor_torque=40.0)
    bob = w.add_body(lg.Sphere(0.2), (-4, -4, 2.0), mass=5.0, linear_velocity=(2, 0, 0))
    w.add_rope(None, bob, (-4, -4, 4.0), (-4, -4, 2.0), 2.0)
    slider = w.add_body(lg.Box((0.2, 0.2, 0.2)), (0, -5, 1.0), mass=2.0)
    w.add_prismatic(None, slider, (0, -5, 1.0), (1, 0, 0), lower=-1.0, upper=1.0,
                    spring_hz=1.0, spring_damping=0.05)
    w.linear_velocities[slider] = (2.0, 0, 0)
    ids += [axle, bob, slider]
    limbs = []            # ragdoll cones in a chain, hanging and swinging
    for k in range(6):
        limbs.append(w.add_body(lg.Capsule(0.06, 0.12), (4, 4, 4.6 - 0.36 * k), density=1000.0))
        w.add_ragdoll(limbs[k - 1] if k else None, limbs[k], (4, 4, 4.78 - 0.36 * k),
                      (0, 0, 1), swing1=math.radians(40), swing2=math.radians(25),
                      twist_lower=-0.3, twist_upper=0.3)
    w.angular_velocities[limbs[-1]] = (0, 4.0, 0)
    ids += limbs
    ball = w.add_body(lg.Sphere(0.1), (-2, 5, 2.0), mass=1.0, linear_velocity=(0, 0, 3))
    w.add_distance(None, ball, (-2, 5, 3.0), (-2, 5, 2.0))
    ids.append(ball)
    n = len(ids)
    for k in range(96 - n - 1):   # more of the heap up to 95 dynamic bodies
        ids.append(w.add_body(shapes[k % 4], (rng.uniform(-5, -3), rng.uniform(1, 3),
                                              0.3 + 0.35 * k), density=700.0))
    paddle = w.add_body(lg.Box((0.1, 1.5, 0.3)), (-3.5, 0, 0.3), kind="kinematic")
    w.add_angular_motor(None, axle, (0, 1, 0), 2.0, 40.0)
    return w, np.array(ids), paddle


def _about(axis, angle):
    axis = np.asarray(axis, dtype=np.float64)
    axis = axis / np.linalg.norm(axis)
    return (math.cos(angle / 2), *(math.sin(angle / 2) * axis))


def paddle_at(t):
    """The kinematic paddle's position at time t: a sweep along x, there and back."""
    return (-3.5 + 7.0 * (1.0 - abs(((t / PADDLE_PERIOD) % 1.0) * 2 - 1)), 0.0, 0.3)


def energy(w, ids):
    """Kinetic (translation and rotation) plus potential energy of the bodies `ids`, J."""
    m = w.masses[ids]
    v = w.linear_velocities[ids]
    om = w.angular_velocities[ids]
    ke = 0.5 * (m * (v * v).sum(axis=1)).sum()
    for b, o in zip(ids, om):
        ke += 0.5 * o @ w.inertia(int(b)) @ o
    return float(ke + (m * G * w.positions[ids, 2]).sum())


def run(frames, w=None, ids=None, paddle=None, block=1000, report=None):
    """Step the soak scene `frames` frames; returns a list of per-block dicts (ms/frame
    median, energy at the block's end, fastest speed, finite)."""
    if w is None:
        w, ids, paddle = build()
    blocks, times = [], []
    for f in range(1, frames + 1):
        w.set_kinematic_target(paddle, paddle_at(f * FRAME))
        t = time.perf_counter()
        w.step(FRAME)
        times.append(time.perf_counter() - t)
        if f % block == 0 or f == frames:
            finite = all(np.isfinite(a).all() for a in (w.positions, w.orientations,
                                                         w.linear_velocities,
                                                         w.angular_velocities))
            row = {"frame": f, "ms": 1000 * float(np.median(times)),
                   "energy": energy(w, ids) if finite else math.nan,
                   "fastest": float(np.linalg.norm(w.linear_velocities[ids], axis=1).max()),
                   "finite": finite}
            blocks.append(row)
            times = []
            if report:
                report(row)
    return blocks


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--frames", type=int, default=10000)
    ap.add_argument("--block", type=int, default=1000)
    args = ap.parse_args()
    w, ids, paddle = build()
    print(f"soak: {w.body_count} bodies, {w.joint_count} joints, {args.frames} frames at 60 fps")
    print(f"start energy {energy(w, ids):.1f} J")
    print(f"{'frames':>8} {'ms/frame':>9} {'energy J':>10} {'fastest m/s':>12} finite")
    run(args.frames, w, ids, paddle, args.block, lambda r: print(
        f"{r['frame']:>8} {r['ms']:>9.2f} {r['energy']:>10.1f} {r['fastest']:>12.2f} "
        f"{r['finite']}"))


if __name__ == "__main__":
    main()
