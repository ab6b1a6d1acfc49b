"""Bake to keyframes: playback equals the live run, existing animation survives, batch."""

import numpy as np

from test_simulation import DOOR


def test_baked_playback_equals_the_live_simulation(blender):
    out = blender.run(DOOR, """
        door.rotation_mode = 'QUATERNION'
        tip = box("Tip", (0.3, 0.3, 0.3), (0, 2.4, 2))
        tip.rotation_mode = 'ZXY'
        joint("Ball", 'BALL', door, tip, (0, 2.1, 2))
        scene.ligament_world.frame_end = 60
        live = {}
        for f in range(1, 61):
            scene.frame_set(f)
            live[f] = transforms([door, tip])
        assert bpy.ops.ligament.bake(frame_start=1, frame_end=60) == {'FINISHED'}
        scene.ligament_world.enabled = False
        baked = {}
        for f in range(1, 61):
            scene.frame_set(f)
            baked[f] = transforms([door, tip])
        fcurves = [(fc.data_path, fc.array_index, len(fc.keyframe_points), fc.keyframe_points[0].interpolation)
                   for fc in lig.addon.scene.animation.transform_fcurves(tip).values()]
        result({"live": live, "baked": baked, "fcurves": sorted(fcurves),
                "baked_flags": [door.ligament_body.baked, tip.ligament_body.baked],
                "actions": [door.animation_data.action.name, tip.animation_data.action.name]})
    """)
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
    out = blender.run("""
        box("Ground", (10, 10, 1), (0, 0, -0.5), kind='STATIC')
        cube = box("Cube", (1, 1, 1), (0, 0, 3))
        # The user's own animation on the body: scale keys and a location key at frame 1.
        cube.keyframe_insert("scale", frame=1)
        cube.scale = (1.5, 1.5, 1.5)
        cube.keyframe_insert("scale", frame=20)
        cube.scale = (1, 1, 1)
        cube.keyframe_insert("location", frame=1)
        action = cube.animation_data.action
        def snapshot(act):
            from bpy_extras import anim_utils
            bag = anim_utils.action_get_channelbag_for_slot(act, act.slots[0])
            return sorted((fc.data_path, fc.array_index, [list(k.co) for k in fc.keyframe_points])
                          for fc in bag.fcurves)
        before = snapshot(action)
        slot_before = cube.animation_data.action_slot.identifier
        loc_before = list(cube.location)
        scene.ligament_world.frame_end = 30
        bpy.ops.ligament.bake(frame_start=1, frame_end=30)
        baked_action = cube.animation_data.action
        baked = {"name": baked_action.name, "is_original": baked_action == action,
                 "paths": sorted({p for p, i, k in snapshot(baked_action)})}
        scene.frame_set(20)
        baked_scale = list(cube.scale)
        bpy.ops.ligament.clear_bake()
        after = snapshot(cube.animation_data.action)
        result({"before": before, "after": after, "baked": baked, "baked_scale": baked_scale,
                "same_action": cube.animation_data.action == action,
                "slot": cube.animation_data.action_slot.identifier == slot_before,
                "bake_actions_left": [a.name for a in bpy.data.actions if "LigamentBake" in a.name],
                "baked_flag": cube.ligament_body.baked})
    """)
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
    out = blender.run(DOOR, f"""
        scene.ligament_world.frame_end = 20
        bpy.ops.wm.save_as_mainfile(filepath={str(src)!r})
        from importlib import import_module
        cli = import_module(lig.__name__ + ".addon.cli")
        code = cli.main(["bake", {str(src)!r}, "--end", "20", "--output", {str(dst)!r}])
        bpy.ops.wm.open_mainfile(filepath={str(dst)!r})
        door = bpy.data.objects["Door"]
        fcs = lig.addon.scene.animation.transform_fcurves(door)
        result({{"code": code, "keys": sorted(len(fc.keyframe_points) for fc in fcs.values()),
                 "baked": door.ligament_body.baked,
                 "bad": cli.main(["bake", "--start", "10", "--end", "5", "--no-save"])}})
    """)
    assert out["code"] == 0
    assert out["keys"] == [20] * 6
    assert out["baked"] is True
    assert out["bad"] == 1
    assert "end frame 5 is before the start frame 10" in blender.stdout


def test_cancelled_bake_leaves_the_scene_as_it_was(blender):
    out = blender.run(DOOR, """
        scene.frame_set(1)
        before = (transforms([door]), sorted(a.name for a in bpy.data.actions))
        # What Esc does in the modal operator: stop the bake generator half way.
        it = lig.addon.baking.bake.bake_iter(scene, 1, 40)
        progress = [next(it) for _ in range(20)]
        it.close()
        after = (transforms([door]), sorted(a.name for a in bpy.data.actions))
        result({"before": before, "after": after, "progress": progress[-1],
                "baked": door.ligament_body.baked, "anim": door.animation_data is not None})
    """)
    assert out["progress"] == [20, 40]
    assert out["after"] == out["before"]
    assert out["baked"] is False and out["anim"] is False
