"""Mechanism joints built from empties in real Blender: each behaves as the
mechanics says (the headless counterparts are tests/solver/test_mechanisms.py), the pickers
take only what fits, and a coupling whose joint is wrong or skipped is skipped with a message.
24 fps, World defaults of the add-on. The scenarios: tests/addon/scenarios/mechanisms_blender.py."""

import math

import numpy as np

G = 9.81


def test_gear_from_teeth_turns_b_at_minus_ratio_times_a(blender):
    out = blender.call("mechanisms_blender.gear_turns")
    assert out["error"] is None and out["skipped"] == {}
    a, b = np.array(out["turns"]["a"]), np.array(out["turns"]["b"])
    assert a[-1] > 3.0, f"the motor turned A by only {a[-1]:.3f} rad in 2 s"
    err = abs(b[-1] + 2.0 * a[-1]) / (2.0 * a[-1])
    assert err < 0.005, f"B turned {b[-1]:.4f} rad, -2 x A is {-2 * a[-1]:.4f}"
    assert np.max(np.abs(b + 2.0 * a)) < 0.005 * 2.0 * a[-1]
    # The overlay's gear line joins the two hinges' anchors.
    assert np.allclose(out["lines"], [[0, 0, 1], [0.5, 0, 1]]) and out["bad"] == 0


def test_gear_refuses_a_joint_that_is_not_a_hinge_and_follows_a_skipped_hinge(blender):
    out = blender.call("mechanisms_blender.gear_on_a_wrong_or_skipped_joint")
    assert out["refused"] and out["accepted"]
    assert out["error"] is None
    assert list(out["wrong"]) == ["0 Gear"]
    assert "Hinge B 'Ball' is a ball joint, not a hinge" in out["wrong"]["0 Gear"]
    assert set(out["follows"]) == {"0 Gear", "Hinge B"}
    assert "Hinge B 'Hinge B' is not acting" in out["follows"]["0 Gear"]
    assert "object B is not set" in out["follows"]["0 Gear"], out["follows"]["0 Gear"]


def test_motor_with_a_ratio_from_radii_drives_wb_minus_ratio_wa(blender):
    out = blender.call("mechanisms_blender.motor_with_radii")
    assert out["skipped"] == {}
    z = np.unwrap(np.array(out["z"]), axis=0)
    wa, wb = (z[-1] - z[-13]) * 24.0 / 12.0        # over the last half second
    assert abs(wa - 2.0) < 0.01, f"A spins at {wa:.4f} rad/s, its hinge motor at 2"
    assert abs(wb - 3.0 * wa - 0.5) < 0.01, f"wb - 3 wa = {wb - 3.0 * wa:.4f}, asked 0.5"


def test_rack_slides_the_pinion_radius_times_its_angle(blender):
    out = blender.call("mechanisms_blender.rack_and_pinion")
    assert out["skipped"] == {}
    angle, slide = np.array(out["angles"]), np.array(out["slides"])
    assert angle[-1] > 0.8, f"the pinion turned {angle[-1]:.3f} rad in 1 s"
    worst = np.max(np.abs(slide - 0.1 * angle))
    assert worst < 1e-4, f"slide and 0.1 m x angle differ by {1e3 * worst:.3f} mm"


def test_pulley_lift_accelerates_as_an_atwood_machine_and_holds_its_rope(blender):
    m1, m2 = 3.0, 1.0
    out = blender.call("mechanisms_blender.atwood_pulley", m1, m2)
    assert out["skipped"] == {}
    z = np.array(out["z"])
    t = np.arange(len(z)) / 24.0
    a1 = -2.0 * np.polyfit(t, z[:, 0], 2)[0]
    a2 = -2.0 * np.polyfit(t, z[:, 1], 2)[0]
    expected = G * (m1 - m2) / (m1 + m2)
    assert abs(a1 - expected) < 0.01 * expected, f"the heavy side falls at {a1:.4f} m/s^2"
    assert abs(a2 + expected) < 0.01 * expected, f"the light side rises at {-a2:.4f} m/s^2"
    stretch = np.max(np.abs(np.array(out["lengths"]) - out["lengths"][0]))
    assert stretch < 1e-3, f"the rope's length changed by {1e3 * stretch:.3f} mm"


