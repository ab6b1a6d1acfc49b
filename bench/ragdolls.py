#!/usr/bin/env python3
"""Ragdolls built from Rigify's human metarig falling on a floor: Ligament vs Blender's Bullet.

    python bench/ragdolls.py                        # 10, 50 and 160 ragdolls, 60 frames
    python bench/ragdolls.py --counts 10 --frames 120
    python bench/ragdolls.py --counts 50 --jointed-substeps 8   # Ligament's ragdolls at 8
    python bench/ragdolls.py --stages 50           # what Ligament's start frame spends
    python bench/ragdolls.py --frame-parts 1       # where a live frame goes, stage by stage
    python bench/ragdolls.py --solver-parts        # one ragdoll's step: headless to Blender
    python bench/ragdolls.py --save-world /tmp/metarig.pkl   # the add-on's World, for
        # bench/kernel_profile.py --world /tmp/metarig.pkl (profiled headless)
    python bench/ragdolls.py --counts 50 --engines ligament,prebuilt,bullet

Needs the `bpy` wheel. The extension is built and installed into build/bench-blender/ as in
bench/blender.py. Each (engine, count) runs in its own Blender process with the same scene:
N metarigs on a grid 1 m up (one from Rigify's operator, the rest copies of it), all made
ragdolls by one `ligament.ragdoll_from_armature(use_selected=True)` (16 bodies, 15 joints
each), the bones following the bodies through their constraints.

* ligament: the add-on's live playback (frame_set, frames 2..N), and the solver's own share
  (World.step) of it.
* prebuilt: the same, with the simulation built ahead of play as the UI does once edits
  pause (the add-on's idle-time build, `ui.handlers.prebuild`), so the start frame finds it.
* bullet: the same helper objects as Blender rigid bodies (capsule and box shapes, the same
  masses) and the joints as Blender rigid body constraints (Generic with the cone's limits
  about X and Z and the twist about Y for ragdoll joints, Hinge about Z with its limits
  negated to Blender's sign), neighbours not colliding; Blender's rigid body world steps them on frame_set.

Figures: setup (building the scene: metarigs, ragdolls, and for Bullet its rigid bodies and
constraints), ms per frame of playback (wall clock) and the process's CPU ms per frame (above
the wall clock when the solver's islands run on two threads), the solver's share (Ligament),
the rest of the add-on's handlers (Python around the solver: change checks, kinematic
targets, writing the transforms) and what is left of a frame (Blender's own evaluation: the
helpers' transforms, the bone constraints), the same frames replayed from each engine's
cache (no solver: Blender's evaluation, plus for Ligament the add-on's check and writes,
its own column), the first frame (from the start frame, which
builds the World, to the first simulated frame) and the start frame alone, the kernels'
load (once per Blender session, before the first frame and not in it), how many bodies
ended below the floor, and the load average after the run (the machine may be shared).

Then the cost each engine adds to Blender: ms per frame above Blender's own evaluation of
the same frames with nothing simulated (`nothing_simulated`: the scene played again with the
simulation off; for Bullet its rigid body world disabled, which still has Blender evaluate
every rigid body and the bones following them each frame; for Ligament its world disabled
and the bodies tagged for a transform update each frame, the tagging's own time taken out,
since a disabled Ligament world alone has Blender evaluate nothing), wall clock and CPU,
Ligament's cost over Bullet's in the same run, and the add-on's own share as the CPU time
of Blender's main thread in its handlers with the solver's step taken out (live, and
replayed from the cache), steadier than the wall clock when the machine is shared, and the
solver's step as CPU time of the main thread (all of it while the islands fit one thread's
share, as one ragdoll's does; without the worker threads' share at bigger counts).
`--child ENGINE N --profile` (with BLENDER_USER_RESOURCES=build/bench-blender) prints
cProfile's top functions of the setup and of the playback of one run (main thread only:
the solver's worker threads show as lock waits).
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
import scenes  # noqa: E402  (Blender GENERIC constraints as ragdoll joints)

MODULE = "bl_ext.user_default.ligament"
SPACING = 2.5
NOTHING_SIMULATED = ("Bullet's world disabled; Ligament's world disabled and the bodies "
                     "tagged as its frames tag them")


def build_scene(bpy, count, frames):
    """`count` metarig ragdolls 1 m above a static ground. Returns the armatures.

    Operators cost a depsgraph update of the whole scene each (N of them is O(N^2)): one
    metarig comes from Rigify's operator and the others are copies of it (object and
    armature data), and one `ligament.ragdoll_from_armature` makes every ragdoll."""
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
    bpy.ops.object.armature_human_metarig_add()
    first = bpy.context.active_object
    arms = [first]
    for k in range(1, count):
        arm = first.copy()
        arm.data = first.data.copy()
        for coll in first.users_collection:
            coll.objects.link(arm)
        arms.append(arm)
    for k, arm in enumerate(arms):
        arm.name = f"Rig{k:03d}"
        arm.location = ((k % side) * SPACING, (k // side) * SPACING, 1.0)
    bpy.context.view_layer.update()
    with bpy.context.temp_override(active_object=first, object=first, selected_objects=arms):
        assert bpy.ops.ligament.ragdoll_from_armature(use_selected=True) == {'FINISHED'}
    assert all(arm.ligament_ragdoll.enabled for arm in arms)
    return scene, ground, arms


def to_bullet(bpy, scene, ground, arms):
    """The ragdolls' helper bodies and joints as Blender rigid bodies and constraints.

    As in build_scene, operators run once: `rigidbody.objects_add` on every body at once,
    and `rigidbody.constraint_add` on one empty whose copies (an object copy keeps its
    rigid body constraint) are linked into the world's constraint collection."""
    lig = sys.modules[MODULE]
    ragdoll = lig.addon.scene.ragdolls   # bodies and members of a ragdoll
    scene.ligament_world.enabled = False
    bpy.ops.rigidbody.world_add()
    rbw = scene.rigidbody_world
    rbw.point_cache.frame_start, rbw.point_cache.frame_end = scene.frame_start, scene.frame_end
    bodies = [b for arm in arms for b in ragdoll.bodies(arm)]
    for arm in arms:
        arm.ligament_ragdoll.show_bodies = True
        # the bones keep following the bodies, as in the Ligament run
        for pb in arm.pose.bones:
            for con in pb.constraints:
                con.mute = False
    for objs, kind in (([ground], 'PASSIVE'), (bodies, 'ACTIVE')):
        with bpy.context.temp_override(object=objs[0], active_object=objs[0],
                                       selected_objects=objs):
            assert bpy.ops.rigidbody.objects_add(type=kind) == {'FINISHED'}
    ground.rigid_body.collision_shape = 'BOX'
    for body in bodies:
        rb = body.rigid_body
        rb.collision_shape = body.ligament_body.shape
        rb.mass = body.ligament_body.mass
        rb.friction = body.ligament_body.friction
        rb.linear_damping, rb.angular_damping = 0.05, 0.85   # Bullet's RagdollDemo
    joints = [e for arm in arms for e in ragdoll.members(arm, 'JOINT')]
    for e, c in bench_blender.bullet_constraints(bpy, scene, joints):
        add_constraint(c, e.ligament_joint)
    bpy.context.view_layer.update()
    assert len(rbw.constraints.objects) == len(joints)
    return bodies


