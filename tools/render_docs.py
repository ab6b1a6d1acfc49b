#!/usr/bin/env python3
"""The documentation's pictures, made from real scenes with the extension installed.

    .venv/blender-5.3.0/bin/python tools/render_docs.py            # the contact sheets
    PYTHON_WITH_MATPLOTLIB tools/render_docs.py --plot-only         # the benchmark plot

Builds the linux-x64 zip for this Python line (tools/build_extension.py, into build/dist/),
installs it into a private user folder (build/docs-user-VERSION) the way a user does, and
builds each scene with the add-on's own operators, as the README's quick start describes:

* docs/images/ragdoll-fall.png: Rigify's human metarig made a ragdoll
  (`ligament.ragdoll_from_armature`) 1 m above a static floor, falling;
* docs/images/live-mode.png: the same ragdoll in Live Mode (`live.session.LiveSession`),
  held by its hips: a hand dragged up and pinned, the character dropped, then tensed;
* docs/images/mechanism.png: a door on a motorised hinge with limits
  (`ligament.add_body`, `ligament.add_joint(type='HINGE')`) beside a gear train (two
  cylinders on hinges, the first driven by a motor, coupled by `ligament.add_joint(type='GEAR')`
  with teeth 20 : 10).

* docs/images/physics-jump.svg, docs/images/physics-flip.svg: the physics check's figures
  of a keyed jump and a keyed flip on a metarig ragdoll, before and after Physics Fix
  (`addon.motion.rig.MotionRig.check`, the operators `ligament.physics_check` and
  `ligament.physics_fix`): the centre of mass's height and the angular momentum about it,
  frame by frame, drawn as SVG charts (plain text: no renderer or plotting library needed).

Frames are played forward (live playback, the same path as the timeline) and rendered small
with Cycles on the CPU (it needs no GPU context, which Blender in background mode may not
have), then laid side by side in one PNG. The plot (docs/images/bench-crowds.png) draws the
dated figures of docs/performance.md with matplotlib, which the Blender environments do not
have: run it with any Python that has matplotlib.
"""

import argparse
import math
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
IMAGES = os.path.join(ROOT, "docs", "images")
BUILD = os.path.join(ROOT, "build")
MODULE = "bl_ext.user_default.ligament"

# docs/performance.md, "Ragdoll crowds through Blender", measured 2026-11-25 with
# `bench/ragdolls.py --counts 10,50 --frames 30`, then `--counts 160 --frames 30`.
CROWDS = {
    "ragdolls": [10, 50, 160],
    "Ligament ms/frame": [10.25, 63.1, 222.2],
    "Bullet ms/frame": [9.55, 70.1, 249.8],
    "Ligament first frame ms": [41, 268, 1106],
    "Bullet first frame ms": [17, 101, 359],
}


# --- the plot -----------------------------------------------------------------------------

def plot():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    n = CROWDS["ragdolls"]
    fig, axes = plt.subplots(1, 2, figsize=(7.2, 2.8), dpi=100)
    for ax, key, title in ((axes[0], "ms/frame", "Each simulated frame"),
                           (axes[1], "first frame ms", "The first frame (builds the world)")):
        for engine, style in (("Ligament", "o-"), ("Bullet", "s--")):
            ax.plot(n, CROWDS[f"{engine} {key}"], style, label=engine)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xticks(n)
        ax.set_xticklabels([f"{k}\n({16 * k} bodies)" for k in n], fontsize=8)
        ax.set_xlabel("ragdolls", fontsize=8)
        ax.set_ylabel("ms", fontsize=8)
        ax.set_title(title, fontsize=9)
        ax.tick_params(labelsize=8)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle("Ragdoll crowds through Blender 5.0 (2026-11-25, 2-core machine, "
                 "bench/ragdolls.py)", fontsize=9)
    fig.tight_layout()
    os.makedirs(IMAGES, exist_ok=True)
    out = os.path.join(IMAGES, "bench-crowds.png")
    fig.savefig(out)
    print("wrote", os.path.relpath(out, ROOT))


