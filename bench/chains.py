#!/usr/bin/env python3
"""A hundred dynamic bone chains (hair strands) on one armature that moves sideways: Ligament's
bone chains vs the same chains as Blender rigid bodies and constraints (Bullet).

    python bench/chains.py                       # 100 chains of 5-8 bones, 72 frames
    python bench/chains.py --counts 25,100 --frames 120
    python bench/chains.py --child ligament 100 --profile   (BLENDER_USER_RESOURCES=build/bench-blender)

Needs the `bpy` wheel; the extension is built and installed into build/bench-blender/ as in
bench/blender.py. Each (engine, count) runs in its own Blender process with the same scene:
an armature whose N root bones stand on a 10 cm grid, each with a strand of 5 to 8 connected
bones of 5 cm hanging down (5 + k % 4 bones: 650 dynamic bones at N = 100); the armature is
keyed to move 0.5 m sideways over frames 1-12 and back over 12-24, so the strands whip.

* ligament: every bone selected, one `ligament.add_bone_chain(preset='HAIR')`; the add-on's
  live playback (frame_set) with the bones following their bodies through their constraints.
* bullet: Ligament's helper capsules made Blender rigid bodies (the roots Animated, parented
  to the armature so that they follow it; the others Active, same masses) and each chain
  joint a Generic Spring constraint (SPRING2) with the joint's swing and twist limits and an
  angular spring of the stiffness Ligament's drive has (k = (2 pi f)^2 I for the chain the
  joint carries), neighbours not colliding; Blender's rigid body world steps them on
  frame_set, the bones following the helpers as in the Ligament run.

Figures: setup (the scene and the chains, and for Bullet its rigid bodies and constraints),
wall ms per frame of playback and the process's CPU ms per frame, the solver's share
(Ligament's World.step), the add-on's handlers beyond it, the same frames replayed from
each engine's cache (wall and CPU ms: Blender's own evaluation of the helpers and the bone
constraints, plus Ligament's change check and writes), and the largest gap between a
bone's body and its parent's at their joint over the frames (mm: how well each engine keeps
the strands together; Blender draws connected bones connected whatever their bodies do).
"""

import argparse
import json
import math
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import blender as bench_blender  # noqa: E402  (build + install, environment)
import scenes  # noqa: E402  (Blender GENERIC constraints as ragdoll joints)

MODULE = "bl_ext.user_default.ligament"
SPACING = 0.1
BONE = 0.05