def add_constraint(c, j):
    """Blender rigid body constraint `c` as Ligament joint settings `j`."""
    c.object1, c.object2 = j.object_a, j.object_b
    c.disable_collisions = True
    if j.type == 'HINGE':
        c.type = 'HINGE'
        # Blender's hinge limits measure the angle the other way round (bench/blender.py)
        c.use_limit_ang_z = True
        c.limit_ang_z_lower, c.limit_ang_z_upper = -j.limit_ang_upper, -j.limit_ang_lower
        return
    c.type = 'GENERIC'
    scenes.limit_generic(c, ((-j.swing_1, j.swing_1), (j.limit_ang_lower, j.limit_ang_upper),
                             (-j.swing_2, j.swing_2)))


def child(engine, count, frames, profile=False, jointed_substeps=0):
    import bpy
    if profile:
        import cProfile
        import pstats
        prof = cProfile.Profile()
        prof.enable()
    t0 = time.perf_counter()
    scene, ground, arms = build_scene(bpy, count, frames)
    scene.ligament_world.jointed_substeps = jointed_substeps
    lig = sys.modules[MODULE]
    step_time = [0.0, 0.0]
    if engine == "bullet":
        to_bullet(bpy, scene, ground, arms)
    else:   # ligament, prebuilt
        step_time = bench_blender.time_solver(lig.addon.kernels.solver.World)
    # Time spent in the add-on's handlers (frame change and depsgraph update): the rest of
    # frame_set is Blender's own evaluation (transforms, bone constraints, drawing data).
    handler_time = bench_blender.time_handlers(bpy)
    setup = time.perf_counter() - t0
    kernels = None
    if engine != "bullet":   # once per Blender session, not per simulation
        t0 = time.perf_counter()
        bench_blender.load_kernels(lig)
        kernels = time.perf_counter() - t0
    if profile:
        prof.disable()
        print(f"--- setup {setup:.1f} s")
        pstats.Stats(prof).sort_stats("tottime").print_stats(15)
        prof = cProfile.Profile()
        prof.enable()
    bodies = [b for arm in arms for b in lig.addon.scene.ragdolls.bodies(arm)]
    if engine == "prebuilt":   # the idle-time build the UI runs once edits pause
        lig.addon.ui.handlers._last_edit[0] = 0.0
        lig.addon.ui.handlers.prebuild()
        assert lig.addon.runtime.cache.get(scene) is not None, "the prebuild built nothing"
    # The first frame: from the start frame (Ligament builds its world and checks the
    # scene, Bullet builds its own) to the first simulated frame.
    step_time[0] = handler_time[0] = 0.0
    t0 = time.perf_counter()
    scene.frame_set(1)
    build = time.perf_counter() - t0
    scene.frame_set(2)
    first = time.perf_counter() - t0
    first_solver = step_time[0]
    step_time[:] = handler_time[:] = [0.0, 0.0]
    t0, c0 = time.perf_counter(), time.process_time()
    for f in range(3, frames + 1):
        scene.frame_set(f)
    n = max(frames - 2, 1)
    per_frame = (time.perf_counter() - t0) / n
    cpu = (time.process_time() - c0) / n
    if profile:
        prof.disable()
        print(f"--- first frame {1000 * first:.1f} ms, frames {1000 * per_frame:.1f} ms/frame")
        pstats.Stats(prof).sort_stats(os.environ.get("PROFILE_SORT", "tottime")).print_stats(
            int(os.environ.get("PROFILE_LINES", "25")))
    # The same frames again, from each engine's cache: no solver, what is left is Blender's
    # own evaluation (and, for Ligament, the add-on's change check and transform writes).
    live_handler, live_step, live_step_cpu = handler_time[0], step_time[0], step_time[1]
    # the add-on's own Python (its handlers but the solver's step): CPU of Blender's main
    # thread, steadier than the wall clock on a shared machine
    addon_cpu = handler_time[1] - step_time[1]
    handler_time[:] = [0.0, 0.0]
    t0 = time.perf_counter()
    for f in range(3, frames + 1):
        scene.frame_set(f)
    replay = (time.perf_counter() - t0) / n
    replay_addon = handler_time[0] / n
    replay_addon_cpu = handler_time[1] / n
    below = sum(1 for b in bodies if b.matrix_world.translation.z < 0.0)
    top = max(b.matrix_world.translation.z for b in bodies)
    idle, idle_cpu = nothing_simulated(bpy, scene, engine, bodies, frames, handler_time)
    lig_only = engine != "bullet"
    print("RESULT:" + json.dumps({
        "bodies": len(bodies), "setup_s": setup, "kernels_s": kernels,
        "first_frame_ms": 1000 * first, "build_ms": 1000 * build,
        "first_solver_ms": 1000 * first_solver if lig_only else None,
        "ms_per_frame": 1000 * per_frame, "cpu_ms_per_frame": 1000 * cpu,
        "solver_ms": 1000 * live_step / n if lig_only else None,
        "solver_cpu_ms": 1000 * live_step_cpu / n if lig_only else None,
        "addon_ms": 1000 * (live_handler - live_step) / n if lig_only else None,
        "addon_cpu_ms": 1000 * addon_cpu / n if lig_only else None,
        "replay_addon_cpu_ms": 1000 * replay_addon_cpu if lig_only else None,
        "replay_ms": 1000 * replay, "replay_addon_ms": 1000 * replay_addon if lig_only else None,
        "idle_ms": 1000 * idle, "idle_cpu_ms": 1000 * idle_cpu,
        "below": below, "top": top}))


