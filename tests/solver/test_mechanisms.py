"""Mechanism joints: gears, rack and pinion, motor ratio, pulleys, line, wheel
and path, against analytic mechanics at 60 Hz with World defaults."""

import math

import numpy as np
import pytest

import solver as lg
from probes import (FRAME, G, angle_between, note, period_from_crossings, qconj, qmat, qmul,
                    relative, twist_angle)

# Bounds on what the exact island solve holds (an equality of a gear, a rack, a pulley's
# rope, a line, a wheel's axle): 10-100x what it holds today (2026-11-26, e.g. a gear's
# coupled angles within 1.6e-13 rad over 10 s, a rack within 4.4e-16 m), so that a
# regression of the exact solve fails instead of hiding under a millimetre. Limits, motors
# and contacts are not exact and keep their own margins.
Y = np.array([0.0, 1.0, 0.0])
Z = np.array([0.0, 0.0, 1.0])
SIDEWAYS = (math.cos(-math.pi / 4), math.sin(-math.pi / 4), 0.0, 0.0)   # local Z -> world Y


class Spin:
    """A body's turn about a fixed axis since creation, unwrapped over many revolutions."""

    def __init__(self, world, body, axis):
        self.world, self.body, self.axis = world, body, np.asarray(axis, float)
        self.q0 = world.orientations[body].copy()
        self.total, self.last = 0.0, 0.0

    def angle(self):
        a = twist_angle(qmul(self.world.orientations[self.body], qconj(self.q0)), self.axis)
        self.total += (a - self.last + math.pi) % (2 * math.pi) - math.pi
        self.last = a
        return self.total


# --- gear ------------------------------------------------------------------------------

def _gear_train(ratio, lock_b=False, speed=2.0, torque=50.0):
    """Two discs on vertical world hinges, A driven by its motor, B geared to A."""
    w = lg.World()
    da = w.add_body(lg.Cylinder(0.2, 0.02), (0, 0, 1), mass=2.0)
    db = w.add_body(lg.Cylinder(0.1, 0.02), (0.3, 0, 1), mass=1.0)
    ha = w.add_hinge(None, da, (0, 0, 1), Z, motor_speed=speed, max_motor_torque=torque)
    hb = w.add_hinge(None, db, (0.3, 0, 1), Z, lower=0.0 if lock_b else None,
                     upper=0.0 if lock_b else None)
    w.add_gear(ha, hb, ratio)
    return w, Spin(w, da, Z), Spin(w, db, Z)


def test_gear_turns_b_at_minus_ratio_times_a_for_10_s_without_drift():
    ratio = 2.0
    w, sa, sb = _gear_train(ratio)
    drift = 0.0
    for _ in range(600):
        w.step(FRAME)
        a, b = sa.angle(), sb.angle()
        drift = max(drift, abs(b + ratio * a))
    err = relative(b, -ratio * a)
    note("gear: B's turn vs -ratio x A's after 10 s (relative)", err, "< 1e-13")
    note("gear: largest |angle_b + ratio angle_a| (rad)", drift, "< 1e-11")
    assert a > 19.0, f"the motor turned A by {a:.2f} rad in 10 s, expected about 20"
    assert err < 1e-13, f"B turned {b:.4f} rad, -ratio x A is {-ratio * a:.4f}"
    assert drift < 1e-11, f"the coupled angles drifted by {drift:.2e} rad"
    wa, wb = w.angular_velocities[0] @ Z, w.angular_velocities[1] @ Z
    assert relative(wb, -ratio * wa) < 1e-3, f"spin of B {wb:.4f}, of A {wa:.4f} rad/s"


def test_gear_with_b_locked_stops_the_motor_of_a():
    w, sa, sb = _gear_train(2.0, lock_b=True, torque=5.0)
    for _ in range(120):
        w.step(FRAME)
        a = sa.angle()
    note("gear: A's turn in 2 s with B locked (rad)", a, "< 1e-12 (4 rad if free)")
    assert abs(a) < 1e-12, f"A turned {a:.4f} rad although the gear locks it to B"


