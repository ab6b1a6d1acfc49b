"""A big scene's simulation is built a slice at a time when there is a UI to keep responsive
(addon/runtime/building.py's BuildSession, the Build Simulation modal run, the frames played
meanwhile): each slice does a bounded number of units of work and leaves the scene on the
user's frame, the progress climbs to 100 %, a cancel leaves the scene as it was, and the
finished world is the one the build in one piece (background mode, scripts, the batch
command) makes. The scenarios: tests/addon/scenarios/sliced_build.py (convex-hull bodies, a
driven paddle, a keyed box, metarig ragdolls riding an empty on an NLA strip)."""

import numpy as np
import pytest

HULLS, RAGDOLLS, PARTS = 200, 2, 150


@pytest.fixture(scope="module")
def sliced_and_whole(blender):
    """The big scene built in one piece and a unit at a time, the user on frame 7, each world
    after 12 frames (both tests below read it; neither changes it)."""
    return blender.call("sliced_build.sliced_and_whole", HULLS, RAGDOLLS, 12, 7, PARTS)


def test_the_sliced_build_makes_the_world_the_whole_build_makes(sliced_and_whole):
    out = sliced_and_whole
    assert out["state"] == "FINISHED" and out["error"] is None
    whole, sliced = out["whole"], out["sliced"]
    assert whole["bodies"] == sliced["bodies"] == HULLS + 1 + RAGDOLLS * 16 + 3
    # bit for bit: the same units in the same order, the depsgraph at the same frames
    for key in ("positions", "orientations", "linear", "angular"):
        assert sliced[key] == whole[key], key
    assert sliced["findings"] == whole["findings"]
    # the bodies moved in those 12 frames (the comparison is not of two worlds at rest)
    assert whole["moved"] > 0.05
    assert out["builds"] == 2


