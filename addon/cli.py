"""Batch use: `blender -b shot.blend -c ligament COMMAND [options]`, or with the file after the
command, `blender -b -c ligament COMMAND shot.blend [options]` (opened by the command).

    bake        simulate and bake every dynamic body and ragdoll to keyframes
    check       the scene doctor (exit 1 when it finds an error)
    info        bodies, joints, ragdolls (and the library file of a linked character), frame
                range, solver settings, whether it is baked
    clear-bake  remove the baked keys, give the objects their previous animation back
    merge-reports  gather the JSON reports of bakes run one file per process (on a farm)

The input file is never overwritten unless `--save` is given: `bake` saves to
NAME.baked.blend beside it (`clear-bake` to NAME.cleared.blend), or to `--output FILE`;
`--no-save` saves nothing. `bake --tolerance LOC,ROT` (metres, degrees: `0.001,0.5`) keys only
what the curves need to stay that close to the simulated motion at every frame, as Blender
evaluates them; without it, a key on every frame. `bake --report FILE.json` writes what
happened: frames, keys written (and how many a key on every frame makes), bodies, joints, the
joints that broke and the frame each broke at, the hits bodies took (body, frame, impulse),
seconds per phase, the doctor's
warnings, the output file (the scene check measures overlaps with a step of the solver: when
that is the process's first step, loading the step kernels, about a second, counts as
"check", not "simulate"). `check` and `info` take `--json` (printed) or `--json FILE`.

Several files: `bake a.blend b.blend ... --jobs N` bakes each file in a Blender process of its
own, N at a time, each with its own report (`--report DIR`: DIR/NAME.json; by default
NAME.report.json beside each file; `--output DIR` likewise for the baked files, NAME.baked.blend).
Files in different folders keep their folders below the one they share (`sh010/anim.blend
sh020/anim.blend --output out` writes out/sh010/anim.baked.blend and out/sh020/...); files
that would still write the same output or report (one given twice) are refused (exit 2)
before any bake starts. A failing file does not stop the others. `merge-reports DIR` reads
the reports in DIR's sub-folders too.

Exit codes: 0 done; 1 the scene cannot be simulated (or `check` found an error); 2 bad
arguments, a missing file or an unknown scene; with several files, the number that failed.

Registered with `bpy.utils.register_cli_command`; `main(argv)` is also callable from Python
and returns the exit code.
"""

import argparse
import json
import math
import os
import subprocess
import sys
import threading
import time

import bpy

from . import kernels
from .baking import bake
from .check import doctor
from .runtime import cache
from .runtime.changes import drop_if_changed
from .scene import ragdolls
from .scene.errors import SceneError
from .scene.objects import scene_bodies, scene_joints, world_settings


USAGE, FAILED = 2, 1


class UsageError(Exception):
    """Bad arguments, a missing file, an unknown scene: exit code 2."""


def _parser():
    p = argparse.ArgumentParser(prog="blender -b FILE.blend -c ligament",
                                description="Ligament rigid-body simulation in batch mode")
    sub = p.add_subparsers(dest="command", required=True)

    b = sub.add_parser("bake", help="simulate and bake every dynamic body to keyframes")
    b.add_argument("blend", nargs="*",
                   help="open this .blend first (default: the loaded file); several files "
                        "are baked in processes of their own")
    b.add_argument("--scene", help="scene name (default: the active scene)")
    b.add_argument("--start", type=int, help="first frame (default: the world's start)")
    b.add_argument("--end", type=int, help="last frame (default: the world's end)")
    b.add_argument("--step", type=_frames, default=1, help="key every STEP frames (default 1)")
    b.add_argument("--tolerance", type=_tolerance, metavar="LOC,ROT",
                   help="reduce the keys: keep the curves within LOC metres and ROT degrees "
                        "of the simulated motion at every frame (e.g. 0.001,0.5); default: a "
                        "key on every frame")
    _save_options(b, "NAME.baked.blend")
    b.add_argument("--report", metavar="FILE.json",
                   help="write a JSON report (with several files: a directory for them)")
    b.add_argument("--jobs", type=_count, default=1,
                   help="with several files, bake this many at once (default 1)")

    c = sub.add_parser("check", help="the scene doctor: problems that spoil a simulation")
    c.add_argument("blend", nargs="?", help="open this .blend first")
    c.add_argument("--scene")
    c.add_argument("--json", nargs="?", const="-", metavar="FILE",
                   help="print the findings as JSON (or write them to FILE)")

    i = sub.add_parser("info", help="what the scene simulates")
    i.add_argument("blend", nargs="?", help="open this .blend first")
    i.add_argument("--scene")
    i.add_argument("--json", nargs="?", const="-", metavar="FILE")

    r = sub.add_parser("clear-bake", help="remove baked keys, restore the previous animation")
    r.add_argument("blend", nargs="?")
    r.add_argument("--scene")
    _save_options(r, "NAME.cleared.blend")
    _merge_parser(sub)
    return p


