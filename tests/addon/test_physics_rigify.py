"""The physics check and fix on a ragdoll made on a rig Rigify generated (addon/motion/
rigify.py): the check reads the pose Blender evaluates from the keyed controls, the fix keys
the controls (root, torso, IK feet). The issue's numbers, measured on the bodies Blender
shows. The scenarios: tests/addon/scenarios/physics_rigify.py."""

import numpy as np
import pytest

from motion_reference import G, com, momentum_change, orthonormal, parabola_distance, \
    reference

STANCE = list(range(0, 10)) + list(range(29, 40))      # frames 1-10 and 30-40
FLIGHT = slice(10, 29)                                  # frames 11-29


@pytest.fixture(scope="module")
def jump(blender):
    return blender.call("physics_rigify.jump")


def test_the_checks_figures_match_the_bone_matrices_blender_shows_and_the_masses_to_1e6(jump):
    # the bodies from the DEF bones' matrices as Blender shows them (the simulation off, so
    # Ligament's constraints are muted), the rest frames and masses, in float64 here
    assert jump["muted"]
    bodies = np.array([[orthonormal(np.array(pose[j]) @ np.linalg.inv(np.array(b["rest"])) @
                                    np.array(b["rest_frame"]).reshape(4, 4))
                        for j, b in enumerate(jump["bodies"])] for pose in jump["poses"]])
    masses = [b["mass"] for b in jump["bodies"]]
    inertia = [b["inertia"] for b in jump["bodies"]]
    centre, p, L = reference(bodies, masses, inertia, 1.0 / jump["fps"])
    print("figures: com", np.abs(np.array(jump["com"]) - centre).max(),
          "p", np.abs(np.array(jump["p"]) - p).max() / np.abs(p).max(),
          "L", np.abs(np.array(jump["L"]) - L).max() / np.abs(L).max())
    assert np.abs(L).max() > 1.0 and np.abs(p).max() > 10.0       # the jump moves and turns
    assert np.abs(np.array(jump["com"]) - centre).max() < 1e-6
    assert np.abs(np.array(jump["p"]) - p).max() < 1e-6 * np.abs(p).max()
    assert np.abs(np.array(jump["L"]) - L).max() < 1e-6 * np.abs(L).max()
    assert [(ph["kind"], ph["first"], ph["last"]) for ph in jump["phases"]] == \
        [("STANCE", 1, 10), ("FLIGHT", 11, 29), ("STANCE", 30, 40)]
    t = np.arange(11, 30) / jump["fps"]
    assert jump["phases"][1]["parabola_cm"] == pytest.approx(
        100 * parabola_distance(t, centre[FLIGHT]), abs=1e-4)
    assert jump["phases"][1]["parabola_cm"] > 2.0          # straight lines are no parabola


def test_a_jump_keyed_on_the_root_control_is_fixed_onto_a_parabola_of_g(jump):
    keyed, fixed = np.array(jump["keyed"]), np.array(jump["fixed"])
    masses = jump["masses"]
    t = np.arange(11, 30) / jump["fps"]
    air = com(fixed, masses)[FLIGHT]
    print("jump: keyed", parabola_distance(t, com(keyed, masses)[FLIGHT]), "fixed",
          parabola_distance(t, air), "curvature", 2 * np.polyfit(t, air[:, 2], 2)[0],
          "stance", np.abs(fixed[STANCE] - keyed[STANCE]).max())
    assert parabola_distance(t, air) < 0.005
    assert 2 * np.polyfit(t, air[:, 2], 2)[0] == pytest.approx(-G, rel=0.02)
    assert np.abs(air - com(keyed, masses)[FLIGHT]).max() > 0.02       # the flight moved
    # take-off (frame 10) and landing (frame 30) where they were keyed, the stance untouched
    assert np.abs(fixed[STANCE] - keyed[STANCE]).max() < 1e-5
    # keyed on the root control only: flight moves the whole character (the stance needs
    # no balance)
    assert jump["fixed_bones"] == ["root"]
    assert jump["fixed_phases"][1]["parabola_cm"] < 0.5


def test_the_jump_fixed_with_its_height_kept_keeps_the_keyed_apex_on_a_parabola_of_g(blender):
    out = blender.call("physics_rigify.height_kept_jump")
    keyed, fixed = np.array(out["keyed"]), np.array(out["fixed"])
    fps = out["fps"]
    com_keyed, com_fixed = com(keyed, out["masses"]), com(fixed, out["masses"])
    apex = com_keyed[FLIGHT, 2].max()
    # the flight a parabola of g takes from the take-off's centre of mass (frame 10) up to
    # the keyed apex and down to the landing's (frame 30), in frames
    length = (np.sqrt(2 * (apex - com_keyed[9, 2]) / G) +
              np.sqrt(2 * (apex - com_keyed[29, 2]) / G)) * fps
    assert 12 < length < 19                       # shorter than the 20 frames keyed
    span = np.arange(11, int(np.floor(10 + length)) + 1)          # frames in the air
    air = com_fixed[span - 1]
    print("height kept: length", length, "apex", air[:, 2].max() - apex, "parabola",
          parabola_distance(span / fps, air))
    # sampled at frames: below the apex by at most g (1/48 s)^2 / 2
    assert abs(air[:, 2].max() - apex) < 0.005
    assert parabola_distance(span / fps, air) < 0.005
    assert 2 * np.polyfit(span / fps, air[:, 2], 2)[0] == pytest.approx(-G, rel=0.02)
    assert np.abs(fixed[:10] - keyed[:10]).max() < 1e-5           # take-off as keyed
    flights = [p for p in out["fixed_phases"] if p["kind"] == "FLIGHT"]
    assert len(flights) == 1 and flights[0]["first"] == 11


