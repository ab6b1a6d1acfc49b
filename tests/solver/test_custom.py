"""Custom constraints written as expressions (World.add_custom), at 60 Hz with
World defaults, against the built-in joints they rewrite and against analytic mechanics."""

import json
import math
import os
import subprocess
import sys
import time

import numpy as np
import pytest

import solver as lg
from solver import custom
from probes import FRAME, G, note, period_from_crossings, qmat, relative

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


# --- the same motion as the built-in joints ----------------------------------------------

def _double_pendulum(use_custom):
    """Two rods from a world point, released horizontal: each link's anchors sit off its
    centre of mass, so the rows' angular Jacobians matter."""
    w = lg.World()
    a = w.add_body(lg.Box((0.5, 0.05, 0.05)), (0.5, 0, 3), mass=2.0)
    b = w.add_body(lg.Box((0.4, 0.05, 0.05)), (1.7, 0, 3), mass=1.0)
    links = [(None, a, (-0.3, 0, 3), (0.0, 0, 3)), (a, b, (1.0, 0, 3), (1.3, 0, 3))]
    for p, q, anchor_p, anchor_q in links:
        if use_custom:
            length = np.linalg.norm(np.subtract(anchor_q, anchor_p))
            w.add_custom([p, q], f"length(pA - pB) - {float(length)!r}", anchors=[anchor_p, anchor_q])
        else:
            w.add_distance(p, q, anchor_p, anchor_q)
    return w


@pytest.mark.slow
def test_custom_length_moves_a_double_pendulum_as_add_distance_does():
    built_in, written = _double_pendulum(False), _double_pendulum(True)
    worst, lowest = 0.0, 3.0
    for _ in range(300):
        built_in.step(FRAME)
        written.step(FRAME)
        worst = max(worst, float(np.abs(built_in.positions - written.positions).max()))
        lowest = min(lowest, float(built_in.positions[:, 2].min()))
    swing = 3.0 - lowest
    note("custom length vs add_distance, double pendulum over 5 s: largest position "
         "difference (m)", worst, "< 1e-6")
    assert swing > 1.0, f"the pendulum hardly moved ({swing:.3f} m): nothing was compared"
    assert worst < 1e-6, f"the custom constraint's motion differs by {worst:.2e} m"


def _atwood(use_custom, m1=3.0, m2=1.0, ratio=2.0):
    w = lg.World()
    b1 = w.add_body(lg.Sphere(0.1), (0, 0, 5), mass=m1)
    b2 = w.add_body(lg.Sphere(0.1), (1, 0, 5), mass=m2)
    f1, f2 = np.array([0, 0, 10.0]), np.array([1, 0, 10.0])
    if use_custom:
        w.add_custom([b1, b2, None, None], f"length(pA - pC) + {ratio} * length(pB - pD) - "
                     f"{5.0 * (1 + ratio)}", anchors=[(0, 0, 5), (1, 0, 5), f1, f2])
    else:
        w.add_pulley(b1, b2, (0, 0, 5), (1, 0, 5), f1, f2, ratio=ratio)
    length = lambda: (np.linalg.norm(w.positions[b1] - f1)
                      + ratio * np.linalg.norm(w.positions[b2] - f2))
    return w, b1, length


def test_custom_pulley_over_two_world_points_matches_add_pulley():
    m1, m2, ratio = 3.0, 1.0, 2.0
    expected = G * (m1 - m2 / ratio) / (m1 + m2 / ratio ** 2)    # see test_mechanisms.py
    built_in, _, _ = _atwood(False, m1, m2, ratio)
    w, b1, length = _atwood(True, m1, m2, ratio)
    L0 = length()
    t, z, stretch, apart = [0.0], [w.positions[b1][2]], 0.0, 0.0
    for _ in range(60):
        w.step(FRAME)
        built_in.step(FRAME)
        t.append(w.time)
        z.append(w.positions[b1][2])
        stretch = max(stretch, abs(length() - L0))
        apart = max(apart, float(np.abs(w.positions - built_in.positions).max()))
    a1 = -2.0 * np.polyfit(t, z, 2)[0]
    note("custom pulley (ratio 2): a1 (m/s^2)", a1, f"{expected:.4f} within 1 %")
    note("custom pulley: largest rope length change (mm)", 1e3 * stretch, "< 1")
    note("custom pulley vs add_pulley: largest position difference (m)", apart, "< 1e-6")
    assert relative(a1, expected) < 0.01, f"a1 = {a1:.4f}, analytic {expected:.4f}"
    assert stretch < 1e-3, f"the rope's length changed by up to {1e3 * stretch:.3f} mm"
    assert apart < 1e-6, f"the custom pulley moved {apart:.2e} m away from add_pulley"


