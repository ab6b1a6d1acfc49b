#!/usr/bin/env python3
"""Ligament in Blender vs Blender's own rigid body world (Bullet), same scenes, same machine.

    python bench/blender.py                 # both scenes, 250 frames
    python bench/blender.py --frames 100 --scenes boxes

Needs the `bpy` wheel. The extension is built with tools/build_extension.py and installed into
build/bench-blender/ (its numba cache stays there between runs). Each (engine, scene) pair runs
in its own Blender process. Scenes, built from ordinary Blender objects:

* boxes: a 20-row pyramid of 210 boxes on a static ground.
* ragdolls: 20 ragdolls of 11 capsules and 10 joints each (ragdoll joints at neck, spine,
  shoulders and hips, hinges at elbows and knees) dropped on a static ground.

Figures: the first frame (building the world), ms per frame of live playback through the frame
handler (frame_set, frames 2..N), and the time to bake N frames to keyframes
(`ligament.bake` vs `rigidbody.bake_to_keyframes`, each from an empty cache; Blender's
operator needs a window, so it runs here as `bullet_bake_to_keyframes`, its code with the
keying-set call replaced by `keyframe_insert`).
"""

import argparse
import functools
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import scenes  # noqa: E402  (Blender GENERIC constraints as ragdoll joints)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HOME = os.path.join(ROOT, "build", "bench-blender")
MODULE = "bl_ext.user_default.ligament"


# --------------------------------------------------------------------------------------------
# Scenes: a list of bodies (name, shape, size, location, rotation, kind) and joints
# (name, type, a, b, location, rotation, limits)

def boxes_scene():
    bodies = [("Ground", 'BOX', (40.0, 40.0, 1.0), (0, 0, -0.5), (0, 0, 0), 'STATIC')]
    size, gap = 1.0, 0.02
    for row in range(20):
        n = 20 - row
        for i in range(n):
            x = (i - (n - 1) / 2) * (size + gap)
            z = size / 2 + row * size
            bodies.append((f"Box{row:02d}_{i:02d}", 'BOX', (size, size, size), (x, 0, z),
                           (0, 0, 0), 'DYNAMIC'))
    return bodies, []


