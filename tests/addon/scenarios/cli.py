"""The batch command's scenarios that run in the long-lived Blender (test_cli_args.py,
test_cli_shots.py), and `pendulum()`, the scene the batch command's tests bake (test_cli.py
and test_farm.py build it as a string for their fresh processes)."""

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