# --- Blender --------------------------------------------------------------------------------

def install():
    """Build this line's linux-x64 zip if needed, install and enable it in a private user
    folder. Returns bpy."""
    line = "%d.%d" % sys.version_info[:2]
    tag = "py" + line.replace(".", "")
    dist = os.path.join(BUILD, "dist")
    zips = [f for f in os.listdir(dist) if f.endswith(f"linux_x64-{tag}.zip")] \
        if os.path.isdir(dist) else []
    if not zips:
        subprocess.run([sys.executable, os.path.join(ROOT, "tools", "build_extension.py"),
                        "--output-dir", dist, "--platform", "linux-x64", "--python", line],
                       check=True)
        zips = [f for f in os.listdir(dist) if f.endswith(f"linux_x64-{tag}.zip")]
    home = os.path.join(BUILD, f"docs-user-{line}")
    os.makedirs(home, exist_ok=True)
    os.environ["BLENDER_USER_RESOURCES"] = home
    os.environ.pop("NUMBA_CACHE_DIR", None)
    os.environ.pop("LIGAMENT_KERNEL_CACHE", None)
    import bpy
    result = bpy.ops.extensions.package_install_files(
        filepath=os.path.join(dist, sorted(zips)[-1]), repo="user_default",
        enable_on_install=True)
    assert result == {"FINISHED"}, result
    return bpy


def new_scene(bpy, size):
    bpy.ops.wm.read_homefile(use_empty=True)
    scene = bpy.context.scene
    scene.render.fps = 24
    scene.render.engine = 'CYCLES'
    scene.cycles.device = 'CPU'
    scene.cycles.samples = 12
    scene.cycles.use_denoising = True
    scene.render.resolution_x, scene.render.resolution_y = size
    scene.render.resolution_percentage = 100
    scene.render.image_settings.file_format = 'PNG'
    scene.render.image_settings.color_mode = 'RGB'
    scene.render.threads_mode = 'FIXED'
    scene.render.threads = 1                  # a shared machine: one core for the renders
    scene.view_settings.view_transform = 'Standard'
    world = bpy.data.worlds.new("Sky")
    world.color = (0.6, 0.65, 0.7)
    world.use_nodes = True
    world.node_tree.nodes["Background"].inputs["Color"].default_value = (0.55, 0.6, 0.68, 1)
    world.node_tree.nodes["Background"].inputs["Strength"].default_value = 0.45
    scene.world = world
    sun = bpy.data.objects.new("Sun", bpy.data.lights.new("Sun", 'SUN'))
    sun.data.energy = 4.0
    sun.rotation_euler = (math.radians(40), math.radians(15), math.radians(30))
    scene.collection.objects.link(sun)
    return scene


def material(bpy, name, rgb):
    mat = bpy.data.materials.get(name) or bpy.data.materials.new(name)
    mat.use_nodes = True
    bsdf = mat.node_tree.nodes.get("Principled BSDF")
    bsdf.inputs["Base Color"].default_value = (*rgb, 1.0)
    bsdf.inputs["Roughness"].default_value = 0.6
    mat.diffuse_color = (*rgb, 1.0)
    return mat


def paint(obj, mat):
    if obj.data is not None and hasattr(obj.data, "materials"):
        obj.data.materials.clear()
        obj.data.materials.append(mat)


def camera(bpy, scene, location, target, lens=35):
    from mathutils import Vector
    cam = bpy.data.objects.new("Camera", bpy.data.cameras.new("Camera"))
    cam.data.lens = lens
    cam.location = location
    direction = Vector(target) - Vector(location)
    cam.rotation_euler = direction.to_track_quat('-Z', 'Y').to_euler()
    scene.collection.objects.link(cam)
    scene.camera = cam


def select(bpy, objs, active):
    bpy.ops.object.select_all(action='DESELECT')
    for o in objs:
        o.select_set(True)
    bpy.context.view_layer.objects.active = active


