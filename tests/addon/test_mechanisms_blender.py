"""Mechanism joints built from empties in real Blender: each behaves as the
mechanics says (the headless counterparts are tests/solver/test_mechanisms.py), the pickers
take only what fits, and a coupling whose joint is wrong or skipped is skipped with a message.
24 fps, World defaults of the add-on."""

import math

import numpy as np

G = 9.81

GEARS = """
    # Two plates on vertical hinges to a static post; A driven by its motor, B geared to A
    # by teeth counts 20:10. The gear empty is made first, so a build in scene order would
    # meet it before its hinges.
    gear = joint("0 Gear", 'GEAR', None, None, (0.25, 0, 1))
    post = box("Post", (0.1, 0.1, 0.1), (0.25, 0, 0), kind='STATIC')
    plate_a = box("Plate A", (0.4, 0.4, 0.05), (0, 0, 1), mass=2.0)
    plate_b = box("Plate B", (0.2, 0.2, 0.05), (0.5, 0, 1), mass=1.0)
    ha = joint("Hinge A", 'HINGE', post, plate_a, (0, 0, 1), use_motor=True,
               motor_velocity=2.0, motor_max_force=50.0)
    hb = joint("Hinge B", 'HINGE', post, plate_b, (0.5, 0, 1))
    g = gear.ligament_joint
    g.joint_a, g.joint_b = ha, hb
    g.ratio_mode, g.teeth_a, g.teeth_b = 'TEETH', 20, 10
"""


def test_gear_from_teeth_turns_b_at_minus_ratio_times_a(blender):
    out = blender.run(GEARS, """
        turns = {"a": [0.0], "b": [0.0]}
        last = {"a": 0.0, "b": 0.0}
        for f in range(2, 50):
            scene.frame_set(f)
            for key, obj in (("a", plate_a), ("b", plate_b)):
                z = obj.matrix_world.to_euler().z
                turns[key].append(turns[key][-1] + (z - last[key] + math.pi) % (2 * math.pi)
                                  - math.pi)
                last[key] = z
        lines, bad = lig.addon.ui.overlay.overlay_lines(gear)
        result({"turns": turns, "error": lig.addon.runtime.cache.error(scene),
                "skipped": lig.addon.runtime.cache.get(scene).skipped,
                "lines": [list(v) for v in lines[:2]], "bad": len(bad)})
    """)
    assert out["error"] is None and out["skipped"] == {}
    a, b = np.array(out["turns"]["a"]), np.array(out["turns"]["b"])
    assert a[-1] > 3.0, f"the motor turned A by only {a[-1]:.3f} rad in 2 s"
    err = abs(b[-1] + 2.0 * a[-1]) / (2.0 * a[-1])
    assert err < 0.005, f"B turned {b[-1]:.4f} rad, -2 x A is {-2 * a[-1]:.4f}"
    assert np.max(np.abs(b + 2.0 * a)) < 0.005 * 2.0 * a[-1]
    # The overlay's gear line joins the two hinges' anchors.
    assert np.allclose(out["lines"], [[0, 0, 1], [0.5, 0, 1]]) and out["bad"] == 0


def test_gear_refuses_a_joint_that_is_not_a_hinge_and_follows_a_skipped_hinge(blender):
    out = blender.run(GEARS, """
        ball = joint("Ball", 'BALL', post, plate_b, (0.6, 0, 1))
        # The picker's poll hides a ball joint from the Hinge B list ...
        refused = not lig.addon.ui.properties._poll_joint_b(g, ball)
        accepted = lig.addon.ui.properties._poll_joint_b(g, hb)
        # ... and a script that sets it anyway gets the gear skipped, saying why.
        g.joint_b = ball
        scene.frame_set(2)
        wrong = dict(lig.addon.runtime.cache.get(scene).skipped)
        # A gear whose hinge is skipped (its object B deleted) is skipped too, naming it.
        g.joint_b = hb
        hb.ligament_joint.object_b = None
        scene.frame_set(1)
        scene.frame_set(2)
        follows = dict(lig.addon.runtime.cache.get(scene).skipped)
        result({"refused": refused, "accepted": accepted, "wrong": wrong, "follows": follows,
                "error": lig.addon.runtime.cache.error(scene)})
    """)
    assert out["refused"] and out["accepted"]
    assert out["error"] is None
    assert list(out["wrong"]) == ["0 Gear"]
    assert "Hinge B 'Ball' is a ball joint, not a hinge" in out["wrong"]["0 Gear"]
    assert set(out["follows"]) == {"0 Gear", "Hinge B"}
    assert "Hinge B 'Hinge B' is not acting" in out["follows"]["0 Gear"]
    assert "object B is not set" in out["follows"]["0 Gear"], out["follows"]["0 Gear"]


