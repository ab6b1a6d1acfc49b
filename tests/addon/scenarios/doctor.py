"""test_doctor.py's scenarios: the scene check's findings on planted problems, and its fix
buttons."""

import math
import types

import bpy

from .cli import pendulum
from .helpers import box, joint, lig, transforms


def found(findings, code):
    """(severity, objects, data) of each finding of `code`."""
    return [(f.severity, f.objects, f.data) for f in findings if f.code == code]


def clean_scene():
    """The pendulum and a cube on the ground: the findings and the summary line."""
    scene = bpy.context.scene
    doctor = lig().addon.check.doctor
    pendulum()
    box("Cube", (1, 1, 1), (3, 0, 0.5))
    findings = doctor.check(scene)
    return {"findings": [f.line() for f in findings], "summary": doctor.summary(scene, findings)}


def joints_and_settings_that_cannot_build():
    """Joints missing a body, on one body twice, on a mesh that is not a body, crossed
    limits, a Mesh shape on a dynamic body: the findings by code, and the summary."""
    scene = bpy.context.scene
    doctor = lig().addon.check.doctor
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
    findings = doctor.check(scene)
    return {"joint": found(findings, "joint-object"), "limits": found(findings, "limit-order"),
            "mesh": found(findings, "mesh-shape"), "codes": sorted({f.code for f in findings}),
            "severities": [f.severity for f in findings],
            "summary": doctor.summary(scene, findings)}


def planted_problems():
    """A scene that builds with one of each problem the check looks for planted in it:
    the findings by code."""
    scene = bpy.context.scene
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
    findings = lig().addon.check.doctor.check(scene)
    return {code: found(findings, code) for code in {f.code for f in findings}}


def ragdoll_pose_past_its_limits():
    """A metarig ragdoll checked as made, then with its left forearm keyed 80 degrees one
    way at frame 10 and the other way at 20: the clean codes, the animated-limit findings,
    the joints' limits."""
    scene = bpy.context.scene
    doctor = lig().addon.check.doctor
    box("Ground", (10, 10, 1), (0, 0, -0.5), kind='STATIC')
    bpy.ops.preferences.addon_enable(module="rigify")
    bpy.ops.object.armature_human_metarig_add()
    arm = bpy.context.active_object
    bpy.ops.ligament.ragdoll_from_armature(preset='AUTO')
    scene.ligament_world.frame_end = 40      # every frame sampled
    clean = [f.code for f in doctor.check(scene)]
    # the left forearm keyed to turn 80 degrees one way about its X axis at frame 10 and
    # the other way at frame 20: one of them bends the elbow backwards
    pb = arm.pose.bones["forearm.L"]
    pb.rotation_mode = 'XYZ'
    pb.keyframe_insert("rotation_euler", frame=1)
    for frame, angle in ((10, 80), (20, -80)):
        pb.rotation_euler = (math.radians(angle), 0, 0)
        pb.keyframe_insert("rotation_euler", frame=frame)
    findings = doctor.check(scene)
    limits = {e.name: [e.ligament_joint.limit_ang_lower, e.ligament_joint.limit_ang_upper]
              for e in scene.objects if e.ligament_joint.enabled}
    return {"clean": clean, "limit": found(findings, "animated-limit"), "arm": arm.name,
            "limits": limits}


def fix_buttons():
    """A scene with five fixable problems: Check Scene, the doctor panel drawn into a
    recording layout (its buttons and their arguments), each fix applied in turn (what the
    check finds after each), and the scene after the fixes."""
    scene = bpy.context.scene
    doctor = lig().addon.check.doctor
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
    findings, line = doctor.results(scene)
    # the sidebar: one box per finding, its fix button carrying the operator's arguments
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
        todo = [f for f in doctor.results(scene)[0] if f.fix is not None
                and f.fix.operator != "ligament.select_objects" and f.code not in fixed]
        if not todo:
            break
        f = todo[0]
        mod, name = f.fix.operator.split(".")
        assert getattr(getattr(bpy.ops, mod), name)(**f.fix.args) == {'FINISHED'}
        fixed[f.code] = [g.code for g in doctor.results(scene)[0]]
    bpy.context.view_layer.update()
    mirrored_after = transforms([mirrored])
    tag_after = list(tag.matrix_world.translation)
    scale_after, dims_after = list(squashed.scale), list(squashed.dimensions)
    scene.frame_set(1)
    scene.frame_set(2)           # resting on the ground: it must not jump
    mirrored_sim = transforms([mirrored])
    return {"before": sorted(f.code for f in findings), "line": line, "drawn": drawn,
            "mirrored": [mirrored_before, mirrored_after, mirrored_sim],
            "mirrored_scale": list(mirrored.scale),
            "fixed": fixed, "after": [f.line() for f in doctor.check(scene)],
            "scale": scale_after, "dims": [dims_before, dims_after],
            "tag": [tag_before, tag_after],
            "shape": rock.ligament_body.shape,
            "limits": [bpy.data.objects["Backwards"].ligament_joint.limit_ang_lower,
                       bpy.data.objects["Backwards"].ligament_joint.limit_ang_upper]}


def one_sided_floors():
    """Three floor planes under three crates: one-sided turned over, one-sided facing up,
    two-sided turned over. The one-sided-mesh findings, the fix's operator, and the check
    after the fix."""
    scene = bpy.context.scene
    doctor = lig().addon.check.doctor

    def floor(name, x, flipped, one_sided):
        bpy.ops.mesh.primitive_plane_add(size=3, location=(x, 0, 0),
                                         rotation=(math.pi if flipped else 0.0, 0, 0))
        obj = bpy.context.active_object
        obj.name = name
        s = obj.ligament_body
        s.enabled, s.kind, s.shape, s.one_sided = True, 'STATIC', 'MESH', one_sided
    floor("Away", 0, True, True)
    floor("Up", 5, False, True)
    floor("TwoSided", 10, True, False)
    for i, x in enumerate((0, 5, 10)):
        box(f"Crate{i}", (1, 1, 1), (x, 0, 1.5))
    findings = doctor.check(scene)
    hit = [f for f in findings if f.code == "one-sided-mesh"]
    bpy.ops.ligament.make_two_sided(**hit[0].fix.args)
    after = [f.code for f in doctor.check(scene)]
    return {"found": found(findings, "one-sided-mesh"), "fix": hit[0].fix.operator,
            "one_sided": bpy.data.objects["Away"].ligament_body.one_sided,
            "after": after}


def touching_mass_ratios():
    """A 1000 kg box on a 1 kg box and a 50 kg box on another 1 kg box: the
    touching-mass-ratio findings and their messages."""
    scene = bpy.context.scene
    box("Ground", (20, 20, 1), (0, 0, -0.5), kind='STATIC')
    box("Light", (1, 1, 1), (0, 0, 0.5), mass=1.0)
    box("Heavy", (1, 1, 1), (0, 0, 1.5), mass=1000.0)
    box("Under", (1, 1, 1), (4, 0, 0.5), mass=1.0)
    box("Fifty", (1, 1, 1), (4, 0, 1.5), mass=50.0)
    findings = lig().addon.check.doctor.check(scene)
    return {"found": found(findings, "touching-mass-ratio"),
            "messages": [f.message for f in findings if f.code == "touching-mass-ratio"]}
