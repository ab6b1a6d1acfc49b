#!/usr/bin/env python3
"""Live Mode's frame time: metarig ragdolls held in Live Mode at a frame (live/session.py),
one and ten of them.

    .venv/blender-5.0.1/bin/python bench/live.py                 # 1 and 10 ragdolls
    .venv/blender-5.0.1/bin/python bench/live.py --counts 1,10,40 --steps 96

Needs the `bpy` wheel. The extension is built and installed into build/bench-blender/ as in
bench/blender.py, and each count runs in a Blender process of its own with bench/ragdolls.py's
scene (N metarigs on a grid 1 m above a floor, made ragdolls by one operator), their pose
drives at full strength. The scene is simulated to frame 10, Live Mode starts there, and
each ragdoll's head is dragged in a circle for `--steps` steps, then the ragdolls are dropped
and stepped as many times again.

Figures, ms per step (mean over the steps): the session's step (the frame's inputs, the
solver and the bodies' transforms written), the solver's share of it (`World.step`),
Blender's evaluation of what was written (`view_layer.update`: the helpers and the bones
following them; the viewport's drawing is not in it), and their sum, a frame of Live Mode.
The scene's frame rate is kept while that sum stays under 1000 / fps ms (41.7 at 24 fps);
above it Live Mode runs slower and its header says so. Start: building Live Mode's own
World and loading the cached state of the frame."""

import argparse
import json
import math
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import blender as bench_blender  # noqa: E402  (build + install, environment)
import ragdolls  # noqa: E402  (the metarig ragdolls' scene)

MODULE = ragdolls.MODULE
FRAME = 10


def child(count, steps):
    import bpy
    from mathutils import Vector
    scene, _, arms = ragdolls.build_scene(bpy, count, 60)
    for arm in arms:
        arm.ligament_ragdoll.drive_strength = 1.0
    lig = sys.modules[MODULE]
    bench_blender.load_kernels(lig)
    for f in range(1, FRAME + 1):
        scene.frame_set(f)
    solver = bench_blender.time_solver(lig.addon.kernels.solver.World)
    t = time.perf_counter()
    s = lig.addon.live.session.LiveSession(scene, max_force=2000.0)
    s.start()
    start = time.perf_counter() - t
    heads = []
    for arm in arms:
        head = arm.matrix_world @ arm.pose.bones["spine.006"].head
        # from above: a ray along the grid's rows would meet the heads in front first
        grabbed = s.grab(tuple(head + Vector((0.0, 0.0, 3.0))), (0.0, 0.0, -1.0))
        heads.append(head if grabbed is not None else None)
        if grabbed is not None:
            s.release(pin=True)      # each head pulled by its own pin, moved below
    pins = [j for j in s.pins.values()]
    phases = {}
    for phase in ("dragged", "dropped"):
        if phase == "dropped":
            s.drop()
        solver[0] = solver[1] = 0.0
        step = evaluate = 0.0
        for k in range(steps):
            if phase == "dragged":
                a = 2.0 * math.pi * k / steps
                for j, head in zip(pins, [h for h in heads if h is not None]):
                    s.world.set_pin_target(j, (head.x + 0.3 * math.cos(a), head.y,
                                               head.z + 0.3 * math.sin(a)))
            t = time.perf_counter()
            s.step()
            t1 = time.perf_counter()
            bpy.context.view_layer.update()
            step += t1 - t
            evaluate += time.perf_counter() - t1
        phases[phase] = {"step_ms": 1000.0 * step / steps,
                         "solver_ms": 1000.0 * solver[0] / steps,
                         "evaluate_ms": 1000.0 * evaluate / steps,
                         "frame_ms": 1000.0 * (step + evaluate) / steps}
    dt = s.sim.dt
    s.stop()
    print("RESULT:" + json.dumps({"count": count, "bodies": len(s.saved), "start_s": start,
                                  "budget_ms": 1000.0 * dt, "phases": phases,
                                  "load": os.getloadavg()[0]}))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--counts", default="1,10")
    p.add_argument("--steps", type=int, default=96)
    p.add_argument("--child", type=int, help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.child:
        child(args.child, args.steps)
        return
    bench_blender.ensure_installed()
    print(f"{'ragdolls':>8} {'bodies':>6} {'phase':8} {'step':>8} {'solver':>8} "
          f"{'evaluate':>9} {'frame':>8} {'budget':>8} {'start':>7} {'load':>5}")
    for count in (int(c) for c in args.counts.split(",")):
        r = bench_blender.child_result(__file__, ["--child", count, "--steps", args.steps],
                                       f"Live Mode with {count}")
        for phase, f in r["phases"].items():
            print(f"{r['count']:8d} {r['bodies']:6d} {phase:8} {f['step_ms']:6.1f}ms "
                  f"{f['solver_ms']:6.1f}ms {f['evaluate_ms']:7.1f}ms {f['frame_ms']:6.1f}ms "
                  f"{r['budget_ms']:6.1f}ms {r['start_s']:6.2f}s {r['load']:5.1f}")


if __name__ == "__main__":
    main()
