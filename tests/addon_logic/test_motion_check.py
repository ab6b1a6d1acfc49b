"""The physics check and fix of keyed motion (addon/motion/check.py, fix.py), headless on
analytic motion: they import neither bpy nor the solver's kernels, so the package is loaded
from its folder under a name of its own (motion_package.py)."""

import math

import numpy as np
import pytest

from motion_package import load

check, fix = load("check"), load("fix")

G = np.array([0.0, 0.0, -9.81])
FPS = 24.0
DT = 1.0 / FPS


def box_inertia(mass, half):
    x, y, z = half
    return np.diag([y * y + z * z, x * x + z * z, x * x + y * y]) * (mass / 3.0)


def character(masses, half_sizes, samples=None):
    """Box bodies (centres of mass at their origins); `samples`: [(body, local point)] with
    radius 0, by default none."""
    samples = samples or []
    return check.Character(
        masses=np.array(masses, float),
        centres=np.zeros((len(masses), 3)),
        inertia=np.array([box_inertia(m, h) for m, h in zip(masses, half_sizes)]),
        sample_body=np.array([b for b, _ in samples], dtype=np.int64),
        sample_points=np.array([p for _, p in samples], float).reshape(-1, 3),
        sample_radius=np.zeros(len(samples)))


def rotation_z(angle):
    c, s = math.cos(angle), math.sin(angle)
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1.0]])


def rotation_axis(axis, angle):
    axis = np.asarray(axis, float) / np.linalg.norm(axis)
    k = np.array([[0, -axis[2], axis[1]], [axis[2], 0, -axis[0]], [-axis[1], axis[0], 0]])
    return np.eye(3) + math.sin(angle) * k + (1 - math.cos(angle)) * k @ k


def posed(offsets, origins, rotations=None):
    """(F, B, 4, 4): body b at origins[f] + R_f offsets[b], turned by R_f (identity when
    `rotations` is None)."""
    f, b = len(origins), len(offsets)
    mats = np.tile(np.eye(4), (f, b, 1, 1))
    for i in range(f):
        r = np.eye(3) if rotations is None else rotations[i]
        for j in range(b):
            mats[i, j, :3, :3] = r
            mats[i, j, :3, 3] = origins[i] + r @ offsets[j]
    return mats


FLOOR = check.Ground(planes=np.array([[0.0, 0.0, 1.0, 0.0]]))
SETTINGS = check.Settings(gravity=G, dt=DT, contact_distance=0.02, contact_speed=0.3)

# three boxes of different masses, placed asymmetrically: the centre of mass is not any
# body's centre
BODIES = character([10.0, 4.0, 1.5], [(0.2, 0.1, 0.3), (0.05, 0.05, 0.2), (0.1, 0.1, 0.1)])
OFFSETS = np.array([[0.0, 0.0, 0.0], [0.3, 0.1, -0.4], [-0.2, 0.25, 0.5]])


def com_offset():
    return (BODIES.masses[:, None] * OFFSETS).sum(0) / BODIES.masses.sum()


def test_a_body_set_on_an_exact_parabola_is_0_cm_from_it():
    frames = np.arange(10, 35)
    t = frames * DT
    # the centre of mass (not the first body) follows p0 + v0 t + g t^2 / 2, far from ground
    com = np.array([1.0, -2.0, 50.0]) + np.outer(t, [1.5, 0.4, 4.0]) + 0.5 * np.outer(t * t, G)
    report = check.check(BODIES, FLOOR, SETTINGS, posed(OFFSETS, com - com_offset()), frames)
    assert [p.kind for p in report.phases] == ['FLIGHT']
    assert report.phases[0].parabola_cm < 1e-8
    assert np.allclose(report.com, com, atol=1e-12)
    # central differences are exact on a parabola
    assert np.allclose(report.com_velocity[1:-1], [1.5, 0.4, 4.0] + np.outer(t, G)[1:-1],
                       atol=1e-9)
    assert np.allclose(report.linear_momentum, BODIES.masses.sum() * report.com_velocity)


def test_a_parabola_under_the_wrong_gravity_reports_its_analytic_distance():
    n = 12
    frames = np.arange(-n, n + 1)
    t = frames * DT
    g_keyed = -5.0
    com = np.column_stack((0.7 * t, 0 * t, 40.0 + 0.5 * g_keyed * t * t))
    report = check.check(BODIES, FLOOR, SETTINGS, posed(OFFSETS, com - com_offset()), frames)
    # the residual is (g' - g) t^2 / 2 less its best line; over frames symmetric about 0 that
    # line is its mean, and the farthest point is the last frame
    mean_t2 = DT * DT * n * (n + 1) / 3.0
    expected = 0.5 * abs(g_keyed - G[2]) * ((n * DT) ** 2 - mean_t2)
    assert report.phases[0].parabola_cm == pytest.approx(100 * expected, rel=1e-9)
    assert expected > 0.05          # 7 cm: not a figure lost in round-off


