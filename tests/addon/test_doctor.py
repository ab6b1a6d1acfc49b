"""The scene check (addon/check/: Check Scene, its findings and the fixes they offer)."""

import math

import pytest
from test_cli import PENDULUM

CHECK = """
    findings = lig.addon.check.doctor.check(scene)
    def found(code):
        return [(f.severity, f.objects, f.data) for f in findings if f.code == code]
"""


def test_a_clean_scene_is_summed_up_in_one_line(blender):
    out = blender.run(PENDULUM, CHECK, """
        box("Cube", (1, 1, 1), (3, 0, 0.5))
        findings = lig.addon.check.doctor.check(scene)
        result({"findings": [f.line() for f in findings],
                "summary": lig.addon.check.doctor.summary(scene, findings)})
    """)
    assert out["findings"] == []
    assert out["summary"] == "Scene 'Scene': no problems found (4 bodies, 1 joint)"


def test_joints_without_their_bodies_and_settings_that_cannot_build_are_errors(blender):
    out = blender.run(CHECK.replace("findings = ", "_unused = "), """
        box("Ground", (10, 10, 1), (0, 0, -0.5), kind='STATIC')
        solo = box("Solo", (1, 1, 1), (0, 0, 0.5))
        other = box("Other", (1, 1, 1), (2, 0, 0.5))
        bpy.ops.mesh.primitive_cube_add(location=(4, 0, 0.5))
        prop = bpy.context.active_object
        prop.name = "Prop"                          # a mesh that is not a body
        joint("NoB", 'BALL', solo, None, (0, 0, 1))
        joint("Same", 'BALL', solo, solo, (0, 0, 1))
        joint("NotBody", 'BALL', solo, prop, (1, 0, 0.5))
        joint("Backwards", 'HINGE', solo, other, (1, 0, 0.5), use_limit_ang=True,
              limit_ang_lower=0.5, limit_ang_upper=-0.5)
        joint("Slider", 'PRISMATIC', solo, other, (1, 0, 0.5), use_limit_lin=True,
              limit_lin_lower=1.0, limit_lin_upper=0.0)
        box("Rock", (1, 1, 1), (-2, 0, 0.5), shape='MESH')
        findings = lig.addon.check.doctor.check(scene)
        result({"joint": found("joint-object"), "limits": found("limit-order"),
                "mesh": found("mesh-shape"), "codes": sorted({f.code for f in findings}),
                "severities": [f.severity for f in findings],
                "summary": lig.addon.check.doctor.summary(scene, findings)})
    """)
    assert sorted(tuple(o) for s, o, d in out["joint"]) == sorted(
        [("NoB",), ("Same", "Solo"), ("NotBody", "Prop")])
    assert all(s == "ERROR" for s, o, d in out["joint"] + out["limits"] + out["mesh"])
    assert sorted(tuple(o) for s, o, d in out["limits"]) == [("Backwards",), ("Slider",)]
    assert [o for s, o, d in out["mesh"]] == [["Rock"]]
    # the world cannot be built, so what needs it is said to be unchecked, not passed
    assert out["codes"] == ["joint-object", "limit-order", "mesh-shape", "not-measured"]
    assert out["severities"][-1] == "INFO"        # errors first
    assert out["summary"] == "Scene 'Scene': 6 errors, 1 info"


