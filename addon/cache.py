"""The per-scene simulation cache: a solver World built at the start frame plus, for every
simulated frame, the solver state and the transforms written to the objects.

Scrubbing back or jumping to a cached frame writes the stored transforms (exact, instant);
going past the last cached frame loads the nearest earlier state and steps forward. Any change
to the scene's bodies, joints or world settings drops the cache (checked through a signature
each frame, so edits by scripts count too); the next frame change rebuilds it from the rest
pose at the start frame.

The cache is runtime data (never saved). The rest pose, the transform each dynamic body starts
from, is kept on the object (`ligament_body.rest_*`) because live simulation moves the object.
"""

import time
import traceback

import bpy
import numpy as np

from . import bridge, kernels, mechanisms, ragdoll, ragdoll_sim
from .bridge import SceneError

stats = {"builds": 0}  # worlds built this session (diagnostics)


class SceneState:
    """Everything the add-on keeps at run time for one scene (never saved): its Simulation,
    the error that stopped the last build, the transforms last written to its objects (to
    tell the user's edits from ours) and the messages already printed."""
    __slots__ = ("sim", "error", "written", "reported", "last_bake", "lookup")

    def __init__(self):
        self.sim = None          # Simulation, or None until the next frame change builds it
        self.last_bake = None    # the Simulation the last bake wrote (skipped/broken joints)
        self.error = None        # message of the last failed build or run
        self.written = Written()  # transforms written to objects, to tell edits from ours
        self.reported = set()    # messages printed to the console (each is printed once)
        self.lookup = Lookup()   # rows of objects in the per-frame bulk reads

    def fail(self, message):
        """The simulation cannot run as the scene is: drop it and keep the message (panels
        show it, the next frame change tries again)."""
        self.sim = None
        self.error = message

    def invalidate(self):
        """The scene changed: the next frame change builds a new simulation."""
        self.sim = None
        self.error = None

    def report(self, message):
        """Print `message` to the console once per scene."""
        if message not in self.reported:
            self.reported.add(message)
            print(f"Ligament: {message}")


_states = {}         # scene.session_uid -> SceneState

MODE_CODES = {'QUATERNION': 0, 'AXIS_ANGLE': 1}   # any other mode is an Euler order: 2
_TRANSFORM = {'OBJECT'}   # Object.update_tag(refresh=...): the transform changed


class Reads:
    """The file's objects read in bulk, once per frame: `foreach_get` over
    `bpy.data.objects` (a plain list, twice as fast to read as `scene.objects`) for the
    transform channels, over `scene.collection.all_objects` (the scene's objects) for which
    objects the scene has. Rows of given session uids are looked up by sorted search and kept
    while the file's objects stay the same (`Lookup`). The change checks of one frame share
    it; the bulk write uses its rows."""

    def __init__(self, scene, lookup):
        self.evaluations = mechanisms.evaluations()   # scene updates before these reads
        self.data = bpy.data.objects
        self.scene_uids = _uids(scene.collection.all_objects)
        self.uids = _uids(self.data)
        self.n = len(self.uids)
        self.lookup = lookup.renew(self)
        self._channels = {}

    def channel(self, name, size, dtype=np.float32):
        """(n, size) values of `name` for every object of the file (read on first use)."""
        a = self._channels.get(name)
        if a is None:
            a = np.empty(self.n * size, dtype=dtype)
            if self.n:
                self.data.foreach_get(name, a)
            a = self._channels[name] = a.reshape(self.n, size)
        return a

    def rows(self, key, uids):
        """Rows of the objects with session `uids` (-1 for one not in the file or not in the
        scene), memoised under `key` while the objects stay the same."""
        return self.lookup.rows(self, key, uids)


def _uids(collection):
    out = np.empty(len(collection), dtype=np.int64)
    if len(out):
        collection.foreach_get("session_uid", out)
    return out