def test_gear_range_lets_a_turn_until_the_coupled_sum_reaches_a_bound():
    # B stays still (locked), so angle_b + ratio angle_a = 2 angle_a runs into upper = 1
    # when A has turned 0.5 rad.
    w = lg.World()
    da = w.add_body(lg.Cylinder(0.2, 0.02), (0, 0, 1), mass=2.0)
    db = w.add_body(lg.Cylinder(0.1, 0.02), (0.3, 0, 1), mass=1.0)
    ha = w.add_hinge(None, da, (0, 0, 1), Z, motor_speed=1.0, max_motor_torque=5.0)
    hb = w.add_hinge(None, db, (0.3, 0, 1), Z, lower=0.0, upper=0.0)
    w.add_gear(ha, hb, 2.0, lower=-1.0, upper=1.0)
    sa = Spin(w, da, Z)
    for _ in range(120):
        w.step(FRAME)
        a = sa.angle()
    note("gear range: A stops at (rad)", a, "0.5 within 0.01")
    assert abs(a - 0.5) < 0.01, f"A stopped at {a:.4f} rad, the range's bound is at 0.5"


# --- rack and pinion --------------------------------------------------------------------

def test_rack_slides_ratio_times_the_pinion_angle_to_rounding():
    ratio = 0.1
    w = lg.World()
    pinion = w.add_body(lg.Cylinder(0.1, 0.05), (0, 0, 1), mass=1.0, orientation=SIDEWAYS)
    rack = w.add_body(lg.Box((0.5, 0.05, 0.02)), (0, 0, 0.88), mass=2.0)
    h = w.add_hinge(None, pinion, (0, 0, 1), Y, motor_speed=3.0, max_motor_torque=20.0)
    s = w.add_prismatic(None, rack, (0, 0, 0.88), (1, 0, 0))
    w.add_rack_and_pinion(h, s, ratio)
    spin = Spin(w, pinion, Y)
    x0 = w.positions[rack][0]
    worst = 0.0
    for _ in range(180):
        w.step(FRAME)
        slide = w.positions[rack][0] - x0
        worst = max(worst, abs(slide - ratio * spin.angle()))
    note("rack and pinion: largest |slide - ratio angle| (m)", worst, "< 1e-14")
    assert spin.total > 8.0, f"the pinion turned {spin.total:.2f} rad in 3 s, expected ~9"
    assert worst < 1e-14, f"slide and ratio x angle differ by up to {worst:.2e} m"


# --- angular motor with a ratio -----------------------------------------------------------

def test_angular_motor_with_ratio_holds_wb_minus_ratio_wa_at_its_speed():
    ratio, speed, wa_target = 3.0, 1.0, 2.0
    w = lg.World()
    a = w.add_body(lg.Cylinder(0.2, 0.05), (0, 0, 1), mass=2.0)
    b = w.add_body(lg.Cylinder(0.1, 0.05), (1, 0, 1), mass=1.0)
    w.add_hinge(None, a, (0, 0, 1), Z, motor_speed=wa_target, max_motor_torque=1000.0)
    w.add_hinge(None, b, (1, 0, 1), Z)
    w.add_angular_motor(a, b, Z, speed, 10.0, ratio=ratio)
    for _ in range(120):
        w.step(FRAME)
    wa, wb = w.angular_velocities[a] @ Z, w.angular_velocities[b] @ Z
    note("angular motor: wb - ratio wa (rad/s)", wb - ratio * wa, f"{speed} within 1e-3")
    assert abs(wa - wa_target) < 1e-3, f"A spins at {wa:.5f} rad/s"
    assert abs(wb - ratio * wa - speed) < 1e-3, f"wb - ratio wa = {wb - ratio * wa:.5f}"


# --- pulley ------------------------------------------------------------------------------

def _atwood(m1, m2, ratio, upper=None, slack=0.0):
    w = lg.World()
    b1 = w.add_body(lg.Sphere(0.1), (0, 0, 5), mass=m1)
    b2 = w.add_body(lg.Sphere(0.1), (1, 0, 5 + slack), mass=m2)
    f1, f2 = np.array([0, 0, 10.0]), np.array([1, 0, 10.0])
    j = w.add_pulley(b1, b2, (0, 0, 5), (1, 0, 5 + slack), f1, f2, ratio=ratio, upper=upper)
    length = lambda: (np.linalg.norm(w.positions[b1] - f1)
                      + ratio * np.linalg.norm(w.positions[b2] - f2))
    return w, b1, b2, j, length


