"""test_bake.py's scenarios: bake to keyframes, the user's animation kept, the batch command
called in-process, a cancelled bake."""

from importlib import import_module

import bpy

from .helpers import box, joint, lig, transforms
from .simulation import door


def _snapshot(act):
    from bpy_extras import anim_utils
    bag = anim_utils.action_get_channelbag_for_slot(act, act.slots[0])
    return sorted((fc.data_path, fc.array_index, [list(k.co) for k in fc.keyframe_points])
                  for fc in bag.fcurves)


def baked_door_and_live_door():
    """The door (quaternion rotation) with a tip on a ball joint (ZXY): 60 frames live, then
    baked and played with the simulation off; the tip's F-curves."""
    scene = bpy.context.scene
    addon = lig().addon
    _, door_, _ = door()
    door_.rotation_mode = 'QUATERNION'
    tip = box("Tip", (0.3, 0.3, 0.3), (0, 2.4, 2))
    tip.rotation_mode = 'ZXY'
    joint("Ball", 'BALL', door_, tip, (0, 2.1, 2))
    scene.ligament_world.frame_end = 60
    live = {}
    for f in range(1, 61):
        scene.frame_set(f)
        live[f] = transforms([door_, tip])
    assert bpy.ops.ligament.bake(frame_start=1, frame_end=60) == {'FINISHED'}
    scene.ligament_world.enabled = False
    baked = {}
    for f in range(1, 61):
        scene.frame_set(f)
        baked[f] = transforms([door_, tip])
    fcurves = [(fc.data_path, fc.array_index, len(fc.keyframe_points),
                fc.keyframe_points[0].interpolation)
               for fc in addon.scene.animation.transform_fcurves(tip).values()]
    return {"live": live, "baked": baked, "fcurves": sorted(fcurves),
            "baked_flags": [door_.ligament_body.baked, tip.ligament_body.baked],
            "actions": [door_.animation_data.action.name, tip.animation_data.action.name]}


def user_animation_through_bake_and_clear():
    """A cube with the user's scale keys and a location key, baked for 30 frames and the
    bake cleared: its keys, action and slot before and after."""
    scene = bpy.context.scene
    box("Ground", (10, 10, 1), (0, 0, -0.5), kind='STATIC')
    cube = box("Cube", (1, 1, 1), (0, 0, 3))
    # The user's own animation on the body: scale keys and a location key at frame 1.
    cube.keyframe_insert("scale", frame=1)
    cube.scale = (1.5, 1.5, 1.5)
    cube.keyframe_insert("scale", frame=20)
    cube.scale = (1, 1, 1)
    cube.keyframe_insert("location", frame=1)
    action = cube.animation_data.action
    before = _snapshot(action)
    slot_before = cube.animation_data.action_slot.identifier
    scene.ligament_world.frame_end = 30
    bpy.ops.ligament.bake(frame_start=1, frame_end=30)
    baked_action = cube.animation_data.action
    baked = {"name": baked_action.name, "is_original": baked_action == action,
             "paths": sorted({p for p, i, k in _snapshot(baked_action)})}
    scene.frame_set(20)
    baked_scale = list(cube.scale)
    bpy.ops.ligament.clear_bake()
    after = _snapshot(cube.animation_data.action)
    return {"before": before, "after": after, "baked": baked, "baked_scale": baked_scale,
            "same_action": cube.animation_data.action == action,
            "slot": cube.animation_data.action_slot.identifier == slot_before,
            "bake_actions_left": [a.name for a in bpy.data.actions if "LigamentBake" in a.name],
            "baked_flag": cube.ligament_body.baked}


def batch_bake_in_process(src, dst):
    """The door saved to `src` and baked by the add-on's batch command (addon.cli.main) to
    `dst`: the exit code, the door's keys there, and the code for a start after the end."""
    scene = bpy.context.scene
    addon_name = lig().__name__
    door()
    scene.ligament_world.frame_end = 20
    bpy.ops.wm.save_as_mainfile(filepath=src)
    cli = import_module(addon_name + ".addon.cli")
    code = cli.main(["bake", src, "--end", "20", "--output", dst])
    bpy.ops.wm.open_mainfile(filepath=dst)
    door_ = bpy.data.objects["Door"]
    fcs = lig().addon.scene.animation.transform_fcurves(door_)
    return {"code": code, "keys": sorted(len(fc.keyframe_points) for fc in fcs.values()),
            "baked": door_.ligament_body.baked,
            "bad": cli.main(["bake", "--start", "10", "--end", "5", "--no-save"])}


def cancelled_bake():
    """The bake generator for frames 1-40 stopped after 20 (what Esc does in the modal
    operator): the door and the actions before and after."""
    scene = bpy.context.scene
    _, door_, _ = door()
    scene.frame_set(1)
    before = (transforms([door_]), sorted(a.name for a in bpy.data.actions))
    it = lig().addon.baking.bake.bake_iter(scene, 1, 40)
    progress = [next(it) for _ in range(20)]
    it.close()
    after = (transforms([door_]), sorted(a.name for a in bpy.data.actions))
    return {"before": before, "after": after, "progress": progress[-1],
            "baked": door_.ligament_body.baked, "anim": door_.animation_data is not None}