class Lookup:
    """Rows of session uids in a Reads, kept while the file's and the scene's objects are the
    same objects in the same order (a frame compares two integer arrays instead of searching
    again)."""

    def __init__(self):
        self.uids = self.scene_uids = None
        self.memo = {}

    def renew(self, reads):
        if self.uids is None or not np.array_equal(self.uids, reads.uids) or \
                not np.array_equal(self.scene_uids, reads.scene_uids):
            self.uids, self.scene_uids, self.memo = reads.uids, reads.scene_uids, {}
        return self

    def rows(self, reads, key, uids):
        found = self.memo.get(key)
        if found is not None and len(found[0]) == len(uids) and np.array_equal(found[0], uids):
            return found[1]
        uids = np.asarray(uids, dtype=np.int64)
        rows = _indices(reads.uids, uids)
        if len(reads.scene_uids):
            ordered = np.sort(reads.scene_uids)
            at = np.searchsorted(ordered, uids).clip(0, len(ordered) - 1)
            rows = np.where(ordered[at] == uids, rows, -1)
        else:
            rows = np.full(len(uids), -1, dtype=np.int64)
        self.memo[key] = (uids.copy(), rows)
        return rows


class Written:
    """The transforms the add-on last wrote to objects (location, rotation values in the
    object's mode), kept as arrays with one row per object (by session uid), so a crowd's
    thousands of bodies are compared with the scene's in one vectorised pass."""

    def __init__(self):
        self.row = {}                        # object session uid -> row
        self.uid = np.zeros(0, dtype=np.int64)
        self.loc = np.zeros((0, 3))
        self.rot = np.zeros((0, 4))
        self.mode = np.zeros(0, dtype=np.int64)

    def __bool__(self):
        return bool(self.row)

    def rows(self, objects):
        """Rows of `objects` (made for those seen the first time)."""
        uids = [o.session_uid for o in objects]
        new = [u for u in dict.fromkeys(uids) if u not in self.row]
        if new:
            n = len(self.row)
            for k, u in enumerate(new):
                self.row[u] = n + k
            grow = len(new)
            self.uid = np.concatenate([self.uid, np.array(new, dtype=np.int64)])
            self.loc = np.concatenate([self.loc, np.zeros((grow, 3))])
            self.rot = np.concatenate([self.rot, np.zeros((grow, 4))])
            self.mode = np.concatenate([self.mode, np.zeros(grow, dtype=np.int64)])
        return np.array([self.row[u] for u in uids], dtype=np.int64)

    def set(self, rows, loc, rot, modes):
        self.loc[rows] = loc
        self.rot[rows] = rot
        self.mode[rows] = modes

    def record(self, obj):
        """What `obj` shows now is ours (written, or accepted as its new rest pose)."""
        r = self.rows([obj])
        loc, rot = current_values(obj)
        self.set(r, [loc], [rot], [MODE_CODES.get(obj.rotation_mode, 2)])


def state(scene):
    """The scene's SceneState (made on first use)."""
    st = _states.get(scene.session_uid)
    if st is None:
        st = _states[scene.session_uid] = SceneState()
    return st


