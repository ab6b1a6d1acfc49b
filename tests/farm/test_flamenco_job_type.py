"""The Flamenco job type for `ligament bake` (tools/flamenco/ligament-bake.js), compiled under
Node with the job a Flamenco Manager gives it: the tasks and command lines it makes."""

import pytest

import flamenco_job
from flamenco_job import compile_job

SHOTS = {"files": "/farm/a/shot1.blend; /farm/b/shot2.blend\n/farm/b/shot3.blend",
         "output_dir": "/farm/out", "step": 2, "frames": "10-120",
         "extra_args": "--tolerance 0.001,0.5"}


def test_each_file_is_one_bake_task_running_the_batch_command():
    job = compile_job(SHOTS)
    bakes = [t for t in job["tasks"] if t["name"].startswith("bake ")]
    assert [t["name"] for t in bakes] == ["bake shot1", "bake shot2", "bake shot3"]
    for task, (folder, stem) in zip(bakes, [("a", "shot1"), ("b", "shot2"), ("b", "shot3")]):
        assert task["type"] == "blender" and task["dependencies"] == []
        [cmd] = task["commands"]
        assert cmd["name"] == "blender-render"
        assert cmd["parameters"]["exe"] == "{blender}"
        assert cmd["parameters"]["exeArgs"] == "{blenderArgs}"
        assert cmd["commandLine"] == [
            "blender", "-b", "-y", f"/farm/{folder}/{stem}.blend", "-c", "ligament", "bake",
            "--output", f"/farm/out/{stem}.baked.blend",
            "--report", f"/farm/out/{stem}.report.json",
            "--start", "10", "--end", "120", "--step", "2", "--tolerance", "0.001,0.5"]


def test_a_last_task_merges_every_report_after_all_bakes():
    job = compile_job(SHOTS)
    merge = job["tasks"][-1]
    assert merge["name"] == "merge reports" and len(job["tasks"]) == 4
    assert merge["dependencies"] == ["bake shot1", "bake shot2", "bake shot3"]
    [cmd] = merge["commands"]
    assert cmd["commandLine"] == [
        "blender", "-b", "-y", "-c", "ligament", "merge-reports",
        "/farm/out/shot1.report.json", "/farm/out/shot2.report.json",
        "/farm/out/shot3.report.json", "--output", "/farm/out/bake-report.json"]
    # the job's settings show where the merged report goes
    assert job["settings"]["report"] == "/farm/out/bake-report.json"


def test_the_submitted_file_alone_bakes_beside_itself_with_the_world_range():
    # what the Flamenco add-on submits: the packed file and the evaluated scene name
    job = compile_job({"blendfile": "/jobs/shot-x7/shot.blend", "scene": "Fight",
                       "step": 1}, variables={"blender": "/opt/blender/blender",
                                              "blenderArgs": "-b -y --factory-startup"})
    bake, merge = job["tasks"]
    assert bake["commands"][0]["commandLine"] == [
        "/opt/blender/blender", "-b", "-y", "--factory-startup", "/jobs/shot-x7/shot.blend",
        "-c", "ligament", "bake", "--output", "/jobs/shot-x7/shot.baked.blend",
        "--report", "/jobs/shot-x7/shot.report.json", "--scene", "Fight", "--step", "1"]
    assert merge["commands"][0]["commandLine"][-4:] == [
        "merge-reports", "/jobs/shot-x7/shot.report.json",
        "--output", "/jobs/shot-x7/bake-report.json"]


def test_settings_left_out_take_the_batch_commands_defaults():
    job = compile_job({"blendfile": "/jobs/shot.blend"})
    assert job["tasks"][0]["commands"][0]["parameters"]["args"] == [
        "-c", "ligament", "bake", "--output", "/jobs/shot.baked.blend",
        "--report", "/jobs/shot.report.json", "--step", "1"]


def test_the_job_type_declares_its_settings_for_the_add_on_and_the_web_form():
    settings = {s["key"]: s for s in compile_job({"blendfile": "/a.blend"})["jobType"]
                ["settings"]}
    assert set(settings) == {"blendfile", "files", "output_dir", "scene", "frames", "step",
                             "extra_args", "report"}
    assert settings["scene"]["eval"] == "C.scene.name"
    assert settings["step"] == {**settings["step"], "type": "int32", "default": 1}
    assert settings["output_dir"]["subtype"] == "dir_path"


def test_jobs_it_cannot_bake_are_refused_with_a_reason():
    cases = {
        "nothing to bake": {},
        "listed twice": {"files": "/a/s.blend;/a/s.blend"},
        "would both bake to s.baked.blend": {"files": "/a/s.blend;/b/s.blend",
                                             "output_dir": "/out"},
        "write START-END": {"blendfile": "/a.blend", "frames": "1..20"},
        "a whole number of frames": {"blendfile": "/a.blend", "step": 0},
    }
    for reason, settings in cases.items():
        assert reason in compile_job(settings).get("error", ""), settings
    # the same stem in two folders is fine when each bakes beside itself
    assert "error" not in compile_job({"files": "/a/s.blend;/b/s.blend"})


def test_without_node_the_tests_fail_saying_what_is_missing(monkeypatch):
    monkeypatch.delenv("LIGAMENT_NODE", raising=False)
    monkeypatch.setenv("PATH", "")
    with pytest.raises(pytest.fail.Exception, match="Node.js is needed"):
        flamenco_job.node()
