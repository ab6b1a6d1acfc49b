"""Forces from scripts and Blender's force fields, checked against analytic motion."""

import math

import numpy as np
import pytest

import solver as lg

DT = 1.0 / 60.0


def _free(shape=None, mass=2.0, **kw):
    """A world without gravity and one free body at the origin."""
    w = lg.World(gravity=(0.0, 0.0, 0.0), sleeping=False, **kw)
    b = w.add_body(shape or lg.Sphere(0.5), (0.0, 0.0, 0.0), mass=mass)
    return w, b


def _run(w, seconds):
    for _ in range(round(seconds / DT)):
        w.step(DT)


def test_wind_field_gives_strength_over_mass():
    w, b = _free()
    w.add_field("wind", axis=(1.0, 0.0, 0.0), strength=6.0)
    _run(w, 1.0)
    assert w.linear_velocities[b] == pytest.approx((3.0, 0.0, 0.0), abs=1e-9)
    # semi-implicit Euler over 480 substeps: a t^2 / 2 (1 + 1/480)
    assert w.positions[b][0] == pytest.approx(1.5, rel=3e-3)


def test_force_field_pushes_away_from_its_centre_as_blenders_rigid_bodies_at_their_fps():
    # Blender's rigid body world divides a field's strength by the scene's fps
    w, b = _free()
    w.add_field("force", position=(0.0, 0.0, -50.0), strength=48.0, blender_fps=24)
    _run(w, 0.5)
    assert w.linear_velocities[b][2] == pytest.approx(48.0 / 24.0 / 2.0 * 0.5, rel=1e-3)
    assert abs(w.linear_velocities[b][0]) < 1e-12


def test_force_falloff_power_and_max_distance():
    w = lg.World(gravity=(0, 0, 0))
    ids = [w.add_body(lg.Sphere(0.1), (r, 0.0, 0.0), mass=1.0) for r in (0.5, 2.0, 4.0)]
    w.add_field("force", strength=-3.0, falloff_power=2.0, distance_max=3.0)
    f = w.field_forces()
    assert f[ids[0]] == pytest.approx((-3.0 / 1.5 ** 2, 0.0, 0.0))    # towards: strength < 0
    assert f[ids[1]] == pytest.approx((-3.0 / 3.0 ** 2, 0.0, 0.0))
    assert f[ids[2]] == pytest.approx((0.0, 0.0, 0.0))                 # past distance_max


def test_z_direction_and_plane_shape():
    w = lg.World(gravity=(0, 0, 0))
    up = w.add_body(lg.Sphere(0.1), (3.0, 1.0, 2.0), mass=1.0)
    down = w.add_body(lg.Sphere(0.1), (0.0, 0.0, -2.0), mass=1.0)
    w.add_field("force", shape="plane", strength=2.0, falloff_power=1.0,
                z_direction="positive")
    f = w.field_forces()
    # a plane field pushes along its normal, its distance is the height above the plane
    assert f[up] == pytest.approx((0.0, 0.0, 2.0 / 3.0))
    assert f[down] == pytest.approx((0.0, 0.0, 0.0))


def test_vortex_point_turns_about_its_axis():
    w = lg.World(gravity=(0, 0, 0))
    b = w.add_body(lg.Sphere(0.1), (2.0, 0.0, 0.0), mass=1.0)
    w.add_field("vortex", strength=1.5)
    assert w.field_forces()[b] == pytest.approx((0.0, 1.5 * 2.0, 0.0))


def test_harmonic_field_oscillates_with_its_period():
    k, m = 8.0, 2.0
    w, b = _free(mass=m)
    w.positions[b] = (0.3, 0.0, 0.0)
    w.add_field("harmonic", strength=k)
    period = 2 * math.pi * math.sqrt(m / k)
    _run(w, period / 2)
    # half a period later the body is on the other side (semi-implicit Euler keeps energy
    # to O(h))
    assert w.positions[b][0] == pytest.approx(-0.3, abs=0.3 * 0.01)


def test_drag_field_brings_a_falling_body_to_its_terminal_speed():
    m, g, lin, quad = 1.5, 9.81, 0.8, 0.6
    w = lg.World(gravity=(0, 0, -g), sleeping=False)
    b = w.add_body(lg.Sphere(0.2), (0.0, 0.0, 100.0), mass=m)
    w.add_field("drag", damping=lin, strength=quad)
    _run(w, 6.0)
    # m g = lin v + quad v^2
    v = (-lin + math.sqrt(lin * lin + 4 * quad * m * g)) / (2 * quad)
    assert -w.linear_velocities[b][2] == pytest.approx(v, rel=1e-3)


def test_flow_damps_towards_rest():
    w, b = _free(mass=1.0)
    w.linear_velocities[b] = (2.0, 0.0, 0.0)
    w.add_field("wind", strength=0.0, flow=0.5)
    _run(w, 2.0)
    # dv/dt = -flow v / m: exp(-1) of the start (implicit enough at 480 substeps a second)
    assert w.linear_velocities[b][0] == pytest.approx(2.0 * math.exp(-1.0), rel=2e-3)


def test_turbulence_is_bounded_smooth_and_changes_with_position():
    w = lg.World(gravity=(0, 0, 0))
    xs = np.linspace(0.0, 3.0, 61)
    ids = [w.add_body(lg.Sphere(0.01), (x, 0.3, 0.7), mass=1.0) for x in xs]
    w.add_field("turbulence", strength=5.0, size=1.0)
    f = w.field_forces()[ids]
    assert np.abs(f).max() <= 5.0
    assert np.std(f[:, 0]) > 0.1                          # it varies ...
    assert np.abs(np.diff(f, axis=0)).max() < 5.0 * 0.5   # ... smoothly at 5 cm steps