# --- bounds and softness -----------------------------------------------------------------

def test_one_sided_custom_constraint_is_a_rope():
    # "2 - length" >= 0: the ball may come closer than 2 m to the pivot, never farther. It
    # starts 1 m beside the pivot and falls freely until the rope is taut, when
    # 1 + ... |ball - pivot| = 2: z drop d with 1 + d^2 = 4 -> d = sqrt(3), t = sqrt(2 d / g).
    w = lg.World()
    pivot = np.array([0.0, 0.0, 5.0])
    ball = w.add_body(lg.Sphere(0.1), pivot + (1, 0, 0), mass=1.0)
    j = w.add_custom([None, ball], "2 - length(pA - pB)", lower=0.0, anchors=[pivot, None])
    taut_at = math.sqrt(2 * math.sqrt(3.0) / G)
    longest, slack_pulled = 0.0, False
    while w.time < 3.0:
        w.step(FRAME)
        d = np.linalg.norm(w.positions[ball] - pivot)
        longest = max(longest, d)
        if w.time < taut_at - FRAME:
            slack_pulled |= abs(w.linear_velocities[ball][2] + G * w.time) > 1e-9 or \
                np.any(w.joint_impulse(j)[0] != 0.0)
    note("custom rope: longest distance from the pivot (m)", longest, "2 + < 1 mm")
    assert not slack_pulled, "the slack custom rope pulled the falling ball"
    assert 2.0 - 1e-3 < longest < 2.0 + 1e-3, f"the rope let the ball reach {longest:.4f} m"
    assert w.positions[ball][2] < pivot[2] - 1.0, "the ball did not swing down on the rope"


def test_custom_range_stops_a_ball_at_both_bounds():
    # "pA.z" in [1, 2.3]: thrown up at 3 m/s from z = 2 (free flight would reach
    # 2 + 9 / 2g = 2.46 m) the ball stops at 2.3, then falls and rests on the lower bound.
    w = lg.World()
    ball = w.add_body(lg.Sphere(0.1), (0, 0, 2), mass=1.0, linear_velocity=(0, 0, 3.0))
    w.add_custom([ball], "pA.z", lower=1.0, upper=2.3)
    highest = 0.0
    while w.time < 2.0:
        w.step(FRAME)
        highest = max(highest, w.positions[ball][2])
    note("custom range [1, 2.3]: highest z (m)", highest, "2.3 + < 1 mm")
    note("custom range [1, 2.3]: z after 2 s (m)", w.positions[ball][2], "1 within 1 mm")
    assert 2.3 - 1e-3 < highest < 2.3 + 1e-3, f"the ball rose to {highest:.4f} m"
    assert abs(w.positions[ball][2] - 1.0) < 1e-3, f"it rests at {w.positions[ball][2]:.4f} m"


