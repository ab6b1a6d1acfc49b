"""test_physics_rigify.py's scenarios: the physics check and fix (addon/motion) on a ragdoll
made on a rig Rigify generated, keyed on its controls, read back from what Blender evaluates
(the DEF bones following the controls, Ligament's own constraints off)."""

import math

import bpy
from mathutils import Matrix, Vector

from .physics_check import FRAMES, Rig, inertia
from .rigs import remove_face


def generate_without_face():
    """(the human metarig, the rig Rigify generates from it), the face left out."""
    bpy.ops.object.armature_human_metarig_add()
    meta = bpy.context.active_object
    remove_face(meta)
    bpy.ops.pose.rigify_generate()
    return meta, meta.data.rigify_target_rig


class Generated(Rig):
    """The rig Rigify generates from the human metarig (its face left out: it takes seconds
    to generate and holds no ragdoll bone), named "rig", made a 70 kg ragdoll on its DEF
    bones, on the ground, frames 1-40."""

    def armature(self):
        meta, rig = generate_without_face()
        meta.hide_set(True)
        for o in bpy.context.view_layer.objects:
            o.select_set(False)
        bpy.context.view_layer.objects.active = rig
        rig.select_set(True)
        return rig

    def key_world(self, bone, frame, matrix):
        """Key `bone`'s location and rotation (as quaternions, continuous) so that it sits at
        the world `matrix` (the armature is unrotated at the origin)."""
        pb = self.arm.pose.bones[bone]
        pb.rotation_mode = 'QUATERNION'
        previous = pb.rotation_quaternion.copy()
        pb.matrix = matrix
        bpy.context.view_layer.update()
        if pb.rotation_quaternion.dot(previous) < 0.0:
            pb.rotation_quaternion = -pb.rotation_quaternion
        pb.keyframe_insert("location", frame=frame, group=bone)
        pb.keyframe_insert("rotation_quaternion", frame=frame, group=bone)

    def rest(self, bone):
        return self.arm.data.bones[bone].matrix_local.copy()

    def pose_data(self, frames=FRAMES):
        """What a computation of the check's figures of its own needs: per frame, the
        world matrix of each body's bone as Blender shows it (the simulation off), and each
        body's bone rest matrix, rest frame, mass and inertia."""
        scene, arm = self.scene, self.arm
        scene.ligament_world.enabled = False
        muted = all(c.mute for pb in arm.pose.bones for c in pb.constraints
                    if c.name.startswith("Ligament"))
        poses = []
        for f in frames:
            scene.frame_set(int(f))
            poses.append([[list(r) for r in arm.matrix_world @ arm.pose.bones[
                self.bones[o.name]].matrix] for o in self.helpers])
        scene.ligament_world.enabled = True
        return {"poses": poses, "muted": muted,
                "bodies": [{"bone": self.bones[o.name],
                            "rest": [list(r) for r in self.rest(self.bones[o.name])],
                            "rest_frame": list(o.ligament_ragdoll_part.rest_frame),
                            "mass": o.ligament_body.mass, "inertia": inertia(o).tolist()}
                           for o in self.helpers],
                "names": self.names(), "fps": scene.render.fps}

    def feet(self):
        """The DEF foot bodies' corners at rest (world)."""
        feet = [o for o in self.helpers if o.ligament_ragdoll_part.part.startswith("foot")]
        return [list(o.matrix_world @ Vector(c)) for o in feet for c in o.bound_box]

    def fixed_paths(self):
        """The bones whose location or rotation F-curves the fixed action has but the keyed
        one has not, or with other keys."""
        motion = self.arm.ligament_motion

        def keys(action):
            out = {}
            slot = getattr(self.arm.animation_data, "action_slot", None)
            if slot is not None:
                from bpy_extras import anim_utils
                curves = anim_utils.action_get_channelbag_for_slot(action, slot).fcurves
            else:
                curves = action.fcurves
            for fc in curves:
                out[(fc.data_path, fc.array_index)] = [tuple(round(v, 5) for v in k.co)
                                                       for k in fc.keyframe_points]
            return out
        keyed, fixed = keys(motion.keyed_action), keys(motion.fixed_action)
        return sorted({path.split('"')[1] for (path, i), k in fixed.items()
                       if keyed.get((path, i)) != k and path.startswith("pose.bones")})