def test_noise_follows_its_seed():
    def path(seed):
        w, b = _free()
        w.add_field("wind", axis=(1, 0, 0), strength=1.0, noise=2.0, seed=seed)
        _run(w, 0.5)
        return w.positions[b].copy()
    a, again, other = path(3), path(3), path(4)
    assert np.array_equal(a, again)
    assert not np.allclose(a, other)


def test_keyed_field_moves_and_removed_field_stops():
    w, b = _free(mass=1.0)
    k = w.add_field("force", position=(-5.0, 0.0, 0.0), strength=1.0)
    w.step(DT)
    assert w.linear_velocities[b][0] > 0.0
    w.set_field(k, position=(5.0, 0.0, 0.0))
    w.step(DT)
    assert w.linear_velocities[b][0] == pytest.approx(0.0, abs=1e-12)
    w.remove_field(k)
    v = w.linear_velocities[b].copy()
    w.step(DT)
    assert np.array_equal(w.linear_velocities[b], v)


def test_apply_force_for_one_step_equals_the_impulse_force_times_dt():
    w1, b1 = _free(lg.Box((0.5, 0.2, 0.1)))
    w2, b2 = _free(lg.Box((0.5, 0.2, 0.1)))
    f = np.array([3.0, -1.0, 2.0])
    point = (0.4, 0.1, -0.05)
    w1.apply_force(b1, f, point=point)
    w2.apply_impulse(b2, f * DT, point=point)
    # the impulse turns the body at once, the force over the step: compare after the step
    # the momenta, which no longer change (no gravity, no contact)
    w1.step(DT)
    w2.step(DT)
    assert w1.linear_velocities[b1] == pytest.approx(w2.linear_velocities[b2], rel=1e-9)
    L1 = w1.inertia(b1) @ w1.angular_velocities[b1]
    L2 = w2.inertia(b2) @ w2.angular_velocities[b2]
    assert L1 == pytest.approx(L2, rel=1e-9)
    v = w1.linear_velocities[b1].copy()
    w1.step(DT)                                      # the force was for one step only
    assert w1.linear_velocities[b1] == pytest.approx(v, abs=1e-15)


def test_off_centre_force_gives_the_torque_r_cross_f():
    w, b = _free(lg.Box((0.5, 0.5, 0.5)), mass=6.0)
    f = np.array([0.0, 4.0, 0.0])
    r = np.array([0.5, 0.0, 0.0])
    w.apply_force(b, f, point=w.positions[b] + r)
    w.step(DT)
    inertia = 6.0 * (1.0 ** 2 + 1.0 ** 2) / 12.0          # cube of side 1
    assert w.linear_velocities[b] == pytest.approx(f / 6.0 * DT)
    assert w.angular_velocities[b] == pytest.approx(np.cross(r, f) / inertia * DT)


def test_apply_torque_spins_by_torque_over_inertia():
    w, b = _free(lg.Sphere(0.5), mass=4.0)
    w.apply_torque(b, (0.0, 0.0, 2.0))
    w.step(DT)
    inertia = 0.4 * 4.0 * 0.25
    assert w.angular_velocities[b] == pytest.approx((0.0, 0.0, 2.0 / inertia * DT))


def test_force_wakes_a_sleeping_body():
    w = lg.World()
    w.add_body(lg.Box((5, 5, 0.5)), (0, 0, -0.5), kind="static")
    b = w.add_body(lg.Box((0.5, 0.5, 0.5)), (0, 0, 0.5), mass=1.0)
    _run(w, 1.5)
    assert w.is_sleeping(b)
    w.apply_force(b, (0.0, 0.0, 60.0 * 30.0))
    w.step(DT)
    assert not w.is_sleeping(b) and w.linear_velocities[b][2] > 1.0


def test_pending_forces_are_part_of_the_snapshot():
    w, b = _free()
    w.add_field("wind", strength=1.0, noise=1.0, seed=2)
    w.step(DT)
    w.apply_force(b, (1.0, 2.0, 3.0))
    state = w.save_state()
    w.step(DT)
    w.step(DT)
    end = w.positions[b].copy()
    w.load_state(state)
    w.step(DT)
    w.step(DT)
    assert np.array_equal(w.positions[b], end)


@pytest.mark.parametrize("call, match", [
    (lambda w, b: w.add_field("gravity"), "kind must be one of"),
    (lambda w, b: w.add_field("wind", strenght=1.0), "not a field setting"),
    (lambda w, b: w.add_field("wind", shape="cube"), "shape must be one of"),
    (lambda w, b: w.add_field("wind", axis=(0, 0, 0)), "axis must not be a zero"),
    (lambda w, b: w.add_field("wind", blender_fps=0), "blender_fps must be > 0"),
    (lambda w, b: w.set_field(5, strength=1.0), "field must be a field id"),
    (lambda w, b: w.apply_force(b, (1, 2)), "force must be 3 numbers"),
    (lambda w, b: w.apply_force(0, (1, 2, 3)), "body 0 is static"),
    (lambda w, b: w.apply_impulse(b, (1, 2, 3), point=(0, float("nan"), 0)), "point must be"),
])
def test_bad_input_is_refused_and_changes_nothing(call, match):
    w = lg.World()
    w.add_body(lg.Box((5, 5, 0.5)), (0, 0, -0.5), kind="static")
    b = w.add_body(lg.Sphere(0.5), (0, 0, 2), mass=1.0)
    before = w.save_state()
    with pytest.raises(ValueError, match=match):
        call(w, b)
    after = w.save_state()
    assert w.field_count == 0
    assert np.array_equal(before["bodies"], after["bodies"])
    assert np.array_equal(before["forces"], after["forces"])
