"""A farm's bake: the commands the Flamenco job type (tools/flamenco/ligament-bake.js) makes,
run as a Worker runs them (Blender opens the task's file, then `-c ligament` runs the batch
command), and the merged report of `ligament merge-reports`. The scenario:
tests/addon/scenarios/farm.py."""

import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "farm"))
from flamenco_job import compile_job, ligament_argv  # noqa: E402


def test_the_job_types_commands_bake_each_shot_and_merge_their_reports(blender, tmp_path):
    shots, out_dir = tmp_path / "shots", tmp_path / "out"
    files = [shots / "a.blend", shots / "b.blend"]
    job = compile_job({"files": ";".join(map(str, files)), "output_dir": str(out_dir),
                       "step": 1, "scene": "Scene"})
    runs = [ligament_argv(t["commands"][0]["commandLine"]) for t in job["tasks"]]
    out = blender.call_fresh("farm.job_commands", str(shots), str(out_dir),
                             [str(f) for f in files], runs, str(tmp_path))
    assert out["codes"] == [0, 0, 0, 2]
    assert sorted(os.listdir(out_dir)) == ["a.baked.blend", "a.report.json", "b.baked.blend",
                                           "b.report.json", "bake-report.json"]
    merged = json.loads((out_dir / "bake-report.json").read_text())
    assert (merged["files"], merged["baked"], merged["failed"]) == (2, 2, [])
    assert [r["file"] for r in merged["reports"]] == [str(f) for f in files]
    assert all(r["scene"] == "Scene" and r["frames"]["keyed"] == 40 for r in merged["reports"])
    assert merged["seconds"] == round(sum(r["seconds"]["total"]
                                          for r in merged["reports"]), 3)
    # each shot's broken joint, with its file; the heavier bob breaks its joint sooner
    a, b = merged["broken_joints"]
    assert (a["joint"], a["file"], b["file"]) == ("Link", str(files[0]), str(files[1]))
    assert b["frame"] < a["frame"]
    everything = json.loads((tmp_path / "all.json").read_text())
    assert (everything["files"], everything["baked"]) == (4, 2)
    assert [(f["file"], f["error"][:10]) for f in everything["failed"]] == [
        ("/shots/bad.blend", "no bodies"), (None, "no report:")]
    assert "merged 3 reports" in blender.stdout and "2 of 4 files baked" in blender.stdout
