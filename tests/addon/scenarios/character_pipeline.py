"""Scenarios of test_character_overrides.py and test_character_copies.py: a metarig with a
ragdoll in a collection of its own ("Char"), saved as a character file, linked into a shot
and given a library override, or copied in the shot."""

import os
import sys

import bpy
from mathutils import Matrix, Vector

from . import characters
from .characters import link_override, new_shot
from .helpers import Layout, box, lig

SHOWN = ("spine", "spine.006", "hand.L", "foot.R")    # pelvis, head, a hand and a foot


def module(name):
    """A module of the installed add-on, e.g. module("scene.ragdolls")."""
    return sys.modules[lig().__name__ + ".addon." + name]


def character(name="Hero", collection="Char", location=(0, 0, 1.0)):
    """A human metarig given a ragdoll, in a new collection `collection` of the scene."""
    bpy.ops.preferences.addon_enable(module="rigify")
    return characters.character(name, collection, location=location)


def heads(arm, names=SHOWN):
    """World positions of the heads of the bones `names`, as evaluated now."""
    return [list(arm.matrix_world @ arm.pose.bones[n].head) for n in names]


def play(arm, frames=40):
    """The heads of SHOWN at every frame of playback from frame 1."""
    scene = bpy.context.scene
    out = []
    for f in range(1, frames + 1):
        scene.frame_set(f)
        out.append(heads(arm))
    return out


def the_armature():
    return next(o for o in bpy.context.scene.objects if o.type == 'ARMATURE')


def file_state(path):
    return [os.path.getmtime(path), open(path, "rb").read().hex()]


def keyed_root_heads(arm, bone, frames):
    """Where the root bone `bone` heads at each frame by its location keys alone: the
    armature's matrix, the bone's rest matrix and the keyed translation (a root bone's pose
    matrix is its rest matrix times its basis)."""
    pb = arm.pose.bones[bone]
    path = f'pose.bones["{bone}"].location'
    channels = module("scene.animation").action_fcurves(arm)
    fcs = [channels[(path, i)] for i in range(3)]
    out = []
    for f in range(1, frames + 1):
        loc = Vector([fc.evaluate(f) for fc in fcs])
        out.append(list(arm.matrix_world @ (pb.bone.matrix_local @ Matrix.Translation(loc))
                        .translation))
    return out


def bone_animated_through_the_override(char_path, shot_path, bone="spine", rise=0.3,
                                       frames=40):
    """A character file; in a shot, its library override with `bone` (a root bone) keyed to
    rise by `rise` along itself over the shot and switched to Animated through the override,
    saved and opened again. What the override stores, the heads played, the heads the keys
    alone give, the same character played with every bone simulated, and the character file
    before and after."""
    character()
    bpy.ops.wm.save_as_mainfile(filepath=char_path)
    before = file_state(char_path)
    new_shot(frames)
    arm = link_override(char_path)
    falling = play(arm, frames)
    bpy.context.scene.frame_set(1)
    pb = arm.pose.bones[bone]
    pb.location = (0, 0, 0)
    pb.keyframe_insert("location", frame=1)
    pb.location = (0, rise, 0)
    pb.keyframe_insert("location", frame=frames)
    pb.ligament_simulated = False
    pb.ligament_drive_strength = 0.25
    bpy.ops.wm.save_as_mainfile(filepath=shot_path)
    bpy.ops.wm.open_mainfile(filepath=shot_path)
    arm = the_armature()
    pb = arm.pose.bones[bone]
    out = {"override": arm.override_library is not None,
           "stored": sorted(p.rna_path for p in arm.override_library.properties
                            if ".ligament_" in p.rna_path),
           "simulated": pb.ligament_simulated, "strength": pb.ligament_drive_strength,
           "old_name": pb.ligament_ragdoll.simulated,
           "editable": not pb.is_property_readonly("ligament_simulated") and
           not pb.is_property_readonly("ligament_drive_strength"),
           "falling": falling}
    out["played"] = play(arm, frames)
    out["keyed"] = keyed_root_heads(arm, bone, frames)
    out["error"] = module("runtime.cache").error(bpy.context.scene)
    out["library_before"], out["library_after"] = before, file_state(char_path)
    return out


