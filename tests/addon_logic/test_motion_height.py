"""The height-kept flight fix's timing (addon/motion/fix.py), headless: the flight's length
from the apex, and the re-timing of keys."""

import numpy as np
import pytest

from test_motion_check import G, check, fix


def test_a_flights_length_from_its_apex_is_the_time_a_ball_thrown_that_high_takes():
    # thrown up at 3 m/s from 1 m, landing at 0.8 m: up v^2 / 2g, then down from the apex
    g = 9.81
    apex = 1.0 + 9.0 / (2 * g)
    t_up = 3.0 / g
    t_down = np.sqrt(2 * (apex - 0.8) / g)
    assert fix.flight_seconds(1.0, 0.8, apex, g) == pytest.approx(t_up + t_down, rel=1e-12)
    # the parabola through take-off and landing in that time peaks at that apex
    t = np.linspace(0, t_up + t_down, 2001)
    p = fix.parabola(t, 0.0, t[-1], np.array([0, 0, 1.0]), np.array([0, 0.5, 0.8]), G)
    assert p[:, 2].max() == pytest.approx(apex, abs=1e-6)


def test_height_kept_spans_measure_the_keyed_apex_of_each_flight_with_a_take_off_and_landing():
    dt = 1 / 24
    frames = np.arange(1, 41, dtype=float)
    # a tent: the centre of mass rises 0.5 m in straight lines over frames 11-29
    z = 1.0 + np.interp(frames, [10, 20, 30], [0.0, 0.5, 0.0])
    com = np.column_stack((np.zeros(40), np.zeros(40), z))
    flight = (frames > 10) & (frames < 30)
    settings = check.Settings(gravity=G, dt=dt)
    [(ta, tb, length)] = fix.height_kept_spans(com, flight, frames, settings)
    assert (ta, tb) == (10.0, 30.0)
    assert length == pytest.approx(2 * np.sqrt(2 * 0.5 / 9.81) / dt, rel=1e-12)
    # a flight from the first frame (a drop) has no take-off: not re-timed; nor is one
    # that never rises above its ends (nothing to keep)
    flat = com.copy()
    flat[:, 2] = 1.0
    assert fix.height_kept_spans(flat, flight, frames, settings) == []
    assert fix.height_kept_spans(com, frames < 30, frames, settings) == []


def test_retime_stretches_keys_inside_a_flight_and_shifts_those_after_it():
    spans = [(10.0, 30.0, 15.0), (50.0, 60.0, 14.0)]
    keys = np.array([1.0, 10.0, 20.0, 30.0, 40.0, 50.0, 55.0, 60.0, 70.0])
    out = fix.retime(keys, spans)
    assert out.tolist() == pytest.approx([1, 10, 17.5, 25, 35, 45, 52, 59, 69])
    # monotonic: handles keep their order around keys
    assert np.all(np.diff(fix.retime(np.linspace(0, 80, 801), spans)) > 0)
    assert fix.retime(keys, []).tolist() == keys.tolist()


def test_a_centre_of_mass_held_outside_the_feet_is_balanced_and_a_toppling_one_is_not():
    dt = 1 / 24
    frames = np.arange(30, dtype=float)
    # one foot sample pair standing at x in [0, 0.2]; the body's centre of mass 1 m up
    ch = check.Character(masses=np.array([60.0, 1.0]), centres=np.zeros((2, 3)),
                         inertia=np.array([np.eye(3), np.eye(3) * 0.01]),
                         sample_body=np.array([1, 1]),
                         sample_points=np.array([[0.0, 0, 0], [0.2, 0, 0]]),
                         sample_radius=np.zeros(2))
    floor = check.Ground(planes=np.array([[0.0, 0.0, 1.0, 0.0]]))
    settings = check.Settings(gravity=G, dt=dt)

    def report(x_of_t):
        mats = np.tile(np.eye(4), (30, 2, 1, 1))
        mats[:, 0, :3, 3] = np.column_stack((x_of_t, np.zeros(30), np.ones(30)))
        return check.check(ch, floor, settings, mats, frames)

    # held 10 cm beyond the foot's edge: balanced, every frame moved into the support
    held = report(np.full(30, 0.3))
    assert held.outside.min() > 0.09
    assert not fix.falling_runs(held, settings).any()
    shifts = fix.balance_shifts(held, settings)
    assert np.all(shifts[:, 0] < -0.09)
    # toppling away from the foot, accelerating at half of g: a fall, left alone
    t = frames * dt
    falling = report(0.25 + 0.5 * 9.81 * t * t / 2)
    assert fix.falling_runs(falling, settings).all()
    assert not fix.balance_shifts(falling, settings).any()
    assert fix.balance_shifts(falling, settings, falls=False)[:, 0].min() < -0.05
