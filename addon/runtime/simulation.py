"""A Simulation: the solver World built for a scene at its start frame, stepped one frame at a
time, with every simulated frame kept (solver state and body poses) so that scrubbing back is
instant. Each step first sends the frame's inputs (animated bodies' targets, ragdoll drives,
mechanism inputs), then steps, then turns the solver's poses into object transforms; the
bodies that can be written as arrays (unparented, unkeyed, quaternion mode: the bulk) are
kept and written as arrays. Each frame also keeps a digest of what it read (`reads`), so that
after an edit of keys the frames up to the first one that reads differently are kept
(`first_changed_frame`, `forget_from`)."""

import time

import bpy
import numpy as np
from mathutils import Matrix, Quaternion

from ..kernels import poses as pose_kernels
from ..world.hits import Hits
from ..world.inputs import FrameInputs
from ..world.pins import Pins
from ..world.poses import body_pose, check_delta, clear_delta, local_pose, shape_pose, \
    start_velocity
from ..world.ragdolls import attach, is_body, reference_matrix
from ..world.build import build_world_units
from ..scene import ragdolls as scene_ragdolls
from ..scene.animation import basis_at, evaluated_at, has_delta, has_transform_animation, \
    is_moving, matrix_world_at, needs_depsgraph, rotation_to_quaternion
from ..scene.errors import SceneError
from ..scene.fields import field_objects
from ..scene.frames import depsgraph_at, evaluations, keep_frame
from ..scene.objects import SceneScan, effective_kind, world_settings
from ..scene.shapes import compound_parts
from .changes import Watch
from .digests import FrameReads
from .rest import rest_values
from .state import Lookup, Reads


# worlds built and frames stepped since the file was loaded (diagnostics; cache.clear_all
# sets them to zero with the rest of the run-time state)
stats = {"builds": 0, "steps": 0}


_TRANSFORM = {'OBJECT'}   # Object.update_tag(refresh=...): the transform changed

# keys of a frame's saved state beside the solver's: the hit bodies off their keys in the
# frame ({name: hit frame}) and the hits taken in it ({name: impulse N s})
HITS, HIT_LOG = "ligament_hits", "ligament_hit_log"