def test_each_problem_planted_in_a_scene_that_builds_is_found(blender):
    out = blender.run(CHECK.replace("findings = ", "_unused = "), """
        box("Ground", (20, 20, 1), (0, 0, -0.5), kind='STATIC')
        # overlapping by 10 cm along x
        box("A", (1, 1, 1), (0, 0, 0.5))
        box("B", (1, 1, 1), (0.9, 0, 0.5))
        # anchor 3 m away from both bodies
        post = box("Post", (0.2, 0.2, 0.2), (5, 0, 1), kind='STATIC')
        arm = box("Arm", (0.5, 0.1, 0.1), (5.35, 0, 1))
        joint("FarAnchor", 'BALL', post, arm, (5, 3, 1))
        # 500:1 along a joint
        heavy = box("Heavy", (1, 1, 1), (-5, 0, 0.5), mass=500.0)
        light = box("Light", (0.2, 0.2, 0.2), (-5, 0.65, 0.1), mass=1.0)
        joint("Chain", 'BALL', heavy, light, (-5, 0.55, 0.1))
        box("Crumb", (0.01, 0.01, 0.01), (3, -3, 0.005))
        box("Sheet", (1, 1, 0.01), (-3, -3, 0.005))
        box("Squashed", (0.5, 0.5, 0.25), (3, 3, 0.3), shape='SPHERE')
        beam = box("Beam", (2, 0.2, 0.2), (0, 5, 0.1))
        lamp = bpy.data.objects.new("Lamp", None)
        scene.collection.objects.link(lamp)
        lamp.parent = beam
        box("Mirrored", (1, -1, 1), (6, 6, 0.5))
        box("Floater", (1, 1, 1), (30, 0, 5))
        # two keyed bodies hinged with +-30 degree limits; the flap's keys turn it 90 degrees
        box("Jamb", (1, 1, 1), (-7, 6, 2), kind='STATIC')
        flap = box("Flap", (1, 1, 1), (-6, 6, 2), kind='ANIMATED')
        flap.keyframe_insert("rotation_euler", frame=1)
        flap.rotation_euler = (0, 0, math.radians(90))
        flap.keyframe_insert("rotation_euler", frame=20)
        flap.rotation_euler = (0, 0, 0)
        joint("Stiff", 'HINGE', bpy.data.objects["Jamb"], flap, (-6.5, 6, 2),
              use_limit_ang=True, limit_ang_lower=-math.radians(30),
              limit_ang_upper=math.radians(30))
        scene.ligament_world.frame_end = 48
        findings = lig.addon.check.doctor.check(scene)
        result({code: found(code) for code in {f.code for f in findings}})
    """)
    def one(code):
        assert len(out[code]) == 1, out.get(code)
        return out[code][0]
    assert set(out) == {"overlap", "anchor", "mass-ratio", "small", "thin", "shape-fit",
                        "non-uniform-scale", "negative-scale", "falling", "animated-limit"}
    sev, objs, data = one("overlap")
    assert sorted(objs) == ["A", "B"] and abs(data["depth"] - 0.1) < 0.01
    sev, objs, data = one("anchor")
    # 3 m from the post's centre, whose bounds reach 0.1 m towards it (the arm's 0.05)
    assert objs[0] == "FarAnchor" and data["distance"] == pytest.approx(2.9, abs=1e-6)
    sev, objs, data = one("mass-ratio")
    assert objs == ["Heavy", "Light"] and data["ratio"] == pytest.approx(500)
    assert one("small")[1] == ["Crumb"]
    assert one("thin")[1] == ["Sheet"]
    sev, objs, data = one("shape-fit")
    # a 0.5 m sphere on a 0.25 m tall object sticks out 12.5 cm above and below
    assert objs == ["Squashed"] and data["gap"] == pytest.approx(0.125)
    assert one("non-uniform-scale")[1] == ["Beam"]
    # (a mirrored dynamic body flips at the first simulated frame: an error)
    assert one("negative-scale")[:2] == ["ERROR", ["Mirrored"]]
    sev, objs, data = one("falling")
    assert objs == ["Floater"]
    # free fall over the 47 frames at 24 fps: g t^2 / 2
    assert data["drop"] == pytest.approx(0.5 * 9.81 * (47 / 24) ** 2, rel=1e-6)
    sev, objs, data = one("animated-limit")
    assert objs == ["Stiff"] and data["frame"] == 20
    assert data["angle"] == pytest.approx(math.pi / 2, abs=0.01)
    assert data["limit"] == pytest.approx(math.radians(30), abs=1e-6)
    assert all(f[0] == "WARNING" for code, fs in out.items() for f in fs
               if code != "negative-scale")


def test_ragdoll_pose_past_its_joint_limits_is_found(blender):
    out = blender.run(CHECK.replace("findings = ", "_unused = "), """
        box("Ground", (10, 10, 1), (0, 0, -0.5), kind='STATIC')
        bpy.ops.preferences.addon_enable(module="rigify")
        bpy.ops.object.armature_human_metarig_add()
        arm = bpy.context.active_object
        bpy.ops.ligament.ragdoll_from_armature(preset='AUTO')
        scene.ligament_world.frame_end = 40      # every frame sampled
        clean = [f.code for f in lig.addon.check.doctor.check(scene)]
        # the left forearm keyed to turn 80 degrees one way about its X axis at frame 10 and
        # the other way at frame 20: one of them bends the elbow backwards
        pb = arm.pose.bones["forearm.L"]
        pb.rotation_mode = 'XYZ'
        pb.keyframe_insert("rotation_euler", frame=1)
        for frame, angle in ((10, 80), (20, -80)):
            pb.rotation_euler = (math.radians(angle), 0, 0)
            pb.keyframe_insert("rotation_euler", frame=frame)
        findings = lig.addon.check.doctor.check(scene)
        limits = {e.name: [e.ligament_joint.limit_ang_lower, e.ligament_joint.limit_ang_upper]
                  for e in scene.objects if e.ligament_joint.enabled}
        result({"clean": clean, "limit": found("animated-limit"), "arm": arm.name,
                "limits": limits})
    """)
    assert "animated-limit" not in out["clean"]
    assert len(out["limit"]) == 1
    sev, objs, data = out["limit"][0]
    assert "forearm" in objs[0].lower() and objs[1] == out["arm"]
    assert data["frame"] in (10, 20)
    # the elbow turned by the whole 80 degrees keyed, past the limit of its joint
    assert abs(data["angle"]) == pytest.approx(math.radians(80), abs=math.radians(2))
    assert data["limit"] in out["limits"][objs[0]]
    assert abs(data["angle"]) > abs(data["limit"]) + math.radians(30)


