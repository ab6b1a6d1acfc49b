"""Ligament at `World()` defaults against Blender's Bullet, side by side in one process.

    .venv/bin/python bench/defaults.py                       # pyramid 20 + 20 ragdolls, 300 frames
    .venv/bin/python bench/defaults.py --threads 1,2         # Ligament at 1 and 2 threads
    .venv/bin/python bench/defaults.py --engines ligament --frames 120

The scenes are bench/scenes.py's (what bench/contacts.py runs): the 210-box pyramid and 20
falling 13-body ragdolls. Ligament runs `World(gravity, sleeping=False, threads=t)` and
nothing else (its own defaults: substeps, iterations, contact and joint stiffness); Bullet
runs Blender's rigid body world at 4 substeps and 10 iterations (`bench/contacts.py`'s
adapter). Both keep every body awake. Figures per engine: median ms/frame after 10 warm-up
frames and its ratio to Bullet's; pyramid: top and largest box drift (m) at the end;
ragdolls: the largest joint separation over every frame (m) and the lowest body point
(m below the ground's top: the landing dip). Prints, asserts nothing.
"""

import argparse
import os
import sys

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
        extra = {} if args.thread_count is None else {"threads": args.thread_count}
        self.w = w = lg.World(gravity=C.GRAVITY, sleeping=False, **extra)
        for i, b in enumerate(scene.bodies):
            shape = lg.Box(b.size) if b.shape == "box" else lg.Capsule(*b.size)
            q = S.matrix_to_quat(b.rotation)
            kind = "dynamic" if b.mass > 0 else "static"
            got = w.add_body(shape, b.position, q, mass=b.mass if b.mass > 0 else None,
                             kind=kind, friction=S.MU)
            assert got == i
        for j in scene.joints:
            if j.kind == "hinge":
                w.add_hinge(j.a, j.b, j.anchor, j.axis, lower=j.limits[0], upper=j.limits[1])
            else:
                w.add_ragdoll(j.a, j.b, j.anchor, j.axis, *j.limits, swing_axis=j.swing_axis)


SCENES = {"pyramid20": lambda: S.pyramid(20), "ragdolls": lambda: S.ragdolls(20),
          "pyramid40": lambda: S.pyramid(40)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--frames", type=int, default=300)
    ap.add_argument("--threads", default="1,2", help="Ligament thread counts to run")
    ap.add_argument("--engines", default="bullet,ligament")
    ap.add_argument("--scenes", default="pyramid20,ragdolls")
    args = ap.parse_args()
    args.seconds = args.frames / C.FPS
    engines = args.engines.split(",")
    if "bullet" in engines and C.missing(C.BlenderBullet):
        print("skipping Bullet (Blender):", C.missing(C.BlenderBullet))
        engines.remove("bullet")
    import solver
    w = solver.World()
    print(f"60 Hz, {args.frames} frames, {os.cpu_count()} cores; Ligament World() defaults "
          f"(substeps {w.substeps}, iterations {w.iterations}), Bullet 4 substeps / "
          f"{C.BULLET_ITERATIONS} iterations")
    for name in args.scenes.split(","):
        scene = SCENES[name]()
        print(C.line("scene", "engine", "ms/frame", "vs Bullet", "sim s",
                     *C.FIGURES[scene.kind]), flush=True)
        base = None
        runs = []
        if "bullet" in engines:
            runs.append(("Bullet (Blender)", C.BlenderBullet, None))
        if "ligament" in engines:
            runs += [(f"Ligament {t} thr" if t else "Ligament", LigamentDefaults,
                      int(t) if t else None) for t in args.threads.split(",")]
        for label, engine, threads in runs:
            args.thread_count = threads
            ms, sim, figures = C.run(engine, scene, args, None)
            if engine is C.BlenderBullet:
                base = ms
            ratio = f"{ms / base:.2f}x" if base else "-"
            print(C.line(scene.name, label, ms, ratio, f"{sim:.1f}", *figures), flush=True)
        print()


if __name__ == "__main__":
    main()
