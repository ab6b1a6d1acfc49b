"""The physics check and fix of keyed motion on a metarig ragdoll (addon/motion, the
operators ligament.physics_check, ligament.physics_fix and ligament.physics_switch): the
check's figures against the same physics computed here from the bones Blender evaluates and
the bodies' masses; a jump keyed in straight lines fixed onto a parabola of gravity."""

import numpy as np
import pytest

G = 9.81
FPS = 24

RIG = """
    import numpy as np
    bpy.ops.preferences.addon_enable(module="rigify")
    ragdolls_mod = sys.modules[lig.__name__ + ".addon.scene.ragdolls"]
    rig_mod = sys.modules[lig.__name__ + ".addon.motion.rig"]
    anim_mod = sys.modules[lig.__name__ + ".addon.scene.animation"]
    box("Ground", (30, 30, 1), (0, 0, -0.5), kind='STATIC')
    scene.frame_start, scene.frame_end = 1, 40

    bpy.ops.object.armature_human_metarig_add()
    arm = bpy.context.active_object
    arm.name = "Rig"
    bpy.context.view_layer.update()
    bpy.ops.ligament.ragdoll_from_armature(total_mass=70.0)
    helpers = sorted(ragdolls_mod.bodies(arm), key=lambda o: o.name)
    parts = {o.name: o.ligament_ragdoll_part for o in helpers}

    def first_bone(o):
        # the helper's bone nearest the root (its targets' bones)
        names = [c.ligament_ragdoll_part.bone for c in o.children
                 if c.ligament_ragdoll_part.role == 'TARGET']
        def depth(n):
            b, d = arm.data.bones[n], 0
            while b.parent is not None:
                b, d = b.parent, d + 1
            return d
        return min(names, key=depth)

    bones = {o.name: first_bone(o) for o in helpers}
    # at rest, each helper sits on its bone: the body's frame relative to the bone as Blender
    # shows both
    to_body = {o.name: (arm.matrix_world @ arm.pose.bones[bones[o.name]].matrix).inverted()
               @ o.matrix_world for o in helpers}

    def key_location(pb, frame, world_offset):
        # key the root bone at a world offset from its rest (the armature is unrotated)
        rest = arm.data.bones[pb.name].matrix_local.to_3x3()
        pb.location = rest.inverted() @ Vector(world_offset)
        pb.keyframe_insert("location", frame=frame, group=pb.name)

    def linear_keys(obj):
        ad = obj.animation_data
        slot = getattr(ad, "action_slot", None)
        if slot is not None:
            from bpy_extras import anim_utils
            curves = anim_utils.action_get_channelbag_for_slot(ad.action, slot).fcurves
        else:
            curves = ad.action.fcurves
        for fc in curves:
            for k in fc.keyframe_points:
                k.interpolation = 'LINEAR'

    def key_tent_jump(take_off=10, landing=30, peak=0.5, drift=0.6):
        # the root rises and falls in straight lines (and drifts forward), the thighs swing
        spine = arm.pose.bones["spine"]
        key_location(spine, 1, (0, 0, 0))
        key_location(spine, take_off, (0, 0, 0))
        key_location(spine, (take_off + landing) // 2, (0, -drift / 2, peak))
        key_location(spine, landing, (0, -drift, 0))
        key_location(spine, 40, (0, -drift, 0))
        for side, sign in (("L", 1), ("R", -1)):
            pb = arm.pose.bones["thigh." + side]
            pb.rotation_mode = 'XYZ'
            for f, angle in ((take_off, 0.0), (15, 0.5 * sign), (25, -0.4 * sign),
                             (landing, 0.0)):
                pb.rotation_euler = (angle, 0, 0)
                pb.keyframe_insert("rotation_euler", frame=f, group=pb.name)
        linear_keys(arm)

    def bodies_at(frames):
        # (F, B, 4, 4) body matrices from the pose Blender evaluates (world off: the bones
        # play their keys)
        scene.ligament_world.enabled = False
        out = np.empty((len(frames), len(helpers), 4, 4))
        for i, f in enumerate(frames):
            scene.frame_set(int(f))
            for j, o in enumerate(helpers):
                m = arm.matrix_world @ arm.pose.bones[bones[o.name]].matrix @ to_body[o.name]
                out[i, j] = np.array(m)
        return out

    def inertia(o):
        # the body's inertia in its frame from the helper's shape (capsule or box)
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
        ixx = mc * (3 * r * r + 4 * h * h) / 12 + \\
            ms * (83 * r * r / 320 + (h + 3 * r / 8) ** 2)
        return np.diag([ixx, ixx, izz])
"""


