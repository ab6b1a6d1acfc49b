"""Bake to keyframes: playback equals the live run, existing animation survives, batch.
The scenarios: tests/addon/scenarios/bake.py."""

import numpy as np


def test_baked_playback_equals_the_live_simulation(blender):
    out = blender.call("bake.baked_door_and_live_door")
    assert out["baked_flags"] == [True, True]
    assert "Ligament: baking 60/60 frames" in blender.stdout  # progress in background mode
    assert sorted(out["fcurves"]) == sorted(
        [["location", i, 60, "LINEAR"] for i in range(3)]
        + [["rotation_euler", i, 60, "LINEAR"] for i in range(3)])
    for f in out["live"]:
        live, baked = np.array(out["live"][f]), np.array(out["baked"][f])
        assert np.abs(live[:, :3, 3] - baked[:, :3, 3]).max() < 1e-4, f"frame {f}"
        assert np.abs(live[:, :3, :3] - baked[:, :3, :3]).max() < 1e-4, f"frame {f}"
    assert not np.allclose(out["live"]["1"], out["live"]["60"])


def test_existing_animation_survives_bake_and_clear_bake(blender):
    out = blender.call("bake.user_animation_through_bake_and_clear")
    assert not out["baked"]["is_original"]
    # The baked copy keeps the user's scale channel playing next to the baked transforms.
    assert out["baked"]["paths"] == ["location", "rotation_euler", "scale"]
    assert np.allclose(out["baked_scale"], 1.5)
    assert out["same_action"] and out["slot"]
    assert out["after"] == out["before"]
    assert out["bake_actions_left"] == []
    assert out["baked_flag"] is False


def test_batch_bake_command_bakes_and_saves(blender, tmp_path):
    src, dst = tmp_path / "scene.blend", tmp_path / "baked.blend"
    out = blender.call("bake.batch_bake_in_process", str(src), str(dst))
    assert out["code"] == 0
    assert out["keys"] == [20] * 6
    assert out["baked"] is True
    assert out["bad"] == 1
    assert "end frame 5 is before the start frame 10" in blender.stdout


def test_cancelled_bake_leaves_the_scene_as_it_was(blender):
    out = blender.call("bake.cancelled_bake")
    assert out["progress"] == [20, 40]
    assert out["after"] == out["before"]
    assert out["baked"] is False and out["anim"] is False
