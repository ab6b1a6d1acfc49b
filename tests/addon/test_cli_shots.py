"""Several shots baked at once by the batch command (addon/cli.py, `bake A B --jobs N`), laid
out as studios do: one folder per shot, the same file name in each.
The scenario: tests/addon/scenarios/cli.py."""

import json
import os


def test_same_named_shots_in_their_own_folders_keep_their_own_baked_file_and_report(
        blender, tmp_path):
    shots = {"sh010": 1.0, "sh020": 2.0}        # the bob's mass in each shot
    files = {s: tmp_path / "shots" / s / "anim.blend" for s in shots}
    out_dir, report_dir = tmp_path / "out" / "baked", tmp_path / "out" / "reports"
    merged = tmp_path / "out" / "all.json"
    out = blender.call("cli.shots_in_their_folders", {s: str(p) for s, p in files.items()},
                       shots, str(out_dir), str(report_dir), str(merged),
                       str(tmp_path / "twice"))
    assert out["code"] == 0 and out["merge"] == 0
    # one baked file per shot, under its shot's folder, each holding its own shot
    assert out["baked"] == {
        os.path.join("sh010", "anim.baked.blend"): {"mass": 1.0, "baked": True},
        os.path.join("sh020", "anim.baked.blend"): {"mass": 2.0, "baked": True}}
    reports = {}
    for shot in shots:
        r = json.loads((report_dir / shot / "anim.json").read_text())
        assert r["ok"] is True and r["file"] == str(files[shot])
        assert r["output"] == str(out_dir / shot / "anim.baked.blend")
        reports[shot] = r
    # the twice heavier bob breaks its 20 N joint sooner: two different simulations
    assert reports["sh020"]["broken_joints"][0]["frame"] < \
        reports["sh010"]["broken_joints"][0]["frame"]
    # the summary and the merged report count what was really baked
    assert "baked 2 of 2 files" in blender.stdout
    m = json.loads(merged.read_text())
    assert (m["files"], m["baked"], m["failed"]) == (2, 2, [])
    assert sorted(r["file"] for r in m["reports"]) == sorted(str(p) for p in files.values())
    # the log lines say which shot they come from
    assert "[sh010/anim.blend] Ligament: baking 40/40 frames" in blender.stdout
    assert "[sh020/anim.blend] Ligament: baking 40/40 frames" in blender.stdout
    assert out["twice"] == 2 and out["twice_made"] is False
    assert "given twice" in blender.stdout