def test_the_fix_is_a_new_action_and_one_click_switches_back_to_the_keyed_one(jump):
    assert jump["playing"] == jump["keyed_name"] + "_PhysicsFix"
    assert jump["kept"]
    assert jump["switched"] == jump["keyed_name"]
    assert np.abs(np.array(jump["switched_bodies"]) - np.array(jump["keyed"])).max() < 1e-6
    assert jump["again"] == jump["playing"]


def test_a_flip_keyed_on_the_root_control_keeps_its_angular_momentum_once_fixed(blender):
    out = blender.call("physics_rigify.flip")
    keyed, fixed = np.array(out["keyed"]), np.array(out["fixed"])
    dt = 1.0 / out["fps"]
    assert [(ph["kind"], ph["first"], ph["last"]) for ph in out["phases"]] == \
        [("STANCE", 1, 10), ("FLIGHT", 11, 29), ("STANCE", 30, 40)]
    _, _, L_keyed = reference(keyed, out["masses"], out["inertia"], dt)
    _, _, L = reference(fixed, out["masses"], out["inertia"], dt)
    print("flip: keyed", momentum_change(L_keyed, FLIGHT, 10), "fixed",
          momentum_change(L, FLIGHT, 10), "parabola",
          parabola_distance(np.arange(11, 30) * dt, com(fixed, out["masses"])[FLIGHT]))
    assert momentum_change(L_keyed, FLIGHT, 10) > 0.5            # keyed: the spin speeds up
    assert momentum_change(L, FLIGHT, 10) < 0.02
    assert out["fixed_phases"][1]["momentum_percent"] < 2
    assert np.abs(fixed[STANCE] - keyed[STANCE]).max() < 1e-5    # lands as keyed
    assert parabola_distance(np.arange(11, 30) * dt, com(fixed, out["masses"])[FLIGHT]) < 0.005
    assert out["fixed_bones"] == ["root"]


def _outside(bodies, masses, sole):
    """How far the centre of mass is outside the rectangle of the soles' corners, per
    frame."""
    lo, hi = sole[:, :2].min(axis=0), sole[:, :2].max(axis=0)
    c = com(bodies, masses)[:, :2]
    return np.linalg.norm(np.maximum(0, np.maximum(lo - c, c - hi)), axis=1)


def test_a_lean_is_balanced_by_the_torso_control_the_ik_feet_held_where_keyed(blender):
    out = blender.call("physics_rigify.lean")
    keyed, fixed = np.array(out["keyed"]), np.array(out["fixed"])
    masses = out["masses"]
    corners = np.array(out["corners"])
    sole = corners[corners[:, 2] < 0.06]
    assert 0.08 < _outside(keyed, masses, sole).max() < 0.2       # about 10 cm out
    assert _outside(fixed, masses, sole).max() < 1e-4             # over the feet once fixed
    assert out["fixed_phases"][0]["outside_cm"] < 0.01
    feet = [i for i, n in enumerate(out["names"]) if n.startswith("foot")]
    print("lean: keyed", _outside(keyed, masses, sole).max(), "fixed",
          _outside(fixed, masses, sole).max(), "feet",
          np.abs(fixed[:, feet, :3, 3] - keyed[:, feet, :3, 3]).max())
    assert np.abs(fixed[:, feet, :3, 3] - keyed[:, feet, :3, 3]).max() < 0.002
    assert np.abs(fixed[:10] - keyed[:10]).max() < 1e-5          # balanced already: untouched
    # keyed on the torso and the IK feet (and the root, as keyed), as the issue asks of a
    # generated rig
    assert out["fixed_bones"] == ["foot_ik.L", "foot_ik.R", "root", "torso"]


def test_a_leg_in_fk_is_refused_with_the_property_to_set_and_the_scene_kept(blender):
    out = blender.call("physics_rigify.lean", True)
    assert "'thigh_parent.L'" in out["message"] and "'IK_FK'" in out["message"]
    assert "to 0" in out["message"] and "Balance off" in out["message"]
    assert out["playing"] == out["keyed_name"]
    assert not any(a.endswith("_PhysicsFix") for a in out["actions"])
    assert np.abs(np.array(out["after"]) - np.array(out["keyed"])).max() < 1e-6


def test_with_the_bakes_reduce_keys_the_fix_keys_the_root_within_its_tolerances(blender):
    out = blender.call("physics_rigify.reduced_keys")
    full, reduced = np.array(out["full"]), np.array(out["reduced"])
    print("reduced: keys", out["keys"], np.abs(reduced[:, :, :3, 3] - full[:, :, :3, 3]).max())
    assert max(out["keys"]) < 20                       # of 40 frames
    # the root within 1 mm and 0.5 degrees: a body 2 m from it within 1 + 18 mm
    assert np.abs(reduced[:, :, :3, 3] - full[:, :, :3, 3]).max() < 0.02


def test_an_armature_rigify_did_not_generate_whose_bones_follow_constraints_is_refused(
        blender):
    out = blender.call("physics_rigify.constrained_metarig")
    assert "follow constraints ('shin.L')" in out["message"]
    assert "Bake Action" in out["message"]
    assert out["report"] == ""
