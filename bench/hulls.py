"""What a convex hull costs: building it (solver.hull's Quickhull kernel against the
incremental numpy hull of solver.reference, and scipy's Qhull when scipy is importable),
simplifying it to a vertex limit, and colliding compounds of many hull parts, as the
add-on's scene check does at the start frame.

    .venv/py311/bin/python bench/hulls.py
    .venv/py311/bin/python bench/hulls.py --sizes 642 2562 10000 --parts 500

Times are CPU seconds of this process (time.process_time), so other work on the machine
counts less; the kernels are compiled (or loaded) first (solver.warmup.prepare), outside the times. The old hull
is timed only up to --old-limit points (it is quadratic). Asserts nothing.
"""

import argparse
import math
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

import numpy as np  # noqa: E402

import solver as lg  # noqa: E402
from solver import warmup  # noqa: E402
from solver.hull import convex_hull  # noqa: E402
from solver.reference import convex_hull_incremental  # noqa: E402


def sphere_points(n, seed=0):
    p = np.random.default_rng(seed).normal(size=(n, 3))
    return p / np.linalg.norm(p, axis=1)[:, None]


def cpu(fn, *args, **kw):
    t = time.process_time()
    out = fn(*args, **kw)
    return time.process_time() - t, out


def scipy_hull():
    try:
        from scipy.spatial import ConvexHull
    except ImportError:
        return None
    return lambda p: ConvexHull(p).simplices


def torus_parts(count, vertices, seed=1):
    """`count` convex blobs of `vertices` points each around a torus of radius 2 lying on
    z = 0: (points, position) per part, the parts of a Compound."""
    rng = np.random.default_rng(seed)
    parts = []
    for k in range(count):
        a = 2.0 * math.pi * k / count
        centre = (2.0 * math.cos(a), 2.0 * math.sin(a), 0.5)
        blob = rng.normal(size=(vertices, 3)) * (0.03, 0.03, 0.25)
        parts.append((blob, centre))
    return parts


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[642, 2562, 10000, 100000])
    ap.add_argument("--old-limit", type=int, default=2562)
    ap.add_argument("--parts", type=int, default=500)
    ap.add_argument("--part-vertices", type=int, default=64)
    args = ap.parse_args(argv)
    warmup.prepare()                                     # compile or load the kernels
    convex_hull(sphere_points(100))
    qhull = scipy_hull()
    print("hull of n points on a sphere, CPU s" + ("" if qhull else " (scipy not importable)"))
    print(f"{'n':>8} {'quickhull':>10} {'vertices':>9} {'limit 64':>9} {'old':>9}"
          + (f" {'scipy':>9}" if qhull else ""))
    for n in args.sizes:
        p = sphere_points(n)
        t_new, (v, _) = cpu(convex_hull, p)
        t_cap, _ = cpu(convex_hull, p, max_vertices=64)
        t_old = cpu(convex_hull_incremental, p)[0] if n <= args.old_limit else float("nan")
        line = f"{n:>8} {t_new:>10.4f} {len(v):>9} {t_cap:>9.4f} {t_old:>9.3f}"
        if qhull:
            line += f" {cpu(qhull, p)[0]:>9.4f}"
        print(line)

    print(f"\na Compound of {args.parts} hull parts ({args.part_vertices} points each) on a "
          "box floor, CPU s")
    parts = torus_parts(args.parts, args.part_vertices)
    t_shapes, shapes = cpu(lambda: [(lg.ConvexHull(b), c, (1, 0, 0, 0)) for b, c in parts])
    w = lg.World()
    w.add_body(lg.Box((5, 5, 0.5)), (0, 0, -0.5), kind="static")
    t_body, _ = cpu(w.add_body, lg.Compound(shapes), (0, 0, 0.02))
    t_collide, _ = cpu(w.collide, 1e-6)
    print(f"hulls {t_shapes:.3f}  add_body {t_body:.3f}  first collide {t_collide:.3f}  "
          f"contacts {w.contact_count()}")
    print("\ntwo overlapping hulls of n points on a sphere: the first collide, CPU s")
    for n in (16, 32, 64, 128):
        w = lg.World()
        p = sphere_points(n) * 0.5
        w.add_body(lg.ConvexHull(p), (0, 0, 0), kind="static")
        w.add_body(lg.ConvexHull(p), (0.1, 0, 0.9))
        print(f"{n:>8} {cpu(w.collide, 1e-6)[0]:.4f}")


if __name__ == "__main__":
    main()
