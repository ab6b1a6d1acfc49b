"""A destruction shot: a brick wall hit by a wrecking ball, Ligament against Blender's Bullet.

    .venv/bench/bin/python bench/wall.py             # 2020 bricks, Ligament at 1 and 2 threads
    .venv/bench/bin/python bench/wall.py --threads 1 --after 2
    .venv/bench/bin/python bench/wall.py --courses 12 --bricks 12 --after 1     # a smoke run
    .venv/bench/bin/python bench/wall.py --engines ligament --no-sleeping       # the solve alone
    .venv/bench/bin/python bench/wall.py --engines ligament --set substeps=16   # other settings

The shot (`Shot`, built once as a bench/scenes.py scene that both adapters of
bench/contacts.py build): a running-bond wall along X of `--courses` courses (default 40, 2.6
m high) of `--bricks` bricks (default 50, 10.2 m long; bench/piles.py's `brick_wall`): bricks
of 0.2 x 0.1 x 0.065 m and 2.4 kg with 5 mm joints, the courses in between ending in half
bricks (2020 pieces in all), friction 0.6, restitution 0, on a static floor. (Taller, the
single-brick wall does not stand: at 50 courses, 3.25 m, it sinks 24 mm on Ligament's soft
contacts, leans out of its plane and falls within 3 s, before it can fall asleep, and Bullet's
falls too. At 40 courses it stands while asleep; the hit wakes the whole wall, one island, and
its untouched ends lean and fall 3.5-5 s later: `--after 6`.) A 500 kg ball of 0.4 m radius
hangs 20 m below a static pivot on a ball socket (in Blender a Point constraint) and is let go
at rest on the -Y side; it swings down and, rising again, meets the wall's face at 40 % of its
height at `--speed` m/s (default 6), about 3 s in, and swings on through it. A wall too low
for a 0.4 m ball gets a smaller ball of the same density.

Ligament runs `World()` at its defaults (sleeping on unless `--no-sleeping`, `--threads`): its
wall settles and falls asleep by itself. Bullet runs Blender's rigid body world at 4 substeps
and 10 iterations with Enable Deactivation on every body and Start Deactivated on every brick,
as animators set up a wall that waits for its hit: Bullet's wall does not stand by itself
(from 40 courses up it sinks, spreads and falls before the ball arrives; `--bullet-settle`
shows it: deactivation only, at Blender's default thresholds, under which Bullet puts a body
to sleep after 2 s). Blender does not say which bodies sleep: a brick whose pose did not
change at all over a frame counts as asleep (a sleeping Bullet body is not integrated).

Figures per engine. Before the hit, taken 0.1 s (`BEFORE` frames) before it (Bullet wakes the
wall as the ball comes within its contact threshold, a frame or two ahead): when every brick
was asleep since (and stayed so), how many were asleep, the largest brick move from its pose
at `SETTLE` s (mm, the drift) and the largest sink from the built pose (mm); ms/frame of the
standing wall (median wall clock over the last half second before the hit). While the wall
falls apart (the frames from the hit to `--after` s later): median and mean wall-clock
ms/frame and mean CPU ms/frame (the process's; with threads, their sum; steadier on a shared
machine), each over Bullet's, and the work done at the end: bricks moved more than 5 cm,
bricks down (lower by a course height or more), and the ball's speed as it met the wall and at
the end (m/s). Bullet's row is followed by the same frames replayed from Blender's cache
(Blender's own evaluation of the moving objects, no solver); "net x" is Ligament's CPU time
over Bullet's less that replay's. The load average is printed before and after. Prints,
asserts nothing.
"""

import argparse
import math
import os
import statistics
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
for _p in (ROOT, HERE):
    if _p not in sys.path:
        sys.path.insert(0, _p)

import contacts as C  # noqa: E402
import defaults as D  # noqa: E402
import piles  # noqa: E402

BRICK = (0.2, 0.1, 0.065)   # m: length, depth, height
BRICK_MASS = 2.4            # kg (about 1850 kg/m^3)
JOINT = 0.005               # m between neighbours in a course
BALL_MASS, BALL_RADIUS = 500.0, 0.4
ROPE = 20.0                 # m from the pivot to the ball's centre
MAX_SWING = math.radians(20.0)      # past the lowest point, where the ball meets the wall
SETTLE = 1.0                # s: the drift is measured from the poses at this time
MOVED, LIMIT = 0.05, 8.0    # m: a brick moved; s: the latest hit allowed
BEFORE = 6                  # frames: the wall's state before the hit is taken this much earlier


