"""Directing the simulation by hand in real Blender: Add Pin (an empty that pulls its body's
point to wherever the empty is: moved, keyed, parented; switched on and off by its keyed
`enabled`; its force limited), on bodies and on a ragdoll's pose bones, and Transfer Pose
(the simulated pose keyed at the current frame onto the armature or its control rig)."""

import math

from test_ragdoll import GROUND, RIGIFY

G = 9.81

PINNED = """
    def pinned(body_name, **settings):
        # Add Pin on one selected body; its pin empty
        for o in bpy.context.view_layer.objects:
            o.select_set(False)
        body = bpy.data.objects[body_name]
        body.select_set(True)
        bpy.context.view_layer.objects.active = body
        assert bpy.ops.ligament.add_pin(**settings) == {'FINISHED'}
        return bpy.context.active_object

    def point_error(pin):
        # how far the body's pinned point is from the pin empty as Blender evaluates it
        js = pin.ligament_joint
        p = js.object_b.matrix_world @ Vector(js.pin_offset)
        return (p - pin.matrix_world.translation).length
"""


def test_add_pin_makes_a_pin_empty_at_each_selected_body_and_refuses_others(blender):
    out = blender.run(PINNED, """
        a = box("A", (0.4, 0.4, 0.4), (0, 0, 2))
        b = box("B", (0.2, 0.6, 0.2), (2, 1, 3), rotation=(0.3, 0, 0.5))
        wall = box("Wall", (1, 1, 1), (5, 0, 0), kind='STATIC')
        for o in scene.objects:
            o.select_set(o in (a, b))
        res = bpy.ops.ligament.add_pin()
        pins = sorted((o for o in scene.objects if o.type == 'EMPTY'), key=lambda o: o.name)
        rows = [(p.name, p.ligament_joint.type, p.ligament_joint.object_b.name,
                 p.ligament_joint.enabled, list(p.matrix_world.translation),
                 list(p.ligament_joint.object_b.matrix_world @ Vector(p.ligament_joint.pin_offset)),
                 abs(p.matrix_world.to_quaternion().dot(
                     p.ligament_joint.object_b.matrix_world.to_quaternion())))
                for p in pins]
        for o in scene.objects:
            o.select_set(o == wall)
        bpy.context.view_layer.objects.active = wall
        try:
            refused = list(bpy.ops.ligament.add_pin())
        except RuntimeError as exc:      # the operator's error report
            refused = str(exc)
        result({"res": list(res), "rows": rows, "refused": refused,
                "count": len([o for o in scene.objects if o.type == 'EMPTY'])})
    """)
    assert out["res"] == ["FINISHED"]
    assert [r[:4] for r in out["rows"]] == [["Pin A", "PIN", "A", True], ["Pin B", "PIN", "B", True]]
    centres = {"A": (0, 0, 2), "B": (2, 1, 3)}
    for name, _, body, _, at, point, dot in out["rows"]:
        # at the body's centre, turned as the body, its pinned point where it is
        assert max(abs(x - y) for x, y in zip(at, centres[body])) < 1e-5
        assert max(abs(x - y) for x, y in zip(at, point)) < 1e-5
        assert dot > 1.0 - 1e-9
    assert "'Wall' is Static" in out["refused"] and out["count"] == 2


def test_rigid_pin_keeps_the_body_on_its_keyed_empty_moving_a_metre_in_24_frames(blender):
    # the pin holds the box by a corner: the box swings under gravity while the corner
    # follows the keyed empty
    out = blender.run(PINNED, """
        box("Box", (0.4, 0.2, 0.6), (0, 0, 2))
        pin = pinned("Box")
        pin.ligament_joint.pin_offset = (0.5, 0.5, 0.5)      # the corner, in local space
        bpy.context.view_layer.update()
        corner = bpy.data.objects["Box"].matrix_world @ Vector((0.5, 0.5, 0.5))
        for f, dx in ((1, 0.0), (25, 1.0)):
            pin.location = corner + Vector((dx, 0, 0))
            pin.keyframe_insert("location", frame=f)
        for fc in lig.addon.scene.animation.action_fcurves(pin).values():
            for k in fc.keyframe_points:
                k.interpolation = 'LINEAR'
        errors, spin = [], 0.0
        for f in range(1, 26):
            scene.frame_set(f)
            errors.append(point_error(pin))
        box_obj = bpy.data.objects["Box"]
        turned = 2 * math.acos(min(1.0, abs(box_obj.matrix_world.to_quaternion().w)))
        result({"errors": errors, "turned": turned, "moved": pin.matrix_world.translation.x - corner.x,
                "error": lig.addon.runtime.cache.error(scene)})
    """)
    assert out["error"] is None
    assert abs(out["moved"] - 1.0) < 1e-6
    assert max(out["errors"]) < 1e-3, out["errors"]
    assert out["turned"] > 0.05          # it swung about the corner


