"""Joint benchmark: frame time for ragdolls and a heavy chain, joint separation, numba start-up.

    /work/venv/bin/python bench/joints.py            (from the repository root)

Prints figures, asserts nothing. Frame times are medians over frames after a warm-up, at
60 Hz with the World's default substeps and iterations. Start-up is measured in child
processes with NUMBA_CACHE_DIR pointed at a fresh folder: the first child compiles every
kernel (cold), the second loads them from that cache (warm).
"""

import math
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

import solver as lg  # noqa: E402

FRAME = 1.0 / 60.0


def _qmat(q):
    w, x, y, z = q
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                     [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                     [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])


class Tracker:
    """Each joint's two anchors glued to their bodies, to measure separation from poses."""

    def __init__(self, world):
        self.world = world
        self.pairs = []

    def add(self, a, b, point):
        p = np.asarray(point, dtype=float)
        self.pairs.append((a, self._local(a, p), b, self._local(b, p)))

    def _local(self, body, p):
        if body is None:
            return p
        return _qmat(self.world.orientations[body]).T @ (p - self.world.positions[body])

    def _world(self, body, local):
        if body is None:
            return local
        return self.world.positions[body] + _qmat(self.world.orientations[body]) @ local

    def worst(self):
        return max(float(np.linalg.norm(self._world(b, lb) - self._world(a, la)))
                   for a, la, b, lb in self.pairs)


def add_ragdoll(w, tracker, origin, rng):
    """11 bodies, 10 joints (ragdoll cones at spine, neck, shoulders, hips; hinge elbows and
    knees), pelvis pinned to the world by a ball-socket above its centre."""
    o = np.asarray(origin, dtype=float)
    down, side = np.array([0.0, 0.0, -1.0]), np.array([0.0, 1.0, 0.0])

    def body(shape, centre, mass):
        omega = rng.normal(size=3) * 3.0
        return w.add_body(shape, o + centre, mass=mass, angular_velocity=omega)

    def cone(a, b, at, twist_axis, s1=45, s2=30, tl=-20, tu=20):
        p = o + at
        w.add_ragdoll(a, b, p, twist_axis, swing1=math.radians(s1), swing2=math.radians(s2),
                      twist_lower=math.radians(tl), twist_upper=math.radians(tu))
        tracker.add(a, b, p)

    def hinge(a, b, at, lower, upper):
        p = o + at
        w.add_hinge(a, b, p, side, lower=lower, upper=upper)
        tracker.add(a, b, p)

    pelvis = body(lg.Box((0.15, 0.1, 0.08)), (0, 0, 1.0), 10.0)
    chest = body(lg.Box((0.17, 0.1, 0.15)), (0, 0, 1.3), 15.0)
    head = body(lg.Sphere(0.1), (0, 0, 1.62), 4.0)
    cone(pelvis, chest, (0, 0, 1.12), (0, 0, 1), 30, 20)
    cone(chest, head, (0, 0, 1.5), (0, 0, 1), 40, 30)
    for s in (-1.0, 1.0):
        upper_arm = body(lg.Capsule(0.04, 0.1), (0, 0.3 * s, 1.3), 2.0)
        forearm = body(lg.Capsule(0.035, 0.1), (0, 0.3 * s, 1.02), 1.5)
        cone(chest, upper_arm, (0, 0.3 * s, 1.44), down, 70, 50, -40, 40)
        hinge(upper_arm, forearm, (0, 0.3 * s, 1.16), 0.0, 2.5)
        thigh = body(lg.Capsule(0.06, 0.15), (0, 0.1 * s, 0.7), 7.0)
        shin = body(lg.Capsule(0.05, 0.15), (0, 0.1 * s, 0.3), 4.0)
        cone(pelvis, thigh, (0, 0.1 * s, 0.92), down, 60, 30, -15, 15)
        hinge(thigh, shin, (0, 0.1 * s, 0.5), -2.5, 0.0)
    pin = o + (0.1, 0, 1.08)
    w.add_ball_socket(None, pelvis, pin)
    tracker.add(None, pelvis, pin)


