"""What a shot may change of a character linked from its own file and given a library
override: each bone's Simulated switch and drive strength, kept by the override through a
save and obeyed by the simulation, the character file never written. The scenarios:
tests/addon/scenarios/characters.py."""

import numpy as np
import pytest


def test_a_bone_switched_to_animated_through_the_override_follows_its_keys(blender, tmp_path):
    char, shot = str(tmp_path / "char.blend"), str(tmp_path / "shot.blend")
    out = blender.call("character_pipeline.bone_animated_through_the_override", char, shot,
                       "spine", 0.3, 40)
    assert out["override"] and out["error"] is None
    # the switches are the override's own, kept through the save, editable in the panels
    assert out["stored"] == ['pose.bones["spine"].ligament_drive_strength',
                             'pose.bones["spine"].ligament_simulated']
    assert out["simulated"] is False and out["old_name"] is False
    assert abs(out["strength"] - 0.25) < 1e-6 and out["editable"]
    played, keyed = np.array(out["played"]), np.array(out["keyed"])
    falling = np.array(out["falling"])
    # the pelvis follows its keys (it rises 0.3 m)...
    print("pelvis vs its keys:", np.abs(played[:, 0] - keyed).max())
    assert np.abs(played[:, 0] - keyed).max() < 1e-4
    assert keyed[-1][2] - keyed[0][2] > 0.29
    # ...and the rest is simulated: the keys alone would carry the head and the hand
    # along with the pelvis; they swing away from there, the hand down (an arm hanging
    # from a raised shoulder)
    carried = played[0, 1:] + (keyed[-1] - keyed[0])
    away = np.linalg.norm(played[-1, 1:] - carried, axis=1)
    print("head, hand, foot away from where the keys carry them:", away)
    assert away[0] > 0.3 and away[1] > 0.3
    assert played[-1, 2, 2] < carried[1, 2] - 0.2
    # with every bone simulated, the whole character lies on the ground
    assert falling[-1, :, 2].max() < 0.6
    # the character's file is never written
    assert out["library_after"] == out["library_before"]


def test_switches_a_file_kept_in_the_old_group_are_read_and_the_check_says_so(blender,
                                                                             tmp_path):
    char, shot = str(tmp_path / "char.blend"), str(tmp_path / "shot.blend")
    out = blender.call("character_pipeline.switches_kept_in_the_old_group", char, shot, "spine", 40)
    assert out["opened"] == [False, 0.5]       # moved onto the pose bone when opened
    old, saved = out["old"], out["saved"]
    for step in (old, saved):
        assert step["linked"] == [False, 0.5]
        played = np.array(step["played"])
        # the pelvis is Animated (it holds its rest pose, unkeyed); the rest is simulated
        assert np.abs(played[:, 0] - played[0, 0]).max() < 1e-4
        moved = np.linalg.norm(played[-1, 1:] - played[0, 1:], axis=1)
        print("head, hand, foot moved:", moved)
        assert moved[0] > 0.2 and moved[1] > 0.2
    # the library still holds the old group: the check says a switch set back to its
    # default in the shot is not kept, and how to update the library
    assert len(old["found"]) == 1
    severity, objects, message = old["found"][0]
    assert severity == "WARNING" and objects[0].startswith("Hero") and "char.blend" in message
    assert old["reloaded"] == [False, 0.5]
    # once the character file is opened and saved, the override keeps it
    assert saved["found"] == [] and saved["reloaded"] == [True, 0.5]


def test_the_panel_says_what_a_linked_character_takes_from_its_library(blender, tmp_path):
    char = str(tmp_path / "char.blend")
    out = blender.call("character_pipeline.panels_of_a_linked_character", char)
    local, linked, override = out["local"], out["linked"], out["override"]
    assert not any(t.startswith("Linked from") for t in local["labels"])
    assert out["library"].endswith("char.blend")
    for drawn in (linked, override):
        assert f"Linked from {out['library']}" in drawn["labels"]
    assert "Make a library override to simulate it in this file" in linked["labels"]
    said = next(t for t in override["labels"] if t.startswith("Editable here"))
    from_library = next(t for t in override["labels"] if t.startswith("Read from the library"))
    print(said, from_library, sep="\n")
    # what the panel says is editable, Blender lets the user edit through the override:
    # every property the ragdoll's panels draw, the bone switches among them
    props = {(owner, name): readonly for owner, name, readonly in override["props"]}
    assert ("PoseBone", "ligament_simulated") in props
    assert ("PoseBone", "ligament_drive_strength") in props
    assert ("LigamentRagdollSettings", "drive_strength") in props
    assert [k for k, readonly in props.items() if readonly] == []
    assert "each bone's Simulated and Drive Strength" in said
    # a body's mass once the body is made editable, as the panel says
    body = next(t for t in override["labels"] if t.startswith("A body's own mass"))
    assert "Make Editable" in body
    assert out["system_body"] is True and out["library_settings"]["body mass"] is False
    # what it says comes from the library, Blender does not let the override change
    assert "bodies' shapes" in from_library and "limits" in from_library and \
        "bone chains" in from_library
    assert {k: v for k, v in out["library_settings"].items() if k != "body mass"} == \
        {"body shape": True, "joint limits": True, "joint type": True, "bone chain": True}


def test_the_batch_bake_of_a_shot_linking_a_character_without_override_warns(blender,
                                                                           tmp_path):
    out = blender.call("character_pipeline.batch_bake_of_a_shot_linking_without_override",
                       str(tmp_path / "char.blend"), str(tmp_path / "shot.blend"),
                       str(tmp_path / "report.json"))
    assert out["code"] == 0 and out["report"]["ok"]
    warnings = [w for w in out["report"]["warnings"] if w["code"] == "character-linked"]
    assert len(warnings) == 1 and "does not simulate" in warnings[0]["message"]
    assert out["report"]["ragdolls"] == 0 and out["report"]["baked_objects"] == ["Crate"]


@pytest.mark.parametrize("path", ["own", "group"])
def test_a_bone_switch_keyed_in_the_shot_holds_the_bone_until_its_key(blender, tmp_path, path):
    out = blender.call("character_pipeline.bone_switch_keyed_in_the_shot", str(tmp_path / "char.blend"),
                       path, "spine", 20, 40)
    assert out["error"] is None and len(out["keyed"]) == 1
    assert out["keyed"][0].endswith("ligament_simulated" if path == "own"
                                    else "ligament_ragdoll.simulated")
    played = np.array(out["played"])
    # Animated until frame 20: the pelvis holds its rest pose (unkeyed); then it falls
    print("pelvis held:", np.abs(played[:19, 0] - played[0, 0]).max(),
          "then down to", played[-1, 0, 2])
    assert np.abs(played[:19, 0] - played[0, 0]).max() < 1e-4
    assert played[-1, 0, 2] < played[0, 0, 2] - 0.5
