"""A ragdoll travels with its character: its objects live in the character's collection, so
appending it, linking it with a library override, or a file of the old layout moved on
request, all give a ragdoll that simulates as the character made in the shot."""

import json
import os

import numpy as np

CHARACTER = """
    import numpy as np
    bpy.ops.preferences.addon_enable(module="rigify")
    ragdolls = sys.modules[lig.__name__ + ".addon.scene.ragdolls"]
    doctor = sys.modules[lig.__name__ + ".addon.check.doctor"]

    def character(name="Hero", collection="Char", parent=None, location=(0, 0, 1.0)):
        # a metarig with a ragdoll in a collection of its own (inside `parent`, if given)
        coll = bpy.data.collections.new(collection)
        (bpy.data.collections[parent] if parent else scene.collection).children.link(coll)
        layer = bpy.context.view_layer.layer_collection
        stack = [layer]
        while stack:
            lc = stack.pop()
            if lc.collection == coll:
                bpy.context.view_layer.active_layer_collection = lc
            stack.extend(lc.children)
        bpy.ops.object.armature_human_metarig_add()
        arm = bpy.context.active_object
        arm.name = name
        arm.location = location
        bpy.context.view_layer.update()
        assert bpy.ops.ligament.ragdoll_from_armature() == {'FINISHED'}
        return arm

    def save_character(path, **kw):
        arm = character(**kw)
        bpy.ops.wm.save_as_mainfile(filepath=path)
        return arm

    def new_shot():
        bpy.ops.wm.read_homefile(use_empty=True)
        global scene
        scene = bpy.context.scene
        scene.render.fps = 24
        scene.ligament_world.frame_end = 40
        box("Ground", (30, 30, 1), (0, 0, -0.5), kind='STATIC')
        return scene

    def link_override(path, collection="Char"):
        # Blender's Make > Library Override on a collection instance of the linked character
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
        # the bodies' and the bones' world positions at every frame of playback
        bodies = sorted(ragdolls.bodies(arm), key=lambda o: o.ligament_ragdoll_part.part)
        out = []
        for f in range(1, frames + 1):
            scene.frame_set(f)
            out.append([list(o.matrix_world.translation) for o in bodies] +
                       [list(arm.matrix_world @ pb.head) for pb in arm.pose.bones
                        if pb.name in ("spine", "hand.L", "foot.R")])
        return out
"""


def test_ragdoll_collection_lives_in_the_armatures_collection_and_is_not_rendered(blender):
    out = blender.run(CHARACTER, """
        arm = character()
        chars = bpy.data.collections["Char"]
        coll = arm.ligament_ragdoll.collection
        lc = bpy.context.view_layer.layer_collection.children["Char"].children[coll.name]
        result({"parent": [c.name for c in bpy.data.collections if coll.name in c.children],
                "old": "Ligament Ragdolls" in bpy.data.collections,
                "hide_render": coll.hide_render, "hidden": lc.hide_viewport,
                "members": len(ragdolls.members(arm)),
                "in_char": len([o for o in chars.all_objects if o != arm])})
    """)
    assert out["parent"] == ["Char"]
    assert not out["old"]
    assert out["hide_render"] and out["hidden"]
    assert out["members"] == 52 and out["in_char"] == 52


def test_bone_chain_collection_lives_in_the_armatures_collection(blender):
    out = blender.run(CHARACTER, """
        chain = sys.modules[lig.__name__ + ".addon.authoring.chain"]
        pet = bpy.data.collections.new("Pet")
        scene.collection.children.link(pet)
        bpy.context.view_layer.active_layer_collection = \\
            bpy.context.view_layer.layer_collection.children["Pet"]
        bpy.ops.object.armature_human_metarig_add()
        arm = bpy.context.active_object
        chain.create(scene, arm, ["f_index.01.L", "f_index.02.L", "f_index.03.L"], 'HAIR')
        coll = arm.ligament_ragdoll.collection
        result({"parent": [c.name for c in bpy.data.collections if coll.name in c.children],
                "hide_render": coll.hide_render, "members": len(ragdolls.members(arm))})
    """)
    assert out["parent"] == ["Pet"] and out["hide_render"]
    assert out["members"] == 3 * 2 + 2       # a body and a target per bone, two joints


