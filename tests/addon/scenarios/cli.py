"""The batch command's scenarios (addon/cli.py): test_cli.py's, each in a Blender process of
its own (blender.call_fresh), and test_cli_args.py's and test_cli_shots.py's in the
long-lived Blender; `pendulum()` is the scene they bake (test_farm.py's too)."""

import hashlib
import os
from importlib import import_module

import bpy

from .helpers import box, joint, lig


def pendulum():
    """A pendulum released level: a 1 kg bob on a breakable ball joint 1 m from a static
    post. The rod's tension grows as it swings down (3 m g sin(angle) for a point mass), so
    a 20 N joint breaks part way down, some frames in, and the bob flies off."""
    box("Ground", (20, 20, 1), (0, 0, -0.5), kind='STATIC')
    post = box("Post", (0.2, 0.2, 0.2), (0, 0, 3), kind='STATIC')
    bob = box("Bob", (0.2, 0.2, 0.2), (1.0, 0, 3), mass=1.0)
    joint("Link", 'BALL', post, bob, (0, 0, 3), breakable=True, break_threshold=20.0)
    bpy.context.scene.ligament_world.frame_end = 40


def cli():
    """The add-on's addon.cli module."""
    return import_module(lig().__name__ + ".addon.cli")


def bad_arguments(src, folder):
    """The pendulum saved to `src` (in `folder`) and baked by the batch command with bad
    --step, --tolerance and --jobs values: the exit codes, the files in `folder`, the Python
    API's error for a NaN tolerance, and a bake with good values."""
    pendulum()
    c = cli()
    bpy.ops.wm.save_as_mainfile(filepath=src)
    bad = {
        "step 0": ["--step", "0"],
        "step -2": ["--step", "-2"],
        "tolerance nan": ["--tolerance", "nan,0.5"],
        "tolerance inf": ["--tolerance", "0.001,inf"],
        "jobs 0": ["--jobs", "0"],
    }
    codes = {k: c.main(["bake", src, *v]) for k, v in bad.items()}
    files_after_bad = sorted(os.listdir(folder))
    # the Python API refuses a tolerance that is not a number the same way
    addon = lig().addon
    try:
        addon.baking.bake.bake(bpy.context.scene, 1, 5, tolerance=(float("nan"), 0.01))
        api = None
    except addon.scene.errors.SceneError as exc:
        api = str(exc)
    # good values still bake
    good = c.main(["bake", src, "--step", "2", "--end", "9",
                   "--tolerance", "0.001,0.5", "--no-save"])
    return {"codes": codes, "files": files_after_bad, "api": api, "good": good}


def shots_in_their_folders(files, shots, out_dir, report_dir, merged, twice_dir):
    """The pendulum saved as each shot's file (`files`: shot -> path) with the bob's mass
    `shots[shot]`, baked at once (--jobs 2) into `out_dir` with reports in `report_dir`,
    the reports merged into `merged`; then the same file given twice (output `twice_dir`).
    The exit codes and what each baked file holds."""
    pendulum()
    c = cli()
    for shot, mass in shots.items():
        os.makedirs(os.path.dirname(files[shot]), exist_ok=True)
        bpy.data.objects["Bob"].ligament_body.mass = mass
        bpy.ops.wm.save_as_mainfile(filepath=files[shot])
    code = c.main(["bake", files["sh010"], files["sh020"], "--jobs", "2",
                   "--output", out_dir, "--report", report_dir])
    merge = c.main(["merge-reports", report_dir, "--output", merged])
    # what each baked file holds: the mass of its bob tells the shot
    baked = {}
    for root, _, names in os.walk(out_dir):
        for n in names:
            if n.endswith(".blend"):
                path = os.path.join(root, n)
                bpy.ops.wm.open_mainfile(filepath=path)
                bob = bpy.data.objects["Bob"]
                baked[os.path.relpath(path, out_dir)] = {
                    "mass": bob.ligament_body.mass, "baked": bob.ligament_body.baked}
    # the same file twice would write one output twice: refused before anything runs
    twice = c.main(["bake", files["sh010"], files["sh010"], "--output", twice_dir])
    return {"code": code, "merge": merge, "baked": baked, "twice": twice,
            "twice_made": os.path.exists(twice_dir)}