def _at_least_one(text, what):
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"'{text}' is not a whole number of {what} of at "
                                         "least 1")
    return value


def _frames(text):
    return _at_least_one(text, "frames")


def _count(text):
    return _at_least_one(text, "processes")


def _tolerance(text):
    """'LOC,ROT' (metres, degrees) as (metres, radians)."""
    try:
        loc, rot = (float(v) for v in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not LOC,ROT (metres, degrees), e.g. "
                                         "0.001,0.5") from None
    if not (math.isfinite(loc) and math.isfinite(rot)) or loc < 0 or rot < 0:
        raise argparse.ArgumentTypeError(f"'{text}': the tolerances are numbers of metres "
                                         "and degrees, neither negative, e.g. 0.001,0.5")
    return loc, math.radians(rot)


def _save_options(p, default):
    g = p.add_mutually_exclusive_group()
    g.add_argument("--output", help=f"save to this .blend (default: {default} beside the "
                                    "input; with several files: a directory)")
    g.add_argument("--save", action="store_true", help="save over the input file")
    g.add_argument("--no-save", action="store_true", help="do not save")


def main(argv):
    """Run a batch command; returns the process exit code."""
    try:
        args = _parser().parse_args(list(argv))
    except SystemExit as exc:
        return USAGE if exc.code else 0
    try:
        if args.command == "bake" and len(args.blend) > 1:
            return bake_many(args)
        if args.command == "bake":
            return bake_one(args, args.blend[0] if args.blend else None)
        if args.command == "merge-reports":
            return merge_reports(args.reports, args.output)
        scene = _open(args.blend, args.scene)
        if args.command == "check":
            return check(scene, args.json)
        if args.command == "info":
            return info(scene, args.json)
        return clear_bake(scene, args)
    except UsageError as exc:
        print(f"Ligament: error: {exc}", flush=True)
        return USAGE


def _open(blend, scene_name):
    if blend:
        if not os.path.isfile(blend):
            raise UsageError(f"no file '{blend}'")
        try:
            bpy.ops.wm.open_mainfile(filepath=blend)
        except RuntimeError as exc:
            raise UsageError(f"cannot open '{blend}': {exc}") from None
    scene = bpy.data.scenes.get(scene_name) if scene_name else bpy.context.scene
    if scene is None:
        raise UsageError(f"no scene named '{scene_name}'; scenes are: "
                         + ", ".join(s.name for s in bpy.data.scenes))
    return scene


def _emit(doc, where):
    text = json.dumps(doc, indent=1)
    if where == "-":
        print(text, flush=True)
    else:
        with open(where, "w") as f:
            f.write(text + "\n")
        print(f"Ligament: wrote {where}")


# --------------------------------------------------------------------------------------------
# check, info

def check(scene, json_to=None):
    findings = doctor.check(scene)
    line = doctor.summary(scene, findings)
    if json_to:
        _emit({"scene": scene.name, "file": bpy.data.filepath, "summary": line,
               "findings": [f.as_dict() for f in findings]}, json_to)
    else:
        for f in findings:
            print("Ligament: " + f.line())
        print("Ligament: " + line)
    return FAILED if any(f.severity == doctor.ERROR for f in findings) else 0