class Shot:
    """The scene and where its parts are: `bricks` (ids), `ball` (id), `radius` (m), `face`
    (the y of the wall's face toward the ball)."""

    def __init__(self, courses=40, bricks=50, speed=6.0):
        g = -C.GRAVITY[2]
        s = piles.brick_wall(courses, bricks, JOINT, BRICK, BRICK_MASS, halves=True)
        self.bricks = np.array(s.dynamic)
        s.kind = "wall"
        height = courses * BRICK[2]
        self.radius = r = min(BALL_RADIUS, 0.3 * height)
        mass = BALL_MASS * (r / BALL_RADIUS) ** 3
        s.name = f"wall {len(self.bricks)} bricks, {mass:.0f} kg ball"
        self.face = -0.5 * BRICK[1]
        hit_z = 0.4 * height
        # the ball's lowest point of the arc stays a quarter radius above the floor
        rise = min(hit_z - 1.25 * r, ROPE * (1.0 - math.cos(MAX_SWING)))
        if rise <= 0.0:
            raise ValueError(f"courses={courses}: the wall is too low for the ball")
        swing = math.acos(1.0 - rise / ROPE)
        cos_release = math.cos(swing) - speed ** 2 / (2.0 * g * ROPE)
        if not -1.0 < cos_release < 1.0:
            raise ValueError(f"speed={speed}: the ball cannot reach it from rest")
        release = math.acos(cos_release)
        pivot = np.array([0.0, self.face - r - ROPE * math.sin(swing),
                          hit_z + ROPE * math.cos(swing)])
        start = pivot + ROPE * np.array([0.0, -math.sin(release), -math.cos(release)])
        top = s.add("box", (0.1, 0.1, 0.1), pivot)
        self.ball = s.add("sphere", (r,), start, mass=mass)
        s.link("ball", top, self.ball, pivot, (0.0, 0.0, 1.0), ())
        self.scene = s


class Ligament(D.LigamentDefaults):
    def positions(self):
        return self.w.positions.copy()

    def asleep(self, ids):
        return sum(self.w.is_sleeping(int(i)) for i in ids)


class Bullet(C.BlenderBullet):
    label = "Bullet (Blender)"

    def positions(self):
        return np.array([o.matrix_world.translation for o in self.objs])

    def asleep(self, ids):
        """Bodies whose pose did not change at all over the last frame (called each frame)."""
        now = [self.objs[i].matrix_world.copy() for i in ids]
        before, self.before = getattr(self, "before", None), now
        return sum(a == b for a, b in zip(now, before)) if before else 0

    def replay(self, first, last):
        """Frames `first`..`last` again, from Blender's cache: (wall s, CPU s) each, what
        Blender's own evaluation of them costs without the solver."""
        self.scene.frame_set(first - 1)
        wall, cpu = [], []
        for f in range(first, last + 1):
            t0, c0 = time.perf_counter(), time.process_time()
            self.scene.frame_set(f)
            wall.append(time.perf_counter() - t0)
            cpu.append(time.process_time() - c0)
        return wall, cpu


