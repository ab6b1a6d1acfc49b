"""Crowds by duplication: a copy of a ragdolled character falls where it was put, with a
ragdoll of its own, never driven by the original's bodies; where Blender's duplicate leaves
the copy following the original's ragdoll, the scene check says so and its fix gives the copy
its own. The crowd operator makes N copies on a grid or along a curve.
The scenarios: tests/addon/scenarios/crowds.py."""

import numpy as np
import pytest


@pytest.mark.parametrize("linked", [False, True], ids=["shift_d", "alt_d"])
def test_armature_duplicated_alone_is_reported_and_the_fix_gives_it_its_own_ragdoll(
        blender, linked):
    out = blender.call("crowds.armature_duplicated_alone", linked)
    original, copy = out["names"]
    # before the fix: the copy follows the original's ragdoll, and the check says so
    assert out["before"] == {"follows": [original], "own": 0}
    assert len(out["found"]) == 1
    severity, objects, message = out["found"][0]
    assert severity == "ERROR" and objects[:2] == [copy, original]
    assert copy in message and original in message
    # after: its own ragdoll, the original's untouched, both fall 3 m apart
    assert out["follows"] == [copy] and out["own"] == 16 and out["original_own"] == 16
    assert out["again"] == [] and out["error"] is None
    track = np.array(out["track"])
    assert track[-1, :, 2].max() < 0.6, "they did not fall"
    apart = track[:, 1, 0] - track[:, 0, 0]
    print("copy - original spine x over the fall:", apart.min(), apart.max())
    assert np.abs(apart - 3.0).max() < 1e-3


@pytest.mark.parametrize("linked", [False, True], ids=["shift_d", "alt_d"])
def test_armature_and_its_ragdoll_duplicated_together_fall_apart_on_their_own(blender, linked):
    # Shift+D or Alt+D on the character's whole collection (the armature and every helper
    # selected): Blender points the copies at each other, the copy has a ragdoll of its own
    out = blender.call("crowds.armature_and_ragdoll_duplicated", linked)
    assert out["found"] == [] and out["error"] is None
    assert out["own"] == 16 and len(out["follows"]) == 1 and out["follows"] != ["Hero"]
    track = np.array(out["track"])
    assert track[-1, :, 2].max() < 0.6
    assert np.abs(track[:, 1, 0] - track[:, 0, 0] - 3.0).max() < 1e-3


def test_crowd_operator_makes_copies_on_a_grid_that_fall_on_their_own(blender):
    out = blender.call("crowds.crowd_on_a_grid")
    assert out["res"] == ["FINISHED"] and out["error"] is None and out["found"] == []
    assert out["own"] == [16, 16, 16] and all(out["follows"]) and all(out["homes"])
    # grid of 2 columns (a square of 4 places), the original in the first; 4 m apart, the
    # characters lying down do not touch
    expected = [[4, 0, 1], [0, 4, 1], [4, 4, 1]]
    assert np.abs(np.array(out["starts"]) - expected).max() < 1e-6
    track = np.array(out["track"])
    assert track[-1, :, 2].max() < 0.6
    # each copy falls as the original does, where it was put: the same fall to the last bits
    # at first, then the rounding of bodies 4 m apart, amplified by the landing, parts them
    # by a few centimetres (measured: under 4 cm after 60 frames; a copy following the
    # original's ragdoll would be 4 m off)
    offsets = track - track[:, :1]
    for k, (x, y, _) in enumerate(expected, start=1):
        assert np.abs(offsets[:10, k, :2] - (x, y)).max() < 1e-6
        assert np.abs(offsets[:, k, :2] - (x, y)).max() < 0.1


def test_crowd_along_a_curve_with_random_starts(blender):
    out = blender.call("crowds.crowd_along_a_curve")
    assert out["res"] == ["FINISHED"]
    starts = np.array(out["starts"])
    # evenly along the curve from (4, 2) to (16, 2), the armatures' origins on it
    assert np.abs(starts - [[4 + 4 * k, 2, 0] for k in range(4)]).max() < 0.05
    assert out["original"] == [1.0, 10.0]
    shifts = [k[0] - 1.0 for k in out["keys"]]
    assert all(k[1] - k[0] == 9.0 for k in out["keys"])
    assert all(0 <= s <= 20 and s == int(s) for s in shifts) and len(set(shifts)) > 1


def test_collection_instance_of_a_character_is_reported_and_made_a_real_copy(blender):
    out = blender.call("crowds.collection_instance_made_real")
    assert len(out["found"]) == 1
    severity, objects, operator, _ = out["found"][0]
    assert severity == "ERROR" and objects[1] == "Hero"
    assert out["instances"] == [] and len(out["copies"]) == 1
    assert out["follows"] == [out["copies"]] and out["own"] == [16]
    assert out["left"] == [] and out["error"] is None
    track = np.array(out["track"])
    assert track[-1, :, 2].max() < 0.6
    assert np.abs(track[:10, 1] - track[:10, 0] - (3, 0, 0)).max() < 1e-6
    assert np.abs(track[:, 1, :2] - track[:, 0, :2] - (3, 0)).max() < 0.1