def ragdoll_world(count=20):
    rng = np.random.default_rng(1)
    w = lg.World(gravity=(0, 0, -9.81))
    tracker = Tracker(w)
    for i in range(count):
        add_ragdoll(w, tracker, (2.0 * (i % 5), 2.0 * (i // 5), 0.0), rng)
    return w, tracker


def chain_world(ball_mass=10.0, links=20):
    w = lg.World(gravity=(0, 0, -9.81))
    tracker = Tracker(w)
    prev = None
    for i in range(links):
        b = w.add_body(lg.Box((0.05, 0.01, 0.01)), (0.1 * i + 0.05, 0, 0), mass=0.1)
        w.add_ball_socket(prev, b, (0.1 * i, 0, 0))
        tracker.add(prev, b, (0.1 * i, 0, 0))
        prev = b
    ball = w.add_body(lg.Sphere(0.05), (0.1 * links + 0.05, 0, 0), mass=ball_mass)
    w.add_ball_socket(prev, ball, (0.1 * links, 0, 0))
    tracker.add(prev, ball, (0.1 * links, 0, 0))
    return w, tracker


def run(world, tracker, frames, warmup=10):
    times, worst = [], 0.0
    for i in range(warmup + frames):
        t0 = time.perf_counter()
        world.step(FRAME)
        if i >= warmup:
            times.append(time.perf_counter() - t0)
        worst = max(worst, tracker.worst())
    return 1000.0 * statistics.median(times), worst


STARTUP = r"""
import sys, time
t0 = time.perf_counter()
sys.path.insert(0, {root!r})
import solver as lg
t1 = time.perf_counter()
w = lg.World()
a = w.add_body(lg.Box((0.1, 0.1, 0.1)), (0, 0, 1))
b = w.add_body(lg.Capsule(0.05, 0.2), (0, 0, 0.5))
c = w.add_body(lg.Sphere(0.1), (0.5, 0, 0.5))
w.add_ball_socket(None, a, (0, 0, 1.1))
w.add_hinge(a, b, (0, 0, 0.8), (0, 1, 0), lower=-1, upper=1, motor_speed=1,
            max_motor_torque=1, spring_hz=1)
w.add_prismatic(b, c, (0.5, 0, 0.5), (1, 0, 0), lower=-1, upper=1, motor_speed=1,
                max_motor_force=1, spring_hz=1)
w.add_fixed(a, c, (0.2, 0, 0.8))
w.add_distance(a, c, (0, 0, 1), (0.5, 0, 0.5), min_length=0.1, max_length=1, spring_hz=1)
w.add_rope(None, c, (1, 0, 1), (0.5, 0, 0.5), 2.0)
w.add_ragdoll(a, b, (0, 0, 0.9), (0, 0, -1))
w.add_angular_motor(a, b, (0, 0, 1), 1.0, 1.0)
t2 = time.perf_counter()
w.step(1 / 60)
t3 = time.perf_counter()
print(t1 - t0, t3 - t2, t3 - t0)
"""


def startup(cache_dir):
    env = dict(os.environ, NUMBA_CACHE_DIR=cache_dir)
    t0 = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", STARTUP.format(root=ROOT)], env=env,
                         capture_output=True, text=True, check=True).stdout.split()
    wall = time.perf_counter() - t0
    imp, first, total = (float(x) for x in out[-3:])
    return imp, first, total, wall


def main():
    from solver import warmup
    warmup.prepare()      # compile (or load) every kernel before timing
    rows = []
    w, tr = ragdoll_world(20)
    ms, worst = run(w, tr, 120)
    rows.append(("20 ragdolls (220 bodies, 220 joints)", ms, worst))
    w, tr = chain_world(10.0)
    ms, worst = run(w, tr, 300)
    rows.append(("chain 20 x 0.1 kg + 10 kg ball (100:1)", ms, worst))
    w, tr = chain_world(100.0)
    ms, worst = run(w, tr, 300)
    rows.append(("chain 20 x 0.1 kg + 100 kg ball (1000:1)", ms, worst))

    print(f"Ligament joint benchmark  (substeps {w.substeps}, iterations {w.iterations}, "
          f"60 Hz, {os.cpu_count()} cores)")
    print()
    print(f"{'scene':44s} {'ms/frame':>9s} {'max sep (mm)':>13s}")
    print("-" * 68)
    for name, ms, worst in rows:
        print(f"{name:44s} {ms:9.3f} {1000 * worst:13.3f}")
    print()

    with tempfile.TemporaryDirectory(prefix="ligament-numba-") as cache:
        cold = startup(cache)
        warm = startup(cache)
        warm2 = startup(cache)
    print(f"{'start-up (fresh NUMBA_CACHE_DIR)':34s} {'import s':>9s} {'1st step s':>11s} "
          f"{'total s':>8s} {'process s':>10s}")
    print("-" * 76)
    for name, (imp, first, total, wall) in (("cold (compile everything)", cold),
                                            ("warm (cached), 1st", warm),
                                            ("warm (cached), 2nd", warm2)):
        print(f"{name:34s} {imp:9.2f} {first:11.2f} {total:8.2f} {wall:10.2f}")


if __name__ == "__main__":
    main()
