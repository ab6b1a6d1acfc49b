"""Batch use: `blender -b scene.blend -c ligament bake [options]`, or with the file after the
command, `blender -c ligament bake scene.blend [options]` (opened by the command itself).

Registered with `bpy.utils.register_cli_command`; `main(argv)` is also callable from Python
and returns the exit code. Saves over the opened file unless `--output` or `--no-save`.
"""

import argparse
import time

import bpy

from . import bake
from .bridge import SceneError


def _parser():
    p = argparse.ArgumentParser(prog="blender -b FILE.blend -c ligament",
                                description="Ligament rigid-body simulation in batch mode")
    sub = p.add_subparsers(dest="command", required=True)
    b = sub.add_parser("bake", help="simulate and bake every dynamic body to keyframes")
    b.add_argument("blend", nargs="?", help="open this .blend first (default: the loaded file)")
    b.add_argument("--scene", help="scene name (default: the active scene)")
    b.add_argument("--start", type=int, help="first frame (default: the world's start)")
    b.add_argument("--end", type=int, help="last frame (default: the world's end)")
    b.add_argument("--step", type=int, default=1, help="key every STEP frames (default 1)")
    b.add_argument("--output", help="save to this .blend (default: save the opened file)")
    b.add_argument("--no-save", action="store_true", help="do not save")
    c = sub.add_parser("clear-bake", help="remove baked keys, restore the previous animation")
    c.add_argument("blend", nargs="?")
    c.add_argument("--scene")
    c.add_argument("--output")
    c.add_argument("--no-save", action="store_true")
    return p


def main(argv):
    """Run a batch command; returns the process exit code."""
    try:
        args = _parser().parse_args(list(argv))
    except SystemExit as exc:
        return exc.code or 0
    if args.blend:
        bpy.ops.wm.open_mainfile(filepath=args.blend)
    scene = bpy.data.scenes.get(args.scene) if args.scene else bpy.context.scene
    if scene is None:
        print(f"Ligament: no scene named '{args.scene}'; scenes are: "
              + ", ".join(s.name for s in bpy.data.scenes))
        return 2
    t0 = time.perf_counter()
    try:
        if args.command == "bake":
            def progress(done, total):
                if done == total or done % max(1, total // 10) == 0:
                    print(f"Ligament: baking {done}/{total} frames "
                          f"({time.perf_counter() - t0:.1f} s)", flush=True)
            objs = bake.bake(scene, args.start, args.end, args.step, progress)
            print(f"Ligament: baked {len(objs)} objects in {time.perf_counter() - t0:.1f} s")
        else:
            objs = bake.clear_bake(scene)
            print(f"Ligament: cleared the bake of {len(objs)} objects")
    except SceneError as exc:
        print(f"Ligament: error: {exc}")
        return 1
    if not args.no_save:
        path = args.output or bpy.data.filepath
        if not path:
            print("Ligament: nothing saved (no file is open); pass --output FILE.blend")
            return 1
        bpy.ops.wm.save_as_mainfile(filepath=path, copy=bool(args.output))
        print(f"Ligament: saved {path}")
    return 0


_handle = None


def register():
    global _handle
    if hasattr(bpy.utils, "register_cli_command"):  # Blender 4.2+
        _handle = bpy.utils.register_cli_command("ligament", main)


def unregister():
    global _handle
    if _handle is not None:
        bpy.utils.unregister_cli_command(_handle)
        _handle = None
