"""Saving and reloading, operators, and bad input."""

import numpy as np

from test_simulation import DOOR


def test_save_and_reload_keeps_every_setting_and_the_same_simulation(blender, tmp_path):
    path = tmp_path / "saved.blend"
    out = blender.run(DOOR, f"""
        s = door.ligament_body
        s.shape, s.mass, s.friction, s.restitution = 'CONVEX_HULL', 3.5, 0.7, 0.25
        s.linear_damping, s.angular_damping, s.collision_group = 0.2, 0.3, 2
        j = hinge.ligament_joint
        j.use_limit_ang, j.limit_ang_lower, j.limit_ang_upper = True, -1.2, 1.0
        j.use_spring, j.spring_frequency, j.spring_damping = True, 1.5, 0.3
        j.breakable, j.break_threshold, j.disable_collisions = True, 5000.0, False
        ws = scene.ligament_world
        ws.substeps, ws.iterations, ws.frame_start, ws.frame_end = 12, 2, 3, 90
        def settings():
            keys = lambda g: [k for k in g.bl_rna.properties.keys() if k != "rna_type"]
            val = lambda v: v.name if hasattr(v, "name") else (list(v) if hasattr(v, "__len__") and not isinstance(v, str) else v)
            return {{"body": {{k: val(getattr(s, k)) for k in keys(s)}},
                     "joint": {{k: val(getattr(j, k)) for k in keys(j)}},
                     "world": {{k: val(getattr(ws, k)) for k in keys(ws)}}}}
        first = {{}}
        for f in range(1, 31):
            scene.frame_set(f)
            first[f] = transforms([door])
        before = settings()
        # Saved in the middle of the simulation: the door is not where it started.
        bpy.ops.wm.save_as_mainfile(filepath={str(path)!r})
        bpy.ops.wm.open_mainfile(filepath={str(path)!r})
        scene = bpy.context.scene
        door, hinge = bpy.data.objects["Door"], bpy.data.objects["Hinge"]
        s, j, ws = door.ligament_body, hinge.ligament_joint, scene.ligament_world
        after = settings()
        again = {{}}
        for f in list(range(1, 31)):
            scene.frame_set(f)
            again[f] = transforms([door])
        result({{"before": before, "after": after, "first": first, "again": again}})
    """)
    assert out["after"] == out["before"]
    assert out["after"]["joint"]["object_b"] == "Door"
    for f in out["first"]:
        assert np.allclose(out["first"][f], out["again"][f], atol=1e-6), f"frame {f}"
    assert out["first"]["3"] != out["first"]["30"]


def test_removing_an_object_a_joint_uses_skips_the_joint_with_a_clear_report(blender):
    out = blender.run(DOOR, """
        other = box("Other", (0.5, 0.5, 0.5), (3, 0, 2))
        for f in range(1, 6):
            scene.frame_set(f)
        bpy.ops.object.select_all(action='DESELECT')
        door.select_set(True)
        bpy.context.view_layer.objects.active = door
        bpy.ops.object.delete()
        for f in range(6, 9):
            scene.frame_set(f)
        frame_error = lig.addon.runtime.cache.error(scene)
        status = lig.addon.runtime.cache.joint_status(scene, "Hinge")
        bake_result = bpy.ops.ligament.bake()
        result({"frame_error": frame_error, "status": status, "bake": list(bake_result),
                "other_baked": other.ligament_body.baked,
                "frame_location": list(frame.location)})
    """)
    assert out["frame_error"] is None
    assert "Joint 'Hinge'" in out["status"] and "object B" in out["status"]
    assert "disable the joint" in out["status"]
    assert out["bake"] == ["FINISHED"] and out["other_baked"] is True
    # the bake's summary names the joint that did not act
    assert "joints not acting: 'Hinge' skipped" in blender.stdout + blender.stderr
    assert "Traceback" not in blender.stderr
    assert np.allclose(out["frame_location"], [0, -0.2, 2])


