"""test_physics_motion.py's scenarios: the physics check and fix (addon/motion) on a metarig
ragdoll, read back from what Blender evaluates."""

import sys

import bpy
from mathutils import Vector

from .helpers import lig
from .physics_check import Rig as Metarig, inertia


def module(name):
    return sys.modules[lig().__name__ + ".addon." + name]


def height_kept_jump():
    """The tent jump fixed with its height kept: the bodies keyed and fixed, the keys' frames
    of the thighs and of the root before and after, and the check's phases before and
    after."""
    rig = Metarig()
    rig.key_tent_jump()
    rig.activate()
    keyed = rig.bodies_at()
    thighs = rig.key_frames('pose.bones["thigh.L"]')
    assert bpy.ops.ligament.physics_check() == {'FINISHED'}
    phases = rig.report()
    assert bpy.ops.ligament.physics_fix(keep='HEIGHT') == {'FINISHED'}
    return {"keyed": keyed.tolist(), "fixed": rig.bodies_at().tolist(),
            "masses": rig.masses(), "names": rig.names(), "phases": phases,
            "fixed_phases": rig.report(), "thighs": thighs,
            "fixed_thighs": rig.key_frames('pose.bones["thigh.L"]'),
            "fps": bpy.context.scene.render.fps}


def jump_channels():
    """The tent jump's check (centre of mass, momenta per frame) and what a computation of
    its own needs: each bone's rest matrix, parent, rotation mode and keyed channels per frame
    (F-curves evaluated, the pose bone's values where unkeyed), the bodies' bones, rest frames,
    masses and inertia; and the pose matrices Blender evaluates, to hold that computation to."""
    rig = Metarig()
    rig.key_tent_jump()
    arm = rig.arm
    frames, report = module("motion.rig").MotionRig(rig.scene, arm).check()
    curves = rig.fcurves()
    needed = set()
    for n in rig.bones.values():
        b = arm.data.bones[n]
        while b is not None:
            needed.add(b.name)
            b = b.parent
    names = sorted(needed, key=lambda n: len(arm.data.bones[n].parent_recursive))
    bones = {}
    for n in names:
        b, pb = arm.data.bones[n], arm.pose.bones[n]
        prefix = f'pose.bones["{n}"].'
        rot_path = {'QUATERNION': "rotation_quaternion",
                    'AXIS_ANGLE': "rotation_axis_angle"}.get(pb.rotation_mode, "rotation_euler")
        rows = []
        for f in frames:
            row = {}
            for path, values in (("location", pb.location), (rot_path, getattr(pb, rot_path)),
                                 ("scale", pb.scale)):
                row[path] = [curves[(prefix + path, i)].evaluate(f)
                             if (prefix + path, i) in curves else float(v)
                             for i, v in enumerate(values)]
            row["rotation"] = row.pop(rot_path)
            rows.append(row)
        bones[n] = {"rest": [list(r) for r in b.matrix_local],
                    "parent": b.parent.name if b.parent else None,
                    "mode": pb.rotation_mode, "channels": rows}
    blender_pose = {}
    rig.scene.ligament_world.enabled = False
    for f in frames:
        rig.scene.frame_set(int(f))
        for n in names:
            blender_pose.setdefault(n, []).append([list(r) for r in arm.pose.bones[n].matrix])
    assert arm.matrix_world == arm.matrix_world.Identity(4)
    return {"frames": frames.tolist(), "com": report.com.tolist(),
            "p": report.linear_momentum.tolist(), "L": report.angular_momentum.tolist(),
            "bones": bones, "blender_pose": blender_pose,
            "bodies": [{"bone": rig.bones[o.name],
                        "rest_frame": list(o.ligament_ragdoll_part.rest_frame),
                        "mass": o.ligament_body.mass, "inertia": inertia(o).tolist()}
                       for o in rig.helpers],
            "blender_bodies": rig.bodies_at(frames).tolist(),
            "fps": rig.scene.render.fps}


def lean_with_a_hand_switched_to_contact(part="hand.L"):
    """The metarig leans back from frame 10 to 20 (its centre of mass ends behind the heels);
    `part`'s bone keys Own Contact Rule off at frame 1 and on at frame 20, with a Contact
    Distance of 2 m and Speed of 10 m/s (the hand on something the ground does not have). The
    check's contacts and outside distances, the bodies, the feet's corners and the part's
    shape."""
    rig = Metarig()
    arm = rig.arm
    spine = arm.pose.bones["spine.001"]
    spine.rotation_mode = 'XYZ'
    for f, angle in ((1, 0.0), (10, 0.0), (20, -1.0), (40, -1.0)):
        spine.rotation_euler = (angle, 0, 0)
        spine.keyframe_insert("rotation_euler", frame=f, group=spine.name)
    helper = next(o for o in rig.helpers if o.ligament_ragdoll_part.part == part)
    pb = arm.pose.bones[rig.bones[helper.name]]
    pb.ligament_contact_distance, pb.ligament_contact_speed = 2.0, 10.0
    for f, on in ((1, False), (20, True)):
        pb.ligament_contact_override = on
        pb.keyframe_insert("ligament_contact_override", frame=f)
    rig.activate()
    assert bpy.ops.ligament.physics_check() == {'FINISHED'}
    frames, report = module("motion.rig").MotionRig(rig.scene, arm).check()
    feet = [o for o in rig.helpers if o.ligament_ragdoll_part.part.startswith("foot")]
    corners = [list(o.matrix_world @ Vector(c)) for o in feet for c in o.bound_box]
    index = rig.helpers.index(helper)
    samples = module("motion.rig").MotionRig(rig.scene, arm).character.sample_body == index
    return {"outside": report.outside.tolist(), "contact": report.contact.tolist(),
            "part_samples": samples.tolist(), "phases": rig.report(),
            "bodies": rig.bodies_at(frames).tolist(), "masses": rig.masses(),
            "corners": corners, "index": index, "shape": helper.ligament_body.shape,
            "dimensions": list(helper.dimensions)}


