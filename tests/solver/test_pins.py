"""Pins (World.add_pin): a body's point pulled to a target that moves, rigidly or as a
spring-damper, with a force limit; checked against the target's own path, the analytic
damped spring and Newton's second law."""

import math

import numpy as np

import solver as lg
from probes import note, period_from_crossings, qaxis_angle, qconj, qmat, qmul, relative

FPS = 24.0
DT = 1.0 / FPS


def _pinned_point(w, body, local):
    """World position and velocity of the body's point `local` (in its frame)."""
    r = qmat(w.orientations[body]) @ local
    return w.positions[body] + r, w.linear_velocities[body] + np.cross(w.angular_velocities[body], r)


def _local(w, body, point):
    return qmat(w.orientations[body]).T @ (np.asarray(point) - w.positions[body])


def test_rigid_pin_keeps_its_point_on_a_target_moving_a_metre_in_24_frames():
    # a box hung by its top corner swings under gravity while its corner is carried 1 m
    w = lg.World()
    box = w.add_body(lg.Box((0.2, 0.1, 0.3)), (0, 0, 2), mass=5.0)
    start = np.array([0.2, 0.1, 2.3])
    pin = w.add_pin(box, start)
    local = _local(w, box, start)
    worst, speeds = 0.0, []
    for k in range(1, 25):
        target = start + (k / 24.0, 0.0, 0.0)
        w.set_pin_target(pin, target)
        w.step(DT)
        p, v = _pinned_point(w, box, local)
        worst = max(worst, float(np.linalg.norm(p - target)))
        speeds.append(v[0])
    note("rigid pin: farthest from a target moving 1 m in 24 frames (mm)", worst * 1e3, "< 1")
    assert worst < 1e-3
    # the point moves with the target (1 m/s), not from rest to rest each substep
    note("rigid pin: pinned point's speed mid-way (m/s)", speeds[12], "1.0 within 1 %")
    assert abs(speeds[12] - 1.0) < 0.01
    # and the box swings: it is carried by its corner, not moved as a block
    assert np.linalg.norm(w.angular_velocities[box]) > 0.1


def _step_response(hz, zeta, seconds=2.0, fps=60.0):
    """Offset of a 3 kg sphere pinned at its centre by a soft pin whose target steps 0.1 m
    along x at t = 0 (gravity off): times, x - 0.1."""
    w = lg.World(gravity=(0, 0, 0))
    ball = w.add_body(lg.Sphere(0.2), (0, 0, 1), mass=3.0)
    pin = w.add_pin(ball, (0, 0, 1), hertz=hz, damping_ratio=zeta)
    w.set_pin_target(pin, (0.1, 0, 1))
    times, offsets = [0.0], [-0.1]
    for _ in range(int(seconds * fps)):
        w.step(1.0 / fps)
        times.append(w.time)
        offsets.append(w.positions[ball][0] - 0.1)
    assert np.abs(w.positions[ball][1:] - (0, 1)).max() < 1e-9
    return np.array(times), np.array(offsets)


def test_soft_pin_follows_a_step_as_a_damped_spring_of_its_frequency_and_ratio():
    hz, zeta = 2.0, 0.2
    t, x = _step_response(hz, zeta)
    damped = hz * math.sqrt(1.0 - zeta ** 2)
    period = period_from_crossings(t, x)
    overshoot = x.max() / 0.1
    expected = math.exp(-math.pi * zeta / math.sqrt(1.0 - zeta ** 2))
    note("soft pin 2 Hz, ratio 0.2: period (s)", period, f"{1 / damped:.4f} within 3 %")
    note("soft pin 2 Hz, ratio 0.2: overshoot", overshoot, f"{expected:.4f} within 3 %")
    assert relative(period, 1.0 / damped) < 0.03
    assert relative(overshoot, expected) < 0.03


def test_critically_damped_soft_pin_settles_without_overshoot():
    t, x = _step_response(3.0, 1.0)
    # x(t) = -0.1 (1 + w t) e^(-w t): after 1 s at 3 Hz it is 2e-7 m off, never past
    assert x.max() < 1e-4
    assert abs(x[-1]) < 1e-4


