"""Saving and reloading, operators, and bad input. The scenarios:
tests/addon/scenarios/files_and_errors.py."""

import numpy as np


def test_save_and_reload_keeps_every_setting_and_the_same_simulation(blender, tmp_path):
    path = tmp_path / "saved.blend"
    out = blender.call("files_and_errors.save_and_reload", str(path))
    assert out["after"] == out["before"]
    assert out["after"]["joint"]["object_b"] == "Door"
    for f in out["first"]:
        assert np.allclose(out["first"][f], out["again"][f], atol=1e-6), f"frame {f}"
    assert out["first"]["3"] != out["first"]["30"]


def test_a_file_saved_before_jointed_substeps_auto_simulates_as_it_was_saved(blender, tmp_path):
    # Jointed Substeps 0, and its default until 2026-11-30, stepped ragdolls and small
    # mechanisms at every substep; 0 is Auto now (half of Substeps). An older file's scenes
    # whose value was 0 or never set open at 64 (every substep at any Substeps), and the
    # door steps at Substeps 8 as when it was saved; a count set by hand (6) stays. Every
    # scene is then of the current settings version: set back to 0 and saved, the scene
    # opens at Auto (the door at 4).
    out = blender.call("files_and_errors.older_file_settings", str(tmp_path / "older.blend"))
    assert out["error"] is None
    assert out["opened"]["settings"] == {"Scene": [64, 1], "Zero": [64, 1], "Six": [6, 1]}
    assert out["opened"]["counts"] == [[8, 8]]
    assert out["again"]["settings"] == {"Scene": [0, 1], "Zero": [64, 1], "Six": [6, 1]}
    assert out["again"]["counts"] == [[4, 8]]


def test_a_played_scene_written_without_a_save_opens_at_auto(blender, tmp_path):
    # Blender's autosave writes without save_pre: a scene nothing had stamped (one added in
    # the session) is stamped when its simulation is built, so its copy does not open as
    # an older file's (Jointed Substeps Auto stays Auto, the door at 4 of Substeps 8).
    out = blender.call("files_and_errors.played_scene_autosaved", str(tmp_path / "auto.blend"))
    assert out["error"] is None and out["unstamped_before"]
    assert out["settings"] == [0, 1]
    assert out["counts"] == [[4, 8]]


def test_removing_an_object_a_joint_uses_skips_the_joint_with_a_clear_report(blender):
    out = blender.call("files_and_errors.joint_object_removed")
    assert out["frame_error"] is None
    assert "Joint 'Hinge'" in out["status"] and "object B" in out["status"]
    assert "disable the joint" in out["status"]
    assert out["bake"] == ["FINISHED"] and out["other_baked"] is True
    # the bake's summary names the joint that did not act
    assert "joints not acting: 'Hinge' skipped" in blender.stdout + blender.stderr
    assert "Traceback" not in blender.stderr
    assert np.allclose(out["frame_location"], [0, -0.2, 2])


def test_add_joint_and_connect_build_joint_empties_between_selected_bodies(blender):
    out = blender.call("files_and_errors.add_joint_and_connect")
    assert out["single"]["a"] == "Link0" and out["single"]["b"] == "Link2"
    assert out["single"]["type"] == "HINGE"
    assert np.allclose(out["single"]["loc"], [0.25, 0, 2])
    assert 0.05 <= out["single"]["size"] <= 0.2
    # Chained by distance from the active object: 0 -> 0.5 -> 1.0 -> 1.5.
    assert out["pairs"] == [["Link0", "Link2"], ["Link2", "Link3"], ["Link3", "Link1"]]
    assert "'Plain' is not a Ligament body" in out["error"] and "Add Body" in out["error"]
    assert out["count"] == 3


def test_a_joint_the_solver_refuses_in_a_batch_is_skipped_by_name_and_the_rest_built(blender):
    # Hinges and ragdoll joints are added to the world in batches; one with crossed limits
    # (the panel allows them, the solver refuses them) makes its batch fall back to one by
    # one: that joint is skipped with the solver's reason, the others are built (the scene
    # check stops the simulation on the crossed limits until they are swapped).
    out = blender.call("files_and_errors.crossed_limits_in_a_batch")
    assert list(out["skipped"]) == ["Crossed"], out["skipped"]
    assert "Joint 'Crossed'" in out["skipped"]["Crossed"]
    assert "lower" in out["skipped"]["Crossed"] and "upper" in out["skipped"]["Crossed"]
    assert out["built"] == ["Good0", "Good2", "Good3"] and out["count"] == 3


def test_the_live_scene_check_still_names_a_joint_the_build_skipped(blender):
    # The check that runs when a simulation is built does not look again at the objects of
    # the joints the build made; a joint it skipped (its object B unset) is still reported,
    # by name, and the joints that were built are not.
    out = blender.call("files_and_errors.joint_without_object_b")
    assert out["skipped"] == ["NoB"] and out["built"] == ["Good0", "Good2"]
    assert out["found"] == [["ERROR", "joint-object", ["NoB"]]], out["found"]