def test_add_joint_and_connect_build_joint_empties_between_selected_bodies(blender):
    out = blender.run("""
        objs = [box(f"Link{i}", (0.2, 0.2, 0.2), (x, 0, 2)) for i, x in enumerate((0.0, 1.5, 0.5, 1.0))]
        bpy.ops.object.select_all(action='DESELECT')
        objs[0].select_set(True); objs[2].select_set(True)
        bpy.context.view_layer.objects.active = objs[2]
        assert bpy.ops.ligament.add_joint(type='HINGE', pivot='CENTER') == {'FINISHED'}
        coll = bpy.data.collections["Ligament Joints"]
        first = coll.objects[0]
        single = {"a": first.ligament_joint.object_a.name, "b": first.ligament_joint.object_b.name,
                  "type": first.ligament_joint.type, "loc": list(first.location),
                  "size": first.empty_display_size}
        for o in coll.objects:
            bpy.data.objects.remove(o)
        for o in objs:
            o.select_set(True)
        bpy.context.view_layer.objects.active = objs[0]
        assert bpy.ops.ligament.connect(type='BALL') == {'FINISHED'}
        pairs = sorted((e.ligament_joint.object_a.name, e.ligament_joint.object_b.name)
                       for e in coll.objects)
        # Not a body: a clear error, nothing created.
        plain = bpy.data.objects.new("Plain", bpy.data.meshes.new("m"))
        scene.collection.objects.link(plain)
        bpy.ops.object.select_all(action='DESELECT')
        plain.select_set(True); objs[0].select_set(True)
        bpy.context.view_layer.objects.active = objs[0]
        try:
            bpy.ops.ligament.add_joint(type='BALL')
            error = None
        except RuntimeError as exc:
            error = str(exc)
        result({"single": single, "pairs": pairs, "error": error, "count": len(coll.objects)})
    """)
    assert out["single"]["a"] == "Link0" and out["single"]["b"] == "Link2"
    assert out["single"]["type"] == "HINGE"
    assert np.allclose(out["single"]["loc"], [0.25, 0, 2])
    assert 0.05 <= out["single"]["size"] <= 0.2
    # Chained by distance from the active object: 0 -> 0.5 -> 1.0 -> 1.5.
    assert out["pairs"] == [["Link0", "Link2"], ["Link2", "Link3"], ["Link3", "Link1"]]
    assert "'Plain' is not a Ligament body" in out["error"] and "Add Body" in out["error"]
    assert out["count"] == 3


def test_a_joint_the_solver_refuses_in_a_batch_is_skipped_by_name_and_the_rest_built(blender):
    # Hinges and ragdoll joints are added to the world in batches; one with crossed limits
    # (the panel allows them, the solver refuses them) makes its batch fall back to one by
    # one: that joint is skipped with the solver's reason, the others are built (the scene
    # check stops the simulation on the crossed limits until they are swapped).
    out = blender.run("""
        arms = [box(f"Arm{i}", (0.1, 0.1, 0.6), (0.2 + i, 0, 1.7)) for i in range(4)]
        posts = [box(f"Post{i}", (0.1, 0.1, 0.1), (0.2 + i, 0, 2.05), kind='STATIC')
                 for i in range(4)]
        for i, (name, kind) in enumerate((("Good0", 'HINGE'), ("Crossed", 'HINGE'),
                                          ("Good2", 'RAGDOLL'), ("Good3", 'HINGE'))):
            lower, upper = (0.5, -0.5) if name == "Crossed" else (-0.5, 0.5)
            joint(name, kind, posts[i], arms[i], (0.2 + i, 0, 2), use_limit_ang=True,
                  limit_ang_lower=lower, limit_ang_upper=upper)
        scene.frame_set(1)
        sim = lig.addon.runtime.cache.get(scene)
        result({"skipped": sim.skipped, "built": sorted(name for name, _ in sim.joints),
                "count": sim.world.joint_count})
    """)
    assert list(out["skipped"]) == ["Crossed"], out["skipped"]
    assert "Joint 'Crossed'" in out["skipped"]["Crossed"]
    assert "lower" in out["skipped"]["Crossed"] and "upper" in out["skipped"]["Crossed"]
    assert out["built"] == ["Good0", "Good2", "Good3"] and out["count"] == 3


def test_the_live_scene_check_still_names_a_joint_the_build_skipped(blender):
    # The check that runs when a simulation is built does not look again at the objects of
    # the joints the build made; a joint it skipped (its object B unset) is still reported,
    # by name, and the joints that were built are not.
    out = blender.run("""
        arms = [box(f"Arm{i}", (0.1, 0.1, 0.6), (0.2 + i, 0, 1.7)) for i in range(3)]
        posts = [box(f"Post{i}", (0.1, 0.1, 0.1), (0.2 + i, 0, 2.05), kind='STATIC')
                 for i in range(3)]
        for i, name in enumerate(("Good0", "NoB", "Good2")):
            joint(name, 'HINGE', posts[i], arms[i], (0.2 + i, 0, 2))
        bpy.data.objects["NoB"].ligament_joint.object_b = None
        scene.frame_set(1)
        sim = lig.addon.runtime.cache.get(scene)
        result({"skipped": sorted(sim.skipped), "built": sorted(n for n, _ in sim.joints),
                "found": [(f.severity, f.code, list(f.objects)) for f in sim.findings
                          if f.code == 'joint-object']})
    """)
    assert out["skipped"] == ["NoB"] and out["built"] == ["Good0", "Good2"]
    assert out["found"] == [["ERROR", "joint-object", ["NoB"]]], out["found"]
