"""The physics check and fix of the active ragdolled armature's keyed motion, and the switch
between the keyed and the fixed action (addon/motion)."""

import bpy
from bpy.props import BoolProperty, EnumProperty, FloatProperty

from ...motion import check, rig, simulate
from ...scene.errors import SceneError
from ...scene.ragdolls import group_missing_in_library
from .modal import SessionModal, WindowProgress
from .ragdoll import armature_poll


def _describe(phases, motion):
    """One line: how many phases, and how many of them fail."""
    failing = [p for p in phases
               if check.failures(p, motion.tolerance, motion.momentum_tolerance)]
    return f"{len(phases)} phases, {len(failing)} beyond the tolerances"


def refuse_unkept(arm):
    """A library override whose character file was saved without the physics check's
    settings could not keep the check's results and the fix's actions through a save."""
    library = group_missing_in_library(arm, "ligament_motion")
    if library is not None:
        raise SceneError(f"'{arm.name}' comes from '{library}', saved by an older Ligament "
                         "without the physics check's settings: this file's library override "
                         f"could not keep the check and the fix. Open '{library}' and save "
                         "it once, then check here")


class LIGAMENT_OT_physics_check(bpy.types.Operator):
    """Check the active ragdolled armature's keyed motion against physics: flights on
    parabolas of gravity keeping their angular momentum, balance over the contacts"""
    bl_idname = "ligament.physics_check"
    bl_label = "Physics Check"
    bl_options = {'REGISTER'}

    @classmethod
    def poll(cls, context):
        return armature_poll(cls, context, has_ragdoll=True)

    def execute(self, context):
        arm = context.active_object
        try:
            refuse_unkept(arm)
            frames, report = rig.check_armature(context.scene, arm)
        except (SceneError, ValueError) as exc:
            self.report({'ERROR'}, str(exc))
            return {'CANCELLED'}
        self.report({'INFO'}, f"Physics check of '{arm.name}': "
                              f"{_describe(rig.stored_report(arm), arm.ligament_motion)}")
        return {'FINISHED'}


class LIGAMENT_OT_physics_fix(bpy.types.Operator):
    """Make a fixed action of the active ragdolled armature's keyed motion (flights on
    parabolas of gravity, spins keeping their momentum, take-off and landing kept, balance
    over the feet) and play it; the keyed action is kept"""
    bl_idname = "ligament.physics_fix"
    bl_label = "Physics Fix"
    bl_options = {'REGISTER', 'UNDO'}

    flight: BoolProperty(name="Flight", default=True,
                         description="Move the root so that the centre of mass follows the "
                                     "parabola of gravity in each flight, take-off and "
                                     "landing as keyed")
    spin: BoolProperty(name="Spin", default=True,
                       description="Re-time the root's rotation in each flight so that the "
                                   "angular momentum stays constant, landing as keyed")
    keep: EnumProperty(name="Flight Keeps", items=(
        ('TIMING', "Timing", "Take-off and landing where they were keyed; the flight's height "
                             "follows"),
        ('HEIGHT', "Height", "The flight's keyed apex height; its length follows and the keys "
                             "after it shift in time")),
        default='TIMING', description="What a flight put on the parabola of gravity keeps "
                                      "(the armature's Flight Keeps setting unless set here)")
    balance: BoolProperty(name="Balance", default=True,
                          description="Shift the pelvis in stance by the least that puts the "
                                      "centre of mass over the support polygon, the legs "
                                      "reaching the keyed feet (not where it falls: "
                                      "accelerating a quarter of gravity on average)")

    @classmethod
    def poll(cls, context):
        return armature_poll(cls, context, has_ragdoll=True)

    def execute(self, context):
        arm = context.active_object
        keep = self.keep if self.properties.is_property_set("keep") else \
            arm.ligament_motion.flight_keep
        try:
            refuse_unkept(arm)
            rig.fix_armature(context.scene, arm, flight=self.flight, spin=self.spin,
                             balance=self.balance, keep=keep)
        except (SceneError, ValueError) as exc:
            self.report({'ERROR'}, str(exc))
            return {'CANCELLED'}
        motion = arm.ligament_motion
        self.report({'INFO'}, f"'{arm.name}' plays '{motion.fixed_action.name}' "
                              f"('{motion.keyed_action.name}' kept): "
                              f"{_describe(rig.stored_report(arm), motion)}")
        return {'FINISHED'}