def switches_kept_in_the_old_group(char_path, shot_path, bone="spine", frames=40):
    """Files made before keep a bone's switches in the pose bone's `ligament_ragdoll` group.
    A character saved so (its `bone` Animated, drive strength 0.5), opened again; then linked
    and overridden in a shot (what the scene check says), played; the switch set back
    through the override, saved and opened again; then the same once the character file was
    opened and saved."""
    arm = character()
    old_group(arm.pose.bones[bone], {"simulated": 0, "drive_strength": 0.5})
    bpy.ops.wm.save_as_mainfile(filepath=char_path)
    bpy.ops.wm.open_mainfile(filepath=char_path)
    pb = the_armature().pose.bones[bone]
    out = {"opened": [pb.ligament_simulated, pb.ligament_drive_strength]}
    for step in ("old", "saved"):
        new_shot(frames)
        arm = link_override(char_path)
        pb = arm.pose.bones[bone]
        out[step] = {"linked": [pb.ligament_ragdoll.simulated,
                                pb.ligament_ragdoll.drive_strength],
                     "found": [(f.severity, list(f.objects), f.message) for f in
                               module("check.doctor").check(bpy.context.scene)
                               if f.code == 'ragdoll-old-switches'],
                     "played": play(arm, frames)}
        pb.ligament_simulated = True
        bpy.ops.wm.save_as_mainfile(filepath=shot_path)
        bpy.ops.wm.open_mainfile(filepath=shot_path)
        pb = the_armature().pose.bones[bone]
        out[step]["reloaded"] = [pb.ligament_simulated, pb.ligament_drive_strength]
        bpy.ops.wm.open_mainfile(filepath=char_path)     # what the finding asks for
        bpy.ops.wm.save_mainfile()
    return out


def old_group(pb, values):
    """Store `values` in the pose bone's `ligament_ragdoll` group as files made before did
    (5.0 keeps registered properties apart from custom ones)."""
    system = getattr(pb, "bl_system_properties_get", None)
    props = system(do_create=True) if system is not None else pb
    props["ligament_ragdoll"] = values


def draw_ragdoll_panels(arm, bone="forearm.L"):
    """What the ragdoll's panels (Physics and Bone) draw for `arm`, its pose bone `bone`
    active."""
    layout = Layout()
    ctx = type("Context", (), {"object": arm, "active_object": arm,
                               "scene": bpy.context.scene,
                               "active_pose_bone": arm.pose.bones[bone]})()
    for name in ("PHYSICS_PT_ligament_ragdoll", "PHYSICS_PT_ligament_ragdoll_drives",
                 "PHYSICS_PT_ligament_ragdoll_bodies", "BONE_PT_ligament_ragdoll"):
        cls = getattr(bpy.types, name)
        if cls.poll(ctx):
            cls.draw(type("Panel", (), {"layout": Layout(layout.record)})(), ctx)
    return layout.record


def panels_of_a_linked_character(char_path):
    """The ragdoll panels of a character in its own file, linked into a shot, and given a
    library override there; for the override, whether Blender lets the user edit what the
    panel says comes from the library."""
    character()
    bpy.ops.wm.save_as_mainfile(filepath=char_path)
    out = {"local": draw_ragdoll_panels(the_armature())}
    new_shot()
    with bpy.data.libraries.load(char_path, link=True) as (_src, dst):
        dst.objects = ["Hero"]
    out["linked"] = draw_ragdoll_panels(dst.objects[0])
    arm = link_override(char_path)
    out["override"] = draw_ragdoll_panels(arm)
    ragdolls = module("scene.ragdolls")
    body = ragdolls.bodies(arm)[0]
    joint = ragdolls.members(arm, 'JOINT')[0]
    # Make > Library Override leaves the character's other objects system overrides, which
    # nothing edits until the user makes them editable
    out["system_body"] = body.ligament_body.is_property_readonly("mass")
    for obj in (body, joint):
        obj.override_library.is_system_override = False
    out["library_settings"] = {
        "body shape": body.ligament_body.is_property_readonly("shape"),
        "joint limits": joint.ligament_joint.is_property_readonly("limit_ang_lower"),
        "joint type": joint.ligament_joint.is_property_readonly("type"),
        "bone chain": arm.pose.bones["spine"].ligament_chain.is_property_readonly("radius"),
        "body mass": body.ligament_body.is_property_readonly("mass")}
    out["library"] = ragdolls.library_of(arm)
    return out