def test_each_slice_is_bounded_leaves_the_user_frame_and_progress_climbs(sliced_and_whole):
    out = sliced_and_whole
    advances = out["advances"]
    # a zero slice budget: one unit of work per advance, many advances (a body's shape is a
    # unit, and a Compound's part: 200 hulls, a ring of 150 parts and two ragdolls)
    assert len(advances) > HULLS + PARTS
    assert {a["units"] for a in advances} == {1}
    fractions = [a["fraction"] for a in advances]
    assert all(b >= a for a, b in zip(fractions, fractions[1:]))
    assert fractions[-1] == 1.0 and fractions[len(fractions) // 2] < 0.9
    # the build reads the start frame and the one after (the ragdolls' car on an NLA strip):
    # between slices the scene is back on the user's frame, evaluated there
    assert {a["frame"] for a in advances} == {7}
    assert {a["paddle"] for a in advances} == {out["shown"]}
    assert abs(out["shown"] - (8 - 7 / 6)) < 1e-6
    assert out["whole_frame"] == 7
    # (the longest unit's seconds, printed for the report: a figure on a shared machine)
    print("longest unit %.3f s of %.3f s" % (max(a["seconds"] for a in advances),
                                            sum(a["seconds"] for a in advances)))


def test_a_cancelled_build_leaves_the_scene_as_it_was(blender):
    out = blender.call("sliced_build.cancel_after", 60, 1, 5, [1, 2, 30, 70])
    for stop in out["stops"]:
        assert stop["state"] == "CANCELLED"
        before, middle, after = stop["before"], stop["middle"], stop["after"]
        assert after == before, stop["stop"]
        assert not after["sim"] and after["error"] is None and not after["building"]
        assert after["frame"] == 5
    # not vacuous: half way the build had stored rest poses on bodies it had read
    assert out["stops"][2]["middle"]["rest"] != out["stops"][2]["before"]["rest"]
    assert out["stops"][3]["units"] == 70
    # after all those cancels the build still makes the world the whole build makes
    for key in ("positions", "orientations", "linear", "angular", "findings"):
        assert out["sliced"][key] == out["whole"][key], key


def _progress_shown_and_cleared(calls):
    names = [c[:2] for c in calls]
    texts = [c[2] for c in calls if c[:2] == ["workspace", "status_text_set"]]
    assert any(t.startswith("'Building simulation: ") and "Esc" in t for t in texts)
    assert names.count(["wm", "progress_update"]) >= 2
    assert calls[-3:] == [["wm", "event_timer_remove", "'the timer'"], ["wm", "progress_end"],
                          ["workspace", "status_text_set", "None"]]


def test_the_modal_run_builds_on_timer_events_and_passes_the_others_on(blender):
    out = blender.call("sliced_build.modal_build", 40, ["TIMER", "MOUSEMOVE", "TIMER"])
    assert out["state"] == "FINISHED"
    # each event passed on (the animation plays, the view turns), the last ends it
    assert out["returned"][:-1] == [["PASS_THROUGH"]] * (len(out["returned"]) - 1)
    assert out["returned"][-1] == ["FINISHED", "PASS_THROUGH"]
    assert len(out["returned"]) > 40
    assert out["reports"][0][0] == ["INFO"] and "Simulation built" in out["reports"][0][1]
    _progress_shown_and_cleared(out["calls"])
    assert out["after"]["sim"] and out["built_after_frame"]


def test_esc_in_the_modal_run_stops_the_build_and_changes_nothing(blender):
    out = blender.call("sliced_build.modal_build", 40, ["TIMER"] * 20 + ["ESC"])
    assert out["state"] == "CANCELLED" and out["units"] == 20
    assert out["returned"][-1] == ["CANCELLED", "PASS_THROUGH"]   # Esc stops playback too
    [(kind, message)] = out["reports"]
    assert kind == ["WARNING"] and "stopped" in message and "nothing was changed" in message
    _progress_shown_and_cleared(out["calls"])
    before, after = out["before"], out["after"]
    assert after["stopped"] and not before["stopped"]
    after = dict(after, stopped=False)
    assert after == before
    # stopped: the next frame plays the animation and builds nothing
    assert not out["built_after_frame"] and out["stopped_after_frame"]


def test_play_while_building_shows_the_animation_then_the_simulation(blender):
    frames = 60
    out = blender.call("sliced_build.play_while_building", 30, frames)
    assert out["error"] is None
    played, whole = out["played"], np.array(out["whole"])
    ready = [p["ready"] for p in played]
    first = ready.index(True)
    # a unit of work a frame: the first frames play while it builds, then it is ready
    assert 30 < first < frames - 10 and all(ready[first:])
    statuses = [p["status"] for p in played[:first]]
    assert all(s.startswith("Building simulation: ") and s.endswith(" %") for s in statuses)
    percents = [int(s.split(": ")[1][:-2]) for s in statuses]
    assert percents == sorted(percents) and percents[-1] > percents[0]
    # meanwhile the animation plays as Blender shows it, the simulated bodies wait
    for p in played:
        assert abs(p["paddle"] - (8 - p["frame"] / 6)) < 1e-5
        assert abs(p["keyed"] - (-8.0 + 4.0 * (p["frame"] - 1) / (frames - 1))) < 1e-5
    waiting = np.array([p["hull"] for p in played[:first]])
    assert np.abs(waiting - waiting[0]).max() == 0.0
    # once ready the frames show the simulation, the one a build in one piece plays
    simulated = np.array([p["hull"] for p in played[first:]])
    assert np.abs(simulated - whole[first:]).max() <= 1e-12
    assert simulated[-1][2] < waiting[0][2] - 0.05      # it fell


def test_the_idle_build_of_an_opened_file_is_begun_not_run_in_one_piece(blender, tmp_path):
    out = blender.call("sliced_build.idle_build_after_load", str(tmp_path / "big.blend"), 80)
    begun = out["begun"]
    # the timer began the build and came back: nothing built yet, no unit done in its call
    assert begun["again"] is None and begun["session"] and not begun["built"]
    assert begun["units"] == 0
    # the slices (the Build Simulation modal's timer events) build it
    assert out["advances"] > 80 and out["built"] and out["bodies"] == 80 + 3


def test_an_edit_while_building_stops_the_build_and_puts_back_what_it_stored(blender):
    out = blender.call("sliced_build.edit_while_building", 40)
    assert out["state"] == "CANCELLED" and not out["building"] and not out["sim"]
    assert out["middle"] != out["before"]        # half way it had stored rest poses
    assert out["after"] == out["before"]


def test_selecting_keeps_the_build_going_and_moving_a_body_stops_it(blender):
    out = blender.call("sliced_build.select_then_move_while_building", 40)
    assert out["selected"] == "RUNNING"
    assert out["moved"] == "CANCELLED" and not out["building"] and not out["sim"]