def _reference(bodies, masses, inertia, dt):
    """Centre of mass, linear and angular momentum about it per frame, computed here: central
    differences of positions, and of rotations through their axis and angle."""
    bodies, masses = np.asarray(bodies), np.asarray(masses)
    inertia = np.asarray(inertia)
    pos = bodies[:, :, :3, 3]
    rot = bodies[:, :, :3, :3]
    total = masses.sum()
    com = np.einsum("b,fbi->fi", masses, pos) / total
    n = len(bodies)
    vel = np.empty_like(pos)
    omega = np.empty_like(pos)
    for i in range(n):
        a, b = max(i - 1, 0), min(i + 1, n - 1)
        vel[i] = (pos[b] - pos[a]) / ((b - a) * dt)
        for j in range(bodies.shape[1]):
            rel = rot[b, j] @ rot[a, j].T
            angle = np.arccos(np.clip((np.trace(rel) - 1) / 2, -1, 1))
            axis = np.array([rel[2, 1] - rel[1, 2], rel[0, 2] - rel[2, 0], rel[1, 0] - rel[0, 1]])
            sin = np.linalg.norm(axis) / 2
            omega[i, j] = axis / 2 * (angle / sin if sin > 1e-12 else 1.0) / ((b - a) * dt)
    v_com = np.einsum("b,fbi->fi", masses, vel) / total
    L = np.zeros((n, 3))
    for i in range(n):
        for j in range(bodies.shape[1]):
            r = pos[i, j] - com[i]
            L[i] += masses[j] * np.cross(r, vel[i, j] - v_com[i])
            L[i] += rot[i, j] @ inertia[j] @ rot[i, j].T @ omega[i, j]
    return com, total * v_com, L


def _parabola_distance(t, points, g):
    """Largest distance of `points` from their least-squares parabola of curvature g (down
    Z): a line fitted to points + g t^2 / 2 with numpy's polyfit."""
    lifted = points + 0.5 * g * np.outer(t * t, [0, 0, 1])
    fitted = np.column_stack([np.polyval(np.polyfit(t, lifted[:, k], 1), t) for k in range(3)])
    return float(np.linalg.norm(lifted - fitted, axis=1).max())


@pytest.fixture(scope="module")
def jump(blender):
    """A metarig ragdoll with a keyed jump in straight lines: the check's report and the
    reference quantities, then the fix's."""
    return blender.run(RIG, """
        key_tent_jump()
        frames = np.arange(1, 41, dtype=float)
        keyed_name = arm.animation_data.action.name
        keyed_keys = [list(k.co) for fc in anim_mod.action_fcurves(arm).values()
                      for k in fc.keyframe_points]
        bpy.context.view_layer.objects.active = arm
        assert bpy.ops.ligament.physics_check() == {'FINISHED'}
        phases = json.loads(arm.ligament_motion.report)
        frames_, report = rig_mod.MotionRig(scene, arm).check()
        keyed = bodies_at(frames)
        scene.ligament_world.enabled = True
        assert bpy.ops.ligament.physics_fix() == {'FINISHED'}
        fixed_report = json.loads(arm.ligament_motion.report)
        fixed = bodies_at(frames)
        motion = arm.ligament_motion
        active = arm.animation_data.action.name
        kept = bpy.data.actions.get(keyed_name)
        assert bpy.ops.ligament.physics_switch() == {'FINISHED'}
        switched = arm.animation_data.action.name
        switched_keys = [list(k.co) for fc in anim_mod.action_fcurves(arm).values()
                         for k in fc.keyframe_points]
        assert bpy.ops.ligament.physics_switch() == {'FINISHED'}
        result({"phases": phases, "fixed_phases": fixed_report,
                "com": report.com.tolist(), "p": report.linear_momentum.tolist(),
                "L": report.angular_momentum.tolist(),
                "flight": report.flight.tolist(),
                "keyed": keyed.tolist(), "fixed": fixed.tolist(),
                "masses": [o.ligament_body.mass for o in helpers],
                "inertia": [inertia(o).tolist() for o in helpers],
                "names": [o.ligament_ragdoll_part.part for o in helpers],
                "keyed_name": keyed_name, "active": active, "switched": switched,
                "kept": kept is not None and kept.use_fake_user,
                "keyed_keys": keyed_keys, "switched_keys": switched_keys,
                "fixed_name": motion.fixed_action.name,
                "again": arm.animation_data.action.name})
    """)


