"""Edited keys re-simulate from the first frame whose inputs differ, and the result is exactly
a simulation from scratch; a change at the start frame re-simulates everything. The scenarios:
tests/addon/scenarios/cache_edits.py (a pusher keyed at four frames, a pile of crates)."""


def test_a_key_edited_by_a_script_replays_as_a_simulation_from_scratch(blender):
    out = blender.call("cache_edits.replay_after_a_scripted_edit", (1, 215, 230, 250), 230, 0.05)
    assert out["replay"] != out["first"], "the replay must show the edit"
    assert out["replay"] == out["scratch"]     # bit for bit


def test_a_key_edited_at_frame_200_re_simulates_from_there_exactly(blender):
    out = blender.call("cache_edits.replay_after_an_edit_in_the_ui", (1, 195, 200, 250), 200, 0.05)
    # Bezier keys: the edit at 200 changes the curve from the key at 195 on (that key stays a
    # flat extreme), so frames 196-250 are stepped again and frames 1-195 stay cached.
    assert out["cached"] == [1, 195]
    assert out["rebuilt"] == 0
    assert out["resimulated"] == 55
    assert out["replay"] == out["scratch"]


def test_a_key_edited_at_the_start_frame_re_simulates_everything(blender):
    out = blender.call("cache_edits.steps_after_an_edit", (1, 195, 200, 250), 1, 0.05)
    assert out["rebuilt"] == 1
    assert out["resimulated"] == 249
