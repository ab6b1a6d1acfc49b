#!/usr/bin/env python3
"""Ragdolls built from Rigify's human metarig falling on a floor: Ligament vs Blender's Bullet.

    python bench/ragdolls.py                        # 10, 50 and 160 ragdolls, 60 frames
    python bench/ragdolls.py --counts 10 --frames 120

Needs the `bpy` wheel. The extension is built and installed into build/bench-blender/ as in
bench/blender.py. Each (engine, count) runs in its own Blender process with the same scene:
N metarigs on a grid 1 m up, each made a ragdoll by `ligament.ragdoll_from_armature` (16
bodies, 15 joints), the bones following the bodies through their constraints.

* ligament: the add-on's live playback (frame_set, frames 2..N), and the solver's own share
  (World.step) of it.
* bullet: the same helper objects as Blender rigid bodies (capsule and box shapes, the same
  masses) and the joints as Blender rigid body constraints (Generic with the cone's limits
  about X and Z and the twist about Y for ragdoll joints, Hinge about Z with its limits),
  neighbours not colliding; Blender's rigid body world steps them on frame_set.

Figures: ms per frame of playback, the solver's share (Ligament), the first frame (building
the world), and how many bodies ended below the floor.
"""

import argparse
import json
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import blender as bench_blender  # noqa: E402  (build + install, environment)

MODULE = "bl_ext.user_default.ligament"
SPACING = 2.5


