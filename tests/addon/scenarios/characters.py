"""test_characters.py's scenarios: a ragdoll travels with its character (appended, linked
with a library override, moved from the old layout). The character helpers are shared with
scenarios/crowds.py."""

import os
import sys
from importlib import import_module

import bpy

from .helpers import box, lig
from .rigs import enable_rigify


def ragdolls():
    return sys.modules[lig().__name__ + ".addon.scene.ragdolls"]


def doctor():
    return sys.modules[lig().__name__ + ".addon.check.doctor"]


def select_collection(coll):
    """Make `coll` the view layer's active collection (new objects go in it)."""
    stack = [bpy.context.view_layer.layer_collection]
    while stack:
        lc = stack.pop()
        if lc.collection == coll:
            bpy.context.view_layer.active_layer_collection = lc
        stack.extend(lc.children)


def character(name="Hero", collection="Char", parent=None, location=(0, 0, 1.0)):
    """A metarig with a ragdoll in a collection of its own (inside `parent`, if given)."""
    scene = bpy.context.scene
    coll = bpy.data.collections.new(collection)
    (bpy.data.collections[parent] if parent else scene.collection).children.link(coll)
    select_collection(coll)
    bpy.ops.object.armature_human_metarig_add()
    arm = bpy.context.active_object
    arm.name = name
    arm.location = location
    bpy.context.view_layer.update()
    assert bpy.ops.ligament.ragdoll_from_armature() == {'FINISHED'}
    return arm


def lean_chest(arm):
    """Key the metarig's chest (spine.003) to lean 0.3 rad about X over frames 1-30, as an
    animator's character moves; its pose bone, left at the lean."""
    pb = arm.pose.bones["spine.003"]
    pb.rotation_mode = 'XYZ'
    pb.keyframe_insert("rotation_euler", frame=1)
    pb.rotation_euler = (0.3, 0, 0)
    pb.keyframe_insert("rotation_euler", frame=30)
    return pb


def save_character(path, **kw):
    arm = character(**kw)
    bpy.ops.wm.save_as_mainfile(filepath=path)
    return arm


def new_shot(frames=40):
    """An empty file at 24 fps, simulated over `frames` frames, with the ground: its scene."""
    bpy.ops.wm.read_homefile(use_empty=True)
    scene = bpy.context.scene
    scene.render.fps = 24
    scene.ligament_world.frame_end = frames
    box("Ground", (30, 30, 1), (0, 0, -0.5), kind='STATIC')
    return scene


def link_override(path, collection="Char"):
    """Blender's Make > Library Override on a collection instance of the linked character:
    the overridden armature."""
    scene = bpy.context.scene
    with bpy.data.libraries.load(path, link=True) as (src, dst):
        dst.collections = [collection]
    inst = bpy.data.objects.new(collection, None)
    inst.instance_type = 'COLLECTION'
    inst.instance_collection = dst.collections[0]
    scene.collection.objects.link(inst)
    for o in bpy.context.view_layer.objects:
        o.select_set(False)
    bpy.context.view_layer.objects.active = inst
    inst.select_set(True)
    before = set(bpy.data.objects)
    assert bpy.ops.object.make_override_library() == {'FINISHED'}
    made = [o for o in bpy.data.objects if o not in before and o.override_library]
    return next(o for o in made if o.type == 'ARMATURE')


def play(arm, frames=40):
    """The bodies' and the bones' world positions at every frame of playback."""
    scene = bpy.context.scene
    bodies = sorted(ragdolls().bodies(arm), key=lambda o: o.ligament_ragdoll_part.part)
    out = []
    for f in range(1, frames + 1):
        scene.frame_set(f)
        out.append([list(o.matrix_world.translation) for o in bodies] +
                   [list(arm.matrix_world @ pb.head) for pb in arm.pose.bones
                    if pb.name in ("spine", "hand.L", "foot.R")])
    return out


