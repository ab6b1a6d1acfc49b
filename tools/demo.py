#!/usr/bin/env python3
"""The main job, end to end: Ligament inside real Blender (the `bpy` wheel: Blender 5.3 by
default, 5.0 with `bash tools/demo.sh --python 3.11`).

Builds the extension zip with Blender's own builder (its kernels compiled by the numba and the
Python the zip ships), installs it the way a user does into a private user folder
(build/demo-user-VERSION), builds a scene from ordinary objects (a static ground, a stack of
boxes, a pyramid of blocks, a door on a hinge, a chain of links hanging from a beam), runs the
batch bake (`ligament bake`, the same code `blender -b scene.blend -c ligament bake` runs),
saves build/demo.blend and prints what happened.

    bash tools/demo.sh            (makes .venv/blender-5.3.0, then runs this file in it)
"""

import math
import os
import platform
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.path.join(ROOT, "build")
MODULE = "bl_ext.user_default.ligament"
T0 = time.perf_counter()


def say(text):
    print(f"[{time.perf_counter() - T0:5.1f} s] {text}", flush=True)


def current_platform():
    machine = platform.machine().lower()
    arch = "arm64" if machine in {"arm64", "aarch64"} else "x64"
    system = {"linux": "linux", "win32": "windows", "darwin": "macos"}[sys.platform]
    return f"{system}-{arch}"


def build_zip():
    """tools/build_extension.py for this platform and this Python, its progress shown."""
    line = "%d.%d" % sys.version_info[:2]
    say(f"building the extension zip for {current_platform()}, Python {line}")
    proc = subprocess.Popen([sys.executable, os.path.join(ROOT, "tools", "build_extension.py"),
                             "--output-dir", os.path.join(BUILD, "dist"), "--platform",
                             current_platform(), "--python", line],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    lines = []
    for text in proc.stdout:
        lines.append(text.rstrip())
        if text.startswith("build_extension:"):
            say(text.rstrip()[len("build_extension: "):])
    if proc.wait():
        sys.exit("\n".join(lines[-30:]))
    return lines[-1]


def install():
    """Build the zip, install and enable it in a private user folder the way a user does,
    open an empty file. Returns (bpy, the extension's module)."""
    zip_path = build_zip()
    say("starting Blender")
    os.environ.pop("NUMBA_CACHE_DIR", None)
    os.environ.pop("LIGAMENT_KERNEL_CACHE", None)
    home = os.path.join(BUILD, "demo-user-%d.%d" % sys.version_info[:2])
    os.makedirs(home, exist_ok=True)
    os.environ["BLENDER_USER_RESOURCES"] = home
    import bpy
    say(f"Blender {bpy.app.version_string}: installing {os.path.basename(zip_path)} into "
        f"{os.path.relpath(home, ROOT)}")
    result = bpy.ops.extensions.package_install_files(filepath=zip_path, repo="user_default",
                                                      enable_on_install=True)
    assert result == {"FINISHED"}, result
    say("installed and enabled")
    bpy.ops.wm.read_homefile(use_empty=True)
    return bpy, sys.modules[MODULE]


def main():
    bpy, lig = install()
    scene = bpy.context.scene
    scene.render.fps = 24
    scene.frame_start, scene.frame_end = 1, 96

    def box(name, size, location, kind="DYNAMIC"):
        bpy.ops.mesh.primitive_cube_add(size=1, location=location)
        obj = bpy.context.active_object
        obj.name, obj.scale = name, size
        obj.ligament_body.enabled = True
        obj.ligament_body.kind = kind
        return obj

    def joint(name, type, a, b, location, rotation=(0, 0, 0)):
        empty = bpy.data.objects.new(name, None)
        scene.collection.objects.link(empty)
        empty.location, empty.rotation_euler = location, rotation
        j = empty.ligament_joint
        j.enabled, j.type, j.object_a, j.object_b = True, type, a, b
        return empty

    box("Ground", (12, 12, 1), (0, 0, -0.5), kind="STATIC")
    stack = [box(f"Crate.{i}", (0.5, 0.5, 0.5), (0.0, 0.0, 0.25 + 0.5 * i)) for i in range(5)]
    pyramid = [box(f"Block.{r}.{i}", (0.5, 0.5, 0.5),
                   (0.5 * (i - (5 - r - 1) / 2), -2.0, 0.25 + 0.5 * r))
               for r in range(5) for i in range(5 - r)]
    pyramid_start = [o.location.copy() for o in pyramid]
    post = box("DoorPost", (0.1, 0.1, 2.0), (2.0, 0.0, 1.0), kind="STATIC")
    door = box("Door", (0.8, 0.05, 1.8), (2.45, 0.0, 1.0))
    door.rotation_euler = (0.0, 0.0, 0.3)
    joint("DoorHinge", "HINGE", post, door, (2.0, 0.0, 1.0))
    beam = box("Beam", (0.2, 0.2, 0.2), (-2.0, 2.0, 3.0), kind="STATIC")   # clear of the stack
    links, prev = [], beam
    for i in range(6):
        link = box(f"Link.{i}", (0.4, 0.08, 0.08), (-2.0 + 0.4 * (i + 0.5), 2.0, 3.0))
        joint(f"Pin.{i}", "BALL", prev, link, (-2.0 + 0.4 * i, 2.0, 3.0))
        links.append(link)
        prev = link
    bpy.context.view_layer.update()
    world = scene.ligament_world
    world.enabled = True
    world.frame_start, world.frame_end = scene.frame_start, scene.frame_end

    out = os.path.join(BUILD, "demo.blend")
    say(f"baking frames {scene.frame_start}-{scene.frame_end} of {len(scene.objects)} objects "
        "(ligament bake)")
    code = lig.addon.cli.main(["bake", "--output", out])
    if code:
        sys.exit(f"bake failed with exit code {code}")

    scene.frame_set(scene.frame_end)
    top = stack[-1].matrix_world.translation
    hinge_angle = math.degrees(door.matrix_world.to_euler().z)
    tip = links[-1].matrix_world.translation
    keys = sum(len(fc.keyframe_points) for o in stack + pyramid + [door] + links
               for fc in lig.addon.scene.animation.transform_fcurves(o).values())
    print(f"Frame {scene.frame_end} ({scene.frame_end / scene.render.fps:.1f} s):")
    print(f"  top crate at z = {top.z:.3f} m (stacked height {0.25 + 0.5 * 4:.2f} m)")
    moved = max((o.matrix_world.translation - p).length for o, p in zip(pyramid, pyramid_start))
    print(f"  pyramid of {len(pyramid)} blocks: the most any block moved is {100 * moved:.2f} cm")
    print(f"  door turned to {hinge_angle:.1f} deg about its hinge")
    print(f"  chain tip at ({tip.x:.2f}, {tip.y:.2f}, {tip.z:.2f}) m, hanging below the beam")
    print(f"  {keys} keyframes written on {len(stack) + len(pyramid) + 1 + len(links)} objects")
    print(f"Saved {out}; open it in Blender {bpy.app.version_string.rsplit('.', 1)[0]} or later "
          "and press play.")
    if abs(top.z - 2.25) > 0.05 or moved > 0.05:
        sys.exit("the stacks did not stand: the crate column or the pyramid moved over 5 cm")


if __name__ == "__main__":
    main()
