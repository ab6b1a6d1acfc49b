"""Bake the simulation to keyframes, and clear a bake.

The simulation runs through the same cache as live playback, so baked keys are exactly the
transforms the live run writes. Keys go into a copy of the object's action (other channels keep
playing), written in bulk with `keyframe_points.foreach_set`; the original action is kept on
`ligament_body.pre_bake_action` and `clear_bake` puts it back untouched.

`bake_iter` yields progress so the modal operator can show it and cancel between frames;
nothing in the scene changes until every frame is simulated, so a cancel leaves it as it was.

With a tolerance (location in metres, rotation in radians) only the keys the F-curves need to
stay within it of the simulated motion at every baked frame are written (`reduce`);
without one, a key on every baked frame; a ragdoll's bones are also held within the
location tolerance in world space, down each chain (`chains`). `last_key_count` tells how
many were written of how many a key on every frame makes.
"""

import json
import math

import numpy as np

import bpy
from mathutils import Matrix, Vector

from ..authoring import controls, ragdoll
from ..world.hits import is_armed
from ..world.poses import apply_pose, clear_delta
from ..world.ragdolls import Skeleton, bone_path, bone_poses, is_body
from ..runtime import cache
from ..runtime.changes import drop_if_changed
from ..runtime.rest import current_values
from ..runtime.state import state
from ..scene import ragdolls
from ..scene.animation import matrix_world_at, quaternion_to_rotation, rotation_values
from ..scene.errors import SceneError
from ..scene.frames import keep_frame
from ..scene.objects import scene_bodies
from . import chains
from . import controls as retarget
from . import reduce


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


def bake_iter(scene, frame_start=None, frame_end=None, step=1, tolerance=None):
    """Generator: simulate, yield (done, total) per frame, then write the keys and return the
    baked objects (as StopIteration.value). `tolerance`: (metres, radians) to reduce the keys
    to, or None for a key on every baked frame. Raises SceneError for bad input."""
    if tolerance is not None and (len(tolerance) != 2 or not all(
            math.isfinite(t) and t >= 0.0 for t in tolerance)):
        raise SceneError(f"Bake: the tolerance {tuple(tolerance)} is not a location (m) and a "
                         "rotation (radians), numbers neither negative")
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
    objects = [o for o in objects if o.name not in sim.skipped_bodies]   # not simulated
    if frame_start < sim.start:
        raise SceneError(f"Bake: start frame {frame_start} is before the simulation start "
                         f"{sim.start}; bake from frame {sim.start} or later")
    if frame_end > sim.end:
        raise SceneError(f"Bake: end frame {frame_end} is after the simulation end {sim.end}; "
                         "raise End in Scene > Ligament World")
    total = len(frames)
    poses = []
    for i, f in enumerate(frames):
        try:
            poses.append(sim.poses_at(scene, f))
        except SceneError as exc:    # a blow-up: the panels show it as the scene's error
            state(scene).fail(str(exc))
            raise
        yield i + 1, total
    count = write_keys(scene, objects, frames, poses, step == 1, tolerance)
    count += write_pose_keys(scene, sim, rigs, frames, poses, step == 1, tolerance)
    state(scene).last_bake = sim
    state(scene).last_keys = count
    return objects + rigs


class KeyCount:
    """Keys a bake wrote (`written`) and how many a key on every baked frame of the same
    channels makes (`full`)."""
    __slots__ = ("written", "full")

    def __init__(self, written=0, full=0):
        self.written, self.full = written, full

    def __iadd__(self, other):
        self.written += other.written
        self.full += other.full
        return self

    def line(self):
        """'1234 keys' or, when reduced, '1234 of 9876 keys (8.0x fewer)'."""
        if self.written == self.full:
            return f"{self.written} keys"
        ratio = self.full / max(self.written, 1)
        return f"{self.written} of {self.full} keys ({ratio:.1f}x fewer)"