def _check_and_fix(rig, **options):
    """The check and the fix of the rig's keys: phases before and after, bodies keyed and
    fixed, the bones the fix keyed, and the actions through two switches."""
    arm = rig.arm
    rig.activate()
    keyed_name = arm.animation_data.action.name
    assert bpy.ops.ligament.physics_check() == {'FINISHED'}
    phases = rig.report()
    keyed = rig.bodies_at()
    rig.scene.ligament_world.enabled = True
    assert bpy.ops.ligament.physics_fix(**options) == {'FINISHED'}
    fixed_phases = rig.report()
    fixed = rig.bodies_at()
    playing = arm.animation_data.action.name
    assert bpy.ops.ligament.physics_switch() == {'FINISHED'}
    switched = arm.animation_data.action.name
    switched_bodies = rig.bodies_at()
    assert bpy.ops.ligament.physics_switch() == {'FINISHED'}
    return {"phases": phases, "fixed_phases": fixed_phases, "keyed": keyed.tolist(),
            "fixed": fixed.tolist(), "keyed_name": keyed_name, "playing": playing,
            "switched": switched, "switched_bodies": switched_bodies.tolist(),
            "again": arm.animation_data.action.name,
            "kept": bool(bpy.data.actions[keyed_name].use_fake_user),
            "fixed_bones": rig.fixed_paths(), "masses": rig.masses(),
            "inertia": rig.inertias(), "names": rig.names(), "fps": rig.scene.render.fps}


def _key_jump(rig):
    """The root control rises 0.5 m and falls in straight lines (drifting 0.6 m forward)
    from frame 10 to 30, the IK feet swinging in the air."""
    root = rig.arm.pose.bones["root"]
    for f, (y, z) in ((1, (0, 0)), (10, (0, 0)), (20, (-0.3, 0.5)), (30, (-0.6, 0)),
                      (40, (-0.6, 0))):
        rig.key_location(root, f, (0, y, z))
    for side, sign in (("L", 1), ("R", -1)):
        foot = rig.arm.pose.bones["foot_ik." + side]
        for f, y in ((10, 0.0), (15, -0.25 * sign), (25, 0.2 * sign), (30, 0.0)):
            rig.key_location(foot, f, (0, y, 0.15 if 10 < f < 30 else 0.0))
    rig.linear_keys()


def jump():
    """The generated rig's jump (`_key_jump`): the check's figures, what a computation of
    its own needs, then the fix."""
    rig = Generated()
    _key_jump(rig)
    data = rig.pose_data()
    frames, report = rig.rig_mod.MotionRig(rig.scene, rig.arm).check()
    out = _check_and_fix(rig)
    out.update(data, com=report.com.tolist(), p=report.linear_momentum.tolist(),
               L=report.angular_momentum.tolist())
    return out


def flip():
    """The generated rig's root control keyed through a full turn about the hips (about X)
    that speeds up from 0.3 to 1.7 of its mean rate while it rises 1 m and falls back
    (frames 10-30); checked and fixed."""
    rig = Generated()
    hips = rig.arm.matrix_world @ rig.arm.data.bones["DEF-spine"].head_local
    rest = rig.rest("root")
    for f in [1] + list(range(10, 31, 2)) + [40]:
        s = min(max((f - 10) / 20, 0.0), 1.0)
        angle = 2 * math.pi * (0.3 * s + 0.7 * s * s)
        lift = Vector((0, 0, 4.0 * s * (1 - s)))
        turn = Matrix.Translation(hips + lift) @ Matrix.Rotation(angle, 4, 'X') @ \
            Matrix.Translation(-hips)
        rig.key_world("root", f, turn @ rest)
    rig.linear_keys()
    return _check_and_fix(rig)


