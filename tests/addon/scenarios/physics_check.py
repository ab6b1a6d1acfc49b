"""test_physics_check.py's scenarios: the physics check and fix of keyed motion on a metarig
ragdoll (the operators ligament.physics_check, physics_fix and physics_switch)."""

import json
import math
import sys
import types

import bpy
import numpy as np
from mathutils import Vector

from .helpers import box, lig
from .rigs import enable_rigify


FRAMES = np.arange(1, 41, dtype=float)


class Rig:
    """A metarig "Rig" made a 70 kg ragdoll on the ground, frames 1-40; each helper body's
    first bone and its frame relative to that bone at rest. `armature` makes the armature
    the ragdoll is made on (a subclass's: another rig)."""

    def __init__(self):
        enable_rigify()
        name = lig().__name__
        self.ragdolls = sys.modules[name + ".addon.scene.ragdolls"]
        self.rig_mod = sys.modules[name + ".addon.motion.rig"]
        self.anim = sys.modules[name + ".addon.scene.animation"]
        self.scene = scene = bpy.context.scene
        box("Ground", (30, 30, 1), (0, 0, -0.5), kind='STATIC')
        scene.frame_start, scene.frame_end = 1, 40
        arm = self.arm = self.armature()
        bpy.context.view_layer.update()
        assert bpy.ops.ligament.ragdoll_from_armature(total_mass=70.0) == {'FINISHED'}
        self.helpers = sorted(self.ragdolls.bodies(arm), key=lambda o: o.name)
        self.bones = {o.name: self.first_bone(o) for o in self.helpers}
        # at rest, each helper sits on its bone: the body's frame relative to the bone as
        # Blender shows both
        self.to_body = {o.name: (arm.matrix_world @
                                 arm.pose.bones[self.bones[o.name]].matrix).inverted()
                        @ o.matrix_world for o in self.helpers}

    def armature(self):
        bpy.ops.object.armature_human_metarig_add()
        arm = bpy.context.active_object
        arm.name = "Rig"
        return arm

    def first_bone(self, o):
        """The helper's bone nearest the root (its targets' bones)."""
        arm = self.arm
        names = [c.ligament_ragdoll_part.bone for c in o.children
                 if c.ligament_ragdoll_part.role == 'TARGET']

        def depth(n):
            b, d = arm.data.bones[n], 0
            while b.parent is not None:
                b, d = b.parent, d + 1
            return d
        return min(names, key=depth)

    def key_location(self, bone, frame, world_offset):
        """Key `bone` (a pose bone or its name) at a world offset from its rest (the armature
        is unrotated)."""
        pb = self.arm.pose.bones[bone] if isinstance(bone, str) else bone
        rest = self.arm.data.bones[pb.name].matrix_local.to_3x3()
        pb.location = rest.inverted() @ Vector(world_offset)
        pb.keyframe_insert("location", frame=frame, group=pb.name)

    def fcurves(self):
        return self.anim.action_fcurves(self.arm)

    def linear_keys(self):
        for fc in self.fcurves().values():
            for k in fc.keyframe_points:
                k.interpolation = 'LINEAR'

    def key_tent_jump(self, take_off=10, landing=30, peak=0.5, drift=0.6, swing=True):
        """The root rises and falls in straight lines (and drifts forward), the thighs
        swing (with `swing`)."""
        arm = self.arm
        spine = arm.pose.bones["spine"]
        self.key_location(spine, 1, (0, 0, 0))
        self.key_location(spine, take_off, (0, 0, 0))
        self.key_location(spine, (take_off + landing) // 2, (0, -drift / 2, peak))
        self.key_location(spine, landing, (0, -drift, 0))
        self.key_location(spine, 40, (0, -drift, 0))
        for side, sign in (("L", 1), ("R", -1)) if swing else ():
            pb = arm.pose.bones["thigh." + side]
            pb.rotation_mode = 'XYZ'
            for f, angle in ((take_off, 0.0), (15, 0.5 * sign), (25, -0.4 * sign),
                             (landing, 0.0)):
                pb.rotation_euler = (angle, 0, 0)
                pb.keyframe_insert("rotation_euler", frame=f, group=pb.name)
        self.linear_keys()

    def bodies_at(self, frames=FRAMES):
        """(F, B, 4, 4) body matrices from the pose Blender evaluates (world off: the bones
        play their keys)."""
        scene, arm = self.scene, self.arm
        enabled = scene.ligament_world.enabled
        scene.ligament_world.enabled = False
        out = np.empty((len(frames), len(self.helpers), 4, 4))
        for i, f in enumerate(frames):
            scene.frame_set(int(f))
            for j, o in enumerate(self.helpers):
                m = arm.matrix_world @ arm.pose.bones[self.bones[o.name]].matrix @ \
                    self.to_body[o.name]
                out[i, j] = np.array(m)
        scene.ligament_world.enabled = enabled
        return out

    def masses(self):
        return [o.ligament_body.mass for o in self.helpers]

    def inertias(self):
        return [inertia(o).tolist() for o in self.helpers]

    def feet_corners(self):
        feet = [o for o in self.helpers if o.ligament_ragdoll_part.part.startswith("foot")]
        return [list(o.matrix_world @ Vector(c)) for o in feet for c in o.bound_box]

    def names(self):
        return [o.ligament_ragdoll_part.part for o in self.helpers]

    def key_frames(self, path):
        """The frames of the keys of the F-curves whose path starts with `path`."""
        return sorted({round(k.co.x, 6) for (p, i), fc in self.fcurves().items()
                       if p.startswith(path) for k in fc.keyframe_points})

    def report(self):
        return json.loads(self.arm.ligament_motion.report)

    def activate(self):
        bpy.context.view_layer.objects.active = self.arm


def inertia(o):
    """The body's inertia in its frame from the helper's shape (capsule or box)."""
    s = o.ligament_body
    dx, dy, dz = o.dimensions
    m = s.mass
    if s.shape == 'BOX':
        return m / 12.0 * np.diag([dy * dy + dz * dz, dx * dx + dz * dz, dx * dx + dy * dy])
    r = max(dx, dy) / 2
    h = dz / 2 - r
    vc, vs = math.pi * r * r * 2 * h, 4.0 / 3.0 * math.pi * r ** 3
    rho = m / (vc + vs)
    mc, ms = rho * vc, rho * vs
    izz = mc * r * r / 2 + ms * 2 * r * r / 5
    # hemispheres: centroid 3r/8 from the flat face, parallel axes to the centre
    ixx = mc * (3 * r * r + 4 * h * h) / 12 + \
        ms * (83 * r * r / 320 + (h + 3 * r / 8) ** 2)
    return np.diag([ixx, ixx, izz])


def jump():
    """A keyed jump in straight lines: the check's report and figures, the bodies keyed and
    fixed, the actions through the fix and two switches."""
    rig = Rig()
    scene, arm, anim = rig.scene, rig.arm, rig.anim
    rig.key_tent_jump()
    frames = np.arange(1, 41, dtype=float)
    keyed_name = arm.animation_data.action.name
    keyed_keys = [list(k.co) for fc in anim.action_fcurves(arm).values()
                  for k in fc.keyframe_points]
    bpy.context.view_layer.objects.active = arm
    assert bpy.ops.ligament.physics_check() == {'FINISHED'}
    phases = rig.report()
    frames_, report = rig.rig_mod.MotionRig(scene, arm).check()
    keyed = rig.bodies_at(frames)
    scene.ligament_world.enabled = True
    assert bpy.ops.ligament.physics_fix() == {'FINISHED'}
    fixed_report = rig.report()
    fixed = rig.bodies_at(frames)
    motion = arm.ligament_motion
    active = arm.animation_data.action.name
    kept = bpy.data.actions.get(keyed_name)
    assert bpy.ops.ligament.physics_switch() == {'FINISHED'}
    switched = arm.animation_data.action.name
    switched_keys = [list(k.co) for fc in anim.action_fcurves(arm).values()
                     for k in fc.keyframe_points]
    assert bpy.ops.ligament.physics_switch() == {'FINISHED'}
    return {"phases": phases, "fixed_phases": fixed_report,
            "com": report.com.tolist(), "p": report.linear_momentum.tolist(),
            "L": report.angular_momentum.tolist(),
            "flight": report.flight.tolist(),
            "keyed": keyed.tolist(), "fixed": fixed.tolist(),
            "masses": rig.masses(), "inertia": rig.inertias(),
            "names": [o.ligament_ragdoll_part.part for o in rig.helpers],
            "keyed_name": keyed_name, "active": active, "switched": switched,
            "kept": kept is not None and kept.use_fake_user,
            "keyed_keys": keyed_keys, "switched_keys": switched_keys,
            "fixed_name": motion.fixed_action.name,
            "again": arm.animation_data.action.name}


def _key_lean(rig, lean):
    spine = rig.arm.pose.bones["spine.001"]
    spine.rotation_mode = 'XYZ'
    for f, angle in ((1, 0.0), (10, 0.0), (20, lean), (40, lean)):
        spine.rotation_euler = (angle, 0, 0)
        spine.keyframe_insert("rotation_euler", frame=f, group=spine.name)


def standing_lean():
    """The spine keyed to lean 1 rad over frames 10-20: the check's phases and how far the
    centre of mass is outside the feet per frame, the bodies, the feet's corners."""
    rig = Rig()
    scene, arm = rig.scene, rig.arm
    _key_lean(rig, -1.0)
    bpy.context.view_layer.objects.active = arm
    assert bpy.ops.ligament.physics_check() == {'FINISHED'}
    frames, report = rig.rig_mod.MotionRig(scene, arm).check()
    corners = rig.feet_corners()
    return {"phases": rig.report(), "outside": report.outside.tolist(),
            "bodies": rig.bodies_at(frames).tolist(), "masses": rig.masses(),
            "corners": corners}


def flip_that_speeds_up():
    """A jump with a full turn about the hips keyed to speed up from 0.3 to 1.7 of its mean
    rate: the phases before and after the fix, the bodies keyed and fixed."""
    rig = Rig()
    scene, arm = rig.scene, rig.arm
    spine = arm.pose.bones["spine"]
    spine.rotation_mode = 'XYZ'
    rig.key_location(spine, 1, (0, 0, 0))
    rig.key_location(spine, 10, (0, 0, 0))
    rig.key_location(spine, 20, (0, 0, 1.0))
    rig.key_location(spine, 30, (0, 0, 0))
    rig.key_location(spine, 40, (0, 0, 0))
    for f in [1] + list(range(10, 31, 2)) + [40]:
        s = min(max((f - 10) / 20, 0.0), 1.0)
        # a full turn about the hips that speeds up from 0.3 to 1.7 of its mean rate
        spine.rotation_euler = (2 * math.pi * (0.3 * s + 0.7 * s * s), 0, 0)
        spine.keyframe_insert("rotation_euler", frame=f, group=spine.name)
    rig.linear_keys()
    frames = np.arange(1, 41, dtype=float)
    bpy.context.view_layer.objects.active = arm
    assert bpy.ops.ligament.physics_check() == {'FINISHED'}
    phases = rig.report()
    keyed = rig.bodies_at(frames)
    scene.ligament_world.enabled = True
    assert bpy.ops.ligament.physics_fix() == {'FINISHED'}
    return {"phases": phases, "fixed_phases": rig.report(),
            "keyed": keyed.tolist(), "fixed": rig.bodies_at(frames).tolist(),
            "masses": rig.masses(), "inertia": rig.inertias()}


def lean_balanced():
    """The spine keyed to lean 0.9 rad, checked and fixed: the phases, the bodies keyed and
    fixed, the feet's corners."""
    rig = Rig()
    scene, arm = rig.scene, rig.arm
    _key_lean(rig, -0.9)
    frames = np.arange(1, 41, dtype=float)
    bpy.context.view_layer.objects.active = arm
    assert bpy.ops.ligament.physics_check() == {'FINISHED'}
    phases = rig.report()
    keyed = rig.bodies_at(frames)
    corners = rig.feet_corners()
    scene.ligament_world.enabled = True
    assert bpy.ops.ligament.physics_fix() == {'FINISHED'}
    return {"phases": phases, "fixed_phases": rig.report(),
            "keyed": keyed.tolist(), "fixed": rig.bodies_at(frames).tolist(),
            "masses": rig.masses(), "corners": corners,
            "names": [o.ligament_ragdoll_part.part for o in rig.helpers]}


def bad_input():
    """The fix with gravity off, the check on an armature without a ragdoll, the switch
    before a fix, then two fixes: the results, the messages, the actions."""
    rig = Rig()
    scene, arm = rig.scene, rig.arm
    rig.key_tent_jump()
    bpy.context.view_layer.objects.active = arm
    messages = []

    def call(op):
        try:
            return list(op())
        except RuntimeError as exc:
            messages.append(str(exc))
            return "error"

    scene.use_gravity = False
    no_gravity = call(bpy.ops.ligament.physics_fix)
    action_after_error = arm.animation_data.action.name
    scene.use_gravity = True
    bpy.ops.object.armature_add()
    no_ragdoll = call(bpy.ops.ligament.physics_check)
    bpy.context.view_layer.objects.active = arm
    no_switch = call(bpy.ops.ligament.physics_switch)
    twice = [call(bpy.ops.ligament.physics_fix), call(bpy.ops.ligament.physics_fix)]
    return {"no_gravity": no_gravity, "no_ragdoll": no_ragdoll, "no_switch": no_switch,
            "messages": messages, "action_after_error": action_after_error,
            "twice": twice, "actions": sorted(a.name for a in bpy.data.actions),
            "playing": arm.animation_data.action.name,
            "keyed": arm.ligament_motion.keyed_action.name}


def fix_with_reduced_keys():
    """The jump fixed with a key on every frame, then with the bake's key reduction (1 mm,
    0.5 deg): the bodies of both, and the root location's key counts."""
    rig = Rig()
    scene, arm = rig.scene, rig.arm
    rig.key_tent_jump()
    frames = np.arange(1, 41, dtype=float)
    bpy.context.view_layer.objects.active = arm
    bpy.ops.ligament.physics_fix()
    full = rig.bodies_at(frames)
    scene.ligament_world.enabled = True
    ws = scene.ligament_world
    ws.bake_reduce, ws.bake_tolerance_location = True, 0.001
    ws.bake_tolerance_rotation = math.radians(0.5)
    bpy.ops.ligament.physics_fix()
    reduced = rig.bodies_at(frames)
    keys = [len(fc.keyframe_points) for (path, i), fc in rig.anim.action_fcurves(arm).items()
            if path == 'pose.bones["spine"].location']
    return {"full": full.tolist(), "reduced": reduced.tolist(), "keys": keys}


def simulated_fall_baked():
    """The ragdoll dropped from 0.6 m, baked over 40 frames, checked and fixed (balance
    off): the phases, the bodies baked and fixed."""
    rig = Rig()
    scene, arm = rig.scene, rig.arm
    arm.location = (0, 0, 0.6)
    bpy.context.view_layer.update()
    scene.ligament_world.frame_start, scene.ligament_world.frame_end = 1, 40
    bpy.ops.ligament.bake()
    frames = np.arange(1, 41, dtype=float)
    bpy.context.view_layer.objects.active = arm
    assert bpy.ops.ligament.physics_check() == {'FINISHED'}
    phases = rig.report()
    keyed = rig.bodies_at(frames)
    scene.ligament_world.enabled = True
    # balance is static: it would hold up a ragdoll falling over on its feet
    assert bpy.ops.ligament.physics_fix(balance=False) == {'FINISHED'}
    return {"phases": phases, "keyed": keyed.tolist(), "fixed": rig.bodies_at(frames).tolist()}


def panels_drawn():
    """The jump checked, both motion panels drawn into a recording layout: properties or
    operators that do not exist, and each row's alert and labels."""
    rig = Rig()
    scene, arm = rig.scene, rig.arm
    rig.key_tent_jump()
    bpy.context.view_layer.objects.active = arm
    bpy.ops.ligament.physics_check()
    problems, rows = [], []

    class Layout:
        def __init__(self):
            self.__dict__.update(use_property_split=False, active=True, alert=False)

        def _sub(self, *a, **k):
            child = Layout()
            rows.append(child)
            return child
        row = column = box = _sub

        def label(self, text="", **k):
            self.__dict__.setdefault("labels", []).append(text)

        def prop(self, data, name, **k):
            if name not in data.bl_rna.properties:
                problems.append(f"{type(data).__name__} has no property {name}")

        def operator(self, idname, **k):
            mod, op = idname.split(".")
            if not hasattr(getattr(bpy.ops, mod), op):
                problems.append(f"no operator {idname}")
            return types.SimpleNamespace()

    ctx = types.SimpleNamespace(object=arm, active_object=arm, scene=scene)
    drawn = []
    for cls in (bpy.types.PHYSICS_PT_ligament_ragdoll_motion,
                bpy.types.VIEW3D_PT_ligament_motion):
        assert cls.poll(ctx)
        rows.clear()
        cls.draw(types.SimpleNamespace(layout=Layout()), ctx)
        drawn.append([(r.alert, r.__dict__.get("labels", [])) for r in rows
                      if r.__dict__.get("labels")])
    return {"problems": problems, "drawn": drawn}