def last_simulation(scene):
    """The simulation the scene's last bake wrote (its `skipped` and `broken` joints), or
    None."""
    return state(scene).last_bake


def last_key_count(scene):
    """The KeyCount of the scene's last bake, or None."""
    return state(scene).last_keys


def bake(scene, frame_start=None, frame_end=None, step=1, progress=None, tolerance=None):
    """Bake `scene` (Python API and batch). Returns the list of baked objects. `tolerance`:
    (metres, radians) to reduce the keys to (see `bake_iter`)."""
    it = bake_iter(scene, frame_start, frame_end, step, tolerance)
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


def _enum_value(struct, prop, item):
    return struct.bl_rna.properties[prop].enum_items[item].value


def write_fcurve(bag, path, index, frames, values, group, linear=True, handles=None):
    """One F-curve of `values` at `frames`, in bulk. `handles`: (left, right) handle points
    (n, 2) of Bezier keys whose handles are FREE (kept as given). Returns it."""
    fc = bag.fcurves.new(path, index=index)
    if hasattr(bag, "groups"):
        fc.group = bag.groups.get(group) or bag.groups.new(group)
    kps = fc.keyframe_points
    kps.add(len(frames))
    co = np.empty(2 * len(frames), dtype=np.float64)
    co[0::2] = frames
    co[1::2] = values
    kps.foreach_set("co", co)
    if handles is not None:
        linear = False
        free = _enum_value(bpy.types.Keyframe, "handle_left_type", 'FREE')
        for name, points in zip(("handle_left", "handle_right"), handles):
            kps.foreach_set(name + "_type", np.full(len(frames), free, dtype=np.int32))
            kps.foreach_set(name, np.ascontiguousarray(points, dtype=np.float64).ravel())
    interp = _enum_value(bpy.types.Keyframe, "interpolation", 'LINEAR' if linear else 'BEZIER')
    kps.foreach_set("interpolation", np.full(len(frames), interp, dtype=np.int32))
    fc.update()
    return fc


ROTATION_PATHS = {'QUATERNION': ("rotation_quaternion", 4),
                  'AXIS_ANGLE': ("rotation_axis_angle", 4)}
TRANSFORM_PATHS = ("location", "rotation_euler", "rotation_quaternion", "rotation_axis_angle")


def write_transform(bag, prefix, mode, frames, values, group, linear, tolerance=None,
                    extra=(), owner=None, hold=(False, False)):
    """Location and rotation (in rotation `mode`) keys: `values` (frames, 7) holds location
    then 4 rotation values per frame; `prefix` is "" for objects, 'pose.bones["x"].' for
    bones. With a `tolerance` (metres, radians), reduced keys (`write_reduced`), with a key
    on the frames of index `extra` too. The keys outside the baked frames stay
    (`keys_outside`); `hold` (before, after): the object plays keys before or after the
    baked frames (`keyed_outside`), so a channel that had none keeps `owner`'s (the object's
    or pose bone's) unkeyed value there. Returns the KeyCount."""
    rot_path, rot_n = ROTATION_PATHS.get(mode, ("rotation_euler", 3))
    paths = {prefix + p for p in TRANSFORM_PATHS}
    kept = keys_outside(bag, paths, frames[0], frames[-1])
    had = {(fc.data_path, fc.array_index) for fc in bag.fcurves if fc.data_path in paths}
    still = {}
    if any(hold) and owner is not None:   # the unkeyed channels' values outside the bake
        for path, n in (("location", 3), (rot_path, rot_n)):
            for i in range(n):
                if (prefix + path, i) not in had:
                    still[prefix + path, i] = getattr(owner, path)[i]
    remove_fcurves(bag, paths)
    count = KeyCount()
    for path, channels, error, errors, tol in (
            ("location", values[:, :3], reduce.location_error, reduce.location_errors,
             None if tolerance is None else tolerance[0]),
            (rot_path, values[:, 3:3 + rot_n], reduce.rotation_error(mode),
             reduce.rotation_errors(mode), None if tolerance is None else tolerance[1])):
        full = channels.shape[0] * channels.shape[1]
        if tol is None:
            for i in range(channels.shape[1]):
                write_fcurve(bag, prefix + path, i, frames, channels[:, i], group, linear)
            count += KeyCount(full, full)
            continue
        keys = write_reduced(bag, prefix + path, frames, channels, group, error, errors, tol,
                             extra)
        count += KeyCount(len(keys) * channels.shape[1], full)
    restore_keys(bag, kept, group)
    if still:
        hold_outside(bag, still, frames, hold)
    return count