def _spin(rate):
    """Four boxes on a cross about the centre (principal axes along X, Y, Z), turning about Z
    by `rate(t)` radians (the angle), far above the ground."""
    bodies = character([3.0, 3.0, 2.0, 2.0], [(0.1, 0.2, 0.3)] * 2 + [(0.15, 0.1, 0.05)] * 2)
    offsets = np.array([[0.4, 0, 0], [-0.4, 0, 0], [0, 0.25, 0], [0, -0.25, 0]])
    frames = np.arange(0, 30)
    t = frames * DT
    rots = [rotation_z(rate(x)) for x in t]
    centre = np.tile([0.0, 0.0, 30.0], (len(t), 1))
    return bodies, offsets, frames, check.check(bodies, FLOOR, SETTINGS,
                                                posed(offsets, centre, rots), frames)


def test_a_rigid_body_spinning_at_constant_rate_about_a_principal_axis_keeps_its_momentum():
    omega = 5.0
    bodies, offsets, frames, report = _spin(lambda t: omega * t)
    assert report.phases[0].momentum_percent < 1e-8
    L = report.angular_momentum
    assert np.allclose(L[:, :2], 0.0, atol=1e-10)
    # L = I_zz w: the bodies' own I_zz plus m r^2; the orbit's central difference reads the
    # speed as w r sin(w dt) / (w dt)
    own = sum(i[2, 2] for i in bodies.inertia)
    orbit = sum(m * (o @ o) for m, o in zip(bodies.masses, offsets))
    sinc = math.sin(omega * DT) / (omega * DT)
    assert L[1:-1, 2] == pytest.approx((own + orbit * sinc) * omega, rel=1e-9)
    assert np.allclose(report.inertia[:, 2, 2], own + orbit)


def test_a_spin_kept_from_take_off_to_landing_is_not_read_as_changing_at_either_end():
    """A body standing on the floor, then spinning at a constant rate far above it, then
    standing again: the first and last frame in the air are next to frames on the ground, so
    velocities through them would carry the jump's push and the landing's stop; the spin in
    the air does not change."""
    bodies = character([3.0, 3.0, 2.0, 2.0], [(0.1, 0.2, 0.3)] * 2 + [(0.15, 0.1, 0.05)] * 2,
                       samples=[(0, (0.0, 0.0, -0.3))])
    offsets = np.array([[0.4, 0, 0], [-0.4, 0, 0], [0, 0.25, 0], [0, -0.25, 0]])
    frames = np.arange(0, 30)
    omega = 5.0
    airborne = (frames >= 5) & (frames <= 24)
    angle = np.where(airborne, omega * (frames - 5) * DT, 0.0)
    angle[frames > 24] = omega * 19 * DT
    centre = np.where(airborne[:, None], [0.0, 0.0, 30.0], [0.0, 0.0, 0.3])
    mats = posed(offsets, centre, [rotation_z(a) for a in angle])
    report = check.check(bodies, FLOOR, SETTINGS, mats, frames)
    assert [(p.kind, p.first, p.last) for p in report.phases] == \
        [('STANCE', 0, 4), ('FLIGHT', 5, 24), ('STANCE', 25, 29)]
    assert report.phases[1].momentum_percent < 1e-8
    # the frames at either end do read the push and the stop: they are left out, not smoothed
    L = np.linalg.norm(report.angular_momentum, axis=1)
    assert abs(L[5] - L[10]) > 0.1 * L[10] and abs(L[24] - L[10]) > 0.1 * L[10]


def test_a_spin_that_speeds_up_in_the_air_is_reported():
    _, _, _, report = _spin(lambda t: 2.0 * t + 4.0 * t * t)
    assert report.phases[0].momentum_percent > 50.0


