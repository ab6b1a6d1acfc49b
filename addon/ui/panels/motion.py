"""The physics check's settings and report: a subpanel of Properties > Physics > Ligament
Ragdoll and of the sidebar's Ragdoll panel."""

import bpy

from ...authoring import ragdoll
from ...motion import check, rig
from .common import PhysicsButtonsPanel, View3DLigamentPanel

FIGURES = (("parabola_cm", "off the parabola", "cm"), ("momentum_percent", "momentum change", "%"),
           ("outside_cm", "CoM outside support", "cm"),
           ("zmp_outside_cm", "ZMP outside support", "cm"), ("slide_cm", "contacts slide", "cm"))


def draw_motion(layout, arm):
    """The settings, the three buttons and the last check's figures, phase by phase (red
    where a figure is beyond its tolerance)."""
    motion = arm.ligament_motion
    col = layout.column()
    col.use_property_split = True
    col.prop(motion, "contact_distance")
    col.prop(motion, "contact_speed")
    col.prop(motion, "tolerance")
    col.prop(motion, "momentum_tolerance")
    col.prop(motion, "flight_keep")
    col.prop(motion, "show_drawing")
    row = layout.row(align=True)
    row.operator("ligament.physics_check", icon='VIEWZOOM')
    row.operator("ligament.physics_fix", icon='MOD_PHYSICS')
    if motion.keyed_action is not None and motion.fixed_action is not None:
        ad = arm.animation_data
        fixed = ad is not None and ad.action == motion.fixed_action
        layout.operator("ligament.physics_switch",
                        text="Play Keyed Action" if fixed else "Play Fixed Action",
                        icon='ACTION_TWEAK')
        draw_simulated(layout, arm)
    for phase in rig.stored_report(arm):
        failing = check.failures(phase, motion.tolerance, motion.momentum_tolerance)
        box = layout.box()
        box.label(text=f"{phase['kind'].title()} {phase['first']}-{phase['last']}",
                  icon='ERROR' if failing else 'CHECKMARK')
        for key, text, unit in FIGURES:
            if key in phase:
                row = box.row()
                row.alert = key in failing
                row.label(text=f"{text}: {phase[key]:.2f} {unit}")


def draw_simulated(layout, arm):
    """Simulate Fixed, and Play Simulated Action while the pass's bake is on and another
    action plays."""
    motion = arm.ligament_motion
    ad = arm.animation_data
    layout.operator("ligament.physics_simulate", icon='PLAY')
    if motion.simulated_action is not None and arm.ligament_ragdoll.baked and \
            (ad is None or ad.action != motion.simulated_action):
        layout.operator("ligament.physics_switch", text="Play Simulated Action",
                        icon='ACTION_TWEAK').to = 'SIMULATED'


class PHYSICS_PT_ligament_ragdoll_motion(PhysicsButtonsPanel, bpy.types.Panel):
    bl_label = "Physics Check"
    bl_parent_id = "PHYSICS_PT_ligament_ragdoll"
    bl_options = {'DEFAULT_CLOSED'}

    @classmethod
    def poll(cls, context):
        obj = context.object
        return obj is not None and obj.type == 'ARMATURE' and ragdoll.is_ragdoll(obj)

    def draw(self, context):
        draw_motion(self.layout, context.object)


class VIEW3D_PT_ligament_motion(View3DLigamentPanel, bpy.types.Panel):
    bl_label = "Physics Check"
    bl_parent_id = "VIEW3D_PT_ligament_ragdoll"
    bl_options = {'DEFAULT_CLOSED'}

    @classmethod
    def poll(cls, context):
        obj = context.active_object
        return obj is not None and obj.type == 'ARMATURE' and ragdoll.is_ragdoll(obj)

    def draw(self, context):
        draw_motion(self.layout, context.active_object)


classes = (PHYSICS_PT_ligament_ragdoll_motion, VIEW3D_PT_ligament_motion)
