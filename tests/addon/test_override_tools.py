"""The animator's tools on a character linked from its own file and given a library override,
its armature playing the character file's action: what they write lands in the shot and is
kept through a save, or they refuse, naming the object and what to do; the character file is
never written. The scenarios: tests/addon/scenarios/override_tools.py."""

import numpy as np
import pytest

FRAME = 20


@pytest.mark.parametrize("how", ["operator", "live"])
def test_a_pose_transferred_onto_an_override_is_keyed_in_the_shot_and_kept(blender, tmp_path,
                                                                             how):
    out = blender.call("override_tools.transfer_onto_an_override", str(tmp_path / "char.blend"),
                       str(tmp_path / "shot.blend"), how, FRAME)
    # the premise: the override plays the character file's action, which is read-only here
    assert out["action_before"] == ["HeroAction", True]
    # the keys went into a copy of it in the shot, every moved bone keyed at the frame...
    name, linked = out["action"]
    assert not linked and name != "HeroAction"
    assert sorted(out["keys"]) == out["moved"]
    assert all("location" in paths for paths in out["keys"].values())
    # ...and pose the bones as transferred (Blender's evaluation of the keys)
    print(how, "keyed pose vs transferred:", out["dist"], "after reopening:",
          out["reopened"]["dist"])
    assert out["dist"] < 1e-4
    assert out["reopened"]["action"] == [name, False]
    assert out["reopened"]["keys"] == out["keys"]
    assert out["reopened"]["dist"] < 1e-4
    assert out["library_unchanged"]


def test_physics_fix_of_an_override_keeps_its_actions_through_a_save(blender, tmp_path):
    out = blender.call("override_tools.physics_fix_of_an_override", str(tmp_path / "char.blend"),
                       str(tmp_path / "shot.blend"))
    fixed = out["fixed"]
    assert fixed["keyed"] == "HeroAction" and fixed["playing"] == fixed["fixed"] != "HeroAction"
    assert fixed["report"]
    # the override keeps what the fix switches between, and the check's figures
    assert out["reopened"] == fixed
    assert out["switched"] == ["HeroAction", fixed["fixed"]]
    assert out["library_unchanged"]


def test_split_into_convex_parts_refuses_an_override_and_leaves_the_file_as_it_was(blender,
                                                                                 tmp_path):
    out = blender.call("override_tools.split_of_an_override", str(tmp_path / "char.blend"))
    for step in ("system", "editable"):
        said, job = out[step]["said"], out[step]["job"]
        print(step, said, job, sep="\n")
        for message in (said, job):
            assert message is not None and "'Ring'" in message and out["library"] in message
            assert "Split it in that file" in message and "Traceback" not in message
        assert out[step]["after"] == out["before"]


def test_physics_check_of_a_character_an_older_ligament_saved_says_to_save_it_again(
        blender, tmp_path):
    out = blender.call("override_tools.physics_check_of_an_old_character",
                       str(tmp_path / "char.blend"))
    for said in out["said"]:
        print(said)
        assert "'Hero'" in said and "char.blend" in said and "save it once" in said
    assert out["playing"] == "HeroAction" and out["library_unchanged"]


def test_edits_of_an_override_s_ragdoll_are_refused_naming_the_character_file(blender,
                                                                             tmp_path):
    out = blender.call("override_tools.ragdoll_edits_of_an_override",
                       str(tmp_path / "char.blend"), str(tmp_path / "hero.toml"))
    for what, said in out["said"].items():
        print(what, said)
        assert isinstance(said, str) and "'Hero'" in said and out["library"] in said
        assert ("Do it in that file" in said or "do it in that file" in said) and \
            "Traceback" not in said
    # nothing made, nothing written that the override would drop on a save
    assert out["after"] == out["before"]


def test_a_drag_on_an_override_is_kept_through_a_save(blender, tmp_path):
    # tried as an animator would: works on main too (the pin is the shot's own object)
    out = blender.call("override_tools.drag_on_an_override", str(tmp_path / "char.blend"),
                       str(tmp_path / "shot.blend"))
    fell, dragged, reopened = (np.array(out[k]) for k in ("fell", "dragged", "reopened"))
    assert out["pins"] == [["Drag Hero hand.L", "Hero hand.L", True]]
    # the drag holds the hand up while the character falls...
    print("hand raised by the drag at frame 20:", dragged[19, 2] - fell[19, 2])
    assert dragged[19, 2] - fell[19, 2] > 0.3
    # ...and the shot plays it the same once saved and opened again
    print("replay after reopening:", np.abs(reopened - dragged).max())
    assert np.abs(reopened - dragged).max() < 1e-6
    assert out["library_unchanged"]