def test_angular_velocity_of_an_oblique_constant_spin_is_exact():
    axis = np.array([0.3, -0.5, 0.8])
    rots = np.array([[rotation_axis(axis, 3.0 * k * DT)] for k in range(8)])
    w = check.angular_velocities(rots, DT)
    assert np.allclose(w[:, 0], 3.0 * axis / np.linalg.norm(axis), atol=1e-9)
    # a half turn per frame (near pi, where the skew part vanishes)
    rots = np.array([[rotation_axis(axis, 3.1 * k)] for k in range(4)])
    w = check.angular_velocities(rots, 1.0)
    assert np.allclose(np.abs(w[1:-1, 0] @ (axis / np.linalg.norm(axis))),
                       (2 * math.pi - 6.2) / 2, atol=1e-6)


def _standing(com_xy, half=0.5, frames=np.arange(1, 6)):
    """Four feet (light boxes, a contact sample at each origin) on the corners of a square
    of half size `half` on the floor, and a heavy body placing the centre of mass at
    `com_xy` (metres)."""
    feet = [(half, half), (-half, half), (-half, -half), (half, -half)]
    bodies = character([60.0] + [0.5] * 4, [(0.2, 0.2, 0.4)] + [(0.05, 0.05, 0.01)] * 4,
                       samples=[(1 + k, (0, 0, 0)) for k in range(4)])
    total = bodies.masses.sum()
    heavy = (np.array([*com_xy, 1.0]) * total - 0.5 * sum(np.array([x, y, 0.0]) for x, y in feet)) / 60.0
    offsets = np.array([heavy] + [[x, y, 0.0] for x, y in feet])
    mats = posed(offsets, np.zeros((len(frames), 3)))
    return check.check(bodies, FLOOR, SETTINGS, mats, frames)


@pytest.mark.parametrize("com_xy, expected", [((0.6, 0.1), 0.1), ((0.1, -0.73), 0.23),
                                             ((0.6, 0.6), math.hypot(0.1, 0.1)),
                                             ((0.2, 0.3), 0.0)])
def test_a_stance_reports_how_far_the_centre_of_mass_is_outside_a_square_support(com_xy,
                                                                                  expected):
    report = _standing(com_xy)
    assert [p.kind for p in report.phases] == ['STANCE']
    assert report.contact.all()
    assert report.phases[0].outside_cm == pytest.approx(100 * expected, abs=1e-9)
    assert report.phases[0].slide_cm == 0.0


def test_a_foot_that_slides_slowly_or_on_the_ground_touches_and_a_fast_one_above_does_not():
    frames = np.arange(0, 20)
    bodies = character([5.0], [(0.1, 0.1, 0.1)], samples=[(0, (0, 0, -0.1))])
    # contact within 2 cm while slower than 0.3 m/s, or within 1 cm at any speed
    for speed, height, touches in ((0.1, 0.0, True), (1.0, 0.0, True), (1.0, 0.015, False),
                                   (0.1, 0.015, True)):
        origins = np.column_stack((speed * frames * DT, 0 * frames, 0.1 + height + 0 * frames))
        report = check.check(bodies, FLOOR, SETTINGS, posed(np.zeros((1, 3)), origins), frames)
        assert [p.kind for p in report.phases] == ['STANCE' if touches else 'FLIGHT']
        if touches:
            assert report.phases[0].slide_cm == pytest.approx(100 * speed * 19 * DT, rel=1e-9)


def test_a_flight_that_does_not_turn_reports_no_change_of_momentum_from_round_off():
    frames = np.arange(0, 12)
    t = frames * DT
    com = np.column_stack((0 * t, 0 * t, 30 + 0.5 * G[2] * t * t))
    mats = posed(OFFSETS, com - com_offset())
    mats[..., :3, 3] += np.random.default_rng(1).normal(0, 1e-7, (12, 3, 3))   # float32 noise
    report = check.check(BODIES, FLOOR, SETTINGS, mats, frames)
    assert report.phases[0].momentum_percent < 1.0


def test_triangle_ground_measures_distance_as_the_plane_and_past_its_edges():
    quad = np.array([[[-1, -1, 0], [1, -1, 0], [1, 1, 0]], [[-1, -1, 0], [1, 1, 0], [-1, 1, 0]]],
                    float)
    ground = check.Ground(triangles=quad)
    pts = np.array([[0.2, -0.3, 0.4], [0.5, 0.5, -0.01], [3.0, 0.0, 0.0], [2.0, 2.0, 1.0]])
    assert np.allclose(ground.distance(pts), [0.4, 0.01, 2.0, math.sqrt(3.0)])