def test_pulley_points_parented_to_a_body_ride_on_it_and_pull_it(blender):
    # A block and tackle on a beam: the rope's two points are empties parented to the ends of
    # a beam pivoted off-centre, so the equal rope tension at both ends turns it (the longer
    # arm down). The rope, measured from where the empties are shown each frame, keeps its
    # length: the points ride on the beam (fixed in the world, they would not follow it).
    out = blender.call("mechanisms_blender.pulley_on_a_pivoted_beam")
    assert out["error"] is None and out["skipped"] == {}
    assert out["carriers"] == ["Beam", "Beam"]
    assert out["tilt"][-1] > 0.05, f"the beam did not turn: B's end {out['tilt'][-1]:.4f} m " \
        "above A's after 1 s (the rope pulls the longer arm down)"
    stretch = np.max(np.abs(np.array(out["lengths"]) - out["lengths"][0]))
    assert stretch < 1e-3, f"the rope over the moving points changed by {1e3 * stretch:.3f} mm"


def test_wheel_suspension_holds_the_parked_car_up_on_its_springs(blender):
    out = blender.call("mechanisms_blender.car", False)
    assert out["skipped"] == {}
    z = np.array(out["z"])
    # The chassis sinks on its stiff springs, clear of the bottom of the 0.1 m travel, and
    # settles there.
    assert 0.55 - 0.09 < z[-1] < 0.55, f"the chassis ended at z = {z[-1]:.4f}"
    assert np.ptp(z[-12:]) < 1e-3, "the chassis still bounces after 3 s"
    assert np.allclose(out["wheel_z"], 0.3, atol=0.01), "the wheels left the ground"
    assert abs(out["x"][-1]) < 1e-3, "a parked car rolled"
    # The overlay: lines to both bodies, then the axle along -Y and the suspension along Z.
    axle = np.subtract(out["lines"][5], out["lines"][4])
    suspension = np.subtract(out["lines"][7], out["lines"][6])
    assert abs(axle[1]) > 0.99 * np.linalg.norm(axle) and out["bad"] == 0
    assert abs(suspension[2]) > 0.99 * np.linalg.norm(suspension)


def test_car_driven_on_its_wheel_motors_moves_at_w_r(blender):
    out = blender.call("mechanisms_blender.car", True)
    assert out["skipped"] == {}
    x = np.array(out["x"])
    v = (x[-1] - x[-25]) * 24.0 / 24.0
    # Spin +5 rad/s about the axle, world -Y: the wheels roll the car toward -X at w r.
    assert abs(v + 5.0 * 0.3) < 0.02 * 1.5, f"the car moves at {v:.4f} m/s, w r = -1.5"


def test_line_joint_body_slides_down_the_sloped_line_at_g_sin_slope(blender):
    slope = math.radians(30)
    out = blender.call("mechanisms_blender.bead_on_a_sloped_line", slope)
    assert out["skipped"] == {}
    p = np.array(out["p"]) - (0, 0, 2)
    along = np.array([math.cos(slope), 0.0, -math.sin(slope)])
    s = p @ along
    off = np.linalg.norm(p - np.outer(s, along), axis=1)
    t = np.arange(len(s)) / 24.0
    a = 2.0 * np.polyfit(t, s, 2)[0]
    assert off.max() < 1e-3, f"the bead left the line by {1e3 * off.max():.3f} mm"
    assert abs(a - G * math.sin(slope)) < 0.01 * G * math.sin(slope), f"a = {a:.4f} m/s^2"


def test_bead_on_a_bezier_circle_curve_stays_on_it(blender):
    out = blender.call("mechanisms_blender.bead_on_a_bezier_circle")
    assert out["skipped"] == {}
    p = np.array(out["p"])
    assert p[:, 2].min() < 1.02, "the bead did not reach the bottom of the wire"
    assert p[:, 0].min() < -0.9, "the bead did not swing up the other side"
    assert max(out["off"]) < 3e-3, f"the bead left the wire by {1e3 * max(out['off']):.2f} mm"
    # The overlay draws the closed curve (4 Bezier segments sampled) and the line to the bead.
    assert out["segments"] == 4 * 64 + 1 and out["bad"] == 0
    assert out["rebuilt"] == 1


def test_add_joint_builds_each_mechanism_from_the_selection(blender):
    out = blender.call("mechanisms_blender.add_joint_for_each_mechanism")
    assert "Select two hinge joint empties" in str(out["gear_on_bodies"])
    assert out["gear"] == ["Hinge A", "Hinge B"]
    # The plates' corners about their hinge axes: half the diagonal of 0.4 and 0.2 m squares.
    assert np.allclose(out["radii"][:2], [0.2 * math.sqrt(2), 0.1 * math.sqrt(2)], rtol=1e-4)
    assert out["radii"][2] == 'RADII'
    assert out["path"][1] == "Bead" and np.allclose(out["path"][2], (4, 0, 2))
    fa, fb = np.array(out["pulley"])
    assert np.allclose(fa[:2], (-3, 0)) and np.allclose(fb[:2], (-2, 0)) and fa[2] > 2.5
    position, axle, suspension, sprung = out["wheel"]
    assert np.allclose(position, (0, 3, 0.3), atol=1e-6) and sprung
    assert abs(abs(axle[1]) - 1) < 1e-6 and abs(suspension[2] - 1) < 1e-6
    assert out["error"] is None and out["skipped"] == {}