def floor(bpy, scene, size=20.0):
    bpy.ops.mesh.primitive_plane_add(size=size, location=(0, 0, 0))
    ground = bpy.context.active_object
    ground.name = "Floor"
    paint(ground, material(bpy, "Floor", (0.75, 0.75, 0.72)))
    bpy.ops.ligament.add_body(kind='STATIC')
    return ground


def play_and_render(bpy, scene, frames, name):
    """Play from the world's start frame to the last of `frames`, rendering each of them;
    returns the image files."""
    files = []
    scene.ligament_world.frame_start = scene.frame_start = 1
    scene.ligament_world.frame_end = scene.frame_end = max(frames)
    for f in range(1, max(frames) + 1):
        scene.frame_set(f)
        if f in frames:
            path = os.path.join(BUILD, "docs-render", f"{name}-{f:03d}.png")
            scene.render.filepath = path
            bpy.ops.render.render(write_still=True)
            files.append((f, path))
            print(f"rendered {name} frame {f}", flush=True)
    return files


def contact_sheet(bpy, files, fps, out):
    """The frames side by side in one PNG, each labelled by its time in the caption row
    below (drawn as blocks: no font rendering here), saved with Blender's image writer."""
    import numpy as np
    tiles = []
    for _, path in files:
        img = bpy.data.images.load(path)
        w, h = img.size
        px = np.empty(w * h * 4, dtype=np.float32)
        img.pixels.foreach_get(px)
        tiles.append(px.reshape(h, w, 4))
        bpy.data.images.remove(img)
    h, w = tiles[0].shape[:2]
    gap = 4
    sheet = np.ones((h, len(tiles) * w + (len(tiles) - 1) * gap, 4), dtype=np.float32)
    for i, t in enumerate(tiles):
        sheet[:, i * (w + gap):i * (w + gap) + w] = t
    image = bpy.data.images.new("sheet", sheet.shape[1], sheet.shape[0], alpha=False)
    image.pixels.foreach_set(sheet.ravel())
    image.filepath_raw = out
    image.file_format = 'PNG'
    image.save()
    times = ", ".join(f"{(f - 1) / fps:.2f} s" for f, _ in files)
    print(f"wrote {os.path.relpath(out, ROOT)} (left to right: {times})", flush=True)


def ragdoll_scene(bpy):
    import addon_utils
    scene = new_scene(bpy, (200, 260))
    addon_utils.enable("rigify", default_set=True)
    floor(bpy, scene)
    bpy.ops.object.armature_human_metarig_add()
    arm = bpy.context.active_object
    arm.location = (0, 0, 1.0)
    arm.rotation_euler = (math.radians(25), 0, 0)      # leaning forward: it falls over
    bpy.context.view_layer.update()
    select(bpy, [arm], arm)
    result = bpy.ops.ligament.ragdoll_from_armature(preset='AUTO', total_mass=70,
                                                    material='flesh')
    assert result == {'FINISHED'}, result
    arm.ligament_ragdoll.show_bodies = True
    arm.ligament_ragdoll.collection.hide_render = False   # the helpers' collection renders not
    arm.hide_render = True
    skin = material(bpy, "Body", (0.85, 0.45, 0.3))
    lig = sys.modules[MODULE]
    for body in lig.addon.scene.ragdolls.bodies(arm):
        body.hide_render = False
        body.display_type = 'SOLID'
        paint(body, skin)
    camera(bpy, scene, (4.6, -0.75, 1.5), (0, -0.75, 1.15), lens=40)
    files = play_and_render(bpy, scene, [1, 10, 16, 22, 30, 48], "ragdoll")
    contact_sheet(bpy, files, scene.render.fps, os.path.join(IMAGES, "ragdoll-fall.png"))


