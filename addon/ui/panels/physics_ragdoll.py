"""Properties > Physics on an armature: the Ligament Ragdoll panel and its subpanels."""

import bpy

from ...authoring import chain
from ...authoring import ragdoll
from ...scene import ragdolls
from .common import PhysicsButtonsPanel

class RagdollPanel(PhysicsButtonsPanel):
    @classmethod
    def poll(cls, context):
        obj = context.object
        return obj is not None and obj.type == 'ARMATURE'


class RagdollSubpanel(RagdollPanel):
    """A subpanel of the ragdoll panel, shown once the armature is a ragdoll."""
    bl_parent_id = "PHYSICS_PT_ligament_ragdoll"

    @classmethod
    def poll(cls, context):
        return super().poll(context) and ragdoll.is_ragdoll(context.object)


def draw_ragdoll(layout, arm):
    """The ragdoll's main settings, or the button that makes one."""
    rd = arm.ligament_ragdoll
    if not ragdoll.is_ragdoll(arm):
        layout.operator_menu_enum("ligament.ragdoll_from_armature", "preset",
                                  text="Ragdoll from Armature", icon='ARMATURE_DATA')
    if not rd.enabled:
        return
    layout.use_property_split = True
    library = ragdolls.library_of(arm)
    if library is not None:
        box = layout.column(align=True)
        box.label(text=f"Linked from {library}", icon='LIBRARY_DATA_OVERRIDE')
        if arm.library is not None:
            box.label(text="Make a library override to simulate it in this file")
        else:
            box.label(text="Editable here: Simulated, Total Mass, Pose Matching, each "
                           "bone's Simulated and Drive Strength, bone chains' Stiffness, "
                           "Damping and Gravity")
            box.label(text="A body's own mass once the body is made editable (Outliner: "
                           "Library Override > Make Editable)")
            box.label(text="Read from the library: bodies' shapes, joints and limits, "
                           "bone chains' presets, radius and limits")
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
    if ragdoll.is_ragdoll(arm):
        layout.operator("ligament.ragdoll_crowd", icon='COMMUNITY')
    layout.operator("ligament.remove_ragdoll", icon='X')


class PHYSICS_PT_ligament_ragdoll(RagdollPanel, bpy.types.Panel):
    bl_label = "Ligament Ragdoll"

    def draw(self, context):
        draw_ragdoll(self.layout, context.object)


class PHYSICS_PT_ligament_ragdoll_drives(RagdollSubpanel, bpy.types.Panel):
    bl_label = "Pose Matching"

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


class PHYSICS_PT_ligament_ragdoll_bodies(RagdollSubpanel, bpy.types.Panel):
    bl_label = "Bodies"
    bl_options = {'DEFAULT_CLOSED'}

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
                row.prop(pb, "ligament_simulated", text="", icon='PHYSICS')


class PHYSICS_PT_ligament_bone_chains(RagdollSubpanel, bpy.types.Panel):
    """The armature's bone chains (each one's settings: Properties > Bone)."""
    bl_label = "Bone Chains"

    @classmethod
    def poll(cls, context):
        return RagdollPanel.poll(context) and bool(chain.chain_roots(context.object))

    def draw(self, context):
        layout = self.layout
        arm = context.object
        for root in chain.chain_roots(arm):
            pb = arm.pose.bones[root]
            row = layout.row(align=True)
            row.label(text=root, icon='CON_SPLINEIK')
            row.prop(pb.ligament_chain, "preset", text="")
            row.prop(pb, "ligament_chain_stiffness", text="Hz")
            row.prop(pb, "ligament_chain_gravity_factor", text="Gravity")


class PHYSICS_PT_ligament_ragdoll_presets(RagdollSubpanel, bpy.types.Panel):
    bl_label = "Presets and Mirror"
    bl_options = {'DEFAULT_CLOSED'}

    def draw(self, context):
        layout = self.layout
        row = layout.row(align=True)
        row.operator_menu_enum("ligament.ragdoll_preset_apply", "preset", text="Apply Preset",
                               icon='PRESET')
        row.operator("ligament.ragdoll_preset_save", text="Save Preset", icon='FILE_TICK')
        row = layout.row(align=True)
        row.operator("ligament.ragdoll_mirror", text="Left to Right",
                     icon='MOD_MIRROR').direction = 'L_TO_R'
        row.operator("ligament.ragdoll_mirror", text="Right to Left").direction = 'R_TO_L'



class LIGAMENT_UL_control_pairs(bpy.types.UIList):
    """A (source bone, target bone) pair, each picked from its armature's bones."""

    def draw_item(self, context, layout, data, item, icon, active_data, active_prop):
        arm = data.id_data
        rig = data.control_rig
        row = layout.row(align=True)
        row.prop_search(item, "source", arm.pose, "bones", text="")
        row.label(icon='FORWARD')
        if rig is not None:
            row.prop_search(item, "target", rig.pose, "bones", text="")
        else:
            row.prop(item, "target", text="")


class PHYSICS_PT_ligament_ragdoll_controls(RagdollSubpanel, bpy.types.Panel):
    bl_label = "Bake onto Controls"
    bl_options = {'DEFAULT_CLOSED'}

    def draw(self, context):
        layout = self.layout
        rd = context.object.ligament_ragdoll
        layout.prop(rd, "control_rig")
        row = layout.row()
        row.template_list("LIGAMENT_UL_control_pairs", "", rd, "controls", rd,
                          "controls_index", rows=4)
        col = row.column(align=True)
        col.operator("ligament.control_pair_add", text="", icon='ADD')
        col.operator("ligament.control_pair_remove", text="", icon='REMOVE')
        layout.operator("ligament.control_pairs_rigify", icon='OUTLINER_OB_ARMATURE')


classes = (
    PHYSICS_PT_ligament_ragdoll,
    PHYSICS_PT_ligament_ragdoll_drives,
    PHYSICS_PT_ligament_ragdoll_bodies,
    PHYSICS_PT_ligament_bone_chains,
    PHYSICS_PT_ligament_ragdoll_presets,
    LIGAMENT_UL_control_pairs,
    PHYSICS_PT_ligament_ragdoll_controls,
)
