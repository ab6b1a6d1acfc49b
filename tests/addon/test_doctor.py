"""The scene check (addon/check/: Check Scene, its findings and the fixes they offer). The
scenarios: tests/addon/scenarios/doctor.py."""

import math

import pytest


def test_a_clean_scene_is_summed_up_in_one_line(blender):
    out = blender.call("doctor.clean_scene")
    assert out["findings"] == []
    assert out["summary"] == "Scene 'Scene': no problems found (4 bodies, 1 joint)"


def test_joints_without_their_bodies_and_settings_that_cannot_build_are_errors(blender):
    out = blender.call("doctor.joints_and_settings_that_cannot_build")
    assert sorted(tuple(o) for s, o, d in out["joint"]) == sorted(
        [("NoB",), ("Same", "Solo"), ("NotBody", "Prop")])
    assert all(s == "ERROR" for s, o, d in out["joint"] + out["limits"] + out["mesh"])
    assert sorted(tuple(o) for s, o, d in out["limits"]) == [("Backwards",), ("Slider",)]
    assert [o for s, o, d in out["mesh"]] == [["Rock"]]
    # the world cannot be built, so what needs it is said to be unchecked, not passed
    assert out["codes"] == ["joint-object", "limit-order", "mesh-shape", "not-measured"]
    assert out["severities"][-1] == "INFO"        # errors first
    assert out["summary"] == "Scene 'Scene': 6 errors, 1 info"


def test_each_problem_planted_in_a_scene_that_builds_is_found(blender):
    out = blender.call("doctor.planted_problems")
    def one(code):
        assert len(out[code]) == 1, out.get(code)
        return out[code][0]
    assert set(out) == {"overlap", "anchor", "mass-ratio", "small", "thin", "shape-fit",
                        "non-uniform-scale", "negative-scale", "falling", "animated-limit"}
    sev, objs, data = one("overlap")
    assert sorted(objs) == ["A", "B"] and abs(data["depth"] - 0.1) < 0.01
    sev, objs, data = one("anchor")
    # 3 m from the post's centre, whose bounds reach 0.1 m towards it (the arm's 0.05)
    assert objs[0] == "FarAnchor" and data["distance"] == pytest.approx(2.9, abs=1e-6)
    sev, objs, data = one("mass-ratio")
    assert objs == ["Heavy", "Light"] and data["ratio"] == pytest.approx(500)
    assert one("small")[1] == ["Crumb"]
    assert one("thin")[1] == ["Sheet"]
    sev, objs, data = one("shape-fit")
    # a 0.5 m sphere on a 0.25 m tall object sticks out 12.5 cm above and below
    assert objs == ["Squashed"] and data["gap"] == pytest.approx(0.125)
    assert one("non-uniform-scale")[1] == ["Beam"]
    # (a mirrored dynamic body flips at the first simulated frame: an error)
    assert one("negative-scale")[:2] == ["ERROR", ["Mirrored"]]
    sev, objs, data = one("falling")
    assert objs == ["Floater"]
    # free fall over the 47 frames at 24 fps: g t^2 / 2
    assert data["drop"] == pytest.approx(0.5 * 9.81 * (47 / 24) ** 2, rel=1e-6)
    sev, objs, data = one("animated-limit")
    assert objs == ["Stiff"] and data["frame"] == 20
    assert data["angle"] == pytest.approx(math.pi / 2, abs=0.01)
    assert data["limit"] == pytest.approx(math.radians(30), abs=1e-6)
    assert all(f[0] == "WARNING" for code, fs in out.items() for f in fs
               if code != "negative-scale")


