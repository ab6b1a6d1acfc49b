"""The change check: whether the scene changed since its Simulation was built, compared each
frame (and after each edit in the UI) through a signature cheap enough for that. Edits to the
Ligament settings drop the cache through their update callbacks; this catches the rest (a
script moving a watched object, a new action, a posed ragdoll armature, an edited curve), and
takes a body the user moved as its new rest pose.

Edited keys do not drop the whole cache: each simulated frame remembers a digest of what it
read (`digests.FrameReads`: the kinematic targets, drives, path points and steering it sent to
the world), and when the watched F-curves' keys change (`Watch.keys`) the frames are read again
and the cache is kept up to the first frame whose reads differ."""

import hashlib

import bpy
import numpy as np

from ..world import mechanisms
from ..scene import ragdolls
from ..scene.animation import action_fcurves, has_transform_animation, moved_by_depsgraph, \
    played_beyond_action, strip_fcurves
from ..scene.curves import curve_motion
from ..scene.fields import field_objects
from ..scene.frames import tagged_since_evaluation
from ..scene.objects import effective_kind, is_compound
from ..scene.shapes import compound_parts
from .rest import current_values, store_rest
from .state import Reads, state


def _action_name(obj):
    ad = obj.animation_data
    return None if ad is None or ad.action is None else ad.action.name


def watched_objects(scene, sim):
    """The objects the simulation reads: bodies (and those it left out), the parts of Compound
    bodies, joint empties, every object a joint's settings point at, their parents up to the
    root, and ragdoll armatures. Other objects can change freely without dropping the
    cache."""
    out = {}

    def add(obj):
        while obj is not None and obj.name not in out:
            out[obj.name] = obj
            for other in _movers(obj):
                add(other)
            obj = obj.parent
    for obj in sim.objects.values():
        add(obj)
        if is_compound(obj):
            for part in compound_parts(obj):
                add(part)
    for name in sim.skipped_bodies:   # left out (zero scale): fixing it builds again
        add(sim.scan.by_name[name])
    pointers = None
    basic = ("object_a", "object_b")   # all that the build reads of a joint not a mechanism
    for e in sim.scan.joints:
        add(e)
        js = e.ligament_joint
        if pointers is None:
            pointers = [p.identifier for p in js.bl_rna.properties
                        if p.type == 'POINTER' and getattr(p, "fixed_type", None) is not None
                        and p.fixed_type.identifier == 'Object']
        for name in (pointers if js.type in mechanisms.TYPES else basic):
            add(getattr(js, name))
    for arm in ragdolls.armatures(scene):
        add(arm)
    for field in field_objects(scene):   # keyed fields: their keys; still ones: transforms
        add(field)
    return list(out.values())


def _movers(obj):
    """The objects that move `obj` through its constraints' targets and its drivers'
    variables: what moves them moves it."""
    out = [getattr(c, "target", None) for c in obj.constraints]
    ad = obj.animation_data
    if ad is not None:
        out += [t.id for d in ad.drivers for v in d.driver.variables for t in v.targets]
    return [o for o in out if isinstance(o, bpy.types.Object)]


