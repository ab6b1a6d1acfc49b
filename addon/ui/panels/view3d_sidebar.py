"""The "Ligament" tab of the 3D View sidebar: the workflow in one place (bodies and joints,
cache and bake, joints not acting, the ragdoll, the scene check)."""

import bpy

from ... import kernels
from ...check import doctor
from ...runtime import cache
from ...scene.objects import scene_joints
from .common import LINE_CHARS, SHORT_LINE_CHARS, View3DLigamentPanel, wrap
from .physics_ragdoll import draw_ragdoll
from .scene_world import draw_world

MAX_LISTED = 12       # joints not acting listed in the sidebar; the console has them all

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
        col = layout.column(align=True)
        col.label(text="Direct")
        row = col.row(align=True)
        row.operator("ligament.drag", icon='VIEW_PAN')
        row.operator("ligament.live_mode", icon='PLAY')
        row = col.row(align=True)
        row.operator("ligament.add_pin", icon='PINNED')
        row.operator("ligament.transfer_pose", icon='ARMATURE_DATA')


class VIEW3D_PT_ligament_cache(View3DLigamentPanel, bpy.types.Panel):
    bl_label = "Cache & Bake"
    bl_parent_id = "VIEW3D_PT_ligament"

    def draw(self, context):
        layout = self.layout
        scene = context.scene
        info = cache.frame_info(scene)
        err = cache.error(scene)
        preparing = kernels.status()
        building = cache.building(scene)
        if preparing:
            layout.label(text=preparing, icon='TIME')
        elif building is not None:
            layout.label(text=building.status(), icon='TIME')
        elif scene.ligament_world.enabled and cache.stopped(scene):
            layout.label(text="Build stopped (Esc): the frames play the animation", icon='INFO')
        elif err:
            box = layout.box()
            box.alert = True
            for i, line in enumerate(wrap(err, SHORT_LINE_CHARS)):
                box.label(text=line, icon='ERROR' if i == 0 else 'BLANK1')
        elif info is None:
            layout.label(text="Cache empty", icon='INFO')
        else:
            layout.label(text=f"Cached frames {info[0]}-{info[1]}", icon='CHECKMARK')
        draw_world(layout.column(), scene)
        layout.use_property_split = False
        row = layout.row(align=True)
        row.operator("ligament.reset", icon='FILE_REFRESH')
        if info is None:
            row.operator("ligament.build_simulation", text="Build", icon='PLAY')
        draw_bake(layout, scene)
        row = layout.row(align=True)
        row.operator("ligament.bake", icon='REC')
        row.operator("ligament.clear_bake", text="Clear", icon='X')


def draw_bake(layout, scene):
    """The bake's key reduction: on or off, and its two tolerances."""
    ws = scene.ligament_world
    col = layout.column(align=True)
    col.prop(ws, "bake_reduce")
    sub = col.column(align=True)
    sub.use_property_split = True
    sub.active = ws.bake_reduce
    sub.prop(ws, "bake_tolerance_location", text="Location")
    sub.prop(ws, "bake_tolerance_rotation", text="Rotation")


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
            for line in wrap(why, SHORT_LINE_CHARS):
                col.label(text=line)
        if len(problems) > MAX_LISTED:
            layout.label(text=f"... and {len(problems) - MAX_LISTED} more (see the console)")


class VIEW3D_PT_ligament_pins(View3DLigamentPanel, bpy.types.Panel):
    """The scene's Pins (Add Pin's and the drags'), each with its body, to select or
    delete."""
    bl_label = "Pins"
    bl_parent_id = "VIEW3D_PT_ligament"
    bl_options = {'DEFAULT_CLOSED'}

    def draw(self, context):
        layout = self.layout
        pins = [o for o in context.scene.objects if o.type == 'EMPTY'
                and o.ligament_joint.type == 'PIN']
        if not pins:
            layout.label(text="No pins: Add Pin, or Drag Bodies", icon='INFO')
            return
        for pin in pins[:MAX_LISTED]:
            body = pin.ligament_joint.object_b
            row = layout.row(align=True)
            row.operator("ligament.select_objects", text=pin.name,
                         icon='PINNED').objects = pin.name
            row.label(text=body.name if body is not None else "(no body)")
            row.operator("ligament.remove_pin", text="", icon='X').name = pin.name
        if len(pins) > MAX_LISTED:
            layout.label(text=f"... and {len(pins) - MAX_LISTED} more")


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
            for i, text in enumerate(wrap(f.message, LINE_CHARS)):
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


class VIEW3D_PT_ligament_overlay(View3DLigamentPanel, bpy.types.Panel):
    bl_label = "Overlay"
    bl_parent_id = "VIEW3D_PT_ligament"
    bl_options = {'DEFAULT_CLOSED'}

    def draw(self, context):
        layout = self.layout
        o = context.scene.ligament_overlay
        col = layout.column(align=True)
        col.prop(o, "show_limits")
        col.prop(o, "show_shapes")
        col.prop(o, "show_contacts")
        layout.prop(o, "size")


classes = (
    VIEW3D_PT_ligament,
    VIEW3D_PT_ligament_ragdoll,
    VIEW3D_PT_ligament_cache,
    VIEW3D_PT_ligament_joints,
    VIEW3D_PT_ligament_pins,
    VIEW3D_PT_ligament_doctor,
    VIEW3D_PT_ligament_overlay,
)
