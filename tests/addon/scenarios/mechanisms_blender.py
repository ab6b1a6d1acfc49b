"""test_mechanisms_blender.py's scenarios: mechanism joints built from empties (gears, a
motor with a ratio, rack and pinion, pulleys, wheels and steering, line and path joints)."""

import math

import bpy
from mathutils import Vector

from .helpers import box, joint, lig


def gears():
    """Two plates on vertical hinges to a static post; A driven by its motor, B geared to A
    by teeth counts 20:10. The gear empty is made first, so a build in scene order would
    meet it before its hinges. {name: object}."""
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
    return {"gear": gear, "post": post, "plate_a": plate_a, "plate_b": plate_b,
            "ha": ha, "hb": hb}


def gear_turns():
    """The geared plates over 2 s: each plate's accumulated turn per frame, and the gear's
    overlay lines."""
    scene = bpy.context.scene
    addon = lig().addon
    s = gears()
    turns = {"a": [0.0], "b": [0.0]}
    last = {"a": 0.0, "b": 0.0}
    for f in range(2, 50):
        scene.frame_set(f)
        for key, obj in (("a", s["plate_a"]), ("b", s["plate_b"])):
            z = obj.matrix_world.to_euler().z
            turns[key].append(turns[key][-1] + (z - last[key] + math.pi) % (2 * math.pi)
                              - math.pi)
            last[key] = z
    lines, bad = addon.ui.overlay.overlay_lines(s["gear"])
    return {"turns": turns, "error": addon.runtime.cache.error(scene),
            "skipped": addon.runtime.cache.get(scene).skipped,
            "lines": [list(v) for v in lines[:2]], "bad": len(bad)}


def gear_on_a_wrong_or_skipped_joint():
    """The gear's Hinge B picker given a ball joint, then the gear's hinge B losing its
    object B: the picker's answers and what the build skips each time."""
    scene = bpy.context.scene
    addon = lig().addon
    s = gears()
    g, hb = s["gear"].ligament_joint, s["hb"]
    ball = joint("Ball", 'BALL', s["post"], s["plate_b"], (0.6, 0, 1))
    # The picker's poll hides a ball joint from the Hinge B list ...
    refused = not addon.ui.properties._poll_joint_b(g, ball)
    accepted = addon.ui.properties._poll_joint_b(g, hb)
    # ... and a script that sets it anyway gets the gear skipped, saying why.
    g.joint_b = ball
    scene.frame_set(2)
    wrong = dict(addon.runtime.cache.get(scene).skipped)
    # A gear whose hinge is skipped (its object B deleted) is skipped too, naming it.
    g.joint_b = hb
    hb.ligament_joint.object_b = None
    scene.frame_set(1)
    scene.frame_set(2)
    follows = dict(addon.runtime.cache.get(scene).skipped)
    return {"refused": refused, "accepted": accepted, "wrong": wrong, "follows": follows,
            "error": addon.runtime.cache.error(scene)}


def motor_with_radii():
    """The gear off, a MOTOR joint between the plates at 0.5 rad/s with radii 0.3 and 0.1:
    both plates' angles over 2 s."""
    scene = bpy.context.scene
    s = gears()
    s["gear"].ligament_joint.enabled = False
    joint("Belt", 'MOTOR', s["plate_a"], s["plate_b"], (0.5, 0, 1), motor_velocity=0.5,
          motor_max_force=50.0, ratio_mode='RADII', radius_a=0.3, radius_b=0.1)
    zs = []
    for f in range(1, 49):
        scene.frame_set(f)
        zs.append([s["plate_a"].matrix_world.to_euler().z,
                   s["plate_b"].matrix_world.to_euler().z])
    return {"z": zs, "skipped": lig().addon.runtime.cache.get(scene).skipped}