def test_motor_with_a_ratio_from_radii_drives_wb_minus_ratio_wa(blender):
    out = blender.run(GEARS, """
        gear.ligament_joint.enabled = False
        belt = joint("Belt", 'MOTOR', plate_a, plate_b, (0.5, 0, 1), motor_velocity=0.5,
                     motor_max_force=50.0, ratio_mode='RADII', radius_a=0.3, radius_b=0.1)
        zs = []
        for f in range(1, 49):
            scene.frame_set(f)
            zs.append([plate_a.matrix_world.to_euler().z, plate_b.matrix_world.to_euler().z])
        result({"z": zs, "skipped": lig.addon.runtime.cache.get(scene).skipped})
    """)
    assert out["skipped"] == {}
    z = np.unwrap(np.array(out["z"]), axis=0)
    wa, wb = (z[-1] - z[-13]) * 24.0 / 12.0        # over the last half second
    assert abs(wa - 2.0) < 0.01, f"A spins at {wa:.4f} rad/s, its hinge motor at 2"
    assert abs(wb - 3.0 * wa - 0.5) < 0.01, f"wb - 3 wa = {wb - 3.0 * wa:.4f}, asked 0.5"


def test_rack_slides_the_pinion_radius_times_its_angle(blender):
    out = blender.run("""
        base = box("Base", (0.2, 0.2, 0.2), (0, 0, 0), kind='STATIC')
        pinion = box("Pinion", (0.2, 0.2, 0.05), (0, 0, 1))
        rack = box("Rack", (1.0, 0.05, 0.05), (0, -0.15, 1), mass=0.5)
        hinge = joint("Pinion Hinge", 'HINGE', base, pinion, (0, 0, 1), use_motor=True,
                      motor_velocity=1.0, motor_max_force=20.0)
        slider = joint("Rack Slider", 'PRISMATIC', base, rack, (0, -0.15, 1))
        rp = joint("Rack and Pinion", 'RACK_AND_PINION', None, None, (0, -0.1, 1),
                   joint_a=hinge, joint_b=slider, ratio_mode='RADII', radius_a=0.1)
        angles, slides, last = [0.0], [0.0], 0.0
        for f in range(2, 26):
            scene.frame_set(f)
            z = pinion.matrix_world.to_euler().z
            angles.append(angles[-1] + (z - last + math.pi) % (2 * math.pi) - math.pi)
            last = z
            slides.append(rack.matrix_world.translation.x)
        result({"angles": angles, "slides": slides, "skipped": lig.addon.runtime.cache.get(scene).skipped})
    """)
    assert out["skipped"] == {}
    angle, slide = np.array(out["angles"]), np.array(out["slides"])
    assert angle[-1] > 0.8, f"the pinion turned {angle[-1]:.3f} rad in 1 s"
    worst = np.max(np.abs(slide - 0.1 * angle))
    assert worst < 1e-4, f"slide and 0.1 m x angle differ by {1e3 * worst:.3f} mm"


