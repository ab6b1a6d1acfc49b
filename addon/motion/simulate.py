"""The simulated pass on top of the physics fix: the fixed action played through the ragdoll's
pose-matching drives with the solver's balance assist (solver/balance.py), so that contacts
and collisions with the scene come out physical, then baked with the ragdoll's bake
(baking/bake.py) into a new action, `<keyed action>_PhysicsSim`.

The pass runs the scene's simulation (its frame range, the scene's other bodies with it) with
the ragdoll's Pose Matching Strength set for the pass (its own where it is keyed), and before
each step:

* the balance assist: a force at the ragdoll's centre of mass toward the polygon of its
  contacts with other bodies, judged on the extrapolated centre of mass, zero once that is
  inside (and in flight);
* at each take-off of the fixed motion (the last stance frame before a flight), its centre
  of mass given the velocity of the fixed flight's parabola there (`take_off_velocities`):
  the legs' push, which drives between the bodies cannot give. The flight itself is the
  solver's, under gravity alone.

The fixed and the keyed action are kept; the armature plays the simulated one, baked (the
ragdoll's Clear Bake gives the fixed one back). `SimulatedPass` runs it a slice of time at a
time (advance, cancel) like baking.session.BakeSession; nothing in the scene changes until
every frame is simulated, so a cancelled or failed pass leaves it as it was.
"""

import time

import bpy
import numpy as np

from ..baking import bake
from ..kernels import balance
from ..runtime import cache
from ..scene.animation import action_fcurves
from ..scene.errors import SceneError
from ..scene.frames import keep_frame
from . import check, rig

SIM_SUFFIX = "_PhysicsSim"
# The assist's stiffness in units of the standing pendulum's own g / h: the pose drives pull
# the body back toward the fixed pose, whose centre of mass the fix leaves 5 mm inside the
# feet as the check sees them; 8 holds a metarig leaning on its heels within them (3 leaves
# it 6 cm behind its heels, held there)
ASSIST_GAIN = 8.0


def take_off_velocities(report, frames, settings):
    """{frame: velocity (3,)}: for each flight of `report` with a take-off and a landing
    frame (the stance frames around it, a and b), the velocity at a of the parabola of
    gravity through the centre of mass at a and at b, the one the fix puts the flight on:
    p(t) = C_a + (C_b - C_a) (t - t_a) / (t_b - t_a) + g (t - t_a)(t - t_b) / 2, so
    p'(t_a) = (C_b - C_a) / (t_b - t_a) - g (t_b - t_a) / 2."""
    frames = np.asarray(frames, dtype=np.float64)
    g = np.asarray(settings.gravity, dtype=np.float64)
    out = {}
    for is_flight, first, last in check.runs(report.flight):
        if not is_flight or first == 0 or last == len(frames) - 1:
            continue
        a, b = first - 1, last + 1
        span = (frames[b] - frames[a]) * settings.dt
        out[float(frames[a])] = (report.com[b] - report.com[a]) / span - 0.5 * g * span
    return out


def _rotations(q):
    """Rotation matrices (n, 3, 3) of unit quaternions (n, 4) (w, x, y, z)."""
    w, x, y, z = np.moveaxis(np.asarray(q, dtype=np.float64), -1, 0)
    return np.stack((np.stack((1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)), -1),
                     np.stack((2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)), -1),
                     np.stack((2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)), -1)),
                    -2)


class Support:
    """Where the simulated ragdoll stands, as the physics check has it: the check's sample
    points of its bodies (a box's corners, a capsule's ends) within Contact Distance of the
    ground. The world's own contacts miss a metarig's heel, 5 cm above the floor while its
    toes touch, and a support of the toes alone is a line no centre of mass is inside."""

    def __init__(self, motion_rig, run):
        c = motion_rig.character
        ids = {p.name: p.body.id for p in run.parts}
        missing = [n for n in c.names if n not in ids]
        if missing:
            raise SceneError(f"Simulated pass: bodies {missing} of the ragdoll are not "
                             "simulated; turn them on")
        body = np.asarray(c.sample_body, dtype=np.int64)
        self.ids = np.array([ids[c.names[b]] for b in body], dtype=np.int64)
        self.local = np.asarray(c.sample_points) - np.asarray(c.centres)[body]
        self.radius = np.asarray(c.sample_radius, dtype=np.float64)
        self.ground = motion_rig.ground
        self.distance = float(np.max(motion_rig.settings.contact_distance))

    def points(self, world):
        """(k, 3) the samples within the contact distance of the ground now."""
        rot = _rotations(world.orientations[self.ids])
        pts = np.einsum("nij,nj->ni", rot, self.local) + world.positions[self.ids]
        gap = self.ground.distance(pts) - self.radius
        return pts[gap <= self.distance]