def ragdolls_scene():
    import math
    bodies = [("Ground", 'BOX', (60.0, 60.0, 1.0), (0, 0, -0.5), (0, 0, 0), 'STATIC')]
    joints = []
    up = (math.pi / 2, 0, 0)           # empty's local Y (twist) along world Z
    side = (0, 0, -math.pi / 2)        # local Y along world +X
    other_side = (0, 0, math.pi / 2)   # local Y along world -X
    arm = (0, math.pi / 2, 0)          # capsule axis (local Z) along world X
    for k in range(20):
        ox, oy, oz = (k % 5) * 2.5, (k // 5) * 2.5, 0.5 + 0.3 * (k % 3)
        p = f"R{k:02d}_"

        def part(name, r, hh, loc, rot=(0, 0, 0)):
            bodies.append((p + name, 'CAPSULE', (2 * r, 2 * r, 2 * (hh + r)),
                           (ox + loc[0], oy + loc[1], oz + loc[2]), rot, 'DYNAMIC'))

        def link(name, kind, a, b, loc, rot, limits):
            joints.append((p + name, kind, p + a, p + b, (ox + loc[0], oy + loc[1], oz + loc[2]),
                           rot, limits))
        part("Pelvis", 0.14, 0.06, (0, 0, 1.0))
        part("Torso", 0.16, 0.12, (0, 0, 1.36))
        part("Head", 0.11, 0.01, (0, 0, 1.76))
        for s, sx in (("L", 1), ("R", -1)):
            part("Thigh" + s, 0.07, 0.14, (0.1 * sx, 0, 0.72))
            part("Shin" + s, 0.06, 0.14, (0.1 * sx, 0, 0.3))
            part("UpperArm" + s, 0.05, 0.1, (0.38 * sx, 0, 1.45), arm)
            part("Forearm" + s, 0.045, 0.1, (0.7 * sx, 0, 1.45), arm)
            link("Hip" + s, 'RAGDOLL', "Pelvis", "Thigh" + s, (0.1 * sx, 0, 0.93), up,
                 dict(swing=0.8, twist=0.3))
            link("Knee" + s, 'HINGE', "Thigh" + s, "Shin" + s, (0.1 * sx, 0, 0.51), (0, math.pi / 2, 0),
                 dict(lower=-2.2, upper=0.0))
            link("Shoulder" + s, 'RAGDOLL', "Torso", "UpperArm" + s, (0.2 * sx, 0, 1.45),
                 side if sx > 0 else other_side, dict(swing=1.2, twist=0.5))
            link("Elbow" + s, 'HINGE', "UpperArm" + s, "Forearm" + s, (0.54 * sx, 0, 1.45), (0, 0, 0),
                 dict(lower=-2.4 if sx > 0 else 0.0, upper=0.0 if sx > 0 else 2.4))
        link("Spine", 'RAGDOLL', "Pelvis", "Torso", (0, 0, 1.16), up, dict(swing=0.4, twist=0.3))
        link("Neck", 'RAGDOLL', "Torso", "Head", (0, 0, 1.6), up, dict(swing=0.5, twist=0.6))
    return bodies, joints


SCENES = {"boxes": boxes_scene, "ragdolls": ragdolls_scene}


# --------------------------------------------------------------------------------------------
# Inside Blender

def build_objects(bpy, bodies):
    objs = {}
    for name, shape, size, loc, rot, kind in bodies:
        if shape == 'BOX':
            bpy.ops.mesh.primitive_cube_add(size=1, location=loc, rotation=rot)
        else:
            bpy.ops.mesh.primitive_cylinder_add(vertices=12, radius=0.5, depth=1, location=loc,
                                                rotation=rot)
        obj = bpy.context.active_object
        obj.name = name
        obj.scale = size
        # Bullet sizes a capsule from the mesh and ignores a non-uniform scale (a scaled unit
        # cylinder became a sphere): build every shape at its real size with scale 1
        bpy.ops.object.transform_apply(location=False, rotation=False, scale=True)
        objs[name] = (obj, shape, kind)
    bpy.context.view_layer.update()
    return objs


def setup_ligament(bpy, objs, joints, frames):
    scene = bpy.context.scene
    ws = scene.ligament_world
    ws.frame_start, ws.frame_end = 1, frames
    for obj, shape, kind in objs.values():
        s = obj.ligament_body
        s.enabled, s.kind, s.shape = True, kind, shape
        s.mass = 1.0
    for name, kind, a, b, loc, rot, lim in joints:
        e = bpy.data.objects.new(name, None)
        scene.collection.objects.link(e)
        e.location, e.rotation_euler = loc, rot
        j = e.ligament_joint
        j.enabled, j.type, j.object_a, j.object_b = True, kind, objs[a][0], objs[b][0]
        if kind == 'RAGDOLL':
            j.swing_1 = j.swing_2 = lim["swing"]
            j.use_limit_ang, j.limit_ang_lower, j.limit_ang_upper = True, -lim["twist"], lim["twist"]
        else:
            j.use_limit_ang, j.limit_ang_lower, j.limit_ang_upper = True, lim["lower"], lim["upper"]


def setup_bullet(bpy, objs, joints, frames):
    scene = bpy.context.scene
    bpy.ops.rigidbody.world_add()
    rbw = scene.rigidbody_world
    rbw.point_cache.frame_start, rbw.point_cache.frame_end = 1, frames
    for obj, shape, kind in objs.values():
        with bpy.context.temp_override(object=obj, active_object=obj, selected_objects=[obj]):
            bpy.ops.rigidbody.object_add(type='PASSIVE' if kind == 'STATIC' else 'ACTIVE')
        obj.rigid_body.collision_shape = shape
        obj.rigid_body.mass = 1.0
    for name, kind, a, b, loc, rot, lim in joints:
        e = bpy.data.objects.new(name, None)
        scene.collection.objects.link(e)
        e.location, e.rotation_euler = loc, rot
        bpy.context.view_layer.objects.active = e
        bpy.ops.rigidbody.constraint_add()
        c = e.rigid_body_constraint
        c.object1, c.object2 = objs[a][0], objs[b][0]
        if kind == 'HINGE':
            c.type = 'HINGE'
            # Blender's hinge limits measure the angle the other way round from Ligament's
            c.use_limit_ang_z, c.limit_ang_z_lower, c.limit_ang_z_upper = \
                True, -lim["upper"], -lim["lower"]
        else:  # Bullet has no ragdoll joint: a generic joint with angular limits, twist about Y
            c.type = 'GENERIC'
            swing, twist = (-lim["swing"], lim["swing"]), (-lim["twist"], lim["twist"])
            scenes.limit_generic(c, (swing, twist, swing))


def bullet_bake_to_keyframes(bpy, scene, objects, frame_start, frame_end):
    """Blender's `rigidbody.bake_to_keyframes` (bl_operators/rigidbody.py), step for step.

    The operator itself cannot run here: it keys through `anim.keyframe_insert_by_name`,
    whose poll needs a window. This is its execute() with that one call replaced by the
    equivalent per-object `keyframe_insert` of location and rotation."""
    bake = []
    for f in range(frame_start, frame_end + 1):
        scene.frame_set(f)
        bake.append([o.matrix_world.copy() for o in objects])
    for i, f in enumerate(range(frame_start, frame_end + 1)):
        scene.frame_set(f)
        for obj, mat in zip(objects, bake[i]):
            obj.location = mat.to_translation()
            obj.rotation_euler = mat.to_euler(obj.rotation_mode, obj.rotation_euler)
            obj.keyframe_insert("location", frame=f)
            obj.keyframe_insert("rotation_euler", frame=f)
    with bpy.context.temp_override(selected_objects=objects, object=objects[0],
                                   active_object=objects[0]):
        bpy.ops.rigidbody.objects_remove()
    from bpy_extras import anim_utils
    for obj in objects:
        bag = anim_utils.action_get_channelbag_for_slot(obj.animation_data.action,
                                                        obj.animation_data.action_slot)
        for fcu in bag.fcurves:
            kps = fcu.keyframe_points
            i = 1
            while i < len(kps) - 1:
                val_prev, val, val_next = kps[i - 1].co[1], kps[i].co[1], kps[i + 1].co[1]
                if abs(val - val_prev) + abs(val - val_next) < 0.0001:
                    kps.remove(kps[i])
                else:
                    i += 1
            for k in kps:
                k.interpolation = 'LINEAR'


def child(engine, scene_name, frames):
    import bpy
    if engine == "ligament":
        bpy.ops.preferences.addon_enable(module=MODULE)
    for o in list(bpy.data.objects):
        bpy.data.objects.remove(o)
    scene = bpy.context.scene
    scene.render.fps = 24
    scene.frame_start, scene.frame_end = 1, frames
    bodies, joints = SCENES[scene_name]()
    objs = build_objects(bpy, bodies)
    dynamic = [o for o, _, kind in objs.values() if kind == 'DYNAMIC']
    (setup_ligament if engine == "ligament" else setup_bullet)(bpy, objs, joints, frames)
    scene.frame_set(1)

    t0 = time.perf_counter()
    scene.frame_set(2)
    first = time.perf_counter() - t0
    t0 = time.perf_counter()
    for f in range(3, frames + 1):
        scene.frame_set(f)
    per_frame = (time.perf_counter() - t0) / max(frames - 2, 1)
    low = min(o.matrix_world.translation.z for o in dynamic)
    scene.frame_set(1)

    if engine == "ligament":
        bpy.ops.ligament.reset()
        t0 = time.perf_counter()
        bpy.ops.ligament.bake(frame_start=1, frame_end=frames)
        bake = time.perf_counter() - t0
    else:
        bpy.ops.ptcache.free_bake_all()
        t0 = time.perf_counter()
        bullet_bake_to_keyframes(bpy, scene, dynamic, 1, frames)
        bake = time.perf_counter() - t0
    print("RESULT:" + json.dumps({"first_frame_ms": 1000 * first, "ms_per_frame": 1000 * per_frame,
                                  "bake_s": bake, "bodies": len(objs), "joints": len(joints),
                                  "lowest_z": low}))


# --------------------------------------------------------------------------------------------
# Driver

def ensure_installed():
    sys.path.insert(0, os.path.join(ROOT, "tools"))
    import build_extension
    import platform
    machine = platform.machine().lower()
    plat = {"linux": "linux", "win32": "windows", "darwin": "macos"}[sys.platform] + (
        "-arm64" if machine in {"arm64", "aarch64"} else "-x64")
    os.makedirs(HOME, exist_ok=True)
    # the zip of this Python's line only (the bpy wheel running the benchmark)
    line = f"{sys.version_info.major}.{sys.version_info.minor}"
    (zip_path,) = build_extension.build(os.path.join(ROOT, "build", "bench-dist"), [plat],
                                        [line])
    if _update_installed(zip_path):
        return
    script = ("import bpy\nassert bpy.ops.extensions.package_install_files(filepath=%r, "
              "repo='user_default', enable_on_install=True) == {'FINISHED'}" % zip_path)
    subprocess.run([sys.executable, "-c", script], check=True, env=_env(), capture_output=True)


def _update_installed(zip_path):
    """Bring an installed copy up to date file by file, writing only the files that changed.
    Installing anew stamps every file with the current time, and numba's cache checks a
    kernel's source file time: a reinstall of the same solver would compile it all again
    (many minutes). Returns False when there is no installed copy or the manifest (wheels)
    changed, so that Blender installs it."""
    import zipfile
    target = os.path.join(HOME, "extensions", "user_default", "ligament")
    manifest = os.path.join(target, "blender_manifest.toml")
    if not os.path.isfile(manifest):
        return False
    with zipfile.ZipFile(zip_path) as z:
        names = [n for n in z.namelist() if not n.endswith("/")]
        if "blender_manifest.toml" not in names:
            return False
        with open(manifest, "rb") as f:
            if f.read() != z.read("blender_manifest.toml"):
                return False
        keep = set()
        for name in names:
            path = os.path.join(target, *name.split("/"))
            keep.add(os.path.normpath(path))
            data = z.read(name)
            if os.path.isfile(path):
                with open(path, "rb") as f:
                    if f.read() == data:
                        continue
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "wb") as f:
                f.write(data)
    for folder, dirs, files in os.walk(target):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        for name in files:
            path = os.path.normpath(os.path.join(folder, name))
            if path not in keep and name.endswith(".py"):
                os.remove(path)
    return True


