"""test_farm.py's scenario, in a Blender process of its own (blender.call_fresh): the
commands a Flamenco job runs, each shot's batch bake and the merged report."""

import json
import os

import bpy

from .cli import cli, pendulum


def job_commands(shots, out_dir, files, runs, folder):
    """The pendulum saved as both `files` in `shots` (the second with a 2 kg bob), each of
    `runs` ([file to open or None, batch command's arguments]) run as a Worker runs it, then
    the reports merged with a failed one and a missing one (in `folder`): the exit codes."""
    pendulum()
    c = cli()
    os.makedirs(shots)
    os.makedirs(out_dir)
    bpy.ops.wm.save_as_mainfile(filepath=files[0])
    bpy.data.objects["Bob"].ligament_body.mass = 2.0   # the second shot differs
    bpy.ops.wm.save_as_mainfile(filepath=files[1])
    codes = []
    for blend, argv in runs:
        if blend:
            bpy.ops.wm.open_mainfile(filepath=blend)
        codes.append(c.main(argv))
    # a shot that failed and one that left no report: merged, and the exit code counts them
    bad = os.path.join(folder, "bad.report.json")
    with open(bad, "w") as f:
        json.dump({"file": "/shots/bad.blend", "ok": False, "error": "no bodies"}, f)
    codes.append(c.main(["merge-reports", out_dir, bad,
                         os.path.join(folder, "gone.report.json"),
                         "--output", os.path.join(folder, "all.json")]))
    return {"codes": codes}