def test_check_figures_match_the_physics_computed_from_the_bones_and_masses(jump):
    keyed = np.array(jump["keyed"])
    com, p, L = _reference(keyed, jump["masses"], jump["inertia"], 1.0 / FPS)
    # Blender's pose matrices and mathutils are float32 (~1e-7 m here): positions agree to
    # 1e-6 m, velocities (differences over 1/24 s) to 1e-5 of their largest value
    assert np.abs(np.array(jump["com"]) - com).max() < 1e-6
    assert np.abs(np.array(jump["p"]) - p).max() < 1e-5 * np.abs(p).max()
    assert np.abs(np.array(jump["L"]) - L).max() < 1e-5 * np.abs(L).max()
    assert np.abs(L).max() > 1.0          # the thighs' swing turns the body
    kinds = [(ph["kind"], ph["first"], ph["last"]) for ph in jump["phases"]]
    assert kinds == [("STANCE", 1, 10), ("FLIGHT", 11, 29), ("STANCE", 30, 40)]
    flight = jump["phases"][1]
    span = slice(10, 29)
    t = np.arange(11, 30) / FPS
    assert flight["parabola_cm"] == pytest.approx(100 * _parabola_distance(t, com[span], G),
                                                  abs=1e-4)        # 1e-6 m
    change = np.linalg.norm(L[span] - L[10], axis=1).max()
    assert flight["momentum_percent"] == pytest.approx(
        100 * change / np.linalg.norm(L[span], axis=1).max(), rel=1e-4)
    assert flight["parabola_cm"] > 2.0     # straight lines are no parabola


def test_fixed_jump_follows_a_parabola_of_g_with_take_off_and_landing_kept(jump):
    masses = np.array(jump["masses"])
    keyed, fixed = np.array(jump["keyed"]), np.array(jump["fixed"])
    com_keyed = np.einsum("b,fbi->fi", masses, keyed[:, :, :3, 3]) / masses.sum()
    com = np.einsum("b,fbi->fi", masses, fixed[:, :, :3, 3]) / masses.sum()
    span = slice(10, 29)                              # frames 11..29, in flight
    t = np.arange(11, 30) / FPS
    assert _parabola_distance(t, com[span], G) < 0.005
    curvature = 2 * np.polyfit(t, com[span, 2], 2)[0]
    assert curvature == pytest.approx(-G, rel=0.02)
    # take-off (frame 10) and landing (frame 30) where they were keyed; stance untouched,
    # the feet where they were keyed there
    stance = list(range(0, 10)) + list(range(29, 40))
    assert np.abs(fixed[stance] - keyed[stance]).max() < 1e-5
    feet = [i for i, n in enumerate(jump["names"]) if n.startswith("foot")]
    assert np.abs(fixed[stance][:, feet, :3, 3] - keyed[stance][:, feet, :3, 3]).max() < 0.002
    assert np.abs(com[span] - com_keyed[span]).max() > 0.02    # the flight did move
    fixed_flight = jump["fixed_phases"][1]
    assert fixed_flight["kind"] == "FLIGHT" and fixed_flight["parabola_cm"] < 0.5


def test_fix_makes_a_new_action_and_one_click_switches_back_to_the_keyed_one(jump):
    assert jump["active"] == jump["fixed_name"] != jump["keyed_name"]
    assert jump["kept"]
    assert jump["switched"] == jump["keyed_name"]
    assert sorted(map(tuple, jump["switched_keys"])) == sorted(map(tuple, jump["keyed_keys"]))
    assert jump["again"] == jump["fixed_name"]