def _env():
    env = dict(os.environ, BLENDER_USER_RESOURCES=HOME)
    env.pop("NUMBA_CACHE_DIR", None)
    return env


def child_result(script, args, label):
    """Run `script` with `args` in a process of its own (this Python, the installed
    extension's user folder) and return the dict it printed after "RESULT:"."""
    proc = subprocess.run([sys.executable, os.path.abspath(script), *map(str, args)],
                          capture_output=True, text=True, env=_env())
    lines = [l for l in proc.stdout.splitlines() if l.startswith("RESULT:")]
    if not lines:
        raise SystemExit(f"{label} failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")
    if proc.returncode != 0:  # seen with Bullet: Blender crashing on exit after the figures
        print(f"note: the {label} process exited with {proc.returncode} after reporting its "
              "figures", file=sys.stderr)
    return json.loads(lines[-1][7:])


def time_solver(world_cls):
    """Time every `world_cls.step` from now on: returns [seconds so far, CPU seconds of the
    calling thread so far] (reset them by assigning 0.0 to the items)."""
    spent = [0.0, 0.0]
    original = world_cls.step

    def timed(self, dt=1.0 / 60.0):
        t, c = time.perf_counter(), time.thread_time()
        original(self, dt)
        spent[0] += time.perf_counter() - t
        spent[1] += time.thread_time() - c
    world_cls.step = timed
    return spent