class Watch:
    """What the simulation depends on beyond the Ligament settings (whose update callbacks
    drop the cache themselves), cheap enough to compare every frame. Of the watched objects
    (`watched_objects`): names, parents, data, actions (one pass of attribute reads), and from
    the frame's bulk reads their transforms (except of moving objects: simulated or animated),
    scales and rotation modes; whether they are all still in the scene; the pose of ragdoll
    armatures without an action; the curves of paths; the world settings, gravity and frame
    rate. Which objects are watched, moving, posed armatures or paths is settled when the
    simulation is built (what changes it drops the cache: settings through their callbacks,
    actions and parents through the names compared here). Playing, the transforms (and
    the keys, `revise`) are compared every frame, the rest after an edit (`drop_if_changed`)."""

    def __init__(self, scene, sim):
        self.objects = watched_objects(scene, sim)
        self.uids = np.array([o.session_uid for o in self.objects], dtype=np.int64)
        moving = moving_objects(scene, sim)
        self.still = np.array([o.name not in moving for o in self.objects], dtype=bool)
        # objects whose scale is animated: a body keeps its start frame's scale (its shape)
        self.scaled = np.array([not _scale_animated(o) for o in self.objects], dtype=bool)
        # Pose bones of ragdoll armatures without an action: posing one changes where its
        # ragdoll starts (keyed poses change through their action instead).
        self.posed = [(o, len(o.pose.bones)) for o in self.objects if o.type == 'ARMATURE'
                      and o.ligament_ragdoll.enabled and _action_name(o) is None
                      and not played_beyond_action(o)]
        self.paths = [o for o in self.objects if o.type == 'EMPTY' and o.ligament_joint.enabled
                      and o.ligament_joint.type == 'PATH']
        # the data-blocks whose keys the frames read: the watched objects and their data
        # (a path's curve keys its points on the curve data)
        self.animated = [o for o in self.objects if o.animation_data is not None]
        self.animated += [o.data for o in self.objects
                          if getattr(o.data, "animation_data", None) is not None]
        # whose transform keys the start reads (`Simulation.start_reads`)
        self.keyed = [o for o in self.objects if o.animation_data is not None
                      and has_transform_animation(o)]
        self._plan = None    # (rows, what `transforms` derives from them)

    def keys(self):
        """(which F-curves, a digest of their keys) of the watched data-blocks' actions. A
        different set of F-curves drops the cache (the build chose what to read from it);
        different keys only send the frames to be read again (`revise`)."""
        curves = []
        digest = hashlib.blake2b(digest_size=16)
        for idb in self.animated:
            fcurves = action_fcurves(idb)
            curves.append(tuple(fcurves))
            played = list(fcurves.values())
            ad = idb.animation_data
            if ad is not None:   # the NLA strips' actions play too
                played += [fc for t in ad.nla_tracks for st in t.strips
                           for fc in strip_fcurves(st)]
            for fc in played:
                kps = fc.keyframe_points
                n = len(kps)
                values = np.empty(6 * n, dtype=np.float32)
                for k, name in enumerate(("co", "handle_left", "handle_right")):
                    kps.foreach_get(name, values[2 * k * n:2 * (k + 1) * n])
                kinds = np.empty(n, dtype=np.int32)
                kps.foreach_get("interpolation", kinds)
                digest.update(values.tobytes())
                digest.update(kinds.tobytes())
                digest.update(f"{fc.extrapolation}{len(fc.modifiers)}".encode())
        return tuple(curves), digest.digest()

    def signature(self, scene, reads):
        """(`transforms`, `settings`): what the change check compares."""
        return self.transforms(reads), self.settings(scene, reads)

    def transforms(self, reads):
        """Whether a watched object left the file or the scene, and the still ones'
        transforms, scales and rotation modes, from the frame's bulk reads."""
        rows = reads.rows("watched", self.uids)
        plan = self._plan
        if plan is None or plan[0] is not rows:   # the rows each channel is taken at, kept
            at = rows.clip(0, None)                # while the file's objects are the same
            plan = self._plan = (rows, bool((rows < 0).any()), at[self.still],
                                 at[self.scaled], at)
        _, missing, still, scaled, at = plan
        basis = reads.channel("matrix_basis", 16)[still]
        scale = reads.channel("scale", 3)[scaled]
        modes = reads.channel("rotation_mode", 1, np.int32)[at]
        return missing, basis.tobytes(), scale.tobytes(), modes.tobytes()

    def settings(self, scene, reads):
        """What scripts and the UI change by setting properties, which tags what they edit
        for an update (`scene.frames.tagged_since_evaluation`): the watched objects' names,
        parents, data and actions, the poses of posed armatures, the curves of paths, the
        fields and the world settings. Remembers which objects the file and the scene held
        (`same_objects`)."""
        self.seen = reads.lookup.key     # the bytes of (reads.uids, reads.scene_uids)
        # names, and which parent, data and action (compared as the same data-blocks)
        links = [(o.name, o.parent, o.data, o.animation_data) for o in self.objects]
        actions = [link[3].action for link in links if link[3] is not None]
        ws = scene.ligament_world
        r = scene.render
        return (links, actions, _sources(self.objects), _still_poses(self.posed),
                _path_curves(self.paths),
                ws.substeps, ws.jointed_substeps, ws.calm_substeps, ws.iterations,
                ws.frame_start, ws.frame_end,
                tuple(scene.gravity), scene.use_gravity, r.fps, r.fps_base,
                scene.unit_settings.scale_length, _still_fields(scene))

    def same_objects(self, reads):
        """Whether the file and the scene hold the objects they held at the last `settings`
        (an object added can be a field that pushes the bodies)."""
        return reads.lookup.key == self.seen