def test_pin_follows_its_parent_and_its_keyed_switch(blender):
    # A pin parented to a keyed (non-body) object carries a ball along; its keyed `enabled`
    # lets go at frame 10 (the ball falls from rest at frame 9 as a free ball falls from
    # rest, the same ball never pinned beside it) and takes hold again at frame 20.
    out = blender.run(PINNED, """
        box("Ball", (0.2, 0.2, 0.2), (0, 0, 3), shape='SPHERE')
        free = box("Free", (0.2, 0.2, 0.2), (0, 5, 3), shape='SPHERE')
        pin = pinned("Ball")
        carrier = bpy.data.objects.new("Carrier", None)
        scene.collection.objects.link(carrier)
        carrier.location = (0, 0, 0)
        for f, x in ((1, 0.0), (41, 2.0)):
            carrier.location.x = x
            carrier.keyframe_insert("location", frame=f)
        pin.parent = carrier
        pin.matrix_parent_inverse = carrier.matrix_world.inverted()
        js = pin.ligament_joint
        for f, on in ((1, True), (10, False), (20, True)):
            js.enabled = on
            js.keyframe_insert("enabled", frame=f)
        ball = bpy.data.objects["Ball"]
        rows = []
        for f in range(1, 31):
            scene.frame_set(f)
            rows.append((f, point_error(pin), ball.matrix_world.translation.z,
                         pin.matrix_world.translation.x, free.matrix_world.translation.z))
        result({"rows": rows, "error": lig.addon.runtime.cache.error(scene)})
    """)
    assert out["error"] is None
    rows = {f: (err, z, x, zf) for f, err, z, x, zf in out["rows"]}
    # held (and carried along x by the parent) while on
    for f in list(range(1, 10)) + list(range(20, 31)):
        assert rows[f][0] < 1e-3, (f, rows[f])     # the pinned point on the empty
    err, z, x, zf = range(4)      # the columns of rows
    assert abs(rows[30][z] - 3.0) < 1e-3 and rows[30][x] > 0.5     # carried along x
    # off: it falls from rest at frame 9 as the free ball fell from rest at frame 1
    for k in range(1, 11):
        drop = rows[9][z] - rows[9 + k][z]
        free_drop = rows[1][zf] - rows[1 + k][zf]
        assert abs(drop - free_drop) < 1e-5, (k, drop, free_drop)
    t = 10 / 24.0     # and that is a fall under gravity (the substeps lead by 1/80 of it)
    assert abs(rows[1][zf] - rows[11][zf] - 0.5 * 9.81 * t * t) < 0.02 * 0.5 * 9.81 * t * t


def test_pin_force_limit_lets_a_heavy_body_sink_at_g_minus_f_over_m(blender):
    # a 2 kg box held up by a rigid pin of at most 9.81 N (half its weight) sinks at g / 2
    out = blender.run(PINNED, """
        box("Box", (0.3, 0.3, 0.3), (0, 0, 5), mass=2.0)
        pin = pinned("Box", max_force=9.81)
        zs = []
        for f in range(1, 25):
            scene.frame_set(f)
            zs.append(bpy.data.objects["Box"].matrix_world.translation.z)
        result({"zs": zs, "max_force": pin.ligament_joint.pin_max_force})
    """)
    assert abs(out["max_force"] - 9.81) < 1e-5
    t = 23 / 24.0
    expected = 0.5 * (G - 9.81 / 2.0) * t * t
    drop = 5.0 - out["zs"][-1]
    assert abs(drop - expected) < 0.02 * expected, (drop, expected)