def time_handlers(bpy, module=MODULE):
    """Time the add-on's frame change and depsgraph update handlers from now on (the rest
    of a frame_set is Blender's own evaluation): returns [seconds so far, CPU seconds of
    Blender's main thread in them so far]."""
    spent = [0.0, 0.0]

    def timed_handler(fn):
        @functools.wraps(fn)   # the add-on tells its own handler by name and module
        def run(*args):
            t, c = time.perf_counter(), time.thread_time()
            try:
                return fn(*args)
            finally:
                spent[0] += time.perf_counter() - t
                spent[1] += time.thread_time() - c
        return run
    for handlers in (bpy.app.handlers.frame_change_pre, bpy.app.handlers.frame_change_post,
                     bpy.app.handlers.depsgraph_update_post):
        for i, fn in enumerate(list(handlers)):
            if getattr(fn, "__module__", "").startswith(module):
                handlers[i] = timed_handler(fn)
    return spent


def bullet_constraints(bpy, scene, empties):
    """One Blender rigid body constraint object per Ligament joint empty of `empties`, placed
    at the empty's (unparented) frame, in the scene's rigid body world in the empties' order;
    yields (empty, constraint). The first is made by Blender's operator (which sets up the
    world's constraint collection), the others are copies of it ("~Bullet joint.001", ...).

    Blender keeps a file's objects sorted by name: a new object whose name sorts after all
    the others is appended, one that sorts among them is inserted after a walk through the
    list, and so is a renamed one. Named as the empties, 2400 constraints in a file of 10 000
    objects (160 ragdolls) took 4.7 s of copies and renames, and finding each copy in the
    constraint collection by name 1 s more; these names ("~" sorts after letters and digits)
    and one pass over the collection take 0.1 s."""
    rbw = scene.rigidbody_world
    template = bpy.data.objects.new("~Bullet joint", None)
    scene.collection.objects.link(template)
    bpy.context.view_layer.objects.active = template
    assert bpy.ops.rigidbody.constraint_add() == {'FINISHED'}
    objs = [template] + [template.copy() for _ in range(len(empties) - 1)]
    for obj in objs[1:]:
        scene.collection.objects.link(obj)   # which usually puts it in the world's collection
    inside = {obj.as_pointer() for obj in rbw.constraints.objects}
    for obj, e in zip(objs, empties):
        if obj.as_pointer() not in inside:
            rbw.constraints.objects.link(obj)
        obj.matrix_world = e.matrix_world
        yield e, obj.rigid_body_constraint


