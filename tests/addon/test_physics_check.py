"""The physics check and fix of keyed motion on a metarig ragdoll (addon/motion, the
operators ligament.physics_check, ligament.physics_fix and ligament.physics_switch): the
check's figures against the same physics computed here from the bones Blender evaluates and
the bodies' masses; a jump keyed in straight lines fixed onto a parabola of gravity.
The scenarios: tests/addon/scenarios/physics_check.py."""

import numpy as np
import pytest

from motion_reference import parabola_distance, reference

G = 9.81
FPS = 24


@pytest.fixture(scope="module")
def jump(blender):
    """A metarig ragdoll with a keyed jump in straight lines: the check's report and the
    reference quantities, then the fix's."""
    return blender.call("physics_check.jump")


def test_check_figures_match_the_physics_computed_from_the_bones_and_masses(jump):
    keyed = np.array(jump["keyed"])
    com, p, L = reference(keyed, jump["masses"], jump["inertia"], 1.0 / FPS)
    # Blender's pose matrices and mathutils are float32 (~1e-7 m here): positions agree to
    # 1e-6 m, velocities (differences over 1/24 s) to 1e-5 of their largest value
    assert np.abs(np.array(jump["com"]) - com).max() < 1e-6
    assert np.abs(np.array(jump["p"]) - p).max() < 1e-5 * np.abs(p).max()
    assert np.abs(np.array(jump["L"]) - L).max() < 1e-5 * np.abs(L).max()
    assert np.abs(L).max() > 1.0          # the thighs' swing turns the body
    kinds = [(ph["kind"], ph["first"], ph["last"]) for ph in jump["phases"]]
    assert kinds == [("STANCE", 1, 10), ("FLIGHT", 11, 29), ("STANCE", 30, 40)]
    flight = jump["phases"][1]
    span = slice(10, 29)
    t = np.arange(11, 30) / FPS
    assert flight["parabola_cm"] == pytest.approx(100 * parabola_distance(t, com[span], G),
                                                  abs=1e-4)        # 1e-6 m
    inner = L[11:28]          # frames 12..28: their differences reach no frame on the ground
    change = np.linalg.norm(inner - inner[0], axis=1).max()
    assert flight["momentum_percent"] == pytest.approx(
        100 * change / np.linalg.norm(inner, axis=1).max(), rel=1e-4)
    assert flight["parabola_cm"] > 2.0     # straight lines are no parabola


def test_fixed_jump_follows_a_parabola_of_g_with_take_off_and_landing_kept(jump):
    masses = np.array(jump["masses"])
    keyed, fixed = np.array(jump["keyed"]), np.array(jump["fixed"])
    com_keyed = np.einsum("b,fbi->fi", masses, keyed[:, :, :3, 3]) / masses.sum()
    com = np.einsum("b,fbi->fi", masses, fixed[:, :, :3, 3]) / masses.sum()
    span = slice(10, 29)                              # frames 11..29, in flight
    t = np.arange(11, 30) / FPS
    assert parabola_distance(t, com[span], G) < 0.005
    curvature = 2 * np.polyfit(t, com[span, 2], 2)[0]
    assert curvature == pytest.approx(-G, rel=0.02)
    # take-off (frame 10) and landing (frame 30) where they were keyed; stance untouched,
    # the feet where they were keyed there
    stance = list(range(0, 10)) + list(range(29, 40))
    assert np.abs(fixed[stance] - keyed[stance]).max() < 1e-5
    feet = [i for i, n in enumerate(jump["names"]) if n.startswith("foot")]
    assert np.abs(fixed[stance][:, feet, :3, 3] - keyed[stance][:, feet, :3, 3]).max() < 0.002
    assert np.abs(com[span] - com_keyed[span]).max() > 0.02    # the flight did move
    fixed_flight = jump["fixed_phases"][1]
    assert fixed_flight["kind"] == "FLIGHT" and fixed_flight["parabola_cm"] < 0.5


def test_fix_makes_a_new_action_and_one_click_switches_back_to_the_keyed_one(jump):
    assert jump["active"] == jump["fixed_name"] != jump["keyed_name"]
    assert jump["kept"]
    assert jump["switched"] == jump["keyed_name"]
    assert sorted(map(tuple, jump["switched_keys"])) == sorted(map(tuple, jump["keyed_keys"]))
    assert jump["again"] == jump["fixed_name"]


def test_a_standing_pose_is_balanced_and_a_lean_reports_how_far_it_is_outside_the_feet(blender):
    out = blender.call("physics_check.standing_lean")
    masses = np.array(out["masses"])
    bodies = np.array(out["bodies"])
    com = np.einsum("b,fbi->fi", masses, bodies[:, :, :3, 3]) / masses.sum()
    # the feet stand still: their sole corners (those within the contact distance of the
    # floor) make a rectangle, the support
    corners = np.array(out["corners"])
    sole = corners[corners[:, 2] < 0.06]
    lo, hi = sole[:, :2].min(axis=0), sole[:, :2].max(axis=0)
    outside = np.linalg.norm(np.maximum(0, np.maximum(lo - com[:, :2], com[:, :2] - hi)), axis=1)
    assert [ph["kind"] for ph in out["phases"]] == ["STANCE"]
    assert np.abs(np.array(out["outside"]) - outside).max() < 1e-6
    assert outside[:10].max() == 0.0             # standing upright, over the feet
    assert outside[-1] > 0.03                    # leaning far out
    assert out["phases"][0]["outside_cm"] == pytest.approx(100 * outside.max(), abs=1e-4)


