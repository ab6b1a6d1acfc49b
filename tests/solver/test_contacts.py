"""Contacts against analytic physics: resting, bouncing, sliding, rolling, spinning, tunnelling.

All scenes run at 60 Hz frames with 4 substeps, the issue's reference setting.
"""

import math

import numpy as np

import solver as lg

FRAME = 1.0 / 60.0
G = 9.81
THETA = math.radians(20.0)


def world():
    # Sleeping off: these tests measure the contact solver's own rest, and a sleeping body's
    # velocity is zero by decree (test_sleeping.py covers sleeping).
    return lg.World(gravity=(0, 0, -G), substeps=4, sleeping=False)


def ramp(w, mu):
    """A static plane through the origin tilted by THETA about Y; returns (normal, downhill)."""
    n = np.array([math.sin(THETA), 0.0, math.cos(THETA)])
    w.add_body(lg.Plane(n, 0.0), (0, 0, 0), kind="static", friction=mu)
    return n, np.array([math.cos(THETA), 0.0, -math.sin(THETA)])


def tilted():
    return (math.cos(THETA / 2), 0.0, math.sin(THETA / 2), 0.0)


def test_box_resting_on_box_settles_below_1mm_s_with_under_1cm_penetration():
    w = world()
    w.add_body(lg.Box((5, 5, 0.5)), (0, 0, -0.5), kind="static")
    b = w.add_body(lg.Box((0.5, 0.5, 0.5)), (0, 0, 0.52))
    for _ in range(120):
        w.step(FRAME)
    speed = max(np.linalg.norm(w.linear_velocities[b]),
                np.linalg.norm(w.angular_velocities[b]) * 0.5)
    penetration = 0.5 - w.positions[b, 2]
    assert speed < 1e-3, speed
    assert penetration < 0.01, penetration


def test_box_resting_on_plane_settles():
    w = world()
    w.add_body(lg.Plane(), (0, 0, 0), kind="static")
    b = w.add_body(lg.Box((0.3, 0.2, 0.1)), (0, 0, 0.3))
    for _ in range(120):
        w.step(FRAME)
    assert np.linalg.norm(w.linear_velocities[b]) < 1e-3
    assert abs(w.positions[b, 2] - 0.1) < 0.01


def test_ball_with_restitution_half_rebounds_to_quarter_height():
    w = world()
    w.add_body(lg.Plane(), (0, 0, 0), kind="static")
    r = 0.1
    ball = w.add_body(lg.Sphere(r), (0, 0, 1.0 + r), restitution=0.5)
    bounced, apex = False, 0.0
    for _ in range(150):
        vz_before = w.linear_velocities[ball, 2]
        w.step(FRAME)
        if vz_before < 0.0 and w.linear_velocities[ball, 2] > 0.0:
            if bounced:
                break
            bounced = True
        if bounced:
            apex = max(apex, w.positions[ball, 2] - r)
    assert bounced
    assert abs(apex - 0.25) < 0.05 * 0.25, apex


def test_box_on_20_degree_ramp_with_friction_half_holds():
    w = world()
    n, down = ramp(w, 0.5)
    b = w.add_body(lg.Box((0.25, 0.25, 0.25)), n * 0.25, orientation=tilted(), friction=0.5)
    start = w.positions[b].copy()
    for _ in range(120):
        w.step(FRAME)
    moved = np.linalg.norm(w.positions[b] - start)
    assert moved < 0.01, moved


def test_box_on_20_degree_ramp_with_friction_0_2_slides_at_coulomb_rate():
    w = world()
    n, down = ramp(w, 0.2)
    b = w.add_body(lg.Box((0.25, 0.25, 0.25)), n * 0.25, orientation=tilted(), friction=0.2)
    for _ in range(30):
        w.step(FRAME)
    v0 = w.linear_velocities[b] @ down
    for _ in range(60):
        w.step(FRAME)
    a = (w.linear_velocities[b] @ down - v0) / (60 * FRAME)
    expected = G * (math.sin(THETA) - 0.2 * math.cos(THETA))
    assert abs(a - expected) < 0.03 * expected, (a, expected)


def test_sphere_rolls_down_20_degree_ramp_at_five_sevenths_g_sin():
    w = world()
    n, down = ramp(w, 0.5)
    r = 0.2
    b = w.add_body(lg.Sphere(r), n * r, friction=0.5)
    for _ in range(30):
        w.step(FRAME)
    v0 = w.linear_velocities[b] @ down
    for _ in range(60):
        w.step(FRAME)
    a = (w.linear_velocities[b] @ down - v0) / (60 * FRAME)
    expected = 5.0 / 7.0 * G * math.sin(THETA)
    assert abs(a - expected) < 0.03 * expected, (a, expected)
    # rolling, not slipping: contact point at rest
    v = w.linear_velocities[b] + np.cross(w.angular_velocities[b], -n * r)
    assert np.linalg.norm(v) < 0.02 * np.linalg.norm(w.linear_velocities[b])


