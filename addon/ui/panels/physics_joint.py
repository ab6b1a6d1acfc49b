"""Properties > Physics on an empty: the Ligament Joint panel (with the mechanism joints' own
settings) and its Limits, Motor and Spring subpanels."""

import bpy

from ...runtime import cache
from ...scene.curves import curve_motion, steering_driven, steering_fcurve
from ...world import mechanisms
from .common import LINE_CHARS, PhysicsButtonsPanel, wrap

class JointPanel(PhysicsButtonsPanel):
    @classmethod
    def poll(cls, context):
        obj = context.object
        return obj is not None and obj.type == 'EMPTY'


class PHYSICS_PT_ligament_joint(JointPanel, bpy.types.Panel):
    bl_label = "Ligament Joint"

    def draw_header(self, context):
        self.layout.prop(context.object.ligament_joint, "enabled", text="")

    def draw(self, context):
        layout = self.layout
        layout.use_property_split = True
        j = context.object.ligament_joint
        layout.active = j.enabled
        layout.prop(j, "type")
        col = layout.column(align=True)
        fields = BODY_FIELDS.get(j.type, (("a", "Object A"), ("b", "Object B")))
        for which, text in fields:
            col.prop(j, "object_" + which, text=text)
        for which, _ in fields:
            obj = getattr(j, "object_" + which)
            if j.enabled and obj is not None and not obj.ligament_body.enabled:
                layout.label(text=f"'{obj.name}' is not a Ligament body", icon='ERROR')
        if j.type in mechanisms.TYPES or j.type == 'MOTOR':
            draw_mechanism(layout, context.scene, j)
        if j.type == 'PIN':
            draw_pin(layout, j)
        else:
            layout.prop(j, "disable_collisions")
        row = layout.row(heading="Breakable")
        row.prop(j, "breakable", text="")
        sub = row.row()
        sub.active = j.breakable
        sub.prop(j, "break_threshold")
        problem = cache.joint_status(context.scene, context.object.name) if j.enabled else None
        if problem:
            box = layout.box()
            box.alert = True
            for i, line in enumerate(wrap(f"Not acting: {problem}", LINE_CHARS)):
                box.label(text=line, icon='UNLINKED' if i == 0 else 'BLANK1')
        axis = {'HINGE': "Rotates about the empty's local Z", 'PRISMATIC': "Slides along local X",
                'CUSTOM': "pA, pB at the empty; uA, uB along its local Z",
                'RAGDOLL': "Twists about local Y", 'MOTOR': "Spins about local Z",
                'WHEEL': "Spins about local Z, suspension along local Y",
                'LINE': "B's point slides along local X, turns freely",
                'PATH': "B's point at the empty follows the curve",
                'PULLEY': "Rope: A's centre, Fixed A, Fixed B, B's centre",
                'PIN': "Pulls the body's point to the empty"}.get(j.type)
        if axis:
            layout.label(text=axis, icon='EMPTY_ARROWS')


def draw_pin(layout, j):
    """A Pin's spring, limits and orientation (world/pins.py)."""
    col = layout.column(align=True)
    col.prop(j, "pin_hertz", text="Stiffness (Hz)")
    sub = col.column(align=True)
    sub.active = j.pin_hertz > 0.0
    sub.prop(j, "pin_damping_ratio")
    layout.prop(j, "pin_max_force")
    layout.prop(j, "pin_orientation")
    sub = layout.column()
    sub.active = j.pin_orientation
    sub.prop(j, "pin_max_torque")
    layout.prop(j, "pin_offset")
    if j.pin_hertz == 0.0:
        layout.label(text="Stiffness 0: rigid", icon='INFO')


# Which of Object A / B each joint type uses, and what they are called there.
BODY_FIELDS = {'GEAR': (), 'RACK_AND_PINION': (), 'PATH': (("b", "Body"),),
               'PIN': (("b", "Body"),),
               'WHEEL': (("a", "Chassis"), ("b", "Wheel")),
               'CUSTOM': (("a", "Object A"), ("b", "Object B"))}