def load_kernels(lig):
    """Load the solver's kernels from their cache (once per Blender session, before any
    world is built): a small world with every feature steps a few times."""
    w = lig.addon.kernels.warmup.every_feature_world()
    for _ in range(2):
        w.step(1 / 60)
    w.contacts()


def run_child(engine, scene_name, frames):
    return child_result(__file__, ["--child", engine, scene_name, "--frames", frames],
                        f"{engine} {scene_name}")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--frames", type=int, default=250)
    p.add_argument("--scenes", default="boxes,ragdolls")
    p.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.child:
        child(args.child[0], args.child[1], args.frames)
        return
    ensure_installed()
    # Compile (or load) the solver kernels once so no figure below includes numba's JIT.
    run_child("ligament", "boxes", 3)
    print(f"{'scene':10} {'engine':9} {'bodies':>6} {'joints':>6} {'1st frame':>10} "
          f"{'ms/frame':>9} {'bake ' + str(args.frames) + ' fr':>12} {'lowest z':>9}")
    for scene_name in args.scenes.split(","):
        for engine in ("ligament", "bullet"):
            r = run_child(engine, scene_name, args.frames)
            print(f"{scene_name:10} {engine:9} {r['bodies']:6d} {r['joints']:6d} "
                  f"{r['first_frame_ms']:8.1f}ms {r['ms_per_frame']:9.2f} {r['bake_s']:10.2f} s "
                  f"{r['lowest_z']:9.2f}", flush=True)


if __name__ == "__main__":
    main()