# The Duplicate Data preferences (Edit > Duplicate Data) by object type, for the types a
# character holds
DUPLICATE_DATA = {'MESH': "use_duplicate_mesh", 'ARMATURE': "use_duplicate_armature",
                  'CURVE': "use_duplicate_curve", 'LIGHT': "use_duplicate_light",
                  'CAMERA': "use_duplicate_camera"}


def duplicate_collection(coll, parent, linked=False):
    """What Outliner > Duplicate Collection (`linked`: Duplicate Linked) does, with
    bpy.data's copy API: its operator needs the Outliner's tree, which background Blender
    never builds. Blender's BKE_collection_duplicate copies the collection and its child
    collections recursively into `parent`, duplicates each object in them once (its data
    too where the Duplicate Data preferences say so, none when linked), then points every
    ID pointer of the copies that points at a duplicated ID at its copy
    (BKE_libblock_relink_to_newid); here, every ID pointer RNA shows on the copies. The new
    collection."""
    new = {}
    prefs = bpy.context.preferences.edit

    def copy_tree(c, parent):
        copy = new[c] = c.copy()     # the same objects and children as `c`
        parent.children.link(copy)
        for o in list(copy.objects):
            copy.objects.unlink(o)
        for child in list(copy.children):
            copy.children.unlink(child)
        for o in c.objects:
            if o not in new:
                new[o] = o.copy()
                pref = DUPLICATE_DATA.get(o.type)
                if not linked and pref and getattr(prefs, pref):
                    new[o.data] = new[o].data = o.data.copy()
            copy.objects.link(new[o])
        for child in c.children:
            copy_tree(child, copy)
        return copy

    root = copy_tree(coll, parent)
    for copy in set(new.values()):
        relink(copy, new)
    bpy.context.view_layer.update()
    return root


def relink(struct, new, depth=0, seen=None):
    """Point the ID pointers of `struct` (and of the structs it holds, a few levels down)
    that point at a key of `new` at its value."""
    seen = {} if seen is None else seen      # struct address -> the least depth met at
    key = struct.as_pointer()
    if depth > 4 or seen.get(key, 99) <= depth:
        return
    seen[key] = depth
    for prop in struct.bl_rna.properties:
        name = prop.identifier
        if name == "rna_type" or prop.type not in ('POINTER', 'COLLECTION'):
            continue
        try:
            value = getattr(struct, name)
        except (AttributeError, RuntimeError):
            continue
        if prop.type == 'POINTER':
            if isinstance(value, bpy.types.ID):
                if value in new and not prop.is_readonly:
                    setattr(struct, name, new[value])
            elif value is not None:
                relink(value, new, depth + 1, seen)
        else:
            for item in value:
                if not isinstance(item, bpy.types.ID):
                    relink(item, new, depth + 1, seen)


def collection_duplicated(linked, shift=3.0, frames=60):
    """A character's collection duplicated as the Outliner does (`linked`: Duplicate
    Linked), the copy's armature moved `shift` m along x: what the scene check finds, then,
    its fixes applied, whose ragdoll each armature follows, their own bodies and their spines'
    heads over the fall."""
    scene = bpy.context.scene
    box("Ground", (60, 60, 1), (0, 0, -0.5), kind='STATIC')
    scene.ligament_world.frame_end = frames
    arm = character()
    copy_coll = duplicate_collection(bpy.data.collections["Char"], scene.collection, linked)
    copy = next(o for o in copy_coll.objects if o.type == 'ARMATURE')
    copy.location.x += shift
    bpy.context.view_layer.update()
    doctor = module("check.doctor")
    found = [(f.severity, f.code, list(f.objects), f.fix and f.fix.operator)
             for f in doctor.check(scene) if f.severity in ('ERROR', 'WARNING')]
    for f in doctor.check(scene):
        if f.fix is not None and f.severity == 'ERROR':
            getattr(bpy.ops.ligament, f.fix.operator.split(".")[1])(**f.fix.args)
    ragdolls = module("scene.ragdolls")

    def follows(a):
        return sorted({c.target.ligament_ragdoll_part.armature.name for pb in a.pose.bones
                       for c in pb.constraints if c.name == "Ligament Ragdoll" and c.target})
    out = {"found": found, "names": [arm.name, copy.name],
           "follows": [follows(a) for a in (arm, copy)],
           "own": [len(ragdolls.bodies(a)) for a in (arm, copy)],
           "copy_home": [c.name for c in bpy.data.collections
                         if copy.ligament_ragdoll.collection.name in c.children],
           "again": [f.code for f in doctor.check(scene) if f.severity == 'ERROR'],
           "track": []}
    for f in range(1, frames + 1):
        scene.frame_set(f)
        out["track"].append([list(a.matrix_world @ a.pose.bones["spine"].head)
                             for a in (arm, copy)])
    out["error"] = module("runtime.cache").error(scene)
    return out


