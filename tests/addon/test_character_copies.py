"""Outliner > Duplicate Collection of a character's collection: the copy falls where it was
put, with a ragdoll of its own. Background Blender cannot run the Outliner's operator (it
needs the Outliner's tree, built when the Outliner draws), so the scenario does what it does
with bpy.data's copy API (tests/addon/scenarios/characters.py, duplicate_collection)."""

import numpy as np
import pytest


@pytest.mark.parametrize("linked", [False, True], ids=["duplicate", "duplicate_linked"])
def test_a_duplicated_character_collection_falls_where_it_was_put_on_its_own(blender, linked):
    out = blender.call("character_pipeline.collection_duplicated", linked, 3.0, 60)
    original, copy = out["names"]
    print("found:", out["found"])
    assert out["again"] == [] and out["error"] is None
    # each armature follows its own ragdoll, kept inside its own collection
    assert out["follows"] == [[original], [copy]]
    assert out["own"] == [16, 16]
    assert out["copy_home"] == ["Char.001"]
    track = np.array(out["track"])
    assert track[-1, :, 2].max() < 0.6, "they did not fall"
    apart = track[:, 1] - track[:, 0]
    print("copy - original spine over the fall:", apart.min(axis=0), apart.max(axis=0))
    assert np.abs(apart - [3.0, 0.0, 0.0]).max() < 1e-3


def test_a_body_moved_out_of_its_ragdoll_is_reported_and_the_rest_still_simulates(blender):
    out = blender.call("character_pipeline.body_moved_out_of_its_ragdoll", "forearm.L", 30)
    print(out["found"])
    assert out["error"] is None and out["members"] == 15
    [(severity, code, objects, message)] = out["found"]
    assert severity == "WARNING" and code == "ragdoll-orphan" and out["name"] in objects
    assert "'Hero'" in message
    # it falls on its own, as the check says
    assert out["end"] < out["start"] - 0.5
