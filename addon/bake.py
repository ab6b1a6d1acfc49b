"""Bake the simulation to keyframes, and clear a bake.

The simulation runs through the same cache as live playback, so baked keys are exactly the
transforms the live run writes. Keys go into a copy of the object's action (other channels keep
playing), written in bulk with `keyframe_points.foreach_set`; the original action is kept on
`ligament_body.pre_bake_action` and `clear_bake` puts it back untouched.

`bake_iter` yields progress so the modal operator can show it and cancel between frames;
nothing in the scene changes until every frame is simulated, so a cancel leaves it as it was.
"""

import numpy as np

import bpy

from . import bridge, cache
from .bridge import SceneError


def _frames(frame_start, frame_end, step):
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
    return [o for o in bridge.scene_bodies(scene)
            if o.ligament_body.kind == 'DYNAMIC' and not o.ligament_body.baked]


def bake_iter(scene, frame_start=None, frame_end=None, step=1):
    """Generator: simulate, yield (done, total) per frame, then write the keys and return the
    baked objects (as StopIteration.value). Raises SceneError for bad input."""
    ws = scene.ligament_world
    frame_start = ws.frame_start if frame_start is None else frame_start
    frame_end = ws.frame_end if frame_end is None else frame_end
    frames = _frames(frame_start, frame_end, step)
    objects = bakeable(scene)
    if not objects:
        raise SceneError("Bake: no dynamic Ligament bodies to bake in scene "
                         f"'{scene.name}'; add bodies or clear the previous bake first")
    cache.check(scene)
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
    return objects


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
    if slot is not None:
        from bpy_extras import anim_utils
        return anim_utils.action_ensure_channelbag_for_slot(action, slot)
    return action  # Blender 4.2/4.3: fcurves live on the action


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


def write_keys(scene, objects, frames, poses, linear=True):
    frames_arr = np.asarray(frames, dtype=np.float64)
    for obj in objects:
        s = obj.ligament_body
        ad = obj.animation_data
        old = ad.action if ad is not None else None
        s.pre_bake_had_action = old is not None
        s.pre_bake_action = old
        s.pre_bake_slot = ad.action_slot.identifier if (
            old is not None and getattr(ad, "action_slot", None) is not None) else ""
        loc, rot = cache.current_values(obj)
        s.pre_bake_location = loc
        s.pre_bake_rotation = rot

        if old is not None:
            action = old.copy()
            action.name = f"{obj.name}_LigamentBake"
        else:
            action = bpy.data.actions.new(f"{obj.name}_LigamentBake")
        slot = _ensure_slot(obj, action)
        bag = _channelbag(action, slot)
        for fc in list(bag.fcurves):
            if fc.data_path in ("location", "rotation_euler", "rotation_quaternion",
                                "rotation_axis_angle"):
                bag.fcurves.remove(fc)

        values = np.array([[*p[obj.name][0], *p[obj.name][1]] for p in poses], dtype=np.float64)
        mode = obj.rotation_mode
        rot_path, rot_n = {'QUATERNION': ("rotation_quaternion", 4),
                           'AXIS_ANGLE': ("rotation_axis_angle", 4)}.get(
            mode, ("rotation_euler", 3))
        channels = [("location", i, values[:, i], "Object Transforms") for i in range(3)]
        channels += [(rot_path, i, values[:, 3 + i], "Object Transforms") for i in range(rot_n)]
        for path, index, vals, group in channels:
            fc = bag.fcurves.new(path, index=index)
            if hasattr(bag, "groups"):
                grp = bag.groups.get(group) or bag.groups.new(group)
                fc.group = grp
            kps = fc.keyframe_points
            kps.add(len(frames))
            co = np.empty(2 * len(frames), dtype=np.float64)
            co[0::2] = frames_arr
            co[1::2] = vals
            kps.foreach_set("co", co)
            interp = bpy.types.Keyframe.bl_rna.properties["interpolation"].enum_items[
                'LINEAR' if linear else 'BEZIER'].value
            kps.foreach_set("interpolation", np.full(len(frames), interp, dtype=np.int32))
            fc.update()
        s.baked = True
        obj.update_tag()
    cache.invalidate(scene)


def clear_bake(scene, objects=None):
    """Give baked objects back their previous action and transform. Returns the objects."""
    objects = [o for o in (objects if objects is not None else scene.objects)
               if o.ligament_body.baked]
    for obj in objects:
        s = obj.ligament_body
        ad = obj.animation_data
        baked_action = ad.action if ad is not None else None
        if ad is not None:
            if s.pre_bake_had_action and s.pre_bake_action is not None:
                ad.action = s.pre_bake_action
                slots = getattr(s.pre_bake_action, "slots", None)
                if slots is not None and s.pre_bake_slot:
                    slot = slots.get(s.pre_bake_slot)
                    if slot is not None:
                        ad.action_slot = slot
            else:
                ad.action = None
        s.pre_bake_action = None
        s.baked = False
        if baked_action is not None and baked_action.users == 0:
            bpy.data.actions.remove(baked_action)
        bridge.apply_pose(obj, tuple(s.pre_bake_location), tuple(s.pre_bake_rotation))
        obj.update_tag()
    cache.invalidate(scene)
    return objects
