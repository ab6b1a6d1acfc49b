"""Make a ragdoll from the active armature (and, with All Selected, every selected one), remove
it, show its bodies."""

import bpy
from bpy.props import BoolProperty, EnumProperty, FloatProperty, IntProperty, StringProperty

from ...authoring import bonemap
from ...authoring import controls
from ...authoring import crowd
from ...authoring import presets
from ...authoring import ragdoll
from ...authoring import tuning
from ...check import doctor
from ...runtime import cache
from ...scene import bakes
from .bodies import material_items


def _map_items(self, context):
    """The bone maps of presets/ragdoll/maps, and Auto (the map that matches the most bones)."""
    _map_items.cache = presets.enum_items(  # Blender needs the strings kept alive
        presets.bone_maps, lambda m: m["description"],
        head=[('AUTO', "Auto", "Pick the bone map that matches the most bones", 0)])
    return _map_items.cache


def armature_poll(cls, context, has_ragdoll):
    """The active object must be an armature with (or without) a ragdoll; the message
    names it and says what to do."""
    obj = context.active_object
    if obj is None or obj.type != 'ARMATURE':
        name = f"'{obj.name}'" if obj is not None else "Nothing"
        cls.poll_message_set(f"{name} is not an armature; select the character's armature")
        return False
    # an armature with bone chains only has no ragdoll yet (authoring/chain.py)
    if ragdoll.is_ragdoll(obj) != has_ragdoll:
        cls.poll_message_set(f"'{obj.name}' has a ragdoll already; remove it first"
                             if has_ragdoll is False else
                             f"'{obj.name}' has no ragdoll; make one with Ragdoll from "
                             "Armature")
        return False
    return True


class LIGAMENT_OT_ragdoll_from_armature(bpy.types.Operator):
    """Make a ragdoll of the active armature: a body per major bone, anatomical joints, and
    the bones following the bodies"""
    bl_idname = "ligament.ragdoll_from_armature"
    bl_label = "Ragdoll from Armature"
    bl_options = {'REGISTER', 'UNDO'}

    preset: EnumProperty(name="Bone Map", items=_map_items,
                         description="Which bones make which body (presets/ragdoll/maps)")
    total_mass: FloatProperty(name="Total Mass", default=70.0, min=0.1, soft_max=500.0,
                              unit='MASS', description="Mass of the whole character")
    material: EnumProperty(name="Material", items=material_items,
                           description="Friction and bounciness of the bodies "
                                       "(presets/materials.toml)")

    use_selected: BoolProperty(name="All Selected",
                               description="Also make ragdolls of the other selected armatures "
                                           "that have none (a crowd in one step)")

    @classmethod
    def poll(cls, context):
        return armature_poll(cls, context, has_ragdoll=False)

    def execute(self, context):
        active = context.active_object
        arms = [active]
        if self.use_selected:
            arms += [o for o in context.selected_objects if o != active and
                     o.type == 'ARMATURE' and not ragdoll.is_ragdoll(o)]
        for arm in arms:
            if arm.mode == 'EDIT':
                self.report({'ERROR'}, f"Armature '{arm.name}' is in Edit Mode; leave it first")
                return {'CANCELLED'}
        try:
            material = None if self.material == 'ERROR' else presets.materials()[self.material]
        except OSError as exc:
            self.report({'ERROR'}, f"Armature '{active.name}': {exc}")
            return {'CANCELLED'}
        # One pass over the scene for the skinned meshes of every armature, not one per rig
        meshes = ragdoll.deformed_meshes_by_armature(context.scene)
        messages, errors, warn = [], [], False
        for arm in arms:
            try:
                mapping = bonemap.choose(ragdoll.armature_bones(arm), self.preset)
                parts = ragdoll.create(context.scene, arm, mapping, self.total_mass, material,
                                       meshes.get(arm, []))
            except (ValueError, OSError) as exc:
                errors.append(f"Armature '{arm.name}': {exc}")
                continue
            imported = [p.name for p in parts.values() if p.joint and p.joint["imported"]]
            message = f"Ragdoll '{arm.name}': {mapping.summary()}"
            if imported:
                message += f"; Limit Rotation limits at {', '.join(imported)}"
            messages.append(message)
            warn = warn or bool(mapping.missing)
        if not messages:
            self.report({'ERROR'}, "; ".join(errors))
            return {'CANCELLED'}
        cache.invalidate(context.scene)
        if len(arms) > 1:
            summary = f"{len(messages)} ragdolls made"
            if errors:
                summary += f", {len(errors)} failed: " + "; ".join(errors)
            messages = [f"{summary}; {messages[0]}"]
        self.report({'WARNING'} if warn or errors else {'INFO'}, messages[0])
        return {'FINISHED'}