def run(engine, shot, args):
    """One engine through the shot; a dict of figures."""
    eng = engine(shot.scene, args)
    bricks, ball, n = shot.bricks, shot.ball, len(shot.bricks)
    built = np.array([shot.scene.bodies[i].position for i in bricks])
    settle = int(round(SETTLE * C.FPS))
    after = int(round(args.after * C.FPS))
    ref = hit = asleep_since = None
    history = []                # (asleep count, asleep since, positions) of the last frames
    out = {"rest": [], "wall": [], "cpu": []}
    for f in range(1, int(LIMIT * C.FPS) + 1):
        t0, c0 = time.perf_counter(), time.process_time()
        eng.step()
        t1, c1 = time.perf_counter(), time.process_time()
        pos = eng.positions()
        if hit is None and pos[ball, 1] + shot.radius >= shot.face:
            hit = f                             # the ball reached the wall in this frame
            still, since, earlier = history[0]
            out.update(hit=f / C.FPS, asleep=still, asleep_since=since,
                       speed_in=float(np.linalg.norm(pos[ball] - history[-1][2][ball])) * C.FPS,
                       drift=math.nan if ref is None else
                       float(np.linalg.norm(earlier[bricks] - ref, axis=1).max()),
                       sink=float((built[:, 2] - earlier[bricks, 2]).max()))
        last = history[-1][2] if history else pos
        if hit is None:
            out["rest"].append(t1 - t0)
            still = eng.asleep(bricks)
            if still < n:
                asleep_since = None
            elif asleep_since is None:
                asleep_since = f / C.FPS
            if f == settle:
                ref = pos[bricks].copy()
        else:
            out["wall"].append(t1 - t0)
            out["cpu"].append(c1 - c0)
        history = (history + [(still, asleep_since, pos)])[-BEFORE:]
        if hit is not None and f - hit + 1 >= after:
            break
    if hit is None:
        raise RuntimeError(f"{engine.label}: the ball did not reach the wall in {LIMIT:g} s")
    start = ref if ref is not None else built
    moved = np.linalg.norm(pos[bricks] - start, axis=1)
    out["rest"] = out["rest"][-C.FPS // 2:]
    out["moved"] = int((moved > MOVED).sum())
    out["down"] = int((pos[bricks, 2] < start[:, 2] - BRICK[2]).sum())
    out["speed_out"] = float(np.linalg.norm(pos[ball] - last[ball])) * C.FPS
    if isinstance(eng, Bullet):         # loop frame f is Blender's frame f + 1
        out["replay"] = eng.replay(hit + 1, f + 1)
        assert np.array_equal(eng.positions(), pos), "Blender's cache did not replay the run"
    return out


def load():
    return "load average " + " ".join(f"{x:.2f}" for x in os.getloadavg())


def main():
    from solver import warmup
    warmup.prepare()      # compile (or load) every kernel before timing
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--courses", type=int, default=40)
    ap.add_argument("--bricks", type=int, default=50, help="bricks in the lowest course")
    ap.add_argument("--speed", type=float, default=6.0, help="the ball's speed at the wall")
    ap.add_argument("--after", type=float, default=3.0,
                    help="seconds after the hit that are timed")
    ap.add_argument("--threads", default="1,2", help="Ligament thread counts to run")
    ap.add_argument("--engines", default="bullet,ligament")
    ap.add_argument("--no-sleeping", dest="sleeping", action="store_false",
                    help="Ligament with sleeping off (Bullet without deactivation)")
    ap.add_argument("--set", default="", help="Ligament's World settings other than the "
                    "defaults, e.g. substeps=16 (to compare)")
    ap.add_argument("--bullet-settle", action="store_true",
                    help="Bullet's wall starts awake and settles (deactivation on)")
    args = ap.parse_args()
    shot = Shot(args.courses, args.bricks, args.speed)
    args.world = {k: float(v) if "." in v else int(v) for k, v in
                  (kv.split("=") for kv in args.set.split(",") if kv)}
    args.deactivation = args.sleeping
    args.start_asleep = () if args.bullet_settle or not args.sleeping else shot.bricks
    args.seconds = LIMIT + args.after          # Blender's cache must reach the last frame
    engines = args.engines.split(",")
    if "bullet" in engines and C.missing(C.BlenderBullet):
        print("skipping Bullet (Blender):", C.missing(C.BlenderBullet))
        engines.remove("bullet")
    runs = [("Bullet (Blender)", Bullet, None)] if "bullet" in engines else []
    if "ligament" in engines:
        runs += [(f"Ligament {t} thr", Ligament, int(t)) for t in args.threads.split(",")]
    print(f"{shot.scene.name}; 60 Hz, {os.cpu_count()} cores, {load()}; Ligament World() "
          f"defaults{' ' + args.set if args.set else ''}, sleeping "
          f"{'on' if args.sleeping else 'off'}; Bullet 4 substeps / "
          f"{C.BULLET_ITERATIONS} iterations, deactivation "
          f"{'on' if args.deactivation else 'off'}"
          f"{', the wall started asleep' if len(args.start_asleep) else ''}")
    results = []
    for label, engine, threads in runs:
        args.thread_count = threads
        results.append((label, run(engine, shot, args)))
        print(f"  {label} done, {load()}", flush=True)
    n = len(shot.bricks)
    print(f"\nBefore the hit (0.1 s before; drift from the poses at {SETTLE:g} s):")
    print(f"{'engine':18}{'hit at s':>9}{'asleep since s':>15}{'asleep':>11}{'drift mm':>10}"
          f"{'sink mm':>9}{'rest ms':>9}")
    for label, r in results:
        since = "-" if r["asleep_since"] is None else f"{r['asleep_since']:.2f}"
        asleep = f"{r['asleep']}/{n}"
        print(f"{label:18}{r['hit']:>9.2f}{since:>15}{asleep:>11}"
              f"{1000 * r['drift']:>10.2f}{1000 * r['sink']:>9.2f}"
              f"{1000 * statistics.median(r['rest']):>9.2f}")
    print(f"\nFalling apart ({args.after:g} s from the hit; ratios over Bullet's, net: over "
          "Bullet's CPU ms less its cache replay's):")
    print(f"{'engine':24}{'median ms':>10}{'mean ms':>9}{'cpu ms':>8}{'median x':>9}"
          f"{'cpu x':>7}{'net x':>7}{'moved':>7}{'down':>6}{'ball m/s':>14}")
    rows = []
    for label, r in results:
        speeds = f"{r['speed_in']:.2f} -> {r['speed_out']:.2f}"
        rows.append((label, r["wall"], r["cpu"], f"{r['moved']:>7}{r['down']:>6}{speeds:>14}"))
        if "replay" in r:
            rows.append(("  its cache replayed", *r["replay"], ""))
    base = dict(results).get("Bullet (Blender)")
    for label, wall, cpu, work in rows:
        med, mean, cpu = (1000 * statistics.median(wall), 1000 * statistics.mean(wall),
                          1000 * statistics.mean(cpu))
        x = cx = net = "-"
        if base and label.startswith("Ligament"):
            x = f"{med / (1000 * statistics.median(base['wall'])):.2f}x"
            cx = f"{cpu / (1000 * statistics.mean(base['cpu'])):.2f}x"
            own = statistics.mean(base["cpu"]) - statistics.mean(base["replay"][1])
            net = f"{cpu / (1000 * own):.2f}x"
        print(f"{label:24}{med:>10.2f}{mean:>9.2f}{cpu:>8.2f}{x:>9}{cx:>7}{net:>7}{work}")


if __name__ == "__main__":
    main()
