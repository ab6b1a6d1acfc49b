"""UI: Properties > Physics (body on objects, joint on empties, ragdoll on armatures),
Properties > Bone (a ragdoll bone's switches), Properties > Scene (world) and the "Ligament"
tab of the 3D View sidebar for the workflow."""

import bpy

from .. import kernels
from ..authoring import ragdoll
from ..world import mechanisms
from ..check import doctor
from ..runtime import cache
from ..scene import ragdolls
from ..scene.animation import has_transform_animation
from ..scene.curves import curve_motion, steering_driven, steering_fcurve
from ..scene.objects import scene_joints
from .operators.bodies import GEOMETRY_TYPES


class PhysicsButtonsPanel:
    bl_space_type = 'PROPERTIES'
    bl_region_type = 'WINDOW'
    bl_context = "physics"


# --------------------------------------------------------------------------------------------
# Body

class PHYSICS_PT_ligament_body(PhysicsButtonsPanel, bpy.types.Panel):
    bl_label = "Ligament Body"

    @classmethod
    def poll(cls, context):
        obj = context.object
        return obj is not None and obj.type in GEOMETRY_TYPES

    def draw_header(self, context):
        self.layout.prop(context.object.ligament_body, "enabled", text="")

    def draw(self, context):
        layout = self.layout
        layout.use_property_split = True
        s = context.object.ligament_body
        layout.active = s.enabled
        layout.prop(s, "kind")
        layout.prop(s, "shape")
        if s.baked:
            layout.label(text="Baked: playing back keyframes", icon='KEYINGSET')
        elif s.enabled and has_transform_animation(context.object):
            start = context.scene.ligament_world.frame_start
            if s.kind == 'DYNAMIC':
                layout.label(text=f"Keys set its pose at frame {start}; simulated after it",
                             icon='KEYINGSET')
                layout.label(text="Type Animated follows the keys instead", icon='BLANK1')
            elif s.kind == 'ANIMATED':
                layout.label(text="Follows its keys; pushes dynamic bodies", icon='KEYINGSET')


class PHYSICS_PT_ligament_body_settings(PhysicsButtonsPanel, bpy.types.Panel):
    bl_label = "Settings"
    bl_parent_id = "PHYSICS_PT_ligament_body"

    def draw(self, context):
        layout = self.layout
        layout.use_property_split = True
        s = context.object.ligament_body
        layout.active = s.enabled
        col = layout.column()
        col.active = s.enabled and s.kind == 'DYNAMIC'
        col.prop(s, "mass")
        layout.prop(s, "collision_group")


class PHYSICS_PT_ligament_body_surface(PhysicsButtonsPanel, bpy.types.Panel):
    bl_label = "Surface Response"
    bl_parent_id = "PHYSICS_PT_ligament_body"

    def draw(self, context):
        layout = self.layout
        layout.use_property_split = True
        s = context.object.ligament_body
        layout.active = s.enabled
        layout.operator_menu_enum("ligament.material_preset", "material", icon='PRESET')
        layout.prop(s, "friction")
        layout.prop(s, "restitution")


class PHYSICS_PT_ligament_body_dynamics(PhysicsButtonsPanel, bpy.types.Panel):
    bl_label = "Dynamics"
    bl_parent_id = "PHYSICS_PT_ligament_body"
    bl_options = {'DEFAULT_CLOSED'}

    def draw(self, context):
        layout = self.layout
        layout.use_property_split = True
        s = context.object.ligament_body
        layout.active = s.enabled and s.kind == 'DYNAMIC'
        col = layout.column(heading="Damping")
        col.prop(s, "linear_damping", text="Translation")
        col.prop(s, "angular_damping", text="Rotation")


# --------------------------------------------------------------------------------------------
# Joint

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
            for i, line in enumerate(_wrap(f"Not acting: {problem}", 44)):
                box.label(text=line, icon='UNLINKED' if i == 0 else 'BLANK1')
        axis = {'HINGE': "Rotates about the empty's local Z", 'PRISMATIC': "Slides along local X",
                'CUSTOM': "pA, pB at the empty; uA, uB along its local Z",
                'RAGDOLL': "Twists about local Y", 'MOTOR': "Spins about local Z",
                'WHEEL': "Spins about local Z, suspension along local Y",
                'LINE': "B's point slides along local X, turns freely",
                'PATH': "B's point at the empty follows the curve",
                'PULLEY': "Rope: A's centre, Fixed A, Fixed B, B's centre"}.get(j.type)
        if axis:
            layout.label(text=axis, icon='EMPTY_ARROWS')