def test_pin_force_never_exceeds_its_limit_in_any_direction():
    # a 10 kg box pulled toward a target 2 m away along a diagonal by at most 50 N: a limit
    # per axis would pull with sqrt(3) x 50 N = 87 N
    w = lg.World(gravity=(0, 0, 0))
    box = w.add_body(lg.Box((0.2, 0.2, 0.2)), (0, 0, 1), mass=10.0)
    limit = 50.0
    pin = w.add_pin(box, (0, 0, 1), max_force=limit)
    direction = np.ones(3) / math.sqrt(3.0)
    w.set_pin_target(pin, np.array([0, 0, 1]) + 2.0 * direction)
    forces = []
    for _ in range(6):
        w.step(DT)
        linear, _ = w.joint_impulse(pin)
        forces.append(np.linalg.norm(linear) / DT)
    note("capped pin: largest force (N)", max(forces), f"<= {limit}")
    assert max(forces) <= limit * (1.0 + 1e-9)
    # it pulls with all of it, along the diagonal: Newton's second law gives the speed
    v = w.linear_velocities[box]
    expected = limit / 10.0 * 6 * DT
    note("capped pin: speed after 6 frames (m/s)", np.linalg.norm(v), f"{expected:.4f}")
    assert relative(np.linalg.norm(v), expected) < 0.01
    assert np.dot(v, direction) / np.linalg.norm(v) > 0.9999


def test_pin_with_orientation_turns_the_body_with_its_target():
    w = lg.World(gravity=(0, 0, 0))
    box = w.add_body(lg.Box((0.4, 0.1, 0.1)), (0, 0, 1), mass=2.0)
    q0 = w.orientations[box].copy()
    pin = w.add_pin(box, (0.4, 0, 1), orientation=(1, 0, 0, 0))
    worst = 0.0
    for k in range(1, 25):
        turn = qaxis_angle((0, 0, 1), math.radians(90) * k / 24)
        w.set_pin_target(pin, (0.4, 0, 1), turn)
        w.step(DT)
        err = qmul(w.orientations[box], qconj(qmul(turn, q0)))
        worst = max(worst, 2 * math.degrees(math.asin(min(1.0, np.linalg.norm(err[1:])))))
    note("rigid pin with orientation: turn behind its target (deg)", worst, "< 0.1")
    assert worst < 0.1


def test_pin_switched_off_lets_the_body_fall_and_back_on_holds_it_again():
    w = lg.World()
    ball = w.add_body(lg.Sphere(0.1), (0, 0, 2), mass=1.0)
    pin = w.add_pin(ball, (0, 0, 2))
    for _ in range(5):
        w.step(DT)
    assert abs(w.positions[ball][2] - 2.0) < 1e-6
    w.set_pin(pin, enabled=False)
    free = lg.World()                       # the same ball never pinned, dropped from rest
    alone = free.add_body(lg.Sphere(0.1), (0, 0, 2), mass=1.0)
    for _ in range(6):
        w.step(DT)
        free.step(DT)
        assert abs(w.positions[ball][2] - free.positions[alone][2]) < 1e-9
    t = 6 * DT
    note("pin off: fall in 0.25 s (m)", 2.0 - w.positions[ball][2], f"{0.5 * 9.81 * t * t:.4f}")
    # the substeps' integration leads the parabola by 1/n of the fall (n = 48 substeps)
    assert relative(2.0 - w.positions[ball][2], 0.5 * 9.81 * t * t) < 1 / 48 + 0.005
    w.set_pin(pin, enabled=True)
    w.step(DT)
    assert np.linalg.norm(w.positions[ball] - (0, 0, 2)) < 1e-6


def test_pinned_run_replays_bit_for_bit_from_a_saved_state():
    def run(w, pin, box, frames):
        out = []
        for k in frames:
            w.set_pin_target(pin, (math.sin(k / 5.0), 0.2 * k / 24, 1.0 + 0.1 * math.cos(k)))
            w.step(DT)
            out.append(w.positions[box].copy())
        return np.array(out)
    w = lg.World()
    w.add_body(lg.Box((5, 5, 0.5)), (0, 0, -0.5), kind="static")
    box = w.add_body(lg.Box((0.2, 0.2, 0.2)), (0, 0, 1), mass=1.0)
    pin = w.add_pin(box, (0, 0, 1.2), hertz=4.0, damping_ratio=0.5, max_force=30.0)
    run(w, pin, box, range(10))
    state = w.save_state()
    first = run(w, pin, box, range(10, 30))
    w.load_state(state)
    again = run(w, pin, box, range(10, 30))
    assert np.array_equal(first, again)


def test_bad_pin_arguments_name_themselves():
    w = lg.World()
    box = w.add_body(lg.Box((0.2, 0.2, 0.2)), (0, 0, 1))
    hinge = w.add_ball_socket(None, box, (0, 0, 1.2))
    pin = w.add_pin(box, (0, 0, 1))
    for call, words in ((lambda: w.add_pin(box, (0, 0, 1), hertz=-1), "hertz"),
                        (lambda: w.add_pin(box, (0, 0, 1), max_force=-5), "max_force"),
                        (lambda: w.set_pin_target(hinge, (0, 0, 1)), "not a pin"),
                        (lambda: w.set_pin_target(pin, (0, 0, 1), (1, 0, 0, 0)),
                         "holds no orientation")):
        try:
            call()
        except ValueError as exc:
            assert words in str(exc)
        else:
            raise AssertionError(f"no error for {words}")
