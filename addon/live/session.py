"""Live Mode: the simulation run in place at the current frame, time standing still. The
character starts from the pose the simulation has at the frame and moves on under gravity,
its drives pulling toward the frame's animated pose, while the animator pulls its parts,
pins and unpins them, drops it limp, tenses or relaxes it, switches gravity, steps back
through the last changes, and keeps a pose as keys at the frame (Transfer).

`LiveSession` holds all of it: a World of its own (a second Simulation of the scene, loaded
with the cached state of the frame), stepped with the inputs of that one frame. The scene's
cache is not touched: while the session runs the frame and edit handlers leave the scene to
it (`SceneState.live`), and `stop` puts every body back as it was. The operator in the 3D View
(ui/operators/live.py) only turns events and timer ticks into its verbs; tests call the verbs
directly, with the view's rays given as numbers.

A drag is a soft pin of the World (`hertz`, `damping_ratio`, capped at `max_force`) whose
target `move` sets, read by the very next step; a click pin is a rigid one holding the
point where it is. Pins made in Live Mode live in its World only: the scene gets none."""

import collections
import time

import numpy as np
from mathutils import Matrix, Vector

from ..authoring.drag import PARALLEL, WHEEL_STEP, pick
from ..baking.transfer import chosen_runs, key_pose
from ..runtime import cache
from ..runtime.changes import drop_if_changed
from ..runtime.simulation import HITS, Simulation
from ..runtime.state import state
from ..scene.animation import matrix_world_at, rotation_values
from ..scene.errors import SceneError
from ..scene.objects import world_settings
from ..world.poses import apply_delta, apply_pose, body_pose, local_pose

HISTORY = 50           # changes `undo` steps back through
TENSE = 2.0            # Tense multiplies every drive's strength by this, Relax divides
TIMED_STEPS = 12       # the step time is the mean of the last this many steps

_CHANNELS = ("location", "rotation_quaternion", "rotation_euler", "rotation_axis_angle",
             "delta_location", "delta_rotation_quaternion", "delta_rotation_euler")


class Change:
    """What `undo` puts back: the World's exact state, the bodies' transform channels as
    written (an Euler written again from the same orientation may differ in its last bit:
    it is kept continuous with the one before), and the session's own settings."""
    __slots__ = ("state", "transforms", "scale", "dropped", "gravity", "pins", "label")

    def __init__(self, session, label):
        self.state = session.world.save_state()
        objs = session.sim.objects
        self.transforms = {b.name: _transform(objs[b.name]) for b in session.sim.dynamic}
        self.scale, self.dropped = session.scale, session.dropped
        self.gravity = session.gravity_on
        self.pins = dict(session.pins)
        self.label = label


