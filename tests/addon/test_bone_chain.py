"""Dynamic bone chains in Blender: a chain whose keyed root moves whips and settles back to
its rest shape, stays connected, bakes to what played live; the gravity factor; a spring's
period against its stiffness."""

import math

import numpy as np

CHAIN = """
    def chain_armature(name="Chain", bones=5, length=0.1, direction=(0, 0, -1),
                       location=(0, 0, 2)):
        # a root bone and `bones` connected bones in a line along `direction`
        data = bpy.data.armatures.new(name)
        arm = bpy.data.objects.new(name, data)
        scene.collection.objects.link(arm)
        arm.location = location
        bpy.context.view_layer.objects.active = arm
        arm.select_set(True)
        bpy.ops.object.mode_set(mode='EDIT')
        d = Vector(direction).normalized() * length
        parent = None
        head = Vector((0, 0, 0))
        for i in range(bones + 1):
            eb = data.edit_bones.new("root" if i == 0 else f"b{i}")
            eb.head, eb.tail = head, head + d
            eb.roll = 0.0
            if parent is not None:
                eb.parent, eb.use_connect = parent, True
            parent, head = eb, head + d
        bpy.ops.object.mode_set(mode='POSE')
        names = ["root"] + [f"b{i}" for i in range(1, bones + 1)]
        for n in names:   # Blender 5 selects pose bones, older versions bones
            sel = arm.pose.bones[n] if hasattr(arm.pose.bones[n], "select") else arm.data.bones[n]
            sel.select = True
        arm.data.bones.active = arm.data.bones["root"]
        return arm, names

    def key_root(arm, frames_values, index=1):
        # key the armature's location (the chain's root follows it)
        for f, v in frames_values:
            arm.location[index] = v
            arm.keyframe_insert("location", index=index, frame=f)

    def bone_points(arm, names):
        # world heads and tails of the bones as the evaluated pose has them
        m = arm.matrix_world
        pb = arm.pose.bones
        return [[list(m @ pb[n].head), list(m @ pb[n].tail)] for n in names]

    def body_gap(arm, names):
        # the largest distance between where a bone's body puts the bone's head and where its
        # parent's body puts the parent's tail: the joints' error (the bones themselves are
        # connected, Blender keeps a connected bone's head on its parent's tail)
        targets = {o.ligament_ragdoll_part.bone: o for o in bpy.data.objects
                   if o.ligament_ragdoll_part.role == 'TARGET'
                   and o.ligament_ragdoll_part.armature == arm}
        def placed(n):
            t = targets[n]
            return t.parent.matrix_world @ t.matrix_basis
        worst = 0.0
        for parent, child in zip(names, names[1:]):
            tail = placed(parent) @ Vector((0, arm.data.bones[parent].length, 0))
            worst = max(worst, (placed(child).translation - tail).length)
        return worst

    def play(arm, names, frames, gaps=None):
        out = []
        for f in frames:
            scene.frame_set(f)
            out.append(bone_points(arm, names))
            if gaps is not None:
                gaps.append(body_gap(arm, names))
        return out
"""


def _shape(points):
    """Each frame's bone points relative to the root's head."""
    p = np.array(points)
    return p - p[:, :1, :1]


def test_keyed_root_whips_the_chain_which_settles_back_to_rest_and_bakes(blender):
    out = blender.run(CHAIN, """
        arm, names = chain_armature()
        bpy.ops.ligament.add_bone_chain(preset='TAIL')
        key_root(arm, [(1, 0.0), (8, 0.4)])
        scene.ligament_world.frame_end = 240
        rest = bone_points(arm, names)
        gaps = []
        live = play(arm, names, range(1, 241), gaps)
        bpy.ops.object.mode_set(mode='OBJECT')
        bpy.ops.ligament.bake(frame_start=1, frame_end=240)
        baked = play(arm, names, range(1, 241))
        result({"rest": rest, "live": live, "baked": baked, "gaps": gaps,
                "bodies": len([o for o in bpy.data.objects
                               if o.ligament_ragdoll_part.chain == "root"
                               and o.ligament_ragdoll_part.role == 'BODY'])})
    """)
    assert out["bodies"] == 6            # the root's kinematic capsule and five dynamic
    rest = _shape([out["rest"]])[0]
    live = _shape(out["live"])
    # the sideways move swings the tip well away from its rest place...
    swing = np.linalg.norm(live[:, -1, 1] - rest[-1, 1], axis=-1)
    assert swing[4:20].max() > 0.05, swing.max()
    # ...and it comes back (in about 7 s): the last second within 2 mm of the rest shape
    assert np.abs(live[-24:] - rest).max() < 0.002, np.abs(live[-24:] - rest).max()
    # the bodies hold the bones together: within 1 mm on every frame, while they whip
    assert max(out["gaps"]) < 0.001, max(out["gaps"])
    assert np.abs(np.array(out["baked"]) - np.array(out["live"])).max() < 1e-4


