"""The balance assist (solver/balance.py): a force at the centre of mass toward the support
polygon that holds up a pushed standing ragdoll, is zero when balanced and fades as balance
returns."""

import numpy as np
import pytest

import solver as lg
from solver.balance import BalanceAssist, shortfall
from solver.polygon import convex_hull

DT = 1.0 / 24.0
PUSH = 40.0         # N s, at the shoulders: enough to topple the figure


def _figure():
    """A 70 kg two-body ragdoll standing on the ground: legs (30 kg, 0.3 x 0.2 x 0.9 m) and
    a torso (40 kg) on them, jointed at the hips by a ragdoll joint driven toward standing
    straight (10 Hz); its feet are the legs' 0.3 x 0.2 m sole."""
    w = lg.World(gravity=(0.0, 0.0, -9.81), substeps=8)
    w.add_body(lg.Plane((0.0, 0.0, 1.0), 0.0), (0.0, 0.0, 0.0), kind="static", friction=0.8)
    legs = w.add_body(lg.Box((0.15, 0.1, 0.45)), (0.0, 0.0, 0.45), mass=30.0, friction=0.8)
    torso = w.add_body(lg.Box((0.15, 0.1, 0.4)), (0.0, 0.0, 1.3), mass=40.0, friction=0.8)
    j = w.add_ragdoll(legs, torso, anchor=(0.0, 0.0, 0.9), twist_axis=(0.0, 0.0, 1.0),
                      swing1=0.8, swing2=0.8, twist_lower=-0.5, twist_upper=0.5)
    w.set_drive(j, (1.0, 0.0, 0.0, 0.0), 10.0, 1.0)
    return w, legs, torso


def _pushed(assisted, seconds=4.0):
    """The figure settled for a second, pushed forward (+Y) at the shoulders, then run for
    `seconds`: (world, torso, assist, forces (n, 3) after the push)."""
    w, legs, torso = _figure()
    assist = BalanceAssist(w, [legs, torso])
    for _ in range(24):
        w.step(DT)
    w.apply_impulse(torso, (0.0, PUSH, 0.0), point=(0.0, 0.0, 1.6))
    forces = []
    for _ in range(round(seconds / DT)):
        forces.append(assist.apply(DT) if assisted else np.zeros(3))
        w.step(DT)
    return w, torso, assist, np.array(forces)


def test_a_pushed_standing_ragdoll_stays_up_with_the_assist_and_falls_without_it():
    w, torso, _, _ = _pushed(assisted=False)
    assert w.positions[torso][2] < 0.5                  # lying on the ground
    w, torso, assist, _ = _pushed(assisted=True)
    assert w.positions[torso][2] == pytest.approx(1.3, abs=0.02)     # standing
    # over its feet: the centre of mass within the sole (and at rest)
    c, v = assist.centre_of_mass()
    assert abs(c[0]) < 0.15 and abs(c[1]) < 0.1
    assert np.linalg.norm(v) < 0.02


def test_the_assist_pushes_nothing_while_the_ragdoll_is_balanced():
    assisted, legs, torso = _figure()
    free = _figure()[0]
    assist = BalanceAssist(assisted, [legs, torso])
    for _ in range(48):
        assert not assist.apply(DT).any()
        assisted.step(DT)
        free.step(DT)
    # no force at all: the same motion bit for bit as a world without the assist
    assert np.array_equal(assisted.positions, free.positions)
    assert assist.impulse == 0.0


def test_the_assists_push_fades_as_balance_returns_and_its_impulse_is_bounded():
    _, _, assist, forces = _pushed(assisted=True)
    size = np.linalg.norm(forces, axis=1)
    horizontal = np.abs(forces[:, 2]).max() == 0.0
    assert horizontal                                   # across gravity only
    assert size.max() <= 0.5 * 70.0 * 9.81 + 1e-9        # capped at half the weight
    assert size[-24:].max() < 0.01 * size.max()           # the last second: all but gone
    # it pushes back against the push (toward -Y) and gives no more than a few times its
    # impulse in all (the push's momentum, and gravity's tipping while it leaned)
    assert forces[:12, 1].max() <= 0.0 and forces[:12, 1].min() < 0.0
    assert assist.impulse < 3.0 * PUSH


def test_in_flight_the_assist_pushes_nothing():
    w = lg.World(gravity=(0.0, 0.0, -9.81))
    w.add_body(lg.Plane((0.0, 0.0, 1.0), 0.0), (0.0, 0.0, 0.0), kind="static")
    b = w.add_body(lg.Sphere(0.2), (0.0, 0.0, 3.0), mass=5.0, linear_velocity=(1.0, 0.0, 0.0))
    assist = BalanceAssist(w, [b])
    for _ in range(6):
        assert not assist.apply(DT).any()
        w.step(DT)


def test_launch_gives_the_centre_of_mass_a_velocity_and_keeps_the_motion_relative_to_it():
    w, legs, torso = _figure()
    w.linear_velocities[torso] = (0.0, 0.5, 0.0)
    before = w.linear_velocities[torso] - w.linear_velocities[legs]
    assist = BalanceAssist(w, [legs, torso])
    impulse = assist.launch((0.3, 0.0, 2.0))
    _, v = assist.centre_of_mass()
    assert v == pytest.approx((0.3, 0.0, 2.0), abs=1e-12)
    assert w.linear_velocities[torso] - w.linear_velocities[legs] == pytest.approx(before)
    # 70 kg from (0, 40 * 0.5 / 70, 0) to (0.3, 0, 2)
    assert impulse == pytest.approx(70.0 * np.array((0.3, -0.5 * 40.0 / 70.0, 2.0)))


def test_the_support_polygon_and_the_shortfall():
    square = [(0, 0), (1, 0), (1, 1), (0, 1), (0.5, 0.5), (1, 0.5)]
    hull = convex_hull(square)
    assert len(hull) == 4
    assert sorted(map(tuple, hull)) == [(0, 0), (0, 1), (1, 0), (1, 1)]
    # counter-clockwise: positive area
    x, y = hull[:, 0], hull[:, 1]
    assert 0.5 * (x * np.roll(y, -1) - np.roll(x, -1) * y).sum() == pytest.approx(1.0)
    e, d = shortfall((0.5, 0.5), hull, 0.1)            # deep inside
    assert e == 0.0 and not d.any()
    e, d = shortfall((0.95, 0.5), hull, 0.1)           # inside, within the margin
    assert e == pytest.approx(0.05) and d == pytest.approx((-1.0, 0.0))
    e, d = shortfall((1.3, 0.5), hull, 0.1)            # outside
    assert e == pytest.approx(0.4) and d == pytest.approx((-1.0, 0.0))
    e, d = shortfall((2.0, 2.0), [(0.0, 0.0), (1.0, 1.0)], 0.1)    # a segment
    assert e == pytest.approx(np.sqrt(2.0)) and d == pytest.approx(-np.ones(2) / np.sqrt(2))


def test_bad_input_is_refused_with_a_message_naming_it():
    w, legs, torso = _figure()
    with pytest.raises(ValueError, match="bodies"):
        BalanceAssist(w, [])
    with pytest.raises(ValueError, match="not bodies of this world"):
        BalanceAssist(w, [legs, 99])
    with pytest.raises(ValueError, match="gain"):
        BalanceAssist(w, [legs], gain=-1.0)
    w.gravity = (0.0, 0.0, 0.0)
    with pytest.raises(ValueError, match="gravity"):
        BalanceAssist(w, [legs, torso]).force(support=[(0.0, 0.0, 0.0)])