def describe(scene):
    """What `info` reports, as plain data."""
    ws = scene.ligament_world
    settings = world_settings(scene)
    bodies = [{"name": o.name, "kind": o.ligament_body.kind, "shape": o.ligament_body.shape,
               "mass": o.ligament_body.mass, "baked": o.ligament_body.baked}
              for o in scene_bodies(scene)]
    joints = []
    for e in scene_joints(scene):
        js = e.ligament_joint
        joints.append({"name": e.name, "type": js.type,
                       "a": js.object_a.name if js.object_a else None,
                       "b": js.object_b.name if js.object_b else None,
                       "breakable": js.breakable,
                       "break_threshold": js.break_threshold if js.breakable else None})
    rigs = [{"armature": a.name, "bodies": len(ragdolls.bodies(a)),
             "total_mass": a.ligament_ragdoll.total_mass, "baked": a.ligament_ragdoll.baked,
             "library": ragdolls.library_of(a),
             "library_path": _absolute(ragdolls.library_of(a)),
             "override": a.override_library is not None}
            for a in ragdolls.armatures(scene)]
    baked = [b["name"] for b in bodies if b["baked"]] + [r["armature"] for r in rigs
                                                         if r["baked"]]
    return {"scene": scene.name, "file": bpy.data.filepath, "enabled": ws.enabled,
            "frame_start": ws.frame_start, "frame_end": ws.frame_end,
            "fps": 1.0 / settings["dt"], "substeps": ws.substeps,
            "jointed_substeps": settings["jointed_substeps"],
            "calm_substeps": ws.calm_substeps, "iterations": ws.iterations,
            "gravity": list(settings["gravity"]), "bodies": bodies, "joints": joints,
            "ragdolls": rigs, "baked": baked}


def _absolute(path):
    """A library's path as a full path (Blender names it relative to the shot, '//')."""
    return None if path is None else os.path.normpath(bpy.path.abspath(path))


def info(scene, json_to=None):
    d = describe(scene)
    if json_to:
        _emit(d, json_to)
        return 0
    kinds = {}
    for b in d["bodies"]:
        kinds[b["kind"]] = kinds.get(b["kind"], 0) + 1
    lines = [f"Scene '{d['scene']}' ({d['file'] or 'unsaved'})",
             f"Frames {d['frame_start']}-{d['frame_end']} at {d['fps']:g} fps; substeps "
             f"{d['substeps']}"
             + (f" (jointed {d['jointed_substeps']})" if d["jointed_substeps"] != d["substeps"]
                else "")
             + (f" (calm {d['calm_substeps']})" if d["calm_substeps"] else "")
             + f", iterations {d['iterations']}; gravity "
             f"({', '.join(f'{g:g}' for g in d['gravity'])})"
             + ("" if d["enabled"] else "; simulation off"),
             f"Bodies: {len(d['bodies'])} (" + ", ".join(
                 f"{n} {k.lower()}" for k, n in sorted(kinds.items())) + ")"]
    for b in d["bodies"]:
        mass = f", {b['mass']:g} kg" if b["kind"] == 'DYNAMIC' else ""
        lines.append(f"  {b['name']}: {b['kind'].lower()}, {b['shape'].lower()}{mass}"
                     + (", baked" if b["baked"] else ""))
    lines.append(f"Joints: {len(d['joints'])}")
    for j in d["joints"]:
        brk = f", breaks at {j['break_threshold']:g}" if j["breakable"] else ""
        lines.append(f"  {j['name']}: {j['type'].lower()} {j['a']} - {j['b']}{brk}")
    lines.append(f"Ragdolls: {len(d['ragdolls'])}")
    for r in d["ragdolls"]:
        linked = "" if r["library"] is None else \
            f", {'library override' if r['override'] else 'linked'} of {r['library']}"
        lines.append(f"  {r['armature']}: {r['bodies']} bodies, {r['total_mass']:g} kg"
                     + linked + (", baked" if r["baked"] else ""))
    lines.append("Bake: " + (", ".join(d["baked"]) if d["baked"] else "none"))
    for line in lines:
        print("Ligament: " + line)
    return 0


# --------------------------------------------------------------------------------------------
# bake

def _output(args, kind):
    """Where to save (None: do not), from --save / --no-save / --output."""
    if args.no_save:
        return None
    path = bpy.data.filepath
    if args.save:
        if not path:
            raise UsageError("--save: no file is open; pass --output FILE.blend")
        return path
    if args.output:
        return os.path.abspath(args.output)
    if not path:
        raise UsageError("nothing to save to (no file is open); pass --output FILE.blend or "
                         "--no-save")
    root, ext = os.path.splitext(path)
    return f"{root}.{kind}{ext or '.blend'}"


