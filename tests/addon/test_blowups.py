"""A simulation that blows up (the solver's FloatingPointError in World.step) reaches the
animator as a scene error that names the bodies and the fix, in playback, in the bake
operator and in the batch command; the scene is left as it was. The scenarios:
tests/addon/scenarios/blowups.py."""

import json


def _says_what_to_do(message):
    assert "blew up" in message and "'Cube'" in message, message
    assert "Substeps" in message and "mass" in message, message
    assert "internal error" not in message


def test_blow_up_in_playback_is_a_scene_error_and_the_body_goes_back(blender):
    out = blender.call("blowups.in_playback")
    first = next(e for e in out["errors"] if e)
    _says_what_to_do(first)
    assert all(e == first for e in out["errors"][out["errors"].index(first):])
    assert out["now"] == out["start"], "the failed simulation left the cube at infinity"


def test_blow_up_in_the_bake_operator_is_reported_and_bakes_nothing(blender):
    out = blender.call("blowups.in_the_bake_operator")
    assert out["message"] is not None
    _says_what_to_do(out["message"])
    assert not out["baked"] and not out["action"]
    assert out["now"] == out["start"]


def test_blow_up_in_the_batch_command_exits_1_with_the_error_in_the_report(blender, tmp_path):
    shot, report = str(tmp_path / "shot.blend"), str(tmp_path / "report.json")
    out = blender.call("blowups.in_the_batch_command", shot, report)
    assert out["code"] == 1
    rep = json.load(open(report))
    assert rep["ok"] is False
    _says_what_to_do(rep["error"])
