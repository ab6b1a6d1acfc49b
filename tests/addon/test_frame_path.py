"""The add-on's per-frame path (addon/runtime/: the change check's bulk reads, the bulk
write and its update tags), judged by what Blender shows: every body's and bone's evaluated
world matrix against the solver's state at the frame, computed independently with
mathutils, live and scrubbed back (the bulk bodies' poses from the solver's kernel,
solver/poses.py, their float32 values and moved rows from another); and edits made while
it plays: objects added, removed and renamed between frames (every object's row in the
file moves), still and simulated objects moved by a bulk write that tags nothing. The
scenarios: tests/addon/scenarios/frame_path.py."""

import pytest


@pytest.mark.parametrize("count", [1, 2, 3])
def test_bodies_and_bones_show_the_solvers_state_live_and_scrubbed_back(blender, count):
    out = blender.call("frame_path.bodies_and_bones_shown", count, 24)
    assert out["error"] is None
    assert out["builds"] == 1
    assert out["bulk"] == out["dynamic"] == 16 * count    # every part on the bulk path
    assert out["bones"] >= 16 * count
    for when in ("live", "back"):
        for f, (move, turn, bones, compared) in out[when].items():
            assert compared == out["bones"], (when, f, compared)
            # float32 transforms (Blender stores them so) of poses within a few metres; a
            # bone's through its armature's matrix and inverse (a frame late would be cm)
            assert move < 2e-6, f"{when} frame {f}: a body is {move} m off its state"
            assert turn < 2e-6, f"{when} frame {f}: a body is turned {turn} off its state"
            assert bones < 1e-4, f"{when} frame {f}: a bone is {bones} off its body"


def test_edits_between_frames_move_the_rows_and_a_bulk_write_without_tags_is_seen(blender):
    out = blender.call("frame_path.edits_while_playing")
    assert out["error"] is None
    builds = {int(f): n for f, n in out["builds"].items()}
    # adding, removing and renaming objects no body depends on keeps the simulation
    assert all(builds[f] == 1 for f in range(1, 20)), builds
    # the ground moved (still, watched) by a write that tags nothing: built again
    assert all(builds[f] == 2 for f in range(20, 26)), builds
    # the crate moved (simulated) likewise: its new place is its start pose, built again
    assert all(builds[f] == 3 for f in range(26, 33)), builds
    for f, (move, turn, bones, compared) in out["shown"].items():
        assert compared >= 16
        assert move < 2e-6 and turn < 2e-6 and bones < 1e-4, (f, move, turn, bones)
    for f, move in out["crate"].items():
        assert move < 2e-6, (f, move)
    # the bulk write gave every other object back what it held
    assert out["added"] == [7.0, 7.0, 7.0]
    assert abs(out["ground"][2] + 0.7) < 1e-6
    assert out["rest"] is not None
    for got, want in zip(out["rest"], (0.5, -2.5, 1.5)):
        assert abs(got - want) < 1e-6
    for got, want in zip(out["start"], (0.5, -2.5, 1.5)):
        assert abs(got - want) < 1e-6
