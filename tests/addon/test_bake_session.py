"""The Bake operator's modal run (its progress bar, status text and Esc), driven by hand: the
operator is a shell over baking.session.BakeSession, and its modal() is called with timer
and Esc events as the window would send them. The scenarios:
tests/addon/scenarios/bake_session.py."""

import numpy as np


def _progress_ended(calls):
    """The progress bar was begun and ended, the status text cleared last."""
    assert calls[-1] == ["wm", "event_timer_remove", "'the timer'"]
    shown = calls[:-1]
    names = [c[:2] for c in shown]
    assert names[0] == ["wm", "progress_begin"]
    assert names[-2:] == [["wm", "progress_end"], ["workspace", "status_text_set"]]
    assert shown[-1][2:] == ["None"]
    assert names.count(["wm", "progress_end"]) == 1


def test_a_blow_up_in_the_modal_bake_is_a_scene_error_and_clears_the_progress(blender):
    out = blender.call("bake_session.modal_bake", "blow_up", ["TIMER"], 20)
    assert out["returned"] == ["CANCELLED"] and out["state"] == "FAILED"
    [(kind, message)] = out["reports"]
    assert kind == ["ERROR"]
    assert "blew up" in message and "'Cube'" in message, message
    assert "Substeps" in message and "mass" in message and "internal error" not in message
    # the panels show it as the scene's error; nothing baked, the cube where it was
    assert out["scene_error"] == message
    assert not out["baked"] and not out["action"]
    assert out["now"] == out["start"]
    _progress_ended(out["calls"])
    # it failed on the way: some frames were baked before the blow-up, not all
    assert 0 < out["done"][0] < out["done"][1] == 20


def test_esc_in_the_modal_bake_changes_nothing_and_clears_the_progress(blender):
    out = blender.call("bake_session.modal_bake", "falling", ["TIMER", "ESC"], 200)
    assert out["returned"] == ["CANCELLED"] and out["state"] == "CANCELLED"
    assert out["reports"] == [[["WARNING"], "Bake cancelled; nothing was changed"]]
    assert not out["baked"] and not out["action"] and out["now"] == out["start"]
    assert out["events"] == 2 and out["scene_error"] is None
    _progress_ended(out["calls"])


def test_the_modal_bake_writes_the_keys_the_scripted_bake_writes(blender):
    out = blender.call("bake_session.modal_bake", "falling", ["TIMER"], 20)
    assert out["returned"] == ["FINISHED"] and out["state"] == "FINISHED"
    assert out["reports"][0][0] == ["INFO"] and out["reports"][0][1].startswith("Baked 1 ")
    assert out["baked"] and out["action"]
    _progress_ended(out["calls"])
    modal = np.array(blender.call("bake_session.modal_bake_played", 20))
    scripted = np.array(blender.call("bake_session.executed_bake", 20))
    assert modal[-1, 2] < modal[0, 2] - 0.5          # it fell
    assert np.abs(modal - scripted).max() < 1e-6
