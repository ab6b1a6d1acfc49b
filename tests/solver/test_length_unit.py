"""World(length_unit=...): a scene built in centimetres (length_unit=0.01, every length x100,
gravity in cm/s^2) moves as the same scene in metres, times 100."""

import numpy as np
import pytest

import solver as lg

DT = 1.0 / 60.0
S = 100.0                  # centimetres per metre


def _world(unit, **kw):
    s = 1.0 if unit == 1.0 else S
    w = lg.World(gravity=(0.0, 0.0, -9.81 * s), length_unit=unit, **kw)
    w.add_body(lg.Box((5.0 * s, 5.0 * s, 0.5 * s)), (0.0, 0.0, -0.5 * s), kind="static")
    return w, s


def _stack(unit):
    w, s = _world(unit)
    for i in range(4):
        w.add_body(lg.Box((0.25 * s, 0.25 * s, 0.25 * s)),
                   (0.02 * i * s, 0.0, (0.26 + 0.52 * i) * s))
    return w


def _chain(unit):
    w, s = _world(unit)
    prev = None
    for i in range(5):
        b = w.add_body(lg.Capsule(0.05 * s, 0.15 * s), (0.4 * i * s + 0.2 * s, 0.0, 2.0 * s),
                       orientation=(0.7071067811865476, 0.0, 0.7071067811865476, 0.0))
        anchor = (0.4 * i * s, 0.0, 2.0 * s)
        if prev is None:
            w.add_ball_socket(None, b, anchor)
        else:
            w.add_hinge(prev, b, anchor, axis=(0.0, 1.0, 0.0), lower=-1.0, upper=1.0,
                        spring_hz=2.0, spring_damping=0.3)
        prev = b
    return w


def _slide(unit):
    w, s = _world(unit)
    w.add_body(lg.Box((0.3 * s, 0.2 * s, 0.1 * s)), (0.0, 0.0, 0.1 * s), friction=0.4,
               linear_velocity=(3.0 * s, 0.5 * s, 0.0))
    return w


def _bounce(unit):
    w, s = _world(unit)
    w.add_body(lg.Sphere(0.2 * s), (0.0, 0.0, 1.5 * s), restitution=0.7, rolling_friction=0.01 * s,
               linear_velocity=(0.5 * s, 0.0, 0.0))
    return w


@pytest.mark.parametrize("build, seconds", [(_stack, 2.0), (_chain, 2.0), (_slide, 1.5),
                                            (_bounce, 2.5)])
def test_scene_in_centimetres_moves_as_in_metres_times_100(build, seconds):
    wm, wc = build(1.0), build(0.01)
    assert np.allclose(wc.masses[1:], wm.masses[1:], rtol=1e-12)   # densities stay kg/m^3
    worst = 0.0
    for _ in range(round(seconds / DT)):
        wm.step(DT)
        wc.step(DT)
        worst = max(worst, np.abs(wc.positions / S - wm.positions).max())
        assert np.abs(wc.linear_velocities / S - wm.linear_velocities).max() <= 1e-5
    # 1e-6 of a scene a metre across
    assert worst <= 1e-6
    assert np.abs(wc.orientations - wm.orientations).max() <= 1e-6
    assert wm.contact_count() == wc.contact_count()


def test_bodies_fall_asleep_on_the_same_frame_in_centimetres():
    wm, wc = _stack(1.0), _stack(0.01)
    asleep_m = asleep_c = None
    for frame in range(240):
        wm.step(DT)
        wc.step(DT)
        if asleep_m is None and wm.is_sleeping(1):
            asleep_m = frame
        if asleep_c is None and wc.is_sleeping(1):
            asleep_c = frame
    assert asleep_m is not None and asleep_m == asleep_c


def test_default_gravity_is_standard_gravity_in_the_unit():
    assert lg.World(length_unit=0.01).gravity == pytest.approx((0.0, 0.0, -981.0))
    assert lg.World().gravity == pytest.approx((0.0, 0.0, -9.81))


def test_length_unit_must_be_positive():
    with pytest.raises(ValueError, match="length_unit must be > 0"):
        lg.World(length_unit=0.0)