def test_fix_buttons_fix_their_findings_and_the_panel_lists_them(blender):
    out = blender.run("""
        box("Ground", (10, 10, 1), (0, 0, -0.5), kind='STATIC')
        squashed = box("Squashed", (0.5, 0.5, 0.25), (3, 3, 0.3), shape='SPHERE')
        tag = bpy.data.objects.new("Tag", None)          # a child keeps its place
        scene.collection.objects.link(tag)
        tag.parent = squashed
        tag.location = (0.2, 0.2, 0.4)
        rock = box("Rock", (1, 1, 1), (-2, 0, 0.5), shape='MESH')
        mirrored = box("Mirrored", (1, -1, 1), (5, 0, 0.5), rotation=(0, 0, 0.3))
        mirrored_before = transforms([mirrored])
        solo = box("Solo", (1, 1, 1), (0, 0, 0.5))
        joint("Backwards", 'HINGE', rock, solo, (-1.5, 0, 0.5), use_limit_ang=True,
              limit_ang_lower=0.5, limit_ang_upper=-0.5)
        bpy.context.view_layer.update()
        tag_before = list(tag.matrix_world.translation)
        dims_before = list(squashed.dimensions)
        assert bpy.ops.ligament.check_scene() == {'FINISHED'}
        findings, line = lig.addon.check.doctor.results(scene)
        # the sidebar: one box per finding, its fix button carrying the operator's arguments
        import types
        buttons = []
        class Layout:
            def __getattr__(self, name):
                return lambda *a, **k: Layout()
            def operator(self, idname, **k):
                op = types.SimpleNamespace()
                buttons.append((idname, op))
                return op
        panel = bpy.types.VIEW3D_PT_ligament_doctor
        panel.draw(types.SimpleNamespace(layout=Layout(), ICONS=panel.ICONS),
                   types.SimpleNamespace(scene=scene))
        drawn = [(idname, dict(vars(op))) for idname, op in buttons]
        fixed = {}
        for _ in range(10):     # a fix re-checks: the built world then finds more
            todo = [f for f in lig.addon.check.doctor.results(scene)[0] if f.fix is not None
                    and f.fix.operator != "ligament.select_objects" and f.code not in fixed]
            if not todo:
                break
            f = todo[0]
            mod, name = f.fix.operator.split(".")
            assert getattr(getattr(bpy.ops, mod), name)(**f.fix.args) == {'FINISHED'}
            fixed[f.code] = [g.code for g in lig.addon.check.doctor.results(scene)[0]]
        bpy.context.view_layer.update()
        mirrored_after = transforms([mirrored])
        tag_after = list(tag.matrix_world.translation)
        scale_after, dims_after = list(squashed.scale), list(squashed.dimensions)
        scene.frame_set(1)
        scene.frame_set(2)           # resting on the ground: it must not jump
        mirrored_sim = transforms([mirrored])
        result({"before": sorted(f.code for f in findings), "line": line, "drawn": drawn,
                "mirrored": [mirrored_before, mirrored_after, mirrored_sim],
                "mirrored_scale": list(mirrored.scale),
                "fixed": fixed, "after": [f.line() for f in lig.addon.check.doctor.check(scene)],
                "scale": scale_after, "dims": [dims_before, dims_after],
                "tag": [tag_before, tag_after],
                "shape": rock.ligament_body.shape,
                "limits": [bpy.data.objects["Backwards"].ligament_joint.limit_ang_lower,
                           bpy.data.objects["Backwards"].ligament_joint.limit_ang_upper]})
    """)
    import numpy as np
    assert out["before"] == ["limit-order", "mesh-shape", "negative-scale", "non-uniform-scale",
                             "not-measured", "shape-fit"]
    assert out["line"] == "Scene 'Scene': 3 errors, 2 warnings, 1 info"
    drawn = [tuple(d) for d in out["drawn"]]
    assert drawn[0][0] == "ligament.check_scene"
    assert ("ligament.swap_limits", {"joint": "Backwards", "which": "ANGULAR"}) in drawn
    assert ("ligament.set_body_shape", {"objects": "Rock", "shape": "CONVEX_HULL"}) in drawn
    assert ("ligament.apply_body_scale", {"objects": "Squashed"}) in drawn
    assert ("ligament.select_objects", {"objects": "Rock"}) in drawn
    # each fix takes its own finding off the list
    assert "limit-order" not in out["fixed"]["limit-order"]
    assert "mesh-shape" not in out["fixed"]["mesh-shape"]
    assert out["shape"] == "CONVEX_HULL"
    assert out["limits"] == pytest.approx([-0.5, 0.5])
    assert sorted(out["fixed"]) == ["limit-order", "mesh-shape", "negative-scale",
                                    "non-uniform-scale", "shape-fit"]
    assert "non-uniform-scale" not in out["fixed"]["non-uniform-scale"]
    assert "shape-fit" not in out["fixed"]["shape-fit"]
    assert out["after"] == []
    assert out["scale"] == [1, 1, 1]
    assert np.allclose(out["dims"][0], out["dims"][1])
    assert np.allclose(out["tag"][0], out["tag"][1], atol=1e-6)
    # the mirrored box: scale applied, its mesh where it was, and it no longer flips
    before, after, simulated = (np.array(m[0]) for m in out["mirrored"])
    assert out["mirrored_scale"] == [1, 1, 1]
    assert np.allclose(before[:3, 3], after[:3, 3])
    assert np.allclose(after, simulated, atol=1e-3)


