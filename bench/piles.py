"""Piles a user builds, at rest: Ligament at `World()` defaults beside Blender's Bullet.

    .venv/bench/bin/python bench/piles.py                   # every layout, 61 s each
    .venv/bench/bin/python bench/piles.py --seconds 11      # the 10 s figures only
    .venv/bench/bin/python bench/piles.py --layouts wall,mixed --engines ligament

Layouts (`LAYOUTS`; friction 0.6 for every pair, restitution 0, on a static slab):

* gapped pyramid: 20 rows of 1 m, 1 kg boxes whose neighbours stand 5 cm apart (each box
  rests on two below);
* touching pyramid: the same with side faces touching;
* brick wall: 12 courses of 10 bricks (1 x 0.5 x 0.5 m, density 1000), each course shifted
  half a brick, 1 cm joints;
* mixed: 8 courses of boxes of random widths 0.6-1.2 m, heights 0.4-0.8 m and masses 1-10 kg
  (seeded), 2 cm apart, each course a little narrower than the one under it;
* tilted: the 10-row gapped pyramid on a floor tilted 2 degrees (friction angle 31);
* light-on-heavy / heavy-on-light: 12 staggered courses alternating 0.6 m tall and 0.3 m
  tall boxes, 1 kg and 10 kg (`courses`): the 10 kg courses under or on the 1 kg ones;
* column: 30 boxes of 1 m, 1 kg stacked straight up.

Figures per engine: how far any box moved sideways (along the floor, in mm) from its pose at
`SETTLE` seconds to `SETTLE` + 10 s and to `SETTLE` + 60 s (or the run's end), and when every
box was asleep. Ligament runs twice: at its defaults (sleeping on) and with `sleeping=False`
(what the solve alone holds); Bullet runs Blender's rigid body world at 4 substeps and 10
iterations with deactivation off (its default). Prints, asserts nothing.
"""

import argparse
import math
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
for _p in (ROOT, HERE):
    if _p not in sys.path:
        sys.path.insert(0, _p)

import contacts as C  # noqa: E402
import scenes as S  # noqa: E402

MU = 0.6
SETTLE = 1.0        # s: drift is measured from the poses at this time


def _tilt(degrees):
    a = math.radians(degrees)
    return np.array([[math.cos(a), 0.0, math.sin(a)], [0.0, 1.0, 0.0],
                     [-math.sin(a), 0.0, math.cos(a)]])


def pyramid(rows, gap, degrees=0.0, name=None):
    """`rows` rows of 1 m, 1 kg boxes, neighbours `gap` apart, on a floor tilted `degrees`
    about Y (the whole pile turned with it)."""
    R = _tilt(degrees)
    s = S.Scene(name or f"pyramid {rows} gap {gap * 100:.0f} cm", "pile", mu=MU)
    s.add("box", (rows * (1.0 + gap) + 5.0, 5.0, 0.5), R @ (0.0, 0.0, -0.5), R)
    for i in range(rows):
        k = rows - i
        for j in range(k):
            s.add("box", (0.5, 0.5, 0.5), R @ ((j - (k - 1) / 2.0) * (1.0 + gap), 0.0, 0.5 + i),
                  R, mass=1.0)
    return s


def column(boxes=30):
    """`boxes` 1 m, 1 kg boxes stacked straight up on the slab."""
    s = S.Scene(f"column {boxes}", "pile", mu=MU)
    s.add("box", (5.0, 5.0, 0.5), (0.0, 0.0, -0.5))
    for i in range(boxes):
        s.add("box", (0.5, 0.5, 0.5), (0.0, 0.0, 0.5 + i), mass=1.0)
    return s


def brick_wall(courses=12, bricks=10, joint=0.01, brick=(1.0, 0.5, 0.5), mass=250.0,
               halves=False):
    """A running-bond wall along X: `bricks` bricks of `brick` (length, depth, height, m)
    and `mass` in the lowest course, each course above shifted half a brick, `joint`
    between neighbours. The shifted courses hold `bricks` - 1 bricks, or with `halves` also
    a half brick at each end, flush with the courses between (as a mason builds it)."""
    length, depth, height = brick
    s = S.Scene(f"brick wall {courses}x{bricks}", "pile", mu=MU)
    s.add("box", (bricks * length + 5.0, 5.0, 0.5), (0.0, 0.0, -0.5))
    pitch = length + joint
    half = 0.5 * (length - joint)
    end = 0.5 * (bricks * pitch - joint)            # the wall's end faces, +-X
    for c in range(courses):
        z = 0.5 * height + height * c
        shift = 0.5 * pitch if c % 2 else 0.0
        if c % 2 and halves:
            s.add("box", (0.5 * half, 0.5 * depth, 0.5 * height), (0.5 * half - end, 0.0, z),
                  mass=mass * half / length)
        for j in range(bricks - (c % 2)):
            x = (j - (bricks - 1) / 2.0) * pitch + shift
            s.add("box", (0.5 * length, 0.5 * depth, 0.5 * height), (x, 0.0, z), mass=mass)
        if c % 2 and halves:
            s.add("box", (0.5 * half, 0.5 * depth, 0.5 * height), (end - 0.5 * half, 0.0, z),
                  mass=mass * half / length)
    return s