def _jump(rise):
    """A character standing, jumping and landing: the whole body set moves by `rise(t)` up
    (0 on the ground). Feet samples at the bottom."""
    bodies = character([40.0, 5.0, 5.0], [(0.2, 0.1, 0.3), (0.05, 0.1, 0.02), (0.05, 0.1, 0.02)],
                       samples=[(1, (0, 0, -0.02)), (2, (0, 0, -0.02))])
    offsets = np.array([[0.0, 0.0, 0.9], [0.15, 0, 0.02], [-0.15, 0, 0.02]])
    frames = np.arange(1, 41)
    origins = np.array([[0.0, 0.0, rise(f)] for f in frames])
    return bodies, offsets, frames, posed(offsets, origins)


def _tent(f, take_off=10, landing=30, peak=0.5):
    """A jump keyed as straight lines: up from take-off to the middle, down to landing."""
    if f <= take_off or f >= landing:
        return 0.0
    mid = (take_off + landing) / 2
    return peak * (1 - abs(f - mid) / (mid - take_off))


def test_a_keyed_jump_in_straight_lines_is_phased_and_fails_the_parabola():
    bodies, _, frames, mats = _jump(_tent)
    report = check.check(bodies, FLOOR, SETTINGS, mats, frames)
    assert [p.kind for p in report.phases] == ['STANCE', 'FLIGHT', 'STANCE']
    flight = report.phases[1]
    # fast feet leave contact at once; the flight starts the frame after take-off
    assert frames[flight.first] == 11 and frames[flight.last] == 29
    assert flight.parabola_cm > 2.0


def test_the_flight_fix_puts_a_straight_line_jump_on_a_parabola_of_g_keeping_its_timing():
    bodies, _, frames, mats = _jump(_tent)
    report = check.check(bodies, FLOOR, SETTINGS, mats, frames)
    d = fix.flight_displacements(report.com, report.flight, frames, SETTINGS)
    fixed = check.check(bodies, FLOOR, SETTINGS, fix.displaced(mats, d), frames)
    assert [(p.kind, p.first, p.last) for p in fixed.phases] == \
        [(p.kind, p.first, p.last) for p in report.phases]
    flight = fixed.phases[1]
    assert flight.parabola_cm < 0.5
    # the curvature of a free parabola fitted to the flight, against g
    span = slice(flight.first, flight.last + 1)
    t = frames[span] * DT
    curvature = 2 * np.polyfit(t, fixed.com[span, 2], 2)[0]
    assert curvature == pytest.approx(G[2], rel=0.02)
    # take-off and landing where they were keyed, stance untouched
    assert np.abs(d[~report.flight]).max() == 0.0
    assert fixed.com[flight.first - 1] == pytest.approx(report.com[flight.first - 1], abs=0)
    assert fixed.com[flight.last + 1] == pytest.approx(report.com[flight.last + 1], abs=0)


def test_the_flight_fix_leaves_a_ballistic_jump_alone():
    take_off, landing = 10, 30
    h = (landing - take_off) * DT

    def ballistic(f):
        s = (f - take_off) * DT
        return max(0.0, -0.5 * G[2] * s * (h - s)) if take_off < f < landing else 0.0

    bodies, _, frames, mats = _jump(ballistic)
    report = check.check(bodies, FLOOR, SETTINGS, mats, frames)
    assert report.phases[1].parabola_cm < 1e-8
    d = fix.flight_displacements(report.com, report.flight, frames, SETTINGS)
    assert np.abs(d).max() < 0.005


def _flip(angle_at, take_off=5, landing=25, frames=np.arange(0, 31)):
    """The four-box cross of `_spin`, turning about Z through its centre by angle_at(t) (t
    from take-off, seconds) in flight, still before take-off and after landing; the root is
    the cross's centre."""
    bodies = character([3.0, 3.0, 2.0, 2.0], [(0.1, 0.2, 0.3)] * 2 + [(0.15, 0.1, 0.05)] * 2)
    offsets = np.array([[0.4, 0, 0], [-0.4, 0, 0], [0, 0.25, 0], [0, -0.25, 0]])
    t = (np.clip(frames, take_off, landing) - take_off) * DT
    angles = [angle_at(x) for x in t]
    roots = np.tile(np.eye(4), (len(frames), 1, 1))
    for i, a in enumerate(angles):
        roots[i, :3, :3] = rotation_z(a)
        roots[i, :3, 3] = (0, 0, 30.0)
    mats = posed(offsets, roots[:, :3, 3], [r[:3, :3] for r in roots])
    flight = (frames > take_off) & (frames < landing)
    return bodies, frames, roots, mats, flight