def draw_mechanism(layout, scene, j):
    """The mechanism joints' own settings (world/mechanisms.py has the conventions)."""
    t = j.type
    if t in mechanisms.COUPLINGS:
        col = layout.column(align=True)
        col.prop(j, "joint_a")
        col.prop(j, "joint_b", text="Hinge B" if t == 'GEAR' else "Slider B")
    elif t == 'PULLEY':
        col = layout.column(align=True)
        col.prop(j, "fixed_a")
        col.prop(j, "fixed_b")
        for which in "ab":
            body = mechanisms.carrier(getattr(j, "fixed_" + which))
            if body is not None:
                layout.label(text=f"Fixed {which.upper()} rides on '{body.name}'",
                             icon='LINKED')
        layout.prop(j, "ratio")
    elif t == 'WHEEL':
        layout.prop(j, "steering")
        if j.id_data.animation_data is not None and (
                steering_fcurve(j.id_data) or steering_driven(j.id_data)):
            layout.label(text="Steering is animated: read every frame", icon='DRIVER')
    elif t == 'PATH':
        layout.prop(j, "curve")
        motion = None if j.curve is None or j.curve.type != 'CURVE' else \
            curve_motion(j.curve)
        if motion is not None:
            layout.label(text="Curve animated: followed every frame" if motion == 'TRANSFORM'
                         else "Spline animated: read every frame", icon='ANIM')
        layout.prop(j, "path_align")
        layout.prop(j, "path_friction")
    elif t == 'CUSTOM':
        draw_custom(layout, j)
    if t in {'GEAR', 'RACK_AND_PINION', 'MOTOR'}:
        row = layout.row(align=True)
        for mode in ('VALUE', 'TEETH', 'RADII'):
            if not (mode == 'TEETH' and t == 'RACK_AND_PINION'):
                row.prop_enum(j, "ratio_mode", mode)
        col = layout.column(align=True)
        if j.ratio_mode == 'TEETH' and t != 'RACK_AND_PINION':
            col.prop(j, "teeth_a")
            col.prop(j, "teeth_b")
        elif j.ratio_mode == 'RADII':
            if t == 'RACK_AND_PINION':
                col.prop(j, "radius_a", text="Pinion Radius")
            else:
                col.prop(j, "radius_a")
                col.prop(j, "radius_b")
            col.operator("ligament.measure_radii", icon='DRIVER_DISTANCE')
        else:
            col.prop(j, "ratio")
        r = mechanisms.ratio(j)
        layout.label(text={'GEAR': f"B turns {-r:.4g} x A",
                           'RACK_AND_PINION': f"Slides {r:.4g} m per radian",
                           'MOTOR': f"Drives wB - {r:.4g} wA"}[t], icon='INFO')


def draw_custom(layout, j):
    """The Custom joint's expression (its problem, if any, right under it), its points C
    and D and its stiffness."""
    layout.prop(j, "expression", text="")
    problem = mechanisms.expression_problem(j)
    if problem:
        box = layout.box()
        box.alert = True
        for i, line in enumerate(wrap(problem, LINE_CHARS)):
            box.label(text=line, icon='ERROR' if i == 0 else 'BLANK1')
    else:
        bounds = [f"{j.custom_lower:.4g} <=" if j.custom_use_lower else "",
                  "C", f"<= {j.custom_upper:.4g}" if j.custom_use_upper else ""]
        held = " ".join(b for b in bounds if b) if (j.custom_use_lower or j.custom_use_upper) \
            else "C = 0"
        layout.label(text=f"Holds {held}" + (" (a spring)" if j.custom_stiffness > 0 else ""),
                     icon='INFO')
    col = layout.column(align=True)
    col.prop(j, "point_c")
    col.prop(j, "point_d")
    col = layout.column(align=True)
    col.prop(j, "custom_stiffness")
    sub = col.column(align=True)
    sub.active = j.custom_stiffness > 0.0
    sub.prop(j, "custom_damping")


