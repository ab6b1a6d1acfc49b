#!/usr/bin/env python3
"""The mechanism joints (issue 14) inside real Blender (the bpy 5.0.1 wheel): a gear train of
three wheels driven by a hinge motor, a car on four sprung wheels rolling down a ramp, a lift
and its counterweight on a pulley, and two beads on cycloid wires (the tautochrone: released
from different heights, they reach the bottom together). Everything is set up the way a user
does it, with joint empties; the script simulates 5 s, prints how each mechanism did against
its mechanics, and saves build/mechanisms.blend (open it in Blender 4.2+ and press play).

    .venv/bench/bin/python tools/mechanisms_demo.py

Not part of the test suite (it builds and installs the extension, a minute or two).
"""

import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from demo import BUILD, install  # noqa: E402  (the same install as demo.py)

G = 9.81
FPS = 24
FRAMES = 120


def main():
    bpy, lig = install()
    from mathutils import Euler, Matrix, Vector
    scene = bpy.context.scene
    scene.render.fps = FPS
    scene.frame_start, scene.frame_end = 1, FRAMES
    world = scene.ligament_world
    world.frame_start, world.frame_end = 1, FRAMES

    def body(obj, name, kind="DYNAMIC", **settings):
        obj.name = name
        s = obj.ligament_body
        s.enabled, s.kind = True, kind
        for key, value in settings.items():
            setattr(s, key, value)
        return obj

    def box(name, size, matrix, kind="DYNAMIC", **settings):
        bpy.ops.mesh.primitive_cube_add(size=1)
        obj = bpy.context.active_object
        obj.matrix_world = matrix @ Matrix.Diagonal((*size, 1.0))
        return body(obj, name, kind, **settings)

    def cylinder(name, radius, depth, matrix, **settings):
        bpy.ops.mesh.primitive_cylinder_add(radius=radius, depth=depth, vertices=48)
        obj = bpy.context.active_object
        obj.matrix_world = matrix
        return body(obj, name, **settings)

    def empty(name, matrix, display="ARROWS", size=0.2):
        e = bpy.data.objects.new(name, None)
        scene.collection.objects.link(e)
        e.matrix_world = matrix
        e.empty_display_type, e.empty_display_size = display, size
        return e

    def joint(name, type, a, b, matrix, **settings):
        e = empty(name, matrix)
        j = e.ligament_joint
        j.type, j.object_a, j.object_b = type, a, b
        for key, value in settings.items():
            setattr(j, key, value)
        j.enabled = True
        return e

    T = Matrix.Translation
    upright = Euler((math.pi / 2, 0, 0)).to_matrix().to_4x4()   # local Z along world -Y
    still = dict(linear_damping=0.0, angular_damping=0.0)

    # --- 1. Gear train: A (40 teeth) driven at 1 rad/s, B (20), C (30), on axles along Y.
    frame = box("Gear Frame", (2.2, 0.1, 0.1), T((0.5, -3.2, 0.6)), kind="STATIC")
    gears, hinges = [], []
    for name, x, radius in (("Gear A", 0.0, 0.4), ("Gear B", 0.6, 0.2), ("Gear C", 1.1, 0.3)):
        m = T((x, -3.0, 1.5)) @ upright
        gears.append(cylinder(name, radius, 0.08, m, mass=radius * 10, **still))
        hinges.append(joint(f"{name} Axle", "HINGE", frame, gears[-1], m))
    hinges[0].ligament_joint.use_motor = True
    hinges[0].ligament_joint.motor_velocity, hinges[0].ligament_joint.motor_max_force = 1.0, 50.0
    for (ha, hb), teeth in zip(((0, 1), (1, 2)), ((40, 20), (20, 30))):
        joint(f"Mesh {ha}{hb}", "GEAR", None, None, T((0.3 + 0.5 * ha, -3.0, 2.2)),
              joint_a=hinges[ha], joint_b=hinges[hb], ratio_mode="TEETH", teeth_a=teeth[0],
              teeth_b=teeth[1])

    # --- 2. A car on four sprung wheels rolling down a ramp of 8 degrees.
    slope = math.radians(8)
    ramp_frame = T((0.0, 3.0, 1.2)) @ Euler((0, slope, 0)).to_matrix().to_4x4()   # X downhill
    box("Ramp", (30.0, 3.0, 0.4), ramp_frame, kind="STATIC", friction=1.0)
    on_ramp = ramp_frame @ T((-13.0, 0.0, 0.2))      # the ramp's top surface, near its top end
    chassis = box("Chassis", (2.0, 1.0, 0.2), on_ramp @ T((0, 0, 0.58)), mass=100.0,
                  friction=1.0, **still)
    wheels = []
    for x in (-0.7, 0.7):
        for y in (-0.65, 0.65):
            m = on_ramp @ T((x, y, 0.3)) @ upright
            wheels.append(cylinder(f"Wheel {'RF'[x > 0]}{'RL'[y > 0]}", 0.3, 0.15, m, mass=5.0,
                                   friction=1.0, **still))
            joint(f"Suspension {wheels[-1].name[-2:]}", "WHEEL", chassis, wheels[-1], m,
                  use_limit_lin=True, limit_lin_lower=-0.1, limit_lin_upper=0.1,
                  use_spring=True, spring_frequency=6.0, spring_damping=0.7)

    # --- 3. A lift (60 kg) and its counterweight (64 kg) on a pulley 6 m up.
    lift = box("Lift", (0.8, 0.8, 1.0), T((4.0, -3.0, 1.0)), mass=60.0, **still)
    weight = box("Counterweight", (0.3, 0.3, 0.6), T((5.2, -3.0, 3.0)), mass=64.0, **still)
    tops = [empty(f"Sheave {k}", T((x, -3.0, 6.0)), "CIRCLE", 0.25)
            for k, x in (("A", 4.0), ("B", 5.2))]
    box("Head Beam", (1.6, 0.2, 0.2), T((4.6, -3.0, 6.3)), kind="STATIC")
    joint("Lift Rope", "PULLEY", lift, weight, T((4.6, -3.0, 6.0)), fixed_a=tops[0],
          fixed_b=tops[1])

    # --- 4. Two beads on cycloid wires (r = 0.5 m, bottom at phi = pi), from two heights.
    r = 0.5
    beads, bottoms = [], []
    for k, (y, phi0) in enumerate(((6.5, 0.6), (7.5, 1.8))):
        curve = bpy.data.curves.new(f"Cycloid {k}", "CURVE")
        curve.dimensions = "3D"
        spline = curve.splines.new("POLY")
        n = 400
        spline.points.add(n - 1)
        for i, p in enumerate(spline.points):
            phi = 2 * math.pi * i / (n - 1)
            p.co = (r * (phi - math.sin(phi)), 0.0, r * (1 + math.cos(phi)), 1.0)
        wire = bpy.data.objects.new(f"Wire {k}", curve)
        scene.collection.objects.link(wire)
        wire.location = (-2.0, y, 0.5)
        start = Vector((-2.0 + r * (phi0 - math.sin(phi0)), y, 0.5 + r * (1 + math.cos(phi0))))
        bead = box(f"Bead {k}", (0.06, 0.06, 0.06), T(start), shape="SPHERE", mass=0.05,
                   **still)
        joint(f"Bead {k} on Wire", "PATH", None, bead, T(start), curve=wire)
        beads.append(bead)
        bottoms.append(-2.0 + r * math.pi)

    bpy.context.view_layer.update()
    gear_turn = [[0.0] * 3]
    last = [0.0] * 3
    car, lift_z, rope, bead_x = [], [], [], [[], []]
    rope_length = lambda: ((lift.matrix_world.translation - tops[0].location).length
                           + (weight.matrix_world.translation - tops[1].location).length)
    for f in range(1, FRAMES + 1):
        scene.frame_set(f)
        if f > 1:
            turns = []
            for i, g in enumerate(gears):
                a = (g.matrix_world.to_quaternion() @ Vector((1, 0, 0)))
                angle = math.atan2(a.z, a.x)
                turns.append(gear_turn[-1][i] + (angle - last[i] + math.pi) % (2 * math.pi)
                             - math.pi)
                last[i] = angle
            gear_turn.append(turns)
        car.append(ramp_frame.inverted() @ chassis.matrix_world.translation)
        lift_z.append(lift.matrix_world.translation.z)
        rope.append(rope_length())
        for k, bead in enumerate(beads):
            bead_x[k].append(bead.matrix_world.translation.x)
    error = lig.addon.runtime.cache.error(scene)
    skipped = lig.addon.runtime.cache.get(scene).skipped if lig.addon.runtime.cache.get(scene) else {}

    import numpy as np
    t = np.arange(FRAMES) / FPS
    print(f"{FRAMES / FPS:.0f} s at {FPS} fps, Ligament World defaults:")
    if error or skipped:
        print(f"  problems: {error} {skipped}")
    a_turn, b_turn, c_turn = gear_turn[-1]
    print(f"  gear train: A turned {a_turn:.3f} rad (motor 1 rad/s), B {b_turn:.3f} "
          f"(-2 x A: {-2 * a_turn:.3f}), C {c_turn:.3f} (4/3 x A: {4 / 3 * a_turn:.3f})")
    along = np.array([p.x for p in car])
    early = slice(FPS // 2, 2 * FPS)          # once the springs have settled, over 1.5 s
    a_car = 2.0 * np.polyfit(t[early], along[early], 2)[0]
    m_total, inertia = 100.0 + 4 * 5.0, 4 * 5.0 * 0.3 ** 2 / 2
    a_roll = G * math.sin(slope) * m_total / (m_total + inertia / 0.3 ** 2)
    print(f"  car on the ramp: rolled {along[-1] - along[0]:.2f} m, accelerating at "
          f"{a_car:.4f} m/s^2 over 0.5-2 s (rolling without slip: {a_roll:.4f}), "
          f"{(along[-1] - along[-2]) * FPS:.2f} m/s at the end ({a_roll * t[-1]:.2f} without "
          f"slip); chassis "
          f"{np.mean([p.z for p in car[-FPS:]]) - 0.2:.3f} m above the ramp on its springs "
          f"(built at 0.58)")
    a_lift = 2.0 * np.polyfit(t[:FPS * 2], lift_z[:FPS * 2], 2)[0]
    print(f"  lift: rises at {a_lift:.4f} m/s^2 (Atwood: {G * 4 / 124:.4f}); rope length "
          f"held within {1e3 * (max(rope) - min(rope)):.3f} mm")
    arrive = []
    for k in range(2):
        x = np.array(bead_x[k])
        i = int(np.argmax(x >= bottoms[k]))
        arrive.append(t[i - 1] + (bottoms[k] - x[i - 1]) / (x[i] - x[i - 1]) / FPS)
    print(f"  beads on cycloids: reach the bottom at {arrive[0]:.3f} s and {arrive[1]:.3f} s "
          f"from two heights (tautochrone pi sqrt(r/g) = {math.pi * math.sqrt(r / G):.3f} s)")
    scene.frame_set(1)
    out = os.path.join(BUILD, "mechanisms.blend")
    bpy.ops.wm.save_as_mainfile(filepath=out)
    print(f"Saved {out}; open it in Blender 4.2+ and press play.")
    if error or skipped:
        sys.exit("some mechanism did not simulate")


if __name__ == "__main__":
    main()