def test_a_flip_that_speeds_up_is_retimed_to_a_constant_momentum_landing_as_keyed():
    total = 2 * math.pi
    duration = 20 * DT
    bodies, frames, roots, mats, flight = _flip(
        lambda t: total * (0.3 * t / duration + 0.7 * (t / duration) ** 2))
    before = check.check(bodies, FLOOR, SETTINGS, mats, frames)
    span = slice(6, 25)
    L = before.angular_momentum[span, 2]
    assert (L.max() - L.min()) / L.max() > 0.5           # keyed: it speeds up a lot
    new_roots, fixed = fix.retimed_spin(bodies, SETTINGS, mats, roots, flight)
    after = check.check(bodies, FLOOR, SETTINGS, fixed, frames)
    L = after.angular_momentum[span]
    assert np.linalg.norm(L - L[0], axis=1).max() < 0.02 * np.linalg.norm(L[0])
    # a constant turn through the same rotations: the rate is the keyed turn over the flight
    # (the central differences read the orbits' speeds 1.6 % slow at 0.3 rad a frame)
    assert L[0, 2] == pytest.approx(after.inertia[6, 2, 2] * total / duration, rel=0.03)
    # take-off and landing (and the stance around them) as keyed
    still = ~flight
    assert np.abs(fixed[still] - mats[still]).max() < 1e-12


def test_a_constant_spin_is_left_as_it_is():
    bodies, frames, roots, mats, flight = _flip(lambda t: 4.0 * t)
    _, fixed = fix.retimed_spin(bodies, SETTINGS, mats, roots, flight)
    assert np.abs(fixed - mats).max() < 1e-6


@pytest.mark.parametrize("com_xy", [(0.6, 0.1), (0.62, -0.7), (0.1, -0.8)])
def test_the_balance_shift_is_the_least_that_brings_the_centre_of_mass_over_the_support(com_xy):
    report = _standing(com_xy)
    shift = fix.balance_shifts(report, SETTINGS, margin=0.005)
    assert np.allclose(shift[:, 2], 0.0)
    outside = report.phases[0].outside_cm / 100
    # least: its length is the distance outside, plus at most the margin
    length = np.linalg.norm(shift, axis=1)
    assert np.all(length >= outside - 1e-12) and np.all(length <= outside + 0.005 + 1e-12)
    # moved by it, the centre of mass is over the support
    com = report.com + shift
    for i in range(len(com)):
        hull, _ = check.support_polygon(report, i, G)
        assert check.distance_outside(com[i, :2], hull) == 0.0


def test_a_two_bone_knee_keeps_its_bone_lengths_and_bends_toward_the_pole():
    hip, ankle = np.array([0.0, 0.0, 1.0]), np.array([0.1, 0.0, 0.15])
    k = fix.knee(hip, ankle, 0.5, 0.45, pole=(0.0, -1.0, 0.6))
    assert np.linalg.norm(k - hip) == pytest.approx(0.5)
    assert np.linalg.norm(ankle - k) == pytest.approx(0.45)
    assert k[1] < -0.1                       # forward, on the pole's side
    r = fix.rotation_between((1, 0, 0), (0, 1, 1))
    assert np.allclose(r @ [1, 0, 0], np.array([0, 1, 1]) / math.sqrt(2))
    assert np.allclose(r @ r.T, np.eye(3))


def test_the_zero_moment_point_of_a_body_accelerating_sideways_moves_back_by_h_a_over_g():
    # one box, its centre of mass 1 m above its four feet corners (a square of half size
    # 0.5 under it), sliding with acceleration a along X: the ground must push it forward,
    # and the zero-moment point sits h a / g behind the centre of mass
    h, a = 1.0, 6.0
    bodies = character([50.0], [(0.5, 0.5, 1.0)],
                       samples=[(0, (x, y, -h)) for x in (-0.5, 0.5) for y in (-0.5, 0.5)])
    frames = np.arange(0, 12)
    t = frames * DT
    origins = np.column_stack((0.5 * a * t * t, 0 * t, h + 0 * t))
    report = check.check(bodies, FLOOR, SETTINGS, posed(np.zeros((1, 3)), origins), frames)
    assert [p.kind for p in report.phases] == ['STANCE']
    assert np.allclose(report.outside, 0.0)
    assert np.allclose(report.zmp_outside[2:-2], h * a / -G[2] - 0.5, atol=1e-9)
    zmp = check.zero_moment_point(report.com[5], [a, 0, 0], np.zeros(3), 50.0, G, 0.0)
    assert np.allclose(zmp, report.com[5] - [h * a / -G[2], 0, h])