class PHYSICS_PT_ligament_joint_limits(JointPanel, bpy.types.Panel):
    bl_label = "Limits"
    bl_parent_id = "PHYSICS_PT_ligament_joint"

    @classmethod
    def poll(cls, context):
        return super().poll(context) and context.object.ligament_joint.type in {
            'HINGE', 'PRISMATIC', 'DISTANCE', 'ROPE', 'RAGDOLL', 'GEAR', 'PULLEY', 'WHEEL',
            'LINE', 'CUSTOM'}

    def draw(self, context):
        layout = self.layout
        layout.use_property_split = True
        j = context.object.ligament_joint
        layout.active = j.enabled
        if j.type == 'CUSTOM':       # of C, the expression's value (with neither: C = 0)
            for side in ("lower", "upper"):
                row = layout.row(heading=side.title())
                row.prop(j, f"custom_use_{side}", text="")
                sub = row.row()
                sub.active = getattr(j, f"custom_use_{side}")
                sub.prop(j, f"custom_{side}", text="")
        if j.type in {'HINGE', 'RAGDOLL', 'GEAR'}:
            col = layout.column(align=True, heading={'RAGDOLL': "Twist", 'GEAR': "Play"}.get(
                j.type, "Angle"))
            col.prop(j, "use_limit_ang", text="Limit")
            sub = col.column(align=True)
            sub.active = j.use_limit_ang
            sub.prop(j, "limit_ang_lower")
            sub.prop(j, "limit_ang_upper")
        if j.type == 'RAGDOLL':
            col = layout.column(align=True, heading="Swing Cone")
            col.prop(j, "swing_1")
            col.prop(j, "swing_2")
        if j.type in {'PRISMATIC', 'DISTANCE', 'WHEEL', 'LINE'}:
            col = layout.column(align=True, heading="Travel" if j.type == 'WHEEL' else "Distance")
            col.prop(j, "use_limit_lin", text="Limit")
            sub = col.column(align=True)
            sub.active = j.use_limit_lin
            sub.prop(j, "limit_lin_lower")
            sub.prop(j, "limit_lin_upper")
        if j.type in {'ROPE', 'PULLEY'}:
            layout.prop(j, "rope_length")


class PHYSICS_PT_ligament_joint_motor(JointPanel, bpy.types.Panel):
    bl_label = "Motor"
    bl_parent_id = "PHYSICS_PT_ligament_joint"
    bl_options = {'DEFAULT_CLOSED'}

    @classmethod
    def poll(cls, context):
        return super().poll(context) and context.object.ligament_joint.type in {
            'HINGE', 'PRISMATIC', 'MOTOR', 'WHEEL', 'LINE', 'PATH'}

    def draw_header(self, context):
        j = context.object.ligament_joint
        if j.type != 'MOTOR':
            self.layout.prop(j, "use_motor", text="")

    def draw(self, context):
        layout = self.layout
        layout.use_property_split = True
        j = context.object.ligament_joint
        layout.active = j.enabled and (j.use_motor or j.type == 'MOTOR')
        layout.prop(j, "motor_velocity")
        layout.prop(j, "motor_max_force")


class PHYSICS_PT_ligament_joint_spring(JointPanel, bpy.types.Panel):
    bl_label = "Spring"
    bl_parent_id = "PHYSICS_PT_ligament_joint"
    bl_options = {'DEFAULT_CLOSED'}

    @classmethod
    def poll(cls, context):
        return super().poll(context) and context.object.ligament_joint.type in {
            'HINGE', 'PRISMATIC', 'DISTANCE', 'WHEEL', 'LINE'}

    def draw_header(self, context):
        self.layout.prop(context.object.ligament_joint, "use_spring", text="")

    def draw(self, context):
        layout = self.layout
        layout.use_property_split = True
        j = context.object.ligament_joint
        layout.active = j.enabled and j.use_spring
        layout.prop(j, "spring_mode", expand=True)
        if j.spring_mode == 'STIFFNESS':
            layout.prop(j, "spring_stiffness")
            layout.prop(j, "spring_damper")
        else:
            layout.prop(j, "spring_frequency")
            layout.prop(j, "spring_damping")


classes = (
    PHYSICS_PT_ligament_joint,
    PHYSICS_PT_ligament_joint_limits,
    PHYSICS_PT_ligament_joint_motor,
    PHYSICS_PT_ligament_joint_spring,
)