def test_one_sided_mesh_turned_away_from_a_body_above_it_is_found(blender):
    # Three floor planes under three crates: one-sided and turned over (its normal points
    # down, away from the crate: the crate falls through), one-sided facing up, and two-sided
    # turned over (both hold the crate). Only the first is reported.
    out = blender.run(CHECK.replace("findings = ", "_unused = "), """
        def floor(name, x, flipped, one_sided):
            bpy.ops.mesh.primitive_plane_add(size=3, location=(x, 0, 0),
                                             rotation=(math.pi if flipped else 0.0, 0, 0))
            obj = bpy.context.active_object
            obj.name = name
            s = obj.ligament_body
            s.enabled, s.kind, s.shape, s.one_sided = True, 'STATIC', 'MESH', one_sided
        import math
        floor("Away", 0, True, True)
        floor("Up", 5, False, True)
        floor("TwoSided", 10, True, False)
        for i, x in enumerate((0, 5, 10)):
            box(f"Crate{i}", (1, 1, 1), (x, 0, 1.5))
        findings = lig.addon.check.doctor.check(scene)
        hit = [f for f in findings if f.code == "one-sided-mesh"]
        bpy.ops.ligament.make_two_sided(**hit[0].fix.args)
        after = [f.code for f in lig.addon.check.doctor.check(scene)]
        result({"found": found("one-sided-mesh"), "fix": hit[0].fix.operator,
                "one_sided": bpy.data.objects["Away"].ligament_body.one_sided,
                "after": after})
    """)
    assert [(s, o) for s, o, d in out["found"]] == [("WARNING", ["Away", "Crate0"])]
    # the crate's centre is 1.5 m above the plane
    assert out["found"][0][2]["distance"] == pytest.approx(1.5, abs=1e-6)
    assert out["fix"] == "ligament.make_two_sided"
    assert out["one_sided"] is False and "one-sided-mesh" not in out["after"]


def test_touching_bodies_over_100_to_1_in_mass_are_found(blender):
    # A 1000 kg box on a 1 kg box, and a 50 kg box on another 1 kg box: only the first pair,
    # touching and not jointed, is reported, heavy first.
    out = blender.run(CHECK.replace("findings = ", "_unused = "), """
        box("Ground", (20, 20, 1), (0, 0, -0.5), kind='STATIC')
        box("Light", (1, 1, 1), (0, 0, 0.5), mass=1.0)
        box("Heavy", (1, 1, 1), (0, 0, 1.5), mass=1000.0)
        box("Under", (1, 1, 1), (4, 0, 0.5), mass=1.0)
        box("Fifty", (1, 1, 1), (4, 0, 1.5), mass=50.0)
        findings = lig.addon.check.doctor.check(scene)
        result({"found": found("touching-mass-ratio"),
                "messages": [f.message for f in findings if f.code == "touching-mass-ratio"]})
    """)
    assert [(s, o) for s, o, d in out["found"]] == [("WARNING", ["Heavy", "Light"])]
    assert out["found"][0][2]["ratio"] == pytest.approx(1000.0)
    assert "'Heavy' (1000 kg)" in out["messages"][0] and "'Light' (1 kg)" in out["messages"][0]
