"""A bone chain's spring and gravity are tuned per shot: a character linked from its own
file and given a library override keeps the chain settings the shot sets through a save,
and its chain moves by them; the character file is never written. Files made before, which
kept the settings in the chain's property group, are read and moved on load. The scenarios:
tests/addon/scenarios/chain_overrides.py (a chain of three 0.2 m bones held out level from
an animated root bone)."""

import numpy as np

FRAMES = 48


def droop(run, key):
    """How far the chain's tip fell below its rest height, at each frame."""
    return run["rest_tip"][2] - np.array(run[key])[:, 2]


def test_a_chain_setting_set_through_the_override_survives_a_save_and_moves_the_chain(
        blender, tmp_path):
    out = blender.call("chain_overrides.chain_tuned_through_the_override",
                       str(tmp_path / "char.blend"), str(tmp_path / "shot.blend"),
                       {"gravity_factor": 0.0, "stiffness": 3.0}, FRAMES)
    assert out["override"] and out["error"] is None
    assert out["stored"] == ['pose.bones["root"].ligament_chain_gravity_factor',
                             'pose.bones["root"].ligament_chain_stiffness']
    assert out["own"] == {"gravity_factor": 0.0, "stiffness": 3.0} == out["group"]
    assert out["editable"]
    library, tuned = droop(out, "library"), droop(out, "played")
    print("tip droop, library's settings:", library.max(), "tuned in the shot:",
          np.abs(tuned).max())
    # the library's Hair chain (gravity 1) hangs; with no gravity on it the spring holds the
    # rest pose, the chain level
    assert library.max() > 0.05
    assert np.abs(tuned).max() < 1e-3
    assert out["library_unchanged"]


def test_chain_settings_a_file_made_before_kept_in_the_group_are_read_and_moved(
        blender, tmp_path):
    out = blender.call("chain_overrides.chain_settings_of_a_file_made_before",
                       str(tmp_path / "char.blend"), {"gravity_factor": 0.0}, FRAMES)
    assert out["own"] == {"gravity_factor": 0.0} == out["group"] and out["set"]
    print("tip droop:", np.abs(droop(out, "played")).max())
    assert np.abs(droop(out, "played")).max() < 1e-3
