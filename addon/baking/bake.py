"""Bake the simulation to keyframes, and clear a bake.

The simulation runs through the same cache as live playback, so baked keys are exactly the
transforms the live run writes. Keys go into a copy of the object's action (other channels keep
playing), written in bulk with `keyframe_points.foreach_set`; the original action is kept on
`ligament_body.pre_bake_action` and `clear_bake` puts it back untouched.

`bake_iter` yields progress so the modal operator can show it and cancel between frames;
nothing in the scene changes until every frame is simulated, so a cancel leaves it as it was.
"""

import json

import numpy as np

import bpy

from ..authoring import ragdoll
from ..world.hits import is_armed
from ..world.poses import apply_pose, clear_delta
from ..world.ragdolls import bake_skeleton, bone_path, bone_poses, is_body
from ..runtime import cache
from ..runtime.changes import drop_if_changed
from ..runtime.rest import current_values
from ..runtime.state import state
from ..scene import ragdolls
from ..scene.animation import quaternion_to_rotation, rotation_values
from ..scene.errors import SceneError
from ..scene.objects import scene_bodies


def bake_frames(frame_start, frame_end, step):
    if frame_end < frame_start:
        raise SceneError(f"Bake: the end frame {frame_end} is before the start frame "
                         f"{frame_start}; swap them")
    if step < 1:
        raise SceneError("Bake: the frame step must be at least 1")
    frames = list(range(frame_start, frame_end + 1, step))
    if frames[-1] != frame_end:
        frames.append(frame_end)
    return frames


def bakeable(scene):
    """Dynamic bodies and Animated ones that react to hits, to bake to their own keys (ragdoll
    bodies bake to their armature)."""
    return [o for o in scene_bodies(scene)
            if (o.ligament_body.kind == 'DYNAMIC' or is_armed(o)) and not o.ligament_body.baked
            and not is_body(o)]


def bakeable_ragdolls(scene):
    return [a for a in ragdolls.armatures(scene) if not a.ligament_ragdoll.baked]


def bake_iter(scene, frame_start=None, frame_end=None, step=1):
    """Generator: simulate, yield (done, total) per frame, then write the keys and return the
    baked objects (as StopIteration.value). Raises SceneError for bad input."""
    ws = scene.ligament_world
    frame_start = ws.frame_start if frame_start is None else frame_start
    frame_end = ws.frame_end if frame_end is None else frame_end
    frames = bake_frames(frame_start, frame_end, step)
    objects = bakeable(scene)
    rigs = bakeable_ragdolls(scene)
    if not objects and not rigs:
        raise SceneError("Bake: no dynamic Ligament bodies or ragdolls to bake in scene "
                         f"'{scene.name}'; add bodies or clear the previous bake first")
    drop_if_changed(scene)
    sim = cache.ensure(scene)
    if frame_start < sim.start:
        raise SceneError(f"Bake: start frame {frame_start} is before the simulation start "
                         f"{sim.start}; bake from frame {sim.start} or later")
    if frame_end > sim.end:
        raise SceneError(f"Bake: end frame {frame_end} is after the simulation end {sim.end}; "
                         "raise End in Scene > Ligament World")
    total = len(frames)
    poses = []
    for i, f in enumerate(frames):
        poses.append(sim.poses_at(scene, f))
        yield i + 1, total
    write_keys(scene, objects, frames, poses, linear=(step == 1))
    write_pose_keys(scene, sim, rigs, frames, poses, linear=(step == 1))
    state(scene).last_bake = sim
    return objects + rigs


def last_simulation(scene):
    """The simulation the scene's last bake wrote (its `skipped` and `broken` joints), or
    None."""
    return state(scene).last_bake


def bake(scene, frame_start=None, frame_end=None, step=1, progress=None):
    """Bake `scene` (Python API and batch). Returns the list of baked objects."""
    it = bake_iter(scene, frame_start, frame_end, step)
    while True:
        try:
            done, total = next(it)
        except StopIteration as stop:
            return stop.value
        if progress is not None:
            progress(done, total)