# Which of Object A / B each joint type uses, and what they are called there.
BODY_FIELDS = {'GEAR': (), 'RACK_AND_PINION': (), 'PATH': (("b", "Body"),),
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
        for i, line in enumerate(_wrap(problem, 44)):
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


# --------------------------------------------------------------------------------------------
# Ragdoll (on armatures)

class RagdollPanel(PhysicsButtonsPanel):
    @classmethod
    def poll(cls, context):
        obj = context.object
        return obj is not None and obj.type == 'ARMATURE'


def draw_ragdoll(layout, arm):
    """The ragdoll's main settings, or the button that makes one."""
    rd = arm.ligament_ragdoll
    if not rd.enabled:
        layout.operator_menu_enum("ligament.ragdoll_from_armature", "preset",
                                  text="Ragdoll from Armature", icon='ARMATURE_DATA')
        return
    layout.use_property_split = True
    if rd.baked:
        layout.label(text="Baked: the armature plays its keys", icon='KEYINGSET')
    col = layout.column()
    col.active = not rd.baked
    col.prop(rd, "simulated")
    col.prop(rd, "total_mass")
    layout.prop(rd, "show_bodies")
    layout.use_property_split = False
    row = layout.row(align=True)
    row.operator("ligament.bake", icon='REC')
    row.operator("ligament.clear_bake", text="Clear", icon='X')
    layout.operator("ligament.remove_ragdoll", icon='X')


class PHYSICS_PT_ligament_ragdoll(RagdollPanel, bpy.types.Panel):
    bl_label = "Ligament Ragdoll"

    def draw(self, context):
        draw_ragdoll(self.layout, context.object)


class PHYSICS_PT_ligament_ragdoll_drives(RagdollPanel, bpy.types.Panel):
    bl_label = "Pose Matching"
    bl_parent_id = "PHYSICS_PT_ligament_ragdoll"

    @classmethod
    def poll(cls, context):
        return super().poll(context) and context.object.ligament_ragdoll.enabled

    def draw(self, context):
        layout = self.layout
        layout.use_property_split = True
        rd = context.object.ligament_ragdoll
        layout.active = not rd.baked
        layout.prop(rd, "drive_strength")
        col = layout.column()
        col.active = rd.drive_strength > 0.0
        col.prop(rd, "drive_stiffness")
        col.prop(rd, "drive_damping")
        col.prop(rd, "drive_max_torque")


class PHYSICS_PT_ligament_ragdoll_bodies(RagdollPanel, bpy.types.Panel):
    bl_label = "Bodies"
    bl_parent_id = "PHYSICS_PT_ligament_ragdoll"
    bl_options = {'DEFAULT_CLOSED'}

    @classmethod
    def poll(cls, context):
        return super().poll(context) and context.object.ligament_ragdoll.enabled

    def draw(self, context):
        layout = self.layout
        arm = context.object
        layout.label(text=f"Bone map: {arm.ligament_ragdoll.bone_map}")
        for body in sorted(ragdolls.bodies(arm), key=lambda o: o.name):
            part = body.ligament_ragdoll_part
            bones = [t.ligament_ragdoll_part.bone for t in body.children
                     if t.ligament_ragdoll_part.role == 'TARGET']
            pb = arm.pose.bones.get(bones[0]) if bones else None
            row = layout.row(align=True)
            row.label(text=f"{part.part}: {', '.join(bones)}")
            row.label(text=f"{body.ligament_body.mass:.1f} kg")
            if pb is not None:
                row.prop(pb.ligament_ragdoll, "simulated", text="", icon='PHYSICS')


class BONE_PT_ligament_ragdoll(bpy.types.Panel):
    bl_space_type = 'PROPERTIES'
    bl_region_type = 'WINDOW'
    bl_context = "bone"
    bl_label = "Ligament Ragdoll"

    @classmethod
    def poll(cls, context):
        pb = getattr(context, "active_pose_bone", None)
        return pb is not None and pb.id_data.ligament_ragdoll.enabled and any(
            c.name.startswith(ragdoll.CONSTRAINT) for c in pb.constraints)

    def draw(self, context):
        layout = self.layout
        layout.use_property_split = True
        pb = context.active_pose_bone
        layout.active = not pb.id_data.ligament_ragdoll.baked
        layout.prop(pb.ligament_ragdoll, "simulated")
        layout.prop(pb.ligament_ragdoll, "drive_strength")


# --------------------------------------------------------------------------------------------
# World (Scene properties, next to Blender's Rigid Body World)

class SCENE_PT_ligament_world(bpy.types.Panel):
    bl_space_type = 'PROPERTIES'
    bl_region_type = 'WINDOW'
    bl_context = "scene"
    bl_label = "Ligament World"
    bl_options = {'DEFAULT_CLOSED'}

    def draw_header(self, context):
        self.layout.prop(context.scene.ligament_world, "enabled", text="")

    def draw(self, context):
        draw_world(self.layout, context.scene)


def draw_world(layout, scene):
    layout.use_property_split = True
    ws = scene.ligament_world
    layout.active = ws.enabled
    col = layout.column(align=True)
    col.prop(ws, "frame_start", text="Simulation Start")
    col.prop(ws, "frame_end", text="End")
    col = layout.column(align=True)
    col.operator_menu_enum("ligament.quality_preset", "level", text="Quality Preset",
                           icon='PRESET')
    col.prop(ws, "substeps")
    col.prop(ws, "jointed_substeps")
    col.prop(ws, "iterations")
    # the solver steps independent islands on Blender's own thread setting (Render >
    # Performance), shown here too
    col = layout.column(align=True)
    col.prop(scene.render, "threads_mode", text="Threads")
    sub = col.row(align=True)
    sub.enabled = scene.render.threads_mode == 'FIXED'
    sub.prop(scene.render, "threads", text="Count")


# --------------------------------------------------------------------------------------------
# 3D View sidebar

class View3DLigamentPanel:
    bl_space_type = 'VIEW_3D'
    bl_region_type = 'UI'
    bl_category = "Ligament"


class VIEW3D_PT_ligament(View3DLigamentPanel, bpy.types.Panel):
    bl_label = "Ligament"

    def draw(self, context):
        layout = self.layout
        scene = context.scene
        layout.prop(scene.ligament_world, "enabled", text="Simulate")
        preparing = kernels.status()
        if preparing:
            layout.label(text=preparing, icon='TIME')
        col = layout.column(align=True)
        col.label(text="Bodies")
        row = col.row(align=True)
        row.operator("ligament.add_body", text="Add", icon='ADD')
        row.operator("ligament.remove_body", text="Remove", icon='REMOVE')
        col = layout.column(align=True)
        col.label(text="Joints")
        col.operator_menu_enum("ligament.add_joint", "type", text="Add Joint")
        col.operator_menu_enum("ligament.connect", "type", text="Connect")


class VIEW3D_PT_ligament_cache(View3DLigamentPanel, bpy.types.Panel):
    bl_label = "Cache & Bake"
    bl_parent_id = "VIEW3D_PT_ligament"

    def draw(self, context):
        layout = self.layout
        scene = context.scene
        info = cache.frame_info(scene)
        err = cache.error(scene)
        preparing = kernels.status()
        if preparing:
            layout.label(text=preparing, icon='TIME')
        elif err:
            box = layout.box()
            box.alert = True
            for i, line in enumerate(_wrap(err, 40)):
                box.label(text=line, icon='ERROR' if i == 0 else 'BLANK1')
        elif info is None:
            layout.label(text="Cache empty", icon='INFO')
        else:
            layout.label(text=f"Cached frames {info[0]}-{info[1]}", icon='CHECKMARK')
        draw_world(layout.column(), scene)
        layout.use_property_split = False
        row = layout.row(align=True)
        row.operator("ligament.reset", icon='FILE_REFRESH')
        row = layout.row(align=True)
        row.operator("ligament.bake", icon='REC')
        row.operator("ligament.clear_bake", text="Clear", icon='X')


class VIEW3D_PT_ligament_joints(View3DLigamentPanel, bpy.types.Panel):
    bl_label = "Joints"
    bl_parent_id = "VIEW3D_PT_ligament"
    bl_options = {'DEFAULT_CLOSED'}

    def draw(self, context):
        layout = self.layout
        scene = context.scene
        count = len(scene_joints(scene))
        problems = joint_problems(scene)
        if not problems:
            layout.label(text=f"{count} joints, all acting" if cache.get(scene) else
                         f"{count} joints", icon='CHECKMARK' if cache.get(scene) else 'INFO')
            return
        layout.label(text=f"{count} joints, {len(problems)} not acting", icon='ERROR')
        for name, why in problems[:MAX_LISTED]:
            col = layout.column(align=True)
            col.alert = True
            col.operator("ligament.select_objects", text=name, icon='UNLINKED').objects = name
            for line in _wrap(why, 40):
                col.label(text=line)
        if len(problems) > MAX_LISTED:
            layout.label(text=f"... and {len(problems) - MAX_LISTED} more (see the console)")


MAX_LISTED = 12


class VIEW3D_PT_ligament_ragdoll(View3DLigamentPanel, bpy.types.Panel):
    bl_label = "Ragdoll"
    bl_parent_id = "VIEW3D_PT_ligament"

    def draw(self, context):
        arm = context.active_object
        if arm is None or arm.type != 'ARMATURE':
            self.layout.label(text="Select an armature", icon='INFO')
            return
        draw_ragdoll(self.layout, arm)
        if arm.ligament_ragdoll.enabled:
            self.layout.use_property_split = True
            self.layout.prop(arm.ligament_ragdoll, "drive_strength")


class VIEW3D_PT_ligament_doctor(View3DLigamentPanel, bpy.types.Panel):
    bl_label = "Scene Check"
    bl_parent_id = "VIEW3D_PT_ligament"

    ICONS = {'ERROR': 'CANCEL', 'WARNING': 'ERROR', 'INFO': 'INFO'}

    def draw(self, context):
        layout = self.layout
        layout.operator("ligament.check_scene", icon='VIEWZOOM')
        last = doctor.results(context.scene)
        if last is None:
            return
        findings, line = last
        layout.label(text=line, icon='CHECKMARK' if not any(
            f.severity != 'INFO' for f in findings) else 'NONE')
        for f in findings:
            box = layout.box()
            for i, text in enumerate(_wrap(f.message, 44)):
                box.label(text=text, icon=self.ICONS[f.severity] if i == 0 else 'BLANK1')
            row = box.row(align=True)
            if f.fix is not None:
                op = row.operator(f.fix.operator, text=f.fix.label, icon='TOOL_SETTINGS'
                                  if f.fix.operator != "ligament.select_objects"
                                  else 'RESTRICT_SELECT_OFF')
                for key, value in f.fix.args.items():
                    setattr(op, key, value)
            if f.objects and (f.fix is None or f.fix.operator != "ligament.select_objects"):
                op = row.operator("ligament.select_objects", text="Select",
                                  icon='RESTRICT_SELECT_OFF')
                op.objects = "\n".join(f.objects)


def joint_problems(scene):
    """[(joint empty name, why it is not acting)] at the current frame."""
    sim = cache.get(scene)
    return [] if sim is None else list(sim.joints_not_acting(scene.frame_current).items())


def _wrap(text, width):
    words, lines, line = text.split(), [], ""
    for w in words:
        if line and len(line) + 1 + len(w) > width:
            lines.append(line)
            line = w
        else:
            line = f"{line} {w}".strip()
    if line:
        lines.append(line)
    return lines


classes = (
    PHYSICS_PT_ligament_body,
    PHYSICS_PT_ligament_body_settings,
    PHYSICS_PT_ligament_body_surface,
    PHYSICS_PT_ligament_body_dynamics,
    PHYSICS_PT_ligament_joint,
    PHYSICS_PT_ligament_joint_limits,
    PHYSICS_PT_ligament_joint_motor,
    PHYSICS_PT_ligament_joint_spring,
    SCENE_PT_ligament_world,
    PHYSICS_PT_ligament_ragdoll,
    PHYSICS_PT_ligament_ragdoll_drives,
    PHYSICS_PT_ligament_ragdoll_bodies,
    BONE_PT_ligament_ragdoll,
    VIEW3D_PT_ligament,
    VIEW3D_PT_ligament_ragdoll,
    VIEW3D_PT_ligament_cache,
    VIEW3D_PT_ligament_joints,
    VIEW3D_PT_ligament_doctor,
)
register, unregister = bpy.utils.register_classes_factory(classes)