def _ragdoll_run(sim, arm):
    for run in sim.ragdolls:
        if run.arm == arm:
            return run
    raise SceneError(f"Simulated pass: the ragdoll of '{arm.name}' is not in the simulation; "
                     "turn its ragdoll and the Ligament World on")


class SimulatedPass:
    """One simulated pass of armature `arm`'s fixed action. `progress`: an object with
    `update(done, total)` and `end()`, ended whatever way the pass ends. `assist`: the
    balance assist and take-off pushes on (off: the drives alone, for comparison).
    `strength`: Pose Matching Strength during the pass (unless the ragdoll's is keyed).
    `state` goes RUNNING, then FINISHED, FAILED (with `error`) or CANCELLED."""

    def __init__(self, scene, arm, progress, assist=True, strength=1.0, tolerance=None):
        self.scene, self.arm, self.progress = scene, arm, progress
        self.assist_on, self.tolerance = assist, tolerance
        self.state = 'RUNNING'
        self.error = None
        self.done = self.total = 0
        self.action = None           # the simulated action, once FINISHED
        self.assist = None           # the solver's BalanceAssist while it runs
        self.launches = {}           # {frame: impulse (3,)} given at take-offs
        self.started = time.perf_counter()
        self.budget = 0.05
        self._strength = None        # the ragdoll's own, while the pass sets it
        self.sim = None
        try:
            self._start(strength)
        except Exception as exc:
            self._restore()
            self.progress.end()
            self.state = 'FAILED'
            if not isinstance(exc, SceneError):
                raise
            self.error = str(exc)

    def _start(self, strength):
        scene, arm = self.scene, self.arm
        motion, rd = arm.ligament_motion, arm.ligament_ragdoll
        ad = arm.animation_data
        if motion.fixed_action is None or ad is None or ad.action != motion.fixed_action:
            raise SceneError(f"Simulated pass: armature '{arm.name}' does not play a fixed "
                             "action; run Physics Fix first (or play its fixed action)")
        if rd.baked:
            raise SceneError(f"Simulated pass: the ragdoll of '{arm.name}' is baked; clear "
                             "its bake first (Clear Bake)")
        motion_rig = rig.MotionRig(scene, arm)
        frames, report = motion_rig.check()
        self.launch_at = take_off_velocities(report, frames, motion_rig.settings)
        # the frames the fixed motion flies: no balance to keep (the feet near the floor
        # just after take-off would count as support, and the assist would brake the flight)
        self.flying = {int(f) for f, flies in zip(frames, report.flight) if flies}
        ws = scene.ligament_world
        first, last = max(scene.frame_start, ws.frame_start), min(scene.frame_end, ws.frame_end)
        if last <= first:
            raise SceneError(f"Simulated pass: the scene's frames {scene.frame_start}-"
                             f"{scene.frame_end} and the Ligament World's {ws.frame_start}-"
                             f"{ws.frame_end} do not overlap; set the World's Start and End")
        self.frames = list(range(first, last + 1))
        self.total = len(self.frames)
        keyed = any(path.endswith("drive_strength") for path, _ in action_fcurves(arm))
        if not keyed and rd.drive_strength != strength:
            self._strength = rd.drive_strength
            rd.drive_strength = strength        # drops the scene's simulation
        cache.invalidate(scene)
        sim = self.sim = cache.ensure(scene)
        run = _ragdoll_run(sim, arm)
        if self.assist_on:
            # the feet stand on the floor, whose friction would take their share of the push
            part = dict(zip(motion_rig.character.names, motion_rig.part_names))
            carried = [p.body.id for p in run.parts
                       if not part.get(p.name, "").startswith("foot")]
            self.assist = balance.BalanceAssist(sim.world, carried, gain=ASSIST_GAIN,
                                                 max_share=1.0)
            self.launcher = balance.BalanceAssist(sim.world, run.ids)    # every body
            self.support = Support(motion_rig, run)
            sim.pushes.append(self._push)
        self.poses = []
        self._next = 0

    def _push(self, world, frame):
        """Before the step that ends at `frame`: the take-off's launch, then the assist."""
        take_off = self.launch_at.get(float(frame - 1))
        if take_off is not None:
            self.launches[frame - 1] = self.launcher.launch(take_off)
        if frame not in self.flying:
            self.assist.apply(self.sim.dt, self.support.points(world))

    def advance(self, budget=None):
        """Simulate frames for about `budget` seconds (`self.budget` unless given; at least
        one frame), and write the action after the last; the state after."""
        if self.state != 'RUNNING':
            return self.state
        deadline = time.perf_counter() + (self.budget if budget is None else budget)
        try:
            with keep_frame(self.scene):
                while self._next < self.total:
                    self.poses.append(self.sim.poses_at(self.scene, self.frames[self._next]))
                    self._next += 1
                    self.done = self._next
                    self.progress.update(self.done, self.total)
                    if time.perf_counter() >= deadline:
                        return self.state
            self._write()
            self._end('FINISHED')
        except SceneError as exc:
            self.error = str(exc)
            self._end('FAILED')
        except Exception:
            self._end('FAILED')
            raise
        return self.state

    def run(self):
        """The whole pass at once (scripts, background mode); the state after."""
        while self.advance(budget=float("inf")) == 'RUNNING':
            pass
        return self.state

    def cancel(self):
        """Stop without writing anything."""
        if self.state == 'RUNNING':
            self._end('CANCELLED')

    def seconds(self):
        return time.perf_counter() - self.started

    def _write(self):
        """The simulated poses baked onto the armature (a copy of the fixed action, the bake's
        keys on the ragdoll's bones), named and kept as the simulated action."""
        scene, arm = self.scene, self.arm
        self._detach()
        self._restore()
        motion = arm.ligament_motion
        bake.write_pose_keys(scene, self.sim, [arm], self.frames, self.poses, True,
                             self.tolerance)
        action = arm.animation_data.action
        old = motion.simulated_action
        motion.simulated_action = action
        if old is not None and old != action and old.users == 0:
            bpy.data.actions.remove(old)
        keyed = motion.keyed_action
        action.name = (keyed.name if keyed is not None else arm.name) + SIM_SUFFIX
        self.action = action

    def _detach(self):
        if self.sim is not None and self._push in self.sim.pushes:
            self.sim.pushes.remove(self._push)

    def _restore(self):
        """The ragdoll's own drive strength back (the scene's simulation is dropped)."""
        if self._strength is not None:
            self.arm.ligament_ragdoll.drive_strength = self._strength
            self._strength = None
        cache.invalidate(self.scene)

    def _end(self, outcome):
        if outcome != 'FINISHED':
            self._detach()
            self._restore()
        self.state = outcome
        self.progress.end()