def live_scene(bpy):
    """Rigify's metarig made a ragdoll, in Live Mode at frame 1 with its pose drives on and
    its hips held (the root part follows the animation): the right hand dragged up and left
    pinned there, the character dropped (limp, hanging from the hips and the hand), then
    picked up again and tensed."""
    import addon_utils
    from mathutils import Vector
    scene = new_scene(bpy, (200, 260))
    addon_utils.enable("rigify", default_set=True)
    floor(bpy, scene)
    bpy.ops.object.armature_human_metarig_add()
    arm = bpy.context.active_object
    arm.location = (0, 0, 0.02)
    bpy.context.view_layer.update()
    select(bpy, [arm], arm)
    result = bpy.ops.ligament.ragdoll_from_armature(preset='AUTO', total_mass=70,
                                                    material='flesh')
    assert result == {'FINISHED'}, result
    arm.ligament_ragdoll.drive_strength = 0.3
    lig = sys.modules[MODULE]
    run = lig.addon.runtime.cache.ensure(scene).ragdolls[0]
    hung = {j.b for j in run.joints}
    root = next(p for i, p in enumerate(run.parts) if i not in hung)
    arm.pose.bones[root.bone].ligament_ragdoll.simulated = False
    arm.ligament_ragdoll.show_bodies = True
    arm.ligament_ragdoll.collection.hide_render = False   # the helpers' collection renders not
    arm.hide_render = True
    skin = material(bpy, "Body", (0.85, 0.45, 0.3))
    for body in lig.addon.scene.ragdolls.bodies(arm):
        body.hide_render = False
        body.display_type = 'SOLID'
        paint(body, skin)
    camera(bpy, scene, (2.2, -4.2, 1.3), (0, 0, 1.0), lens=40)
    scene.frame_set(1)
    live = lig.addon.live.session.LiveSession(scene, hertz=6.0, max_force=2000.0)
    live.start()
    files = []

    def shot(name):
        path = os.path.join(BUILD, "docs-render", f"live-{name}.png")
        scene.render.filepath = path
        bpy.ops.render.render(write_still=True)
        files.append((live.steps + 1, path))
        print(f"rendered live {name} after {live.steps} steps", flush=True)

    def steps(n):
        for _ in range(n):
            live.step()
    steps(12)
    shot("start")
    hand = arm.matrix_world @ arm.pose.bones["hand.R"].tail
    front = Vector((0.0, -3.0, 0.0))
    assert live.grab(tuple(hand + front), (0.0, 1.0, 0.0)) is not None, "no hand there"
    for k in range(1, 25):
        goal = hand + Vector((0.3, 0.0, 0.9)) * (k / 24.0)
        live.move(tuple(goal + front), (0.0, 1.0, 0.0))
        live.step()
    steps(12)
    shot("dragged")
    live.release(pin=True)
    live.drop()
    steps(36)
    shot("dropped")
    live.drop(False)
    live.tense()
    steps(36)
    shot("tensed")
    live.stop()
    contact_sheet(bpy, files, scene.render.fps, os.path.join(IMAGES, "live-mode.png"))