def _rna_values(struct):
    """The values of `struct`'s own properties (data-blocks by name), for a comparison."""
    out = []
    for p in struct.bl_rna.properties:
        if p.type == 'COLLECTION' or p.identifier == "rna_type":
            continue
        v = getattr(struct, p.identifier, None)
        if p.type == 'POINTER':
            v = getattr(v, "name", None) if v is None or hasattr(v, "name") else None
        elif getattr(p, "array_length", 0):
            v = tuple(v)
        out.append(v)
    return tuple(out)


def _sources(objs):
    """What moves the watched objects beside their keys: NLA strips, drivers (expression and
    variables' targets) and constraints, with their settings."""
    out = []
    for o in objs:
        ad = o.animation_data
        if ad is not None:
            out.append(tuple(_rna_values(st) for t in ad.nla_tracks for st in t.strips))
            out.append(tuple((t.mute, t.is_solo) for t in ad.nla_tracks))
            out.append(tuple((d.data_path, d.array_index, d.mute, d.driver.expression,
                              tuple((v.type, tuple((getattr(t.id, "name", None), t.data_path,
                                                    t.transform_type, t.bone_target)
                                                   for t in v.targets))
                                    for v in d.driver.variables))
                             for d in ad.drivers))
        out.append(tuple(_rna_values(c) for c in o.constraints))
    return tuple(out)


# the settings of a field that are not keyed
_FIELD_SETTINGS = ("type", "shape", "strength", "flow", "noise", "seed", "falloff_type",
                   "falloff_power", "use_min_distance", "distance_min", "use_max_distance",
                   "distance_max", "use_radial_min", "radial_min", "use_radial_max",
                   "radial_max", "radial_falloff", "z_direction", "quadratic_drag",
                   "harmonic_damping", "rest_length", "size", "use_gravity_falloff",
                   "use_global_coords", "apply_to_location")


def _still_fields(scene):
    """Which fields push the bodies, and their settings that are not keyed (keyed ones are read
    every frame, and their keys revise the frames, `revise`)."""
    out = []
    for o in field_objects(scene):
        keyed = {path for path, _ in action_fcurves(o)}
        out.append((o.name, tuple(getattr(o.field, name) for name in _FIELD_SETTINGS
                                  if "field." + name not in keyed)))
    return tuple(out)


def _still_poses(armatures):
    """The pose bones' matrix_basis of each (armature, bone count), as bytes (None when
    the armature has more bones now; fewer leave zeros at the end)."""
    out = []
    for o, count in armatures:
        basis = np.zeros(count * 16, dtype=np.float32)
        try:
            o.pose.bones.foreach_get("matrix_basis", basis)
        except RuntimeError:
            out.append(None)
            continue
        out.append(basis.tobytes())
    return tuple(out)


def _path_curves(joints):
    """The splines of the curves path joints follow: editing one moves its path. A curve
    whose spline is animated is read again every frame (FrameInputs): only its
    splines' kinds and sizes count (its keyed points change by design)."""
    out = []
    for o in joints:
        js = o.ligament_joint
        if js.curve is None or js.curve.type != 'CURVE':
            out.append(None)
            continue
        if curve_motion(js.curve) == 'SPLINE':
            out.append(tuple((sp.type, sp.use_cyclic_u, len(sp.bezier_points), len(sp.points))
                             for sp in js.curve.data.splines))
            continue
        for sp in js.curve.data.splines:
            points = sp.bezier_points if sp.type == 'BEZIER' else sp.points
            keys = ("co", "handle_left", "handle_right") if sp.type == 'BEZIER' else ("co",)
            for key in keys:
                values = np.empty(len(points) * (3 if sp.type == 'BEZIER' else 4), np.float32)
                points.foreach_get(key, values)
                out.append(values.tobytes())
            out.append((sp.type, sp.use_cyclic_u))
    return tuple(out)


def _scale_animated(obj):
    """Whether `obj`'s scale changes by design: keyed, or moved by NLA strips or drivers."""
    if obj.animation_data is None:
        return False
    return any(path == "scale" for path, _ in action_fcurves(obj)) or moved_by_depsgraph(obj)


