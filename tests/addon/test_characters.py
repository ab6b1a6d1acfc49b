"""A ragdoll travels with its character: its objects live in the character's collection, so
appending it, linking it with a library override, or a file of the old layout moved on
request, all give a ragdoll that simulates as the character made in the shot. The scenarios:
tests/addon/scenarios/characters.py."""

import json
import os

import numpy as np


def test_ragdoll_collection_lives_in_the_armatures_collection_and_is_not_rendered(blender):
    out = blender.call("characters.ragdoll_collection")
    assert out["parent"] == ["Char"]
    assert not out["old"]
    assert out["hide_render"] and out["hidden"]
    assert out["members"] == 52 and out["in_char"] == 52


def test_bone_chain_collection_lives_in_the_armatures_collection(blender):
    out = blender.call("characters.bone_chain_collection")
    assert out["parent"] == ["Pet"] and out["hide_render"]
    assert out["members"] == 3 * 2 + 2       # a body and a target per bone, two joints


def test_appended_character_brings_its_ragdoll_and_falls_as_the_original(blender, tmp_path):
    path = str(tmp_path / "char.blend")
    out = blender.call("characters.appended_character", path)
    assert out["error"] is None
    assert out["members"] == 52
    made, appended = np.array(out["made"]), np.array(out["appended"])
    assert made[-1, :, 2].max() < 0.6, "the character did not fall"
    assert np.abs(made - appended).max() < 1e-6


def test_old_layout_is_found_and_moved_into_the_armatures_collection(blender):
    out = blender.call("characters.old_layout_moved")
    assert len(out["found"]) == 1
    severity, objects, message = out["found"][0]
    assert objects[0] == "Hero" and "Char" in message
    assert out["fix"] == "ligament.move_ragdoll_home"
    assert out["parent"] == ["Char"] and not out["old_left"] and out["again"] == []
    # the old layout kept working, and the move changes nothing of the simulation
    before, after = np.array(out["before"]), np.array(out["after"])
    assert before[-1, :, 2].max() < 0.6
    assert np.abs(before - after).max() < 1e-6


def test_overridden_character_simulates_as_made_in_the_shot_and_bakes_into_the_shot(
        blender, tmp_path):
    path, shot = str(tmp_path / "char.blend"), str(tmp_path / "shot.blend")
    out = blender.call("characters.overridden_character_baked", path, shot)
    assert out["error"] is None and out["override"] and out["n_bodies"] == 16
    made, linked = np.array(out["made"]), np.array(out["linked"])
    assert made[-1, :, 2].max() < 0.6, "the character did not fall"
    print("largest difference, overridden vs made in the shot:", np.abs(made - linked).max())
    assert np.abs(made - linked).max() < 1e-6
    # the keys are in the shot (a local action on the override), the library never written
    assert out["action_library"] is False and out["baked_flag"]
    assert np.abs(np.array(out["baked"]) - linked[-1, -3:]).max() < 1e-3
    assert out["char_same"]


def test_switches_drives_and_masses_are_editable_through_the_override(blender, tmp_path):
    path, shot = str(tmp_path / "char.blend"), str(tmp_path / "shot.blend")
    out = blender.call("characters.override_edited", path, shot)
    assert out["override"] and out["library"].endswith("char.blend")
    assert out["enabled"] and out["simulated"] is False
    assert abs(out["strength"] - 0.5) < 1e-6 and abs(out["total"] - 80.0) < 1e-4
    assert abs(out["head"] - 9.0) < 1e-6
    assert out["own"] and out["z"] < 0.6


def test_two_overrides_of_one_character_placed_apart_are_two_ragdolls(blender, tmp_path):
    # the character's collection inside a "Cast" collection: the whole hierarchy linked
    path = str(tmp_path / "char.blend")
    out = blender.call("characters.two_overrides", path)
    assert out["error"] is None and all(out["own"])
    assert out["targets"] == {n: [n] for n in out["names"]}
    made = np.array(out["made"])[:, -3:]
    first, second = np.array(out["first"]), np.array(out["second"])
    assert np.abs(first - made).max() < 1e-6
    shifted = second - np.array([3.0, 0.0, 0.0])
    print("second override vs the first moved 3 m:", np.abs(shifted - first).max())
    assert np.abs(shifted - first).max() < 1e-3
    assert second[-1, :, 2].max() < 0.6


def test_batch_command_bakes_and_lists_the_overridden_characters_of_a_shot(blender, tmp_path):
    path, shot = str(tmp_path / "char.blend"), str(tmp_path / "shot.blend")
    baked, report, info = (str(tmp_path / n) for n in ("shot.baked.blend", "report.json",
                                                        "info.json"))
    out = blender.call("characters.batch_bake_of_an_override", path, shot, baked, report,
                       info)
    assert out["info_code"] == 0 and out["code"] == 0
    assert out["override"] and out["baked_flag"] and out["char_same"]
    made = np.array(out["made"])[:, -3:]
    assert np.abs(np.array(out["baked"]) - made).max() < 1e-3
    info = json.load(open(info))
    rigs = info["ragdolls"]
    assert len(rigs) == 1 and rigs[0]["override"] and rigs[0]["bodies"] == 16
    assert os.path.samefile(rigs[0]["library_path"], path)
    rep = json.load(open(report))
    assert rep["ok"] and rep["ragdolls"] == 1


def test_scene_check_finds_a_character_without_its_ragdoll_and_a_ragdoll_without_its_armature(
        blender, tmp_path):
    path = str(tmp_path / "old.blend")
    out = blender.call("characters.missing_and_orphaned_ragdolls", path)
    assert len(out["missing"]) == 1
    severity, objects, message, fix = out["missing"][0]
    assert severity == "ERROR" and objects == ["Hero"] and "will not fall" in message
    assert fix == "ligament.own_ragdoll"
    assert out["left"] == [] and out["bodies"] == 16 and out["z"] < 0.6
    assert len(out["orphans"]) == 1
    severity, count, message = out["orphans"][0]
    assert severity == "WARNING" and count == 16 + 15 and "armature" in message
