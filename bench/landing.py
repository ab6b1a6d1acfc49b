"""The landing dip: a 70 kg ragdoll dropped feet first from 1 m onto a static floor.

    .venv/bench/bin/python bench/landing.py                          # World() defaults
    .venv/bench/bin/python bench/landing.py --set substeps=16        # other settings, to compare

The ragdoll is bench/scenes.py's 13-body one (boxes and capsules, cones and hinges), its
masses scaled to 70 kg in total, standing upright with its soles 1 m above the floor; it
lands at 4.4 m/s. Prints the lowest surface point of any body over every frame (m below the
floor's top: the dip; issue 15 asks for at most 2 cm), the frame it happened in, where the
pelvis ends, and ms/frame. Asserts nothing.
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

MASS = 70.0
DROP = 1.0


def scene():
    s = S.Scene("70 kg ragdoll, feet first from 1 m", "ragdolls")
    s.add("box", (5.0, 5.0, 0.5), (0, 0, -0.5))
    S.add_ragdoll(s, (0.0, 0.0, DROP), np.eye(3))
    total = sum(b.mass for b in s.bodies)
    for b in s.bodies:
        b.mass *= MASS / total
    return s


def run(settings, frames):
    import solver as lg
    s = scene()
    w = lg.World(sleeping=False, **settings)
    C.populate(w, s)
    low, when, spent = math.inf, -1, 0.0
    for f in range(frames):
        t = time.perf_counter()
        w.step()
        spent += time.perf_counter() - t
        z = S.lowest_point(s, w.positions, S.quats_to_matrices(w.orientations))
        if z < low:
            low, when = z, f
    return low, when, float(w.positions[1][2]), 1000.0 * spent / frames


def main():
    from solver import warmup
    warmup.prepare()      # compile (or load) every kernel before timing
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--frames", type=int, default=120)
    ap.add_argument("--set", default="", help="World settings, e.g. substeps=16")
    args = ap.parse_args()
    settings = {k: float(v) if "." in v else int(v) for k, v in
                (kv.split("=") for kv in args.set.split(",") if kv)}
    low, when, pelvis, ms = run(settings, args.frames)
    print(f"{scene().name}, World({args.set}), {args.frames} frames at 60 Hz: lowest point "
          f"{low:.4f} m (frame {when}), pelvis ends at z {pelvis:.3f} m, {ms:.2f} ms/frame")


if __name__ == "__main__":
    main()