def moving_objects(scene, sim):
    """Objects whose transform changes every frame by design: simulated bodies and anything
    with transform animation (keys, NLA strips, drivers)."""
    moving = {b.name for b in sim.dynamic}
    for o in scene.objects:
        if o.animation_data is not None and (has_transform_animation(o) or
                                             moved_by_depsgraph(o)):
            moving.add(o.name)
    return frozenset(moving)


# A channel within this of what the runtime wrote is its own write (float32 round trip),
# not an edit by the user.
WRITTEN_MATCH = 1e-6

_CHANNELS = (("rotation_quaternion", 4), ("rotation_axis_angle", 4), ("rotation_euler", 3))


def _user_moved(scene, reads):
    """Dynamic bodies whose transform differs from what the simulation last wrote: the user
    moved them, and where they are now is their new rest pose. Compared with the frame's
    bulk reads in one vectorised pass (a crowd writes thousands of bodies a frame), with
    few array operations when all are quaternions and none moved (a frame of playback)."""
    written = state(scene).written
    if not written:
        return []
    keep, ids, whole = written.present(reads.rows("written", written.uid))
    if not len(keep):
        return []
    loc = reads.channel("location", 3)[ids]
    modes = written.mode if whole else written.mode[keep]
    if not modes.any():        # every one in quaternion mode (the bulk bodies are)
        rot = reads.channel("rotation_quaternion", 4)[ids]
    else:
        rot = np.zeros((len(keep), 4), dtype=np.float32)
        for code, (path, size) in enumerate(_CHANNELS):
            mine = modes == code
            if mine.any():
                rot[mine, :size] = reads.channel(path, size)[ids[mine]]
    dloc = np.abs(loc - (written.loc if whole else written.loc[keep]))
    drot = np.abs(rot - (written.rot if whole else written.rot[keep]))
    if dloc.max() <= WRITTEN_MATCH and drot.max() <= WRITTEN_MATCH:
        return []
    same = (dloc.max(axis=1) <= WRITTEN_MATCH) & (drot.max(axis=1) <= WRITTEN_MATCH)
    moved = []
    for k in np.flatnonzero(~same):
        obj = reads.data[int(ids[k])]
        if not obj.ligament_body.enabled or effective_kind(obj) != 'DYNAMIC' \
                or has_transform_animation(obj):
            continue
        moved.append(obj)
    return moved


def drop_if_changed(scene, playing=False):
    """Drop the cache if the scene changed since it was built. A body the user moved takes
    its new transform as its rest pose. Returns the bulk reads it compared (the frame's
    write reuses them: nothing here or in a build writes a transform).

    `playing` (the frame handler): the watched transforms and keys (`revise`; scripts often
    write keys with `foreach_set`, which tags nothing) are compared as always, the rest of
    the signature (`Watch.settings`) only when the depsgraph reports an edit since the scene
    was last evaluated (`tagged_since_evaluation`) or the file's objects changed; edits in
    the UI are checked in full as they happen (the depsgraph update handler)."""
    st = state(scene)
    whole = not playing or st.sim is None or tagged_since_evaluation(scene)
    reads = Reads(scene, st.lookup, untagged=not whole)
    moved = _user_moved(scene, reads)
    for obj in moved:
        s = obj.ligament_body
        store_rest(s, (*current_values(obj), obj.rotation_mode))
        if s.sim_pose:
            s.sim_pose = False
        st.written.record(obj)
    sim = st.sim
    if sim is None:
        return reads
    try:
        transforms, settings = sim.signature
        stale = bool(moved) or transforms != sim.watch.transforms(reads)
        if not stale and (whole or not sim.watch.same_objects(reads)):
            stale = settings != sim.watch.settings(scene, reads)
        stale = stale or not revise(scene, sim)
    except ReferenceError:
        stale = True
    if stale:
        st.invalidate()
    return reads


def revise(scene, sim):
    """After the watched keys changed: keep the cached frames before the first frame whose
    reads differ, forget the rest (the next frame simulates them again from the state
    before). Returns False when the whole simulation has to go: other F-curves than at the
    build, or a change at the start frame."""
    curves, digest = sim.watch.keys()
    if curves != sim.keys[0]:
        return False
    if digest == sim.keys[1]:
        return True
    first = sim.first_changed_frame(scene)
    if first == sim.start:
        return False
    if first is not None:
        sim.forget_from(first)
    sim.keys = (curves, digest)
    return True