class LIGAMENT_OT_remove_ragdoll(bpy.types.Operator):
    """Delete the active armature's ragdoll and bone chains (bodies, joints, bone
    constraints). A bake stays as the armature's animation, its action from before the bake
    kept with a fake user (Clear Bake first to go back to that animation)"""
    bl_idname = "ligament.remove_ragdoll"
    bl_label = "Remove Ragdoll"
    bl_options = {'REGISTER', 'UNDO'}

    @classmethod
    def poll(cls, context):
        obj = context.active_object
        if obj is not None and obj.type == 'ARMATURE' and obj.ligament_ragdoll.enabled:
            return True     # a ragdoll, or bone chains only: both go
        return armature_poll(cls, context, has_ragdoll=True)

    def execute(self, context):
        arm = context.active_object
        try:
            kept = ragdoll.remove(context.scene, arm)
        except ValueError as exc:
            self.report({'ERROR'}, str(exc))
            return {'CANCELLED'}
        cache.invalidate(context.scene)
        self.report({'INFO'}, f"Removed the ragdoll of '{arm.name}'" + bakes.kept_line(kept))
        return {'FINISHED'}


def _named_armature(op, context):
    """The armature the operator names, or the active object; None (reported) if neither is
    a ragdolled armature of the scene."""
    arm = context.scene.objects.get(op.armature) if op.armature else context.active_object
    if arm is None or arm.type != 'ARMATURE' or not arm.ligament_ragdoll.enabled:
        op.report({'ERROR'}, f"No ragdolled armature '{op.armature}' in the scene"
                  if op.armature else "Select a ragdolled armature")
        return None
    return arm


class LIGAMENT_OT_move_ragdoll_home(bpy.types.Operator):
    """Move the ragdoll's collection into the collection that holds its armature, so that
    linking, appending or duplicating the character's collection brings it along"""
    bl_idname = "ligament.move_ragdoll_home"
    bl_label = "Move Ragdoll into the Character's Collection"
    bl_options = {'REGISTER', 'UNDO'}

    armature: StringProperty(name="Armature", description="The armature (default: active)")

    def execute(self, context):
        arm = _named_armature(self, context)
        if arm is None:
            return {'CANCELLED'}
        home = ragdoll.move_home(context.scene, arm)
        doctor.recheck(context.scene)
        if home is None:
            self.report({'INFO'}, f"The ragdoll of '{arm.name}' is in its collection already")
            return {'CANCELLED'}
        self.report({'INFO'}, f"Moved the ragdoll of '{arm.name}' into '{home.name}'")
        return {'FINISHED'}


class LIGAMENT_OT_own_ragdoll(bpy.types.Operator):
    """Give an armature that follows another armature's ragdoll (a copy made without it) a
    copy of that ragdoll of its own, or make its lost ragdoll again"""
    bl_idname = "ligament.own_ragdoll"
    bl_label = "Make Its Own Ragdoll"
    bl_options = {'REGISTER', 'UNDO'}

    armature: StringProperty(name="Armature", description="The armature (default: active)")

    def execute(self, context):
        arm = _named_armature(self, context)
        if arm is None:
            return {'CANCELLED'}
        try:
            src = ragdoll.make_own(context.scene, arm)
        except (ValueError, OSError) as exc:
            self.report({'ERROR'}, f"Armature '{arm.name}': {exc}")
            return {'CANCELLED'}
        cache.invalidate(context.scene)
        doctor.recheck(context.scene)
        self.report({'INFO'}, f"'{arm.name}' has a ragdoll of its own" +
                    (f", copied from '{src.name}'" if src is not None else ""))
        return {'FINISHED'}