@pytest.mark.parametrize("stiffness", [100.0, 400.0])
def test_soft_custom_constraint_oscillates_at_sqrt_k_over_m(stiffness):
    # A 2 kg ball hangs on a spring C = length - 1 from a world point, released at rest with
    # the spring unstretched: it oscillates about the sag m g / k at sqrt(k / m) / 2 pi.
    m = 2.0
    w = lg.World()
    top = np.array([0.0, 0.0, 5.0])
    ball = w.add_body(lg.Sphere(0.05), top - (0, 0, 1), mass=m)
    w.add_custom([None, ball], "length(pA - pB) - 1", stiffness=stiffness, anchors=[top, None])
    sag = m * G / stiffness
    t, x = [], []
    while w.time < 4.0:
        w.step(FRAME)
        t.append(w.time)
        x.append(top[2] - 1.0 - sag - w.positions[ball][2])
    period = period_from_crossings(np.array(t), np.array(x))
    expected = 2 * math.pi * math.sqrt(m / stiffness)
    note(f"soft custom k={stiffness:g}: period (s)", period, f"{expected:.4f} within 2 %")
    assert relative(period, expected) < 0.02, f"period {period:.4f} s, expected {expected:.4f}"
    assert abs(max(x) - sag) < 0.1 * sag, f"amplitude {max(x):.4f} m, expected about {sag:.4f}"


def test_soft_one_sided_custom_constraint_is_an_elastic_rope():
    # "2 - length" >= 0 with stiffness k and damping 0.7 of critical: a 2 kg ball hanging on
    # it settles with the rope stretched by m g / k; raised above the rope's reach it falls
    # freely (the bound only pushes while it is violated).
    m, k = 2.0, 500.0
    w = lg.World()
    top = np.array([0.0, 0.0, 5.0])
    ball = w.add_body(lg.Sphere(0.05), top - (0, 0, 2), mass=m)
    w.add_custom([None, ball], "2 - length(pA - pB)", lower=0.0, stiffness=k,
                 damping=2 * 0.7 * math.sqrt(k * m), anchors=[top, None])
    while w.time < 4.0:
        w.step(FRAME)
    stretch = np.linalg.norm(w.positions[ball] - top) - 2.0
    note("soft custom rope: stretch at rest (m)", stretch, f"{m * G / k:.4f} within 2 %")
    assert relative(stretch, m * G / k) < 0.02, f"stretch {stretch:.5f}, m g / k {m * G / k:.5f}"
    w.positions[ball] = top - (0, 0, 1)
    w.linear_velocities[ball] = (0, 0, 0)
    for _ in range(10):
        w.step(FRAME)
    assert abs(w.linear_velocities[ball][2] + G * 10 * FRAME) < 1e-9, "a slack rope pulled"


def _decay_rate(damping, m=1.0, k=200.0):
    """Peaks' decay rate (1/s) of a ball pulled 0.1 m out on a custom spring, no gravity."""
    w = lg.World(gravity=(0, 0, 0))
    ball = w.add_body(lg.Sphere(0.05), (1.1, 0, 0), mass=m)
    w.add_custom([None, ball], "length(pA - pB) - 1", stiffness=k,
                 damping=damping, anchors=[(0, 0, 0), None])
    t, x = [], []
    while w.time < 3.0:
        w.step(FRAME)
        t.append(w.time)
        x.append(w.positions[ball][0] - 1.0)
    x = np.array(x)
    peaks = [i for i in range(1, len(x) - 1) if x[i] > x[i - 1] and x[i] >= x[i + 1]]
    assert len(peaks) >= 4, "no damped oscillation to measure"
    return -np.polyfit(np.array(t)[peaks], np.log(x[peaks]), 1)[0]


def test_custom_damping_decays_the_oscillation_at_b_over_2m():
    # x(t) ~ exp(-b t / 2m) cos(...): a damper b adds b / 2m to the peaks' decay rate. The
    # soft step integrates the spring implicitly, which damps it a little on its own (about
    # omega^2 h, 0.42/s here): measured with b = 0 and taken off.
    m, b = 1.0, 2.0
    own = _decay_rate(0.0, m)
    rate = _decay_rate(b, m) - own
    note("custom damper: the implicit spring's own decay rate (1/s)", own, "(subtracted)")
    note("custom damper: decay rate added by b = 2 (1/s)", rate, f"{b / (2 * m):.3f} within 5 %")
    assert relative(rate, b / (2 * m)) < 0.05, f"decay rate {rate:.4f}/s, expected {b / 2 / m}"