def test_appended_character_brings_its_ragdoll_and_falls_as_the_original(blender, tmp_path):
    path = str(tmp_path / "char.blend")
    out = blender.run(CHARACTER, f"""
        save_character({path!r})
        bpy.ops.wm.open_mainfile(filepath={path!r})
        scene = bpy.context.scene
        scene.ligament_world.frame_end = 40
        bpy.context.view_layer.active_layer_collection = \
            bpy.context.view_layer.layer_collection
        box("Ground", (30, 30, 1), (0, 0, -0.5), kind='STATIC')
        made = play(bpy.data.objects["Hero"])
        new_shot()
        with bpy.data.libraries.load({path!r}, link=False) as (src, dst):
            dst.collections = ["Char"]
        scene.collection.children.link(dst.collections[0])
        arm = bpy.data.objects["Hero"]
        appended = play(arm)
        result({{"made": made, "appended": appended, "members": len(ragdolls.members(arm)),
                 "error": lig.addon.runtime.cache.error(scene)}})
    """)
    assert out["error"] is None
    assert out["members"] == 52
    made, appended = np.array(out["made"]), np.array(out["appended"])
    assert made[-1, :, 2].max() < 0.6, "the character did not fall"
    assert np.abs(made - appended).max() < 1e-6


def test_old_layout_is_found_and_moved_into_the_armatures_collection(blender):
    out = blender.run(CHARACTER, """
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
        found = [f for f in doctor.check(scene) if f.code == 'ragdoll-collection']
        fix = found[0].fix if found else None
        if fix:
            getattr(bpy.ops.ligament, fix.operator.split(".")[1])(**fix.args)
        after = play(arm, 30)
        result({"found": [(f.severity, f.objects, f.message) for f in found],
                "fix": fix and fix.operator,
                "parent": [c.name for c in bpy.data.collections if coll.name in c.children],
                "old_left": "Ligament Ragdolls" in bpy.data.collections,
                "again": [f.code for f in doctor.check(scene) if f.code == 'ragdoll-collection'],
                "before": before, "after": after})
    """)
    assert len(out["found"]) == 1
    severity, objects, message = out["found"][0]
    assert objects[0] == "Hero" and "Char" in message
    assert out["fix"] == "ligament.move_ragdoll_home"
    assert out["parent"] == ["Char"] and not out["old_left"] and out["again"] == []
    # the old layout kept working, and the move changes nothing of the simulation
    before, after = np.array(out["before"]), np.array(out["after"])
    assert before[-1, :, 2].max() < 0.6
    assert np.abs(before - after).max() < 1e-6


LINKED = """
    path = {path!r}
    char_mtime = os.path.getmtime(path)
    char_bytes = open(path, "rb").read()
    bpy.ops.wm.open_mainfile(filepath=path)
    scene = bpy.context.scene
    scene.ligament_world.frame_end = 40
    bpy.context.view_layer.active_layer_collection = bpy.context.view_layer.layer_collection
    box("Ground", (30, 30, 1), (0, 0, -0.5), kind='STATIC')
    made = play(bpy.data.objects["Hero"])
    new_shot()
"""


def test_overridden_character_simulates_as_made_in_the_shot_and_bakes_into_the_shot(
        blender, tmp_path):
    path, shot = str(tmp_path / "char.blend"), str(tmp_path / "shot.blend")
    out = blender.run(CHARACTER, f"save_character({path!r})", LINKED.format(path=path), f"""
        arm = link_override(path)
        bodies = ragdolls.bodies(arm)
        linked = play(arm)
        error = lig.addon.runtime.cache.error(scene)
        assert bpy.ops.ligament.bake(frame_start=1, frame_end=40) == {{'FINISHED'}}
        bpy.ops.wm.save_as_mainfile(filepath={shot!r})
        bpy.ops.wm.open_mainfile(filepath={shot!r})
        scene = bpy.context.scene
        arm = next(o for o in scene.objects if o.type == 'ARMATURE')
        scene.frame_set(40)
        baked = [list(arm.matrix_world @ pb.head) for pb in arm.pose.bones
                 if pb.name in ("spine", "hand.L", "foot.R")]
        act = arm.animation_data.action
        result({{"made": made, "linked": linked, "error": error, "baked": baked,
                 "n_bodies": len(bodies), "override": arm.override_library is not None,
                 "action_library": act.library is not None if act else None,
                 "baked_flag": arm.ligament_ragdoll.baked,
                 "char_same": open(path, "rb").read() == char_bytes and
                              os.path.getmtime(path) == char_mtime}})
    """)
    assert out["error"] is None and out["override"] and out["n_bodies"] == 16
    made, linked = np.array(out["made"]), np.array(out["linked"])
    assert made[-1, :, 2].max() < 0.6, "the character did not fall"
    print("largest difference, overridden vs made in the shot:", np.abs(made - linked).max())
    assert np.abs(made - linked).max() < 1e-6
    # the keys are in the shot (a local action on the override), the library never written
    assert out["action_library"] is False and out["baked_flag"]
    assert np.abs(np.array(out["baked"]) - linked[-1, -3:]).max() < 1e-3
    assert out["char_same"]