def rack_and_pinion():
    """A motor-driven pinion (radius 0.1) and a rack on a slider coupled by a rack and
    pinion joint, 1 s: the pinion's accumulated angle and the rack's x per frame."""
    scene = bpy.context.scene
    base = box("Base", (0.2, 0.2, 0.2), (0, 0, 0), kind='STATIC')
    pinion = box("Pinion", (0.2, 0.2, 0.05), (0, 0, 1))
    rack = box("Rack", (1.0, 0.05, 0.05), (0, -0.15, 1), mass=0.5)
    hinge = joint("Pinion Hinge", 'HINGE', base, pinion, (0, 0, 1), use_motor=True,
                  motor_velocity=1.0, motor_max_force=20.0)
    slider = joint("Rack Slider", 'PRISMATIC', base, rack, (0, -0.15, 1))
    joint("Rack and Pinion", 'RACK_AND_PINION', None, None, (0, -0.1, 1),
          joint_a=hinge, joint_b=slider, ratio_mode='RADII', radius_a=0.1)
    angles, slides, last = [0.0], [0.0], 0.0
    for f in range(2, 26):
        scene.frame_set(f)
        z = pinion.matrix_world.to_euler().z
        angles.append(angles[-1] + (z - last + math.pi) % (2 * math.pi) - math.pi)
        last = z
        slides.append(rack.matrix_world.translation.x)
    return {"angles": angles, "slides": slides,
            "skipped": lig().addon.runtime.cache.get(scene).skipped}


def atwood_pulley(m1, m2):
    """Masses `m1` and `m2` on a pulley over two points 3 m above them, 1 s: their heights
    and the rope's length per frame."""
    scene = bpy.context.scene
    heavy = box("Heavy", (0.2, 0.2, 0.2), (0, 0, 2), mass=m1, linear_damping=0.0)
    light = box("Light", (0.2, 0.2, 0.2), (1, 0, 2), mass=m2, linear_damping=0.0)
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
    return {"z": zs, "lengths": lengths, "skipped": lig().addon.runtime.cache.get(scene).skipped}


def pulley_on_a_pivoted_beam():
    """A block and tackle whose rope points are empties parented to the ends of a beam
    pivoted off-centre, 1 s: the rope's length over the points as shown, the beam's tilt,
    the points' carriers."""
    scene = bpy.context.scene
    addon = lig().addon
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
    joint("Pulley", 'PULLEY', heavy, light, (0, 0, 4), fixed_a=ends[0], fixed_b=ends[1])
    carriers = [addon.world.mechanisms.carrier(e) for e in ends]
    lengths, tilt = [], []
    for f in range(1, 25):
        scene.frame_set(f)
        bpy.context.view_layer.update()
        pa, pb = heavy.matrix_world.translation, light.matrix_world.translation
        fa, fb = (e.matrix_world.translation for e in ends)
        lengths.append((pa - fa).length + (pb - fb).length)
        tilt.append(fb.z - fa.z)
    return {"lengths": lengths, "tilt": tilt, "error": addon.runtime.cache.error(scene),
            "skipped": addon.runtime.cache.get(scene).skipped,
            "carriers": [c.name for c in carriers]}


def car(driven):
    """A 100 kg chassis on four sprung wheel joints (their motors on if `driven`), 3 s:
    the chassis's x and z per frame, the wheels' heights, one wheel joint's overlay lines."""
    scene = bpy.context.scene
    addon = lig().addon
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
                  spring_damping=0.7, use_motor=driven, motor_velocity=5.0,
                  motor_max_force=100.0)
            wheels.append(wheel)
    xs, zs = [], []
    for f in range(1, 73):
        scene.frame_set(f)
        xs.append(chassis.matrix_world.translation.x)
        zs.append(chassis.matrix_world.translation.z)
    lines, bad = addon.ui.overlay.overlay_lines(scene.objects["Wheel -0.7 -0.65"])
    return {"x": xs, "z": zs, "skipped": addon.runtime.cache.get(scene).skipped,
            "wheel_z": [w.matrix_world.translation.z for w in wheels],
            "lines": [list(v) for v in lines], "bad": len(bad)}


def bead_on_a_sloped_line(slope):
    """A bead on a LINE joint whose local X is turned down by `slope` (rad), 1 s: its
    position per frame."""
    scene = bpy.context.scene
    post = box("Post", (0.1, 0.1, 0.1), (0, 0, 3), kind='STATIC')
    bead = box("Bead", (0.1, 0.1, 0.1), (0, 0, 2), shape='SPHERE', linear_damping=0.0)
    # Local X of the empty turned down by the slope about Y.
    joint("Line", 'LINE', post, bead, (0, 0, 2), rotation=(0, slope, 0))
    ps = []
    for f in range(1, 25):
        scene.frame_set(f)
        ps.append(list(bead.matrix_world.translation))
    return {"p": ps, "skipped": lig().addon.runtime.cache.get(scene).skipped}


