"""A simulation built a slice of time at a time, so that a big scene's build (hundreds of
convex parts, a crowd of ragdolls) never holds Blender's main thread for long: the world is
built a unit of work at a time (`Simulation.advance_build`: the start matrices, each body's
shape, the joints, the start velocities, the ragdolls, what it keeps of the start frame),
then the scene check runs a group of checks at a time (`build_checks`). The Build
Simulation operator's modal run (ui/operators/world.py) is a thin shell that calls `advance`
on each timer event and `cancel` on Esc, so a test drives the same build without a window or
events. Scripts, background mode and the batch command build in one piece (`build`): the
same units in the same order, so their Simulation is the sliced one's."""

import math
import time
import traceback
import types
from typing import Any

import bpy

from .. import kernels
from ..scene.errors import SceneError
from ..scene.frames import updates
from .simulation import Simulation
from .state import state


# What runs on each new Simulation before it plays: fn(scene, sim) -> findings (objects with
# a `line()`), printed once each; a generator function yields between its units of work and
# returns its findings. The scene check adds itself here when the add-on registers: it
# builds Simulations of its own, so this layer cannot import it.
build_checks: list = []

CHECK_UNITS = 3     # the units each of `build_checks` counts for in the progress (an estimate)
SLICE = 0.05        # s: a new session's slice of building per `advance` (its `budget`)


