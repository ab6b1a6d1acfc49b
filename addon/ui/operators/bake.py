"""Bake the simulation to keyframes (with progress and Esc to cancel) and clear a bake. The
modal run is a shell (modal.SessionModal) over baking.session.BakeSession."""

import math
import time
import traceback

import bpy
from bpy.props import BoolProperty, FloatProperty, IntProperty

from ... import kernels
from ...baking import bake
from ...baking.session import BakeSession
from ...check import doctor
from ...runtime import cache
from ...runtime.changes import drop_if_changed
from ...scene.errors import SceneError
from .modal import SessionModal, WindowProgress


def preflight(operator, scene):
    """Print the scene doctor's errors and warnings before a bake, and point to them (they
    do not stop the bake: a scene that cannot run fails in the bake with its own message)."""
    try:
        drop_if_changed(scene)
        if kernels.ready() or kernels.blocking():
            findings = cache.ensure(scene).findings    # checked (and printed) when built
        else:
            findings = doctor.preflight(scene)
            for f in findings:
                print("Ligament: " + f.line())
    except SceneError:
        return
    except Exception:     # a bug in the doctor must not stop a bake
        traceback.print_exc()
        return
    if findings:
        doctor.store(scene, findings)
        operator.report({'WARNING'}, doctor.summary(scene, findings)
                        + " (Scene Check in the sidebar)")


class LIGAMENT_OT_bake(SessionModal, bpy.types.Operator):
    """Bake the Ligament simulation to location and rotation keyframes of every dynamic body,
    and of the bones of every ragdoll"""
    bl_idname = "ligament.bake"
    bl_label = "Bake to Keyframes"
    bl_options = {'REGISTER', 'UNDO'}

    frame_start: IntProperty(name="Start Frame", default=1)
    frame_end: IntProperty(name="End Frame", default=250)
    step: IntProperty(name="Frame Step", default=1, min=1, max=120)
    # default: the scene's bake settings (Scene > Ligament World, the sidebar)
    reduce_keys: BoolProperty(name="Reduce Keys", default=False,
                              description="Only the keys needed to stay within the tolerances")
    tolerance_location: FloatProperty(name="Location Tolerance", default=0.001, min=0.0,
                                      unit='LENGTH', precision=4,
                                      description="How far a baked body, or any bone of a "
                                                  "baked ragdoll (fingers included), may be "
                                                  "from its simulated location in world space")
    tolerance_rotation: FloatProperty(name="Rotation Tolerance", default=math.radians(0.5), min=0.0,
                                      unit='ROTATION',
                                      description="How far each baked body's or bone's own "
                                                  "rotation may turn from the simulated one")

    @classmethod
    def poll(cls, context):
        scene = context.scene
        if scene is None or not (bake.bakeable(scene) or bake.bakeable_ragdolls(scene)):
            cls.poll_message_set("No dynamic Ligament bodies or ragdolls left to bake")
            return False
        return True

    def _defaults(self, scene):
        ws = scene.ligament_world
        if not self.properties.is_property_set("frame_start"):
            self.frame_start = ws.frame_start
        if not self.properties.is_property_set("frame_end"):
            self.frame_end = ws.frame_end
        for name, setting in (("reduce_keys", "bake_reduce"),
                              ("tolerance_location", "bake_tolerance_location"),
                              ("tolerance_rotation", "bake_tolerance_rotation")):
            if not self.properties.is_property_set(name):
                setattr(self, name, getattr(ws, setting))

    def _tolerance(self):
        return (self.tolerance_location, self.tolerance_rotation) if self.reduce_keys else None

    def execute(self, context):
        """Synchronous bake (scripts, background mode): progress is printed."""
        scene = context.scene
        self._defaults(scene)
        preflight(self, scene)
        last = [0.0]
        t0 = time.perf_counter()

        def progress(done, total):
            now = time.perf_counter()
            if done == total or now - last[0] > 1.0:
                last[0] = now
                print(f"Ligament: baking {done}/{total} frames ({now - t0:.1f} s)")
        try:
            objs = bake.bake(scene, self.frame_start, self.frame_end, self.step,
                             progress if bpy.app.background else None, self._tolerance())
        except SceneError as exc:
            self.report({'ERROR'}, str(exc))
            return {'CANCELLED'}
        scene.frame_set(scene.frame_current)
        _report_done(self, scene, f"Baked {len(objs)} objects, frames {self.frame_start}-"
                                  f"{self.frame_end}, {bake.last_key_count(scene).line()}, in "
                                  f"{time.perf_counter() - t0:.1f} s")
        return {'FINISHED'}

    def invoke(self, context, event):
        if bpy.app.background:
            return self.execute(context)
        self._defaults(context.scene)
        preflight(self, context.scene)
        session = BakeSession(context.scene, WindowProgress(context, "baking frame"),
                              self.frame_start, self.frame_end, self.step, self._tolerance())
        return self._start(context, session)

    def _finish(self, context, session):
        stopped = self._report_stopped(session, "Bake")
        if stopped:
            return stopped
        scene = session.scene
        scene.frame_set(scene.frame_current)
        _report_done(self, scene, f"Baked {len(session.baked)} objects, "
                                  f"{bake.last_key_count(scene).line()}, in "
                                  f"{session.seconds():.1f} s")
        return {'FINISHED'}


def _report_done(op, scene, message):
    """The bake's summary; a warning that names the bodies left out (no shape) and the joints
    that did not act (skipped when the simulation was built, or broken, with the frame)."""
    sim = bake.last_simulation(scene)
    problems = [] if sim is None else [
        f"'{n}' {m if n in sim.broken else f'skipped ({m})'}"
        for n, m in sim.joints_not_acting(sim.end).items()]
    left_out = [] if sim is None else [f"'{n}' ({m})" for n, m in sim.skipped_bodies.items()]
    if left_out:
        message += "; bodies not simulated: " + "; ".join(left_out)
    if problems:
        op.report({'WARNING'}, f"{message}; joints not acting: " + "; ".join(problems))
    elif left_out:
        op.report({'WARNING'}, message)
    else:
        op.report({'INFO'}, message)


class LIGAMENT_OT_clear_bake(bpy.types.Operator):
    """Remove the baked keyframes and give the objects back their previous animation"""
    bl_idname = "ligament.clear_bake"
    bl_label = "Clear Bake"
    bl_options = {'REGISTER', 'UNDO'}

    selected_only: BoolProperty(name="Selected Only", default=False)

    @classmethod
    def poll(cls, context):
        if context.scene is None or not any(o.ligament_body.baked or o.ligament_ragdoll.baked
                                            for o in context.scene.objects):
            cls.poll_message_set("Nothing is baked")
            return False
        return True

    def execute(self, context):
        objs = context.selected_objects if self.selected_only else None
        cleared = bake.clear_bake(context.scene, objs)
        if not cleared:
            self.report({'WARNING'}, "None of the selected objects is baked")
            return {'CANCELLED'}
        context.scene.frame_set(context.scene.frame_current)
        self.report({'INFO'}, f"Cleared the bake of {len(cleared)} objects")
        return {'FINISHED'}


classes = (LIGAMENT_OT_bake, LIGAMENT_OT_clear_bake)
register, unregister = bpy.utils.register_classes_factory(classes)