def test_switches_drives_and_masses_are_editable_through_the_override(blender, tmp_path):
    path, shot = str(tmp_path / "char.blend"), str(tmp_path / "shot.blend")
    out = blender.run(CHARACTER, f"""
        save_character({path!r})
        new_shot()
        arm = link_override({path!r})
        rd = arm.ligament_ragdoll
        rd.simulated = False
        rd.drive_strength = 0.5
        rd.total_mass = 80.0
        body = next(o for o in ragdolls.bodies(arm) if o.ligament_ragdoll_part.part == "head")
        body.ligament_body.mass = 9.0
        bpy.ops.wm.save_as_mainfile(filepath={shot!r})
        bpy.ops.wm.open_mainfile(filepath={shot!r})
        arm = next(o for o in bpy.context.scene.objects if o.type == 'ARMATURE')
        rd = arm.ligament_ragdoll
        body = next(o for o in ragdolls.bodies(arm) if o.ligament_ragdoll_part.part == "head")
        # the override still simulates after the reload: its own bodies, falling
        rd.simulated = True
        rd.drive_strength = 0.0
        scene = bpy.context.scene
        scene.ligament_world.frame_end = 40
        box("Ground", (30, 30, 1), (0, 0, -0.5), kind='STATIC')
        z = play(arm)[-1][-3][2]
        rd.simulated = False
        rd.drive_strength = 0.5
        result({{"simulated": rd.simulated, "strength": rd.drive_strength, "z": z,
                 "own": all(b.override_library is not None for b in ragdolls.members(arm)),
                 "total": rd.total_mass, "enabled": rd.enabled,
                 "head": body.ligament_body.mass, "override": arm.override_library is not None,
                 "library": ragdolls.library_of(arm)}})
    """)
    assert out["override"] and out["library"].endswith("char.blend")
    assert out["enabled"] and out["simulated"] is False
    assert abs(out["strength"] - 0.5) < 1e-6 and abs(out["total"] - 80.0) < 1e-4
    assert abs(out["head"] - 9.0) < 1e-6
    assert out["own"] and out["z"] < 0.6


def test_two_overrides_of_one_character_placed_apart_are_two_ragdolls(blender, tmp_path):
    # the character's collection inside a "Cast" collection: the whole hierarchy linked
    path = str(tmp_path / "char.blend")
    out = blender.run(CHARACTER, f"""
        cast = bpy.data.collections.new("Cast")
        scene.collection.children.link(cast)
        save_character({path!r}, parent="Cast")
    """, LINKED.format(path=path), """
        first = link_override(path, "Cast")
        second = link_override(path, "Cast")
        second.location.x += 3.0
        bpy.context.view_layer.update()
        own = [all(b.ligament_ragdoll_part.armature == a for b in ragdolls.members(a))
               and len(ragdolls.bodies(a)) == 16 for a in (first, second)]
        targets = {a.name: sorted({c.target.ligament_ragdoll_part.armature.name
                                   for pb in a.pose.bones for c in pb.constraints
                                   if c.name == "Ligament Ragdoll"}) for a in (first, second)}
        frames = [[], []]
        for f in range(1, 41):
            scene.frame_set(f)
            for k, a in enumerate((first, second)):
                frames[k].append([list(a.matrix_world @ pb.head) for pb in a.pose.bones
                                  if pb.name in ("spine", "hand.L", "foot.R")])
        result({"made": made, "first": frames[0], "second": frames[1], "own": own,
                "targets": targets, "names": [first.name, second.name],
                "error": lig.addon.runtime.cache.error(scene)})
    """)
    assert out["error"] is None and all(out["own"])
    assert out["targets"] == {n: [n] for n in out["names"]}
    made = np.array(out["made"])[:, -3:]
    first, second = np.array(out["first"]), np.array(out["second"])
    assert np.abs(first - made).max() < 1e-6
    shifted = second - np.array([3.0, 0.0, 0.0])
    print("second override vs the first moved 3 m:", np.abs(shifted - first).max())
    assert np.abs(shifted - first).max() < 1e-3
    assert second[-1, :, 2].max() < 0.6