class Simulation:
    def __init__(self, scene, depsgraph=None):
        start = scene.ligament_world.frame_start
        self.rest = {}
        stats["builds"] += 1
        armatures = {}   # the ragdolls' armature matrices at the start frame

        def rest_pose(obj):
            if ragdoll_sim.is_body(obj):  # built at the rest pose, see ragdoll_sim.attach
                loc, rot, _ = ragdoll_sim.reference_matrix(obj, start, armatures).decompose()
                return loc, rot
            values = _rest_values(scene, obj, start)
            self.rest[obj.name] = values
            return values[0], bridge.rotation_to_quaternion(values[2], values[1])

        if depsgraph is None:
            depsgraph = _evaluated_depsgraph(scene)
        self.skipped = {}        # joint name -> why it could not be built (the rest runs)
        # the scene's bodies, joints and objects by name, for the build and the scene check
        # after it (`ensure` drops it then)
        self.scan = bridge.SceneScan(scene)
        # the world matrices the build evaluates at the start frame (the ragdolls' joint
        # frames reuse them; dropped after)
        self.rest_matrices = {}
        with mechanisms.keep_frame(scene):   # an animated path's spline read at the start
            self.world, self.bodies, self.joints, self.start = bridge.build_world(
                scene, rest_pose, depsgraph, self.skipped, self.scan, self.rest_matrices)
            # animated path curves and steering, sent to the world every frame
            self.inputs = mechanisms.FrameInputs(scene, self.joints, self.start)
        self.end = max(scene.ligament_world.frame_end, self.start)
        self.dt = bridge.world_settings(scene)["dt"]
        self.ragdolls, starts = ragdoll_sim.attach(scene, self)
        self.rest_matrices = None
        for name, m in starts.items():
            loc, rot, _ = m.decompose()
            self.rest[name] = (tuple(loc), tuple(rot), 'QUATERNION')
        self.dynamic = [b for b in self.bodies if b.kind == 'DYNAMIC']
        self.animated = [b for b in self.bodies if b.animated]
        objs = self.scan.by_name
        self.dynamic = _parents_first(objs, self.dynamic)
        # Dynamic bodies with transform keys: the keys give the start pose, the simulation
        # moves them after that through their delta transform (the keys keep playing).
        # The bodies' objects, resolved once (a deleted one raises ReferenceError, which
        # drops the cache).
        self.objects = {b.name: objs[b.name] for b in self.bodies}
        self.keyed = frozenset(b.name for b in self.dynamic if not ragdoll_sim.is_body(objs[b.name])
                               and bridge.has_transform_animation(objs[b.name]))
        for name in self.keyed:
            bridge.check_delta(objs[name])
        for obj in scene.objects:   # bodies no longer keyed and dynamic lose our delta
            if obj.ligament_body.sim_delta and obj.name not in self.keyed:
                bridge.clear_delta(obj)
        self.breakable = [(name, j) for name, j in self.joints
                          if objs[name].ligament_joint.breakable]
        self.broken = {}         # joint name -> frame it broke
        self.findings = []       # the scene check's errors and warnings when it was built
        self.check_seconds = 0.0
        parents = {o.parent.name for o in scene.objects if o.parent is not None}
        for b in self.bodies:
            b.has_children = b.name in parents
        rest_poses = {b.name: (tuple(self.rest[b.name][0]), tuple(self.rest[b.name][1]))
                      for b in self.dynamic}
        # Unparented, unkeyed, local dynamic bodies in quaternion mode (every ragdoll part):
        # their poses are computed as arrays and written in bulk (foreach_set passes over
        # objects linked from a library: those are written one by one).
        self.bulk = [b for b in self.dynamic if b.name not in self.keyed
                     and self.objects[b.name].parent is None
                     and self.objects[b.name].library is None
                     and self.objects[b.name].rotation_mode == 'QUATERNION']
        in_bulk = {b.name for b in self.bulk}
        self.single = [b for b in self.dynamic if b.name not in in_bulk]
        self.bulk_objects = [self.objects[b.name] for b in self.bulk]
        self.bulk_uids = np.array([o.session_uid for o in self.bulk_objects], dtype=np.int64)
        # Object.update_tag of each, bound once: the bulk write sets the channels of every
        # object at once (foreach_set tags nothing), then tags the ones that moved
        self.bulk_tags = [o.update_tag for o in self.bulk_objects]
        self.bulk_ids = np.array([b.id for b in self.bulk], dtype=np.int64)
        self.bulk_offsets = np.array([tuple(b.offset) for b in self.bulk],
                                     dtype=np.float64).reshape(-1, 3)
        self.bulk_rows = None          # their rows in the scene's Written (first write)
        self.bulk_poses = {self.start: (
            np.array([rest_poses[b.name][0] for b in self.bulk], dtype=np.float64).reshape(-1, 3),
            np.array([rest_poses[b.name][1] for b in self.bulk], dtype=np.float64).reshape(-1, 4))}
        self.shown_simulated = None    # what the bodies' sim_pose flags say (None: unknown)
        self.watch = Watch(scene, self)
        self.signature = self.watch.signature(scene, Reads(scene, Lookup()))
        # frame -> {name: (loc, rot)} of the single bodies (the bulk ones: bulk_poses)
        self.poses = {self.start: {b.name: rest_poses[b.name] for b in self.single}}
        self.states = {self.start: self.world.save_state()}
        self.world_frame = self.start

    def joints_not_acting(self, frame):
        """{joint empty name: why it does not act at `frame`}: skipped when the simulation
        was built, or broken at a frame up to `frame`."""
        out = dict(self.skipped)
        out.update((name, f"broke at frame {f}") for name, f in self.broken.items()
                   if f <= frame)
        return out

    @property
    def last_frame(self):
        return max(self.poses)

    def poses_at(self, scene, frame):
        """{object name: (location, rotation values)} of the dynamic bodies at `frame`
        (clamped to the simulated range), simulating the missing frames. Built on demand
        (a bake); playback writes the bulk bodies from their arrays (`write_bulk`) and the
        others from `single_poses`."""
        frame = self.simulate_to(scene, frame)
        out = dict(self.poses[frame])
        loc, q = self.bulk_poses[frame]
        out.update(zip((b.name for b in self.bulk), zip(loc.tolist(), q.tolist())))
        return out

    def single_poses(self, scene, frame):
        """{name: (location, rotation values)} at `frame` of the dynamic bodies not in the
        bulk (parented, keyed, linked or not in quaternion mode), simulating the missing
        frames."""
        return self.poses[self.simulate_to(scene, frame)]

    def simulate_to(self, scene, frame):
        """Simulate up to `frame` (clamped to the simulated range, which it returns)."""
        frame = min(max(frame, self.start), self.end)
        if frame in self.poses:
            return frame
        # Blender's thread setting, read again each time: results do not depend on it, so
        # changing it keeps the cache
        self.world.threads = scene.render.threads
        with mechanisms.keep_frame(scene):   # reading frames ahead may move the scene's
            for f in range(self.last_frame + 1, frame + 1):
                self.step_to(scene, f)
        return frame

    def step_to(self, scene, frame):
        """Simulate `frame` from the state of `frame - 1`."""
        objs = self.objects
        if self.world_frame != frame - 1:
            self.world.load_state(self.states[frame - 1])
        known = {}
        for b in self.animated:
            m = bridge.matrix_world_at(objs[b.name], frame, known)
            self.world.set_kinematic_target(b.id, *bridge.shape_pose(b, m))
        for run in self.ragdolls:
            run.before_step(self.world, frame, known)
        if self.inputs:
            self.inputs.before_step(self.world, scene, frame, known)
        self.world.step(self.dt)
        self.world_frame = frame
        positions, orientations = self.world.positions, self.world.orientations
        if not (np.isfinite(positions).all() and np.isfinite(orientations).all()):
            raise SceneError(f"The simulation became unstable at frame {frame}; raise Substeps "
                             "in Scene > Ligament World or check for overlapping bodies")
        self.states[frame] = self.world.save_state()
        for name, j in self.breakable:
            if name not in self.broken and self.world.joint_broken(j):
                self.broken[name] = frame
        self._bulk_poses(frame, positions, orientations)
        poses = {}
        previous = self.poses[frame - 1]
        if self.single:
            positions, orientations = positions.tolist(), orientations.tolist()
        known = {}
        for b in self.single:
            obj = objs[b.name]
            origin, q = bridge.body_pose(b, positions[b.id], orientations[b.id])
            parent_world = None
            if obj.parent is not None:
                parent_world = bridge.matrix_world_at(obj.parent, frame, known)
            if b.has_children:
                known[b.name] = bridge.Matrix.LocRotScale(origin, q, b.scale)
            poses[b.name] = bridge.local_pose(obj, origin, q, b.scale, parent_world,
                                              previous[b.name][1])
        self.poses[frame] = poses

    def _bulk_poses(self, frame, positions, orientations):
        """The bulk bodies' (locations, quaternions) at `frame`, kept as arrays in
        `bulk_poses`: origin = centre of mass - q (offset), the quaternion's sign continuous
        with the previous frame's."""
        if not len(self.bulk_ids):
            self.bulk_poses[frame] = self.bulk_poses[self.start]
            return
        q = orientations[self.bulk_ids]
        w, v = q[:, :1], q[:, 1:]
        o = self.bulk_offsets
        t = 2.0 * _cross(v, o)
        loc = positions[self.bulk_ids] - (o + w * t + _cross(v, t))
        before = self.bulk_poses[frame - 1][1]
        q = np.where((q * before).sum(axis=1)[:, None] < 0.0, -q, q)
        self.bulk_poses[frame] = (loc, q)

    def write_bulk(self, frame, written, reads):
        """Write the bulk bodies' poses at `frame` to their objects: every object's location
        and rotation quaternion in one `foreach_set` each (the others get back what they
        hold), then a transform tag for each body that moved (foreach_set tags nothing).
        Remembers them as written, rounded to the float32 Blender stores.

        The two channels come from the change check's `reads` unless the scene was evaluated
        since (a build or a step that evaluated it at another frame with
        mechanisms.depsgraph_at moves animated objects): then they are read again."""
        if not self.bulk_objects:
            return
        loc, rot = self.bulk_poses[frame]
        loc, rot = loc.astype(np.float32), rot.astype(np.float32)
        rows = reads.rows("bulk", self.bulk_uids)
        if (rows < 0).any():
            raise ReferenceError("a simulated body left the scene")
        data, n = reads.data, reads.n
        if reads.evaluations == mechanisms.evaluations():
            locations = reads.channel("location", 3).copy()
            rotations = reads.channel("rotation_quaternion", 4).copy()
        else:
            locations = np.empty((n, 3), dtype=np.float32)
            rotations = np.empty((n, 4), dtype=np.float32)
            data.foreach_get("location", locations.ravel())
            data.foreach_get("rotation_quaternion", rotations.ravel())
        moved = np.flatnonzero((locations[rows] != loc).any(axis=1) |
                               (rotations[rows] != rot).any(axis=1))
        if len(moved):
            locations[rows], rotations[rows] = loc, rot
            data.foreach_set("location", locations.ravel())
            data.foreach_set("rotation_quaternion", rotations.ravel())
            tags = self.bulk_tags
            for k in moved.tolist():
                tags[k](refresh=_TRANSFORM)
        if self.bulk_rows is None:
            self.bulk_rows = written.rows(self.bulk_objects)
        written.set(self.bulk_rows, loc, rot, 0)