class LIGAMENT_OT_ragdoll_crowd(bpy.types.Operator):
    """Make copies of the active ragdolled character (armature, the meshes it deforms, a
    ragdoll of each copy's own) on a grid or along a curve, for crowd shots"""
    bl_idname = "ligament.ragdoll_crowd"
    bl_label = "Ragdoll Crowd"
    bl_options = {'REGISTER', 'UNDO'}

    count: IntProperty(name="Copies", default=10, min=1, soft_max=200,
                       description="How many copies to make")
    layout: EnumProperty(name="Layout", items=(
        ('GRID', "Grid", "Rows beside the original"),
        ('CURVE', "Curve", "Evenly along a curve, the first copy at its start")))
    spacing: FloatProperty(name="Spacing", default=2.0, min=0.01, unit='LENGTH',
                           description="Distance between neighbours on the grid")
    columns: IntProperty(name="Columns", default=0, min=0,
                         description="Copies per row on the grid (0: a square)")
    curve: StringProperty(name="Curve", description="The curve object to place them along")
    start_offset: IntProperty(name="Random Start", default=0, min=0, soft_max=100,
                              description="Each copy's animation starts up to this many "
                                          "frames later (0: all together)")
    seed: IntProperty(name="Seed", default=0, min=0, description="Random seed of the starts")

    @classmethod
    def poll(cls, context):
        return armature_poll(cls, context, has_ragdoll=True)

    def execute(self, context):
        arm = context.active_object
        curve = context.scene.objects.get(self.curve) if self.curve else None
        try:
            copies = crowd.make_crowd(context.scene, arm, self.count, self.layout,
                                      self.spacing, self.columns, curve, self.start_offset,
                                      self.seed)
        except ValueError as exc:
            self.report({'ERROR'}, f"Crowd of '{arm.name}': {exc}")
            return {'CANCELLED'}
        cache.invalidate(context.scene)
        self.report({'INFO'}, f"Made {len(copies)} copies of '{arm.name}'")
        return {'FINISHED'}


def _instance(op, context):
    inst = context.scene.objects.get(op.instance)
    if inst is None or inst.instance_type != 'COLLECTION' or inst.instance_collection is None:
        op.report({'ERROR'}, f"No collection instance '{op.instance}' in the scene")
        return None
    return inst


class LIGAMENT_OT_instance_character(bpy.types.Operator):
    """Replace a collection instance of a ragdolled character by a real copy of it where the
    instance stands, with a ragdoll of its own"""
    bl_idname = "ligament.instance_character"
    bl_label = "Make a Real Copy"
    bl_options = {'REGISTER', 'UNDO'}

    instance: StringProperty(name="Instance", description="The collection instance empty")

    def execute(self, context):
        inst = _instance(self, context)
        if inst is None:
            return {'CANCELLED'}
        name = inst.name
        try:
            copies = crowd.make_instance_real(context.scene, inst)
        except ValueError as exc:
            self.report({'ERROR'}, str(exc))
            return {'CANCELLED'}
        cache.invalidate(context.scene)
        doctor.recheck(context.scene)
        self.report({'INFO'}, f"'{name}' is now " + ", ".join(f"'{c.name}'" for c in copies))
        return {'FINISHED'}


class LIGAMENT_OT_override_character(bpy.types.Operator):
    """Make a library override of a linked character's collection instance, so that it
    simulates in this file (Object > Library Override > Make)"""
    bl_idname = "ligament.override_character"
    bl_label = "Make Library Override"
    bl_options = {'REGISTER', 'UNDO'}

    instance: StringProperty(name="Instance", description="The collection instance empty")

    def execute(self, context):
        inst = _instance(self, context)
        if inst is None:
            return {'CANCELLED'}
        for o in context.view_layer.objects:
            if o.select_get():
                o.select_set(False)
        inst.select_set(True)
        context.view_layer.objects.active = inst
        result = bpy.ops.object.make_override_library()
        cache.invalidate(context.scene)
        doctor.recheck(context.scene)
        return result