def build_scene(bpy, count, frames):
    """`count` metarig ragdolls 1 m above a static ground. Returns the armatures."""
    bpy.ops.preferences.addon_enable(module=MODULE)
    bpy.ops.preferences.addon_enable(module="rigify")
    for o in list(bpy.data.objects):
        bpy.data.objects.remove(o)
    scene = bpy.context.scene
    scene.render.fps = 24
    scene.frame_start, scene.frame_end = 1, frames
    scene.ligament_world.frame_end = frames
    bpy.ops.mesh.primitive_cube_add(size=1, location=(0, 0, -0.5))
    ground = bpy.context.active_object
    ground.name = "Ground"
    ground.scale = (200, 200, 1)
    ground.ligament_body.enabled = True
    ground.ligament_body.kind = 'STATIC'
    side = max(int(count ** 0.5 + 0.999), 1)
    arms = []
    for k in range(count):
        bpy.ops.object.armature_human_metarig_add()
        arm = bpy.context.active_object
        arm.name = f"Rig{k:03d}"
        arm.location = ((k % side) * SPACING, (k // side) * SPACING, 1.0)
        bpy.context.view_layer.update()
        assert bpy.ops.ligament.ragdoll_from_armature() == {'FINISHED'}
        arms.append(arm)
    return scene, ground, arms


def to_bullet(bpy, scene, ground, arms):
    """The ragdolls' helper bodies and joints as Blender rigid bodies and constraints."""
    lig = sys.modules[MODULE]
    ragdoll = lig.addon.ragdoll
    scene.ligament_world.enabled = False
    bpy.ops.rigidbody.world_add()
    rbw = scene.rigidbody_world
    rbw.point_cache.frame_start, rbw.point_cache.frame_end = scene.frame_start, scene.frame_end

    def add_body(obj, kind):
        with bpy.context.temp_override(object=obj, active_object=obj, selected_objects=[obj]):
            bpy.ops.rigidbody.object_add(type=kind)
    add_body(ground, 'PASSIVE')
    ground.rigid_body.collision_shape = 'BOX'
    for arm in arms:
        arm.ligament_ragdoll.show_bodies = True
        for body in ragdoll.bodies(arm):
            add_body(body, 'ACTIVE')
            rb = body.rigid_body
            rb.collision_shape = body.ligament_body.shape
            rb.mass = body.ligament_body.mass
            rb.friction = body.ligament_body.friction
            rb.linear_damping, rb.angular_damping = 0.05, 0.85   # Bullet's RagdollDemo
        for e in ragdoll.members(arm, 'JOINT'):
            j = e.ligament_joint
            bpy.context.view_layer.objects.active = e
            assert bpy.ops.rigidbody.constraint_add() == {'FINISHED'}, e.name
            c = e.rigid_body_constraint
            c.object1, c.object2 = j.object_a, j.object_b
            c.disable_collisions = True
            if j.type == 'HINGE':
                c.type = 'HINGE'
                c.use_limit_ang_z = True
                c.limit_ang_z_lower, c.limit_ang_z_upper = j.limit_ang_lower, j.limit_ang_upper
                continue
            c.type = 'GENERIC'
            for ax, (lo, hi) in zip("xyz", ((-j.swing_1, j.swing_1),
                                            (j.limit_ang_lower, j.limit_ang_upper),
                                            (-j.swing_2, j.swing_2))):
                setattr(c, f"use_limit_lin_{ax}", True)
                setattr(c, f"limit_lin_{ax}_lower", 0.0)
                setattr(c, f"limit_lin_{ax}_upper", 0.0)
                setattr(c, f"use_limit_ang_{ax}", True)
                setattr(c, f"limit_ang_{ax}_lower", lo)
                setattr(c, f"limit_ang_{ax}_upper", hi)
        # the bones keep following the bodies, as in the Ligament run
        for pb in arm.pose.bones:
            for con in pb.constraints:
                con.mute = False


def child(engine, count, frames):
    import bpy
    scene, ground, arms = build_scene(bpy, count, frames)
    lig = sys.modules[MODULE]
    step_time = [0.0]
    if engine == "bullet":
        to_bullet(bpy, scene, ground, arms)
    else:
        world_cls = lig.solver.World
        original = world_cls.step

        def timed(self, dt=1.0 / 60.0):
            t = time.perf_counter()
            original(self, dt)
            step_time[0] += time.perf_counter() - t
        world_cls.step = timed
    bodies = [b for arm in arms for b in lig.addon.ragdoll.bodies(arm)]
    scene.frame_set(1)
    t0 = time.perf_counter()
    scene.frame_set(2)
    first = time.perf_counter() - t0
    step_time[0] = 0.0
    t0 = time.perf_counter()
    for f in range(3, frames + 1):
        scene.frame_set(f)
    per_frame = (time.perf_counter() - t0) / max(frames - 2, 1)
    below = sum(1 for b in bodies if b.matrix_world.translation.z < 0.0)
    print("RESULT:" + json.dumps({
        "bodies": len(bodies), "first_frame_ms": 1000 * first, "ms_per_frame": 1000 * per_frame,
        "solver_ms": 1000 * step_time[0] / max(frames - 2, 1) if engine == "ligament" else None,
        "below": below, "top": max(b.matrix_world.translation.z for b in bodies)}))


def run_child(engine, count, frames):
    proc = subprocess.run([sys.executable, os.path.abspath(__file__), "--child", engine,
                           str(count), "--frames", str(frames)], capture_output=True, text=True,
                          env=bench_blender._env())
    lines = [l for l in proc.stdout.splitlines() if l.startswith("RESULT:")]
    if not lines:
        raise SystemExit(f"{engine} {count} failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")
    if proc.returncode != 0:
        print(f"note: the {engine} {count} process exited with {proc.returncode} after "
              "reporting its figures", file=sys.stderr)
    return json.loads(lines[-1][7:])


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--frames", type=int, default=60)
    p.add_argument("--counts", default="10,50,160")
    p.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.child:
        child(args.child[0], int(args.child[1]), args.frames)
        return
    bench_blender.ensure_installed()
    run_child("ligament", 1, 3)   # compile (or load) the solver kernels first
    print(f"{'ragdolls':>8} {'bodies':>6} {'engine':9} {'ms/frame':>9} {'solver ms':>9} "
          f"{'1st frame':>10} {'below floor':>11} {'top z':>6}")
    for count in (int(c) for c in args.counts.split(",")):
        for engine in ("ligament", "bullet"):
            r = run_child(engine, count, args.frames)
            solver = f"{r['solver_ms']:9.2f}" if r["solver_ms"] is not None else f"{'-':>9}"
            print(f"{count:8d} {r['bodies']:6d} {engine:9} {r['ms_per_frame']:9.2f} {solver} "
                  f"{r['first_frame_ms']:8.1f}ms {r['below']:11d} {r['top']:6.2f}", flush=True)


if __name__ == "__main__":
    main()