def _cross(a, b):
    """Row-wise cross products of (n, 3) arrays (np.cross costs ~20 us of axis handling)."""
    a0, a1, a2 = a[:, 0], a[:, 1], a[:, 2]
    b0, b1, b2 = b[:, 0], b[:, 1], b[:, 2]
    return np.stack((a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0), axis=1)


def _evaluated_depsgraph(scene):
    """Shapes are fitted to the evaluated geometry (modifiers applied). Handlers get no
    depsgraph in background mode: use the context's when it shows this scene."""
    import bpy
    context = bpy.context
    if getattr(context, "scene", None) == scene and context.view_layer is not None:
        try:
            return context.evaluated_depsgraph_get()
        except (RuntimeError, AttributeError):
            pass
    return None


def _parents_first(objs, bodies):
    """`bodies` sorted parents first; `objs`: the scene's objects by name."""
    order = {}

    def depth(obj):
        d = 0
        while obj.parent is not None:
            obj = obj.parent
            d += 1
        return d
    for b in bodies:
        order[b.name] = depth(objs[b.name])
    return sorted(bodies, key=lambda b: order[b.name])


def _close(a, b, tol=1e-6):
    return len(a) == len(b) and all(abs(x - y) <= tol for x, y in zip(a, b))


def current_values(obj):
    return tuple(obj.location), bridge.rotation_values(obj)