class LIGAMENT_OT_physics_switch(bpy.types.Operator):
    """Play the keyed action instead of the fixed one, or the fixed one instead of the
    keyed one"""
    bl_idname = "ligament.physics_switch"
    bl_label = "Switch Keyed / Fixed"
    bl_options = {'REGISTER', 'UNDO'}

    to: EnumProperty(name="Play", default='TOGGLE', items=(
        ('TOGGLE', "Toggle", "The keyed action if the fixed one plays, else the fixed one"),
        ('KEYED', "Keyed", "The keyed action"),
        ('FIXED', "Fixed", "The fixed action"),
        ('SIMULATED', "Simulated", "The simulated pass's action (Simulate Fixed)")))

    @classmethod
    def poll(cls, context):
        if not armature_poll(cls, context, has_ragdoll=True):
            return False
        motion = context.active_object.ligament_motion
        if motion.keyed_action is None or motion.fixed_action is None:
            cls.poll_message_set("No fixed action yet: run Physics Fix")
            return False
        return True

    def execute(self, context):
        arm = context.active_object
        try:
            action = rig.switch(context.scene, arm) if self.to == 'TOGGLE' else \
                simulate.play(context.scene, arm, self.to)
        except SceneError as exc:
            self.report({'ERROR'}, str(exc))
            return {'CANCELLED'}
        self.report({'INFO'}, f"'{arm.name}' plays '{action.name}'")
        return {'FINISHED'}


# --------------------------------------------------------------------------------------------
# The simulated pass: a shell over motion.simulate.SimulatedPass

class LIGAMENT_OT_physics_simulate(SessionModal, bpy.types.Operator):
    """Play the fixed action through the ragdoll's pose matching with a balance assist (a
    force at the centre of mass toward the feet, fading as balance returns), so contacts
    and collisions come out physical, and bake it into a new action (the keyed and the
    fixed action are kept; Clear Bake gives the fixed one back). Esc cancels"""
    bl_idname = "ligament.physics_simulate"
    bl_label = "Simulate Fixed"
    bl_options = {'REGISTER', 'UNDO'}

    assist: BoolProperty(name="Balance Assist", default=True,
                         description="Push the centre of mass toward the support polygon "
                                     "while it is outside (fading as balance returns) and "
                                     "give each take-off the fixed flight's velocity; off: "
                                     "the pose drives alone")
    strength: FloatProperty(name="Drive Strength", default=1.0, min=0.0, max=1.0,
                            subtype='FACTOR',
                            description="Pose Matching Strength during the pass (the "
                                        "ragdoll's own where it is keyed)")

    @classmethod
    def poll(cls, context):
        if not armature_poll(cls, context, has_ragdoll=True):
            return False
        if context.active_object.ligament_motion.fixed_action is None:
            cls.poll_message_set("No fixed action yet: run Physics Fix")
            return False
        return True

    def _pass(self, context, progress):
        ws = context.scene.ligament_world
        tolerance = (ws.bake_tolerance_location, ws.bake_tolerance_rotation) \
            if ws.bake_reduce else None
        return simulate.SimulatedPass(context.scene, context.active_object, progress,
                                      self.assist, self.strength, tolerance)

    def execute(self, context):
        session = self._pass(context, simulate.NoProgress())
        session.run()
        return self._finish(context, session)

    def invoke(self, context, event):
        if bpy.app.background:
            return self.execute(context)
        session = self._pass(context, WindowProgress(context, "simulated pass, frame"))
        if session.state != 'RUNNING':
            return self._finish(context, session)
        return self._start(context, session)

    def _finish(self, context, session):
        stopped = self._report_stopped(session, "Simulated pass")
        if stopped:
            return stopped
        scene = context.scene
        scene.frame_set(scene.frame_current)
        self.report({'INFO'}, f"'{session.arm.name}' plays '{session.action.name}' "
                              f"({len(session.frames)} frames simulated in "
                              f"{session.seconds():.1f} s)")
        return {'FINISHED'}


classes = (LIGAMENT_OT_physics_check, LIGAMENT_OT_physics_fix, LIGAMENT_OT_physics_switch,
           LIGAMENT_OT_physics_simulate)
register, unregister = bpy.utils.register_classes_factory(classes)