def _character_file(path):
    """The character file `path` opened and played where it was made, then a new shot:
    (what it played, the file's bytes, its time)."""
    char_mtime = os.path.getmtime(path)
    with open(path, "rb") as f:
        char_bytes = f.read()
    bpy.ops.wm.open_mainfile(filepath=path)
    scene = bpy.context.scene
    scene.ligament_world.frame_end = 40
    bpy.context.view_layer.active_layer_collection = bpy.context.view_layer.layer_collection
    box("Ground", (30, 30, 1), (0, 0, -0.5), kind='STATIC')
    made = play(bpy.data.objects["Hero"])
    new_shot()
    return made, char_bytes, char_mtime


def _unchanged(path, char_bytes, char_mtime):
    with open(path, "rb") as f:
        return f.read() == char_bytes and os.path.getmtime(path) == char_mtime


def ragdoll_collection():
    """A character: where its ragdoll's collection is, whether it renders and shows, how
    many members it has and how many objects the character's collection holds."""
    enable_rigify()
    arm = character()
    chars = bpy.data.collections["Char"]
    coll = arm.ligament_ragdoll.collection
    lc = bpy.context.view_layer.layer_collection.children["Char"].children[coll.name]
    return {"parent": [c.name for c in bpy.data.collections if coll.name in c.children],
            "old": "Ligament Ragdolls" in bpy.data.collections,
            "hide_render": coll.hide_render, "hidden": lc.hide_viewport,
            "members": len(ragdolls().members(arm)),
            "in_char": len([o for o in chars.all_objects if o != arm])}


def bone_chain_collection():
    """A metarig in a "Pet" collection with a HAIR chain on a finger: where the chain's
    collection is, whether it renders, its members."""
    scene = bpy.context.scene
    enable_rigify()
    chain = sys.modules[lig().__name__ + ".addon.authoring.chain"]
    pet = bpy.data.collections.new("Pet")
    scene.collection.children.link(pet)
    bpy.context.view_layer.active_layer_collection = \
        bpy.context.view_layer.layer_collection.children["Pet"]
    bpy.ops.object.armature_human_metarig_add()
    arm = bpy.context.active_object
    chain.create(scene, arm, ["f_index.01.L", "f_index.02.L", "f_index.03.L"], 'HAIR')
    coll = arm.ligament_ragdoll.collection
    return {"parent": [c.name for c in bpy.data.collections if coll.name in c.children],
            "hide_render": coll.hide_render, "members": len(ragdolls().members(arm))}


def appended_character(path):
    """A character saved to `path`, played there, then appended into a new shot and
    played."""
    enable_rigify()
    save_character(path)
    bpy.ops.wm.open_mainfile(filepath=path)
    scene = bpy.context.scene
    scene.ligament_world.frame_end = 40
    bpy.context.view_layer.active_layer_collection = \
        bpy.context.view_layer.layer_collection
    box("Ground", (30, 30, 1), (0, 0, -0.5), kind='STATIC')
    made = play(bpy.data.objects["Hero"])
    scene = new_shot()
    with bpy.data.libraries.load(path, link=False) as (src, dst):
        dst.collections = ["Char"]
    scene.collection.children.link(dst.collections[0])
    arm = bpy.data.objects["Hero"]
    appended = play(arm)
    return {"made": made, "appended": appended, "members": len(ragdolls().members(arm)),
            "error": lig().addon.runtime.cache.error(scene)}


def old_layout_moved():
    """A character whose ragdoll collection sits in a top-level "Ligament Ragdolls" (the old
    layout): 30 frames, the check's finding and its fix, 30 frames again."""
    scene = bpy.context.scene
    enable_rigify()
    arm = character()
    coll = arm.ligament_ragdoll.collection
    # the layout of files made before: a "Ligament Ragdolls" collection at the top
    bpy.data.collections["Char"].children.unlink(coll)
    old = bpy.data.collections.new("Ligament Ragdolls")
    scene.collection.children.link(old)
    old.children.link(coll)
    box("Ground", (30, 30, 1), (0, 0, -0.5), kind='STATIC')
    scene.ligament_world.frame_end = 30
    before = play(arm, 30)
    found = [f for f in doctor().check(scene) if f.code == 'ragdoll-collection']
    fix = found[0].fix if found else None
    if fix:
        getattr(bpy.ops.ligament, fix.operator.split(".")[1])(**fix.args)
    after = play(arm, 30)
    return {"found": [(f.severity, f.objects, f.message) for f in found],
            "fix": fix and fix.operator,
            "parent": [c.name for c in bpy.data.collections if coll.name in c.children],
            "old_left": "Ligament Ragdolls" in bpy.data.collections,
            "again": [f.code for f in doctor().check(scene) if f.code == 'ragdoll-collection'],
            "before": before, "after": after}