def _rest_values(scene, obj, start):
    """(location, rotation values, rotation mode) the dynamic body starts from, persisted."""
    s = obj.ligament_body
    mode = obj.rotation_mode
    if bridge.has_transform_animation(obj):
        loc, q, _ = bridge.basis_at(obj, start)
        values = (tuple(loc), bridge.quaternion_to_rotation(mode, q), mode)
    elif s.rest_valid and s.sim_pose:
        # The object shows a simulated pose (written by us, maybe saved in the file).
        values = (tuple(s.rest_location), tuple(s.rest_rotation), s.rest_rotation_mode)
        if values[2] != mode:  # the rotation mode changed since: convert
            q = bridge.rotation_to_quaternion(values[2], values[1])
            values = (values[0], bridge.quaternion_to_rotation(mode, q), mode)
    else:
        values = (*current_values(obj), mode)
    _store_rest(s, values)
    return tuple(s.rest_location), tuple(s.rest_rotation), mode


def _store_rest(s, values):
    if not (s.rest_valid and _close(tuple(s.rest_location), values[0], 0.0)
            and _close(tuple(s.rest_rotation), values[1], 0.0)
            and s.rest_rotation_mode == values[2]):
        s.rest_location = values[0]
        s.rest_rotation = values[1]
        s.rest_rotation_mode = values[2]
        s.rest_valid = True


