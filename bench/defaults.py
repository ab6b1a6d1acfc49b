"""Ligament at `World()` defaults against Blender's Bullet, side by side in one process.

    .venv/bench/bin/python bench/defaults.py                       # pyramid 20 + 20 ragdolls, 300 frames
    .venv/bench/bin/python bench/defaults.py --threads 1,2         # Ligament at 1 and 2 threads
    .venv/bench/bin/python bench/defaults.py --engines ligament --frames 120
    .venv/bench/bin/python bench/defaults.py --scenes pyramid100 --frames 660 --threads 1
                                                   # the 5050-box pyramid: 1 s, then 10 s

The scenes are bench/scenes.py's (what bench/contacts.py runs): the 210-box pyramid and 20
falling 13-body ragdolls. Ligament runs `World(gravity, sleeping=False, threads=t)` (with
`--sleeping`, sleeping on) and nothing else (its own defaults: substeps, iterations, contact
and joint stiffness); Bullet runs Blender's rigid body world at 4 substeps and 10 iterations
(`bench/contacts.py`'s adapter). Both keep every body awake unless `--sleeping`. Figures per
engine: median wall ms/frame after 10 warm-up frames and its ratio to Bullet's, the process's
mean CPU ms/frame (steadier on a shared machine; with threads, their sum); pyramid: top and
largest box drift (m) at the end, the largest sideways move (along the ground) of any box from
its pose at 1 s (`SETTLE`), checked every 30th frame after it (m), and the top box's sink at
the end (m); ragdolls: the largest joint separation over every frame (m) and the lowest body
point (m below the ground's top: the landing dip). Prints, asserts nothing.
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
import scenes as S  # noqa: E402


class LigamentDefaults(C.Ligament):
    label = "Ligament"

    def __init__(self, scene, args):
        import solver as lg
        extra = dict(args.world)
        if args.thread_count is not None:
            extra["threads"] = args.thread_count
        self.w = lg.World(gravity=C.GRAVITY, sleeping=getattr(args, "sleeping", False),
                          **extra)
        C.populate(self.w, scene)


def run(engine, scene, args):
    """C.run with the process's CPU time per frame beside the wall time (the CPU time is
    steadier on a machine shared with other jobs; with threads it is their sum)."""
    eng = engine(scene, args)
    gauge = S.JointGauge(scene) if scene.kind == "ragdolls" else None
    gap, low, wall, cpu = 0.0, math.inf, [], []
    settle, side, ids = int(round(SETTLE * C.FPS)), math.nan, scene.dynamic
    for f in range(args.frames):
        t0, c0 = time.perf_counter(), time.process_time()
        eng.step()
        t1, c1 = time.perf_counter(), time.process_time()
        if f >= C.WARMUP:
            wall.append(t1 - t0)
            cpu.append(c1 - c0)
        if gauge is not None:
            pos, rot = eng.poses()
            gap = max(gap, gauge.gap(pos, rot))
            low = min(low, S.lowest_point(scene, pos, rot))
        elif f + 1 == settle:
            ref = eng.poses()[0][ids]
        elif f + 1 > settle and ((f + 1 - settle) % 30 == 0 or f + 1 == args.frames):
            moved = eng.poses()[0][ids] - ref
            side = max(0.0 if math.isnan(side) else side,
                       float(np.linalg.norm(moved[:, :2], axis=1).max()))
    ms, cpu_ms = 1000.0 * statistics.median(wall), 1000.0 * statistics.mean(cpu)
    pos, rot = eng.poses()
    if gauge is not None:
        return ms, cpu_ms, (gap, low)
    sink = scene.bodies[ids[-1]].position[2] - pos[ids[-1], 2]
    return ms, cpu_ms, (*S.drift(scene, pos), side, sink)


SETTLE = 1.0        # s: a pyramid's sideways moves are measured from its poses at this time
FIGURES = {"pyramid": ("top drift m", "max drift m", "max side m", "top sink m"),
           "ragdolls": ("max gap m", "lowest z m")}


SCENES = {"pyramid20": lambda: S.pyramid(20), "ragdolls": lambda: S.ragdolls(20),
          "pyramid40": lambda: S.pyramid(40), "pyramid100": lambda: S.pyramid(100)}


def main():
    from solver import warmup
    warmup.prepare()      # compile (or load) every kernel before timing
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--frames", type=int, default=300)
    ap.add_argument("--threads", default="1,2", help="Ligament thread counts to run")
    ap.add_argument("--engines", default="bullet,ligament")
    ap.add_argument("--scenes", default="pyramid20,ragdolls")
    ap.add_argument("--sleeping", action="store_true",
                    help="let Ligament's islands at rest sleep (World's default; Bullet's "
                    "bodies stay awake)")
    ap.add_argument("--set", default="", help="World settings other than the defaults, "
                    "e.g. substeps=4,iterations=2 (to compare)")
    args = ap.parse_args()
    args.world = {k: float(v) if "." in v else int(v) for k, v in
                  (kv.split("=") for kv in args.set.split(",") if kv)}
    args.seconds = args.frames / C.FPS
    engines = args.engines.split(",")
    if "bullet" in engines and C.missing(C.BlenderBullet):
        print("skipping Bullet (Blender):", C.missing(C.BlenderBullet))
        engines.remove("bullet")
    import solver
    w = solver.World(**args.world)
    print(f"60 Hz, {args.frames} frames, {os.cpu_count()} cores; Ligament World() defaults "
          f"{args.set or ''} (substeps {w.substeps}, iterations {w.iterations}, threads "
          f"{args.threads}{', sleeping' if args.sleeping else ''}), Bullet 4 substeps / "
          f"{C.BULLET_ITERATIONS} iterations")
    for name in args.scenes.split(","):
        scene = SCENES[name]()
        print(C.line("scene", "engine", "ms/frame", "vs Bullet", "cpu ms",
                     *FIGURES[scene.kind]), flush=True)
        base = None
        runs = []
        if "bullet" in engines:
            runs.append(("Bullet (Blender)", C.BlenderBullet, None))
        if "ligament" in engines:
            runs += [(f"Ligament {t} thr" if t else "Ligament", LigamentDefaults,
                      int(t) if t else None) for t in args.threads.split(",")]
        for label, engine, threads in runs:
            args.thread_count = threads
            ms, cpu, figures = run(engine, scene, args)
            if engine is C.BlenderBullet:
                base = ms
            ratio = f"{ms / base:.2f}x" if base else "-"
            print(C.line(scene.name, label, ms, ratio, f"{cpu:.2f}", *figures), flush=True)
        print()


if __name__ == "__main__":
    main()