def test_pulley_lift_accelerates_as_an_atwood_machine_and_holds_its_rope(blender):
    m1, m2 = 3.0, 1.0
    out = blender.run(f"""
        heavy = box("Heavy", (0.2, 0.2, 0.2), (0, 0, 2), mass={m1}, linear_damping=0.0)
        light = box("Light", (0.2, 0.2, 0.2), (1, 0, 2), mass={m2}, linear_damping=0.0)
        top_a = bpy.data.objects.new("Top A", None)
        top_b = bpy.data.objects.new("Top B", None)
        for obj, x in ((top_a, 0), (top_b, 1)):
            scene.collection.objects.link(obj)
            obj.location = (x, 0, 5)
        joint("Pulley", 'PULLEY', heavy, light, (0.5, 0, 5), fixed_a=top_a, fixed_b=top_b)
        zs, lengths = [], []
        for f in range(1, 25):
            scene.frame_set(f)
            pa, pb = heavy.matrix_world.translation, light.matrix_world.translation
            zs.append([pa.z, pb.z])
            lengths.append((pa - top_a.location).length + (pb - top_b.location).length)
        result({{"z": zs, "lengths": lengths, "skipped": lig.addon.runtime.cache.get(scene).skipped}})
    """)
    assert out["skipped"] == {}
    z = np.array(out["z"])
    t = np.arange(len(z)) / 24.0
    a1 = -2.0 * np.polyfit(t, z[:, 0], 2)[0]
    a2 = -2.0 * np.polyfit(t, z[:, 1], 2)[0]
    expected = G * (m1 - m2) / (m1 + m2)
    assert abs(a1 - expected) < 0.01 * expected, f"the heavy side falls at {a1:.4f} m/s^2"
    assert abs(a2 + expected) < 0.01 * expected, f"the light side rises at {-a2:.4f} m/s^2"
    stretch = np.max(np.abs(np.array(out["lengths"]) - out["lengths"][0]))
    assert stretch < 1e-3, f"the rope's length changed by {1e3 * stretch:.3f} mm"


def test_pulley_points_parented_to_a_body_ride_on_it_and_pull_it(blender):
    # A block and tackle on a beam: the rope's two points are empties parented to the ends of
    # a beam pivoted off-centre, so the equal rope tension at both ends turns it (the longer
    # arm down). The rope, measured from where the empties are shown each frame, keeps its
    # length: the points ride on the beam (fixed in the world, they would not follow it).
    out = blender.run("""
        post = box("Post", (0.1, 0.1, 0.1), (0.25, 0, 5.2), kind='STATIC')
        beam = box("Beam", (1.0, 0.1, 0.1), (0, 0, 5), mass=2.0, linear_damping=0.0,
                   angular_damping=0.0)
        joint("Pivot", 'HINGE', post, beam, (0.25, 0, 5), rotation=(math.pi / 2, 0, 0))
        heavy = box("Heavy", (0.2, 0.2, 0.2), (-0.5, 0, 3), mass=3.0, linear_damping=0.0)
        light = box("Light", (0.2, 0.2, 0.2), (0.5, 0, 3), mass=1.0, linear_damping=0.0)
        ends = []
        for name, x in (("End A", -0.5), ("End B", 0.5)):
            end = bpy.data.objects.new(name, None)
            scene.collection.objects.link(end)
            end.location = (x, 0, 5)
            end.parent = beam
            end.matrix_parent_inverse = beam.matrix_world.inverted()
            ends.append(end)
        pulley = joint("Pulley", 'PULLEY', heavy, light, (0, 0, 4), fixed_a=ends[0],
                       fixed_b=ends[1])
        carriers = [lig.addon.world.mechanisms.carrier(e) for e in ends]
        lengths, tilt = [], []
        for f in range(1, 25):
            scene.frame_set(f)
            bpy.context.view_layer.update()
            pa, pb = heavy.matrix_world.translation, light.matrix_world.translation
            fa, fb = (e.matrix_world.translation for e in ends)
            lengths.append((pa - fa).length + (pb - fb).length)
            tilt.append(fb.z - fa.z)
        result({"lengths": lengths, "tilt": tilt, "error": lig.addon.runtime.cache.error(scene),
                "skipped": lig.addon.runtime.cache.get(scene).skipped,
                "carriers": [c.name for c in carriers]})
    """)
    assert out["error"] is None and out["skipped"] == {}
    assert out["carriers"] == ["Beam", "Beam"]
    assert out["tilt"][-1] > 0.05, f"the beam did not turn: B's end {out['tilt'][-1]:.4f} m " \
        "above A's after 1 s (the rope pulls the longer arm down)"
    stretch = np.max(np.abs(np.array(out["lengths"]) - out["lengths"][0]))
    assert stretch < 1e-3, f"the rope over the moving points changed by {1e3 * stretch:.3f} mm"