RAGDOLL = """
    arm = metarig(location=(0, 0, 1.0))
    assert bpy.ops.ligament.ragdoll_from_armature() == {'FINISHED'}
    scene.ligament_world.frame_end = 40

    def select_bones(names):
        for b in arm.data.bones:    # selection is the pose bone's from Blender 5.0 on
            owner = arm.pose.bones[b.name] if hasattr(arm.pose.bones[b.name], "select") else b
            owner.select = b.name in names
"""


def test_pose_bone_pin_holds_a_ragdoll_hand_where_its_empty_is_keyed(blender):
    out = blender.run(RIGIFY, GROUND, RAGDOLL, PINNED, """
        bpy.context.view_layer.objects.active = arm
        bpy.ops.object.mode_set(mode='POSE')
        select_bones({"hand.L"})
        res = bpy.ops.ligament.add_pin()
        bpy.ops.object.mode_set(mode='OBJECT')
        pin = next(o for o in scene.objects if o.type == 'EMPTY' and o.ligament_joint.type == 'PIN')
        body = pin.ligament_joint.object_b
        start = pin.matrix_world.translation.copy()
        for f, dz in ((1, 0.0), (25, 0.5)):
            pin.location = start + Vector((0, 0, dz))
            pin.keyframe_insert("location", frame=f)
        errors = []
        for f in range(1, 31):
            scene.frame_set(f)
            errors.append(point_error(pin))
        result({"res": list(res), "body": body.ligament_ragdoll_part.part,
                "bone_of_body": sorted(t.ligament_ragdoll_part.bone for t in
                                       ragdoll_mod.members(arm, 'TARGET')
                                       if t.ligament_ragdoll_part.part ==
                                       body.ligament_ragdoll_part.part),
                "errors": errors, "error": lig.addon.runtime.cache.error(scene)})
    """)
    assert out["res"] == ["FINISHED"] and out["error"] is None
    assert "hand.L" in out["bone_of_body"]
    assert max(out["errors"]) < 2e-3, out["errors"]


TRANSFER = """
    FRAME = 30
    def bone_world(target, names):
        return {n: target.matrix_world @ target.pose.bones[n].matrix for n in names}

    def angle(q1, q2):
        # degrees between two rotations (q and -q are one rotation), in float64 and by atan2:
        # mathutils computes in float32, and 2 acos(q1 . q2) of a float32 dot cannot tell
        # apart rotations closer than 0.03 degrees (the dot's rounding, 6e-8, is 7e-4 rad)
        a, b = np.array(q1, dtype=np.float64), np.array(q2, dtype=np.float64)
        a, b = a / np.linalg.norm(a), b / np.linalg.norm(b)
        b = b if a @ b >= 0.0 else -b
        return math.degrees(4.0 * math.atan2(np.linalg.norm(a - b), np.linalg.norm(a + b)))

    def compare(a, b):
        # (m, degrees): the largest difference between two {bone: world matrix}
        dist = max((a[n].translation - b[n].translation).length for n in a)
        turn = max(angle(a[n].to_quaternion(), b[n].to_quaternion()) for n in a)
        return dist, turn
"""


def test_transfer_pose_keys_the_simulated_pose_onto_the_armature(blender):
    out = blender.run(RIGIFY, GROUND, RAGDOLL, TRANSFER, """
        for f in range(1, FRAME + 1):
            scene.frame_set(f)
        moved = sorted({t.ligament_ragdoll_part.bone for t in ragdoll_mod.members(arm, 'TARGET')})
        simulated = bone_world(arm, moved)
        rest = {n: arm.matrix_world @ arm.data.bones[n].matrix_local for n in moved}
        fell = max((simulated[n].translation - rest[n].translation).length for n in moved)
        bpy.context.view_layer.objects.active = arm
        arm.select_set(True)
        res = bpy.ops.ligament.transfer_pose()
        keyed = sorted({fc.data_path.split('"')[1] for fc in
                        lig.addon.scene.animation.action_fcurves(arm).values()})
        frames = sorted({k.co.x for fc in lig.addon.scene.animation.action_fcurves(arm).values()
                         for k in fc.keyframe_points})
        scene.ligament_world.enabled = False       # the bones as their keys pose them
        scene.frame_set(FRAME)
        dist, turn = compare(bone_world(arm, moved), simulated)

        # In Pose Mode, the selected bone's part only
        scene.ligament_world.enabled = True
        arm.animation_data.action = None
        for f in range(1, FRAME + 1):
            scene.frame_set(f)
        bpy.ops.object.mode_set(mode='POSE')
        select_bones({"forearm.R"})
        res_part = bpy.ops.ligament.transfer_pose()
        bpy.ops.object.mode_set(mode='OBJECT')
        part_keyed = sorted({fc.data_path.split('"')[1] for fc in
                             lig.addon.scene.animation.action_fcurves(arm).values()})
        result({"res": list(res), "res_part": list(res_part), "moved": moved, "keyed": keyed,
                "frames": frames, "dist": dist, "turn": turn, "fell": fell,
                "part_keyed": part_keyed})
    """)
    assert out["res"] == ["FINISHED"] and out["res_part"] == ["FINISHED"]
    assert out["fell"] > 0.1                       # the pose is not the rest pose
    assert out["keyed"] == out["moved"]
    assert out["frames"] == [30.0]
    assert out["dist"] < 1e-4, out["dist"]
    assert out["turn"] < 0.01, out["turn"]
    assert out["part_keyed"] and "forearm.R" in out["part_keyed"]
    assert set(out["part_keyed"]) < set(out["moved"])


