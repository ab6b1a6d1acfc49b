"""Panels, one module per area as Blender's bl_ui/properties_physics_*.py are: Properties >
Physics (body on objects, joint on empties, ragdoll on armatures), Properties > Bone (a
ragdoll bone's switches), Properties > Scene (world) and the "Ligament" tab of the 3D View
sidebar. `bl_idname`s are a contract: scripts and tests look panels up by them."""

import bpy

from . import bone_ragdoll, motion, physics_body, physics_joint, physics_ragdoll, scene_world, \
    view3d_sidebar

# Parents before their subpanels; the sidebar's subpanels in the order they are shown.
modules = (physics_body, physics_joint, scene_world, physics_ragdoll, bone_ragdoll,
           view3d_sidebar, motion)
classes = tuple(cls for m in modules for cls in m.classes)
register, unregister = bpy.utils.register_classes_factory(classes)