def bead_on_a_bezier_circle():
    """A bead on a PATH joint along a Bezier circle of radius 1 standing in the XZ plane
    around (0, 0, 2), released at its side, 2 s: how far off the circle it is and where,
    the overlay's segments, and the builds after a point of the curve is edited."""
    scene = bpy.context.scene
    addon = lig().addon
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
    lines, bad = addon.ui.overlay.overlay_lines(scene.objects["Path"])
    # Editing the curve's points drops the simulation: the next frame rebuilds it.
    builds = addon.runtime.simulation.stats["builds"]
    wire.data.splines[0].bezier_points[0].co.x += 0.2
    scene.frame_set(10)
    return {"off": off, "p": ps, "skipped": addon.runtime.cache.get(scene).skipped,
            "segments": len(lines) // 2, "bad": len(bad),
            "rebuilt": addon.runtime.simulation.stats["builds"] - builds}


def add_joint_for_each_mechanism():
    """Add Joint of each mechanism type from a selection: a gear on two bodies (refused) and
    on two hinges (with Measure Radii), a path, a pulley, a wheel; three frames played."""
    scene = bpy.context.scene
    addon = lig().addon

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
    out["skipped"] = addon.runtime.cache.get(scene).skipped
    out["error"] = addon.runtime.cache.error(scene)
    return out


def paths_on_moving_curves(slope):
    """Beads on PATH joints along three Poly wires: one lifted 1 m by its location keys,
    one by a keyed shape key, one at rest sloping down by `slope` (rad); 36 frames: the
    beads' positions, the wires' lifts, how the build reads each curve."""
    scene = bpy.context.scene
    addon = lig().addon
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
    c, s = math.cos(slope), math.sin(slope)
    still = wire("Still", 8, [(-2 * c, 0, 2 + 2 * s), (2 * c, 0, 2 - 2 * s)])
    beads = {}
    for curve in (moved, shaped, still):
        y = curve.location.y
        bead = box(f"Bead {curve.name}", (0.05, 0.05, 0.05), (0, y, 2), shape='SPHERE',
                   mass=0.1, linear_damping=0.0)
        joint(f"Path {curve.name}", 'PATH', None, bead, (0, y, 2), curve=curve)
        beads[curve.name] = bead
    scene.frame_set(1)
    sim = addon.runtime.cache.get(scene)
    modes = {p[2].name: p[4] for p in sim.inputs.paths}
    ps = {name: [] for name in beads}
    lifts = {"Moved": [], "Shaped": []}
    for f in range(1, 37):
        scene.frame_set(f)
        for name, bead in beads.items():
            ps[name].append(list(bead.matrix_world.translation))
        # where the wires are at this frame, as Blender evaluates them
        lifts["Moved"].append(moved.matrix_world.translation.z)
        lifts["Shaped"].append(up.value)
    return {"p": ps, "lifts": lifts, "modes": modes,
            "skipped": addon.runtime.cache.get(scene).skipped,
            "error": addon.runtime.cache.error(scene),
            "same_sim": addon.runtime.cache.get(scene) is sim,
            "panel": [addon.scene.curves.curve_motion(c) for c in (moved, shaped, still)]}


def steered_cars(delta):
    """Two cars driven by their rear wheels' equal torques toward -X, their front wheels
    steered to the Ackermann angles for `delta` after a second: keyed on one, driven by a
    driver on the other. Per frame each car's rear axle point and yaw over 4 s, and their
    poses at the end live and after a bake from scratch."""
    scene = bpy.context.scene
    addon = lig().addon
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
                # Ackermann angles for a bicycle steered by delta: each front wheel square
                # to the line from the turn's centre (both at delta, the tyres scrub and
                # the car turns some 6 % less)
                target = math.atan(1.4 / (1.4 / math.tan(delta) + side))
                if name == "Keyed":     # straight for 1 s, turned over 0.25 s
                    for f, angle in ((1, 0.0), (25, 0.0), (31, target)):
                        js.steering = angle
                        js.keyframe_insert("steering", frame=f)
                else:                   # the same angles from a driver on the frame
                    d = js.driver_add("steering").driver
                    d.expression = f"min(max((frame - 25) / 6, 0), 1) * {target}"
        cars[name] = chassis

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
    addon.runtime.cache.invalidate(scene)
    addon.baking.bake.bake(scene, 1, 96)
    scene.frame_set(96)
    baked = {name: [list(c.matrix_world.translation), c.matrix_world.to_euler().z]
             for name, c in cars.items()}
    return {"track": track, "live": live, "baked": baked,
            "skipped": addon.baking.bake.last_simulation(scene).skipped,
            "inputs": len(addon.baking.bake.last_simulation(scene).inputs.wheels)}