def test_gravity_factor_zero_keeps_a_horizontal_chain_straight_one_makes_it_droop(blender):
    out = blender.run(CHAIN, """
        tips = {}
        for factor in (0.0, 1.0):
            for o in list(bpy.data.objects):
                bpy.data.objects.remove(o)
            arm, names = chain_armature(name=f"G{factor}", direction=(1, 0, 0))
            bpy.ops.ligament.add_bone_chain(preset='HAIR')
            arm.pose.bones["root"].ligament_chain.gravity_factor = factor
            scene.ligament_world.frame_end = 72
            gaps = []
            points = play(arm, names, range(1, 73), gaps)
            bpy.ops.object.mode_set(mode='OBJECT')
            tips[str(factor)] = {"z": [p[-1][1][2] for p in points], "gap": max(gaps)}
        result(tips)
    """)
    straight, droop = out["0.0"], out["1.0"]
    assert max(abs(z - 2.0) for z in straight["z"]) < 0.002
    assert 2.0 - droop["z"][-1] > 0.05
    assert straight["gap"] < 0.001 and droop["gap"] < 0.001


def test_a_single_bone_springs_at_its_stiffness(blender):
    # one bone on a root that jumps sideways and stops: with gravity off and no damping the
    # bone swings about its rest direction at the drive's frequency (the drive's hertz is the
    # frequency as hung, for the bone's inertia about the joint)
    out = blender.run(CHAIN, """
        scene.render.fps = 120
        arm, names = chain_armature(bones=1, direction=(1, 0, 0))
        bpy.ops.ligament.add_bone_chain(preset='JIGGLE')
        c = arm.pose.bones["root"].ligament_chain
        c.preset = 'CUSTOM'
        c.stiffness, c.damping, c.gravity_factor, c.swing_limit = 2.0, 0.0, 0.0, 60.0
        key_root(arm, [(1, 0.0), (4, 0.01)])
        scene.ligament_world.frame_end = 360
        points = play(arm, names, range(1, 361))
        result(points)
    """)
    p = np.array(out)
    d = p[:, 1, 1] - p[:, 1, 0]
    angle = np.arctan2(d[:, 1], d[:, 0])        # the bone's sideways swing
    a = angle[10:] - angle[10:].mean()
    up = np.flatnonzero((a[:-1] < 0) & (a[1:] >= 0))
    period = np.diff(up).mean() / 120.0
    assert abs(period - 0.5) < 0.5 * 0.08, period
    assert np.abs(a).max() > 1e-3