@pytest.mark.parametrize("m1, m2, ratio", [(3.0, 1.0, 1.0), (3.0, 1.0, 2.0), (1.0, 3.0, 2.0)])
def test_atwood_machine_accelerates_as_analytic_and_holds_the_rope(m1, m2, ratio):
    # l1 + ratio l2 = L: x2 = -x1 / ratio, so (m1 + m2 / ratio^2) a1 = (m1 - m2 / ratio) g
    w, b1, b2, _, length = _atwood(m1, m2, ratio)
    expected = G * (m1 - m2 / ratio) / (m1 + m2 / ratio ** 2)
    L0 = length()
    t, z1, z2, stretch = [0.0], [w.positions[b1][2]], [w.positions[b2][2]], 0.0
    for _ in range(60):
        w.step(FRAME)
        t.append(w.time)
        z1.append(w.positions[b1][2])
        z2.append(w.positions[b2][2])
        stretch = max(stretch, abs(length() - L0))
    a1 = -2.0 * np.polyfit(t, z1, 2)[0]
    a2 = -2.0 * np.polyfit(t, z2, 2)[0]
    note(f"Atwood m1={m1} m2={m2} ratio={ratio}: a1 (m/s^2)", a1, f"{expected:.4f} within 1 %")
    note("Atwood: largest rope length change (m)", stretch, "< 1e-13")
    assert relative(a1, expected) < 0.01, f"a1 = {a1:.4f}, analytic {expected:.4f}"
    assert relative(a2, -expected / ratio) < 0.01, \
        f"a2 = {a2:.4f}, analytic {-expected / ratio:.4f}"
    assert stretch < 1e-13, f"the rope's length changed by up to {stretch:.2e} m"


def test_slack_pulley_rope_does_not_pull_and_holds_its_upper_length():
    # 0.5 m of slack: both bodies fall freely (each lengthens its side by g t^2 / 2) until
    # the rope is taut at t = sqrt(0.5 / g) = 0.226 s, then hang on it as an Atwood machine.
    w, b1, b2, j, length = _atwood(3.0, 1.0, 1.0, upper=None)
    L0 = length()
    w, b1, b2, j, length = _atwood(3.0, 1.0, 1.0, upper=L0 + 0.5)
    for _ in range(12):
        w.step(FRAME)
        lin, ang = w.joint_impulse(j)
        assert np.all(lin == 0.0) and np.all(ang == 0.0), "a slack rope pulled"
    for b in (b1, b2):
        assert abs(w.linear_velocities[b][2] + G * w.time) < 1e-9, "a slack side was pulled"
    longest = 0.0
    for _ in range(60):
        w.step(FRAME)
        longest = max(longest, length() - (L0 + 0.5))
    note("slack pulley: longest rope beyond its upper length (mm)", 1e3 * longest, "< 1")
    assert longest < 1e-3, f"the taut rope stretched {1e3 * longest:.2f} mm past upper"


# --- line ------------------------------------------------------------------------------

def test_line_joint_leaves_rotation_and_sliding_free():
    # A rod hangs from a point that slides on a horizontal line (x). Nothing pushes along
    # x, so the rod's centre of mass keeps its x while it swings; the point stays on the line.
    w = lg.World()
    top = np.array([0.0, 0.0, 2.0])
    rod = w.add_body(lg.Box((0.02, 0.02, 0.3)), top + (0, 0, -0.3), mass=1.0)
    w.add_line(None, rod, top, (1, 0, 0))
    w.angular_velocities[rod] = (0, 3.0, 0)
    local = qmat(w.orientations[rod]).T @ (top - w.positions[rod])
    x0 = w.positions[rod][0]
    off_line, com_x, swing = 0.0, 0.0, 0.0
    for _ in range(180):
        w.step(FRAME)
        p = w.positions[rod] + qmat(w.orientations[rod]) @ local
        off_line = max(off_line, math.hypot(p[1], p[2] - 2.0))
        com_x = max(com_x, abs(w.positions[rod][0] - x0))
        swing = max(swing, abs(p[0] - w.positions[rod][0]))
    note("line: anchor off the line (m)", off_line, "< 1e-9")
    note("line: centre of mass x drift (m)", com_x, "< 1e-13")
    assert swing > 0.05, f"the rod hardly swung ({swing:.3f} m)"
    # near the ends of its swing the rod barely turns in a substep, and the position
    # projection reuses the substep's factor (direct.REUSE_TURN: K off by up to 1e-3), so
    # the anchor strays 1.4e-10 m (2026-11-26; 1e-12 refactoring every time)
    assert off_line < 1e-9, f"the anchor left the line by {off_line:.2e} m"
    assert com_x < 1e-13, f"the centre of mass moved {com_x:.2e} m along the line"