def test_batch_command_bakes_and_lists_the_overridden_characters_of_a_shot(blender, tmp_path):
    path, shot = str(tmp_path / "char.blend"), str(tmp_path / "shot.blend")
    baked, report, info = (str(tmp_path / n) for n in ("shot.baked.blend", "report.json",
                                                        "info.json"))
    out = blender.run(CHARACTER, f"save_character({path!r})", LINKED.format(path=path), f"""
        from importlib import import_module
        cli = import_module(lig.__name__ + ".addon.cli")
        arm = link_override(path)
        bpy.ops.wm.save_as_mainfile(filepath={shot!r})
        info_code = cli.main(["info", {shot!r}, "--json", {info!r}])
        code = cli.main(["bake", {shot!r}, "--output", {baked!r}, "--report", {report!r}])
        bpy.ops.wm.open_mainfile(filepath={baked!r})
        scene = bpy.context.scene
        arm = next(o for o in scene.objects if o.type == 'ARMATURE')
        tracks = []
        for f in range(1, 41):
            scene.frame_set(f)
            tracks.append([list(arm.matrix_world @ pb.head) for pb in arm.pose.bones
                           if pb.name in ("spine", "hand.L", "foot.R")])
        result({{"code": code, "info_code": info_code, "made": made, "baked": tracks,
                 "baked_flag": arm.ligament_ragdoll.baked,
                 "override": arm.override_library is not None,
                 "char_same": open(path, "rb").read() == char_bytes and
                              os.path.getmtime(path) == char_mtime}})
    """)
    assert out["info_code"] == 0 and out["code"] == 0
    assert out["override"] and out["baked_flag"] and out["char_same"]
    made = np.array(out["made"])[:, -3:]
    assert np.abs(np.array(out["baked"]) - made).max() < 1e-3
    info = json.load(open(info))
    rigs = info["ragdolls"]
    assert len(rigs) == 1 and rigs[0]["override"] and rigs[0]["bodies"] == 16
    assert os.path.samefile(rigs[0]["library_path"], path)
    rep = json.load(open(report))
    assert rep["ok"] and rep["ragdolls"] == 1


def test_scene_check_finds_a_character_without_its_ragdoll_and_a_ragdoll_without_its_armature(
        blender, tmp_path):
    path = str(tmp_path / "old.blend")
    out = blender.run(CHARACTER, f"""
        arm = character()
        coll = arm.ligament_ragdoll.collection
        # a file of the old layout: the ragdoll in a collection at the top, not in "Char"
        bpy.data.collections["Char"].children.unlink(coll)
        scene.collection.children.link(coll)
        bpy.ops.wm.save_as_mainfile(filepath={path!r})
        new_shot()
        with bpy.data.libraries.load({path!r}, link=False) as (src, dst):
            dst.collections = ["Char"]
        scene.collection.children.link(dst.collections[0])
        arm = bpy.data.objects["Hero"]
        missing = [(f.severity, list(f.objects), f.message, f.fix.operator)
                   for f in doctor.check(scene) if f.code == 'ragdoll-missing']
        assert bpy.ops.ligament.own_ragdoll(armature="Hero") == {{'FINISHED'}}
        left = [f.code for f in doctor.check(scene) if f.severity == 'ERROR']
        z = play(arm, 40)[-1][-3][2]
        bodies = len(ragdolls.bodies(arm))
        # and the other way round: the armature deleted, its ragdoll left behind
        bpy.data.objects.remove(arm)
        orphans = [(f.severity, len(f.objects), f.message)
                   for f in doctor.check(scene) if f.code == 'ragdoll-orphan']
        result({{"missing": missing, "left": left, "z": z, "bodies": bodies,
                 "orphans": orphans}})
    """)
    assert len(out["missing"]) == 1
    severity, objects, message, fix = out["missing"][0]
    assert severity == "ERROR" and objects == ["Hero"] and "will not fall" in message
    assert fix == "ligament.own_ragdoll"
    assert out["left"] == [] and out["bodies"] == 16 and out["z"] < 0.6
    assert len(out["orphans"]) == 1
    severity, count, message = out["orphans"][0]
    assert severity == "WARNING" and count == 16 + 15 and "armature" in message
