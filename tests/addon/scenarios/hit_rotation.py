"""test_hit_axis_angle.py's scenarios: a keyed board with a Hit Impulse, in each rotation
mode, hit by a block dropped onto it (the set-up scenarios/hit_rotation_modes.py plays too)."""

import sys

import bpy
from mathutils import Euler

from .helpers import box, lig

ROTATION_PATHS = {'QUATERNION': "rotation_quaternion", 'AXIS_ANGLE': "rotation_axis_angle"}


def board_and_block(mode, key_rotation=True):
    """The ground, a board keyed from x 0 to 0 (so it moves) and turning 0.3 rad about Z over
    frames 1-30 (or, with `key_rotation` False, standing turned 0.3 rad), and a 2 kg block
    2 m above it."""
    scene = bpy.context.scene
    ws = scene.ligament_world
    ws.frame_start, ws.frame_end = 1, 30
    box("Ground", (30, 30, 1), (0, 0, -0.5), kind='STATIC')
    board = box("Board", (2, 2, 0.25), (0, 0, 0.375), kind='ANIMATED', hit_impulse=5.0)
    board.rotation_mode = mode
    if mode == 'AXIS_ANGLE':   # Blender's default axis is Y: the turn is about Z throughout
        board.rotation_axis_angle = (0, 0, 0, 1)
    board.keyframe_insert("location", frame=1)
    board.location.y = 0.01
    board.keyframe_insert("location", frame=30)
    path = ROTATION_PATHS.get(mode, "rotation_euler")
    if key_rotation:
        board.keyframe_insert(path, frame=1)
    if mode == 'QUATERNION':
        board.rotation_quaternion = Euler((0, 0, 0.3)).to_quaternion()
    elif mode == 'AXIS_ANGLE':
        board.rotation_axis_angle = (0.3, 0, 0, 1)
    else:
        board.rotation_euler = (0, 0, 0.3)
    if key_rotation:
        board.keyframe_insert(path, frame=30)
    block = box("Block", (0.25, 0.25, 0.25), (0, 0, 0.5 + 0.125 + 2.0), mass=2.0)
    return board, block


def _fcurves(obj):
    """Every F-curve of the object's action for its slot, muted or not."""
    ad = obj.animation_data
    if ad is None or ad.action is None:
        return []
    if hasattr(ad, "action_slot"):  # Blender 4.4+: slotted actions
        from bpy_extras import anim_utils
        bag = anim_utils.action_get_channelbag_for_slot(ad.action, ad.action_slot)
        return list(bag.fcurves) if bag is not None else []
    return list(ad.action.fcurves)


def _rotation_curves(obj):
    fcurves = _fcurves(obj)
    return [[fc.array_index, fc.mute] for fc in fcurves if fc.data_path.startswith("rotation")]


def play(mode, key_rotation=True):
    """Frames 1-30 played: the board's and the block's heights and the board's world rotation
    (quaternion) each frame, the hits, the scene check's findings; then frame 1 again and a
    reset: the board's rotation channels, curves and properties as the user left them."""
    scene = bpy.context.scene
    board, block = board_and_block(mode, key_rotation)
    own = list(board.rotation_axis_angle) if mode == 'AXIS_ANGLE' else None
    bpy.ops.ligament.reset()
    cache = lig().addon.runtime.cache
    board_z, block_z, board_q = [], [], []
    curves_while_off = None
    for f in range(1, 31):
        scene.frame_set(f)
        board_z.append(board.matrix_world.translation.z)
        block_z.append(block.matrix_world.translation.z)
        board_q.append(list(board.matrix_world.to_quaternion()))
        if f == 30:
            curves_while_off = _rotation_curves(board)
    sim = cache.get(scene)
    doctor = sys.modules[lig().__name__ + ".addon.check.doctor"]
    out = {"error": cache.error(scene), "board_z": board_z, "block_z": block_z,
           "board_q": board_q, "hits": sim.hit_list() if sim is not None else None,
           "findings": [f.line() for f in doctor.check(scene)],
           "curves_while_off": curves_while_off}
    scene.frame_set(1)
    bpy.ops.ligament.reset()
    scene.frame_set(15)
    out["after"] = {
        "curves": _rotation_curves(board),
        "props": sorted(k for k in board.keys() if k.startswith("ligament")),
        "axis_angle": list(board.rotation_axis_angle),
        "own_axis_angle": own,
        "keys_at_15": [fc.evaluate(15) for fc in _fcurves(board)
                       if fc.data_path == "rotation_axis_angle"],
        "sim_delta": board.ligament_body.sim_delta,
    }
    return out