def _channelbag(action, slot):
    """The F-curve container of `action` for `slot`, made if missing."""
    if slot is None:
        return action  # Blender 4.2/4.3: fcurves live on the action
    from bpy_extras import anim_utils
    ensure = getattr(anim_utils, "action_ensure_channelbag_for_slot", None)
    if ensure is not None:          # Blender 5.0+
        return ensure(action, slot)
    # Blender 4.4/4.5 have slotted actions but not that helper: the same steps by hand
    # (one layer, one keyframe strip, the slot's channelbag in it).
    layer = action.layers[0] if len(action.layers) else action.layers.new("Layer")
    strip = layer.strips[0] if len(layer.strips) else layer.strips.new(type='KEYFRAME')
    return strip.channelbag(slot, ensure=True)


def _ensure_slot(obj, action):
    """Assign `action` to `obj` and return its slot (None before slotted actions)."""
    ad = obj.animation_data or obj.animation_data_create()
    ad.action = action
    if not hasattr(ad, "action_slot"):
        return None
    if ad.action_slot is None:
        slot = action.slots.new(id_type='OBJECT', name=obj.name)
        ad.action_slot = slot
    return ad.action_slot


def begin_bake(obj, state):
    """Give `obj` a bake action: a copy of its action (its other channels keep playing) or
    a new one. The old action is kept on `state` (a BakeState). Returns the channelbag."""
    ad = obj.animation_data
    old = ad.action if ad is not None else None
    state.pre_bake_had_action = old is not None
    state.pre_bake_action = old
    state.pre_bake_slot = ad.action_slot.identifier if (
        old is not None and getattr(ad, "action_slot", None) is not None) else ""
    if old is not None:
        action = old.copy()
        action.name = f"{obj.name}_LigamentBake"
    else:
        action = bpy.data.actions.new(f"{obj.name}_LigamentBake")
    return _channelbag(action, _ensure_slot(obj, action))


def end_bake(obj, state):
    """Give `obj` back the action it had before `begin_bake`; the bake action is removed
    when nothing else uses it."""
    ad = obj.animation_data
    baked_action = ad.action if ad is not None else None
    if ad is not None:
        if state.pre_bake_had_action and state.pre_bake_action is not None:
            ad.action = state.pre_bake_action
            slots = getattr(state.pre_bake_action, "slots", None)
            if slots is not None and state.pre_bake_slot:
                slot = slots.get(state.pre_bake_slot)
                if slot is not None:
                    ad.action_slot = slot
        else:
            ad.action = None
    state.pre_bake_action = None
    state.baked = False
    if baked_action is not None and baked_action.users == 0:
        bpy.data.actions.remove(baked_action)


def remove_fcurves(bag, paths):
    for fc in list(bag.fcurves):
        if fc.data_path in paths:
            bag.fcurves.remove(fc)


def write_fcurve(bag, path, index, frames, values, group, linear=True):
    """One F-curve of `values` at `frames`, in bulk."""
    fc = bag.fcurves.new(path, index=index)
    if hasattr(bag, "groups"):
        fc.group = bag.groups.get(group) or bag.groups.new(group)
    kps = fc.keyframe_points
    kps.add(len(frames))
    co = np.empty(2 * len(frames), dtype=np.float64)
    co[0::2] = frames
    co[1::2] = values
    kps.foreach_set("co", co)
    interp = bpy.types.Keyframe.bl_rna.properties["interpolation"].enum_items[
        'LINEAR' if linear else 'BEZIER'].value
    kps.foreach_set("interpolation", np.full(len(frames), interp, dtype=np.int32))
    fc.update()


ROTATION_PATHS = {'QUATERNION': ("rotation_quaternion", 4),
                  'AXIS_ANGLE': ("rotation_axis_angle", 4)}
TRANSFORM_PATHS = ("location", "rotation_euler", "rotation_quaternion", "rotation_axis_angle")