def _user_preset_items(self, context):
    """The ragdoll presets saved in your user folder (Save Ragdoll Preset)."""
    items = [(name, name, path, i) for i, (name, path) in
             enumerate(tuning.user_presets().items())]
    _user_preset_items.cache = items or [('NONE', "No Presets",
                                          "Save a tuned ragdoll with Save Preset first", 0)]
    return _user_preset_items.cache


class LIGAMENT_OT_ragdoll_preset_save(bpy.types.Operator):
    """Save the ragdoll's tuning (shapes, masses, materials, limits, drives) by body part to a
    preset file in your user folder, to apply to other characters"""
    bl_idname = "ligament.ragdoll_preset_save"
    bl_label = "Save Ragdoll Preset"
    bl_options = {'REGISTER'}

    name: StringProperty(name="Name", description="The preset's name")
    filepath: StringProperty(name="File", subtype='FILE_PATH', options={'SKIP_SAVE'},
                             description="Save to this file instead (a .toml)")

    @classmethod
    def poll(cls, context):
        return armature_poll(cls, context, has_ragdoll=True)

    def invoke(self, context, event):
        if not self.name:
            self.name = context.active_object.name
        return context.window_manager.invoke_props_dialog(self)

    def execute(self, context):
        arm = context.active_object
        try:
            path = tuning.save(arm, self.filepath or tuning.preset_path(self.name or arm.name))
        except (OSError, ValueError) as exc:
            self.report({'ERROR'}, f"Ragdoll '{arm.name}': {exc}")
            return {'CANCELLED'}
        self.report({'INFO'}, f"Ragdoll '{arm.name}': saved {path}")
        return {'FINISHED'}


class LIGAMENT_OT_ragdoll_preset_apply(bpy.types.Operator):
    """Apply a saved ragdoll preset to the active ragdoll, part by part through its bone map
    (any rig: Rigify, Mixamo, generic names)"""
    bl_idname = "ligament.ragdoll_preset_apply"
    bl_label = "Apply Ragdoll Preset"
    bl_options = {'REGISTER', 'UNDO'}

    preset: EnumProperty(name="Preset", items=_user_preset_items,
                         description="A preset in your user folder")
    filepath: StringProperty(name="File", subtype='FILE_PATH', options={'SKIP_SAVE'},
                             description="Apply this preset file instead")

    @classmethod
    def poll(cls, context):
        return armature_poll(cls, context, has_ragdoll=True)

    def execute(self, context):
        arm = context.active_object
        path = self.filepath or tuning.user_presets().get(self.preset)
        if not path:
            self.report({'ERROR'}, "No ragdoll preset chosen; save one with Save Preset")
            return {'CANCELLED'}
        try:
            done, missing = tuning.apply(arm, tuning.load(path))
        except (OSError, ValueError) as exc:
            self.report({'ERROR'}, f"Ragdoll '{arm.name}': {exc}")
            return {'CANCELLED'}
        cache.invalidate(context.scene)
        message = f"Ragdoll '{arm.name}': applied {len(done)} parts"
        if missing:
            message += f"; it has no {', '.join(missing)}"
        self.report({'WARNING'} if missing else {'INFO'}, message)
        return {'FINISHED'}