def keyed_outside(bag, first, last):
    """(before, after): whether the F-curves of `bag` have keys before frame `first`, after
    frame `last`."""
    before = after = False
    for fc in bag.fcurves:
        kps = fc.keyframe_points
        if len(kps):
            before = before or kps[0].co[0] < first
            after = after or kps[-1].co[0] > last
    return before, after


def hold_outside(bag, still, frames, hold):
    """Keys that hold the channels of `still` ({(path, index): value}) at their unkeyed value
    on the frame before the baked frames and the one after, on the sides `hold` (before,
    after) where the object plays keys of its own: there it plays its animation, not the
    bake's first or last pose."""
    before, after = hold
    for (path, index), value in still.items():
        fc = bag.fcurves.find(path, index=index)
        if fc is None:
            continue
        for side, frame in ((before, frames[0] - 1), (after, frames[-1] + 1)):
            if side:
                k = fc.keyframe_points.insert(float(frame), value, options={'FAST'})
                k.interpolation = 'LINEAR'
        fc.update()


# what a key holds beside its frame and value
_KEY_SETTINGS = ("interpolation", "easing", "back", "amplitude", "period", "handle_left_type",
                 "handle_right_type")


def keys_outside(bag, paths, first, last):
    """{(path, index): [key]} of the keys of `paths` before `first` or after `last`: the
    user's animation outside a baked range, which the bake keeps, with a key on the frame
    next to the range where a curve crosses it (`_cut`), so that it plays there as before.
    A key is (co, handle_left, handle_right, {setting: value})."""
    out = {}
    for fc in bag.fcurves:
        if fc.data_path not in paths:
            continue
        points = list(fc.keyframe_points)
        keys = [_key(k) for k in points]
        before = [i for i, k in enumerate(points) if k.co[0] < first]
        after = [i for i, k in enumerate(points) if k.co[0] > last]
        # both cuts split the curve as it was (one segment may cross the whole range)
        orig = [(tuple(k[0]), tuple(k[1]), tuple(k[2])) for k in keys]
        kept = [keys[i] for i in before]
        if before and before[-1] + 1 < len(points):
            kept += _cut(fc, keys, orig, before[-1], first - 1.0, left=True)
        if after and after[0] > 0:
            kept += _cut(fc, keys, orig, after[0] - 1, last + 1.0, left=False)
        kept += [keys[i] for i in after]
        if kept:
            out[fc.data_path, fc.array_index] = kept
    return out


def _key(k):
    return [tuple(k.co), tuple(k.handle_left), tuple(k.handle_right),
            {name: getattr(k, name) for name in _KEY_SETTINGS}]


