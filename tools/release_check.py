#!/usr/bin/env python3
"""Install an extension zip into Blender as a user does, play a scene and bake it.

    .venv/blender-5.3.0/bin/python tools/release_check.py dist/ligament-0.1.0-linux_x64-py313.zip

Run with the Python of an environment that has Blender as a module (the `bpy` wheel) and no
numba of its own. It installs the zip into a fresh user folder (Install from Disk), drops a
crate from 3 m onto a static floor beside a bar hinged to a static post, plays 48 frames at
24 fps, bakes them (`ligament.bake`), plays the keys back with the simulation off and clears
the bake. It fails (exit 1) when the zip does not install, when any solver kernel compiles (a
zip built here must ship kernels that load), when the simulation reports an error, or when
the keys do not play back what was simulated. `--json` prints the figures for tests
(tests/addon/test_blender_versions.py checks them against free fall and the pendulum);
`--compile-ok` accepts a zip without kernels.
"""

import argparse
import json
import os
import sys
import tempfile

MODULE = "bl_ext.user_default.ligament"
FRAMES, FPS = 48, 24


def scene_and_play(bpy, lig):
    """The scene, played and baked; returns the figures."""
    scene = bpy.context.scene
    scene.render.fps = FPS
    scene.frame_start, scene.frame_end = 1, FRAMES

    def box(name, size, location, kind="DYNAMIC"):
        bpy.ops.mesh.primitive_cube_add(size=1, location=location)
        obj = bpy.context.active_object
        obj.name, obj.scale = name, size
        obj.ligament_body.enabled, obj.ligament_body.kind = True, kind
        return obj

    box("Floor", (6, 6, 1), (0, 0, -0.5), kind="STATIC")
    crate = box("Crate", (0.5, 0.5, 0.5), (0, 0, 3.0))
    post = box("Post", (0.2, 0.2, 0.2), (3, 0, 2), kind="STATIC")
    bar = box("Bar", (1, 0.1, 0.1), (3.5, 0, 2))
    hinge = bpy.data.objects.new("Hinge", None)     # its local Z, the hinge axis, along -Y
    scene.collection.objects.link(hinge)
    hinge.location, hinge.rotation_euler = (3, 0, 2), (1.5707963267948966, 0, 0)
    j = hinge.ligament_joint
    j.enabled, j.type, j.object_a, j.object_b = True, "HINGE", post, bar
    bpy.context.view_layer.update()
    scene.ligament_world.enabled = True
    scene.ligament_world.frame_start, scene.ligament_world.frame_end = 1, FRAMES

    def poses():
        return [list(crate.matrix_world.translation), list(bar.matrix_world.translation)]

    live = {}
    for f in range(1, FRAMES + 1):
        scene.frame_set(f)
        live[f] = poses()
    error = lig.addon.runtime.cache.error(scene)
    baked = sorted(bpy.ops.ligament.bake(frame_start=1, frame_end=FRAMES))
    keys = {f"{path}[{i}]": len(fc.keyframe_points)
            for (path, i), fc in lig.addon.scene.animation.transform_fcurves(crate).items()}
    scene.ligament_world.enabled = False
    replay = {}
    for f in range(1, FRAMES + 1):
        scene.frame_set(f)
        replay[f] = poses()
    bpy.ops.ligament.clear_bake()
    ad = crate.animation_data
    return {"error": error, "baked": baked, "keys": keys, "live": live, "replay": replay,
            "cleared": ad is None or ad.action is None}


def compiled_kernels(lig):
    """How many solver kernels this process compiled instead of loading them."""
    from numba.core.dispatcher import Dispatcher
    name = lig.addon.kernels.MODULE_NAME
    return sum(sum(v.stats.cache_misses.values()) for m, mod in list(sys.modules.items())
               if m.startswith(name) for v in vars(mod).values() if isinstance(v, Dispatcher))


def problems(out, compile_ok):
    found = []
    if not out["installed_numba"]:
        found.append(f"numba came from {out['numba']}, not from the installed zip")
    if out["compiled"] and not compile_ok:
        found.append(f"{out['compiled']} kernels compiled (the zip's kernels did not load)")
    if out["error"]:
        found.append(f"simulation error: {out['error']}")
    if out["baked"] != ["FINISHED"]:
        found.append(f"bake returned {out['baked']}")
    if set(out["keys"].values()) != {FRAMES}:
        found.append(f"baked keys {out['keys']}, expected {FRAMES} on every channel")
    worst = max(abs(a - b) for f in out["live"] for p, q in zip(out["live"][f], out["replay"][f])
                for a, b in zip(p, q))
    if worst > 1e-4:
        found.append(f"the keys play back {worst:.3g} m away from the simulation")
    if not out["cleared"]:
        found.append("clear bake left the bake action on the crate")
    return found


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("zip")
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    ap.add_argument("--compile-ok", action="store_true",
                    help="accept kernels compiling (a zip built without them)")
    args = ap.parse_args(argv)
    home = tempfile.mkdtemp(prefix="ligament-release-check-")
    os.environ["BLENDER_USER_RESOURCES"] = home
    for key in ("NUMBA_CACHE_DIR", "LIGAMENT_KERNEL_CACHE"):
        os.environ.pop(key, None)
    import bpy
    result = bpy.ops.extensions.package_install_files(
        filepath=os.path.abspath(args.zip), repo="user_default", enable_on_install=True)
    if result != {"FINISHED"}:
        sys.exit(f"release_check: installing {args.zip} into Blender "
                 f"{bpy.app.version_string} returned {result}")
    bpy.ops.wm.read_homefile(use_empty=True)
    lig = sys.modules[MODULE]
    out = scene_and_play(bpy, lig)
    import numba
    out.update(version=bpy.app.version_string, numba=numba.__file__,
               installed_numba=os.path.abspath(numba.__file__).startswith(home),
               compiled=compiled_kernels(lig), home=home)
    found = problems(out, args.compile_ok)
    if args.json:
        print("RESULT:" + json.dumps(out))
    print(f"release_check: Blender {out['version']}, {os.path.basename(args.zip)}: "
          + ("; ".join(found) if found else
             f"installed, played and baked {FRAMES} frames, {out['compiled']} kernels compiled"))
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