def overridden_character_baked(path, shot):
    """A character saved to `path` and played there; in a new shot linked with a library
    override, played, baked and saved to `shot`, reopened at frame 40."""
    enable_rigify()
    save_character(path)
    made, char_bytes, char_mtime = _character_file(path)
    arm = link_override(path)
    bodies = ragdolls().bodies(arm)
    linked = play(arm)
    error = lig().addon.runtime.cache.error(bpy.context.scene)
    assert bpy.ops.ligament.bake(frame_start=1, frame_end=40) == {'FINISHED'}
    bpy.ops.wm.save_as_mainfile(filepath=shot)
    bpy.ops.wm.open_mainfile(filepath=shot)
    scene = bpy.context.scene
    arm = next(o for o in scene.objects if o.type == 'ARMATURE')
    scene.frame_set(40)
    baked = [list(arm.matrix_world @ pb.head) for pb in arm.pose.bones
             if pb.name in ("spine", "hand.L", "foot.R")]
    act = arm.animation_data.action
    return {"made": made, "linked": linked, "error": error, "baked": baked,
            "n_bodies": len(bodies), "override": arm.override_library is not None,
            "action_library": act.library is not None if act else None,
            "baked_flag": arm.ligament_ragdoll.baked,
            "char_same": _unchanged(path, char_bytes, char_mtime)}


def override_edited(path, shot):
    """A character saved to `path`, linked with an override into a new shot, its switch,
    drive, total mass and head mass edited, saved to `shot` and reopened; played falling,
    then switched back."""
    enable_rigify()
    rd_mod = ragdolls()
    save_character(path)
    new_shot()
    arm = link_override(path)
    rd = arm.ligament_ragdoll
    rd.simulated = False
    rd.drive_strength = 0.5
    rd.total_mass = 80.0
    body = next(o for o in rd_mod.bodies(arm) if o.ligament_ragdoll_part.part == "head")
    body.ligament_body.mass = 9.0
    bpy.ops.wm.save_as_mainfile(filepath=shot)
    bpy.ops.wm.open_mainfile(filepath=shot)
    arm = next(o for o in bpy.context.scene.objects if o.type == 'ARMATURE')
    rd = arm.ligament_ragdoll
    body = next(o for o in rd_mod.bodies(arm) if o.ligament_ragdoll_part.part == "head")
    # the override still simulates after the reload: its own bodies, falling
    rd.simulated = True
    rd.drive_strength = 0.0
    scene = bpy.context.scene
    scene.ligament_world.frame_end = 40
    box("Ground", (30, 30, 1), (0, 0, -0.5), kind='STATIC')
    z = play(arm)[-1][-3][2]
    rd.simulated = False
    rd.drive_strength = 0.5
    return {"simulated": rd.simulated, "strength": rd.drive_strength, "z": z,
            "own": all(b.override_library is not None for b in rd_mod.members(arm)),
            "total": rd.total_mass, "enabled": rd.enabled,
            "head": body.ligament_body.mass, "override": arm.override_library is not None,
            "library": rd_mod.library_of(arm)}