CAR = """
    box("Ground", (40, 10, 1), (0, 0, -0.5), kind='STATIC', friction=1.0)
    chassis = box("Chassis", (2.0, 1.0, 0.2), (0, 0, 0.55), mass=100.0, friction=1.0)
    wheels = []
    for x in (-0.7, 0.7):
        for y in (-0.65, 0.65):
            # A cylinder on its side: its axis (local Z) along world -Y.
            bpy.ops.mesh.primitive_cylinder_add(radius=0.3, depth=0.15, location=(x, y, 0.3),
                                                rotation=(math.pi / 2, 0, 0))
            wheel = bpy.context.active_object
            wheel.ligament_body.enabled = True
            wheel.ligament_body.mass, wheel.ligament_body.friction = 5.0, 1.0
            # The empty turned like the wheel: axle local Z along -Y, suspension local Y up.
            joint(f"Wheel {x} {y}", 'WHEEL', chassis, wheel, (x, y, 0.3),
                  rotation=(math.pi / 2, 0, 0), use_limit_lin=True, limit_lin_lower=-0.1,
                  limit_lin_upper=0.1, use_spring=True, spring_frequency=10.0,
                  spring_damping=0.7, use_motor=DRIVEN, motor_velocity=5.0,
                  motor_max_force=100.0)
            wheels.append(wheel)
    xs, zs = [], []
    for f in range(1, 73):
        scene.frame_set(f)
        xs.append(chassis.matrix_world.translation.x)
        zs.append(chassis.matrix_world.translation.z)
    lines, bad = lig.addon.ui.overlay.overlay_lines(scene.objects["Wheel -0.7 -0.65"])
    result({"x": xs, "z": zs, "skipped": lig.addon.runtime.cache.get(scene).skipped,
            "wheel_z": [w.matrix_world.translation.z for w in wheels],
            "lines": [list(v) for v in lines], "bad": len(bad)})
"""


def test_wheel_suspension_holds_the_parked_car_up_on_its_springs(blender):
    out = blender.run("DRIVEN = False", CAR)
    assert out["skipped"] == {}
    z = np.array(out["z"])
    # The chassis sinks on its stiff springs, clear of the bottom of the 0.1 m travel, and
    # settles there.
    assert 0.55 - 0.09 < z[-1] < 0.55, f"the chassis ended at z = {z[-1]:.4f}"
    assert np.ptp(z[-12:]) < 1e-3, "the chassis still bounces after 3 s"
    assert np.allclose(out["wheel_z"], 0.3, atol=0.01), "the wheels left the ground"
    assert abs(out["x"][-1]) < 1e-3, "a parked car rolled"
    # The overlay: lines to both bodies, then the axle along -Y and the suspension along Z.
    axle = np.subtract(out["lines"][5], out["lines"][4])
    suspension = np.subtract(out["lines"][7], out["lines"][6])
    assert abs(axle[1]) > 0.99 * np.linalg.norm(axle) and out["bad"] == 0
    assert abs(suspension[2]) > 0.99 * np.linalg.norm(suspension)


def test_car_driven_on_its_wheel_motors_moves_at_w_r(blender):
    out = blender.run("DRIVEN = True", CAR)
    assert out["skipped"] == {}
    x = np.array(out["x"])
    v = (x[-1] - x[-25]) * 24.0 / 24.0
    # Spin +5 rad/s about the axle, world -Y: the wheels roll the car toward -X at w r.
    assert abs(v + 5.0 * 0.3) < 0.02 * 1.5, f"the car moves at {v:.4f} m/s, w r = -1.5"


def test_line_joint_body_slides_down_the_sloped_line_at_g_sin_slope(blender):
    slope = math.radians(30)
    out = blender.run(f"""
        post = box("Post", (0.1, 0.1, 0.1), (0, 0, 3), kind='STATIC')
        bead = box("Bead", (0.1, 0.1, 0.1), (0, 0, 2), shape='SPHERE', linear_damping=0.0)
        # Local X of the empty turned down by the slope about Y.
        joint("Line", 'LINE', post, bead, (0, 0, 2), rotation=(0, {slope}, 0))
        ps = []
        for f in range(1, 25):
            scene.frame_set(f)
            ps.append(list(bead.matrix_world.translation))
        result({{"p": ps, "skipped": lig.addon.runtime.cache.get(scene).skipped}})
    """)
    assert out["skipped"] == {}
    p = np.array(out["p"]) - (0, 0, 2)
    along = np.array([math.cos(slope), 0.0, -math.sin(slope)])
    s = p @ along
    off = np.linalg.norm(p - np.outer(s, along), axis=1)
    t = np.arange(len(s)) / 24.0
    a = 2.0 * np.polyfit(t, s, 2)[0]
    assert off.max() < 1e-3, f"the bead left the line by {1e3 * off.max():.3f} mm"
    assert abs(a - G * math.sin(slope)) < 0.01 * G * math.sin(slope), f"a = {a:.4f} m/s^2"