def test_a_path_follows_its_curve_moved_by_keys_or_shape_keys_and_a_static_one_is_not_read(
        blender):
    slope = math.radians(30)
    out = blender.call("mechanisms_blender.paths_on_moving_curves", slope)
    assert out["error"] is None and out["skipped"] == {}
    assert out["same_sim"], "following the curves dropped the simulation"
    # Only the animated curves are read every frame, each the way its change needs.
    assert out["modes"] == {"Moved": 'TRANSFORM', "Shaped": 'SPLINE'}
    assert out["panel"] == ['TRANSFORM', 'SPLINE', None]
    frames = np.arange(1, 37)
    for name, y in (("Moved", 0.0), ("Shaped", 4.0)):
        p = np.array(out["p"][name])
        lift = np.array(out["lifts"][name])
        assert lift[0] == 0.0 and abs(lift[-1] - 1.0) < 1e-6 and 0.1 < lift[12] < 0.9
        off = np.abs(p[:, 2] - (2.0 + lift)) + np.abs(p[:, 1] - y)
        assert off.max() < 1e-3, f"{name}: the bead was off its moving wire by " \
                                 f"{1e3 * off.max():.3f} mm"
        assert np.abs(p[:, 0]).max() < 1e-3, f"{name}: the bead slid along a level wire"
    # The bead on the wire at rest slides down it at g sin(slope), as on a fixed path.
    p = np.array(out["p"]["Still"])[:19] - (0, 8, 2)   # 0.75 s: before the wire's end
    along = np.array([math.cos(slope), 0.0, -math.sin(slope)])
    s_ = p @ along
    t = (frames[:19] - 1) / 24.0
    assert np.linalg.norm(p - np.outer(s_, along), axis=1).max() < 1e-3
    a = 2.0 * np.polyfit(t, s_, 2)[0]
    assert abs(a - G * math.sin(slope)) < 0.01 * G * math.sin(slope), f"a = {a:.4f} m/s^2"


def test_keyed_or_driven_steering_turns_the_car_as_the_bicycle_model_says(blender):
    """Steering keyed (or driven) after a second of driving straight: the heading turns at
    v tan(delta) / wheelbase, the kinematic bicycle model, with the rear axle's speed v."""
    delta = 0.15
    wheelbase = 1.4
    out = blender.call("mechanisms_blender.steered_cars", delta)
    assert out["skipped"] == {} and out["inputs"] == 4
    for name in ("Keyed", "Driven"):
        rear = np.array([r for r, _ in out["track"][name]])
        yaw = np.unwrap([z for _, z in out["track"][name]])
        speed = np.linalg.norm(np.diff(rear[:, :2], axis=0), axis=1) * 24.0
        # Straight for the first second, then the yaw turns at v tan(delta) / wheelbase
        # (the rear axle's speed v); compared over the last two seconds, steering held.
        assert abs(yaw[24] - yaw[0]) < 0.01, f"{name} turned before it was steered"
        held = slice(48, 95)
        expected = np.sum(speed[held] * math.tan(delta) / wheelbase) / 24.0
        turned = yaw[96 - 1] - yaw[48]
        assert speed[held].mean() > 0.5, f"{name} moves at only {speed[held].mean():.3f} m/s"
        print(f"{name} steering: heading turned {turned:.4f} rad, bicycle model "
              f"{expected:.4f} ({100 * (turned / expected - 1):+.2f} %)")
        assert abs(turned - expected) < 0.05 * abs(expected), \
            f"{name}: the heading turned {turned:.4f} rad, the bicycle model {expected:.4f}"
    # The driver gives the keyed angles: both cars drive the same arc.
    assert abs(out["live"]["Keyed"][1] - out["live"]["Driven"][1]) < 1e-3
    for name in ("Keyed", "Driven"):
        assert np.allclose(out["baked"][name][0], out["live"][name][0], atol=1e-4), name
        assert abs(out["baked"][name][1] - out["live"][name][1]) < 1e-4, name