def write_transform(bag, prefix, mode, frames, values, group, linear):
    """Location and rotation (in rotation `mode`) keys: `values` (frames, 7) holds location
    then 4 rotation values per frame; `prefix` is "" for objects, 'pose.bones["x"].' for
    bones."""
    rot_path, rot_n = ROTATION_PATHS.get(mode, ("rotation_euler", 3))
    remove_fcurves(bag, {prefix + p for p in TRANSFORM_PATHS})
    for i in range(3):
        write_fcurve(bag, prefix + "location", i, frames, values[:, i], group, linear)
    for i in range(rot_n):
        write_fcurve(bag, prefix + rot_path, i, frames, values[:, 3 + i], group, linear)


def write_keys(scene, objects, frames, poses, linear=True):
    frames_arr = np.asarray(frames, dtype=np.float64)
    for obj in objects:
        s = obj.ligament_body
        loc, rot = current_values(obj)
        s.pre_bake_location = loc
        s.pre_bake_rotation = rot
        clear_delta(obj)   # a keyed body's simulated pose goes into its keys now
        bag = begin_bake(obj, s)
        values = np.array([[*p[obj.name][0], *p[obj.name][1]] for p in poses], dtype=np.float64)
        write_transform(bag, "", obj.rotation_mode, frames_arr, values, "Object Transforms",
                        linear)
        s.baked = True
        obj.update_tag()
    cache.invalidate(scene)


def write_pose_keys(scene, sim, rigs, frames, poses, linear=True):
    """Bake ragdolls to their armatures: location and rotation keys (in each pose bone's
    rotation mode) of the bones the ragdoll moves, on a copy of the armature's action."""
    runs = {run.name: run for run in sim.ragdolls}
    frames_arr = np.asarray(frames, dtype=np.float64)
    for arm in rigs:
        run = runs.get(arm.name)
        if run is None:
            continue
        skeleton = bake_skeleton(run)
        values, previous = {}, {}
        for f, p in zip(frames, poses):
            for bone, m in bone_poses(run, skeleton, f, p).items():
                loc, q, _ = m.decompose()
                mode = arm.pose.bones[bone].rotation_mode
                previous[bone] = quaternion_to_rotation(mode, q, previous.get(bone))
                values.setdefault(bone, []).append([*loc, *previous[bone]])
        rd = arm.ligament_ragdoll
        rd.pre_bake_pose = json.dumps({b: [*arm.pose.bones[b].location,
                                           *rotation_values(arm.pose.bones[b])]
                                       for b in values})
        bag = begin_bake(arm, rd)
        for bone, rows in values.items():
            write_transform(bag, bone_path(bone) + ".",
                            arm.pose.bones[bone].rotation_mode, frames_arr,
                            np.array(rows, dtype=np.float64), bone, linear)
        rd.baked = True
        ragdoll.sync_constraints(scene, arm)
        arm.update_tag()
    cache.invalidate(scene)


def clear_bake(scene, objects=None):
    """Give baked objects (and baked ragdolls' armatures) back their previous action and
    pose. Returns the objects."""
    candidates = objects if objects is not None else scene.objects
    cleared = [o for o in candidates if o.ligament_body.baked]
    for obj in cleared:
        s = obj.ligament_body
        end_bake(obj, s)
        apply_pose(obj, tuple(s.pre_bake_location), tuple(s.pre_bake_rotation))
        obj.update_tag()
    rigs = [o for o in candidates if o.type == 'ARMATURE' and o.ligament_ragdoll.baked]
    for arm in rigs:
        rd = arm.ligament_ragdoll
        end_bake(arm, rd)
        for bone, values in json.loads(rd.pre_bake_pose or "{}").items():
            pb = arm.pose.bones.get(bone)
            if pb is not None:
                apply_pose(pb, values[:3], values[3:])
        ragdoll.sync_constraints(scene, arm)
        arm.update_tag()
    cache.invalidate(scene)
    return cleared + rigs