def test_bead_on_a_bezier_circle_curve_stays_on_it(blender):
    out = blender.run("""
        # A Bezier circle of radius 1 standing in the XZ plane around (0, 0, 2); the bead
        # starts on it at the side and swings through the bottom to the other side.
        bpy.ops.curve.primitive_bezier_circle_add(radius=1.0, location=(0, 0, 2),
                                                  rotation=(math.pi / 2, 0, 0))
        wire = bpy.context.active_object
        bead = box("Bead", (0.05, 0.05, 0.05), (1, 0, 2), shape='SPHERE', mass=0.1)
        joint("Path", 'PATH', None, bead, (1, 0, 2), curve=wire)
        off, ps = [], []
        for f in range(1, 49):
            scene.frame_set(f)
            p = bead.matrix_world.translation
            off.append(abs(math.hypot(p.x, p.z - 2) - 1.0) + abs(p.y))
            ps.append(list(p))
        lines, bad = lig.addon.ui.overlay.overlay_lines(scene.objects["Path"])
        # Editing the curve's points drops the simulation: the next frame rebuilds it.
        builds = lig.addon.runtime.simulation.stats["builds"]
        wire.data.splines[0].bezier_points[0].co.x += 0.2
        scene.frame_set(10)
        result({"off": off, "p": ps, "skipped": lig.addon.runtime.cache.get(scene).skipped,
                "segments": len(lines) // 2, "bad": len(bad),
                "rebuilt": lig.addon.runtime.simulation.stats["builds"] - builds})
    """)
    assert out["skipped"] == {}
    p = np.array(out["p"])
    assert p[:, 2].min() < 1.02, "the bead did not reach the bottom of the wire"
    assert p[:, 0].min() < -0.9, "the bead did not swing up the other side"
    assert max(out["off"]) < 3e-3, f"the bead left the wire by {1e3 * max(out['off']):.2f} mm"
    # The overlay draws the closed curve (4 Bezier segments sampled) and the line to the bead.
    assert out["segments"] == 4 * 64 + 1 and out["bad"] == 0
    assert out["rebuilt"] == 1


