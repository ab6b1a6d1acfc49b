"""What force fields cost: ms per frame of a grid of free boxes 5 m apart (no gravity, no
contacts: what is left is integration and the fields), with no field, one field of each kind,
and all six at once. The fields are weak (the boxes move centimetres, never meet): a field's
cost does not depend on its strength, and a scene the fields blow into a pile would measure
the pile.

    PYTHONPATH=. .venv/py311/bin/python bench/fields.py              # 1000 boxes, 120 frames
    PYTHONPATH=. .venv/py311/bin/python bench/fields.py --bodies 4000 --frames 60

A field is evaluated at every awake dynamic body every substep (solver/fields.py), so its
cost grows with bodies x substeps x fields; the figures are the median frame after the first
10 (the kernels' load kept out), sleeping off, 8 substeps, one thread.
"""

import argparse
import statistics
import time

import solver as lg

FIELDS = {
    "force": dict(position=(0, 0, -20), strength=0.1, falloff_power=1.0),
    "wind": dict(axis=(1, 0, 0), strength=0.1, shape="plane"),
    "vortex": dict(strength=0.001),
    "turbulence": dict(strength=0.1, size=2.0),
    "drag": dict(strength=0.1, damping=0.1),
    "harmonic": dict(strength=0.001, damping=0.2),
}


def world(n, fields):
    w = lg.World(gravity=(0, 0, 0), substeps=8, sleeping=False, threads=1)
    side = int(round(n ** (1 / 3))) + 1
    k = 0
    for z in range(side):
        for y in range(side):
            for x in range(side):
                if k == n:
                    break
                w.add_body(lg.Box((0.2, 0.2, 0.2)), (5.0 * x, 5.0 * y, 5.0 * z), mass=1.0,
                           linear_velocity=(0.01, 0.0, 0.0))
                k += 1
    for kind in fields:
        w.add_field(kind, **FIELDS[kind])
    return w


def ms_per_frame(n, frames, fields):
    w = world(n, fields)
    times = []
    for _ in range(frames):
        t = time.perf_counter()
        w.step(1 / 60)
        times.append(1000 * (time.perf_counter() - t))
    return statistics.median(times[10:])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bodies", type=int, default=1000)
    ap.add_argument("--frames", type=int, default=120)
    args = ap.parse_args()
    base = ms_per_frame(args.bodies, args.frames, ())
    print(f"{args.bodies} free boxes, {args.frames} frames, 8 substeps, one thread")
    print(f"{'fields':<12} {'ms/frame':>9} {'field us/body/substep':>22}")
    print(f"{'none':<12} {base:9.2f}")
    per = 8 * args.bodies / 1000.0
    for kinds in [(k,) for k in FIELDS] + [tuple(FIELDS)]:
        ms = ms_per_frame(args.bodies, args.frames, kinds)
        name = kinds[0] if len(kinds) == 1 else "all six"
        print(f"{name:<12} {ms:9.2f} {(ms - base) / per:22.3f}")


if __name__ == "__main__":
    main()
