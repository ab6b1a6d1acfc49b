"""The batch command's bad arguments (addon/cli.py): exit 2 with a message that names the
option, before anything is simulated or saved.
The scenario: tests/addon/scenarios/cli.py."""


def test_bad_step_tolerance_and_jobs_exit_2_naming_the_option_and_save_nothing(
        blender, tmp_path):
    src = tmp_path / "shot.blend"
    out = blender.call("cli.bad_arguments", str(src), str(tmp_path))
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
