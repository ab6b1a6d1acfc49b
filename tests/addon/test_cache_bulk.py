"""The per-frame bulk path of the cache (addon/runtime/): quaternion-mode bodies written for
every object of the file at once, the frame's bulk reads shared by the change checks, linked
(library) bodies, and the solver's thread count following Blender's own setting; a
driven ragdoll switch. The scenarios: tests/addon/scenarios/cache_bulk.py."""

import numpy as np


def test_bulk_bodies_fall_replay_and_leave_other_objects_alone(blender):
    out = blender.call("cache_bulk.bulk_fall_and_replay")
    assert out["error"] is None
    assert sorted(out["bulk"]) == ["Cube0", "Cube1", "Cube2"]
    assert out["builds"] == 1
    first = {int(f): np.array(m) for f, m in out["first"].items()}
    # they fell and landed: centres half a metre above the ground (z of column 3)
    for i in range(3):
        assert first[1][i][2][3] == 2 + i
        assert abs(first[40][i][2][3] - 0.5) < 0.05
    for f, m in out["back"].items():
        assert np.array_equal(np.array(m), first[int(f)]), f"frame {f} replayed differently"
    # the keyed empty follows its keys (linear-ish from 0 to 10 over frames 1..41)
    z = out["keyed_z"]
    assert z["1"] == 0.0 and 4.0 < z["21"] < 6.0 and z["40"] > 9.0
    assert np.allclose(out["still"][0], [1, 2, 3]) and \
        np.allclose(out["still"][1], [0.5, 0.5, 0.5, 0.5])


def test_moving_a_bulk_body_by_hand_makes_that_its_new_start_pose(blender):
    out = blender.call("cache_bulk.bulk_body_moved_by_hand")
    assert out["error"] is None
    assert out["rebuilt"] == 1
    # frame 21 shows the cube 20 frames after a start at (5, -4, 4): landed at x = 5, y = -4
    assert abs(out["after"][0] - 5) < 1e-3 and abs(out["after"][1] + 4) < 1e-3
    assert abs(out["after"][2] - 0.5) < 0.15
    assert np.allclose(out["start"][0], [5, -4, 4]) and np.allclose(out["start"][1], [1, 0, 0, 0])
    # the other cubes kept their own start poses: the same path
    assert np.allclose(out["others"], out["others_again"], atol=1e-6)


def test_linked_library_bodies_fall_as_local_ones_do(blender, tmp_path):
    """A dynamic body and the ground linked from a library file move as the same bodies made
    in the file itself (linked objects are skipped by foreach_set: they are written one by
    one)."""
    library = str(tmp_path / "library.blend")
    local = blender.call("cache_bulk.library_saved_and_played", library)
    linked = blender.call("cache_bulk.library_linked", library)
    assert local["error"] is None and linked["error"] is None
    assert linked["linked"] == [True, False]
    assert linked["bulk"] == ["Cube1"]      # the linked body is written one by one
    a, b = np.array(local["path"]), np.array(linked["path"])
    assert a[-1, 0, 2, 3] < 0.6, "the cube did not land"
    assert np.allclose(a, b, atol=1e-5)


def test_solver_threads_follow_blenders_thread_setting_and_keep_the_cache(blender):
    out = blender.call("cache_bulk.thread_setting_changed")
    assert out["error"] is None
    assert out["builds"] == 1, "changing the thread count dropped the cache"
    seen = out["seen"]
    assert seen[:14] == [1] * 14 and seen[14:29] == [2] * 15
    assert seen[29:] == [out["auto"]] * 11 and out["auto"] >= 1
    assert np.array_equal(np.array(out["path"]), np.array(out["again"])), \
        "results depend on the thread count"


def test_a_driven_simulated_switch_is_read_every_step(blender):
    """A ragdoll with nothing keyed or driven skips its per-step work; a driver on its
    Simulated switch must still be followed: on until frame 10 (it falls), then off (its
    bodies follow the animation again, kinematic: back at the rest pose they started from),
    next to an undriven one that keeps falling."""
    out = blender.call("cache_bulk.driven_simulated_switch")
    assert out["error"] is None
    idle = dict(zip(out["names"], out["idle"]))
    assert idle == {"Rig0": False, "Rig1": True}
    top = {int(f): v for f, v in out["top"].items()}
    for rig in range(2):      # both fall while simulated
        assert top[8][rig] < top[1][rig] - 0.05
    # switched off, the driven one follows its (still) animation: where it started
    assert abs(top[20][0] - top[1][0]) < 1e-3 and abs(top[30][0] - top[1][0]) < 1e-3
    assert top[30][1] < top[1][1] - 0.3      # the other one kept falling
