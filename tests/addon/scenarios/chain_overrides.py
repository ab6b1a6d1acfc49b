"""test_chain_overrides.py's scenarios: a character file holding an armature with a bone
chain (four 0.2 m bones straight out along x from 2 m, the first the chain's animated root),
linked into a shot with a library override whose chain settings the shot tunes."""

import bpy
from mathutils import Vector

from .characters import link_override, new_shot, select_collection
from .helpers import lig

BONES = ("root", "b1", "b2", "b3")


def _character(path, old_group=None):
    """The character file: the armature "Pet" in a collection "Char", a Hair chain on its
    bones; with `old_group` ({setting: value}), the chain's settings stored as a file made
    before stored them (in the root pose bone's `ligament_chain` group only)."""
    bpy.ops.wm.read_homefile(use_empty=True)
    scene = bpy.context.scene
    coll = bpy.data.collections.new("Char")
    scene.collection.children.link(coll)
    select_collection(coll)
    data = bpy.data.armatures.new("Pet")
    arm = bpy.data.objects.new("Pet", data)
    coll.objects.link(arm)
    arm.location = (0, 0, 2)
    bpy.context.view_layer.objects.active = arm
    arm.select_set(True)
    bpy.ops.object.mode_set(mode='EDIT')
    head, parent = Vector(), None
    for name in BONES:
        eb = data.edit_bones.new(name)
        eb.head, eb.tail, eb.roll = head, head + Vector((0.2, 0, 0)), 0.0
        if parent is not None:
            eb.parent, eb.use_connect = parent, True
        parent, head = eb, head + Vector((0.2, 0, 0))
    bpy.ops.object.mode_set(mode='OBJECT')
    lig().addon.authoring.chain.create(scene, arm, list(BONES))
    if old_group is not None:
        pb = arm.pose.bones["root"]
        system = getattr(pb, "bl_system_properties_get", None)
        group = (system(do_create=True) if system is not None else pb)["ligament_chain"]
        for key, value in old_group.items():
            group[key] = value
            pb.property_unset("ligament_chain_" + key)
    bpy.ops.wm.save_as_mainfile(filepath=path)


def _tip(arm):
    return list(arm.matrix_world @ arm.pose.bones[BONES[-1]].tail)


def _play(arm, frames):
    scene = bpy.context.scene
    out = []
    for f in range(1, frames + 1):
        scene.frame_set(f)
        out.append(_tip(arm))
    return out


def _the_armature():
    return next(o for o in bpy.context.scene.objects if o.type == 'ARMATURE')


def chain_tuned_through_the_override(char_path, shot_path, settings, frames=48):
    """The character linked and overridden in a shot, its chain's tip played; `settings`
    ({setting: value}, e.g. gravity_factor) set on the chain's root bone through the
    override, the shot saved and opened again: what the override stores, the settings read
    back (the root pose bone's own and through `ligament_chain`), whether Blender lets the
    user edit them, the tip played again, the character file's bytes before and after."""
    _character(char_path)
    before = open(char_path, "rb").read()
    new_shot(frames)
    arm = link_override(char_path)
    library = _play(arm, frames)
    bpy.context.scene.frame_set(1)
    pb = arm.pose.bones["root"]
    for key, value in settings.items():
        setattr(pb, "ligament_chain_" + key, value)
    bpy.ops.wm.save_as_mainfile(filepath=shot_path)
    bpy.ops.wm.open_mainfile(filepath=shot_path)
    arm = _the_armature()
    pb = arm.pose.bones["root"]
    out = {"override": arm.override_library is not None,
           "stored": sorted(p.rna_path for p in arm.override_library.properties
                            if ".ligament_chain" in p.rna_path),
           "own": {k: getattr(pb, "ligament_chain_" + k) for k in settings},
           "group": {k: getattr(pb.ligament_chain, k) for k in settings},
           "editable": all(not pb.is_property_readonly("ligament_chain_" + k)
                           for k in settings),
           "library": library, "played": _play(arm, frames),
           "rest_tip": list(arm.matrix_world @ arm.data.bones[BONES[-1]].tail_local),
           "error": lig().addon.runtime.cache.error(bpy.context.scene)}
    out["library_unchanged"] = open(char_path, "rb").read() == before
    return out


def chain_settings_of_a_file_made_before(char_path, settings, frames=48):
    """A character file whose chain settings `settings` were kept in the root pose bone's
    `ligament_chain` group (as files made before kept them), opened: the settings read (the
    pose bone's own, moved there on load, and through the group), whether the pose bone's own
    is set, and the tip played."""
    _character(char_path, old_group=settings)
    bpy.ops.wm.open_mainfile(filepath=char_path)
    scene = bpy.context.scene
    scene.ligament_world.frame_end = frames
    arm = _the_armature()
    pb = arm.pose.bones["root"]
    return {"own": {k: getattr(pb, "ligament_chain_" + k) for k in settings},
            "set": all(pb.is_property_set("ligament_chain_" + k) for k in settings),
            "group": {k: getattr(pb.ligament_chain, k) for k in settings},
            "played": _play(arm, frames),
            "rest_tip": list(arm.matrix_world @ arm.data.bones[BONES[-1]].tail_local)}