def test_custom_axis_stays_horizontal_while_the_body_spins():
    # A ball-socket holds a box at its centre; "uA.z" = 0 keeps the box's X axis horizontal,
    # so of a spin about a tilted axis only the part about world Z survives.
    w = lg.World(gravity=(0, 0, 0))
    box = w.add_body(lg.Box((0.4, 0.1, 0.1)), (0, 0, 1), angular_velocity=(1.0, 2.0, 3.0))
    w.add_ball_socket(None, box, (0, 0, 1))
    w.add_custom([box], "uA.z", axes=[(1, 0, 0)])
    w.add_custom([box], "YA.z")                   # and its Y axis: it turns about Z only
    worst = 0.0
    for _ in range(120):
        w.step(FRAME)
        r = qmat(w.orientations[box])
        worst = max(worst, abs(r[2, 0]), abs(r[2, 1]))
    spin = w.angular_velocities[box]
    note("custom axes: largest tilt of the box's X and Y out of the horizontal", worst, "< 1e-3")
    assert worst < 1e-3, f"the box's axes tilted by up to {worst:.2e}"
    assert abs(spin[2]) > 1.0 and abs(spin[0]) + abs(spin[1]) < 1e-3, f"spin {spin}"


# --- sleeping, warm starting, save and load -------------------------------------------------

def _hanging_pair():
    w = lg.World()
    a = w.add_body(lg.Sphere(0.1), (0, 0, 4), mass=1.0)
    b = w.add_body(lg.Sphere(0.1), (0, 0, 3), mass=1.0)
    w.add_custom([None, a], "length(pA - pB) - 1", anchors=[(0, 0, 5), None])
    w.add_custom([a, b], "length(pA - pB) - 1")
    return w, a, b


def test_custom_constraint_keeps_its_bodies_in_one_island():
    w, a, b = _hanging_pair()
    for _ in range(60):
        w.step(FRAME)
    assert w.is_sleeping(a) and w.is_sleeping(b), "the hanging pair did not fall asleep"
    w.linear_velocities[b] = (1.0, 0.0, 0.0)        # push the lower ball only
    w.step(FRAME)
    assert not w.is_sleeping(a), "pushing b did not wake a, tied to it by a custom constraint"
    assert abs(np.linalg.norm(w.positions[a] - w.positions[b]) - 1.0) < 1e-3


def test_save_and_load_state_replays_a_custom_constraint_exactly():
    w, a, b = _hanging_pair()
    w.linear_velocities[b] = (2.0, 0.0, 0.0)
    for _ in range(10):
        w.step(FRAME)
    state = w.save_state()
    first = []
    for _ in range(20):
        w.step(FRAME)
        first.append(w.positions.copy())
    w.load_state(state)
    for k in range(20):
        w.step(FRAME)
        assert np.array_equal(w.positions, first[k]), f"frame {k} differs after load_state"


# --- compiling once, loading after -----------------------------------------------------------

_SECOND_PROCESS = """
import json, sys, time
sys.path.insert(0, {root!r})
import solver as lg
from solver import custom
w = lg.World()
a = w.add_body(lg.Sphere(0.1), (0, 0, 4), mass=1.0)
t = time.perf_counter()
w.add_custom([None, a], {expression!r}, anchors=[(0, 0, 5), None])
seconds = time.perf_counter() - t
for _ in range(30):
    w.step(1 / 60)
print(json.dumps(dict(custom.last_build, seconds=seconds, sympy="sympy" in sys.modules,
                      z=float(w.positions[a][2]))))
"""