def test_add_joint_builds_each_mechanism_from_the_selection(blender):
    out = blender.run("""
        def select(*objs):
            bpy.ops.object.select_all(action='DESELECT')
            for o in objs:
                o.select_set(True)
            bpy.context.view_layer.objects.active = objs[-1]

        post = box("Post", (0.1, 0.1, 0.1), (0.25, 0, 0), kind='STATIC')
        plate_a = box("Plate A", (0.4, 0.4, 0.05), (0, 0, 1), mass=2.0)
        plate_b = box("Plate B", (0.2, 0.2, 0.05), (0.5, 0, 1), mass=1.0)
        ha = joint("Hinge A", 'HINGE', post, plate_a, (0, 0, 1))
        hb = joint("Hinge B", 'HINGE', post, plate_b, (0.5, 0, 1))
        out = {}
        select(plate_a, plate_b)
        try:
            out["gear_on_bodies"] = list(bpy.ops.ligament.add_joint(type='GEAR'))
        except RuntimeError as exc:       # the operator's error report
            out["gear_on_bodies"] = str(exc)
        select(ha, hb)
        bpy.ops.ligament.add_joint(type='GEAR')
        gear = next(o for o in scene.objects if o.ligament_joint.type == 'GEAR')
        g = gear.ligament_joint
        out["gear"] = [g.joint_a.name, g.joint_b.name]
        bpy.context.view_layer.objects.active = gear
        bpy.ops.ligament.measure_radii()
        out["radii"] = [g.radius_a, g.radius_b, g.ratio_mode]

        bpy.ops.curve.primitive_bezier_circle_add(radius=1.0, location=(3, 0, 2),
                                                  rotation=(math.pi / 2, 0, 0))
        wire = bpy.context.active_object
        bead = box("Bead", (0.05, 0.05, 0.05), (4, 0, 2), shape='SPHERE')
        select(bead, wire)              # either one active
        bpy.ops.ligament.add_joint(type='PATH')
        path = next(o for o in scene.objects if o.ligament_joint.type == 'PATH')
        out["path"] = [path.ligament_joint.curve.name, path.ligament_joint.object_b.name,
                       list(path.location)]

        heavy = box("Heavy", (0.2, 0.2, 0.2), (-3, 0, 2), mass=3.0)
        light = box("Light", (0.2, 0.2, 0.2), (-2, 0, 2))
        select(heavy, light)
        bpy.ops.ligament.add_joint(type='PULLEY')
        pulley = next(o for o in scene.objects if o.ligament_joint.type == 'PULLEY')
        pj = pulley.ligament_joint
        out["pulley"] = [list(pj.fixed_a.location), list(pj.fixed_b.location)]

        bpy.ops.mesh.primitive_cylinder_add(radius=0.3, depth=0.15, location=(0, 3, 0.3),
                                            rotation=(math.pi / 2, 0, 0))
        wheel = bpy.context.active_object
        wheel.ligament_body.enabled = True
        chassis = box("Chassis", (1, 0.5, 0.2), (0, 2.4, 0.55))
        select(chassis, wheel)
        bpy.ops.ligament.add_joint(type='WHEEL')
        wj = next(o for o in scene.objects if o.ligament_joint.type == 'WHEEL')
        m = wj.matrix_world
        out["wheel"] = [list(m.translation), list(m.col[2].xyz), list(m.col[1].xyz),
                        wj.ligament_joint.use_spring]
        for f in range(1, 4):
            scene.frame_set(f)
        out["skipped"] = lig.addon.runtime.cache.get(scene).skipped
        out["error"] = lig.addon.runtime.cache.error(scene)
        result(out)
    """)
    assert "Select two hinge joint empties" in str(out["gear_on_bodies"])
    assert out["gear"] == ["Hinge A", "Hinge B"]
    # The plates' corners about their hinge axes: half the diagonal of 0.4 and 0.2 m squares.
    assert np.allclose(out["radii"][:2], [0.2 * math.sqrt(2), 0.1 * math.sqrt(2)], rtol=1e-4)
    assert out["radii"][2] == 'RADII'
    assert out["path"][1] == "Bead" and np.allclose(out["path"][2], (4, 0, 2))
    fa, fb = np.array(out["pulley"])
    assert np.allclose(fa[:2], (-3, 0)) and np.allclose(fb[:2], (-2, 0)) and fa[2] > 2.5
    position, axle, suspension, sprung = out["wheel"]
    assert np.allclose(position, (0, 3, 0.3), atol=1e-6) and sprung
    assert abs(abs(axle[1]) - 1) < 1e-6 and abs(suspension[2] - 1) < 1e-6
    assert out["error"] is None and out["skipped"] == {}