def test_a_standing_pose_is_balanced_and_a_lean_reports_how_far_it_is_outside_the_feet(blender):
    out = blender.run(RIG, """
        spine = arm.pose.bones["spine.001"]
        spine.rotation_mode = 'XYZ'
        for f, angle in ((1, 0.0), (10, 0.0), (20, -1.0), (40, -1.0)):
            spine.rotation_euler = (angle, 0, 0)
            spine.keyframe_insert("rotation_euler", frame=f, group=spine.name)
        bpy.context.view_layer.objects.active = arm
        assert bpy.ops.ligament.physics_check() == {'FINISHED'}
        frames, report = rig_mod.MotionRig(scene, arm).check()
        feet = [o for o in helpers if o.ligament_ragdoll_part.part.startswith("foot")]
        corners = [list(o.matrix_world @ Vector(c)) for o in feet for c in o.bound_box]
        result({"phases": json.loads(arm.ligament_motion.report),
                "outside": report.outside.tolist(), "bodies": bodies_at(frames).tolist(),
                "masses": [o.ligament_body.mass for o in helpers], "corners": corners})
    """)
    masses = np.array(out["masses"])
    bodies = np.array(out["bodies"])
    com = np.einsum("b,fbi->fi", masses, bodies[:, :, :3, 3]) / masses.sum()
    # the feet stand still: their sole corners (those within the contact distance of the
    # floor) make a rectangle, the support
    corners = np.array(out["corners"])
    sole = corners[corners[:, 2] < 0.06]
    lo, hi = sole[:, :2].min(axis=0), sole[:, :2].max(axis=0)
    outside = np.linalg.norm(np.maximum(0, np.maximum(lo - com[:, :2], com[:, :2] - hi)), axis=1)
    assert [ph["kind"] for ph in out["phases"]] == ["STANCE"]
    assert np.abs(np.array(out["outside"]) - outside).max() < 1e-6
    assert outside[:10].max() == 0.0             # standing upright, over the feet
    assert outside[-1] > 0.03                    # leaning far out
    assert out["phases"][0]["outside_cm"] == pytest.approx(100 * outside.max(), abs=1e-4)


def test_a_keyed_flip_that_speeds_up_keeps_its_angular_momentum_once_fixed(blender):
    out = blender.run(RIG, """
        spine = arm.pose.bones["spine"]
        spine.rotation_mode = 'XYZ'
        key_location(spine, 1, (0, 0, 0))
        key_location(spine, 10, (0, 0, 0))
        key_location(spine, 20, (0, 0, 1.0))
        key_location(spine, 30, (0, 0, 0))
        key_location(spine, 40, (0, 0, 0))
        for f in [1] + list(range(10, 31, 2)) + [40]:
            s = min(max((f - 10) / 20, 0.0), 1.0)
            # a full turn about the hips that speeds up from 0.3 to 1.7 of its mean rate
            spine.rotation_euler = (2 * math.pi * (0.3 * s + 0.7 * s * s), 0, 0)
            spine.keyframe_insert("rotation_euler", frame=f, group=spine.name)
        linear_keys(arm)
        frames = np.arange(1, 41, dtype=float)
        bpy.context.view_layer.objects.active = arm
        assert bpy.ops.ligament.physics_check() == {'FINISHED'}
        phases = json.loads(arm.ligament_motion.report)
        keyed = bodies_at(frames)
        scene.ligament_world.enabled = True
        assert bpy.ops.ligament.physics_fix() == {'FINISHED'}
        result({"phases": phases, "fixed_phases": json.loads(arm.ligament_motion.report),
                "keyed": keyed.tolist(), "fixed": bodies_at(frames).tolist(),
                "masses": [o.ligament_body.mass for o in helpers],
                "inertia": [inertia(o).tolist() for o in helpers]})
    """)
    assert [(ph["kind"], ph["first"], ph["last"]) for ph in out["phases"]] == \
        [("STANCE", 1, 10), ("FLIGHT", 11, 29), ("STANCE", 30, 40)]
    keyed, fixed = np.array(out["keyed"]), np.array(out["fixed"])
    span = slice(10, 29)                               # frames 11..29
    _, _, L_keyed = _reference(keyed, out["masses"], out["inertia"], 1.0 / FPS)
    _, _, L = _reference(fixed, out["masses"], out["inertia"], 1.0 / FPS)
    change = lambda L: np.linalg.norm(L[span] - L[10], axis=1).max() / np.linalg.norm(L[10])
    assert change(L_keyed) > 0.5                       # keyed: the spin speeds up
    assert change(L) < 0.02
    assert out["phases"][1]["momentum_percent"] > 50
    assert out["fixed_phases"][1]["momentum_percent"] < 2
    # lands as keyed: the stance frames are untouched
    stance = list(range(0, 10)) + list(range(29, 40))
    assert np.abs(fixed[stance] - keyed[stance]).max() < 1e-5
    # and flies on a parabola of g
    masses = np.array(out["masses"])
    com = np.einsum("b,fbi->fi", masses, fixed[:, :, :3, 3]) / masses.sum()
    assert _parabola_distance(np.arange(11, 30) / FPS, com[span], G) < 0.005