def _cut(fc, keys, orig, i, frame, left):
    """The segment of `fc` from key i to key i + 1 cut at `frame` (between them): the key
    there, that keeps the side outside the bake (`left`: the side before it) as it played.
    A Bezier segment is split exactly (de Casteljau), its outer key's handle moved onto the
    split and made free (an automatic handle would turn with its new neighbour); other
    interpolations keep their shape with a key at the curve's value."""
    a, b = keys[i], keys[i + 1]
    if not orig[i][0][0] < frame < orig[i + 1][0][0]:
        return []
    settings = dict(a[3], handle_left_type='FREE', handle_right_type='FREE')
    if a[3]["interpolation"] != 'BEZIER':
        value = fc.evaluate(frame)
        if left:
            settings["interpolation"] = 'LINEAR'
        return [[(frame, value), (frame, value), (frame, value), settings]]
    p0, p1, p2, p3 = (Vector(orig[i][0]), Vector(orig[i][2]), Vector(orig[i + 1][1]),
                      Vector(orig[i + 1][0]))
    lo, hi = 0.0, 1.0
    for _ in range(60):      # x(t) rises along the segment: bisect for x(t) = frame
        t = 0.5 * (lo + hi)
        x = ((1 - t) ** 3 * p0 + 3 * (1 - t) ** 2 * t * p1 + 3 * (1 - t) * t * t * p2 +
             t ** 3 * p3).x
        lo, hi = (t, hi) if x < frame else (lo, t)
    p01, p12, p23 = p0.lerp(p1, t), p1.lerp(p2, t), p2.lerp(p3, t)
    p012, p123 = p01.lerp(p12, t), p12.lerp(p23, t)
    mid = p012.lerp(p123, t)
    mid = Vector((frame, mid.y))
    if left:     # keys[i] keeps the part before the cut
        a[2] = tuple(p01)
        a[3] = dict(a[3], handle_left_type='FREE', handle_right_type='FREE')
        settings["interpolation"] = 'LINEAR'
        return [[tuple(mid), tuple(p012), tuple(mid), settings]]
    b[1] = tuple(p23)
    b[3] = dict(b[3], handle_left_type='FREE', handle_right_type='FREE')
    return [[tuple(mid), tuple(mid), tuple(p123), settings]]


def restore_keys(bag, kept, group):
    """Put the keys `keys_outside` kept back into the channels' F-curves (made again where
    the bake wrote none: a rotation channel of another mode). The handles are set once
    every key is in: inserting a key moves its neighbours' handles."""
    for (path, index), keys in kept.items():
        fc = bag.fcurves.find(path, index=index)
        if fc is None:
            fc = bag.fcurves.new(path, index=index)
            if hasattr(bag, "groups"):
                fc.group = bag.groups.get(group) or bag.groups.new(group)
        kps = fc.keyframe_points
        for co, _, _, settings in keys:
            kps.insert(co[0], co[1], options={'FAST'})
        at = {float(k.co[0]): k for k in kps}
        for co, left, right, settings in keys:
            k = at[float(co[0])]
            for name, value in settings.items():
                setattr(k, name, value)
            k.handle_left, k.handle_right = left, right
        fc.update()


def write_reduced(bag, path, frames, channels, group, error, errors, tolerance, extra=()):
    """The F-curves of `path` (one per column of `channels`, the values at `frames`) with only
    the keys `reduce.pick_keys` picks, Bezier with the handles `reduce.handles` places; then
    read back with `FCurve.evaluate` at every frame, and written again with a key added where
    they are off by more than `tolerance` (float32 keys), until none is. The frames of index
    `extra` are keyed too. Returns the indices of the frames keyed."""
    keys = sorted(set(reduce.pick_keys(frames, channels, error, tolerance)) | set(extra))
    while True:
        left, right = reduce.handles(frames, channels, keys)
        fcurves = [write_fcurve(bag, path, i, frames[keys], channels[keys, i], group,
                                handles=(left[:, :, i], right[:, :, i]))
                   for i in range(channels.shape[1])]
        played = reduce.evaluated(fcurves, frames)
        extra = reduce.off_frames(frames, keys, played, channels, errors, tolerance)
        if not extra:
            return keys
        for fc in fcurves:
            bag.fcurves.remove(fc)
        keys = sorted(set(keys) | set(extra))