def _save(path):
    if os.path.abspath(path) == os.path.abspath(bpy.data.filepath):
        bpy.ops.wm.save_as_mainfile(filepath=path)
    else:
        bpy.ops.wm.save_as_mainfile(filepath=path, copy=True)
    print(f"Ligament: saved {path}", flush=True)


def bake_one(args, blend):
    """Bake one file in this process."""
    t_begin = time.perf_counter()
    report = {"file": os.path.abspath(blend) if blend else None, "ok": False, "error": None}

    def finish(code, error=None):
        report["error"] = error
        report["ok"] = code == 0
        report.setdefault("seconds", {})["total"] = round(time.perf_counter() - t_begin, 3)
        if args.report:
            with open(args.report, "w") as f:
                json.dump(report, f, indent=1)
            print(f"Ligament: report {args.report}", flush=True)
        if error:
            print(f"Ligament: error: {error}", flush=True)
        return code

    try:
        scene = _open(blend, args.scene)
        out = _output(args, "baked")
    except UsageError as exc:
        return finish(USAGE, str(exc))
    report.update(file=bpy.data.filepath or None, scene=scene.name, output=out)
    seconds = report["seconds"] = {}
    try:
        t = time.perf_counter()
        drop_if_changed(scene)
        sim = cache.ensure(scene)      # prepares the kernels first in background mode
        # building runs the scene check (cache.ensure), which printed its findings
        seconds["build"] = round(time.perf_counter() - t - sim.check_seconds, 3)
        seconds["check"] = round(sim.check_seconds, 3)
        report["warnings"] = [f.as_dict() for f in sim.findings]
        t = time.perf_counter()
        simulated = [t]

        def progress(done, total):
            if done == total or done % max(1, total // 10) == 0:
                print(f"Ligament: baking {done}/{total} frames "
                      f"({time.perf_counter() - t:.1f} s)", flush=True)
            if done == total:
                simulated[0] = time.perf_counter()
        objs = bake.bake(scene, args.start, args.end, args.step, progress, args.tolerance)
        seconds["simulate"] = round(simulated[0] - t, 3)
        seconds["write_keys"] = round(time.perf_counter() - simulated[0], 3)
    except SceneError as exc:
        return finish(FAILED, str(exc))
    ws = scene.ligament_world
    start = ws.frame_start if args.start is None else args.start
    end = ws.frame_end if args.end is None else args.end
    broken = dict(sim.broken)
    report.update(
        frames={"start": start, "end": end, "step": args.step,
                "keyed": len(bake.bake_frames(start, end, args.step))},
        bodies=len(scene_bodies(scene)), joints=len(scene_joints(scene)),
        ragdolls=len(sim.ragdolls), baked_objects=[o.name for o in objs],
        keys=_keys(scene, args.tolerance),
        broken_joints=[{"joint": n, "frame": f} for n, f in sorted(broken.items(),
                                                                   key=lambda kv: kv[1])],
        skipped_joints=[{"joint": n, "reason": m} for n, m in sim.skipped.items()],
        skipped_bodies=[{"body": n, "reason": m} for n, m in sim.skipped_bodies.items()],
        hits=[{"body": n, "frame": f, "impulse": round(i, 6)} for f, n, i in sim.hit_list()
              if start <= f <= end])
    print(f"Ligament: baked {len(objs)} objects, frames {start}-{end}, "
          f"{bake.last_key_count(scene).line()}, in "
          f"{time.perf_counter() - t_begin:.1f} s"
          + (f"; {len(broken)} joints broke" if broken else ""), flush=True)
    if out is not None:
        t = time.perf_counter()
        _save(out)
        seconds["save"] = round(time.perf_counter() - t, 3)
    return finish(0)


def _keys(scene, tolerance):
    """The report's keys: written, a key on every frame ("full"), the tolerance."""
    count = bake.last_key_count(scene)
    return {"written": count.written, "full": count.full,
            "tolerance": None if tolerance is None else
            {"location_m": tolerance[0], "rotation_deg": math.degrees(tolerance[1])}}


def clear_bake(scene, args):
    out = _output(args, "cleared")
    objs = bake.clear_bake(scene)
    print(f"Ligament: cleared the bake of {len(objs)} objects")
    if out is not None:
        _save(out)
    return 0


# --------------------------------------------------------------------------------------------
# Several files: one Blender process each

def _extension_module():
    return __name__.rsplit(".", 2)[0]     # <extension>.addon.cli -> <extension>


# For the bpy wheel (no Blender binary): a Python that imports bpy, enables the extension and
# runs one command. argv: [-c, extension module, command arguments...]
_ENTRY = ("import importlib, sys, bpy; bpy.ops.preferences.addon_enable(module=sys.argv[1]); "
          "sys.exit(importlib.import_module(sys.argv[1] + '.addon.cli').main(sys.argv[2:]))")


def child_command(argv):
    """The command line that runs `ligament <argv>` in a new Blender process: Blender's own
    binary (`blender -b -c ligament ...`), or with the bpy wheel, whose Blender has no binary
    (`bpy.app.binary_path` is empty), this Python with a small entry that enables the
    extension and calls `main`."""
    if bpy.app.binary_path:
        return [bpy.app.binary_path, "-b", "-c", "ligament", *argv]
    return [sys.executable, "-c", _ENTRY, _extension_module(), *argv]


def _child_argv(args, blend, output, report):
    argv = ["bake", blend]
    for name in ("scene", "start", "end"):
        value = getattr(args, name)
        if value is not None:
            argv += [f"--{name}", str(value)]
    argv += ["--step", str(args.step), "--report", report]
    if args.tolerance is not None:
        argv += ["--tolerance", f"{args.tolerance[0]!r},{math.degrees(args.tolerance[1])!r}"]
    if args.save:
        argv.append("--save")
    elif args.no_save:
        argv.append("--no-save")
    elif output:
        argv += ["--output", output]
    return argv


def _common_folder(blends):
    """The deepest folder holding every file of `blends` (None when they share none, as on
    two Windows drives)."""
    try:
        return os.path.commonpath([os.path.dirname(os.path.abspath(b)) for b in blends])
    except ValueError:
        return None


def _relative(blend, common):
    """`blend`'s path below `common`: the name its output and report keep in `--output DIR`
    and `--report DIR`, so that shots called the same in folders of their own stay apart."""
    path = os.path.abspath(blend)
    if common is None:
        return os.path.splitdrive(path)[1].lstrip("\\/")
    return os.path.relpath(path, common)


def _paths(args, blend, common):
    """(output .blend or None, report .json) of `blend` among files whose common folder is
    `common`: below `--output DIR` and `--report DIR` in the same sub-folders as the file
    below `common`; by default beside the file."""
    rel = os.path.splitext(_relative(blend, common))[0]
    where = os.path.splitext(os.path.abspath(blend))[0]
    output = os.path.join(args.output, rel + ".baked.blend") if args.output else None
    report = os.path.join(args.report, rel + ".json") if args.report else \
        where + ".report.json"
    return output, report


def _clashes(args, blends, common):
    """Refuse files that would write the same output or report (the same file given twice;
    on Windows, two names that differ only in case): one bake would overwrite the other's.
    Raises UsageError naming them."""
    seen = {}
    for blend in blends:
        for path in _paths(args, blend, common):
            if path is None:
                continue
            key = os.path.normcase(os.path.abspath(path))
            if key in seen and seen[key] != os.path.abspath(blend):
                raise UsageError(f"'{seen[key]}' and '{blend}' would both write '{path}'; "
                                 "rename one")
            if key in seen:
                raise UsageError(f"'{blend}' is given twice; give each file once")
            seen[key] = os.path.abspath(blend)


def bake_many(args):
    """Bake each file in its own process, `--jobs` at a time. Returns how many failed."""
    common = _common_folder(args.blend)
    _clashes(args, args.blend, common)
    for d in (args.output, args.report):
        if d:
            os.makedirs(d, exist_ok=True)
    if not kernels.ready():            # prepare once here, not once per process
        kernels.prepare_blocking()
    jobs = args.jobs
    pending = list(args.blend)
    running = []                        # (name, process, reader thread)
    failed = []
    t0 = time.perf_counter()
    print(f"Ligament: baking {len(pending)} files, {jobs} at a time", flush=True)

    def read(name, process):
        for line in process.stdout:
            print(f"[{name}] {line.rstrip()}", flush=True)

    while pending or running:
        while pending and len(running) < jobs:
            blend = pending.pop(0)
            name = _relative(blend, common).replace(os.sep, "/")
            if not os.path.isfile(blend):
                print(f"Ligament: error: no file '{blend}'", flush=True)
                failed.append((name, USAGE))
                continue
            output, report = _paths(args, blend, common)
            for path in (output, report):
                if path:
                    os.makedirs(os.path.dirname(path), exist_ok=True)
            cmd = child_command(_child_argv(args, os.path.abspath(blend), output, report))
            process = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                       stdin=subprocess.DEVNULL, text=True)
            reader = threading.Thread(target=read, args=(name, process), daemon=True)
            reader.start()
            running.append((name, process, reader))
        time.sleep(0.05)
        for item in list(running):
            name, process, reader = item
            if process.poll() is None:
                continue
            reader.join()
            running.remove(item)
            if process.returncode != 0:
                failed.append((name, process.returncode))
            print(f"Ligament: {name} {'done' if process.returncode == 0 else 'FAILED'} "
                  f"(exit {process.returncode})", flush=True)
    done = len(args.blend) - len(failed)
    print(f"Ligament: baked {done} of {len(args.blend)} files in "
          f"{time.perf_counter() - t0:.1f} s" + ("; failed: " + ", ".join(
              f"{n} (exit {c})" for n, c in failed) if failed else ""), flush=True)
    return min(len(failed), 125)