def body_moved_out_of_its_ragdoll(part="forearm.L", frames=30):
    """A ragdoll body moved out of its ragdoll's collection into the scene's (as a
    duplicate half relinked leaves one, or a drag in the Outliner): what the scene check
    says, and whether playback runs (the scene's error, the body's height at the end)."""
    scene = bpy.context.scene
    box("Ground", (30, 30, 1), (0, 0, -0.5), kind='STATIC')
    scene.ligament_world.frame_end = frames
    arm = character()
    body = next(o for o in module("scene.ragdolls").bodies(arm)
                if o.ligament_ragdoll_part.part == part)
    arm.ligament_ragdoll.collection.objects.unlink(body)
    scene.collection.objects.link(body)
    start = body.matrix_world.translation.z
    found = [(f.severity, f.code, list(f.objects), f.message)
             for f in module("check.doctor").check(scene) if f.code.startswith("ragdoll")]
    for f in range(1, frames + 1):
        scene.frame_set(f)
    return {"found": found, "error": module("runtime.cache").error(scene), "name": body.name,
            "start": start, "end": body.matrix_world.translation.z,
            "members": len(module("scene.ragdolls").bodies(arm))}


def batch_bake_of_a_shot_linking_without_override(char_path, shot_path, report_path):
    """A shot that links the character (a collection instance, File > Link) without an
    override, baked by the batch command: its exit code and report."""
    import json
    from importlib import import_module
    character()
    bpy.ops.wm.save_as_mainfile(filepath=char_path)
    scene = new_shot()
    box("Crate", (0.5, 0.5, 0.5), (0, 0, 2))
    with bpy.data.libraries.load(char_path, link=True) as (_src, dst):
        dst.collections = ["Char"]
    inst = bpy.data.objects.new("Char", None)
    inst.instance_type = 'COLLECTION'
    inst.instance_collection = dst.collections[0]
    scene.collection.objects.link(inst)
    bpy.ops.wm.save_as_mainfile(filepath=shot_path)
    cli = import_module(lig().__name__ + ".addon.cli")
    code = cli.main(["bake", shot_path, "--report", report_path])
    return {"code": code, "report": json.load(open(report_path))}


def bone_switch_keyed_in_the_shot(char_path, path, bone="spine", frame=20, frames=40):
    """A character's library override in a shot, its `bone`'s Simulated switch keyed in the
    shot off at frame 1 and on at `frame`, through the data path `path` ("own":
    pose.bones[...].ligament_simulated, "group": pose.bones[...].ligament_ragdoll.simulated,
    the name files made before keyed): the heads played, and the paths keyed."""
    character()
    bpy.ops.wm.save_as_mainfile(filepath=char_path)
    new_shot(frames)
    arm = link_override(char_path)
    name = bpy.utils.escape_identifier(bone)
    full = f'pose.bones["{name}"].' + ("ligament_simulated" if path == "own"
                                       else "ligament_ragdoll.simulated")
    for f, on in ((1, False), (frame, True)):
        arm.pose.bones[bone].ligament_simulated = on
        assert arm.keyframe_insert(full, frame=f)
    keyed = sorted(p for p, _ in module("scene.animation").action_fcurves(arm)
                   if "simulated" in p)
    return {"played": play(arm, frames), "keyed": keyed,
            "error": module("runtime.cache").error(bpy.context.scene)}
