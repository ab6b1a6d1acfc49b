"""Directing the motion by hand: Add Pin (an empty that pulls a body's point to wherever the
empty is) and Transfer Pose (the simulated pose keyed at the current frame)."""

import bpy
from bpy.props import BoolProperty, FloatProperty, StringProperty

from ...authoring.pins import bone_bodies, create_pin
from ...baking.transfer import transfer_pose
from ...runtime import cache
from ...scene.errors import SceneError


class LIGAMENT_OT_add_pin(bpy.types.Operator):
    """Pin each selected body (or, in Pose Mode, the ragdoll part of each selected bone) to a
    new empty at its centre: move, parent, constrain or key the empty to pull the body
    there"""
    bl_idname = "ligament.add_pin"
    bl_label = "Add Pin"
    bl_options = {'REGISTER', 'UNDO'}

    hertz: FloatProperty(name="Stiffness", default=0.0, min=0.0, soft_max=30.0,
                         description="0: rigid. Otherwise the frequency (Hz) of the spring "
                                     "that pulls the body")
    damping_ratio: FloatProperty(name="Damping", default=1.0, min=0.0, soft_max=2.0,
                                 description="Damping ratio of the spring (1: critical)")
    max_force: FloatProperty(name="Max Force", default=0.0, min=0.0, soft_max=10000.0,
                             description="The most force (N) the pin pulls with (0: no limit)")
    orientation: BoolProperty(name="Orientation", default=False,
                              description="Turn the body as the empty turns")

    @classmethod
    def poll(cls, context):
        if context.mode == 'POSE':
            if not context.selected_pose_bones:
                cls.poll_message_set("Select bones of a ragdolled armature")
                return False
            return True
        if not context.selected_objects:
            cls.poll_message_set("Select Ligament bodies to pin")
            return False
        return True

    def targets(self, context):
        """The bodies to pin; raises SceneError naming what cannot be pinned."""
        if context.mode == 'POSE':
            found, missing = [], []
            for pb in context.selected_pose_bones:
                arm = pb.id_data
                body = bone_bodies(arm).get(pb.name) if arm.ligament_ragdoll.enabled else None
                if body is None:
                    missing.append(f"{arm.name}: {pb.name}")
                elif body not in found:
                    found.append(body)
            if missing:
                raise SceneError(f"Bones {', '.join(missing)} have no ragdoll part to pin; "
                                 "select bones a ragdoll moves (Ligament > Ragdoll from "
                                 "Armature)")
            return found
        bodies = []
        for obj in context.selected_objects:
            s = obj.ligament_body
            if obj.type == 'EMPTY' and obj.ligament_joint.type == 'PIN':
                continue             # a pin selected with its body
            if not s.enabled:
                raise SceneError(f"Object '{obj.name}' is not a Ligament body; select it and "
                                 "use Ligament > Add Body first")
            if s.kind != 'DYNAMIC':
                raise SceneError(f"Object '{obj.name}' is {s.kind.title()}: a pin pulls "
                                 "Dynamic bodies only; set its Type to Dynamic")
            bodies.append(obj)
        return bodies

    def execute(self, context):
        try:
            bodies = self.targets(context)
        except SceneError as exc:
            self.report({'ERROR'}, str(exc))
            return {'CANCELLED'}
        scene = context.scene
        pins = [create_pin(scene, b, hertz=self.hertz, damping_ratio=self.damping_ratio,
                           max_force=self.max_force, orientation=self.orientation)
                for b in bodies]
        if context.mode == 'OBJECT':
            for obj in context.selected_objects:
                obj.select_set(False)
            for p in pins:
                p.select_set(True)
            if pins:
                context.view_layer.objects.active = pins[-1]
        cache.invalidate(scene)
        self.report({'INFO'}, f"Added {len(pins)} pin{'s' if len(pins) != 1 else ''}: "
                              f"{', '.join(p.name for p in pins)}")
        return {'FINISHED'}


class LIGAMENT_OT_transfer_pose(bpy.types.Operator):
    """Key the simulated pose at the current frame onto the ragdoll's bones (or onto its
    control rig, where Bake onto Controls is set up): the selected parts in Pose Mode, the
    whole ragdoll of each selected armature, or every ragdoll"""
    bl_idname = "ligament.transfer_pose"
    bl_label = "Transfer Pose"
    bl_options = {'REGISTER', 'UNDO'}

    def execute(self, context):
        scene = context.scene
        arms, bones = None, None
        if context.mode == 'POSE' and context.selected_pose_bones:
            bones = {}
            for pb in context.selected_pose_bones:
                bones.setdefault(pb.id_data.name, []).append(pb.name)
            arms = [scene.objects[name] for name in bones]
        else:
            chosen = [o for o in context.selected_objects if o.type == 'ARMATURE'
                      and o.ligament_ragdoll.enabled]
            arms = chosen or None
        try:
            keyed = transfer_pose(scene, arms, bones)
        except SceneError as exc:
            self.report({'ERROR'}, str(exc))
            return {'CANCELLED'}
        count = sum(len(b) for b in keyed.values())
        self.report({'INFO'}, f"Keyed {count} bones at frame {scene.frame_current} on "
                              f"{', '.join(keyed)}")
        return {'FINISHED'}


class LIGAMENT_OT_remove_pin(bpy.types.Operator):
    """Delete a Pin (a drag's recording included): its body moves as if it never was"""
    bl_idname = "ligament.remove_pin"
    bl_label = "Remove Pin"
    bl_options = {'REGISTER', 'UNDO'}

    name: StringProperty(name="Pin", description="The Pin empty to delete")

    def execute(self, context):
        pin = bpy.data.objects.get(self.name)
        if pin is None or pin.type != 'EMPTY' or pin.ligament_joint.type != 'PIN':
            self.report({'ERROR'}, f"No Pin named '{self.name}'")
            return {'CANCELLED'}
        bpy.data.objects.remove(pin)
        cache.invalidate(context.scene)
        self.report({'INFO'}, f"Removed pin '{self.name}'")
        return {'FINISHED'}


classes = (LIGAMENT_OT_add_pin, LIGAMENT_OT_transfer_pose, LIGAMENT_OT_remove_pin)
register, unregister = bpy.utils.register_classes_factory(classes)
