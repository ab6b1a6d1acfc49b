"""Several shots baked at once by the batch command (addon/cli.py, `bake A B --jobs N`), laid
out as studios do: one folder per shot, the same file name in each."""

import json
import os

from test_cli import CLI, PENDULUM


def test_same_named_shots_in_their_own_folders_keep_their_own_baked_file_and_report(
        blender, tmp_path):
    shots = {"sh010": 1.0, "sh020": 2.0}        # the bob's mass in each shot
    files = {s: tmp_path / "shots" / s / "anim.blend" for s in shots}
    out_dir, report_dir = tmp_path / "out" / "baked", tmp_path / "out" / "reports"
    merged = tmp_path / "out" / "all.json"
    out = blender.run(PENDULUM, CLI, f"""
        files = {({s: str(p) for s, p in files.items()})!r}
        for shot, mass in {shots!r}.items():
            os.makedirs(os.path.dirname(files[shot]), exist_ok=True)
            bpy.data.objects["Bob"].ligament_body.mass = mass
            bpy.ops.wm.save_as_mainfile(filepath=files[shot])
        code = cli.main(["bake", files["sh010"], files["sh020"], "--jobs", "2",
                         "--output", {str(out_dir)!r}, "--report", {str(report_dir)!r}])
        merge = cli.main(["merge-reports", {str(report_dir)!r}, "--output", {str(merged)!r}])
        # what each baked file holds: the mass of its bob tells the shot
        baked = {{}}
        for root, _, names in os.walk({str(out_dir)!r}):
            for n in names:
                if n.endswith(".blend"):
                    path = os.path.join(root, n)
                    bpy.ops.wm.open_mainfile(filepath=path)
                    bob = bpy.data.objects["Bob"]
                    baked[os.path.relpath(path, {str(out_dir)!r})] = {{
                        "mass": bob.ligament_body.mass, "baked": bob.ligament_body.baked}}
        # the same file twice would write one output twice: refused before anything runs
        twice = cli.main(["bake", files["sh010"], files["sh010"], "--output",
                          {str(tmp_path / "twice")!r}])
        result({{"code": code, "merge": merge, "baked": baked, "twice": twice,
                 "twice_made": os.path.exists({str(tmp_path / "twice")!r})}})
    """)
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
