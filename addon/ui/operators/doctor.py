"""The scene doctor's operators: Check Scene, and the fixes its findings offer.

Objects are passed by name, several separated by newlines (`objects="Cube\\nGround"`). Each
fix checks the scene again when it had been checked, so the sidebar's list shows what is left.
"""

import bpy
from bpy.props import EnumProperty, StringProperty
from mathutils import Matrix

from ...check import doctor
from ...check.body_checks import scale_animated
from ...runtime import cache
from ..properties import BODY_SHAPES


def _objects(scene, names):
    """The named objects of `scene` (unknown names skipped) and the names not found."""
    found, missing = [], []
    for name in (n for n in names.split("\n") if n):
        obj = scene.objects.get(name)
        (found if obj is not None else missing).append(obj if obj is not None else name)
    return found, missing


class LIGAMENT_OT_check_scene(bpy.types.Operator):
    """Look for what will make the simulation go wrong: overlapping bodies, broken joints,
    bad scales and limits, bodies that fall forever, ..."""
    bl_idname = "ligament.check_scene"
    bl_label = "Check Scene"
    bl_options = {'REGISTER'}

    @classmethod
    def poll(cls, context):
        return context.scene is not None

    def execute(self, context):
        scene = context.scene
        findings = doctor.check(scene)
        doctor.store(scene, findings)
        line = doctor.summary(scene, findings)
        if bpy.app.background:
            for f in findings:
                print("Ligament: " + f.line())
        # a warning, not an error, when problems are found: the check itself worked (and an
        # ERROR report would make scripts calling it raise)
        problems = any(f.severity != doctor.INFO for f in findings)
        self.report({'WARNING' if problems else 'INFO'}, line)
        return {'FINISHED'}


class LIGAMENT_OT_select_objects(bpy.types.Operator):
    """Select the objects a finding names (the first one active)"""
    bl_idname = "ligament.select_objects"
    bl_label = "Select"
    bl_options = {'REGISTER', 'UNDO'}

    objects: StringProperty(name="Objects", description="Object names, one per line")

    def execute(self, context):
        found, missing = _objects(context.scene, self.objects)
        hidden = []
        for o in context.view_layer.objects:
            if o.select_get():
                o.select_set(False)
        for o in found:
            try:
                o.select_set(True)
            except RuntimeError:
                hidden.append(o.name)
            if not o.visible_get():
                hidden.append(o.name)
        if found and found[0].name not in hidden:
            context.view_layer.objects.active = found[0]
        if missing:
            self.report({'WARNING'}, "Not in the scene: " + ", ".join(missing))
        if hidden:
            self.report({'WARNING'}, "Hidden (show them to see the selection): "
                        + ", ".join(sorted(set(hidden))))
        return {'FINISHED'} if found else {'CANCELLED'}


class LIGAMENT_OT_apply_body_scale(bpy.types.Operator):
    """Apply the object's scale to its mesh: the object keeps its look, its scale becomes
    (1, 1, 1); objects parented to it stay where they are"""
    bl_idname = "ligament.apply_body_scale"
    bl_label = "Apply Scale"
    bl_options = {'REGISTER', 'UNDO'}

    objects: StringProperty(name="Objects", description="Object names, one per line")

    def execute(self, context):
        found, missing = _objects(context.scene, self.objects)
        done = []
        for o in found:
            if o.type != 'MESH':
                self.report({'WARNING'}, f"'{o.name}' is not a mesh: apply its scale with "
                            "Object > Apply > Scale")
                continue
            if scale_animated(o):
                self.report({'WARNING'}, f"'{o.name}' has scale keys: remove them first")
                continue
            apply_scale(o)
            done.append(o.name)
        cache.invalidate(context.scene)
        doctor.recheck(context.scene)
        if not done:
            return {'CANCELLED'}
        self.report({'INFO'}, "Applied the scale of " + ", ".join(done))
        return {'FINISHED'}


def apply_scale(obj):
    """Scale the mesh by the object's scale and set the scale to 1 (a shared mesh is copied
    first); children keep their world transform; a negative scale flips the normals back."""
    s = Matrix.Diagonal((*obj.scale, 1.0))
    if obj.data.users > 1:
        obj.data = obj.data.copy()
    obj.data.transform(s)
    if s.determinant() < 0.0:
        obj.data.flip_normals()
    obj.data.update()
    for child in obj.children:
        child.matrix_parent_inverse = s @ child.matrix_parent_inverse
    obj.scale = (1.0, 1.0, 1.0)


class LIGAMENT_OT_swap_limits(bpy.types.Operator):
    """Swap a joint's lower and upper limits"""
    bl_idname = "ligament.swap_limits"
    bl_label = "Swap Limits"
    bl_options = {'REGISTER', 'UNDO'}

    joint: StringProperty(name="Joint", description="Name of the joint empty")
    which: EnumProperty(name="Limits", items=(('ANGULAR', "Angular", ""),
                                              ('LINEAR', "Linear", "")))

    def execute(self, context):
        e = context.scene.objects.get(self.joint)
        if e is None:
            self.report({'ERROR'}, f"No joint '{self.joint}' in the scene")
            return {'CANCELLED'}
        js = e.ligament_joint
        if self.which == 'ANGULAR':
            js.limit_ang_lower, js.limit_ang_upper = js.limit_ang_upper, js.limit_ang_lower
        else:
            js.limit_lin_lower, js.limit_lin_upper = js.limit_lin_upper, js.limit_lin_lower
        cache.invalidate(context.scene)
        doctor.recheck(context.scene)
        return {'FINISHED'}


class LIGAMENT_OT_set_body_shape(bpy.types.Operator):
    """Give bodies another collision shape"""
    bl_idname = "ligament.set_body_shape"
    bl_label = "Set Shape"
    bl_options = {'REGISTER', 'UNDO'}

    objects: StringProperty(name="Objects", description="Object names, one per line")
    shape: EnumProperty(name="Shape", items=BODY_SHAPES, default='CONVEX_HULL')

    def execute(self, context):
        found, missing = _objects(context.scene, self.objects)
        for o in found:
            o.ligament_body.shape = self.shape
        cache.invalidate(context.scene)
        doctor.recheck(context.scene)
        return {'FINISHED'} if found else {'CANCELLED'}


class LIGAMENT_OT_make_two_sided(bpy.types.Operator):
    """Let both sides of the faces of bodies with the Mesh shape collide"""
    bl_idname = "ligament.make_two_sided"
    bl_label = "Make Two-Sided"
    bl_options = {'REGISTER', 'UNDO'}

    objects: StringProperty(name="Objects", description="Object names, one per line")

    def execute(self, context):
        found, missing = _objects(context.scene, self.objects)
        for o in found:
            o.ligament_body.one_sided = False
        cache.invalidate(context.scene)
        doctor.recheck(context.scene)
        return {'FINISHED'} if found else {'CANCELLED'}


classes = (LIGAMENT_OT_check_scene, LIGAMENT_OT_select_objects, LIGAMENT_OT_apply_body_scale,
           LIGAMENT_OT_swap_limits, LIGAMENT_OT_set_body_shape, LIGAMENT_OT_make_two_sided)
register, unregister = bpy.utils.register_classes_factory(classes)