def digest(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def bake_with_a_report(src, report, baked_path, folder):
    """The pendulum and a body with nothing under it saved to `src`, played live (the frame
    the joint breaks), then baked by the batch command with a report to `report`: the
    input's digest before and after, the keys in the baked file `baked_path`, the files in
    `folder`."""
    scene = bpy.context.scene
    pendulum()
    c = cli()
    addon = lig().addon
    # A body with nothing under it: the doctor's warning goes into the report.
    box("Floater", (0.3, 0.3, 0.3), (40, 0, 5))
    bpy.ops.wm.save_as_mainfile(filepath=src)
    before = digest(src)
    # The live run: the frame at which the joint breaks.
    live_broke = None
    for f in range(1, 41):
        scene.frame_set(f)
        sim = addon.runtime.cache.get(scene)
        if live_broke is None and sim.world.joint_broken(dict(sim.joints)["Link"]):
            live_broke = f
    live_end = list(bpy.data.objects["Bob"].matrix_world.translation)
    code = c.main(["bake", src, "--report", report])
    after = digest(src)
    bpy.ops.wm.open_mainfile(filepath=baked_path)
    keys = {}
    for name in ("Bob", "Floater"):
        o = bpy.data.objects[name]
        keys[name] = sorted(len(fc.keyframe_points)
                            for fc in addon.scene.animation.transform_fcurves(o).values())
    bob = bpy.data.objects["Bob"]
    scene = bpy.context.scene
    scene.frame_set(40)
    return {"code": code, "before": before, "after": after, "live_broke": live_broke,
            "live_end": live_end,
            "keys": keys, "baked": bob.ligament_body.baked,
            "bob_end": list(bob.matrix_world.translation),
            "files": sorted(os.listdir(folder))}


def bake_with_save(src, folder):
    """The pendulum saved to `src` and baked with --save: the code, whether the file holds
    the bake, the files in `folder`."""
    pendulum()
    c = cli()
    bpy.ops.wm.save_as_mainfile(filepath=src)
    code = c.main(["bake", src, "--save"])
    bpy.ops.wm.open_mainfile(filepath=src)
    return {"code": code, "baked": bpy.data.objects["Bob"].ligament_body.baked,
            "files": sorted(f for f in os.listdir(folder) if not f.endswith(".blend1"))}


def several_files(files, missing, reports, outputs):
    """The pendulum saved as both `files` (the second with a 2 kg bob), baked with a
    `missing` file between them (--jobs 2): the exit code."""
    pendulum()
    c = cli()
    bpy.ops.wm.save_as_mainfile(filepath=files[0])
    bpy.data.objects["Bob"].ligament_body.mass = 2.0   # the second shot differs
    bpy.ops.wm.save_as_mainfile(filepath=files[1])
    code = c.main(["bake", files[0], missing, files[1], "--jobs", "2", "--report", reports,
                   "--output", outputs])
    return {"code": code}


def batch_errors(src, empty, nope, report, folder):
    """The batch command given a missing file (`nope`, a report to `report`), a scene that
    is not there, a file without bodies (`empty`), an unknown option, and check on the
    missing file: the exit codes and the files in `folder`."""
    pendulum()
    c = cli()
    bpy.ops.wm.save_as_mainfile(filepath=src)
    for o in list(bpy.data.objects):
        bpy.data.objects.remove(o)
    bpy.ops.wm.save_as_mainfile(filepath=empty)
    codes = {
        "missing": c.main(["bake", nope, "--report", report]),
        "scene": c.main(["bake", src, "--scene", "Nope"]),
        "no_bodies": c.main(["bake", empty]),
        "bad_option": c.main(["bake", "--frobnicate"]),
        "check_missing": c.main(["check", nope]),
    }
    return {"codes": codes, "files": sorted(os.listdir(folder))}


def info_and_check(src, info_json, check_json, info_json2):
    """The pendulum (12 substeps) saved to `src`: info and check to JSON and to the log, a
    check with the joint's B unset, a bake, info again: the exit codes."""
    pendulum()
    c = cli()
    bpy.context.scene.ligament_world.substeps = 12
    bpy.ops.wm.save_as_mainfile(filepath=src)
    codes = [c.main(["info", src, "--json", info_json]),
             c.main(["check", src, "--json", check_json]),
             c.main(["info", src])]
    # an error: the joint's B deleted
    bpy.data.objects["Link"].ligament_joint.object_b = None
    codes.append(c.main(["check"]))
    bpy.data.objects["Link"].ligament_joint.object_b = bpy.data.objects["Bob"]
    codes.append(c.main(["bake", "--no-save", "--end", "5"]))
    codes.append(c.main(["info", "--json", info_json2]))
    return {"codes": codes}