@pytest.mark.slow
def test_first_use_compiles_and_a_second_process_loads_from_the_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LIGAMENT_CUSTOM_CACHE", str(tmp_path))    # an empty cache
    monkeypatch.setattr(custom, "_loaded", {})                      # and nothing in memory
    expression = "length(pA - pB) + 0 * atan2(pB.x, pB.y + 3) - 1"
    w = lg.World()
    a = w.add_body(lg.Sphere(0.1), (0, 0, 4), mass=1.0)
    w.step(FRAME)                     # the solver's kernels are cached for the second process
    t = time.perf_counter()
    w.add_custom([None, a], expression, anchors=[(0, 0, 5), None])
    first = time.perf_counter() - t
    assert custom.last_build["derived"] and custom.last_build["compiled"]
    note("custom constraint: first use, derived by sympy and compiled by numba (s)", first,
         "timed")
    env = dict(os.environ, LIGAMENT_CUSTOM_CACHE=str(tmp_path))
    out = subprocess.run([sys.executable, "-c", _SECOND_PROCESS.format(
        root=ROOT, expression=expression.replace("- 1", "- 0.5"))],
        capture_output=True, text=True, env=env, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    second = json.loads(out.stdout.strip().splitlines()[-1])
    note("custom constraint: second process, loaded from the cache (s)", second["seconds"],
         "no compile")
    assert not second["derived"], "the second process derived the expression again"
    assert not second["compiled"], "the second process compiled the expression again"
    assert not second["sympy"], "the second process imported sympy"
    assert abs(second["z"] - 4.5) < 1e-3, \
        f"the ball hangs at z = {second['z']:.4f}, 0.5 m under the anchor is 4.5"


# --- refusals --------------------------------------------------------------------------------

@pytest.mark.parametrize("expression, bodies, words", [
    ("length(pA - pE)", 2, ["unknown symbol 'pE'", "column 13"]),
    ("length(pA - pC)", 2, ["'pC'", "bodies has 2 entries"]),
    ("pA - pB", 2, ["is a vector", "scalar"]),
    ("length(pA) + pB", 2, ["cannot add a scalar and a vector", "column 1"]),
    ("dot(pA, 2)", 2, ["argument 2 of dot must be a vector", "column 9"]),
    ("pA * pB", 2, ["cannot multiply two vectors"]),
    ("length(pA - pB", 2, ["invalid syntax"]),
    ("lenght(pA - pB)", 2, ["unknown function 'lenght'"]),
    ("pA.w", 2, ["unknown component .w"]),
    ("pA.z < 1", 2, ["Compare is not part of the vocabulary"]),
])
def test_bad_expressions_name_the_problem_and_where_it_is(expression, bodies, words):
    w = lg.World()
    ids = [w.add_body(lg.Sphere(0.1), (i, 0, 1)) for i in range(bodies)]
    with pytest.raises(ValueError) as err:
        w.add_custom(ids, expression)
    for word in words:
        assert word in str(err.value), f"{word!r} is not in: {err.value}"
    assert w.joint_count == 0


@pytest.mark.parametrize("call, words", [
    (lambda w, ids: w.add_custom([None, None], "length(pA - pB)"), ["at least one body"]),
    (lambda w, ids: w.add_custom([ids[0], None], "pB.z - 1"), ["constrains nothing"]),
    (lambda w, ids: w.add_custom(ids[:2], "length(pA - pB) - 1", damping=1.0),
     ["damping needs a stiffness"]),
    (lambda w, ids: w.add_custom(ids[:2], "length(pA - pB) - 1", stiffness=-1.0),
     ["stiffness must be >= 0"]),
    (lambda w, ids: w.add_custom(ids[:2], "length(pA - pB)", lower=2.0, upper=1.0),
     ["lower (2) must not be greater than upper (1)"]),
    (lambda w, ids: w.add_custom(ids[:2], "length(pA - pB)", anchors=[(0, 0, 0)]),
     ["anchors must have one entry per entry of bodies (2)"]),
    (lambda w, ids: w.add_custom(ids[:2], "dot(uA, uB)", axes=[(0, 0, 0), None]),
     ["axes[0] must not be a zero-length vector"]),
    (lambda w, ids: w.add_custom(ids + ids, "pA.z"), ["1 to 4 entries"]),
    (lambda w, ids: w.add_custom(ids[0], "pA.z"), ["bodies must be a list"]),
])
def test_bad_custom_arguments_are_refused(call, words):
    w = lg.World()
    ids = [w.add_body(lg.Sphere(0.1), (i, 0, 1)) for i in range(3)]
    with pytest.raises(ValueError) as err:
        call(w, ids)
    for word in words:
        assert word in str(err.value), f"{word!r} is not in: {err.value}"
    assert w.joint_count == 0