def mixed(courses=8, seed=7):
    """Courses of boxes of mixed widths, heights and masses (1-10 kg), 2 cm apart, each
    course narrower than the one it stands on so every box rests on boxes below."""
    rng = np.random.default_rng(seed)
    s = S.Scene(f"mixed {courses} courses", "pile", mu=MU)
    s.add("box", (10.0, 5.0, 0.5), (0.0, 0.0, -0.5))
    z, span = 0.0, 7.0
    for c in range(courses):
        widths = []
        while sum(widths) + 0.02 * len(widths) < span - 0.6:
            widths.append(rng.uniform(0.6, 1.2))
        total = sum(widths) + 0.02 * (len(widths) - 1)
        h = rng.uniform(0.4, 0.8)
        x = -0.5 * total + rng.uniform(-0.1, 0.1)
        for wdt in widths:
            s.add("box", (0.5 * wdt, 0.5, 0.5 * h), (x + 0.5 * wdt, 0.0, z + 0.5 * h),
                  mass=float(rng.uniform(1.0, 10.0)))
            x += wdt + 0.02
        z += h
        span = total - 0.8
    return s


def courses(heavy_on_light, count=12):
    """Staggered courses of 1 m wide boxes, 12 to the lowest course and one fewer each course
    up, 3 cm apart; courses alternate 0.6 m tall boxes and 0.3 m tall ones, one kind 10 kg and
    the other 1 kg: with `heavy_on_light` the 10 kg courses stand on 1 kg ones."""
    s = S.Scene(f"courses 1:10, {'heavy on light' if heavy_on_light else 'light on heavy'}",
                "pile", mu=MU)
    s.add("box", (10.0, 5.0, 0.5), (0.0, 0.0, -0.5))
    z = 0.0
    for c in range(count):
        n, h = 12 - c, (0.3 if c % 2 else 0.6)
        mass = 10.0 if (c % 2 == 0) == heavy_on_light else 1.0
        for j in range(n):
            s.add("box", (0.5, 0.5, 0.5 * h), ((j - (n - 1) / 2.0) * 1.03, 0.0, z + 0.5 * h),
                  mass=mass)
        z += h
    return s


LAYOUTS = {
    "gapped": lambda: pyramid(20, 0.05, name="gapped pyramid 20"),
    "touching": lambda: pyramid(20, 0.0, name="touching pyramid 20"),
    "wall": brick_wall,
    "mixed": mixed,
    "tilted": lambda: pyramid(10, 0.05, 2.0, name="tilted 2 deg, pyramid 10"),
    "light-on-heavy": lambda: courses(False),
    "heavy-on-light": lambda: courses(True),
    "column": column,
}


def floor_frame(scene):
    """The ground slab's rotation: sideways is its X and Y."""
    return scene.bodies[0].rotation


class Ligament:
    def __init__(self, scene, sleeping):
        import solver as lg
        self.w = lg.World(sleeping=sleeping)
        C.populate(self.w, scene)
        self.ids = scene.dynamic

    def step(self):
        self.w.step(1.0 / C.FPS)

    def positions(self):
        return self.w.positions.copy()

    def asleep(self):
        return all(self.w.is_sleeping(i) for i in self.ids)


class Bullet(C.BlenderBullet):
    def positions(self):
        return self.poses()[0]

    def asleep(self):
        return False


def measure(engine, scene, seconds):
    """(sideways mm over 10 s, over 60 s or the run, seconds simulated, asleep at, ms/frame)."""
    frames = int(round(seconds * C.FPS))
    R = floor_frame(scene)
    ids = scene.dynamic
    ref = None
    d10 = d60 = 0.0
    slept = None
    t0 = time.perf_counter()
    for f in range(1, frames + 1):
        engine.step()
        t = f / C.FPS
        if slept is None and engine.asleep():
            slept = t
        if f == int(round(SETTLE * C.FPS)):
            ref = engine.positions()[ids]
        if ref is not None and (f % 30 == 0 or f == frames):
            d = (engine.positions()[ids] - ref) @ R          # in the floor's frame
            side = float(np.linalg.norm(d[:, :2], axis=1).max()) * 1000.0
            if t <= SETTLE + 10.0 + 1e-9:
                d10 = max(d10, side)
            d60 = max(d60, side)
    ms = 1000.0 * (time.perf_counter() - t0) / frames
    return d10, d60, seconds, slept, ms


def main():
    from solver import warmup
    warmup.prepare()
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=SETTLE + 60.0)
    ap.add_argument("--layouts", default=",".join(LAYOUTS))
    ap.add_argument("--engines", default="ligament,bullet")
    args = ap.parse_args()
    engines = args.engines.split(",")
    if "bullet" in engines and C.missing(C.BlenderBullet):
        print("skipping Bullet (Blender):", C.missing(C.BlenderBullet))
        engines.remove("bullet")
    print(f"60 Hz, {args.seconds:g} s; sideways drift of the farthest box from its pose at "
          f"{SETTLE:g} s (mm); friction {MU}")
    print(f"{'layout':28}{'engine':26}{'10 s mm':>10}{'60 s mm':>10}{'asleep at s':>12}"
          f"{'ms/frame':>10}")
    for name in args.layouts.split(","):
        scene = LAYOUTS[name]()
        runs = []
        if "ligament" in engines:
            runs += [("Ligament defaults", lambda: Ligament(scene, True)),
                     ("Ligament sleeping=False", lambda: Ligament(scene, False))]
        if "bullet" in engines:
            runs.append(("Bullet (Blender) 4/10", lambda: Bullet(scene, args)))
        label = f"{scene.name} ({len(scene.dynamic)})"
        for engine_label, make in runs:
            d10, d60, secs, slept, ms = measure(make(), scene, args.seconds)
            long = f"{d60:.2f}" if secs >= SETTLE + 60.0 - 1e-9 else "-"
            print(f"{label:28}{engine_label:26}{d10:>10.2f}{long:>10}"
                  f"{'never' if slept is None else f'{slept:.2f}':>12}{ms:>10.2f}", flush=True)


if __name__ == "__main__":
    main()