def test_a_path_follows_its_curve_moved_by_keys_or_shape_keys_and_a_static_one_is_not_read(
        blender):
    slope = math.radians(30)
    out = blender.run(f"""
        bpy.context.preferences.edit.keyframe_new_interpolation_type = 'LINEAR'

        def wire(name, y, ends):
            # A Poly curve through `ends` (its own coordinates), at y in the world.
            data = bpy.data.curves.new(name, 'CURVE')
            data.dimensions = '3D'
            sp = data.splines.new('POLY')
            sp.points.add(len(ends) - 1)
            for p, co in zip(sp.points, ends):
                p.co = (*co, 1.0)
            obj = bpy.data.objects.new(name, data)
            scene.collection.objects.link(obj)
            obj.location = (0, y, 0)
            return obj

        level = [(-2, 0, 2), (2, 0, 2)]
        # Lifted 1 m between frames 1 and 25 by the object's location keys.
        moved = wire("Moved", 0, level)
        moved.keyframe_insert("location", index=2, frame=1)
        moved.location.z = 1.0
        moved.keyframe_insert("location", index=2, frame=25)
        # Lifted 1 m by a shape key whose value is keyed 0 -> 1 over the same frames.
        shaped = wire("Shaped", 4, level)
        shaped.shape_key_add(name="Basis")
        up = shaped.shape_key_add(name="Up")
        for p in up.data:
            p.co.z += 1.0
        up.value = 0.0
        up.keyframe_insert("value", frame=1)
        up.value = 1.0
        up.keyframe_insert("value", frame=25)
        # At rest: a wire sloping down toward +X.
        c, s = math.cos({slope}), math.sin({slope})
        still = wire("Still", 8, [(-2 * c, 0, 2 + 2 * s), (2 * c, 0, 2 - 2 * s)])
        beads = {{}}
        for curve in (moved, shaped, still):
            y = curve.location.y
            bead = box(f"Bead {{curve.name}}", (0.05, 0.05, 0.05), (0, y, 2), shape='SPHERE',
                       mass=0.1, linear_damping=0.0)
            joint(f"Path {{curve.name}}", 'PATH', None, bead, (0, y, 2), curve=curve)
            beads[curve.name] = bead
        scene.frame_set(1)
        sim = lig.addon.runtime.cache.get(scene)
        modes = {{p[2].name: p[4] for p in sim.inputs.paths}}
        ps = {{name: [] for name in beads}}
        lifts = {{"Moved": [], "Shaped": []}}
        for f in range(1, 37):
            scene.frame_set(f)
            for name, bead in beads.items():
                ps[name].append(list(bead.matrix_world.translation))
            # where the wires are at this frame, as Blender evaluates them
            lifts["Moved"].append(moved.matrix_world.translation.z)
            lifts["Shaped"].append(up.value)
        result({{"p": ps, "lifts": lifts, "modes": modes, "skipped": lig.addon.runtime.cache.get(scene).skipped,
                 "error": lig.addon.runtime.cache.error(scene), "same_sim": lig.addon.runtime.cache.get(scene) is sim,
                 "panel": [lig.addon.scene.curves.curve_motion(c) for c in (moved, shaped, still)]}})
    """)
    assert out["error"] is None and out["skipped"] == {}
    assert out["same_sim"], "following the curves dropped the simulation"
    # Only the animated curves are read every frame, each the way its change needs.
    assert out["modes"] == {"Moved": 'TRANSFORM', "Shaped": 'SPLINE'}
    assert out["panel"] == ['TRANSFORM', 'SPLINE', None]
    frames = np.arange(1, 37)
    for name, y in (("Moved", 0.0), ("Shaped", 4.0)):
        p = np.array(out["p"][name])
        lift = np.array(out["lifts"][name])
        assert lift[0] == 0.0 and abs(lift[-1] - 1.0) < 1e-6 and 0.1 < lift[12] < 0.9
        off = np.abs(p[:, 2] - (2.0 + lift)) + np.abs(p[:, 1] - y)
        assert off.max() < 1e-3, f"{name}: the bead was off its moving wire by " \
                                 f"{1e3 * off.max():.3f} mm"
        assert np.abs(p[:, 0]).max() < 1e-3, f"{name}: the bead slid along a level wire"
    # The bead on the wire at rest slides down it at g sin(slope), as on a fixed path.
    p = np.array(out["p"]["Still"])[:19] - (0, 8, 2)   # 0.75 s: before the wire's end
    along = np.array([math.cos(slope), 0.0, -math.sin(slope)])
    s_ = p @ along
    t = (frames[:19] - 1) / 24.0
    assert np.linalg.norm(p - np.outer(s_, along), axis=1).max() < 1e-3
    a = 2.0 * np.polyfit(t, s_, 2)[0]
    assert abs(a - G * math.sin(slope)) < 0.01 * G * math.sin(slope), f"a = {a:.4f} m/s^2"


STEERED = """
    bpy.context.preferences.edit.keyframe_new_interpolation_type = 'LINEAR'
    box("Ground", (60, 60, 1), (0, 0, -0.5), kind='STATIC', friction=1.0)
    cars = {}
    for name, y in (("Keyed", -6.0), ("Driven", 6.0)):
        chassis = box(f"Chassis {name}", (2.0, 1.0, 0.2), (0, y, 0.55), mass=100.0)
        for x in (-0.7, 0.7):
            for side in (-0.65, 0.65):
                bpy.ops.mesh.primitive_cylinder_add(radius=0.3, depth=0.15,
                                                    location=(x, y + side, 0.3),
                                                    rotation=(math.pi / 2, 0, 0))
                wheel = bpy.context.active_object
                wheel.name = f"Wheel {name} {x} {side}"
                wheel.ligament_body.enabled = True
                wheel.ligament_body.mass, wheel.ligament_body.friction = 5.0, 1.0
                # The car runs toward -X: x = -0.7 is the front axle (steered, free). The
                # rear wheels are driven by equal torques (motors that never reach their
                # speed), an open differential: same-speed motors would lock the axle and
                # scrub the turn.
                front = x < 0
                e = joint(f"Wheel {name} {x} {side}", 'WHEEL', chassis, wheel,
                          (x, y + side, 0.3), rotation=(math.pi / 2, 0, 0),
                          use_limit_lin=True, limit_lin_lower=-0.1, limit_lin_upper=0.1,
                          use_spring=True, spring_frequency=10.0, spring_damping=0.7,
                          use_motor=not front, motor_velocity=50.0, motor_max_force=6.0)
                if not front:
                    continue
                js = e.ligament_joint
                # Ackermann angles for a bicycle steered by DELTA: each front wheel square
                # to the line from the turn's centre (both at DELTA, the tyres scrub and
                # the car turns some 6 % less)
                target = math.atan(1.4 / (1.4 / math.tan(DELTA) + side))
                if name == "Keyed":     # straight for 1 s, turned over 0.25 s
                    for f, angle in ((1, 0.0), (25, 0.0), (31, target)):
                        js.steering = angle
                        js.keyframe_insert("steering", frame=f)
                else:                   # the same angles from a driver on the frame
                    d = js.driver_add("steering").driver
                    d.expression = f"min(max((frame - 25) / 6, 0), 1) * {target}"
        cars[name] = chassis
"""