def play(scene, arm, which):
    """Play the armature's 'KEYED', 'FIXED' or 'SIMULATED' action (its slot kept); returns
    it. While the pass's bake is on, the ragdoll plays whichever as keys."""
    motion = arm.ligament_motion
    action = {'KEYED': motion.keyed_action, 'FIXED': motion.fixed_action,
              'SIMULATED': motion.simulated_action}[which]
    if action is None:
        raise SceneError(f"Armature '{arm.name}' has no {which.lower()} action; run Physics "
                         f"Fix{' and Simulate Fixed' if which == 'SIMULATED' else ''} first")
    ad = arm.animation_data
    slot = getattr(ad, "action_slot", None)
    ad.action = action
    if slot is not None and getattr(ad, "action_slot", None) != slot:
        match = action.slots.get(slot.identifier)
        if match is not None:
            ad.action_slot = match
    arm.update_tag()
    cache.invalidate(scene)
    return action


class NoProgress:
    """Progress for a pass nobody watches."""

    def update(self, done, total):
        pass

    def end(self):
        pass


def simulate_armature(scene, arm, assist=True, strength=1.0, tolerance=None):
    """Run the simulated pass of `arm` to the end (scripts); returns the SimulatedPass.
    Raises SceneError when it fails."""
    sp = SimulatedPass(scene, arm, NoProgress(), assist, strength, tolerance)
    if sp.run() == 'FAILED':
        raise SceneError(sp.error)
    return sp