def lean(fk=False):
    """The generated rig's chest and hips keyed to lean back over frames 10-20 (held to 40),
    the feet as generated; checked and fixed. With `fk`, the left leg set to FK first."""
    rig = Generated()
    arm = rig.arm
    if fk:
        arm.pose.bones["thigh_parent.L"]["IK_FK"] = 1.0
    for bone, angle in (("chest", -0.6), ("hips", 0.0)):
        pb = arm.pose.bones[bone]
        pb.rotation_mode = 'XYZ'
        for f, a in ((1, 0.0), (10, 0.0), (20, angle), (40, angle)):
            pb.rotation_euler = (a, 0, 0)
            pb.keyframe_insert("rotation_euler", frame=f, group=bone)
    torso = arm.pose.bones["torso"]
    for f, y in ((1, 0.0), (10, 0.0), (20, 0.09), (40, 0.09)):
        rig.key_location(torso, f, (0, y, 0))
    feet = rig.feet()
    if fk:
        rig.activate()
        keyed_name = arm.animation_data.action.name
        keyed = rig.bodies_at()
        message = None
        try:
            bpy.ops.ligament.physics_fix()
        except RuntimeError as exc:
            message = str(exc)
        return {"message": message, "keyed_name": keyed_name,
                "playing": arm.animation_data.action.name, "keyed": keyed.tolist(),
                "after": rig.bodies_at().tolist(),
                "actions": sorted(a.name for a in bpy.data.actions)}
    out = _check_and_fix(rig)
    out["corners"] = feet
    return out


def reduced_keys():
    """The jump fixed with a key on every frame, then with the bake's key reduction (1 mm,
    0.5 deg): the bodies of both, and the root's location key counts."""
    rig = Generated()
    root = rig.arm.pose.bones["root"]
    for f, (y, z) in ((1, (0, 0)), (10, (0, 0)), (20, (-0.3, 0.5)), (30, (-0.6, 0)),
                      (40, (-0.6, 0))):
        rig.key_location(root, f, (0, y, z))
    rig.linear_keys()
    rig.activate()
    assert bpy.ops.ligament.physics_fix() == {'FINISHED'}
    full = rig.bodies_at()
    rig.scene.ligament_world.enabled = True
    ws = rig.scene.ligament_world
    ws.bake_reduce, ws.bake_tolerance_location = True, 0.001
    ws.bake_tolerance_rotation = math.radians(0.5)
    assert bpy.ops.ligament.physics_fix() == {'FINISHED'}
    reduced = rig.bodies_at()
    keys = [len(fc.keyframe_points) for (path, i), fc in rig.fcurves().items()
            if path == 'pose.bones["root"].location']
    return {"full": full.tolist(), "reduced": reduced.tolist(), "keys": keys}


def constrained_metarig():
    """A metarig ragdoll whose left shin follows an IK constraint (not a rig Rigify
    generated): what the physics check says, and the report after."""
    rig = Rig()
    ik = rig.arm.pose.bones["shin.L"].constraints.new('IK')
    ik.chain_count = 2
    rig.key_tent_jump()
    rig.activate()
    try:
        message = list(bpy.ops.ligament.physics_check())
    except RuntimeError as exc:
        message = str(exc)
    return {"message": message, "report": rig.arm.ligament_motion.report}


def height_kept_jump():
    """The generated rig's jump fixed with its height kept: the bodies keyed and fixed, the
    phases after."""
    rig = Generated()
    _key_jump(rig)
    rig.activate()
    keyed = rig.bodies_at()
    rig.scene.ligament_world.enabled = True
    assert bpy.ops.ligament.physics_fix(keep='HEIGHT') == {'FINISHED'}
    return {"keyed": keyed.tolist(), "fixed": rig.bodies_at().tolist(),
            "fixed_phases": rig.report(), "masses": rig.masses(),
            "fps": rig.scene.render.fps}