def nothing_simulated(bpy, scene, engine, bodies, frames, handler_time):
    """Seconds per frame (wall clock, CPU) of Blender's own evaluation of the frames with
    nothing simulated: the same scene played again with the simulation off.

    Bullet: the rigid body world disabled. Blender still evaluates every rigid body object
    each frame (the world's nodes depend on time) and the bones following them: as much as
    its replay from the point cache. Ligament: the world disabled evaluates nothing at all
    (no object changes, no node depends on time), which is no frame of a simulation; here
    every helper body is also tagged for a transform update each frame (as the add-on tags
    the bodies it moves), so that Blender evaluates the bodies and the bones following them
    as in a simulated frame; the tagging's own time (a loop in a frame handler) is taken out,
    since the add-on's frame pays it. Both are the floor a simulated frame cannot go under."""
    tags = [b.update_tag for b in bodies]
    refresh = {'OBJECT'}
    tagging = [0.0, 0.0]

    def tag(*_args):
        t, c = time.perf_counter(), time.thread_time()
        for update_tag in tags:
            update_tag(refresh=refresh)
        tagging[0] += time.perf_counter() - t
        tagging[1] += time.thread_time() - c
    if engine == "bullet":
        scene.rigidbody_world.enabled = False
    else:
        scene.ligament_world.enabled = False
        bpy.app.handlers.frame_change_pre.append(tag)
    scene.frame_set(1)
    scene.frame_set(2)
    handler_time[0] = tagging[0] = tagging[1] = 0.0
    t0, c0 = time.perf_counter(), time.process_time()
    for f in range(3, frames + 1):
        scene.frame_set(f)
    n = max(frames - 2, 1)
    wall = time.perf_counter() - t0 - tagging[0] - handler_time[0]
    cpu = time.process_time() - c0 - tagging[1] - handler_time[0]
    if tag in bpy.app.handlers.frame_change_pre:
        bpy.app.handlers.frame_change_pre.remove(tag)
    return wall / n, cpu / n


