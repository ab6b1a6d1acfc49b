"""Hinge: limits hit hard, motor with a torque cap, undamped spring frequency."""

import math

import numpy as np

import solver as lg
from probes import (FRAME, G, angle_between, note, period_from_crossings, qconj, qmat, qmul,
                    relative, twist_angle)

AXIS = np.array([0.0, 1.0, 0.0])


def _bar_swung_into_limit(omega, lower, upper):
    """A 0.5 m bar hanging from a y-axis hinge at its top, swung at `omega` (no gravity):
    (largest overshoot, limits reached, largest axis misalignment) over 2 s."""
    pivot = np.array([0.0, 0.0, 1.0])
    w = lg.World(gravity=(0, 0, 0))
    centre = pivot + (0.0, 0.0, -0.25)
    bar = w.add_body(lg.Box((0.03, 0.05, 0.25)), centre, mass=2.0, angular_velocity=omega,
                     linear_velocity=np.cross(omega, centre - pivot))
    w.add_hinge(None, bar, pivot, AXIS, lower=lower, upper=upper)
    q0 = w.orientations[bar].copy()

    overshoot, misalign, hits = 0.0, 0.0, set()
    for _ in range(120):
        w.step(FRAME)
        q = qmul(w.orientations[bar], qconj(q0))
        angle = twist_angle(q, AXIS)
        overshoot = max(overshoot, angle - upper, lower - angle)
        if angle > upper - 0.02:
            hits.add("upper")
        if angle < lower + 0.02:
            hits.add("lower")
        misalign = max(misalign, angle_between(qmat(q) @ AXIS, AXIS))
    return overshoot, hits, misalign


def test_hinge_limit_hit_at_10_rad_s_overshoots_under_1_degree():
    # The bar swung at 10 rad/s into limits of +-0.5 rad, once each way. The limits are
    # inelastic (no restitution), so each run ends resting against the limit it hit.
    lower, upper = -0.5, 0.5
    for sign, side in ((1.0, "upper"), (-1.0, "lower")):
        overshoot, hits, misalign = _bar_swung_into_limit(sign * 10.0 * AXIS, lower, upper)
        note(f"hinge {side} limit overshoot (deg)", math.degrees(overshoot), "< 1")
        note("hinge axis misalignment (deg)", math.degrees(misalign), "< 0.5")
        assert hits == {side}, f"swung toward the {side} limit, the bar reached {hits}"
        assert math.degrees(overshoot) < 1.0, \
            f"limit overshoot {math.degrees(overshoot):.3f} deg (allowed 1 deg)"
        assert math.degrees(misalign) < 0.5, \
            f"hinge axis misalignment {math.degrees(misalign):.3f} deg (allowed 0.5 deg)"


def test_hinge_motor_spins_up_at_torque_over_inertia_and_holds_speed():
    # A disc on a hinge through its centre: the capped motor torque is the only torque about
    # the axis, so d(omega)/dt = T / I until the target speed, which it then holds.
    radius, half_height, mass = 0.3, 0.05, 4.0
    torque, target = 3.6, 6.0
    w = lg.World(gravity=(0, 0, -G))
    disc = w.add_body(lg.Cylinder(radius, half_height), (0, 0, 1), mass=mass,
                      orientation=(math.cos(math.pi / 4), math.sin(math.pi / 4), 0, 0))
    inertia = 0.5 * mass * radius ** 2           # the cylinder's own axis is now world y
    w.add_hinge(None, disc, (0, 0, 1), AXIS, motor_speed=target, max_motor_torque=torque)
    rate = torque / inertia                      # 20 rad/s^2: 0.3 s to reach 6 rad/s

    times, speeds = [0.0], [0.0]
    for _ in range(90):
        w.step(FRAME)
        times.append(w.time)
        speeds.append(float(np.dot(w.angular_velocities[disc], AXIS)))
    times, speeds = np.array(times), np.array(speeds)
    ramp = (speeds > 0.1 * target) & (speeds < 0.8 * target)
    slope = np.polyfit(times[ramp], speeds[ramp], 1)[0]
    note("hinge motor spin-up (rad/s^2)", slope, f"{rate} within 5 %")
    assert ramp.sum() >= 4
    assert relative(slope, rate) < 0.05, \
        f"spin-up {slope:.3f} rad/s^2 vs torque/inertia {rate:.3f} " \
        f"({100 * relative(slope, rate):.2f} %, allowed 5 %)"
    held = speeds[times > 0.6]
    err = np.max(np.abs(held - target)) / target
    note("hinge motor held speed error (fraction)", err, "< 0.01")
    assert err < 0.01, f"held speed off target by {100 * err:.3f} % (allowed 1 %)"