def mechanism_scene(bpy):
    scene = new_scene(bpy, (260, 220))
    floor(bpy, scene)
    wood, metal, brass = (material(bpy, "Wood", (0.55, 0.35, 0.2)),
                          material(bpy, "Metal", (0.4, 0.42, 0.45)),
                          material(bpy, "Brass", (0.8, 0.6, 0.2)))

    def cube(name, location, scale, mat):
        bpy.ops.mesh.primitive_cube_add(size=1, location=location)
        obj = bpy.context.active_object
        obj.name, obj.scale = name, scale
        paint(obj, mat)
        return obj

    # The README's door: a static post, a dynamic door, a hinge at the post with a motor.
    post = cube("Post", (0, 0, 1.0), (0.1, 0.1, 2.0), metal)
    bpy.ops.ligament.add_body(kind='STATIC')
    door = cube("Door", (0.45, 0, 1.0), (0.8, 0.05, 1.8), wood)
    bpy.ops.ligament.add_body()
    select(bpy, [post, door], door)
    assert bpy.ops.ligament.add_joint(type='HINGE', pivot='SELECTED') == {'FINISHED'}
    hinge = scene.objects["Hinge Post-Door"].ligament_joint
    hinge.use_motor, hinge.motor_velocity, hinge.motor_max_force = True, 1.5, 50.0
    hinge.use_limit_ang, hinge.limit_ang_lower, hinge.limit_ang_upper = \
        True, 0.0, math.radians(100)

    # A gear train: two cylinders on hinges to a static frame, turning about world Y.
    frame = cube("Frame", (-1.6, 0.25, 1.0), (1.6, 0.1, 1.4), metal)
    bpy.ops.ligament.add_body(kind='STATIC')
    gears, hinges = [], []
    for name, x, radius in (("GearA", -2.0, 0.4), ("GearB", -1.36, 0.2)):
        bpy.ops.mesh.primitive_cylinder_add(vertices=12, radius=radius, depth=0.1,
                                            location=(x, 0, 1.1),
                                            rotation=(math.radians(90), 0, 0))
        gear = bpy.context.active_object
        gear.name = name
        paint(gear, brass)
        bpy.ops.ligament.add_body(shape='CYLINDER')
        spoke = cube(name + "Spoke", (x + radius / 2, -0.06, 1.1), (radius, 0.02, 0.05), wood)
        spoke.parent = gear
        spoke.matrix_parent_inverse = gear.matrix_world.inverted()
        select(bpy, [frame, gear], gear)
        assert bpy.ops.ligament.add_joint(type='HINGE', pivot='ACTIVE') == {'FINISHED'}
        empty = scene.objects[f"Hinge Frame-{name}"]
        empty.rotation_euler = (math.radians(90), 0, 0)       # the hinge's local Z along Y
        gears.append(gear)
        hinges.append(empty)
    drive = hinges[0].ligament_joint
    drive.use_motor, drive.motor_velocity, drive.motor_max_force = True, 2.0, 100.0
    select(bpy, hinges, hinges[1])
    assert bpy.ops.ligament.add_joint(type='GEAR') == {'FINISHED'}
    gear = scene.objects["Gear Hinge Frame-GearA-Hinge Frame-GearB"].ligament_joint
    gear.ratio_mode, gear.teeth_a, gear.teeth_b = 'TEETH', 20, 10
    bpy.context.view_layer.update()
    camera(bpy, scene, (-0.6, -3.9, 1.8), (-0.75, 0, 1.0), lens=35)
    files = play_and_render(bpy, scene, [1, 12, 24, 36], "mechanism")
    contact_sheet(bpy, files, scene.render.fps, os.path.join(IMAGES, "mechanism.png"))
    print(f"door at {math.degrees(door.matrix_world.to_euler().z):.1f} deg (limit 100)",
          flush=True)



# --- the physics check and fix: charts ---------------------------------------------------

def _key_root(arm, bone, frame, offset, rotation=None):
    """Key `bone` at a world offset from its rest (the armature unrotated), and its rotation
    about the world X axis when given."""
    from mathutils import Vector
    pb = arm.pose.bones[bone]
    rest = arm.data.bones[bone].matrix_local.to_3x3()
    pb.location = rest.inverted() @ Vector(offset)
    pb.keyframe_insert("location", frame=frame, group=bone)
    if rotation is not None:
        pb.rotation_mode = 'XYZ'
        pb.rotation_euler = (rotation, 0, 0)
        pb.keyframe_insert("rotation_euler", frame=frame, group=bone)


def _key_jump(arm):
    """The root rises 50 cm and falls in straight lines over frames 10-30, drifting 60 cm
    forward: a tent, not a parabola (as tests/addon/test_physics_check.py keys it)."""
    for f, offset in ((1, (0, 0, 0)), (10, (0, 0, 0)), (20, (0, -0.3, 0.5)),
                      (30, (0, -0.6, 0)), (40, (0, -0.6, 0))):
        _key_root(arm, "spine", f, offset)