def two_overrides(path):
    """A character inside a "Cast" collection saved to `path`; two overrides of "Cast" in a
    new shot, the second 3 m along x: whose helpers each follows, and three bones' heads of
    each over 40 frames."""
    scene = bpy.context.scene
    enable_rigify()
    rd_mod = ragdolls()
    cast = bpy.data.collections.new("Cast")
    scene.collection.children.link(cast)
    save_character(path, parent="Cast")
    made, _, _ = _character_file(path)
    scene = bpy.context.scene
    first = link_override(path, "Cast")
    second = link_override(path, "Cast")
    second.location.x += 3.0
    bpy.context.view_layer.update()
    own = [all(b.ligament_ragdoll_part.armature == a for b in rd_mod.members(a))
           and len(rd_mod.bodies(a)) == 16 for a in (first, second)]
    targets = {a.name: sorted({c.target.ligament_ragdoll_part.armature.name
                               for pb in a.pose.bones for c in pb.constraints
                               if c.name == "Ligament Ragdoll"}) for a in (first, second)}
    frames = [[], []]
    for f in range(1, 41):
        scene.frame_set(f)
        for k, a in enumerate((first, second)):
            frames[k].append([list(a.matrix_world @ pb.head) for pb in a.pose.bones
                              if pb.name in ("spine", "hand.L", "foot.R")])
    return {"made": made, "first": frames[0], "second": frames[1], "own": own,
            "targets": targets, "names": [first.name, second.name],
            "error": lig().addon.runtime.cache.error(scene)}


def batch_bake_of_an_override(path, shot, baked, report, info):
    """A character saved to `path`, linked with an override into a shot saved to `shot`:
    the batch command's info (to `info`) and bake (to `baked`, report to `report`), and the
    baked file played."""
    enable_rigify()
    save_character(path)
    made, char_bytes, char_mtime = _character_file(path)
    cli = import_module(lig().__name__ + ".addon.cli")
    link_override(path)
    bpy.ops.wm.save_as_mainfile(filepath=shot)
    info_code = cli.main(["info", shot, "--json", info])
    code = cli.main(["bake", shot, "--output", baked, "--report", report])
    bpy.ops.wm.open_mainfile(filepath=baked)
    scene = bpy.context.scene
    arm = next(o for o in scene.objects if o.type == 'ARMATURE')
    tracks = []
    for f in range(1, 41):
        scene.frame_set(f)
        tracks.append([list(arm.matrix_world @ pb.head) for pb in arm.pose.bones
                       if pb.name in ("spine", "hand.L", "foot.R")])
    return {"code": code, "info_code": info_code, "made": made, "baked": tracks,
            "baked_flag": arm.ligament_ragdoll.baked,
            "override": arm.override_library is not None,
            "char_same": _unchanged(path, char_bytes, char_mtime)}


def missing_and_orphaned_ragdolls(path):
    """A character of the old layout (its ragdoll at the top, not in "Char") saved to
    `path`, "Char" appended into a new shot: the check's ragdoll-missing finding, its fix,
    a play; then the armature deleted: the ragdoll-orphan finding."""
    scene = bpy.context.scene
    enable_rigify()
    rd_mod, doc = ragdolls(), doctor()
    arm = character()
    coll = arm.ligament_ragdoll.collection
    # a file of the old layout: the ragdoll in a collection at the top, not in "Char"
    bpy.data.collections["Char"].children.unlink(coll)
    scene.collection.children.link(coll)
    bpy.ops.wm.save_as_mainfile(filepath=path)
    scene = new_shot()
    with bpy.data.libraries.load(path, link=False) as (src, dst):
        dst.collections = ["Char"]
    scene.collection.children.link(dst.collections[0])
    arm = bpy.data.objects["Hero"]
    missing = [(f.severity, list(f.objects), f.message, f.fix.operator)
               for f in doc.check(scene) if f.code == 'ragdoll-missing']
    assert bpy.ops.ligament.own_ragdoll(armature="Hero") == {'FINISHED'}
    left = [f.code for f in doc.check(scene) if f.severity == 'ERROR']
    z = play(arm, 40)[-1][-3][2]
    bodies = len(rd_mod.bodies(arm))
    # and the other way round: the armature deleted, its ragdoll left behind
    bpy.data.objects.remove(arm)
    orphans = [(f.severity, len(f.objects), f.message)
               for f in doc.check(scene) if f.code == 'ragdoll-orphan']
    return {"missing": missing, "left": left, "z": z, "bodies": bodies, "orphans": orphans}