def write_keys(scene, objects, frames, poses, linear=True, tolerance=None):
    """Bake dynamic bodies to keys of their own. Returns the KeyCount."""
    frames_arr = np.asarray(frames, dtype=np.float64)
    count = KeyCount()
    for obj in objects:
        s = obj.ligament_body
        clear_delta(obj)   # a keyed body's simulated pose goes into its keys now
        loc, rot = current_values(obj)   # its own (an Axis Angle body's given back first)
        s.pre_bake_location = loc
        s.pre_bake_rotation = rot
        bag = begin_bake(obj, s)
        values = np.array([[*p[obj.name][0], *p[obj.name][1]] for p in poses], dtype=np.float64)
        count += write_transform(bag, "", obj.rotation_mode, frames_arr, values,
                                 "Object Transforms", linear, tolerance, owner=obj,
                                 hold=keyed_outside(bag, frames[0], frames[-1]))
        s.baked = True
        obj.update_tag()
    cache.invalidate(scene)
    return count


def write_pose_keys(scene, sim, rigs, frames, poses, linear=True, tolerance=None):
    """Bake ragdolls to their armatures: location and rotation keys (in each pose bone's
    rotation mode) of the bones the ragdoll moves, on a copy of the armature's action; and,
    for a ragdoll with control pairs, onto its control rig's bones (`write_control_keys`).
    Returns the KeyCount."""
    runs = {run.name: run for run in sim.ragdolls}
    # The poses are simulated: drop the simulation before any action changes, so that no
    # handler (the control rigs' solve evaluates the view layer) reads it meanwhile.
    cache.invalidate(scene)
    frames_arr = np.asarray(frames, dtype=np.float64)
    count = KeyCount()
    for arm in rigs:
        run = runs.get(arm.name)
        if run is None:
            continue
        controls.fill_defaults(arm)
        rig, pairs = control_pairs(arm)
        moved = [b for p in run.parts for b in p.targets]
        skeleton = Skeleton(arm, moved + [s for s, _ in pairs])
        values, previous, sources, full = {}, {}, [], []
        with keep_frame(scene):   # the armature's world matrix may need the depsgraph
            for f, p in zip(frames, poses):
                known = sim.frame_matrices(scene, f)
                basis = bone_poses(run, skeleton, f, p, known)
                full.append(basis)
                for bone, m in basis.items():
                    loc, q, _ = m.decompose()
                    mode = arm.pose.bones[bone].rotation_mode
                    previous[bone] = quaternion_to_rotation(mode, q, previous.get(bone))
                    values.setdefault(bone, []).append([*loc, *previous[bone]])
                if pairs:
                    sources.append(world_pose(skeleton, basis, f, {s for s, _ in pairs},
                                              known))
        rd = arm.ligament_ragdoll
        rd.pre_bake_pose = json.dumps({b: [*arm.pose.bones[b].location,
                                           *rotation_values(arm.pose.bones[b])]
                                       for b in values})
        # reduced keys bound every bone's world position, not only each one's channels
        check = None if tolerance is None or tolerance[0] <= 0.0 else \
            chains.WorldCheck(arm, list(values), frames, full, tolerance[0])
        bag = begin_bake(arm, rd)
        hold = keyed_outside(bag, frames[0], frames[-1])
        counts, share, todo = {}, {}, list(values)
        for _ in range(chains.MAX_ROUNDS):
            if not todo:
                break
            for bone in todo:
                s = share.get(bone, 1.0)
                counts[bone] = write_transform(
                    bag, bone_path(bone) + ".", arm.pose.bones[bone].rotation_mode,
                    frames_arr, np.array(values[bone], dtype=np.float64), bone, linear,
                    None if tolerance is None else (s * tolerance[0], s * tolerance[1]),
                    owner=arm.pose.bones[bone], hold=hold)
            todo = [] if check is None else check.off(bag)
            for bone in todo:
                share[bone] = 0.5 * share.get(bone, 1.0)
        for c in counts.values():
            count += c
        rd.baked = True
        ragdoll.sync_constraints(scene, arm)
        arm.update_tag()
        if pairs:
            count += write_control_keys(arm, rig, pairs, frames, sources, linear, tolerance)
    cache.invalidate(scene)
    return count