def test_ragdoll_pose_past_its_joint_limits_is_found(blender):
    out = blender.call("doctor.ragdoll_pose_past_its_limits")
    assert "animated-limit" not in out["clean"]
    assert len(out["limit"]) == 1
    sev, objs, data = out["limit"][0]
    assert "forearm" in objs[0].lower() and objs[1] == out["arm"]
    assert data["frame"] in (10, 20)
    # the elbow turned by the whole 80 degrees keyed, past the limit of its joint
    assert abs(data["angle"]) == pytest.approx(math.radians(80), abs=math.radians(2))
    assert data["limit"] in out["limits"][objs[0]]
    assert abs(data["angle"]) > abs(data["limit"]) + math.radians(30)


def test_fix_buttons_fix_their_findings_and_the_panel_lists_them(blender):
    out = blender.call("doctor.fix_buttons")
    import numpy as np
    assert out["before"] == ["limit-order", "mesh-shape", "negative-scale", "non-uniform-scale",
                             "not-measured", "shape-fit"]
    assert out["line"] == "Scene 'Scene': 3 errors, 2 warnings, 1 info"
    drawn = [tuple(d) for d in out["drawn"]]
    assert drawn[0][0] == "ligament.check_scene"
    assert ("ligament.swap_limits", {"joint": "Backwards", "which": "ANGULAR"}) in drawn
    assert ("ligament.set_body_shape", {"objects": "Rock", "shape": "CONVEX_HULL"}) in drawn
    assert ("ligament.apply_body_scale", {"objects": "Squashed"}) in drawn
    assert ("ligament.select_objects", {"objects": "Rock"}) in drawn
    # each fix takes its own finding off the list
    assert "limit-order" not in out["fixed"]["limit-order"]
    assert "mesh-shape" not in out["fixed"]["mesh-shape"]
    assert out["shape"] == "CONVEX_HULL"
    assert out["limits"] == pytest.approx([-0.5, 0.5])
    assert sorted(out["fixed"]) == ["limit-order", "mesh-shape", "negative-scale",
                                    "non-uniform-scale", "shape-fit"]
    assert "non-uniform-scale" not in out["fixed"]["non-uniform-scale"]
    assert "shape-fit" not in out["fixed"]["shape-fit"]
    assert out["after"] == []
    assert out["scale"] == [1, 1, 1]
    assert np.allclose(out["dims"][0], out["dims"][1])
    assert np.allclose(out["tag"][0], out["tag"][1], atol=1e-6)
    # the mirrored box: scale applied, its mesh where it was, and it no longer flips
    before, after, simulated = (np.array(m[0]) for m in out["mirrored"])
    assert out["mirrored_scale"] == [1, 1, 1]
    assert np.allclose(before[:3, 3], after[:3, 3])
    assert np.allclose(after, simulated, atol=1e-3)


def test_one_sided_mesh_turned_away_from_a_body_above_it_is_found(blender):
    # Three floor planes under three crates: one-sided and turned over (its normal points
    # down, away from the crate: the crate falls through), one-sided facing up, and two-sided
    # turned over (both hold the crate). Only the first is reported.
    out = blender.call("doctor.one_sided_floors")
    assert [(s, o) for s, o, d in out["found"]] == [("WARNING", ["Away", "Crate0"])]
    # the crate's centre is 1.5 m above the plane
    assert out["found"][0][2]["distance"] == pytest.approx(1.5, abs=1e-6)
    assert out["fix"] == "ligament.make_two_sided"
    assert out["one_sided"] is False and "one-sided-mesh" not in out["after"]


def test_touching_bodies_over_100_to_1_in_mass_are_found(blender):
    # A 1000 kg box on a 1 kg box, and a 50 kg box on another 1 kg box: only the first pair,
    # touching and not jointed, is reported, heavy first.
    out = blender.call("doctor.touching_mass_ratios")
    assert [(s, o) for s, o, d in out["found"]] == [("WARNING", ["Heavy", "Light"])]
    assert out["found"][0][2]["ratio"] == pytest.approx(1000.0)
    assert "'Heavy' (1000 kg)" in out["messages"][0] and "'Light' (1 kg)" in out["messages"][0]