# (module where the caller looks the name up, the name, the label): a function is timed by
# replacing it in the module that calls it; a class's method on the class. The build runs
# as generators of units of work (runtime/building.py): only plain functions are timed.
STAGES = (("runtime.building", "BuildSession.build", "build (all of it)"),
          ("runtime.simulation", "Simulation.advance_build", "  the Simulation"),
          ("world.build", "fit_shape", "    shapes fitted"),
          ("world.build", "add_bodies", "    bodies added"),
          ("world.joints", "JointBatch.take", "    joints"),
          ("world.joints", "JointBatch.flush", "    joints"),
          ("world.build", "add_joint", "    joints"),
          ("runtime.simulation", "attach", "    ragdolls attached, start poses"),
          ("runtime.simulation", "Watch", "    change watch"),
          (None, None, "  scene check"),        # the Simulation's own clock of its checks
          ("runtime.cache", "drop_if_changed", "change check"))


def stages(count, repeats=6):
    """The start frame's stages at `count` ragdolls (`--stages`): the cache is dropped and the
    start frame played `repeats` times in one Blender session; prints the fastest start frame
    and each stage's time in it (perf_counter around the add-on's functions)."""
    import bpy
    import importlib
    scene, _, _ = build_scene(bpy, count, 10)
    lig = sys.modules[MODULE]
    bench_blender.load_kernels(lig)
    spent = {}
    for mod_name, path, label in STAGES:
        if mod_name is None:
            continue
        owner = importlib.import_module(f"{MODULE}.addon.{mod_name}")
        *outer, name = path.split(".")   # a module function or a class's method
        for attr in outer:
            owner = getattr(owner, attr)
        fn = getattr(owner, name)

        def timed(*args, _fn=fn, _label=label, **kw):
            t = time.perf_counter()
            try:
                return _fn(*args, **kw)
            finally:
                spent[_label] = spent.get(_label, 0.0) + time.perf_counter() - t
        setattr(owner, name, timed)
    best = None
    for _ in range(repeats):
        scene.frame_set(2)
        lig.addon.runtime.cache.invalidate(scene)   # the start frame builds the World again
        spent.clear()
        t = time.perf_counter()
        scene.frame_set(1)
        total = time.perf_counter() - t
        spent["  scene check"] = lig.addon.runtime.cache.get(scene).check_seconds
        if best is None or total < best[0]:
            best = (total, dict(spent))
    total, parts = best
    print(f"start frame at {count} ragdolls: {1000 * total:.1f} ms (fastest of {repeats})")
    for _, _, label in dict.fromkeys((None, None, label) for _, _, label in STAGES):
        print(f"  {label:34s} {1000 * parts.get(label, 0.0):7.1f} ms")
    rest = total - parts.get("build (all of it)", 0) - parts.get("change check", 0)
    print(f"  {'the rest (Blender, the writes)':34s} {1000 * rest:7.1f} ms")
    floor = min(_read_all(scene) for _ in range(3))
    print(f"  {'(reading what the build needs)':34s} {1000 * floor:7.1f} ms")