def test_line_joint_stops_at_its_limit_and_its_motor_drives_along_it():
    w = lg.World(gravity=(0, 0, 0))
    a = w.add_body(lg.Sphere(0.1), (0, 0, 1), linear_velocity=(3, 0, 0))
    w.add_line(None, a, (0, 0, 1), (1, 0, 0), upper=0.5)
    b = w.add_body(lg.Sphere(0.1), (0, 2, 1))
    w.add_line(None, b, (0, 2, 1), (1, 0, 0), motor_speed=1.5, max_motor_force=100.0)
    far = 0.0
    for _ in range(60):
        w.step(FRAME)
        far = max(far, w.positions[a][0])
    note("line limit: farthest travel (m)", far, "0.5 + < 1 mm")
    assert 0.5 - 1e-3 < far < 0.5 + 1e-3, f"the limit at 0.5 m let it reach {far:.4f} m"
    assert abs(w.linear_velocities[b][0] - 1.5) < 1e-6, "the motor did not hold 1.5 m/s"


# --- wheel ------------------------------------------------------------------------------

def test_wheel_suspension_oscillates_at_the_asked_frequency_with_the_chassis_held():
    hz = 2.0
    w = lg.World()
    wheel = w.add_body(lg.Cylinder(0.3, 0.1), (0, 0, 1), mass=10.0, orientation=SIDEWAYS)
    w.add_wheel(None, wheel, (0, 0, 1), Z, Y, spring_hz=hz, spring_damping=0.0)
    t, z = [], []
    for _ in range(240):
        w.step(FRAME)
        t.append(w.time)
        z.append(w.positions[wheel][2])
    sag = G / (2 * math.pi * hz) ** 2           # the spring's equilibrium under the weight
    period = period_from_crossings(t, np.array(z) - (1.0 - sag))
    note("wheel suspension frequency (Hz)", 1 / period, f"{hz} within 3 %")
    assert relative(1 / period, hz) < 0.03, f"suspension at {1 / period:.4f} Hz, asked {hz}"


def test_wheel_steering_turns_the_axle_about_the_suspension_axis():
    w = lg.World(gravity=(0, 0, 0))
    wheel = w.add_body(lg.Cylinder(0.3, 0.1), (0, 0, 1), mass=10.0, orientation=SIDEWAYS)
    j = w.add_wheel(None, wheel, (0, 0, 1), Z, Y, motor_speed=5.0, max_motor_torque=50.0)
    w.set_steering(j, 0.4)
    for _ in range(60):
        w.step(FRAME)
    axle = qmat(w.orientations[wheel]) @ (0, 0, 1)              # the cylinder's own axis
    steered = np.array([-math.sin(0.4), math.cos(0.4), 0.0])
    note("wheel steering: axle off the steered direction (deg)",
         math.degrees(angle_between(axle, steered)), "< 1e-12")
    assert math.degrees(angle_between(axle, steered)) < 1e-12
    assert abs(w.angular_velocities[wheel] @ steered - 5.0) < 1e-3, "the motor spins the axle"


def test_car_driven_at_w_on_flat_ground_moves_at_w_r():
    wspeed, r = 5.0, 0.3
    w = lg.World()
    w.add_body(lg.Box((50, 50, 0.5)), (0, 0, -0.5), kind="static", friction=1.0)
    chassis = w.add_body(lg.Box((1.0, 0.5, 0.15)), (0, 0, 0.55), mass=100.0, friction=1.0)
    for x in (-0.7, 0.7):
        for y in (-0.65, 0.65):
            wheel = w.add_body(lg.Cylinder(r, 0.1), (x, y, r), mass=5.0, orientation=SIDEWAYS,
                               friction=1.0)
            w.add_wheel(chassis, wheel, (x, y, r), Z, Y, lower=-0.1, upper=0.1, spring_hz=4.0,
                        spring_damping=0.7, motor_speed=wspeed, max_motor_torque=100.0)
    vx = []
    for _ in range(360):
        w.step(FRAME)
        vx.append(w.linear_velocities[chassis][0])
    v = float(np.mean(vx[-120:]))
    note("car speed (m/s)", v, f"{wspeed * r} within 2 %")
    assert relative(v, wspeed * r) < 0.02, f"the car moves at {v:.4f} m/s, w r = {wspeed * r}"


# --- path ------------------------------------------------------------------------------