def test_spinning_square_plate_stops_when_twist_friction_predicts():
    # Uniform pressure on a square of side L: friction torque mu m g L (sqrt2 + ln(1+sqrt2))/6.
    L, mu, omega0 = 1.0, 0.5, 5.0
    w = world()
    w.add_body(lg.Plane(), (0, 0, 0), kind="static", friction=mu)
    plate = w.add_body(lg.Box((L / 2, L / 2, 0.02)), (0, 0, 0.02), friction=mu,
                       angular_velocity=(0, 0, omega0))
    arm = L * (math.sqrt(2.0) + math.log(1.0 + math.sqrt(2.0))) / 6.0
    predicted = (L * L / 6.0) * omega0 / (mu * G * arm)
    t = 0.0
    while w.angular_velocities[plate, 2] > 0.01 * omega0 and t < 3.0:
        w.step(FRAME)
        t += FRAME
    assert abs(t - predicted) < 0.15 * predicted, (t, predicted)


def test_fast_small_ball_does_not_pass_through_thin_wall():
    w = lg.World(gravity=(0, 0, 0), substeps=4)
    w.add_body(lg.Box((0.025, 1.0, 1.0)), (1.0, 0, 0), kind="static")
    ball = w.add_body(lg.Sphere(0.025), (0, 0, 0), linear_velocity=(30.0, 0, 0))
    for _ in range(30):
        w.step(FRAME)
        assert w.positions[ball, 0] < 1.0 - 0.025, w.positions[ball]


def test_fast_small_box_does_not_pass_through_thin_wall():
    w = lg.World(gravity=(0, 0, 0), substeps=4)
    w.add_body(lg.Box((0.025, 1.0, 1.0)), (1.0, 0, 0), kind="static")
    box = w.add_body(lg.Box((0.025, 0.025, 0.025)), (0, 0, 0), linear_velocity=(30.0, 0, 0))
    for _ in range(30):
        w.step(FRAME)
        assert w.positions[box, 0] < 1.0 - 0.025, w.positions[box]


def test_capsule_and_spheres_come_to_rest_on_plane_and_box():
    w = world()
    w.add_body(lg.Plane(), (0, 0, 0), kind="static")
    w.add_body(lg.Box((0.5, 0.5, 0.25)), (3, 0, 0.25), kind="static")
    cap = w.add_body(lg.Capsule(0.1, 0.3), (0, 0, 1), orientation=(0.9, 0.3, 0.2, 0.0))
    s1 = w.add_body(lg.Sphere(0.2), (3, 0, 1.5))
    s2 = w.add_body(lg.Sphere(0.2), (3.25, 0, 1.5))
    for _ in range(240):
        w.step(FRAME)
    assert abs(w.positions[cap, 2] - 0.1) < 0.01
    assert np.linalg.norm(w.linear_velocities[cap]) < 0.01
    assert w.positions[s1, 2] > 0.5 + 0.19
    assert w.positions[s2, 2] > 0.5 + 0.19


def test_collision_group_and_mask_filter_pairs():
    w = world()
    w.add_body(lg.Plane(), (0, 0, 0), kind="static", collision_group=1)
    ghost = w.add_body(lg.Sphere(0.1), (0, 0, 0.5), collision_mask=0b10)
    solid = w.add_body(lg.Sphere(0.1), (1, 0, 0.5))
    for _ in range(60):
        w.step(FRAME)
    assert w.positions[ghost, 2] < -0.5
    assert abs(w.positions[solid, 2] - 0.1) < 0.01


def test_jointed_bodies_do_not_collide_unless_collide_connected():
    for collide, apart in ((False, False), (True, True)):
        w = lg.World(gravity=(0, 0, 0), substeps=4)
        a = w.add_body(lg.Box((0.5, 0.5, 0.5)), (0, 0, 0), kind="static")
        b = w.add_body(lg.Box((0.5, 0.5, 0.5)), (0.8, 0, 0))
        w.add_prismatic(a, b, (0.4, 0, 0), (1, 0, 0), collide_connected=collide)
        w.step(FRAME)
        assert (w.contact_count() > 0) == apart


def test_contacts_report_points_normals_and_impulses():
    w = world()
    w.add_body(lg.Plane(), (0, 0, 0), kind="static")
    b = w.add_body(lg.Box((0.5, 0.5, 0.5)), (0, 0, 0.5))
    for _ in range(30):
        w.step(FRAME)
    c = w.contacts()
    assert w.contact_count() == 4 == len(c["points"])
    assert np.allclose(np.abs(c["normals"][:, 2]), 1.0)
    assert np.allclose(sorted(c["bodies"][0]), [0, b])
    weight = G * 1000.0 * FRAME / 4           # per substep
    assert abs(c["impulses"].sum() - weight) < 0.05 * weight