class Simulation:
    def __init__(self, scene: bpy.types.Scene, depsgraph=None, sliced: bool = False):
        """The scene's Simulation, built at once; with `sliced` only begun: `advance_build`
        builds it a unit of work at a time (runtime/building.py's BuildSession)."""
        stats["builds"] += 1
        self._units = self._build(scene, depsgraph)
        self._at = None            # the frame the build left the scene on between slices
        self.home = None           # the frame to put the scene back on (the user's)
        self.units_done = 0
        self.units_total = 8       # an estimate until the bodies are counted
        self.built = False
        # the rest poses the build stores on the bodies (`rest_values`), as they were
        # before: a build stopped half way puts them back (`stop_build`)
        self.rest_before = []
        if not sliced:
            self.advance_build(scene, None)

    def advance_build(self, scene: bpy.types.Scene, deadline: float | None) -> bool:
        """Build for a slice of time: units of work until `time.perf_counter()` passes
        `deadline` (at least one; None: to the end). Returns whether the build is done.

        The build reads other frames (the start frame, the one after it) through the
        depsgraph: each slice starts on the frame the last one left the build on and ends
        with the scene back on the user's frame (`keep_frame`), so the scene is never left
        on another frame between slices and every unit sees the depsgraph as a build in
        one piece does."""
        with keep_frame(scene) as kept:
            self.home = kept.frame
            if self._at is not None and self._at != scene.frame_current:
                depsgraph_at(scene, self._at)
            while True:
                try:
                    next(self._units)
                except StopIteration:
                    self.built = True
                    self._at = None
                    return True
                self.units_done += 1
                if deadline is not None and time.perf_counter() >= deadline:
                    break
            self._at = scene.frame_current if scene.frame_current != kept.frame else None
        return False

    def stop_build(self) -> None:
        """A build stopped half way: the rest poses it stored on the bodies go back."""
        self._units.close()
        for s, values in reversed(self.rest_before):
            valid, loc, rot, mode = values
            if (s.rest_valid, tuple(s.rest_location), tuple(s.rest_rotation),
                    s.rest_rotation_mode) != values:
                s.rest_location, s.rest_rotation, s.rest_rotation_mode = loc, rot, mode
                s.rest_valid = valid
        self.rest_before = []

    def _go_home(self, scene: bpy.types.Scene) -> None:
        """The scene back on the user's frame (the end of what a build reads of others)."""
        if self.home is not None and scene.frame_current != self.home:
            depsgraph_at(scene, self.home)

    def _build(self, scene: bpy.types.Scene, depsgraph):
        """The build, a generator of units of work (`advance_build` runs them)."""
        # the start frame and the one after it are read; then the scene goes back
        yield from self._build_world(scene, depsgraph)
        self._start_velocities(scene)
        yield
        self._attach_ragdolls(scene)
        self._go_home(scene)
        yield
        # from here on the build writes to the scene (deltas it no longer owns): the last unit
        self.rest_before = []
        self._sort_bodies(scene)
        # Animated bodies that react to hits: their ghosts and springs join the world
        self.hits = Hits(self.world, self.bodies, self.objects, 1.0 / self.dt, self.ragdolls)
        self.animated = [b for b in self.animated if b.name not in self.hits.names]
        for name in self.hits.keyed:
            check_delta(self.objects[name])
        self.broken = {}         # joint name -> frame it broke
        # fn(world, frame) called just before each step, after the frame's inputs: pushes a
        # pass adds of its own (motion/simulate.py's balance assist); not part of the state
        self.pushes = []
        self.findings = []       # the scene check's errors and warnings when it was built
        self.check_seconds = 0.0
        rest_poses = {b.name: (tuple(self.rest[b.name][0]), tuple(self.rest[b.name][1]))
                      for b in self.dynamic}
        self._gather_bulk(rest_poses)
        self.shown_simulated = None    # what the bodies' sim_pose flags say (None: unknown)
        self._keep_start(scene, rest_poses)
        self._units = None

    def _build_world(self, scene, depsgraph):
        """The World at the start frame, dynamic bodies at their rest poses (kept in
        `self.rest` by name), with what it needs each frame (`inputs`)."""
        start = scene.ligament_world.frame_start
        self.rest = {}
        armatures = {}   # the ragdolls' armature matrices at the start frame

        def rest_pose(obj):
            if is_body(obj, scene):  # built at the rest pose, see attach
                loc, rot, _ = reference_matrix(obj, start, armatures).decompose()
                return loc, rot
            s = obj.ligament_body
            self.rest_before.append((s, (s.rest_valid, tuple(s.rest_location),
                                         tuple(s.rest_rotation), s.rest_rotation_mode)))
            values = rest_values(scene, obj, start)
            self.rest[obj.name] = values
            return values[0], rotation_to_quaternion(values[2], values[1])

        if depsgraph is None:
            depsgraph = evaluated_depsgraph(scene)
        self.skipped = {}        # joint name -> why it could not be built (the rest runs)
        self.skipped_bodies = {}  # body name -> why it was left out (zero scale)
        # the scene's bodies, joints and objects by name, for the build and the scene check
        # after it (`ensure` drops it then)
        self.scan: SceneScan | None = SceneScan(scene)
        # the objects whose world matrix only the depsgraph knows, read from it each frame
        self.evaluated = depsgraph_objects(scene, self.scan)
        # the world matrices the build evaluates at the start frame (the ragdolls' joint
        # frames reuse them; dropped after)
        self.rest_matrices: dict = self.frame_matrices(scene, start)
        # the units of `_build`: one a body, and one a part of a Compound body
        self.units_total = 5 + sum(1 + len(compound_parts(o)) if o.ligament_body.shape ==
                                   'COMPOUND' else 1 for o in self.scan.bodies)
        self.world, self.bodies, self.joints, self.start = yield from build_world_units(
            scene, rest_pose, depsgraph, self.skipped, self.scan, self.rest_matrices,
            self.skipped_bodies)
        # animated path curves and steering, sent to the world every frame
        self.inputs = FrameInputs(scene, self.joints, self.start, self.world,
                                  self.frame_matrices(scene, start),
                                  {o.name for o in self.evaluated})
        self.pins = Pins(self.scan.by_name, self.joints)   # their targets and switches
        self.end = max(scene.ligament_world.frame_end, self.start)
        self.dt = world_settings(scene)["dt"]

    def frame_matrices(self, scene, frame):
        """A `matrix_world_at` memo of `frame` holding the world matrices of the objects
        only the depsgraph knows (`self.evaluated`), as Blender shows them there: the scene is
        evaluated at `frame` when there are any (the caller puts the frame back,
        `keep_frame`)."""
        return evaluated_at(scene, frame, self.evaluated)

    def _attach_ragdolls(self, scene):
        """The ragdolls' switches and drives; their parts' start poses join `self.rest`."""
        self.ragdolls, starts = attach(scene, self, lambda f: self.frame_matrices(scene, f))
        self.rest_matrices = {}
        for name, m in starts.items():
            loc, rot, _ = m.decompose()
            self.rest[name] = (tuple(loc), tuple(rot), 'QUATERNION')

    def _start_velocities(self, scene):
        """Animated bodies start moving as their animation does at the start frame (from the
        start frame to the next), as ragdolls do (`RagdollRun.place_at_start`): the first
        step's contacts see where they go."""
        objs = self.scan.by_name
        simulated = {b.name for b in self.bodies if b.kind == 'DYNAMIC'}

        def carried(obj):   # by a simulated body: moves as it does, not as keys say
            obj = obj.parent
            while obj is not None and obj.name not in simulated:
                obj = obj.parent
            return obj is not None
        moving = [b for b in self.bodies if b.animated and is_moving(objs[b.name])
                  and not carried(objs[b.name])]
        if not moving:
            return
        now = self.frame_matrices(scene, self.start)
        now.update(self.rest_matrices)
        poses = [matrix_world_at(objs[b.name], self.start, now) for b in moving]
        after = self.frame_matrices(scene, self.start + 1)
        world = self.world
        for b, m in zip(moving, poses):
            m1 = matrix_world_at(objs[b.name], self.start + 1, after)
            v, w = start_velocity(shape_pose(b, m), shape_pose(b, m1), self.dt)
            world.linear_velocities[b.id] = v
            world.angular_velocities[b.id] = w

    def _sort_bodies(self, scene):
        """The bodies by what the frame does with them: dynamic (parents first), animated,
        keyed (moved through their delta transform), breakable joints, bodies with
        children."""
        self.dynamic = [b for b in self.bodies if b.kind == 'DYNAMIC']
        self.animated = [b for b in self.bodies if b.animated]
        objs = self.scan.by_name
        self.dynamic = _parents_first(objs, self.dynamic)
        # Dynamic bodies with transform keys: the keys give the start pose, the simulation
        # moves them after that through their delta transform (the keys keep playing).
        # The bodies' objects, resolved once (a deleted one raises ReferenceError, which
        # drops the cache).
        self.objects = {b.name: objs[b.name] for b in self.bodies}
        self.keyed = frozenset(b.name for b in self.dynamic if not is_body(objs[b.name], scene)
                               and has_transform_animation(objs[b.name]))
        # Dynamic bodies with a delta transform of their own: the channels written go
        # through it (`local_pose`)
        self.deltas = frozenset(b.name for b in self.dynamic if b.name not in self.keyed
                                and has_delta(objs[b.name]))
        for name in self.keyed:
            check_delta(objs[name])
        hit = {b.name for b in self.bodies if b.kind == 'ANIMATED' and
               objs[b.name].ligament_body.hit_impulse > 0.0}
        for obj in scene.objects:   # bodies no longer keyed and dynamic lose our delta
            if obj.ligament_body.sim_delta and obj.name not in self.keyed and \
                    obj.name not in hit:
                clear_delta(obj)
        self.breakable = [(name, j) for name, j in self.joints
                          if objs[name].ligament_joint.breakable]
        parents = {o.parent.name for o in scene.objects if o.parent is not None}
        for b in self.bodies:
            b.has_children = b.name in parents
        # Keyed ancestors (not simulated) of the bodies written in their parent's space: the
        # poses kept for a frame read their keys
        dynamic = {b.name for b in self.dynamic}
        keyed_parents = {}
        for b in self.dynamic:
            p = objs[b.name].parent
            while p is not None and p.name not in dynamic:
                if has_transform_animation(p):
                    keyed_parents[p.name] = p
                p = p.parent
        self.keyed_parents = list(keyed_parents.values())

    def _gather_bulk(self, rest_poses):
        """Unparented, unkeyed, local dynamic bodies in quaternion mode (every ragdoll part):
        their poses are computed as arrays and written in bulk (objects linked from a
        library cannot be written: they are `single`, and their overrides are written one by
        one while the file holds linked objects, see `write_bulk`)."""
        self.bulk = [b for b in self.dynamic if b.name not in self.keyed
                     and b.name not in self.deltas
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
        self.bulk_checked = None       # the rows in the frame's reads last found all there
        self.bulk_poses = {self.start: (
            np.array([rest_poses[b.name][0] for b in self.bulk], dtype=np.float64).reshape(-1, 3),
            np.array([rest_poses[b.name][1] for b in self.bulk], dtype=np.float64).reshape(-1, 4))}

    def _keep_start(self, scene, rest_poses):
        """The start frame kept like a simulated one (poses, solver state), and the watched
        signature the change check compares against."""
        self.watch = Watch(scene, self)
        self.signature = self.watch.signature(scene, Reads(scene, Lookup()))
        self.keys = self.watch.keys()
        # frame -> {name: (loc, rot)} of the single bodies (the bulk ones: bulk_poses)
        self.poses = {self.start: {b.name: rest_poses[b.name] for b in self.single}}
        self.poses[self.start].update(self._hit_poses(self.start, None, {}))
        self.states = {self.start: self.world.save_state()}
        self.world_frame = self.start
        # frame -> digest of what it read (the start: what the build read of the keys)
        self.reads = {self.start: self.start_reads(scene)}

    def joints_not_acting(self, frame):
        """{joint empty name: why it does not act at `frame`}: skipped when the simulation
        was built, or broken at a frame up to `frame`."""
        out = dict(self.skipped)
        out.update((name, f"broke at frame {f}") for name, f in self.broken.items()
                   if f <= frame)
        return out

    def off_keys(self, frame):
        """{name: hit frame} of the hit bodies simulated at `frame` (off their keys)."""
        return self.states[frame].get(HITS, {})

    def hit_list(self):
        """[(frame, body name, impulse N s)] of every hit in the simulated frames."""
        return [(f, name, impulse) for f in sorted(self.states)
                for name, impulse in sorted(self.states[f].get(HIT_LOG, {}).items())]

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
        # changing it keeps the cache. Set only when it changes: the World measures how
        # fast each thread count steps and starts measuring anew when it is set
        threads = scene.render.threads
        if threads != self.world.threads:
            self.world.threads = threads
        with keep_frame(scene):   # reading frames ahead may move the scene's
            for f in range(self.last_frame + 1, frame + 1):
                self.step_to(scene, f)
        return frame

    def send_inputs(self, scene, frame, world, off=None, known=None):
        """What the step that ends at `frame` reads of the animation, sent to `world` (a
        FrameReads, or the World itself): animated bodies' kinematic targets, hit bodies
        (`off`: {name: hit frame} of those off their keys; None: as the cached state before
        `frame` says), ragdoll switches and drives, mechanism inputs, pins' targets and
        switches, and the keys of the parents the poses are written under."""
        objs = self.objects
        known = self.frame_matrices(scene, frame) if known is None else known
        for b in self.animated:
            m = matrix_world_at(objs[b.name], frame, known)
            world.set_kinematic_target(b.id, *shape_pose(b, m))
        if self.hits:
            if off is None:
                off = self.hits.next_off(frame - 1, self.off_keys(frame - 1)) \
                    if frame - 1 in self.states else {}
            keys = {name: matrix_world_at(objs[name], frame, known)
                    for name, hb in self.hits.bodies.items() if hb.ragdoll is None}
            self.hits.before_step(world, frame, keys, off)
        for run in self.ragdolls:
            run.before_step(world, frame, known, off)
        if self.inputs:
            self.inputs.before_step(world, scene, frame, known)
        if self.pins:
            self.pins.before_step(world, frame, known)
        if hasattr(world, "note"):
            for obj in self.keyed_parents:
                world.note(*basis_at(obj, frame))

    def start_reads(self, scene):
        """Digest of what the build read of the keys at the start frame: the keyed objects'
        own channels (animated bodies, keyed dynamic bodies, joint empties, parents), the
        animated ragdolls' poses at the start and the frame after (their start velocity),
        and the inputs as a step at the start would send them."""
        reads = FrameReads(self.world, forward=False)
        for obj in self.watch.keyed:
            reads.note(*basis_at(obj, self.start))
        with keep_frame(scene):   # the depsgraph may be read at the start and the frame after
            for run in self.ragdolls:
                if run.skeleton.animated or is_moving(run.arm):
                    for f in (self.start, self.start + 1):
                        reads.note(*run.animated_poses(f, self.frame_matrices(scene, f)))
            self.send_inputs(scene, self.start, reads)
        return reads.digest()

    def first_changed_frame(self, scene):
        """The first cached frame whose reads differ from what it read when simulated, or
        None."""
        with keep_frame(scene):   # mechanism inputs may read the depsgraph at the frame
            for f in sorted(self.reads):
                if f == self.start:
                    now = self.start_reads(scene)
                else:
                    reads = FrameReads(self.world, forward=False)
                    self.send_inputs(scene, f, reads)
                    now = reads.digest()
                if now != self.reads[f]:
                    return f
        return None

    def forget_from(self, frame):
        """Forget the frames from `frame` on (after the start): the next frame that needs
        them simulates them again from the state of `frame - 1`, which `load_state` makes
        exactly the state a simulation from the start reaches."""
        for kept in (self.poses, self.states, self.bulk_poses, self.reads):
            for f in [f for f in kept if f >= frame]:
                del kept[f]
        self.broken = {name: f for name, f in self.broken.items() if f < frame}
        self.world_frame = None

    def _push(self, frame):
        for push in self.pushes:
            push(self.world, frame)

    def _step(self, frame):
        """One frame of the world; a blow-up (the solver's FloatingPointError: a body's state
        went non-finite) becomes a SceneError that names the bodies and what to change."""
        try:
            self.world.step(self.dt)
        except FloatingPointError:
            w = self.world
            bad = ~(np.isfinite(w.positions).all(axis=1) & np.isfinite(w.orientations).all(axis=1)
                    & np.isfinite(w.linear_velocities).all(axis=1)
                    & np.isfinite(w.angular_velocities).all(axis=1))
            names = [b.name for b in self.bodies if b.id < len(bad) and bad[b.id]]
            self.world_frame = None      # its state is lost: load a kept one to go on
            shown = ", ".join(f"'{n}'" for n in names[:8]) + \
                (f" and {len(names) - 8} more" if len(names) > 8 else "")
            raise SceneError(
                f"The simulation blew up at frame {frame}: bod{'y' if len(names) == 1 else 'ies'}"
                f" {shown or '(unknown)'} went off to infinity. Raise Substeps in Scene > "
                "Ligament World, make the masses of bodies jointed or touching closer (a "
                "ratio under 100:1), or weaken the forces on them (fields, springs, drives)"
            ) from None

    def step_to(self, scene, frame):
        """Simulate `frame` from the state of `frame - 1`."""
        objs = self.objects
        if self.world_frame != frame - 1:
            self.world.load_state(self.states[frame - 1])
        evaluated = self.frame_matrices(scene, frame)
        known = dict(evaluated)
        off = self.hits.next_off(frame - 1, self.off_keys(frame - 1)) if self.hits else {}
        if self.hits:
            self.hits.remember(self.world)      # the steady contacts a hit is measured from
        reads = FrameReads(self.world, forward=True)
        self.send_inputs(scene, frame, reads, off, known)
        # what the frame read of the animation before any hit: a later check reads the same
        self.reads[frame] = reads.digest()
        stats["steps"] += 1
        self._push(frame)
        self._step(frame)
        hit = self.hits.hit_by(self.world, off) if self.hits else None
        if hit:
            # again from the frame before, with the bodies the hit frees dynamic from the
            # start of the step, moving as their keys (or animation) did in it
            world = self.world
            moving = world.linear_velocities.copy(), world.angular_velocities.copy()
            was_dynamic = np.isfinite(world.masses)
            world.load_state(self.states[frame - 1])
            off = dict(off, **{name: frame for name in hit})
            self.send_inputs(scene, frame, world, off, known)
            freed = np.flatnonzero(np.isfinite(world.masses) & ~was_dynamic)
            world.linear_velocities[freed] = moving[0][freed]
            world.angular_velocities[freed] = moving[1][freed]
            self._push(frame)
            self._step(frame)
        self.world_frame = frame
        # a state the step made non-finite raised in World.step (`_step`: a SceneError)
        positions, orientations = self.world.positions, self.world.orientations
        state = self.states[frame] = self.world.save_state()
        if self.hits:
            # part of the frame's state: a replay from any frame takes the same hits
            state[HITS] = off
            if hit:
                state[HIT_LOG] = {name: impulse for name, (impulse, _) in hit.items()}
        for name, j in self.breakable:
            if name not in self.broken and self.world.joint_broken(j):
                self.broken[name] = frame
        self._bulk_poses(frame, positions, orientations)
        poses = {}
        previous = self.poses[frame - 1]
        if self.single:
            positions, orientations = positions.tolist(), orientations.tolist()
        known = dict(evaluated)
        for b in self.single:
            obj = objs[b.name]
            origin, q = body_pose(b, positions[b.id], orientations[b.id])
            parent_world = None
            if obj.parent is not None:
                parent_world = matrix_world_at(obj.parent, frame, known)
            if b.has_children:
                known[b.name] = Matrix.LocRotScale(origin, q, b.scale)
            poses[b.name] = local_pose(obj, origin, q, b.scale, parent_world,
                                       previous[b.name][1], b.name in self.deltas)
        if self.hits:
            poses.update(self._hit_poses(frame, previous, known))
        self.poses[frame] = poses

    def _hit_poses(self, frame, previous, known):
        """{name: (location, rotation values)} of the hit bodies at `frame` as the world
        has them, in their objects' parent space (written through their delta transform)."""
        out = {}
        positions, orientations = self.world.positions, self.world.orientations
        for name in self.hits.keyed:
            b, obj = self.hits.bodies[name].body, self.objects[name]
            origin, q = body_pose(b, positions[b.id].tolist(), orientations[b.id].tolist())
            parent_world = None if obj.parent is None else \
                matrix_world_at(obj.parent, frame, known)
            out[name] = local_pose(obj, origin, q, b.scale, parent_world,
                                   None if previous is None else previous[name][1])
        return out

    def _bulk_poses(self, frame, positions, orientations):
        """The bulk bodies' (locations, quaternions) at `frame`, kept as arrays in
        `bulk_poses`: origin = centre of mass - q (offset), the quaternion's sign continuous
        with the previous frame's (one kernel call, `poses.shape_origins`)."""
        if not len(self.bulk_ids):
            self.bulk_poses[frame] = self.bulk_poses[self.start]
            return
        self.bulk_poses[frame] = pose_kernels.shape_origins(
            positions, orientations, self.bulk_ids, self.bulk_offsets,
            self.bulk_poses[frame - 1][1])

    def before_start(self, scene, frame):
        """The bulk bodies' (locations, quaternions) at `frame`, before the start frame: the
        ragdolls' parts where the animation has them (their bones play the keys, as they
        do where the ragdoll is not simulated), the other bodies at their start pose; None
        when that is the start pose for all."""
        runs = [run for run in self.ragdolls if run.skeleton.animated or is_moving(run.arm)]
        if not runs:
            return None
        loc, rot = (a.copy() for a in self.bulk_poses[self.start])
        row = {b.name: k for k, b in enumerate(self.bulk)}
        known = self.frame_matrices(scene, frame)
        for run in runs:
            for part, m in zip(run.parts, run.animated_poses(frame, known)):
                k = row.get(part.name)
                if k is not None:
                    q = m.to_quaternion()
                    loc[k] = tuple(m.translation)
                    rot[k] = tuple(-q if q.dot(Quaternion(rot[k])) < 0.0 else q)
        return loc, rot

    def write_bulk(self, frame, written, reads, poses=None):
        """Write the bulk bodies' poses at `frame` to their objects: every object's location
        and rotation quaternion in one `foreach_set` each (the others get back what they
        hold), then a transform tag for each body that moved (foreach_set tags nothing).
        Remembers them as written, rounded to the float32 Blender stores.

        The two channels come from the change check's `reads` unless the scene was evaluated
        since (a build or a step that evaluated it at another frame with
        depsgraph_at moves animated objects): then they are read again. `poses`: (locations,
        quaternions) to write instead of the frame's (`before_start`)."""
        if not self.bulk_objects:
            return
        loc, rot = self.bulk_poses[frame] if poses is None else poses
        rows = reads.rows("bulk", self.bulk_uids)
        if rows is not self.bulk_checked:   # the same rows while the objects are the same
            if (rows < 0).any():
                raise ReferenceError("a simulated body left the scene")
            self.bulk_checked = rows
        data, n = reads.data, reads.n
        if reads.evaluations == evaluations():
            # written in place: the reads hold what the objects hold from here on
            locations = reads.channel("location", 3)
            rotations = reads.channel("rotation_quaternion", 4)
        else:
            locations = np.empty((n, 3), dtype=np.float32)
            rotations = np.empty((n, 4), dtype=np.float32)
            data.foreach_get("location", locations.ravel())
            data.foreach_get("rotation_quaternion", rotations.ravel())
        if self.bulk_rows is None:
            self.bulk_rows = written.rows(self.bulk_objects)
        written.mode[self.bulk_rows] = 0
        # the poses rounded to the float32 Blender stores, into the reads' rows and the
        # record of what was written; the bodies whose rows held other values moved
        moved = pose_kernels.store_float32(locations, rotations, rows, loc, rot, written.loc,
                                           written.rot, self.bulk_rows)
        if len(moved) and (reads.lookup.linked or len(moved) * ONE_BY_ONE < n):
            # set on each moved body (each set tags its object): linked objects in the file
            # make foreach_set write nothing (`Lookup.renew`), and a few moved bodies (the
            # others asleep) cost less so than writing every object of the file
            objs = self.bulk_objects
            for k in moved.tolist():
                objs[k].location = locations[rows[k]]
                objs[k].rotation_quaternion = rotations[rows[k]]
        elif len(moved):
            data.foreach_set("location", locations.ravel())
            data.foreach_set("rotation_quaternion", rotations.ravel())
            tags = self.bulk_tags
            for k in moved.tolist():
                tags[k](refresh=_TRANSFORM)


# `write_bulk` sets the moved bodies' channels one object at a time while they are fewer than
# the file's objects over this: an object's two channels set cost about 6 us with their
# tag, two `foreach_set`s over the file's objects about 0.3 us an object and a tag 3.7 us
# (Blender 5.0, 2651 objects)
ONE_BY_ONE = 8

def evaluated_depsgraph(scene):
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


def depsgraph_objects(scene, scan):
    """The objects a frame reads (bodies not simulated, every body's parents, joint empties
    and the objects they point at, ragdoll armatures, force fields, and their parents) whose
    world matrix only the depsgraph knows (`needs_depsgraph`: NLA strips, drivers,
    constraints, delta transforms, bone parents). Simulated bodies are not read: they are
    where the simulation puts them."""
    seen = {}

    def add(obj):
        while obj is not None and obj.name not in seen:
            seen[obj.name] = obj
            obj = obj.parent
    for o in scan.bodies:
        add(o)
    pointers = None     # the joint settings' Object pointers: the same for every joint
    for e in scan.joints:
        add(e)
        js = e.ligament_joint
        if pointers is None:
            pointers = [p.identifier for p in js.bl_rna.properties
                        if p.type == 'POINTER' and getattr(p, "fixed_type", None) is not None
                        and p.fixed_type.identifier == 'Object']
        for name in pointers:
            add(getattr(js, name))
    for arm in scene_ragdolls.armatures(scene):
        add(arm)
    fields = field_objects(scene)
    for field in fields:
        add(field)
    simulated = {o.name for o in scan.bodies if effective_kind(o) == 'DYNAMIC'}
    out = [o for o in seen.values() if o.name not in simulated and needs_depsgraph(o)]
    # a field's settings driven (its strength, say): the depsgraph gives them too
    listed = {o.name for o in out}
    out += [o for o in fields if o.name not in listed and o.animation_data is not None
            and len(o.animation_data.drivers)]
    return out


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