def test_bead_on_a_circular_wire_stays_on_its_polyline():
    r, centre = 1.0, np.array([0.0, 0.0, 2.0])
    phi = np.linspace(0, 2 * np.pi, 256, endpoint=False)
    wire = centre + r * np.stack([np.cos(phi), np.zeros_like(phi), np.sin(phi)], axis=1)
    w = lg.World()
    top = centre + (0, 0, r)
    bead = w.add_body(lg.Sphere(0.02), top, mass=0.1, linear_velocity=(1.0, 0, 0))
    w.add_path(bead, top, wire, closed=True)
    worst, laps, last = 0.0, 0, 1.0
    for _ in range(300):
        w.step(FRAME)
        d = w.positions[bead] - centre
        worst = max(worst, abs(np.linalg.norm(d) - r))
        if last < 0 <= d[0] and d[2] > 0:
            laps += 1
        last = d[0]
    # On the wire's 256 chords the bead is at most their sag r (1 - cos(pi / 256)) inside
    # the circle; the exact solve keeps it on them.
    sag = r * (1.0 - math.cos(math.pi / 256))
    note("bead on a circular wire: largest distance off the circle beyond the chords' sag (m)",
         worst - sag, "< 1e-10")
    assert laps >= 2, f"the bead went round {laps} times in 5 s"
    assert worst < sag + 1e-10, f"the bead left the wire by {worst - sag:.2e} m past the sag"


def _time_to_cycloid_bottom(phi0, r=1.0):
    """A bead released at rest at phase phi0 of the cycloid x = r (phi - sin phi),
    z = r (1 + cos phi), whose bottom is at phi = pi: time to reach the bottom (x = pi r),
    interpolated between frames."""
    phi = np.linspace(0, 2 * np.pi, 4001)
    curve = np.stack([r * (phi - np.sin(phi)), np.zeros_like(phi), r * (1 + np.cos(phi))], axis=1)
    w = lg.World()
    start = (r * (phi0 - math.sin(phi0)), 0.0, r * (1 + math.cos(phi0)))
    bead = w.add_body(lg.Sphere(0.01), start, mass=0.1)
    w.add_path(bead, start, curve)
    x_prev, t_prev = start[0], 0.0
    for _ in range(120):
        w.step(FRAME)
        x = w.positions[bead][0]
        if x >= math.pi * r:
            return t_prev + (math.pi * r - x_prev) / (x - x_prev) * (w.time - t_prev)
        x_prev, t_prev = x, w.time
    raise AssertionError(f"the bead released at phase {phi0} never reached the bottom")


def test_cycloid_is_a_tautochrone():
    expected = math.pi * math.sqrt(1.0 / G)
    for phi0 in (0.5, 2.0):
        t = _time_to_cycloid_bottom(phi0)
        note(f"cycloid: released at phase {phi0}, time to the bottom (s)", t,
             f"{expected:.4f} within 1 %")
        assert relative(t, expected) < 0.01, f"took {t:.4f} s, pi sqrt(r/g) = {expected:.4f} s"


def test_path_motor_drives_along_the_curve_with_the_body_aligned_to_it():
    r = 1.0
    phi = np.linspace(0, 2 * np.pi, 200, endpoint=False)
    ring = np.stack([r * np.cos(phi), r * np.sin(phi), np.ones_like(phi)], axis=1)
    w = lg.World()
    cart = w.add_body(lg.Box((0.1, 0.05, 0.05)), (r, 0, 1), mass=1.0,
                      orientation=(math.cos(math.pi / 4), 0, 0, math.sin(math.pi / 4)))
    w.add_path(cart, (r, 0, 1), ring, closed=True, align=True, motor_speed=2.0,
               max_motor_force=50.0)
    worst = 0.0
    for _ in range(180):
        w.step(FRAME)
        p = w.positions[cart]
        tangent = np.array([-p[1], p[0], 0.0]) / math.hypot(p[0], p[1])
        body_x = qmat(w.orientations[cart]) @ (1, 0, 0)
        worst = max(worst, angle_between(body_x, tangent) if w.time > 0.5 else 0.0)
    speed = float(w.linear_velocities[cart] @ tangent)
    note("path motor: speed along the ring (m/s)", speed, "2 within 1 %")
    note("path align: body axis off the tangent (deg)", math.degrees(worst), "< 0.1")
    assert relative(speed, 2.0) < 0.01, f"the motor drives at {speed:.4f} m/s"
    assert math.degrees(worst) < 0.1, \
        f"the aligned axis left the tangent by {math.degrees(worst):.3f} deg"