def test_collide_measures_overlaps_without_moving_anything():
    """A unit box sunk 3 cm into a static box, and a sphere 2 cm clear of it: collide()
    reports the box's four corners 3 cm deep (and nothing for the sphere, beyond the margin
    of a short step), leaves every pose and velocity as it was, and the step after it
    matches a world that never called it."""
    def build():
        w = world()
        w.add_body(lg.Box((2.0, 2.0, 0.5)), (0, 0, -0.5), kind="static")
        box = w.add_body(lg.Box((0.5, 0.5, 0.5)), (0, 0, 0.47), orientation=(1, 0, 0, 0))
        w.add_body(lg.Sphere(0.25), (1.5, 0, 0.27))
        return w, box
    w, box = build()
    before = w.positions.copy(), w.orientations.copy(), w.linear_velocities.copy()
    state = w.save_state()
    w.collide(1e-6)
    c = w.contacts()
    assert w.contact_count() == 4 == len(c["points"])
    assert np.allclose(c["separations"], -0.03, atol=1e-9)
    assert all(sorted(pair) == [0, box] for pair in c["bodies"].tolist())
    assert np.array_equal(before[0], w.positions) and np.array_equal(before[1], w.orientations)
    assert np.array_equal(before[2], w.linear_velocities)
    w.load_state(state)
    w.step(FRAME)
    fresh, _ = build()
    fresh.step(FRAME)
    assert np.array_equal(fresh.positions, w.positions)


def test_replay_from_saved_state_is_bit_identical_with_contacts():
    w = world()
    w.add_body(lg.Plane(), (0, 0, 0), kind="static")
    for i in range(5):
        w.add_body(lg.Box((0.2, 0.2, 0.2)), (0.05 * i, 0, 0.25 + 0.45 * i),
                   orientation=(1, 0.05 * i, 0, 0))
    for _ in range(30):
        w.step(FRAME)
    state = w.save_state()
    for _ in range(30):
        w.step(FRAME)
    first = w.positions.copy()
    w.load_state(state)
    for _ in range(30):
        w.step(FRAME)
    assert np.array_equal(first, w.positions)


def test_capsules_come_to_rest_on_a_static_box():
    w = world()
    # a little rolling friction (a lever arm of 1 cm) so the round bodies stop rolling
    w.add_body(lg.Box((2.0, 2.0, 0.25)), (0, 0, -0.25), kind="static", rolling_friction=0.01)
    flat = w.add_body(lg.Capsule(0.1, 0.4), (0, 0, 0.5), orientation=(0.7071, 0.7071, 0, 0),
                      rolling_friction=0.01)
    tilted_ = w.add_body(lg.Capsule(0.1, 0.4), (1.0, 0, 0.8),
                         orientation=(0.9, 0.3, 0.2, 0.0), rolling_friction=0.01)
    for _ in range(240):
        w.step(FRAME)
    for c in (flat, tilted_):
        assert abs(w.positions[c, 2] - 0.1) < 0.01, w.positions[c]
        assert np.linalg.norm(w.linear_velocities[c]) < 0.01


def test_cylinders_stand_and_lie_on_a_static_box():
    w = world()
    w.add_body(lg.Box((3.0, 3.0, 0.25)), (0, 0, -0.25), kind="static", rolling_friction=0.01)
    upright = w.add_body(lg.Cylinder(0.2, 0.3), (0, 0, 0.5))
    lying = w.add_body(lg.Cylinder(0.2, 0.3), (1.0, 0, 0.6), orientation=(0.7071, 0.7071, 0, 0),
                       rolling_friction=0.01)
    on_plane = lg.World(substeps=4)
    on_plane.add_body(lg.Plane(), (0, 0, 0), kind="static")
    c = on_plane.add_body(lg.Cylinder(0.2, 0.3), (0, 0, 0.5))
    for _ in range(180):
        w.step(FRAME)
        on_plane.step(FRAME)
    assert abs(w.positions[upright, 2] - 0.3) < 0.01, w.positions[upright]
    assert abs(w.positions[lying, 2] - 0.2) < 0.01, w.positions[lying]
    assert abs(on_plane.positions[c, 2] - 0.3) < 0.01
    assert np.linalg.norm(w.linear_velocities[upright]) < 0.01


def test_convex_hulls_come_to_rest_on_a_plane_and_a_static_box():
    rng = np.random.default_rng(3)
    pts = rng.normal(size=(30, 3))
    pts = 0.2 * pts / np.linalg.norm(pts, axis=1, keepdims=True) * (1, 1, 0.6)
    w = world()
    w.add_body(lg.Plane(), (0, 0, 0), kind="static")
    w.add_body(lg.Box((0.5, 0.5, 0.25)), (3, 0, 0.25), kind="static")
    a = w.add_body(lg.ConvexHull(pts), (0, 0, 0.6), orientation=(0.9, 0.2, 0.3, 0.1))
    b = w.add_body(lg.ConvexHull(pts), (3, 0, 1.0))
    for _ in range(240):
        w.step(FRAME)
    for body, floor in ((a, 0.0), (b, 0.5)):
        assert w.positions[body, 2] > floor + 0.05, w.positions[body]
        assert w.positions[body, 2] < floor + 0.25, w.positions[body]
        assert np.linalg.norm(w.linear_velocities[body]) < 0.01