def test_transfer_pose_keys_the_control_rig_where_controls_are_set_up(blender):
    # a plain control rig: the ragdoll's bones under other names, rolled 30 degrees
    out = blender.run(RIGIFY, GROUND, RAGDOLL, TRANSFER, """
        plain_data = bpy.data.armatures.new("Plain")
        plain = bpy.data.objects.new("Plain", plain_data)
        scene.collection.objects.link(plain)
        plain.matrix_world = arm.matrix_world
        bpy.context.view_layer.objects.active = plain
        bpy.ops.object.mode_set(mode='EDIT')
        moved = sorted({t.ligament_ragdoll_part.bone for t in ragdoll_mod.members(arm, 'TARGET')})
        names = {}
        for n in moved:
            b = arm.data.bones[n]
            e = plain_data.edit_bones.new("P_" + n.replace(".", "_"))
            e.head, e.tail = b.head_local, b.tail_local
            e.align_roll(b.matrix_local.to_3x3() @ Vector((math.sin(0.52), 0, math.cos(0.52))))
            names[n] = e.name
        for n in moved:
            b = arm.data.bones[n]
            if b.parent is not None and b.parent.name in names:
                plain_data.edit_bones[names[n]].parent = plain_data.edit_bones[names[b.parent.name]]
        bpy.ops.object.mode_set(mode='OBJECT')
        arm.ligament_ragdoll.control_rig = plain
        lig.addon.authoring.controls.set_pairs(arm, sorted(names.items()))
        for f in range(1, FRAME + 1):
            scene.frame_set(f)
        simulated = bone_world(arm, moved)
        rest_s = {n: arm.matrix_world @ arm.data.bones[n].matrix_local for n in moved}
        for o in scene.objects:
            o.select_set(False)
        arm.select_set(True)
        bpy.context.view_layer.objects.active = arm
        res = bpy.ops.ligament.transfer_pose()
        arm_keys = len(lig.addon.scene.animation.action_fcurves(arm))
        scene.ligament_world.enabled = False
        scene.frame_set(FRAME)
        # each control lands where its source is, turned from its rest as the source is
        dist, turn = 0.0, 0.0
        for s, t in names.items():
            m = plain.matrix_world @ plain.pose.bones[t].matrix
            t0 = plain.matrix_world @ plain.data.bones[t].matrix_local
            dist = max(dist, (m.translation - simulated[s].translation).length)
            q_t = m.to_quaternion() @ t0.to_quaternion().inverted()
            q_s = simulated[s].to_quaternion() @ rest_s[s].to_quaternion().inverted()
            turn = max(turn, angle(q_t, q_s))
        result({"res": list(res), "dist": dist, "turn": turn, "arm_keys": arm_keys,
                "rig_keys": len(lig.addon.scene.animation.action_fcurves(plain))})
    """)
    assert out["res"] == ["FINISHED"]
    assert out["arm_keys"] == 0 and out["rig_keys"] > 0
    assert out["dist"] < 1e-4, out["dist"]
    # as close as the armature's own keys (the test above)
    assert out["turn"] < 0.01, out["turn"]
