"""Contact benchmark: box pyramids in Ligament and in Blender's Bullet, side by side.

    PYTHONPATH=. python bench/contacts.py [--rows 20 40] [--seconds 10] [--big] [--sleeping]

Same scene for both engines: unit boxes (1 m, 1000 kg/m^3, friction 0.5) stacked in a
pyramid on a static ground box, 60 Hz frames, 4 substeps, Ligament 2 solve/relax sweeps
per substep (--iterations) and Bullet's solver_iterations 10 (Blender's default). Prints the median ms per frame,
the top box's drift and the largest drift of any box, and Ligament's time as a ratio of
Bullet's. --big adds the 5050-box (100 rows) pyramid, Ligament only. Ligament runs with
sleeping off, like Blender's Bullet (deactivation off by default); --sleeping adds a row with
it on (the pyramid settles and falls asleep within its first second).
"""

import argparse
import statistics
import sys
import time

import numpy as np

FPS = 60
SUBSTEPS = 4


def pyramid_positions(rows):
    out = []
    for i in range(rows):
        n = rows - i
        for j in range(n):
            out.append(((j - (n - 1) / 2.0) * 1.0, 0.0, 0.5 + i * 1.0))
    return np.array(out)


def run_ligament(rows, seconds, iterations=2, sleeping=False):
    import solver as lg
    w = lg.World(gravity=(0, 0, -9.81), substeps=SUBSTEPS, iterations=iterations,
                 sleeping=sleeping)
    w.add_body(lg.Box((rows + 5.0, 5.0, 0.5)), (0, 0, -0.5), kind="static")
    start = pyramid_positions(rows)
    ids = [w.add_body(lg.Box((0.5, 0.5, 0.5)), p, friction=0.5) for p in start]
    w.step(1.0 / FPS)                                     # compile outside the timing
    times = []
    for _ in range(int(seconds * FPS) - 1):
        t = time.perf_counter()
        w.step(1.0 / FPS)
        times.append(time.perf_counter() - t)
    drift = np.linalg.norm(w.positions[ids] - start, axis=1)
    return statistics.median(times) * 1e3, drift[-1], drift.max()


def run_bullet(rows, seconds):
    try:
        import bpy
    except ImportError:
        return None
    bpy.ops.wm.read_factory_settings(use_empty=True)
    scene = bpy.context.scene
    scene.render.fps = FPS
    scene.render.fps_base = 1.0
    bpy.ops.rigidbody.world_add()
    rbw = scene.rigidbody_world
    rbw.substeps_per_frame = SUBSTEPS
    rbw.solver_iterations = 10
    frames = int(seconds * FPS)
    rbw.point_cache.frame_start = 1
    rbw.point_cache.frame_end = frames + 1
    bpy.ops.mesh.primitive_cube_add(size=1.0, location=(0, 0, -0.5))
    ground = bpy.context.active_object
    ground.scale = (2 * (rows + 5.0), 10.0, 1.0)
    bpy.ops.rigidbody.object_add(type='PASSIVE')
    ground.rigid_body.friction = 0.5
    start = pyramid_positions(rows)
    mesh = bpy.data.meshes.new("unit")
    import bmesh
    bm = bmesh.new()
    bmesh.ops.create_cube(bm, size=1.0)
    bm.to_mesh(mesh)
    bm.free()
    objs = []
    for p in start:
        o = bpy.data.objects.new("box", mesh)
        o.location = p
        scene.collection.objects.link(o)
        objs.append(o)
    bpy.ops.object.select_all(action='DESELECT')
    for o in objs:
        o.select_set(True)
    bpy.context.view_layer.objects.active = objs[0]
    bpy.ops.rigidbody.objects_add(type='ACTIVE')
    for o in objs:
        o.rigid_body.collision_shape = 'BOX'
        o.rigid_body.mass = 1000.0
        o.rigid_body.friction = 0.5
    scene.frame_set(1)
    times = []
    for f in range(2, frames + 1):
        t = time.perf_counter()
        scene.frame_set(f)
        times.append(time.perf_counter() - t)
    dg = bpy.context.evaluated_depsgraph_get()
    end = np.array([o.evaluated_get(dg).matrix_world.translation[:] for o in objs])
    drift = np.linalg.norm(end - start, axis=1)
    return statistics.median(times) * 1e3, drift[-1], drift.max()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, nargs="+", default=[20, 40])
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--big", action="store_true")
    ap.add_argument("--no-bullet", action="store_true")
    ap.add_argument("--iterations", type=int, default=2)
    ap.add_argument("--sleeping", action="store_true")
    args = ap.parse_args()
    print(f"{'scene':<24}{'engine':<12}{'ms/frame':>10}{'top drift m':>13}{'max drift m':>13}"
          f"{'vs Bullet':>11}")
    for rows in args.rows + ([100] if args.big else []):
        n = rows * (rows + 1) // 2
        scene = f"pyramid {rows} ({n} boxes)"
        lig = run_ligament(rows, args.seconds, args.iterations)
        bul = None if args.no_bullet or rows >= 100 else run_bullet(rows, args.seconds)
        ratio = f"{lig[0] / bul[0]:.2f}x" if bul else "-"
        print(f"{scene:<24}{'Ligament':<12}{lig[0]:>10.2f}{lig[1]:>13.4f}{lig[2]:>13.4f}"
              f"{ratio:>11}")
        if args.sleeping:
            sl = run_ligament(rows, args.seconds, args.iterations, sleeping=True)
            ratio = f"{sl[0] / bul[0]:.2f}x" if bul else "-"
            print(f"{scene:<24}{'+sleeping':<12}{sl[0]:>10.2f}{sl[1]:>13.4f}{sl[2]:>13.4f}"
                  f"{ratio:>11}")
        if bul:
            print(f"{scene:<24}{'Bullet':<12}{bul[0]:>10.2f}{bul[1]:>13.4f}{bul[2]:>13.4f}"
                  f"{'1.00x':>11}")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
