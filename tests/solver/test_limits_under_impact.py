"""Joint limits hold when a light link is slammed into them by a heavy one, and the joints'
anchors stay together: the exact solve of the equality rows must not undo the limits."""

import math

import numpy as np

import solver as lg
from probes import FRAME, Anchor, angle_between, note, qconj, qmat, qmul, separation, \
    twist_angle

X = np.array([1.0, 0.0, 0.0])
Y = np.array([0.0, 1.0, 0.0])
PIVOT = np.array([0.0, 0.0, 1.0])
LENGTH = 0.5
LIGHT, HEAVY = 0.2, 20.0


def _ball_on_tip(w, link, omega):
    """A heavy ball on a ball-socket at the tip of `link` (along +X from PIVOT), moving with
    the link's spin omega about PIVOT. Returns the anchor pairs to watch."""
    tip = PIVOT + LENGTH * X
    centre = tip + 0.1 * X
    ball = w.add_body(lg.Sphere(0.1), centre, mass=HEAVY,
                      linear_velocity=np.cross(omega, centre - PIVOT))
    w.add_ball_socket(link, ball, tip)
    return [(Anchor(w, link, tip), Anchor(w, ball, tip))]


def _report(excess, gap, what):
    note(f"{what} limit excess (deg)", math.degrees(excess), "< 3")
    note("anchor separation (mm)", 1000 * gap, "< 1")
    assert math.degrees(excess) < 3.0, \
        f"the {what} went {math.degrees(excess):.2f} deg past its limit (allowed 3)"
    assert gap < 1e-3, f"anchors {1000 * gap:.3f} mm apart (allowed 1 mm)"


def test_hinge_limit_stops_a_heavy_ball_thrown_down_on_a_light_lever():
    # A 0.2 kg lever hinged to the world at one end (limits +-0.1 rad about +Y) carries a
    # 20 kg ball at its tip. Thrown at 10 rad/s, the tip (and ball) moving down at 5-6 m/s,
    # the upper limit must stop 100 times the lever's mass, then hold it up against gravity.
    lower, upper = -0.1, 0.1
    omega = 10.0 * Y                      # right-handed about +Y: the tip turns down
    w = lg.World()
    lever = w.add_body(lg.Box((LENGTH / 2, 0.02, 0.02)), PIVOT + LENGTH / 2 * X, mass=LIGHT,
                       angular_velocity=omega,
                       linear_velocity=np.cross(omega, LENGTH / 2 * X))
    w.add_hinge(None, lever, PIVOT, Y, lower=lower, upper=upper)
    anchors = [(Anchor(w, None, PIVOT), Anchor(w, lever, PIVOT))] + _ball_on_tip(w, lever, omega)
    q0 = w.orientations[lever].copy()

    excess, gap = 0.0, 0.0
    for _ in range(120):
        w.step(FRAME)
        angle = twist_angle(qmul(w.orientations[lever], qconj(q0)), Y)
        excess = max(excess, angle - upper, lower - angle)
        gap = max(gap, max(separation(a, b) for a, b in anchors))
    _report(excess, gap, "hinge")


def test_swing_cone_holds_a_heavy_ball_hanging_from_a_light_link():
    # A 0.2 kg link on a ragdoll joint to the world (twist axis +X, a 0.2 rad cone) starts
    # level with a 20 kg ball at its tip: the ball falls and the cone must catch and hold it.
    cone = 0.2
    w = lg.World()
    along_x = (math.cos(math.pi / 4), 0.0, math.sin(math.pi / 4), 0.0)   # capsule Z -> X
    link = w.add_body(lg.Capsule(0.03, LENGTH / 2 - 0.03), PIVOT + LENGTH / 2 * X,
                      orientation=along_x, mass=LIGHT)
    w.add_ragdoll(None, link, PIVOT, X, swing1=cone, swing2=cone, twist_lower=-0.2,
                  twist_upper=0.2)
    anchors = [(Anchor(w, None, PIVOT), Anchor(w, link, PIVOT))] + \
        _ball_on_tip(w, link, np.zeros(3))
    bone = qmat(w.orientations[link]).T @ X

    excess, gap = 0.0, 0.0
    for _ in range(120):
        w.step(FRAME)
        swing = angle_between(qmat(w.orientations[link]) @ bone, X)
        excess = max(excess, swing - cone)
        gap = max(gap, max(separation(a, b) for a, b in anchors))
    _report(excess, gap, "swing cone")
