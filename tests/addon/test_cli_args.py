"""The batch command's bad arguments (addon/cli.py): exit 2 with a message that names the
option, before anything is simulated or saved."""

from test_cli import CLI, PENDULUM


def test_bad_step_tolerance_and_jobs_exit_2_naming_the_option_and_save_nothing(
        blender, tmp_path):
    src = tmp_path / "shot.blend"
    out = blender.run(PENDULUM, CLI, f"""
        bpy.ops.wm.save_as_mainfile(filepath={str(src)!r})
        bad = {{
            "step 0": ["--step", "0"],
            "step -2": ["--step", "-2"],
            "tolerance nan": ["--tolerance", "nan,0.5"],
            "tolerance inf": ["--tolerance", "0.001,inf"],
            "jobs 0": ["--jobs", "0"],
        }}
        codes = {{k: cli.main(["bake", {str(src)!r}, *v]) for k, v in bad.items()}}
        files_after_bad = sorted(os.listdir({str(tmp_path)!r}))
        # the Python API refuses a tolerance that is not a number the same way
        bake = lig.addon.baking.bake
        try:
            bake.bake(bpy.context.scene, 1, 5, tolerance=(float("nan"), 0.01))
            api = None
        except lig.addon.scene.errors.SceneError as exc:
            api = str(exc)
        # good values still bake
        good = cli.main(["bake", {str(src)!r}, "--step", "2", "--end", "9",
                         "--tolerance", "0.001,0.5", "--no-save"])
        result({{"codes": codes, "files": files_after_bad, "api": api, "good": good}})
    """)
    assert out["codes"] == {"step 0": 2, "step -2": 2, "tolerance nan": 2, "tolerance inf": 2,
                            "jobs 0": 2}
    assert out["files"] == ["shot.blend"]
    assert out["good"] == 0
    assert out["api"] is not None and "tolerance" in out["api"]
    err = blender.stderr + blender.stdout
    assert "argument --step: '0' is not a whole number of frames of at least 1" in err
    assert "argument --step: '-2' is not a whole number of frames of at least 1" in err
    assert "argument --tolerance: 'nan,0.5'" in err
    assert "argument --jobs: '0'" in err