# --------------------------------------------------------------------------------------------
# Signature: what the simulation depends on beyond the Ligament settings (whose update
# callbacks drop the cache themselves), cheap enough to compare every frame.

def _action_name(obj):
    ad = obj.animation_data
    return None if ad is None or ad.action is None else ad.action.name


def watched_objects(scene, sim):
    """The objects the simulation reads: bodies, joint empties, every object a joint's
    settings point at, their parents up to the root, and ragdoll armatures. Other objects
    can change freely without dropping the cache."""
    out = {}

    def add(obj):
        while obj is not None and obj.name not in out:
            out[obj.name] = obj
            obj = obj.parent
    for obj in sim.objects.values():
        add(obj)
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
    for arm in ragdoll.ragdolls(scene):
        add(arm)
    return list(out.values())


class Watch:
    """What the simulation depends on beyond the Ligament settings (whose update callbacks
    drop the cache themselves), cheap enough to compare every frame. Of the watched objects
    (`watched_objects`): names, parents, data, actions (one pass of attribute reads), and from
    the frame's bulk reads their transforms (except of moving objects: simulated or animated),
    scales and rotation modes; whether they are all still in the scene; the pose of ragdoll
    armatures without an action; the curves of paths; the world settings, gravity and frame
    rate. Which objects are watched, moving, posed armatures or paths is settled when the
    simulation is built (what changes it drops the cache: settings through their callbacks,
    actions and parents through the names compared here)."""

    def __init__(self, scene, sim):
        self.objects = watched_objects(scene, sim)
        self.uids = np.array([o.session_uid for o in self.objects], dtype=np.int64)
        moving = moving_objects(scene, sim)
        self.still = np.array([o.name not in moving for o in self.objects], dtype=bool)
        # Pose bones of ragdoll armatures without an action: posing one changes where its
        # ragdoll starts (keyed poses change through their action instead).
        self.posed = [(o, len(o.pose.bones)) for o in self.objects if o.type == 'ARMATURE'
                      and o.ligament_ragdoll.enabled and _action_name(o) is None]
        self.paths = [o for o in self.objects if o.type == 'EMPTY' and o.ligament_joint.enabled
                      and o.ligament_joint.type == 'PATH']

    def signature(self, scene, reads):
        rows = reads.rows("watched", self.uids)
        missing = bool((rows < 0).any())
        at = rows.clip(0, None)
        basis = reads.channel("matrix_basis", 16)[at[self.still]]
        scale = reads.channel("scale", 3)[at]
        modes = reads.channel("rotation_mode", 1, np.int32)[at]
        # names, and which parent, data and action (compared as the same data-blocks)
        links = [(o.name, o.parent, o.data, o.animation_data) for o in self.objects]
        actions = [link[3].action for link in links if link[3] is not None]
        ws = scene.ligament_world
        r = scene.render
        return (missing, links, actions, basis.tobytes(), scale.tobytes(), modes.tobytes(),
                _still_poses(self.posed), _path_curves(self.paths), ws.substeps,
                ws.jointed_substeps, ws.iterations, ws.frame_start, ws.frame_end, tuple(scene.gravity),
                scene.use_gravity, r.fps, r.fps_base)