def test_open_path_ends_stop_the_body():
    w = lg.World(gravity=(0, 0, 0))
    bead = w.add_body(lg.Sphere(0.05), (0.5, 0, 1), linear_velocity=(3, 0, 0))
    w.add_path(bead, (0.5, 0, 1), [(0, 0, 1), (0.5, 0, 1), (1, 0, 1)])
    far = 0.0
    for _ in range(60):
        w.step(FRAME)
        far = max(far, w.positions[bead][0])
    note("open path: farthest travel past the end (mm)", 1e3 * (far - 1.0), "< 1")
    assert abs(far - 1.0) < 1e-3, f"the end at x = 1 let the bead reach {far:.4f}"


def test_path_friction_brakes_at_its_force():
    # 2 N of friction on a 1 kg bead on a straight horizontal wire: -2 m/s^2 until it stops.
    w = lg.World(gravity=(0, 0, 0))
    bead = w.add_body(lg.Sphere(0.05), (0, 0, 1), mass=1.0, linear_velocity=(3, 0, 0))
    w.add_path(bead, (0, 0, 1), [(-1, 0, 1), (10, 0, 1)], friction=2.0)
    for _ in range(30):
        w.step(FRAME)
    v = w.linear_velocities[bead][0]
    note("path friction: speed after 0.5 s (m/s)", v, "2 within 1e-6")
    assert abs(v - 2.0) < 1e-6


# --- bad input ---------------------------------------------------------------------------

def _two_bodies_and_joints():
    w = lg.World()
    a = w.add_body(lg.Sphere(0.1), (0, 0, 0))
    b = w.add_body(lg.Sphere(0.1), (1, 0, 0))
    h = w.add_hinge(None, a, (0, 0, 0), Z)
    s = w.add_ball_socket(None, b, (1, 0, 0))
    return w, a, b, h, s


BAD = [
    ("hinge_b", lambda w, a, b, h, s: w.add_gear(h, s, 1.0)),
    ("hinge_a", lambda w, a, b, h, s: w.add_gear(7, h, 1.0)),
    ("ratio", lambda w, a, b, h, s: w.add_gear(h, w.add_hinge(None, b, (1, 0, 0), Z), 0.0)),
    ("prismatic", lambda w, a, b, h, s: w.add_rack_and_pinion(h, s, 0.1)),
    ("ratio", lambda w, a, b, h, s: w.add_angular_motor(a, b, Z, 1.0, 1.0, ratio=0.0)),
    ("ratio", lambda w, a, b, h, s: w.add_pulley(a, b, (0, 0, 0), (1, 0, 0), (0, 0, 1),
                                                 (1, 0, 1), ratio=-1.0)),
    ("anchor_a", lambda w, a, b, h, s: w.add_pulley(a, b, (0, 0, 0), (1, 0, 0), (0, 0, 0),
                                                    (1, 0, 1))),
    ("wheel_axis", lambda w, a, b, h, s: w.add_wheel(a, b, (1, 0, 0), Z, (0, 0, 2))),
    ("wheel", lambda w, a, b, h, s: w.add_wheel(a, None, (1, 0, 0), Z, Y)),
    ("set_steering", lambda w, a, b, h, s: w.set_steering(h, 0.1)),
    ("points", lambda w, a, b, h, s: w.add_path(b, (1, 0, 0), [(1, 0, 0)])),
    ("points", lambda w, a, b, h, s: w.add_path(b, (1, 0, 0), [(0, 0, 0), (1, 0, 0), (1, 0, 0)])),
    ("points", lambda w, a, b, h, s: w.add_path(b, (1, 0, 0), [(0, 0), (1, 0)])),
    ("points", lambda w, a, b, h, s: w.add_path(b, (1, 0, 0), [(0, 0, 0), (1, 0, 0)],
                                                closed=True)),
    ("body", lambda w, a, b, h, s: w.add_path(None, (1, 0, 0), [(0, 0, 0), (1, 0, 0)])),
]


@pytest.mark.parametrize("name, call", BAD, ids=[f"{i:02d}-{c[0]}" for i, c in enumerate(BAD)])
def test_bad_mechanism_input_raises_value_error_naming_the_argument(name, call):
    w, a, b, h, s = _two_bodies_and_joints()
    with pytest.raises(ValueError) as info:
        call(w, a, b, h, s)
    assert name in str(info.value), f"message {str(info.value)!r} does not name {name!r}"