def _key_flip(arm):
    """A jump with a full turn about the hips that speeds up from 0.3 to 1.7 of its mean
    rate in the air."""
    heights = {1: 0.0, 10: 0.0, 20: 1.0, 30: 0.0, 40: 0.0}
    for f in [1] + list(range(10, 31, 2)) + [40]:
        s = min(max((f - 10) / 20, 0.0), 1.0)
        z = heights.get(f, 1.0 - abs(f - 20) / 10)
        _key_root(arm, "spine", f, (0, 0, z), 2 * math.pi * (0.3 * s + 0.7 * s * s))


def _checked(bpy, key):
    """A metarig ragdoll on the floor keyed by `key`: (frames, report before, report after
    Physics Fix)."""
    import addon_utils
    scene = new_scene(bpy, (10, 10))
    addon_utils.enable("rigify", default_set=True)
    floor(bpy, scene)
    bpy.ops.object.armature_human_metarig_add()
    arm = bpy.context.active_object
    scene.frame_start, scene.frame_end = 1, 40
    bpy.context.view_layer.update()
    select(bpy, [arm], arm)
    assert bpy.ops.ligament.ragdoll_from_armature(total_mass=70.0) == {'FINISHED'}
    key(arm)
    lig = sys.modules[MODULE]
    for fc in lig.addon.scene.animation.action_fcurves(arm).values():
        for k in fc.keyframe_points:
            k.interpolation = 'LINEAR'
    select(bpy, [arm], arm)
    rig = lig.addon.motion.rig
    assert bpy.ops.ligament.physics_check() == {'FINISHED'}
    frames, before = rig.MotionRig(scene, arm).check()
    assert bpy.ops.ligament.physics_fix() == {'FINISHED'}
    _, after = rig.MotionRig(scene, arm).check()
    return frames, before, after, scene.render.fps


def _svg_chart(x, series, flight, title, ylabel, fps, x0=0, y0=0, w=360, h=220):
    """One chart as SVG elements: `series` [(label, values, colour, dashed)], the frames
    `x` (seconds at `fps` on the axis), the flight frames shaded."""
    import numpy as np
    t = (np.asarray(x) - x[0]) / fps
    ys = np.concatenate([np.asarray(v) for _, v, _, _ in series])
    lo, hi = float(ys.min()), float(ys.max())
    pad = 0.08 * (hi - lo or 1.0)
    lo, hi = lo - pad, hi + pad
    left, right, top, bottom = x0 + 52, x0 + w - 10, y0 + 28, y0 + h - 34

    def px(tt):
        return left + (tt - t[0]) / (t[-1] - t[0]) * (right - left)

    def py(v):
        return bottom - (v - lo) / (hi - lo) * (bottom - top)
    out = [f'<text x="{x0 + w / 2}" y="{y0 + 16}" text-anchor="middle" '
           f'font-weight="bold">{title}</text>']
    on = np.flatnonzero(np.asarray(flight))
    if on.size:
        a, b = px(t[on[0]]), px(t[on[-1]])
        out.append(f'<rect x="{a:.1f}" y="{top}" width="{b - a:.1f}" height="{bottom - top}" '
                   'fill="#e8eef8"/>')
        out.append(f'<text x="{(a + b) / 2:.1f}" y="{top + 14}" text-anchor="middle" '
                   'fill="#667">in the air</text>')
    out.append(f'<rect x="{left}" y="{top}" width="{right - left}" height="{bottom - top}" '
               'fill="none" stroke="#888"/>')
    for i in range(5):
        v = lo + (hi - lo) * i / 4
        out.append(f'<text x="{left - 4}" y="{py(v) + 4:.1f}" text-anchor="end">{v:.2f}</text>')
    for tt in np.arange(0.0, t[-1] + 1e-9, 0.5):
        out.append(f'<text x="{px(tt):.1f}" y="{bottom + 14}" text-anchor="middle">'
                   f'{tt:.1f}</text>')
    out.append(f'<text x="{(left + right) / 2}" y="{bottom + 28}" text-anchor="middle">'
               'time (s)</text>')
    out.append(f'<text transform="translate({x0 + 12},{(top + bottom) / 2}) rotate(-90)" '
               f'text-anchor="middle">{ylabel}</text>')
    for k, (label, values, colour, dashed) in enumerate(series):
        pts = " ".join(f"{px(a):.1f},{py(b):.1f}" for a, b in zip(t, values))
        dash = ' stroke-dasharray="5,4"' if dashed else ""
        out.append(f'<polyline points="{pts}" fill="none" stroke="{colour}" '
                   f'stroke-width="2"{dash}/>')
        ly = top + 14 + 16 * k
        out.append(f'<line x1="{right - 120}" y1="{ly}" x2="{right - 100}" y2="{ly}" '
                   f'stroke="{colour}" stroke-width="2"{dash}/>')
        out.append(f'<text x="{right - 96}" y="{ly + 4}">{label}</text>')
    return out


