"""Free rigid-body rotation (conservation, the tennis-racket flip) and angular motors."""

import numpy as np

import solver as lg
from probes import FRAME, note, qmat, relative


def test_free_box_tumbling_about_intermediate_axis_conserves_momentum_and_flips():
    # Half extents (0.1, 0.2, 0.3): I_x > I_y > I_z, so a spin about y is unstable and the
    # body flips over and back (Dzhanibekov / tennis racket), while L and E are constants.
    w = lg.World(gravity=(0, 0, 0))
    box = w.add_body(lg.Box((0.1, 0.2, 0.3)), (0, 0, 0), density=500.0,
                     angular_velocity=(0.02, 5.0, 0.02))

    def momentum_energy():
        inertia = w.inertia(box)
        omega = w.angular_velocities[box]
        return inertia @ omega, 0.5 * float(omega @ inertia @ omega)

    l0, e0 = momentum_energy()
    dl = de = 0.0
    min_y = 1.0
    for _ in range(600):
        w.step(FRAME)
        l, e = momentum_energy()
        dl = max(dl, float(np.linalg.norm(l - l0)) / float(np.linalg.norm(l0)))
        de = max(de, relative(e, e0))
        min_y = min(min_y, float(qmat(w.orientations[box])[:, 1] @ (0, 1, 0)))
    note("tumbling box |L| change (fraction)", dl, "< 0.02")
    note("tumbling box energy change (fraction)", de, "< 0.02")
    note("tumbling box min y-axis . initial y-axis", min_y, "< -0.9 (flipped)")
    assert dl < 0.02, f"angular momentum changed by {100 * dl:.3f} % (allowed 2 %)"
    assert de < 0.02, f"energy changed by {100 * de:.3f} % (allowed 2 %)"
    assert min_y < -0.9, f"the box never flipped (y axis dot initial {min_y:.3f})"


def test_angular_motor_to_world_spins_up_at_torque_over_inertia():
    radius, half_height, mass, torque, speed = 0.2, 0.1, 5.0, 2.0, 4.0
    w = lg.World(gravity=(0, 0, 0))
    disc = w.add_body(lg.Cylinder(radius, half_height), (0, 0, 0), mass=mass)
    w.add_angular_motor(None, disc, (0, 0, 1), speed=speed, max_torque=torque)
    rate = torque / (0.5 * mass * radius ** 2)       # 20 rad/s^2
    speeds = []
    for _ in range(60):
        w.step(FRAME)
        speeds.append(float(w.angular_velocities[disc, 2]))
    measured = speeds[4] / (5 * FRAME)
    note("angular motor spin-up (rad/s^2)", measured, f"{rate} within 5 %")
    assert relative(measured, rate) < 0.05, \
        f"spin-up {measured:.3f} rad/s^2 vs torque/inertia {rate:.3f} (allowed 5 %)"
    err = max(abs(s - speed) for s in speeds[30:]) / speed
    note("angular motor held speed error (fraction)", err, "< 0.01")
    assert err < 0.01, f"held speed off target by {100 * err:.3f} % (allowed 1 %)"


def test_angular_motor_between_two_bodies_conserves_angular_momentum():
    # Action and reaction: the motor's torque on A is minus its torque on B, so the pair's
    # total spin stays zero while their relative spin rises at T (1/I_A + 1/I_B).
    w = lg.World(gravity=(0, 0, 0))
    a = w.add_body(lg.Cylinder(0.3, 0.05), (0, 0, 0), mass=2.0)
    b = w.add_body(lg.Cylinder(0.1, 0.2), (0, 0, 1), mass=3.0)
    ia, ib = 0.5 * 2.0 * 0.3 ** 2, 0.5 * 3.0 * 0.1 ** 2
    torque, speed = 0.5, 8.0
    w.add_angular_motor(a, b, (0, 0, 1), speed=speed, max_torque=torque)
    rate = torque * (1 / ia + 1 / ib)
    rel = []
    worst_l = 0.0
    for _ in range(90):
        w.step(FRAME)
        wa, wb = w.angular_velocities[a, 2], w.angular_velocities[b, 2]
        rel.append(wb - wa)
        worst_l = max(worst_l, abs(ia * wa + ib * wb))
    measured = rel[2] / (3 * FRAME)
    assert relative(measured, rate) < 0.05, \
        f"relative spin-up {measured:.3f} vs T (1/IA + 1/IB) = {rate:.3f} (allowed 5 %)"
    assert worst_l < 1e-9, f"total angular momentum drifted to {worst_l:.3g}"
    assert abs(rel[-1] - speed) / speed < 0.01, f"relative speed {rel[-1]:.4f} vs {speed}"
