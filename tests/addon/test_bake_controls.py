"""Bake onto the controls: a metarig ragdoll baked onto the rig Rigify generated from it (the
deform bones follow the simulation), onto a plain armature through pairs picked by hand, and
the pairs kept in a ragdoll preset. The scenario:
tests/addon/scenarios/bake_controls.py."""

import pytest


@pytest.fixture(scope="module")
def baked(blender):
    return blender.call("bake_controls.baked_onto_controls")


def test_rigify_rig_gets_fk_controls_by_default_and_its_deform_bones_follow(baked):
    out = baked
    print("rigify worst", out["rigify"], "custom", out["custom"], "reduced", out["reduced"],
          "keys", out["keys"])
    assert out["error"] is None
    pairs = {tuple(p) for p in out["rigify_pairs"]}
    for p in [("upper_arm.L", "upper_arm_fk.L"), ("forearm.L", "forearm_fk.L"),
              ("thigh.R", "thigh_fk.R"), ("shin.R", "shin_fk.R"), ("spine.006", "head")]:
        assert p in pairs
    assert out["fk"] and all(v == 1.0 for v in out["fk"].values())
    assert out["moved"] > 0.3, "the ragdoll fell"
    assert out["rigify_keys"] > 0 and out["cleared"]
    mm, deg, where = out["rigify"]
    assert mm < 1.0 and deg < 0.5, out["rigify"]


def test_custom_pairs_bake_onto_a_plain_armature_with_other_names_and_roll(baked):
    mm, deg, where = baked["custom"]
    assert mm < 1.0 and deg < 0.5, baked["custom"]
    written, full = baked["keys"]
    assert written < full
    mm, deg = baked["reduced"]
    assert mm <= 1.0 + 1e-3 and deg <= 0.5 + 1e-3, baked["reduced"]


def test_control_pairs_survive_a_preset_save_and_apply(baked):
    assert baked["saved"] and baked["applied"] == baked["saved"]