def test_a_chain_below_a_ragdoll_part_hangs_from_it_and_falls_with_the_ragdoll(blender):
    # no ground: the ragdoll falls freely for two seconds (a hard landing tears the light
    # finger bodies off the hand for a frame or two, up to 2 cm: see the guide)
    from test_ragdoll import RIGIFY
    out = blender.run(RIGIFY, CHAIN, """
        arm = metarig(location=(0, 0, 1.0))
        bpy.ops.ligament.ragdoll_from_armature()
        bpy.context.view_layer.objects.active = arm
        bpy.ops.object.mode_set(mode='POSE')
        names = ["f_index.01.L", "f_index.02.L", "f_index.03.L"]
        for pb in arm.pose.bones:
            (pb if hasattr(pb, "select") else pb.bone).select = pb.name in names
        arm.data.bones.active = arm.data.bones[names[0]]
        bpy.ops.ligament.add_bone_chain(preset='TAIL')
        joints = [o for o in bpy.data.objects if o.ligament_ragdoll_part.chain == names[0]
                  and o.ligament_ragdoll_part.role == 'JOINT']
        hangs = sorted(j.ligament_joint.object_a.name for j in joints)
        scene.ligament_world.frame_end = 48
        targets = {o.ligament_ragdoll_part.bone: o for o in bpy.data.objects
                   if o.ligament_ragdoll_part.role == 'TARGET'}
        def placed(n):       # the bone's matrix as its body puts it
            t = targets[n]
            return t.parent.matrix_world @ t.matrix_basis
        bones = arm.data.bones
        # where the finger's second bone's head sits on the hand (at rest, hand space)
        on_hand = bones["hand.L"].matrix_local.inverted() @ bones[names[1]].head_local
        hand_z, held, gaps = [], [], []
        for f in range(1, 49):
            scene.frame_set(f)
            hand_z.append(placed("hand.L").translation.z)
            held.append((placed(names[1]).translation - placed("hand.L") @ on_hand).length)
            gaps.append(body_gap(arm, names[1:]))
        result({"hangs": hangs, "hand_z": hand_z, "held": held, "gaps": gaps})
    """)
    # the second finger bone hangs from the ragdoll's hand body, the third from the second
    assert out["hangs"] == sorted(["Rig hand.L", "Rig f_index.02.L chain"])
    assert out["hand_z"][0] - out["hand_z"][-1] > 5.0          # the ragdoll fell
    # the finger's body stays on the hand's body, and on each other, within 1 mm
    assert max(out["held"]) < 0.001, max(out["held"])
    assert max(out["gaps"]) < 0.001, max(out["gaps"])


def test_chain_settings_update_the_helpers_and_remove_deletes_the_chain(blender):
    out = blender.run(CHAIN, """
        arm, names = chain_armature(bones=3)
        bpy.ops.ligament.add_bone_chain(preset='HAIR')
        c = arm.pose.bones["root"].ligament_chain
        members = [o for o in bpy.data.objects if o.ligament_ragdoll_part.chain == "root"]
        joints = [o for o in members if o.ligament_ragdoll_part.role == 'JOINT']
        b1 = next(o for o in members if o.ligament_ragdoll_part.role == 'BODY'
                  and o.ligament_ragdoll_part.part == "b1")
        hair = (c.stiffness, c.damping, c.gravity_factor, round(math.degrees(joints[0].ligament_joint.swing_1), 6))
        c.preset = 'JIGGLE'
        jiggle = (c.stiffness, c.damping, c.gravity_factor, round(math.degrees(joints[0].ligament_joint.swing_1), 6))
        c.radius = 0.02
        xs = [v.co.x for v in b1.data.vertices]
        width = max(xs) - min(xs)
        # errors: a single bone with no children, a bone simulated already
        errors = []
        for sel in (["b3"], ["b1", "b2"]):
            for pb in arm.pose.bones:
                (pb if hasattr(pb, "select") else pb.bone).select = pb.name in sel
            arm.data.bones.active = arm.data.bones[sel[0]]
            try:
                bpy.ops.ligament.add_bone_chain()
                errors.append(None)
            except RuntimeError as exc:
                errors.append(str(exc))
        arm.data.bones.active = arm.data.bones["b2"]
        bpy.ops.ligament.remove_bone_chain()
        left = [o.name for o in bpy.data.objects if o.ligament_ragdoll_part.chain]
        cons = [c.name for pb in arm.pose.bones for c in pb.constraints]
        result({"hair": hair, "jiggle": jiggle, "width": width, "errors": errors, "left": left,
                "constraints": cons, "enabled": arm.ligament_ragdoll.enabled,
                "chain": c.enabled, "root_simulated": arm.pose.bones["root"].ligament_ragdoll.simulated})
    """)
    assert np.allclose(out["hair"], [1.5, 1.0, 1.0, 80.0], atol=1e-4)     # float32 storage
    assert np.allclose(out["jiggle"], [6.0, 0.3, 0.0, 30.0], atol=1e-4)
    assert abs(out["width"] - 0.04) < 1e-6
    assert "a chain needs at least two bones" in out["errors"][0]
    assert "simulated already" in out["errors"][1]
    assert out["left"] == [] and out["constraints"] == []
    assert out["enabled"] is False and out["chain"] is False and out["root_simulated"] is True