def _indices(uids, wanted):
    """Positions in `uids` (objects' session uids) of the `wanted` uids; -1 for one not
    among them."""
    wanted = np.asarray(wanted, dtype=np.int64)
    if not len(uids):
        return np.full(len(wanted), -1, dtype=np.int64)
    order = np.argsort(uids)
    at = order[np.searchsorted(uids[order], wanted).clip(0, len(uids) - 1)]
    return np.where(uids[at] == wanted, at, -1)


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
    whose spline is animated is read again every frame (mechanisms.FrameInputs): only its
    splines' kinds and sizes count (its keyed points change by design)."""
    out = []
    for o in joints:
        js = o.ligament_joint
        if js.curve is None or js.curve.type != 'CURVE':
            out.append(None)
            continue
        if mechanisms.curve_motion(js.curve) == 'SPLINE':
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


def moving_objects(scene, sim):
    """Objects whose transform changes every frame by design: simulated bodies and anything
    with transform animation."""
    moving = {b.name for b in sim.dynamic}
    for o in scene.objects:
        if o.animation_data is not None and bridge.has_transform_animation(o):
            moving.add(o.name)
    return frozenset(moving)


_CHANNELS = (("rotation_quaternion", 4), ("rotation_axis_angle", 4), ("rotation_euler", 3))


def _user_moved(scene, reads):
    """Dynamic bodies whose transform differs from what the simulation last wrote: the user
    moved them, and where they are now is their new rest pose. Compared with the frame's
    bulk reads in one vectorised pass (a crowd writes thousands of bodies a frame)."""
    written = state(scene).written
    if not written:
        return []
    rows = reads.rows("written", written.uid)
    keep = np.flatnonzero(rows >= 0)
    if not len(keep):
        return []
    ids = rows[keep]
    loc = reads.channel("location", 3)[ids]
    modes = written.mode[keep]
    rot = np.zeros((len(keep), 4), dtype=np.float32)
    for code, (path, size) in enumerate(_CHANNELS):
        mine = modes == code
        if mine.any():
            rot[mine, :size] = reads.channel(path, size)[ids[mine]]
    same = (np.abs(loc - written.loc[keep]).max(axis=1) <= 1e-6) & \
        (np.abs(rot - written.rot[keep]).max(axis=1) <= 1e-6)
    moved = []
    for k in np.flatnonzero(~same):
        obj = reads.data[int(ids[k])]
        if not obj.ligament_body.enabled or bridge.effective_kind(obj) != 'DYNAMIC' \
                or bridge.has_transform_animation(obj):
            continue
        moved.append(obj)
    return moved


# --------------------------------------------------------------------------------------------
# Public entry points (handlers, operators, bake)

def invalidate(scene):
    state(scene).invalidate()


def drop_simulations():
    """Every scene simulates again from its start frame (undo, redo)."""
    for st in _states.values():
        st.invalidate()


def clear_all():
    """Forget everything (a file was loaded, the add-on is unregistered)."""
    _states.clear()


def get(scene):
    return state(scene).sim


def error(scene):
    return state(scene).error


def check(scene):
    """Drop the cache if the scene changed since it was built. A body the user moved takes
    its new transform as its rest pose. Returns the bulk reads it compared (the frame's
    write reuses them: nothing here or in a build writes a transform)."""
    st = state(scene)
    reads = Reads(scene, st.lookup)
    moved = _user_moved(scene, reads)
    for obj in moved:
        s = obj.ligament_body
        _store_rest(s, (*current_values(obj), obj.rotation_mode))
        if s.sim_pose:
            s.sim_pose = False
        st.written.record(obj)
    sim = st.sim
    if sim is None:
        return reads
    try:
        stale = bool(moved) or sim.signature != sim.watch.signature(scene, reads)
    except ReferenceError:
        stale = True
    if stale:
        st.invalidate()
    return reads