def control_pairs(arm):
    """(control rig, [(source, target)] whose bones exist) of the ragdoll of `arm`; (None, [])
    without a control rig. Raises SceneError naming pairs whose bones are missing."""
    rd = arm.ligament_ragdoll
    rig = rd.control_rig
    if rig is None or rig == arm or rig.type != 'ARMATURE' or not len(rd.controls):
        return None, []
    good, missing = retarget.check_pairs(arm, rig, controls.pairs(arm))
    if missing:
        raise SceneError(f"Bake onto controls of '{arm.name}': no such bones in the pairs "
                         f"{', '.join(missing)}; pick them again in Bake onto Controls")
    return rig, good


def world_pose(skeleton, basis, frame, bones, known=None):
    """{bone: world matrix} of `bones` at `frame`, the simulated ones posed by `basis`.
    `known`: the `matrix_world_at` memo of the frame."""
    arm_world = matrix_world_at(skeleton.arm, frame, {} if known is None else known)
    pose = {}
    for n in skeleton.order:
        parent = pose[skeleton.parent[n]] if skeleton.parent[n] else Matrix.Identity(4)
        b = basis[n] if n in basis else skeleton.basis(n, frame)
        pose[n] = parent @ skeleton.link[n] @ b
    return {n: arm_world @ pose[n] for n in bones}


def write_control_keys(arm, rig, pairs, frames, sources, linear, tolerance):
    """Key the control rig's target bones so that they follow the simulated source bones
    (`baking.controls`); its IK/FK switches are set to FK. The rig's bake state lives on its
    own `ligament_ragdoll` (a clear-bake gives its action back). Returns the KeyCount."""
    controls.use_fk(rig)
    arm_world = matrix_world_at(arm, frames[0], {})
    values = retarget.solve_frames(arm, rig, pairs, arm_world, frames, lambda i: sources[i])
    state = rig.ligament_ragdoll
    if not state.baked:
        state.pre_bake_pose = json.dumps({t: [*rig.pose.bones[t].location,
                                              *rotation_values(rig.pose.bones[t])]
                                          for t in values})
        bag = begin_bake(rig, state)
    else:
        bag = _channelbag(rig.animation_data.action, getattr(rig.animation_data,
                                                             "action_slot", None))
    frames_arr = np.asarray(frames, dtype=np.float64)
    count = KeyCount()
    for t, rows in values.items():
        count += write_transform(bag, bone_path(t) + ".", rig.pose.bones[t].rotation_mode,
                                 frames_arr, rows, t, linear, tolerance)
    state.baked = True
    rig.update_tag()
    return count


def clear_bake(scene, objects=None):
    """Give baked objects (and baked ragdolls' armatures) back their previous action and
    pose. Returns the objects."""
    candidates = objects if objects is not None else scene.objects
    cleared = [o for o in candidates if o.ligament_body.baked]
    # Drop the simulation before any bake action goes: one built while a ragdoll was baked
    # reads its bake action's F-curves, and a handler running between the removal and the
    # end of this function would read freed F-curves (Blender does not guard them).
    cache.invalidate(scene)
    for obj in cleared:
        s = obj.ligament_body
        end_bake(obj, s)
        apply_pose(obj, tuple(s.pre_bake_location), tuple(s.pre_bake_rotation))
        obj.update_tag()
    rigs = [o for o in candidates if o.type == 'ARMATURE' and o.ligament_ragdoll.baked]
    # a ragdoll's control rig goes back with it
    rigs += [r for r in {a.ligament_ragdoll.control_rig for a in rigs} - set(rigs)
             if r is not None and r.ligament_ragdoll.baked]
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