class LiveSession:
    """Live Mode in `scene` at its current frame. Verbs: `start`, `step`, `grab`, `move`,
    `wheel`, `release`, `pin`, `unpin`, `drop`, `tense`, `relax`, `gravity`, `undo`,
    `transfer`, `stop`. Each change (grab, pin, unpin, drop, tense, relax, gravity) can be
    stepped back with `undo`, the last HISTORY of them.

    hertz, damping_ratio  the drag's spring (soft: the part trails the cursor)
    max_force             the most force (N) a drag pulls with (0: no limit)
    clock                 seconds, for the step time the header reports (a stand-in in
                          tests)"""

    def __init__(self, scene, hertz=3.0, damping_ratio=1.0, max_force=500.0,
                 clock=time.perf_counter):
        self.scene = scene
        self.hertz, self.damping_ratio, self.max_force = hertz, damping_ratio, max_force
        self.clock = clock
        self.sim = None
        self.frame = None
        self.scale, self.dropped, self.gravity_on = 1.0, False, True
        self.pins = {}             # body name -> joint id of its click pin (on)
        self.drag = None           # (joint id, body object, (plane point, normal))
        self.history = collections.deque(maxlen=HISTORY)
        self.times = collections.deque(maxlen=TIMED_STEPS)
        self.steps = 0

    # --- start and stop -------------------------------------------------------------------

    @property
    def world(self):
        return self.sim.world

    @property
    def running(self):
        return self.sim is not None

    def start(self):
        """Start at the scene's current frame (clamped to the simulated range) from the pose
        the simulation has there. Raises SceneError when the scene cannot simulate or Live
        Mode already runs in it."""
        scene = self.scene
        st = state(scene)
        if st.live is not None:
            raise SceneError(f"Live Mode already runs in scene '{scene.name}'; leave it first")
        if not scene.ligament_world.enabled:
            raise SceneError(f"Live Mode: the simulation of scene '{scene.name}' is off; turn "
                             "on Simulate (Scene > Ligament World)")
        drop_if_changed(scene)
        cached = cache.ensure(scene)
        frame = cached.simulate_to(scene, scene.frame_current)
        sim = Simulation(scene)
        saved = cached.states[frame]
        sim.world.load_state(saved)
        sim.world.threads = scene.render.threads
        self.sim, self.frame = sim, frame
        self.off = dict(saved.get(HITS, {}))      # hit bodies off their keys stay off
        self.known = sim.frame_matrices(scene, frame)
        self.full_gravity = world_settings(scene)["gravity"]
        self.saved = {b.name: _transform(sim.objects[b.name]) for b in sim.dynamic}
        st.live = self
        self._write()

    def stop(self):
        """Leave Live Mode: every body back where it was when it started (the keys a
        Transfer wrote stay)."""
        if self.sim is None:
            return
        sim, self.sim, self.drag = self.sim, None, None
        st = state(self.scene)
        if st.live is self:
            st.live = None
        written = st.written
        for name, values in self.saved.items():
            obj = sim.objects[name]
            _restore(obj, values)
            written.record(obj)

    # --- stepping -------------------------------------------------------------------------

    def step(self):
        """One step of the scene's frame length with the inputs of the session's frame, the
        bodies then written to their objects."""
        t = self.clock()
        sim, world = self.sim, self.world
        sim.send_inputs(self.scene, self.frame, world, self.off, dict(self.known))
        try:
            world.step(sim.dt)
        except FloatingPointError:
            raise SceneError("Live Mode: the simulation blew up; step back (Undo) or raise "
                             "Substeps in Scene > Ligament World") from None
        self._write()
        self.steps += 1
        self.times.append(self.clock() - t)

    def step_time(self):
        """The mean time (s) of the last steps, or None before any."""
        return sum(self.times) / len(self.times) if self.times else None

    def status(self):
        """What the header says of the speed: stepping at the scene's frame rate, or how
        far behind it the machine is."""
        fps = 1.0 / self.sim.dt
        took = self.step_time()
        if took is None or took <= self.sim.dt:
            return f"Live at {fps:g} fps"
        return (f"Live: {took * 1000.0:.0f} ms a step, slower than the scene's {fps:g} fps "
                f"({self.sim.dt * 1000.0:.0f} ms): playing at {1.0 / took:.1f} fps")

    # --- dragging -------------------------------------------------------------------------

    def grab(self, origin, direction, forward=None):
        """Grab the body the ray meets at its point: a soft pin there, its target moving in
        the plane through the point facing `forward` (default the ray's direction). Returns
        the body's object, or None when the ray meets none."""
        found = pick(self.scene, origin, direction, self.matrix)
        if found is None:
            return None
        obj, point = found
        self._remember(f"Drag {obj.name}")
        j = self._add_pin(obj, point, self.hertz, self.damping_ratio, self.max_force)
        normal = Vector(forward if forward is not None else direction).normalized()
        self.drag = (j, obj, (point.copy(), normal))
        return obj

    def move(self, origin, direction):
        """The drag's target where the ray meets its plane, read by the next step. Returns
        the target, or None (no drag, or a ray along the plane)."""
        if self.drag is None:
            return None
        j, _, (point, normal) = self.drag
        d = Vector(direction)
        along = d.dot(normal)
        if abs(along) < PARALLEL:
            return None
        target = Vector(origin) + d * ((point - Vector(origin)).dot(normal) / along)
        self.world.set_pin_target(j, tuple(target))
        return target

    def wheel(self, steps, origin):
        """The drag's plane away from the view (`steps` > 0) or toward it (the target moves
        on the next `move`)."""
        if self.drag is None:
            return
        j, obj, (point, normal) = self.drag
        depth = (point - Vector(origin)).dot(normal)
        self.drag = (j, obj, (point + normal * depth * (WHEEL_STEP ** steps - 1.0), normal))

    def release(self, pin=False):
        """Let go (or with `pin`, leave the pull on where it is: the body's pin). Returns
        the body's object."""
        if self.drag is None:
            return None
        j, obj, _ = self.drag
        self.drag = None
        if pin:
            old = self.pins.get(obj.name)
            if old is not None:
                self.world.set_pin(old, enabled=False)
            self.pins[obj.name] = j
        else:
            self.world.set_pin(j, enabled=False)
        return obj

    # --- pins -----------------------------------------------------------------------------

    def pin(self, origin, direction):
        """Pin the body under the ray where it is (a rigid pin at the point), or unpin it
        when it is pinned. Returns ('PINNED' or 'UNPINNED', object), or None."""
        found = pick(self.scene, origin, direction, self.matrix)
        if found is None:
            return None
        obj, point = found
        if obj.name in self.pins:
            self.unpin(origin, direction)
            return 'UNPINNED', obj
        self._remember(f"Pin {obj.name}")
        self.pins[obj.name] = self._add_pin(obj, point, 0.0, 1.0, 0.0)
        return 'PINNED', obj

    def unpin(self, origin, direction):
        """Unpin the body under the ray. Returns its object, or None (no pinned body)."""
        found = pick(self.scene, origin, direction, self.matrix)
        if found is None or found[0].name not in self.pins:
            return None
        obj = found[0]
        self._remember(f"Unpin {obj.name}")
        self.world.set_pin(self.pins.pop(obj.name), enabled=False)
        return obj

    def _add_pin(self, obj, point, hertz, damping_ratio, max_force):
        """A new pin of the World on `obj`'s body at `point`. The states kept for `undo`
        gain its rows, switched off: a state from before it loads into the World as it now
        is (`World.load_state` takes states of the same joints), the pin then not acting."""
        world = self.world
        body = self._bodies()[obj.name]
        before = world.save_state()
        j = world.add_pin(body.id, tuple(point), hertz=hertz, damping_ratio=damping_ratio,
                          max_force=max_force or None)
        world.set_pin(j, enabled=False)
        after = world.save_state()
        grown = [k for k, v in after.items() if isinstance(v, np.ndarray) and v.ndim and
                 isinstance(before.get(k), np.ndarray) and len(before[k]) != len(v)]
        for change in self.history:
            for k in grown:
                old = change.state[k]
                change.state[k] = np.concatenate((old, after[k][len(old):]))
        world.set_pin(j, enabled=True)
        return j

    # --- the character --------------------------------------------------------------------

    def drop(self, on=True):
        """The pose drives off (the ragdolls go limp), or back on."""
        self._remember("Drop" if on else "Pick Up")
        self.dropped = bool(on)
        self._scale_drives()

    def tense(self, factor=TENSE):
        """Every drive's strength (and torque cap) times `factor`."""
        self._remember("Tense")
        self.scale *= factor
        self._scale_drives()

    def relax(self, factor=TENSE):
        """Every drive's strength (and torque cap) divided by `factor`."""
        self._remember("Relax")
        self.scale /= factor
        self._scale_drives()

    def gravity(self, on):
        """The scene's gravity on or off."""
        self._remember("Gravity On" if on else "Gravity Off")
        self.gravity_on = bool(on)
        self.world.gravity = self.full_gravity if on else (0.0, 0.0, 0.0)

    def _scale_drives(self):
        for run in self.sim.ragdolls:
            run.scale_drives(0.0 if self.dropped else self.scale)

    # --- undo and transfer ----------------------------------------------------------------

    def _remember(self, label):
        if self.drag is not None:      # a change during a drag ends it first
            self.release()
        self.history.append(Change(self, label))

    def undo(self):
        """Step back to before the last change: the World's state exactly as it was, the
        session's settings, the bodies written. Returns the change's label, or None when
        there is none left."""
        if not self.history:
            return None
        self.drag = None
        change = self.history.pop()
        self.world.load_state(change.state)
        self.scale, self.dropped = change.scale, change.dropped
        self.pins = dict(change.pins)
        self.gravity_on = change.gravity
        self.world.gravity = self.full_gravity if change.gravity else (0.0, 0.0, 0.0)
        if any(run.scaled for run in self.sim.ragdolls) or self.scale != 1.0 or self.dropped:
            self._scale_drives()
        written = state(self.scene).written
        for name, values in change.transforms.items():
            obj = self.sim.objects[name]
            _restore(obj, values)
            if name not in self.sim.keyed:
                written.record(obj)
        return change.label

    def poses(self):
        """{body name: (location, quaternion)} of the dynamic bodies in the live World."""
        pos, ori = self.world.positions, self.world.orientations
        out = {}
        for b in self.sim.dynamic:
            origin, q = body_pose(b, pos[b.id], ori[b.id])
            out[b.name] = (tuple(origin), tuple(q))
        return out

    def transfer(self, armatures=None, bones=None):
        """Key the live pose at the session's frame onto the ragdolls of `armatures` (all)
        or their control rigs, as Transfer Pose does (with `bones`: {armature name: bone
        names}, those bones' parts only). Returns {armature or rig name: [bones keyed]}."""
        runs = chosen_runs(self.sim, armatures)
        return key_pose(self.scene, runs, self.poses(), self.frame, bones)

    # --- the bodies' objects --------------------------------------------------------------

    def _bodies(self):
        return {b.name: b for b in self.sim.dynamic}

    def matrix(self, obj):
        """The world matrix of a dynamic body's object in the live World (what `pick`
        meets: the depsgraph may not have evaluated the written transforms yet)."""
        b = self._bodies().get(obj.name)
        if b is None:
            return None
        origin, q = body_pose(b, self.world.positions[b.id], self.world.orientations[b.id])
        return Matrix.LocRotScale(origin, q, b.scale)

    def _write(self):
        """Every dynamic body's object where the live World has it (parents first, so a
        child's parent matrix is its simulated one)."""
        sim, frame = self.sim, self.frame
        pos, ori = self.world.positions, self.world.orientations
        written = state(self.scene).written
        known = dict(self.known)
        for b in sim.dynamic:
            obj = sim.objects[b.name]
            origin, q = body_pose(b, pos[b.id], ori[b.id])
            parent_world = None
            if obj.parent is not None:
                parent_world = matrix_world_at(obj.parent, frame, known)
            if b.has_children:
                known[b.name] = Matrix.LocRotScale(origin, q, b.scale)
            loc, rot = local_pose(obj, origin, q, b.scale, parent_world, rotation_values(obj),
                                  b.name in sim.deltas)
            if b.name in sim.keyed:    # its keys play: the delta transform moves it
                apply_delta(obj, frame, loc, rot)
            else:
                apply_pose(obj, loc, rot)
                written.record(obj)


def _transform(obj):
    """An object's transform channels (all rotation modes, the deltas) and delta flag."""
    return ({c: tuple(getattr(obj, c)) for c in _CHANNELS}, obj.ligament_body.sim_delta)


def _restore(obj, values):
    channels, sim_delta = values
    for c, v in channels.items():
        if tuple(getattr(obj, c)) != v:
            setattr(obj, c, v)
    if obj.ligament_body.sim_delta != sim_delta:
        obj.ligament_body.sim_delta = sim_delta