def test_a_standing_lean_outside_the_feet_is_balanced_by_the_pelvis_the_feet_kept(blender):
    out = blender.run(RIG, """
        spine = arm.pose.bones["spine.001"]
        spine.rotation_mode = 'XYZ'
        for f, angle in ((1, 0.0), (10, 0.0), (20, -0.9), (40, -0.9)):
            spine.rotation_euler = (angle, 0, 0)
            spine.keyframe_insert("rotation_euler", frame=f, group=spine.name)
        frames = np.arange(1, 41, dtype=float)
        bpy.context.view_layer.objects.active = arm
        assert bpy.ops.ligament.physics_check() == {'FINISHED'}
        phases = json.loads(arm.ligament_motion.report)
        keyed = bodies_at(frames)
        feet = [o for o in helpers if o.ligament_ragdoll_part.part.startswith("foot")]
        corners = [list(o.matrix_world @ Vector(c)) for o in feet for c in o.bound_box]
        scene.ligament_world.enabled = True
        assert bpy.ops.ligament.physics_fix() == {'FINISHED'}
        result({"phases": phases, "fixed_phases": json.loads(arm.ligament_motion.report),
                "keyed": keyed.tolist(), "fixed": bodies_at(frames).tolist(),
                "masses": [o.ligament_body.mass for o in helpers], "corners": corners,
                "names": [o.ligament_ragdoll_part.part for o in helpers]})
    """)
    masses = np.array(out["masses"])
    keyed, fixed = np.array(out["keyed"]), np.array(out["fixed"])
    corners = np.array(out["corners"])
    sole = corners[corners[:, 2] < 0.06]
    lo, hi = sole[:, :2].min(axis=0), sole[:, :2].max(axis=0)

    def outside(bodies):
        com = np.einsum("b,fbi->fi", masses, bodies[:, :, :3, 3]) / masses.sum()
        return np.linalg.norm(np.maximum(0, np.maximum(lo - com[:, :2], com[:, :2] - hi)), axis=1)

    assert 0.08 < outside(keyed).max() < 0.2          # leaning about 10 cm out
    assert outside(fixed).max() < 1e-4                # over the feet once fixed
    assert out["fixed_phases"][0]["outside_cm"] < 0.01
    feet = [i for i, n in enumerate(out["names"]) if n.startswith("foot")]
    assert np.abs(fixed[:, feet, :3, 3] - keyed[:, feet, :3, 3]).max() < 0.002
    # the frames that were balanced already are untouched
    assert np.abs(fixed[:10] - keyed[:10]).max() < 1e-5