class LIGAMENT_OT_ragdoll_mirror(bpy.types.Operator):
    """Copy one side's settings (shapes, masses, materials, drives, limits mirrored) onto the
    other side of the ragdoll"""
    bl_idname = "ligament.ragdoll_mirror"
    bl_label = "Mirror Ragdoll"
    bl_options = {'REGISTER', 'UNDO'}

    direction: EnumProperty(name="Direction", items=(
        ('L_TO_R', "Left to Right", "Give the right side the left side's settings"),
        ('R_TO_L', "Right to Left", "Give the left side the right side's settings")))

    @classmethod
    def poll(cls, context):
        return armature_poll(cls, context, has_ragdoll=True)

    def execute(self, context):
        arm = context.active_object
        try:
            written = tuning.mirror(arm, 'L' if self.direction == 'L_TO_R' else 'R')
        except ValueError as exc:
            self.report({'ERROR'}, f"Ragdoll '{arm.name}': {exc}")
            return {'CANCELLED'}
        cache.invalidate(context.scene)
        self.report({'INFO'}, f"Ragdoll '{arm.name}': mirrored {len(written)} parts")
        return {'FINISHED'}


class LIGAMENT_OT_control_pair_add(bpy.types.Operator):
    """Add a pair: a bone of the ragdoll's armature and the control rig's bone that follows it
    in a bake"""
    bl_idname = "ligament.control_pair_add"
    bl_label = "Add Control Pair"
    bl_options = {'REGISTER', 'UNDO'}

    @classmethod
    def poll(cls, context):
        return armature_poll(cls, context, has_ragdoll=True)

    def execute(self, context):
        rd = context.active_object.ligament_ragdoll
        rd.controls.add()
        rd.controls_index = len(rd.controls) - 1
        return {'FINISHED'}


class LIGAMENT_OT_control_pair_remove(bpy.types.Operator):
    """Remove the selected pair"""
    bl_idname = "ligament.control_pair_remove"
    bl_label = "Remove Control Pair"
    bl_options = {'REGISTER', 'UNDO'}

    @classmethod
    def poll(cls, context):
        return armature_poll(cls, context, has_ragdoll=True) and \
            len(context.active_object.ligament_ragdoll.controls) > 0

    def execute(self, context):
        rd = context.active_object.ligament_ragdoll
        rd.controls.remove(rd.controls_index)
        rd.controls_index = max(0, min(rd.controls_index, len(rd.controls) - 1))
        return {'FINISHED'}


class LIGAMENT_OT_control_pairs_rigify(bpy.types.Operator):
    """Replace the pairs with the default ones for a rig Rigify generated from this metarig:
    each bone the ragdoll moves onto its FK control and its tweak"""
    bl_idname = "ligament.control_pairs_rigify"
    bl_label = "Rigify Controls"
    bl_options = {'REGISTER', 'UNDO'}

    @classmethod
    def poll(cls, context):
        if not armature_poll(cls, context, has_ragdoll=True):
            return False
        arm = context.active_object
        if arm.ligament_ragdoll.control_rig is None and controls.generated_rig(arm) is None:
            cls.poll_message_set("Pick the control rig (or generate the Rigify rig) first")
            return False
        return True

    def execute(self, context):
        arm = context.active_object
        n = controls.fill_defaults(arm, force=True)
        if not n:
            self.report({'ERROR'}, f"'{arm.ligament_ragdoll.control_rig.name}' has no Rigify "
                                   "controls for the ragdoll's bones; add the pairs by hand")
            return {'CANCELLED'}
        self.report({'INFO'}, f"Ragdoll '{arm.name}': {n} control pairs")
        return {'FINISHED'}


classes = (LIGAMENT_OT_ragdoll_from_armature, LIGAMENT_OT_remove_ragdoll,
           LIGAMENT_OT_ragdoll_preset_save, LIGAMENT_OT_ragdoll_preset_apply,
           LIGAMENT_OT_ragdoll_mirror, LIGAMENT_OT_control_pair_add,
           LIGAMENT_OT_control_pair_remove, LIGAMENT_OT_control_pairs_rigify,
           LIGAMENT_OT_move_ragdoll_home, LIGAMENT_OT_own_ragdoll, LIGAMENT_OT_ragdoll_crowd,
           LIGAMENT_OT_instance_character, LIGAMENT_OT_override_character)
register, unregister = bpy.utils.register_classes_factory(classes)