class BuildSession:
    """One build of `scene`'s Simulation, `advance`d a slice at a time, `cancel`led at any
    point between two slices with the scene as it was (its frame, every transform, the rest
    poses stored on the bodies; nothing cached, no error kept). While it runs it is the
    scene's `SceneState.building`; once FINISHED its Simulation is the scene's (`st.sim`),
    once FAILED the scene's error is the SceneError's message, as a build in one piece
    leaves them."""

    def __init__(self, scene: bpy.types.Scene, depsgraph: Any = None):
        self.scene = scene
        self.state = 'RUNNING'       # then FINISHED, FAILED or CANCELLED
        self.budget = SLICE          # seconds of building per `advance` (at least one unit)
        self.error: Any = None       # the SceneError's message, once FAILED
        self.seconds = 0.0           # the time spent building (the slices, not between them)
        self.slices: list = []       # the units of work each `advance` did
        self.sim: Any = None
        self._depsgraph = depsgraph
        self._checks: Any = None
        self._check_units = 0
        self._sim_units = 0
        self._findings: list = []
        self._settings = _scene_settings(scene)
        st = self._st = state(scene)
        if st.building is not None:
            st.building.cancel()
        st.building = self

    @property
    def fraction(self) -> float:
        """How far the build is, 0 to 1."""
        if self.state == 'FINISHED':
            return 1.0
        if self.sim is None:
            return 0.0
        done = self._units_done()
        total = self.sim.units_total + max(CHECK_UNITS * len(build_checks),
                                           self._check_units + 1)
        return min(done / total, 0.99)

    def status(self) -> str:
        return f"Building simulation: {int(100 * self.fraction)} %"

    def advance(self, budget: float | None = None) -> str:
        """Build for about `budget` seconds (`self.budget` unless given; math.inf: to the
        end), at least one unit of work; the state after."""
        if self.state != 'RUNNING':
            return self.state
        t = time.perf_counter()
        deadline = None if budget == math.inf else \
            t + (self.budget if budget is None else budget)
        before = self._units_done()
        try:
            # the depsgraph updates the slice makes (the build evaluates the depsgraph) are
            # its own: the update handler does not take them for the user's edits
            with updates:
                self._slice(deadline)
        except SceneError as exc:
            self._fail(str(exc))
        except ReferenceError:     # an object it read was deleted: built again after the edit
            self.cancel()
        except BaseException:
            self._drop()
            self.state = 'FAILED'
            self.error = "internal error, see the system console"
            raise
        finally:
            self.seconds += time.perf_counter() - t
            self.slices.append(self._units_done() - before)
            if self.state in ('FINISHED', 'FAILED'):   # how long the build held the caller
                self._st.build_seconds = self.seconds
        return self.state

    def build(self):
        """The whole build at once (scripts, background mode, the batch command): the
        Simulation; raises SceneError as `advance` fails."""
        self.advance(math.inf)
        if self.state == 'FAILED':
            raise SceneError(self.error)
        return self.sim

    def cancel(self):
        """Stop between two slices: nothing kept, the scene as it was."""
        if self.state != 'RUNNING':
            return
        self.state = 'CANCELLED'
        try:
            if self._checks is not None:
                self._checks.close()
            if self.sim is not None and not self.sim.built:
                self.sim.stop_build()
        except ReferenceError:     # the file it was building is gone (a file was loaded)
            pass
        self._drop()

    def edited(self, depsgraph: bpy.types.Depsgraph | None) -> bool:
        """Whether a depsgraph update (not the build's own) changed what the build reads: an
        object's transform or geometry, another data-block than the scene and its objects
        (keys, meshes, collections), or the scene's gravity, frame rate or unit scale (the
        Ligament settings stop it through their update callbacks, `SceneState.invalidate`).
        Selecting objects does not."""
        return _scene_settings(self.scene) != self._settings or edits(depsgraph)

    def _units_done(self):
        return self._sim_units + self._check_units

    def _slice(self, deadline: float | None) -> None:
        scene = self.scene
        if self.sim is None:
            if kernels.blocking():   # a batch bake: prepare the kernels first, with progress
                kernels.prepare_blocking()
            self.sim = Simulation(scene, self._depsgraph, sliced=True)
        sim = self.sim
        if not sim.built:
            done = sim.advance_build(scene, deadline)
            self._sim_units = sim.units_done + done     # the last unit ends the generator
            if not done or self._past(deadline):
                return
        if self._checks is None:
            st = self._st
            for name, message in sim.skipped_bodies.items():
                st.report(f"body '{name}' skipped: {message}")
            for name, message in sim.skipped.items():
                st.report(f"joint '{name}' skipped: {message}")
            self._checks = self._run_checks(scene, sim)
        t = time.perf_counter()
        try:
            while True:
                try:
                    next(self._checks)
                except StopIteration:
                    self._check_units += 1     # the last check's last unit
                    break
                self._check_units += 1
                if self._past(deadline):
                    return
        finally:
            sim.check_seconds += time.perf_counter() - t
        self._finish()

    @staticmethod
    def _past(deadline):
        return deadline is not None and time.perf_counter() >= deadline

    def _run_checks(self, scene: bpy.types.Scene, sim: Simulation):
        """The checks of `build_checks` on the new simulation, a unit at a time: what they
        find is kept on it (printed once when the build ends); it does not stop it."""
        findings = []
        for k, check in enumerate(build_checks):
            if k:
                yield
            try:
                found = check(scene, sim)
                if isinstance(found, types.GeneratorType):
                    found = yield from found
                findings += found
            except Exception:      # a bug in a check must never stop playback
                traceback.print_exc()
        self._findings = findings

    def _finish(self):
        st = self._st
        sim = self.sim
        sim.findings = self._findings
        for f in self._findings:
            st.report(f.line())
        sim.scan = None      # the scene may change from here on
        st.sim, st.error = sim, None
        if st.building is self:
            st.building = None
        self.state = 'FINISHED'

    def _fail(self, message):
        st = self._st
        self._drop()
        self.state = 'FAILED'
        self.error = message
        st.fail(message)

    def _drop(self):
        if self._st.building is self:
            self._st.building = None
        self.sim = None


def _scene_settings(scene: bpy.types.Scene) -> tuple:
    """What the build reads of the scene beyond its objects and the Ligament settings."""
    r = scene.render
    return (tuple(scene.gravity), scene.use_gravity, r.fps, r.fps_base,
            scene.unit_settings.scale_length)


def edits(depsgraph: bpy.types.Depsgraph | None) -> bool:
    """Whether a depsgraph update holds more than a selection: an object's transform or
    geometry, or another data-block than a scene or an object (keys, meshes, collections).
    Without the depsgraph: True."""
    if depsgraph is None:
        return True
    for update in depsgraph.updates:
        idb = update.id
        if isinstance(idb, bpy.types.Scene):
            continue
        if isinstance(idb, bpy.types.Object) and not (update.is_updated_transform or
                                                      update.is_updated_geometry):
            continue
        return True
    return False