def test_a_keyed_flip_that_speeds_up_keeps_its_angular_momentum_once_fixed(blender):
    out = blender.call("physics_check.flip_that_speeds_up")
    assert [(ph["kind"], ph["first"], ph["last"]) for ph in out["phases"]] == \
        [("STANCE", 1, 10), ("FLIGHT", 11, 29), ("STANCE", 30, 40)]
    keyed, fixed = np.array(out["keyed"]), np.array(out["fixed"])
    span = slice(10, 29)                               # frames 11..29
    _, _, L_keyed = reference(keyed, out["masses"], out["inertia"], 1.0 / FPS)
    _, _, L = reference(fixed, out["masses"], out["inertia"], 1.0 / FPS)
    change = lambda L: np.linalg.norm(L[span] - L[10], axis=1).max() / np.linalg.norm(L[10])
    assert change(L_keyed) > 0.5                       # keyed: the spin speeds up
    assert change(L) < 0.02
    assert out["phases"][1]["momentum_percent"] > 50
    assert out["fixed_phases"][1]["momentum_percent"] < 2
    # lands as keyed: the stance frames are untouched
    stance = list(range(0, 10)) + list(range(29, 40))
    assert np.abs(fixed[stance] - keyed[stance]).max() < 1e-5
    # and flies on a parabola of g
    masses = np.array(out["masses"])
    com = np.einsum("b,fbi->fi", masses, fixed[:, :, :3, 3]) / masses.sum()
    assert parabola_distance(np.arange(11, 30) / FPS, com[span], G) < 0.005


def test_a_standing_lean_outside_the_feet_is_balanced_by_the_pelvis_the_feet_kept(blender):
    out = blender.call("physics_check.lean_balanced")
    masses = np.array(out["masses"])
    keyed, fixed = np.array(out["keyed"]), np.array(out["fixed"])
    corners = np.array(out["corners"])
    sole = corners[corners[:, 2] < 0.06]
    lo, hi = sole[:, :2].min(axis=0), sole[:, :2].max(axis=0)

    def outside(bodies):
        com = np.einsum("b,fbi->fi", masses, bodies[:, :, :3, 3]) / masses.sum()
        return np.linalg.norm(np.maximum(0, np.maximum(lo - com[:, :2], com[:, :2] - hi)), axis=1)

    assert 0.08 < outside(keyed).max() < 0.2          # leaning about 10 cm out
    assert outside(fixed).max() < 1e-4                # over the feet once fixed
    assert out["fixed_phases"][0]["outside_cm"] < 0.01
    feet = [i for i, n in enumerate(out["names"]) if n.startswith("foot")]
    assert np.abs(fixed[:, feet, :3, 3] - keyed[:, feet, :3, 3]).max() < 0.002
    # the frames that were balanced already are untouched
    assert np.abs(fixed[:10] - keyed[:10]).max() < 1e-5


def test_bad_input_is_refused_with_a_message_and_the_scene_is_left_as_it_was(blender):
    out = blender.call("physics_check.bad_input")
    assert out["no_gravity"] == out["no_ragdoll"] == out["no_switch"] == "error"
    assert "gravity is off" in out["messages"][0]
    assert "has no ragdoll" in out["messages"][1]
    assert "run Physics Fix" in out["messages"][2]
    assert out["action_after_error"] == out["keyed"]
    # a second fix starts from the keyed action again and replaces the first fix
    assert out["twice"] == [["FINISHED"], ["FINISHED"]]
    assert out["actions"] == sorted([out["keyed"], out["keyed"] + "_PhysicsFix"])
    assert out["playing"] == out["keyed"] + "_PhysicsFix"


def test_with_the_bakes_reduce_keys_the_fix_writes_fewer_keys_within_its_tolerances(blender):
    out = blender.call("physics_check.fix_with_reduced_keys")
    full, reduced = np.array(out["full"]), np.array(out["reduced"])
    assert max(out["keys"]) < 20                       # of 40 frames
    # the root within 1 mm and 0.5 degrees: a body 1 m from it within 1 + 9 mm
    assert np.abs(reduced[:, :, :3, 3] - full[:, :, :3, 3]).max() < 0.01


def test_a_simulated_fall_baked_is_physical_and_the_fix_moves_it_less_than_5_mm(blender):
    out = blender.call("physics_check.simulated_fall_baked")
    flights = [ph for ph in out["phases"] if ph["kind"] == "FLIGHT"]
    assert flights and flights[0]["first"] == 1 and flights[0]["last"] >= 8   # the drop
    assert flights[0]["parabola_cm"] < 0.5
    keyed, fixed = np.array(out["keyed"]), np.array(out["fixed"])
    assert np.abs(fixed[:, :, :3, 3] - keyed[:, :, :3, 3]).max() < 0.005


def test_the_physics_check_panels_draw_the_figures_red_where_they_fail(blender):
    out = blender.call("physics_check.panels_drawn")
    assert out["problems"] == []
    for rows in out["drawn"]:
        red = [labels[0] for alert, labels in rows if alert]
        assert len(red) == 2 and red[0].startswith("off the parabola: 2")
        assert red[1].startswith("momentum change")
        assert ("CoM outside support: 0.00 cm" in
                [labels[0] for alert, labels in rows if not alert])