def play_with_rotation_on_a_driver():
    """An Axis Angle board whose angle a driver plays (frame / 100): the scene check's
    findings and the board's hits."""
    scene = bpy.context.scene
    board, block = board_and_block('AXIS_ANGLE', key_rotation=False)
    d = board.driver_add("rotation_axis_angle", 0).driver
    d.expression = "frame / 100"
    bpy.ops.ligament.reset()
    for f in range(1, 31):
        scene.frame_set(f)
    cache = lig().addon.runtime.cache
    sim = cache.get(scene)
    doctor = sys.modules[lig().__name__ + ".addon.check.doctor"]
    return {"hits": sim.hit_list(), "findings": [f.line() for f in doctor.check(scene)],
            "angle": board.rotation_axis_angle[0]}


def keyed_dynamic(mode):
    """A Dynamic box with transform keys in `mode` (held 2 m up, turning 0.3 rad about Z over
    frames 1-30): the keys give its start, the simulation drops it. Its world matrices for
    frames 1-30, the error, and its rotation curves' mute flags at the end after a reset."""
    scene = bpy.context.scene
    ws = scene.ligament_world
    ws.frame_start, ws.frame_end = 1, 30
    box("Ground", (30, 30, 1), (0, 0, -0.5), kind='STATIC')
    crate = box("Crate", (0.5, 0.5, 0.5), (0, 0, 2.0), mass=3.0)
    crate.rotation_mode = mode
    if mode == 'AXIS_ANGLE':
        crate.rotation_axis_angle = (0, 0, 0, 1)
    path = ROTATION_PATHS.get(mode, "rotation_euler")
    crate.keyframe_insert("location", frame=1)
    crate.keyframe_insert(path, frame=1)
    if mode == 'AXIS_ANGLE':
        crate.rotation_axis_angle = (0.3, 0, 0, 1)
    else:
        crate.rotation_euler = (0, 0, 0.3)
    crate.keyframe_insert(path, frame=30)
    bpy.ops.ligament.reset()
    matrices = []
    for f in range(1, 31):
        scene.frame_set(f)
        matrices.append([list(r) for r in crate.matrix_world])
    error = lig().addon.runtime.cache.error(scene)
    scene.frame_set(1)
    bpy.ops.ligament.reset()
    return {"error": error, "matrices": matrices, "curves": _rotation_curves(crate),
            "props": sorted(k for k in crate.keys() if k.startswith("ligament"))}


def bake_after_play(mode):
    """The board's world matrices played live over frames 1-30, then baked and played from
    its keys; its rotation curves' mute flags after the bake."""
    scene = bpy.context.scene
    board, _ = board_and_block(mode)
    bpy.ops.ligament.reset()
    live = []
    for f in range(1, 31):
        scene.frame_set(f)
        live.append([list(r) for r in board.matrix_world])
    scene.frame_set(1)
    bpy.ops.ligament.bake()
    baked = []
    for f in range(1, 31):
        scene.frame_set(f)
        baked.append([list(r) for r in board.matrix_world])
    return {"live": live, "baked": baked, "curves": _rotation_curves(board),
            "props": sorted(k for k in board.keys() if k.startswith("ligament_own")
                            or k.startswith("ligament_muted"))}


def saved_while_off_its_keys(path, save_at=20, frames=30):
    """The Axis Angle board played to `frames`, the file saved (a copy, at `path`) at frame
    `save_at`, after the hit has taken the board off its keys: the board's matrices with and
    without the save, what the session shows right after it, and the board of the saved file
    (appended from it: no load handler runs on it)."""
    def run(save):
        bpy.ops.wm.read_homefile(use_empty=True)
        scene = bpy.context.scene
        board, _block = board_and_block('AXIS_ANGLE')
        out, at_save = [], {}
        for f in range(1, frames + 1):
            scene.frame_set(f)
            if save and f == save_at:
                held = "ligament_own_axis_angle" in board
                shown = list(board.rotation_axis_angle)
                bpy.ops.wm.save_as_mainfile(filepath=path, copy=True)
                at_save = {"held_before": held,
                           "held_after": "ligament_own_axis_angle" in board,
                           "shown_before": shown, "shown_after": list(board.rotation_axis_angle),
                           "curves_after": _rotation_curves(board)}
            out.append([list(r) for r in board.matrix_world])
        return out, at_save
    plain, _ = run(False)
    saved_run, at_save = run(True)
    with bpy.data.libraries.load(path, link=False) as (_src, dst):
        dst.objects = ["Board"]
    board = dst.objects[0]
    return {"plain": plain, "saved_run": saved_run, **at_save,
            "file_curves": _rotation_curves(board),
            "file_props": sorted(k for k in board.keys() if k.startswith("ligament_")),
            "file_hits": board.ligament_body.hit_impulse}