def _write_svg(path, parts, w, h):
    with open(path, "w") as f:
        f.write(f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" '
                f'viewBox="0 0 {w} {h}" font-family="sans-serif" font-size="11">\n'
                f'<rect width="{w}" height="{h}" fill="white"/>\n')
        f.write("\n".join(parts))
        f.write("\n</svg>\n")
    print(f"wrote {os.path.relpath(path, ROOT)}", flush=True)


def physics_charts(bpy):
    """The centre of mass and the angular momentum of a keyed jump and a keyed flip, before
    and after Physics Fix, as the physics check measures them."""
    import numpy as np
    frames, before, after, fps = _checked(bpy, _key_jump)
    parts = _svg_chart(frames, [("keyed", before.com[:, 2], "#c0392b", True),
                                ("fixed", after.com[:, 2], "#2471a3", False)],
                       before.flight, "Centre of mass height: a keyed jump",
                       "height (m)", fps)
    vz = [("keyed", np.gradient(before.com[:, 2]) * fps, "#c0392b", True),
          ("fixed", np.gradient(after.com[:, 2]) * fps, "#2471a3", False)]
    parts += _svg_chart(frames, vz, before.flight, "Its vertical speed: a straight line in "
                        "the air is gravity", "speed (m/s)", fps, x0=370)
    _write_svg(os.path.join(IMAGES, "physics-jump.svg"), parts, 740, 230)
    print("jump: largest distance from the flight's parabola, keyed "
          f"{before.parabola.max() * 100:.1f} cm, fixed {after.parabola.max() * 100:.4f} cm")
    frames, before, after, fps = _checked(bpy, _key_flip)
    norm = [np.linalg.norm(r.angular_momentum, axis=1) for r in (before, after)]
    parts = _svg_chart(frames, [("keyed", norm[0], "#c0392b", True),
                                ("fixed", norm[1], "#2471a3", False)],
                       before.flight, "Angular momentum about the centre of mass: a keyed flip",
                       "|L| (kg m\u00b2/s)", fps, w=740)
    _write_svg(os.path.join(IMAGES, "physics-flip.svg"), parts, 740, 230)
    on = np.flatnonzero(before.flight)
    inner = on[1:-1]
    for name, n in (("keyed", norm[0]), ("fixed", norm[1])):
        print(f"flip {name}: |L| in the air {n[inner].min():.2f} to {n[inner].max():.2f}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--plot-only", action="store_true",
                        help="only draw docs/images/bench-crowds.png (needs matplotlib)")
    parser.add_argument("--only", choices=("ragdoll", "mechanism", "live", "physics"),
                        help="render one of the contact sheets")
    args = parser.parse_args()
    if args.plot_only:
        plot()
        return
    os.makedirs(IMAGES, exist_ok=True)
    bpy = install()
    if args.only in (None, "mechanism"):
        mechanism_scene(bpy)
    if args.only in (None, "ragdoll"):
        ragdoll_scene(bpy)
    if args.only in (None, "live"):
        live_scene(bpy)
    if args.only in (None, "physics"):
        physics_charts(bpy)


if __name__ == "__main__":
    main()