# (owner, attribute, label, parent label): the stages of a live frame `frame_parts` times; the
# owner is "folder.module" or "folder.module.Class" under addon/, "World" (the solver's World
# class) or "world_module" (the module World.step looks its kernels up in)
FRAME_PARTS = (
    ("ui.handlers", "_others_edit_in_frames", "others' handlers", "handler"),
    ("runtime.cache", "apply_frame", "apply_frame", "handler"),
    ("runtime.cache", "drop_if_changed", "change check", "apply_frame"),
    ("runtime.changes", "tagged_since_evaluation", "update tags", "change check"),
    ("runtime.changes", "Reads", "bulk reads (uids)", "change check"),
    ("runtime.changes", "_user_moved", "user-moved check", "change check"),
    ("runtime.changes.Watch", "transforms", "watched transforms", "change check"),
    ("runtime.changes", "revise", "keys", "change check"),
    ("runtime.simulation.Simulation", "simulate_to", "simulate_to", "apply_frame"),
    ("runtime.simulation.Simulation", "step_to", "step_to", "simulate_to"),
    ("runtime.simulation.Simulation", "send_inputs", "inputs", "step_to"),
    ("World", "step", "World.step", "step_to"),
    ("World", "_check_state", "state check", "World.step"),
    ("World", "_wake_disturbed", "wake", "World.step"),
    ("World", "_collide", "collision", "World.step"),
    ("World", "_batches", "batches (partition)", "World.step"),
    ("world_module", "step_frame", "step_frame", "World.step"),
    ("World", "_fall_asleep", "sleep, finite", "World.step"),
    ("World", "save_state", "save_state", "step_to"),
    ("runtime.simulation.Simulation", "_bulk_poses", "bulk poses", "step_to"),
    ("runtime.simulation.Simulation", "write_bulk", "bulk write", "apply_frame"),
)


def frame_parts(count, repeats=12):
    """Where a live frame goes at `count` ragdolls (`--frame-parts N`): frames 3-30 played
    `repeats` times in one Blender session, each time simulated again (the cached frames
    after 2 forgotten), every stage of FRAME_PARTS timed (perf_counter_ns around it); prints
    each stage's median over the frames of the last repeats but two, inclusive and
    exclusive of the stages under it. Wall clock: on a shared machine compare trees in
    alternating runs."""
    import bpy
    import functools
    import importlib
    import statistics
    scene, _, _ = build_scene(bpy, count, 30)
    lig = sys.modules[MODULE]
    bench_blender.load_kernels(lig)
    world_cls = lig.addon.kernels.solver.World
    cur = {}

    def timed(fn, label):
        @functools.wraps(fn)   # the add-on tells its own frame handler by name and module
        def run(*args, **kw):
            t = time.perf_counter_ns()
            try:
                return fn(*args, **kw)
            finally:
                cur[label] = cur.get(label, 0) + time.perf_counter_ns() - t
        return run
    for path, name, label, _ in FRAME_PARTS:
        if path == "World":
            owner = world_cls
        elif path == "world_module":
            owner = sys.modules[world_cls.__module__]
        else:
            folder, module, *classes = path.split(".")   # addon/FOLDER/MODULE.py, a class
            owner = importlib.import_module(f"{MODULE}.addon.{folder}.{module}")
            for attr in classes:
                owner = getattr(owner, attr)
        setattr(owner, name, timed(getattr(owner, name), label))
    handlers = bpy.app.handlers.frame_change_pre
    for k, fn in enumerate(handlers):
        if getattr(fn, "__name__", "") == "on_frame_change_pre":
            handlers[k] = timed(fn, "handler")
    frames = []
    scene.frame_set(1)
    scene.frame_set(2)
    for r in range(repeats):
        lig.addon.runtime.cache.get(scene).forget_from(3)
        for f in range(3, 31):
            cur.clear()
            t = time.perf_counter_ns()
            scene.frame_set(f)
            cur["frame_set"] = time.perf_counter_ns() - t
            if r >= 2:
                frames.append(dict(cur))
    labels = ["frame_set", "handler"] + [label for _, _, label, _ in FRAME_PARTS]
    parent = {label: up for _, _, label, up in FRAME_PARTS}
    parent["handler"] = "frame_set"
    depth = {"frame_set": 0}
    for label in labels[1:]:
        depth[label] = depth[parent[label]] + 1
    print(f"a live frame at {count} ragdolls, median us over {len(frames)} frames "
          f"(inclusive, exclusive of the stages below it)")
    for label in labels:
        below = [c for c in labels if parent.get(c) == label]
        inc = statistics.median(fr.get(label, 0) for fr in frames) / 1000
        exc = statistics.median(fr.get(label, 0) - sum(fr.get(c, 0) for c in below)
                                for fr in frames) / 1000
        print(f"  {'  ' * depth[label]}{label:{36 - 2 * depth[label]}s} {inc:8.1f} {exc:8.1f}")