def test_bad_input_is_refused_with_a_message_and_the_scene_is_left_as_it_was(blender):
    out = blender.run(RIG, """
        key_tent_jump()
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
        plain = bpy.context.active_object
        no_ragdoll = call(bpy.ops.ligament.physics_check)
        bpy.context.view_layer.objects.active = arm
        no_switch = call(bpy.ops.ligament.physics_switch)
        twice = [call(bpy.ops.ligament.physics_fix), call(bpy.ops.ligament.physics_fix)]
        result({"no_gravity": no_gravity, "no_ragdoll": no_ragdoll, "no_switch": no_switch,
                "messages": messages, "action_after_error": action_after_error,
                "twice": twice, "actions": sorted(a.name for a in bpy.data.actions),
                "playing": arm.animation_data.action.name,
                "keyed": arm.ligament_motion.keyed_action.name})
    """)
    assert out["no_gravity"] == out["no_ragdoll"] == out["no_switch"] == "error"
    assert "gravity is off" in out["messages"][0]
    assert "has no ragdoll" in out["messages"][1]
    assert "run Physics Fix" in out["messages"][2]
    assert out["action_after_error"] == out["keyed"]
    # a second fix starts from the keyed action again and replaces the first fix
    assert out["twice"] == [["FINISHED"], ["FINISHED"]]
    assert out["actions"] == sorted([out["keyed"], out["keyed"] + "_PhysicsFix"])
    assert out["playing"] == out["keyed"] + "_PhysicsFix"


def test_with_the_bakes_reduce_keys_the_fix_writes_fewer_keys_within_its_tolerances(blender):
    out = blender.run(RIG, """
        key_tent_jump()
        frames = np.arange(1, 41, dtype=float)
        bpy.context.view_layer.objects.active = arm
        bpy.ops.ligament.physics_fix()
        full = bodies_at(frames)
        scene.ligament_world.enabled = True
        ws = scene.ligament_world
        ws.bake_reduce, ws.bake_tolerance_location = True, 0.001
        ws.bake_tolerance_rotation = math.radians(0.5)
        bpy.ops.ligament.physics_fix()
        reduced = bodies_at(frames)
        keys = [len(fc.keyframe_points) for (path, i), fc in anim_mod.action_fcurves(arm).items()
                if path == 'pose.bones["spine"].location']
        result({"full": full.tolist(), "reduced": reduced.tolist(), "keys": keys})
    """)
    full, reduced = np.array(out["full"]), np.array(out["reduced"])
    assert max(out["keys"]) < 20                       # of 40 frames
    # the root within 1 mm and 0.5 degrees: a body 1 m from it within 1 + 9 mm
    assert np.abs(reduced[:, :, :3, 3] - full[:, :, :3, 3]).max() < 0.01


def test_a_simulated_fall_baked_is_physical_and_the_fix_moves_it_less_than_5_mm(blender):
    out = blender.run(RIG, """
        arm.location = (0, 0, 0.6)
        bpy.context.view_layer.update()
        scene.ligament_world.frame_start, scene.ligament_world.frame_end = 1, 40
        bpy.ops.ligament.bake()
        frames = np.arange(1, 41, dtype=float)
        bpy.context.view_layer.objects.active = arm
        assert bpy.ops.ligament.physics_check() == {'FINISHED'}
        phases = json.loads(arm.ligament_motion.report)
        keyed = bodies_at(frames)
        scene.ligament_world.enabled = True
        # balance is static: it would hold up a ragdoll falling over on its feet
        assert bpy.ops.ligament.physics_fix(balance=False) == {'FINISHED'}
        result({"phases": phases, "keyed": keyed.tolist(), "fixed": bodies_at(frames).tolist()})
    """)
    flights = [ph for ph in out["phases"] if ph["kind"] == "FLIGHT"]
    assert flights and flights[0]["first"] == 1 and flights[0]["last"] >= 8   # the drop
    assert flights[0]["parabola_cm"] < 0.5
    keyed, fixed = np.array(out["keyed"]), np.array(out["fixed"])
    assert np.abs(fixed[:, :, :3, 3] - keyed[:, :, :3, 3]).max() < 0.005


def test_the_physics_check_panels_draw_the_figures_red_where_they_fail(blender):
    out = blender.run(RIG, """
        import types
        key_tent_jump()
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
        result({"problems": problems, "drawn": drawn})
    """)
    assert out["problems"] == []
    for rows in out["drawn"]:
        red = [labels[0] for alert, labels in rows if alert]
        assert len(red) == 2 and red[0].startswith("off the parabola: 2")
        assert red[1].startswith("momentum change")
        assert ("CoM outside support: 0.00 cm" in
                [labels[0] for alert, labels in rows if not alert])