def test_hinge_spring_oscillates_at_its_frequency():
    # The spring row is mass-normalised (its stiffness is set from the row's effective mass
    # I_axis), so with the hinge through the centre of mass and no gravity torque the body
    # is a pure torsional oscillator at the frequency asked for.
    hz = 1.5
    w = lg.World(gravity=(0, 0, -G))
    body = w.add_body(lg.Box((0.2, 0.1, 0.05)), (0, 0, 1), mass=3.0,
                      angular_velocity=2.0 * AXIS)
    w.add_hinge(None, body, (0, 0, 1), AXIS, spring_hz=hz, spring_damping=0.0)
    q0 = w.orientations[body].copy()
    times, angles = [0.0], [0.0]
    for _ in range(int(4.0 / FRAME)):
        w.step(FRAME)
        times.append(w.time)
        angles.append(twist_angle(qmul(w.orientations[body], qconj(q0)), AXIS))
    freq = 1.0 / period_from_crossings(times, angles)
    amplitude = max(abs(a) for a in angles)
    note("hinge spring frequency (Hz)", freq, f"{hz} within 3 %")
    assert amplitude > 0.1
    assert relative(freq, hz) < 0.03, \
        f"spring frequency {freq:.4f} Hz vs {hz} Hz ({100 * relative(freq, hz):.2f} %, " \
        f"allowed 3 %)"


def test_hinge_angle_is_b_relative_to_a_right_handed_about_the_axis():
    # Limits [0, 0.5] allow only positive rotation of B relative to A about the axis. Two
    # free bodies (no gravity) spun against each other: B turning positively relative to A
    # opens the hinge up to 0.5 rad, the opposite spin is stopped at 0.
    def relative_angles(spin):
        w = lg.World(gravity=(0, 0, 0))
        a = w.add_body(lg.Box((0.1, 0.1, 0.1)), (0, 0, 0), mass=1.0,
                       angular_velocity=-0.5 * spin * AXIS)
        b = w.add_body(lg.Box((0.1, 0.1, 0.1)), (0, 0, 0.3), mass=1.0)
        w.angular_velocities[b] = 0.5 * spin * AXIS
        w.linear_velocities[b] = np.cross(0.5 * spin * AXIS, (0, 0, 0.15))
        w.linear_velocities[a] = np.cross(-0.5 * spin * AXIS, (0, 0, -0.15))
        w.add_hinge(a, b, (0, 0, 0.15), AXIS, lower=0.0, upper=0.5)
        qa0, qb0 = w.orientations[a].copy(), w.orientations[b].copy()
        out = []
        for _ in range(30):
            w.step(FRAME)
            ra = qmul(w.orientations[a], qconj(qa0))
            rb = qmul(w.orientations[b], qconj(qb0))
            out.append(twist_angle(qmul(qconj(ra), rb), AXIS))
        return np.array(out)

    opening = relative_angles(4.0)
    closing = relative_angles(-4.0)
    assert opening.max() > 0.49 and opening.max() < 0.5 + math.radians(1.0)
    assert closing.min() > -math.radians(1.0) and abs(closing).max() < math.radians(1.0)