def ensure(scene, depsgraph=None):
    """The scene's Simulation, built if needed. Raises SceneError for bad input (and keeps
    its message as the scene's error). Joints that cannot be built are skipped: the first
    build reports each once."""
    st = state(scene)
    if st.sim is None:
        if kernels.blocking():       # a batch bake: prepare the kernels first, with progress
            kernels.prepare_blocking()
        try:
            sim = Simulation(scene, depsgraph)
        except SceneError as exc:
            st.fail(str(exc))
            raise
        st.sim, st.error = sim, None
        for name, message in sim.skipped.items():
            st.report(f"joint '{name}' skipped: {message}")
        _preflight(scene, st, sim)
        sim.scan = None   # the scene may change from here on
    return st.sim


def _preflight(scene, st, sim):
    """The scene check before a simulation starts: its errors and warnings are printed once
    each and shown in the sidebar's Scene Check panel; they do not stop the simulation."""
    from . import doctor   # doctor builds Simulations of its own: imported when needed
    t = time.perf_counter()
    try:
        findings = doctor.preflight(scene, sim)
    except Exception:      # a bug in the check must never stop playback
        traceback.print_exc()
        findings = []
    sim.findings, sim.check_seconds = findings, time.perf_counter() - t
    if findings:
        doctor.store(scene, findings)
    for f in findings:
        st.report(f.line())


def apply_frame(scene, frame, depsgraph=None):
    """Put every dynamic body where the simulation has it at `frame`."""
    reads = check(scene)
    before = state(scene).sim
    sim = ensure(scene, depsgraph)
    if sim is not before:   # a build: read the file's objects again (rows for the write)
        reads = Reads(scene, state(scene).lookup)
    poses = sim.single_poses(scene, frame)
    frame = min(max(frame, sim.start), sim.end)
    simulated = frame > sim.start
    written = state(scene).written
    sim.write_bulk(frame, written, reads)
    for b in sim.single:
        obj = sim.objects[b.name]
        loc, rot = poses[b.name]
        if b.name in sim.keyed:   # its keys keep playing: the delta transform moves it
            if simulated:
                bridge.apply_delta(obj, frame, loc, rot)
            else:
                bridge.clear_delta(obj)
            continue
        bridge.apply_pose(obj, loc, rot)
        written.record(obj)
    if sim.shown_simulated != simulated:
        for b in sim.dynamic:
            s = sim.objects[b.name].ligament_body
            if b.name not in sim.keyed and s.sim_pose != simulated:
                s.sim_pose = simulated
        sim.shown_simulated = simulated
    for name, broke in sim.broken.items():
        if broke <= frame:
            state(scene).report(f"joint '{name}' broke at frame {broke}")
    return sim


def restore_rest(scene, objects=None):
    """Put dynamic bodies back to their rest pose (simulation disabled, body removed)."""
    written = state(scene).written
    for obj in objects if objects is not None else bridge.scene_bodies(scene):
        s = obj.ligament_body
        if s.sim_delta:
            bridge.clear_delta(obj)
        if not s.rest_valid or s.baked or bridge.has_transform_animation(obj):
            continue
        q = bridge.rotation_to_quaternion(s.rest_rotation_mode, tuple(s.rest_rotation))
        if s.rest_rotation_mode == obj.rotation_mode:
            rot = tuple(s.rest_rotation)
        else:
            rot = bridge.quaternion_to_rotation(obj.rotation_mode, q)
        bridge.apply_pose(obj, tuple(s.rest_location), rot)
        if s.sim_pose:
            s.sim_pose = False
        written.record(obj)


def joint_status(scene, name):
    """Why the joint `name` does not act at the current frame, or None."""
    sim = get(scene)
    return None if sim is None else sim.joints_not_acting(scene.frame_current).get(name)


def frame_info(scene):
    """(first, last) cached frame or None, for the UI."""
    sim = get(scene)
    if sim is None:
        return None
    return sim.start, sim.last_frame
