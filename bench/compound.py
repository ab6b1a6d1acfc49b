"""What a compound body costs: a pile of L-shaped bodies (two boxes each) against the same
pile of single boxes, and of U brackets (three boxes each).

    .venv/py311/bin/python bench/compound.py                 # 100 bodies a pile
    .venv/py311/bin/python bench/compound.py --count 400

Each pile drops `count` bodies in a loose grid of columns onto a static plane and steps 6 s
at 60 fps (World() defaults); prints ms/frame over the whole run and over the last second
(the pile at rest), the contact points at the end and the parts (colliders) stepped.
Asserts nothing.
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

import solver as lg  # noqa: E402
from solver import warmup  # noqa: E402

FRAME = 1.0 / 60.0


def shapes():
    half = 0.1
    return {
        "box": (lg.Box((0.3, 0.1, 0.3)), 1),
        "L (2 boxes)": (lg.Compound([(lg.Box((0.3, half, half)), (0.3, 0, half)),
                                     (lg.Box((half, half, 0.2)), (half, 0, 0.4))]), 2),
        "U (3 boxes)": (lg.Compound([(lg.Box((0.3, half, 0.05)), (0, 0, 0.05)),
                                     (lg.Box((0.05, half, 0.2)), (-0.25, 0, 0.3)),
                                     (lg.Box((0.05, half, 0.2)), (0.25, 0, 0.3))]), 3),
    }


def run(shape, count):
    w = lg.World()
    w.add_body(lg.Plane(), (0, 0, 0), kind="static")
    side = math.ceil(math.sqrt(count / 4))
    for k in range(count):
        column, level = divmod(k, 4)
        x, y = divmod(column, side)
        w.add_body(shape, (1.0 * x, 0.6 * y, 0.5 + 0.8 * level),
                   orientation=(math.cos(0.2 * k), 0.0, 0.0, math.sin(0.2 * k)))
    frames = int(6.0 / FRAME)
    times = []
    for _ in range(frames):
        t0 = time.perf_counter()
        w.step(FRAME)
        times.append(time.perf_counter() - t0)
    return 1000 * sum(times) / frames, 1000 * sum(times[-60:]) / 60, w.contact_count()


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--count", type=int, default=100)
    args = p.parse_args()
    warmup.prepare()
    print(f"{args.count} bodies a pile, 6 s at 60 fps, World() defaults")
    for name, (shape, parts) in shapes().items():
        run(shape, 8)                                  # kernels loaded
        whole, rest, points = run(shape, args.count)
        print(f"  {name:12s} {args.count * parts:4d} parts: {whole:6.2f} ms/frame "
              f"(last second {rest:5.2f}), {points} contact points")


if __name__ == "__main__":
    main()