# --------------------------------------------------------------------------------------------
# merge-reports: the reports of bakes run elsewhere (one task per file on a farm) as one

def _merge_parser(sub):
    m = sub.add_parser("merge-reports",
                       help="gather bake reports (files or directories of them) into one")
    m.add_argument("reports", nargs="+", metavar="REPORT",
                   help="a bake's --report file, or a directory: every .json in it")
    m.add_argument("--output", required=True, metavar="FILE.json", help="the merged report")


def _report_paths(paths, output):
    found = []
    for p in paths:
        if os.path.isdir(p):     # with its sub-folders: a bake of shots keeps theirs
            found += sorted(os.path.join(root, n) for root, _, names in os.walk(p)
                            for n in names if n.endswith(".json") and
                            os.path.abspath(os.path.join(root, n)) != os.path.abspath(output))
        else:
            found.append(p)
    return found


def merge_reports(paths, output):
    """One JSON document from several bake reports: each report as written, the files that
    failed (their error) or left no report, the joints that broke in any of them, and the
    seconds summed. Returns how many files failed or are missing (0: all baked)."""
    reports, failed = [], []
    for path in _report_paths(paths, output):
        try:
            with open(path) as f:
                r = json.load(f)
        except (OSError, ValueError) as exc:
            failed.append({"report": path, "file": None, "error": f"no report: {exc}"})
            continue
        if not isinstance(r, dict):
            failed.append({"report": path, "file": None, "error": "no report: not a bake's"})
            continue
        if "reports" in r:
            continue                    # a merged report (an earlier run's, in the same folder)
        reports.append(r)
        if not r.get("ok"):
            failed.append({"report": path, "file": r.get("file"), "error": r.get("error")})
    merged = {
        "files": len(reports) + sum(1 for f in failed if f["file"] is None),
        "baked": sum(1 for r in reports if r.get("ok")),
        "failed": failed,
        "seconds": round(sum(r.get("seconds", {}).get("total", 0.0) for r in reports), 3),
        "broken_joints": [dict(j, file=r.get("file")) for r in reports
                          for j in r.get("broken_joints", [])],
        "reports": reports,
    }
    with open(output, "w") as f:
        json.dump(merged, f, indent=1)
    print(f"Ligament: merged {len(reports)} reports into {output}: {merged['baked']} of "
          f"{merged['files']} files baked"
          + ("; failed: " + ", ".join(os.path.basename(f["file"] or f["report"])
                                      for f in failed) if failed else ""), flush=True)
    return min(len(failed), 125)


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
