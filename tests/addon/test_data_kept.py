"""Removing what Ligament made never loses the animator's work: after a bake, Remove Ragdoll and
Remove Body follow one rule (the baked keys stay as the object's animation, the action it had
before the bake is kept with a fake user and named in the report), and both survive a real
save and reopen. The scenarios:
tests/addon/scenarios/data_kept.py."""

import pytest


def test_remove_ragdoll_after_a_bake_keeps_the_bake_and_the_users_action_through_a_reopen(
        blender, tmp_path):
    path = str(tmp_path / "shot.blend")
    out = blender.call("data_kept.remove_ragdoll_after_a_bake", path)
    assert out["kept_keys"] is not None, "the animator's action was lost on reopen"
    assert out["kept_keys"] == out["user_keys"] and out["fake_user"] is True
    # the bake stays the armature's animation: the pose at frame 24 is the baked one
    assert out["active"] == out["bake_name"]
    assert out["pose"] == pytest.approx(out["baked_pose"], abs=1e-5)
    assert out["objects"] == ["Ground", "Rig"]
    assert "kept the bake" in blender.stdout and "'RigWave'" in blender.stdout


def test_remove_body_after_a_bake_keeps_the_bake_and_the_users_action_through_a_reopen(
        blender, tmp_path):
    path = str(tmp_path / "shot.blend")
    out = blender.call("data_kept.remove_body_after_a_bake", path)
    # the crate fell onto the ground in the bake (centre 0.25 m up) ...
    assert out["baked_z"] == pytest.approx(0.25, abs=0.02)
    # ... and after Remove Body it still plays that bake, as a removed ragdoll does
    assert out["enabled"] is False
    assert out["active"] == out["bake_name"]
    assert out["z"] == pytest.approx(out["baked_z"], abs=1e-5)
    assert out["kept_keys"] == out["user_keys"] and out["fake_user"] is True
    assert "kept the bake" in blender.stdout and "'CrateGlow'" in blender.stdout