def build_scene(bpy, count, frames):
    """The armature with `count` strands, keyed to move, and its chains. Returns (scene, arm,
    [strands as bone name lists, root first])."""
    from mathutils import Vector
    bpy.ops.preferences.addon_enable(module=MODULE)
    for o in list(bpy.data.objects):
        bpy.data.objects.remove(o)
    scene = bpy.context.scene
    scene.render.fps = 24
    scene.frame_start, scene.frame_end = 1, frames
    scene.ligament_world.frame_end = frames
    data = bpy.data.armatures.new("Scalp")
    arm = bpy.data.objects.new("Scalp", data)
    scene.collection.objects.link(arm)
    arm.location = (0, 0, 2)
    bpy.context.view_layer.objects.active = arm
    arm.select_set(True)
    bpy.ops.object.mode_set(mode='EDIT')
    side = max(int(math.ceil(count ** 0.5)), 1)
    strands = []
    for k in range(count):
        x, y = (k % side) * SPACING, (k // side) * SPACING
        root = data.edit_bones.new(f"s{k:03d}_0")
        root.head, root.tail = (x, y, 0.0), (x, y, -BONE)
        names, parent = [root.name], root
        for i in range(1, 5 + k % 4 + 1):
            eb = data.edit_bones.new(f"s{k:03d}_{i}")
            eb.head, eb.tail = parent.tail, parent.tail - Vector((0, 0, BONE))
            eb.parent, eb.use_connect = parent, True
            names.append(eb.name)
            parent = eb
        strands.append(names)
    bpy.ops.object.mode_set(mode='POSE')
    for names in strands:
        for n in names:
            pb = arm.pose.bones[n]
            (pb if hasattr(pb, "select") else pb.bone).select = True
    data.bones.active = data.bones[strands[0][0]]
    for f, y in ((1, 0.0), (12, 0.5), (24, 0.0)):
        arm.location.y = y
        arm.keyframe_insert("location", index=1, frame=f)
    assert bpy.ops.ligament.add_bone_chain(preset='HAIR') == {'FINISHED'}
    bpy.ops.object.mode_set(mode='OBJECT')
    return scene, arm, strands


def to_bullet(bpy, scene, arm):
    """The chains' helpers as Blender rigid bodies and their joints as Generic Spring
    constraints (see the module's docstring)."""
    lig = sys.modules[MODULE]
    ragdolls = lig.addon.scene.ragdolls
    scene.ligament_world.enabled = False
    arm.ligament_ragdoll.show_bodies = True
    for pb in arm.pose.bones:
        for con in pb.constraints:
            con.mute = False
    bpy.ops.rigidbody.world_add()
    rbw = scene.rigidbody_world
    rbw.point_cache.frame_start, rbw.point_cache.frame_end = scene.frame_start, scene.frame_end
    bodies = ragdolls.bodies(arm)
    roots = [b for b in bodies if b.ligament_ragdoll_part.part == b.ligament_ragdoll_part.chain]
    for b in roots:           # Animated: follows the armature
        world = b.matrix_world.copy()
        b.parent = arm
        b.matrix_world = world
    with bpy.context.temp_override(object=bodies[0], active_object=bodies[0],
                                   selected_objects=bodies):
        assert bpy.ops.rigidbody.objects_add(type='ACTIVE') == {'FINISHED'}
    for b in bodies:
        rb = b.rigid_body
        rb.collision_shape = 'CAPSULE'
        rb.mass = b.ligament_body.mass
        rb.kinematic = b in roots
    # the spring stiffness Ligament's drives have: (2 pi f scale)^2 I_joint = (2 pi f)^2 I_below
    stiffness = {}
    for e in ragdolls.members(arm, 'JOINT'):
        js = e.ligament_joint
        b = js.object_b
        root = b.ligament_ragdoll_part.chain
        c = arm.pose.bones[root].ligament_chain
        below = [o for o in bodies if o.ligament_ragdoll_part.chain == root]
        anchor = e.matrix_world.translation
        inertia = sum(o.ligament_body.mass * (BONE ** 2 / 12 + (o.matrix_world.translation -
                                                               anchor).length_squared)
                      for o in below if (o.matrix_world.translation - anchor).dot(
                          e.matrix_world.col[1].xyz) > 0)
        w = 2 * math.pi * c.stiffness
        stiffness[e.name] = (w * w * inertia, c.damping)
    joints = ragdolls.members(arm, 'JOINT')
    for e, c in bench_blender.bullet_constraints(bpy, scene, joints):
        j = e.ligament_joint
        c.type = 'GENERIC_SPRING'
        c.spring_type = 'SPRING2'
        c.object1, c.object2 = j.object_a, j.object_b
        c.disable_collisions = True
        k_ang, zeta = stiffness[e.name]
        angular = ((-j.swing_1, j.swing_1), (j.limit_ang_lower, j.limit_ang_upper),
                   (-j.swing_2, j.swing_2))
        scenes.limit_generic(c, angular)
        for ax in "xyz":
            setattr(c, f"use_spring_ang_{ax}", True)
            setattr(c, f"spring_stiffness_ang_{ax}", k_ang)
            setattr(c, f"spring_damping_ang_{ax}", min(zeta, 1.0))
    bpy.context.view_layer.update()
    return bodies


def gap_mm(arm, strands, targets):
    """Largest distance (mm) now between where a bone's body puts the bone's head and where
    its parent's body puts the parent's tail: the joints' error (Blender keeps the connected
    bones themselves together whatever their bodies do). `targets`: {bone: its target
    empty}, which sits on the body at the bone's rest place."""
    from mathutils import Vector
    bones = arm.data.bones
    worst = 0.0
    for names in strands:
        placed = [targets[n].parent.matrix_world @ targets[n].matrix_basis for n in names]
        for k in range(1, len(names)):
            tail = placed[k - 1] @ Vector((0, bones[names[k - 1]].length, 0))
            worst = max(worst, (placed[k].translation - tail).length)
    return 1000 * worst


def child(engine, count, frames, profile=False):
    import bpy
    t0 = time.perf_counter()
    scene, arm, strands = build_scene(bpy, count, frames)
    lig = sys.modules[MODULE]
    step_time, handler_time = [0.0], [0.0]
    if engine == "bullet":
        to_bullet(bpy, scene, arm)
    else:
        step_time = bench_blender.time_solver(lig.addon.kernels.solver.World)
        handler_time = bench_blender.time_handlers(bpy)
        bench_blender.load_kernels(lig)
    setup = time.perf_counter() - t0
    scene.frame_set(1)
    scene.frame_set(2)
    if profile:
        import cProfile
        import pstats
        prof = cProfile.Profile()
        prof.enable()
    step_time[0] = handler_time[0] = 0.0
    gap = 0.0
    targets = {o.ligament_ragdoll_part.bone: o for o in bpy.data.objects
               if o.ligament_ragdoll_part.role == 'TARGET'}
    t0, c0 = time.perf_counter(), time.process_time()
    for f in range(3, frames + 1):
        scene.frame_set(f)
        gap = max(gap, gap_mm(arm, strands, targets))
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    n = max(frames - 2, 1)
    # the gap measurement is not part of a frame: time it apart and take it off
    tg = time.perf_counter()
    for _ in range(5):
        gap_mm(arm, strands, targets)
    measure = (time.perf_counter() - tg) / 5
    per_frame, cpu = wall / n - measure, cpu / n - measure
    if profile:
        prof.disable()
        pstats.Stats(prof).sort_stats("tottime").print_stats(20)
    # the same frames again from each engine's cache: no solver, Blender's own evaluation
    # (for Ligament also the add-on's change check and writes)
    t0, c0 = time.perf_counter(), time.process_time()
    for f in range(3, frames + 1):
        scene.frame_set(f)
    replay, replay_cpu = (time.perf_counter() - t0) / n, (time.process_time() - c0) / n
    lig_only = engine == "ligament"
    print("RESULT:" + json.dumps({
        "bones": sum(len(s) - 1 for s in strands), "setup_s": setup,
        "ms_per_frame": 1000 * per_frame, "cpu_ms_per_frame": 1000 * cpu,
        "solver_ms": 1000 * step_time[0] / n if lig_only else None,
        "addon_ms": 1000 * (handler_time[0] - step_time[0]) / n if lig_only else None,
        "replay_ms": 1000 * replay, "replay_cpu_ms": 1000 * replay_cpu, "gap_mm": gap}))


def run_child(engine, count, frames):
    return bench_blender.child_result(__file__, ["--child", engine, count, "--frames", frames],
                                      f"{engine} {count}")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--frames", type=int, default=72)
    p.add_argument("--counts", default="100")
    p.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    p.add_argument("--profile", action="store_true")
    args = p.parse_args()
    if args.child:
        child(args.child[0], int(args.child[1]), args.frames, args.profile)
        return
    bench_blender.ensure_installed()
    run_child("ligament", 1, 3)   # compile (or load) the solver kernels first
    print(f"{'chains':>6} {'bones':>5} {'engine':9} {'setup s':>7} {'ms/frame':>8} "
          f"{'cpu ms':>7} {'solver':>7} {'add-on':>7} {'replay':>7} {'cpu':>6} {'gap mm':>7}"
          "  load avg")
    for count in (int(c) for c in args.counts.split(",")):
        for engine in ("ligament", "bullet"):
            r = run_child(engine, count, args.frames)
            solver, addon = (f"{r[k]:7.2f}" if r[k] is not None else f"{'-':>7}"
                             for k in ("solver_ms", "addon_ms"))
            load = " ".join(f"{x:.2f}" for x in os.getloadavg())
            print(f"{count:6d} {r['bones']:5d} {engine:9} {r['setup_s']:7.1f} "
                  f"{r['ms_per_frame']:8.2f} {r['cpu_ms_per_frame']:7.1f} {solver} {addon} "
                  f"{r['replay_ms']:7.2f} {r['replay_cpu_ms']:6.1f} {r['gap_mm']:7.2f}  {load}",
                  flush=True)


if __name__ == "__main__":
    main()