def test_keyed_or_driven_steering_turns_the_car_as_the_bicycle_model_says(blender):
    """Steering keyed (or driven) after a second of driving straight: the heading turns at
    v tan(delta) / wheelbase, the kinematic bicycle model, with the rear axle's speed v."""
    delta = 0.15
    wheelbase = 1.4
    out = blender.run(f"DELTA = {delta}", STEERED, """
        def rear_and_yaw(chassis):
            m = chassis.matrix_world
            return list(m @ Vector((0.7, 0.0, -0.25))), m.to_euler().z

        track = {name: [] for name in cars}
        for f in range(1, 97):
            scene.frame_set(f)
            for name, chassis in cars.items():
                track[name].append(rear_and_yaw(chassis))
        live = {name: [list(c.matrix_world.translation), c.matrix_world.to_euler().z]
                for name, c in cars.items()}
        # The bake simulates from scratch without visiting the frames: keys and drivers are
        # read at each simulated frame all the same.
        scene.frame_set(1)
        lig.addon.runtime.cache.invalidate(scene)
        lig.addon.baking.bake.bake(scene, 1, 96)
        scene.frame_set(96)
        baked = {name: [list(c.matrix_world.translation), c.matrix_world.to_euler().z]
                 for name, c in cars.items()}
        result({"track": track, "live": live, "baked": baked,
                "skipped": lig.addon.baking.bake.last_simulation(scene).skipped,
                "inputs": len(lig.addon.baking.bake.last_simulation(scene).inputs.wheels)})
    """)
    assert out["skipped"] == {} and out["inputs"] == 4
    for name in ("Keyed", "Driven"):
        rear = np.array([r for r, _ in out["track"][name]])
        yaw = np.unwrap([z for _, z in out["track"][name]])
        speed = np.linalg.norm(np.diff(rear[:, :2], axis=0), axis=1) * 24.0
        # Straight for the first second, then the yaw turns at v tan(delta) / wheelbase
        # (the rear axle's speed v); compared over the last two seconds, steering held.
        assert abs(yaw[24] - yaw[0]) < 0.01, f"{name} turned before it was steered"
        held = slice(48, 95)
        expected = np.sum(speed[held] * math.tan(delta) / wheelbase) / 24.0
        turned = yaw[96 - 1] - yaw[48]
        assert speed[held].mean() > 0.5, f"{name} moves at only {speed[held].mean():.3f} m/s"
        print(f"{name} steering: heading turned {turned:.4f} rad, bicycle model "
              f"{expected:.4f} ({100 * (turned / expected - 1):+.2f} %)")
        assert abs(turned - expected) < 0.05 * abs(expected), \
            f"{name}: the heading turned {turned:.4f} rad, the bicycle model {expected:.4f}"
    # The driver gives the keyed angles: both cars drive the same arc.
    assert abs(out["live"]["Keyed"][1] - out["live"]["Driven"][1]) < 1e-3
    for name in ("Keyed", "Driven"):
        assert np.allclose(out["baked"][name][0], out["live"][name][0], atol=1e-4), name
        assert abs(out["baked"][name][1] - out["live"][name][1]) < 1e-4, name
