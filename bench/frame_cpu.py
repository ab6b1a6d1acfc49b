"""The solver's CPU time a frame, one source tree against another, in alternating processes.

    .venv/py311/bin/python bench/frame_cpu.py /work/main .            # main against this tree
    .venv/py311/bin/python bench/frame_cpu.py /work/main . --repeats 5 --frames 300

Each run is a fresh process with the tree's `solver` on its path: bench/scenes.py's 20 falling
13-body ragdolls at `World()` defaults (awake, `sleeping=False`, one thread), stepped at 60 Hz.
The figure is the process's CPU time (`time.process_time`) around `World.step`, per frame,
after 10 warm-up frames: on a machine shared with other work the wall clock measures the
other work too. Runs alternate A B A B; printed per tree: the median over runs of each run's
mean CPU ms a frame (all frames, then frames 100 on, when the ragdolls lie still), the largest
joint separation over every frame, the lowest body point (the landing dip), and a hash of
the final body state (equal hashes: bit-identical results). Kernels come from
$LIGAMENT_KERNEL_CACHE (set it to a folder of your own: each tree compiles once into it).
"""

import argparse
import hashlib
import json
import math
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
WARMUP = 10
STILL = 100


def measure(frames, count, threads, settings):
    import numpy as np
    import scenes as S
    import contacts as C
    import solver as lg
    scene = S.ragdolls(count)
    w = lg.World(gravity=C.GRAVITY, sleeping=False, threads=threads, **settings)
    C.populate(w, scene)
    gauge = S.JointGauge(scene)
    gap, low, cpu = 0.0, math.inf, []
    for f in range(frames):
        c0 = time.process_time()
        w.step(1.0 / C.FPS)
        c1 = time.process_time()
        if f >= WARMUP:
            cpu.append(c1 - c0)
        pos, rot = w.positions, S.quats_to_matrices(w.orientations)
        gap = max(gap, gauge.gap(pos, rot))
        low = min(low, S.lowest_point(scene, pos, rot))
    state = np.concatenate([w.positions.ravel(), w.orientations.ravel(),
                            w.linear_velocities.ravel(), w.angular_velocities.ravel()])
    return {"cpu": 1000.0 * statistics.mean(cpu),
            "still": 1000.0 * statistics.mean(cpu[STILL - WARMUP:]) if frames > STILL else math.nan,
            "gap": gap, "low": low,
            "hash": hashlib.sha1(np.ascontiguousarray(state).tobytes()).hexdigest()[:12]}


def load_solver(tree, name):
    """The `solver` package of source tree `tree`, imported as `name` (kernels load under
    any package name: solver/jit.py)."""
    import importlib.util
    folder = os.path.join(os.path.abspath(tree), "solver")
    spec = importlib.util.spec_from_file_location(name, os.path.join(folder, "__init__.py"),
                                                  submodule_search_locations=[folder])
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def populate(lg, w, scene):
    import scenes as S
    for b in scene.bodies:
        shape = (lg.Box(b.size) if b.shape == "box" else lg.Sphere(b.size[0])
                 if b.shape == "sphere" else lg.Capsule(*b.size))
        q = S.matrix_to_quat(b.rotation)
        if b.mass > 0:
            w.add_body(shape, b.position, q, mass=b.mass, friction=scene.mu)
        else:
            w.add_body(shape, b.position, q, kind="static", friction=scene.mu)
    for j in scene.joints:
        if j.kind == "hinge":
            w.add_hinge(j.a, j.b, j.anchor, j.axis, lower=j.limits[0], upper=j.limits[1])
        elif j.kind == "ball":
            w.add_ball_socket(j.a, j.b, j.anchor)
        else:
            w.add_ragdoll(j.a, j.b, j.anchor, j.axis, *j.limits, swing_axis=j.swing_axis)


def interleaved(args):
    """Every tree's world in this one process, stepped frame by frame in turn (A B A B...),
    each frame's CPU time (`time.thread_time`) kept per tree: the machine's load falls on
    every tree alike, frame by frame."""
    sys.path.insert(0, HERE)
    import scenes as S
    import contacts as C
    worlds = []
    for k, tree in enumerate(args.trees):
        lg = load_solver(tree, f"solver_{k}")
        w = lg.World(gravity=C.GRAVITY, sleeping=False, threads=args.threads)
        populate(lg, w, S.ragdolls(args.count))
        worlds.append(w)
    cpu = [[] for _ in worlds]
    for f in range(args.frames):
        for k, w in enumerate(worlds):
            c0 = time.thread_time()
            w.step(1.0 / C.FPS)
            if f >= WARMUP:
                cpu[k].append(time.thread_time() - c0)
    for tree, w, c in zip(args.trees, worlds, cpu):
        print(f"{tree:30s} {1000 * statistics.mean(c):8.3f} ms/frame (median "
              f"{1000 * statistics.median(c):.3f}; frames {STILL} on "
              f"{1000 * statistics.mean(c[STILL - WARMUP:]):.3f})")


def child(args):
    tree = os.path.abspath(args.child)
    sys.path[:0] = [tree, os.path.join(tree, "bench")]
    settings = dict(kv.split("=", 1) for kv in args.set)
    settings = {k: float(v) if "." in v else int(v) for k, v in settings.items()}
    print(json.dumps(measure(args.frames, args.count, args.threads, settings)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("trees", nargs="*", help="source trees to compare (A B ...)")
    ap.add_argument("--frames", type=int, default=300)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--count", type=int, default=20, help="ragdolls")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                    help="a World() setting for every tree")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument("--interleave", action="store_true",
                    help="one process, the trees' worlds stepped frame by frame in turn "
                         "(no joint gauge or state hash)")
    args = ap.parse_args()
    if args.interleave:
        interleaved(args)
        return
    if args.child:
        child(args)
        return
    runs = {t: [] for t in args.trees}
    for _ in range(args.repeats):
        for t in args.trees:
            cmd = [sys.executable, __file__, "--child", t, "--frames", str(args.frames),
                   "--count", str(args.count), "--threads", str(args.threads)]
            for kv in args.set:
                cmd += ["--set", kv]
            out = subprocess.run(cmd, check=True, capture_output=True, text=True,
                                 cwd=os.path.abspath(t)).stdout
            runs[t].append(json.loads(out.strip().splitlines()[-1]))
            print(t, runs[t][-1], flush=True)
    print(f"{'tree':30s} {'CPU ms/frame':>12s} {'lying still':>12s} {'max gap mm':>11s} "
          f"{'lowest mm':>10s}  state")
    for t, rs in runs.items():
        print(f"{t:30s} {statistics.median(r['cpu'] for r in rs):12.3f} "
              f"{statistics.median(r['still'] for r in rs):12.3f} "
              f"{1000 * max(r['gap'] for r in rs):11.4f} {1000 * rs[0]['low']:10.3f}  "
              f"{' '.join(sorted(set(r['hash'] for r in rs)))}")


if __name__ == "__main__":
    main()