def simulated_fall_fixed(**options):
    """The metarig ragdoll dropped from 60 cm, simulated and baked over frames 1-40, then
    checked and fixed with `options` (the operator's defaults when none): the bodies before
    and after the fix, and the check's phases and zero-moment point distances."""
    rig = Metarig()
    arm = rig.arm
    arm.location = (0, 0, 0.6)
    bpy.context.view_layer.update()
    scene = rig.scene
    scene.ligament_world.frame_start, scene.ligament_world.frame_end = 1, 40
    assert bpy.ops.ligament.bake() == {'FINISHED'}
    rig.activate()
    assert bpy.ops.ligament.physics_check() == {'FINISHED'}
    phases = rig.report()
    frames, report = module("motion.rig").MotionRig(scene, arm).check()
    keyed = rig.bodies_at()
    assert bpy.ops.ligament.physics_fix(**options) == {'FINISHED'}
    return {"phases": phases, "keyed": keyed.tolist(), "fixed": rig.bodies_at().tolist(),
            "outside": report.outside.tolist(), "zmp_outside": report.zmp_outside.tolist(),
            "flight": report.flight.tolist()}


def _shapes(geometry):
    return {"lines": [[list(c), s.tolist()] for c, s in geometry["lines"]],
            "points": [[list(c), p.tolist()] for c, p in geometry["points"]]}


def drawing_of_a_jump_and_a_lean():
    """What the viewport would draw of the tent jump's check at frame 5 (standing), of its fix,
    and of a lean's check at frame 30 (the centre of mass behind the heels); the bodies and
    the feet's corners to hold them to, the colours by name."""
    overlay = module("ui.motion_overlay")
    draw = module("motion.draw")
    rig = Metarig()
    rig.key_tent_jump(swing=False)
    rig.activate()
    scene = rig.scene
    feet = [o for o in rig.helpers if o.ligament_ragdoll_part.part.startswith("foot")]
    corners = [list(o.matrix_world @ Vector(c)) for o in feet for c in o.bound_box]
    keyed = rig.bodies_at()
    before_check = overlay.geometry(bpy.context)
    assert bpy.ops.ligament.physics_check() == {'FINISHED'}
    scene.frame_current = 5
    jump = _shapes(overlay.geometry(bpy.context))
    rig.arm.ligament_motion.show_drawing = False
    hidden = overlay.geometry(bpy.context)
    rig.arm.ligament_motion.show_drawing = True
    assert bpy.ops.ligament.physics_fix() == {'FINISHED'}
    fixed = _shapes(overlay.geometry(bpy.context))
    fixed_phases = rig.report()
    # the lean: spine.001 turned back 1 rad from frame 10 to 20, held to 40
    bpy.ops.ligament.physics_switch()
    ad = rig.arm.animation_data
    ad.action = None
    spine = rig.arm.pose.bones["spine.001"]
    spine.rotation_mode = 'XYZ'
    for f, angle in ((1, 0.0), (10, 0.0), (20, -1.0), (40, -1.0)):
        spine.rotation_euler = (angle, 0, 0)
        spine.keyframe_insert("rotation_euler", frame=f, group=spine.name)
    rig.arm.ligament_motion.keyed_action = rig.arm.ligament_motion.fixed_action = None
    assert bpy.ops.ligament.physics_check() == {'FINISHED'}
    scene.frame_current = 30
    lean = _shapes(overlay.geometry(bpy.context))
    lean_bodies = rig.bodies_at()
    return {"before_check": before_check, "hidden": hidden, "jump": jump, "fixed": fixed,
            "lean": lean, "keyed": keyed.tolist(), "lean_bodies": lean_bodies.tolist(),
            "masses": rig.masses(), "corners": corners, "fps": scene.render.fps,
            "fixed_phases": fixed_phases, "arc_steps": draw.ARC_STEPS,
            "colours": {k: list(getattr(draw, k)) for k in
                        ("OK_COLOR", "FAIL_COLOR", "PATH_COLOR", "CONTACT_COLOR")}}