def solver_parts(repeats=3):
    """Where one ragdoll's solver share through Blender differs from the headless figure
    (`--solver-parts`): in one Blender session, the CPU time of the calling thread in
    `World.step` and in its kernel (`step_frame`) per frame, from bench/scenes.py's crowd to
    the metarig ragdoll played through Blender, one difference at a time; each row the
    median of `repeats` runs taken in turns."""
    import bpy
    import statistics
    scene, _, _ = build_scene(bpy, 1, 30)
    lig = sys.modules[MODULE]
    bench_blender.load_kernels(lig)
    lg = lig.addon.kernels.solver
    sys.modules.setdefault("solver", lg)     # bench/contacts.py builds its worlds with it
    import contacts
    world_cls = lg.World
    module = sys.modules[world_cls.__module__]
    spent = [0.0, 0.0]
    kernel, step = module.step_frame, world_cls.step

    def timed_kernel(*args):
        c = time.thread_time()
        try:
            return kernel(*args)
        finally:
            spent[0] += time.thread_time() - c

    def timed_step(self, dt=1.0 / 60.0):
        c = time.thread_time()
        try:
            return step(self, dt)
        finally:
            spent[1] += time.thread_time() - c
    module.step_frame, world_cls.step = timed_kernel, timed_step

    def crowd(count):
        w = lg.World(gravity=contacts.GRAVITY, sleeping=False, threads=1)
        contacts.populate(w, scenes.ragdolls(count))
        return w

    def direct(w, dt, first, last, per=1):
        for _ in range(first):
            w.step(dt)
        spent[:] = [0.0, 0.0]
        for _ in range(first, last):
            w.step(dt)
        return [1000 * x / ((last - first) * per) for x in spent]

    def metarig(threads):
        lig.addon.runtime.cache.invalidate(scene)
        scene.frame_set(1)
        w = lig.addon.runtime.cache.get(scene).world
        w.threads = threads
        return direct(w, 1 / 24, 1, 29)

    def played():
        lig.addon.runtime.cache.invalidate(scene)
        scene.frame_set(1)
        scene.frame_set(2)
        spent[:] = [0.0, 0.0]
        for f in range(3, 31):
            scene.frame_set(f)
        return [1000 * x / 28 for x in spent]
    rows = (("scenes.py's 20 ragdolls, 60 Hz, frames 11-300, per ragdoll",
             lambda: direct(crowd(20), 1 / 60, 10, 300, 20)),
            ("one of them alone, same frames", lambda: direct(crowd(1), 1 / 60, 10, 300)),
            ("alone, frames 3-30 (the fall and the landing)",
             lambda: direct(crowd(1), 1 / 60, 1, 29)),
            ("alone, 24 Hz, frames 3-30", lambda: direct(crowd(1), 1 / 24, 1, 29)),
            ("the metarig ragdoll's World, stepped alone, 1 thread", lambda: metarig(1)),
            ("the same, 2 threads", lambda: metarig(2)),
            (f"the same, played (frame_set 3-30, {scene.render.threads} threads)", played))
    runs = [[fn() for _, fn in rows] for _ in range(repeats)]
    print(f"PARTS {'':58s} {'kernel':>7} {'step':>7} {'Python':>7}   CPU ms a frame, "
          f"median of {repeats}")
    for k, (label, _) in enumerate(rows):
        kern = statistics.median(r[k][0] for r in runs)
        whole = statistics.median(r[k][1] for r in runs)
        print(f"PARTS {label:58s} {kern:7.3f} {whole:7.3f} {whole - kern:7.3f}")
    print("PARTS load average " + " ".join(f"{x:.2f}" for x in os.getloadavg()))


def save_world(path, count):
    """Pickle the World the add-on builds for `count` metarig ragdolls at the start frame
    (`--save-world`): bench/kernel_profile.py --world steps it headless with this tree's
    solver (`load_world`), where a profiler sees its kernels."""
    import bpy
    import pickle
    scene, _, _ = build_scene(bpy, count, 60)
    lig = sys.modules[MODULE]
    bench_blender.load_kernels(lig)
    lig.addon.runtime.cache.invalidate(scene)
    scene.frame_set(scene.frame_start)
    world = lig.addon.runtime.cache.get(scene).world
    with open(path, "wb") as f:
        pickle.dump(world, f)
    print(f"SAVED {count} metarig ragdolls' World ({world.body_count} bodies, "
          f"{world.joint_count} joints, substeps {world.substeps} / jointed "
          f"{world.jointed_substeps} / calm {world.calm_substeps}, {scene.render.fps} fps) "
          f"to {path}")


