"""The batch command at studio scale (addon/cli.py: check, info, bake with a report, several
files at once), each in a Blender process of its own.
The scenarios: tests/addon/scenarios/cli.py."""

import hashlib
import json
import os

import pytest


def _sha(path):
    return hashlib.sha256(open(path, "rb").read()).hexdigest()


def test_bake_writes_a_new_file_with_keys_and_a_report_and_never_touches_the_input(
        blender, tmp_path):
    src = tmp_path / "shot.blend"
    report = tmp_path / "shot.json"
    out = blender.call_fresh("cli.bake_with_a_report", str(src), str(report),
                             str(tmp_path / "shot.baked.blend"), str(tmp_path))
    assert out["code"] == 0
    assert out["before"] == out["after"] == _sha(src), "the input file was written"
    assert sorted(out["files"]) == ["shot.baked.blend", "shot.blend", "shot.json"]
    assert out["keys"] == {"Bob": [40] * 6, "Floater": [40] * 6}
    assert out["baked"] is True
    # the bob broke free and fell towards the ground instead of hanging at the post's height,
    # exactly as in the live run (the scene check's probe step left the simulation as it was)
    assert out["bob_end"][2] < 2.0
    assert out["bob_end"] == pytest.approx(out["live_end"], abs=1e-5)
    r = json.loads(report.read_text())
    assert r["ok"] is True and r["error"] is None
    assert r["output"] == str(tmp_path / "shot.baked.blend")
    assert r["frames"] == {"start": 1, "end": 40, "step": 1, "keyed": 40}
    assert (r["bodies"], r["joints"], r["ragdolls"]) == (4, 1, 0)
    assert sorted(r["baked_objects"]) == ["Bob", "Floater"]
    assert 1 < out["live_broke"] < 40
    assert r["broken_joints"] == [{"joint": "Link", "frame": out["live_broke"]}]
    assert {"build", "check", "simulate", "write_keys", "save", "total"} <= set(r["seconds"])
    assert all(v >= 0 for v in r["seconds"].values())
    assert [(w["code"], w["objects"]) for w in r["warnings"]] == [("falling", ["Floater"])]
    # progress lines while it runs
    assert "Ligament: baking 40/40 frames" in blender.stdout
    assert "WARNING: 'Floater'" in blender.stdout


def test_save_flag_bakes_into_the_input_file(blender, tmp_path):
    src = tmp_path / "shot.blend"
    out = blender.call_fresh("cli.bake_with_save", str(src), str(tmp_path))
    assert out["code"] == 0 and out["baked"] is True
    assert out["files"] == ["shot.blend"]


def test_several_files_bake_in_parallel_processes_and_a_missing_one_fails_alone(
        blender, tmp_path):
    files = [tmp_path / "a.blend", tmp_path / "b.blend"]
    reports, outputs = tmp_path / "reports", tmp_path / "baked"
    out = blender.call_fresh("cli.several_files", [str(f) for f in files],
                             str(tmp_path / "missing.blend"), str(reports), str(outputs))
    assert out["code"] == 1, "one file of three failed"
    assert sorted(os.listdir(reports)) == ["a.json", "b.json"]
    assert sorted(f for f in os.listdir(outputs) if f.endswith(".blend")) == \
        ["a.baked.blend", "b.baked.blend"]
    ra, rb = (json.loads((reports / n).read_text()) for n in ("a.json", "b.json"))
    for r, name in ((ra, "a"), (rb, "b")):
        assert r["ok"] is True
        assert r["file"] == str(tmp_path / f"{name}.blend")
        assert r["output"] == str(outputs / f"{name}.baked.blend")
        assert r["frames"]["keyed"] == 40 and r["bodies"] == 3
    # a twice heavier bob pulls twice as hard on the same 20 N joint: it breaks sooner
    assert [j["joint"] for j in ra["broken_joints"]] == ["Link"]
    assert rb["broken_joints"][0]["frame"] < ra["broken_joints"][0]["frame"]
    assert "no file" in blender.stdout and "missing.blend" in blender.stdout
    assert "[a.blend] Ligament: baking 40/40 frames" in blender.stdout
    assert "baked 2 of 3 files" in blender.stdout


def test_batch_errors_exit_non_zero_with_a_clear_message(blender, tmp_path):
    src, empty = tmp_path / "shot.blend", tmp_path / "empty.blend"
    report = tmp_path / "missing.json"
    out = blender.call_fresh("cli.batch_errors", str(src), str(empty), str(tmp_path / "nope.blend"),
                             str(report), str(tmp_path))
    assert out["codes"] == {"missing": 2, "scene": 2, "no_bodies": 1, "bad_option": 2,
                            "check_missing": 2}
    assert f"no file '{tmp_path / 'nope.blend'}'" in blender.stdout
    assert "no scene named 'Nope'; scenes are: Scene" in blender.stdout
    assert "no dynamic Ligament bodies or ragdolls to bake" in blender.stdout
    r = json.loads(report.read_text())
    assert r["ok"] is False and "no file" in r["error"]
    # nothing was saved for the failed runs
    assert sorted(out["files"]) == ["empty.blend", "missing.json", "shot.blend"]


def test_info_and_check_commands_describe_the_scene(blender, tmp_path):
    src = tmp_path / "shot.blend"
    info_json, check_json = tmp_path / "info.json", tmp_path / "check.json"
    out = blender.call_fresh("cli.info_and_check", str(src), str(info_json), str(check_json),
                             str(info_json) + "2")
    assert out["codes"] == [0, 0, 0, 1, 0, 0]
    i = json.loads(info_json.read_text())
    assert (i["scene"], i["frame_start"], i["frame_end"], i["fps"], i["substeps"]) == \
        ("Scene", 1, 40, 24.0, 12)
    assert sorted(b["name"] for b in i["bodies"]) == ["Bob", "Ground", "Post"]
    assert i["joints"] == [{"name": "Link", "type": "BALL", "a": "Post", "b": "Bob",
                            "breakable": True, "break_threshold": 20.0}]
    assert i["ragdolls"] == [] and i["baked"] == []
    c = json.loads(check_json.read_text())
    assert c["findings"] == [] and "no problems found (3 bodies, 1 joint)" in c["summary"]
    assert "Ligament: Joints: 1" in blender.stdout
    assert "ERROR: Joint 'Link': object B is not set" in blender.stdout
    # after a bake, info says what is baked
    i2 = json.loads((tmp_path / "info.json2").read_text())
    assert i2["baked"] == ["Bob"]