def load_world(path):
    """A World pickled by `save_world`, with this tree's `solver` standing in for the
    add-on's copy of it (imported as `_ligament_solver_<hash>`, addon/kernels.py)."""
    import importlib
    import pickle
    import pkgutil
    import re
    sys.path.insert(0, ROOT)
    import solver
    with open(path, "rb") as f:
        raw = f.read()
    for mod in pkgutil.walk_packages(solver.__path__, "solver."):
        importlib.import_module(mod.name)
    for name in {m.decode() for m in re.findall(rb"(_ligament_solver_[0-9a-f]+)", raw)}:
        sys.modules[name] = solver
        for m in [m for m in sys.modules if m.startswith("solver.")]:
            sys.modules[name + m[len("solver"):]] = sys.modules[m]
    return pickle.loads(raw)


def _read_all(scene):
    """Seconds to find the bodies and joints and read, in plain attribute reads, every setting
    the build needs of them (their kinds, shapes, masses, materials, limits, world matrices
    and bounds): the floor of a build that reads each object once."""
    t = time.perf_counter()
    bodies = [o for o in scene.objects if o.ligament_body.enabled]
    joints = [o for o in scene.objects if o.type == 'EMPTY' and o.ligament_joint.enabled]
    rows = []
    for o in bodies:
        b = o.ligament_body
        box = o.bound_box
        rows.append((b.kind, b.shape, b.mass, b.friction, b.restitution, b.linear_damping,
                     b.angular_damping, b.collision_group, b.baked, o.rotation_mode,
                     o.matrix_world.copy(), box[0][:], box[6][:], o.parent))
    for e in joints:
        j = e.ligament_joint
        rows.append((j.type, j.object_a, j.object_b, j.use_limit_ang, j.limit_ang_lower,
                     j.limit_ang_upper, j.swing_1, j.swing_2, j.disable_collisions,
                     j.breakable, e.matrix_world.copy(), e.parent))
    return time.perf_counter() - t


def blender_child(flags, prefix):
    """This script again with `flags` in a Blender process (the extension installed, its
    kernels compiled or loaded first); prints the lines of its output that start with
    `prefix`, without it."""
    bench_blender.ensure_installed()
    run_child("ligament", 1, 3)   # compile (or load) the solver kernels first
    proc = subprocess.run([sys.executable, os.path.abspath(__file__)] + flags,
                          env=bench_blender._env(), text=True, capture_output=True)
    print("\n".join(line[len(prefix):] for line in proc.stdout.splitlines()
                    if line.startswith(prefix)))
    if proc.returncode:
        raise SystemExit(proc.stderr[-3000:])


def run_child(engine, count, frames, jointed_substeps=0):
    return bench_blender.child_result(
        __file__, ["--child", engine, count, "--frames", frames, "--jointed-substeps",
                   jointed_substeps], f"{engine} {count}")


def timed_stages(flag, count, lines):
    """Run this script's child `flag` at `count` ragdolls in the benchmark's Blender (the
    kernels compiled or loaded first) and print its lines that start with `lines`."""
    bench_blender.ensure_installed()
    run_child("ligament", 1, 3)   # compile (or load) the solver kernels first
    proc = subprocess.run([sys.executable, os.path.abspath(__file__), flag, str(count)],
                          env=bench_blender._env(), text=True, capture_output=True)
    print("\n".join(l for l in proc.stdout.splitlines() if l.startswith(lines)))
    if proc.returncode:
        raise SystemExit(proc.stderr[-3000:])


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--frames", type=int, default=60)
    p.add_argument("--counts", default="10,50,160")
    p.add_argument("--engines", default="ligament,bullet",
                   help="of ligament, prebuilt (built ahead of play), bullet")
    p.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    p.add_argument("--child-stages", type=int, help=argparse.SUPPRESS)
    p.add_argument("--child-solver-parts", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--save-world", metavar="PATH",
                   help="pickle the add-on's World of --counts' first count (default 1) "
                        "metarig ragdolls at the start frame, for bench/kernel_profile.py "
                        "--world")
    p.add_argument("--child-save-world", nargs=2, help=argparse.SUPPRESS)
    p.add_argument("--solver-parts", action="store_true",
                   help="one ragdoll's solver share, from the headless crowd's to Blender's")
    p.add_argument("--profile", action="store_true",
                   help="with --child: print cProfile's top functions of setup and playback")
    p.add_argument("--jointed-substeps", type=int, default=0,
                   help="Ligament's Jointed Substeps (the add-on's default 0, Auto: half of "
                        "Substeps 8, so 4; 8: every substep)")
    p.add_argument("--frame-parts", type=int, metavar="N",
                   help="time the stages of Ligament's live frame at N ragdolls instead")
    p.add_argument("--child-frame-parts", type=int, help=argparse.SUPPRESS)
    p.add_argument("--stages", type=int, metavar="N",
                   help="time the stages of Ligament's start frame at N ragdolls instead")
    args = p.parse_args()
    if args.stages:
        timed_stages("--child-stages", args.stages, ("start", "  "))
        return
    if args.frame_parts:
        timed_stages("--child-frame-parts", args.frame_parts, ("a live", "  "))
        return
    if args.child_frame_parts:
        frame_parts(args.child_frame_parts)
        return
    if args.child_stages:
        stages(args.child_stages)
        return
    if args.save_world:
        count = args.counts.split(",")[0] if "--counts" in sys.argv else "1"
        blender_child(["--child-save-world", os.path.abspath(args.save_world), count],
                      "SAVED ")
        return
    if args.child_save_world:
        save_world(args.child_save_world[0], int(args.child_save_world[1]))
        return
    if args.solver_parts:
        blender_child(["--child-solver-parts"], "PARTS ")
        return
    if args.child_solver_parts:
        solver_parts()
        return
    if args.child:
        child(args.child[0], int(args.child[1]), args.frames, args.profile,
              args.jointed_substeps)
        return
    bench_blender.ensure_installed()
    run_child("ligament", 1, 3)   # compile (or load) the solver kernels first
    print(f"{'ragdolls':>8} {'bodies':>6} {'engine':9} {'setup s':>7} {'ms/frame':>8} "
          f"{'cpu ms':>7} {'solver':>7} {'add-on':>7} {'Blender':>7} {'replay':>7} "
          f"{'add-on':>6} {'1st frame':>9} "
          f"{'at start':>8} {'kernels':>7} {'below':>5} {'top z':>5}  load avg")
    results = {}
    added = {}    # (count, engine) -> (wall, CPU) ms a frame above Blender's own evaluation
    for count in (int(c) for c in args.counts.split(",")):
        for engine in args.engines.split(","):
            r = run_child(engine, count, args.frames, args.jointed_substeps)
            results[count, engine] = r
            added[count, engine] = (r["ms_per_frame"] - r["idle_ms"],
                                    r["cpu_ms_per_frame"] - r["idle_cpu_ms"])
            solver, addon = (f"{r[k]:7.2f}" if r[k] is not None else f"{'-':>7}"
                             for k in ("solver_ms", "addon_ms"))
            own = f"{r['ms_per_frame'] - r['solver_ms'] - r['addon_ms']:7.2f}" \
                if r["solver_ms"] is not None else f"{'-':>7}"
            replay_addon = f"{r['replay_addon_ms']:6.2f}" if r["replay_addon_ms"] is not None \
                else f"{'-':>6}"
            kernels = f"{r['kernels_s']:6.2f}s" if r["kernels_s"] is not None else f"{'-':>7}"
            load = " ".join(f"{x:.2f}" for x in os.getloadavg())
            print(f"{count:8d} {r['bodies']:6d} {engine:9} {r['setup_s']:7.1f} "
                  f"{r['ms_per_frame']:8.2f} {r['cpu_ms_per_frame']:7.1f} {solver} {addon} "
                  f"{own} {r['replay_ms']:7.2f} {replay_addon} {r['first_frame_ms']:7.1f}ms {r['build_ms']:6.1f}ms {kernels} {r['below']:5d} "
                  f"{r['top']:5.2f}  {load}", flush=True)
    print(f"\nCost added to Blender's own evaluation of the frame (nothing simulated: "
          f"{NOTHING_SIMULATED})")
    print(f"{'ragdolls':>8} {'engine':9} {'frame':>7} {'nothing':>7} {'added':>7} "
          f"{'cpu':>7} {'nothing':>7} {'added':>7} {'x Bullet':>8} {'(cpu)':>6}  "
          f"add-on cpu ms (replay)  solver cpu ms (main thread)")
    for count in (int(c) for c in args.counts.split(",")):
        bullet = added.get((count, "bullet"))
        for engine in args.engines.split(","):
            r = results[count, engine]
            wall, cpu = added[count, engine]
            ratio = f"{wall / bullet[0]:7.2f}x {cpu / bullet[1]:5.2f}x" \
                if bullet is not None and engine != "bullet" else ""
            own = f"  {r['addon_cpu_ms']:6.2f} ({r['replay_addon_cpu_ms']:.2f})" \
                f"  {r['solver_cpu_ms']:6.2f}" if r["addon_cpu_ms"] is not None else ""
            print(f"{count:8d} {engine:9} {r['ms_per_frame']:7.2f} {r['idle_ms']:7.2f} "
                  f"{wall:7.2f} {r['cpu_ms_per_frame']:7.1f} {r['idle_cpu_ms']:7.1f} "
                  f"{cpu:7.1f} {ratio:15s}{own}")


if __name__ == "__main__":
    main()
