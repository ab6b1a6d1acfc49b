"""The physics fix's options on a metarig ragdoll (addon/motion; scenarios in
tests/addon/scenarios/physics_motion.py): flights fixed with their height kept, measured on
the bodies Blender evaluates."""

import numpy as np
import pytest

from motion_reference import com as centre_of_mass, hull_distance, orthonormal, \
    parabola_distance, reference

G = 9.81


def test_a_jump_fixed_with_its_height_kept_keeps_the_apex_and_its_length_follows(blender):
    out = blender.call("physics_motion.height_kept_jump")
    fps = out["fps"]
    keyed, fixed = np.array(out["keyed"]), np.array(out["fixed"])
    com_keyed, com = centre_of_mass(keyed, out["masses"]), centre_of_mass(fixed, out["masses"])
    assert [(p["kind"], p["first"], p["last"]) for p in out["phases"]] == \
        [("STANCE", 1, 10), ("FLIGHT", 11, 29), ("STANCE", 30, 40)]
    # the flight a parabola of g takes from the take-off's centre of mass (frame 10) up to
    # the keyed apex and down to the landing's (frame 30), in frames
    apex = com_keyed[10:29, 2].max()
    up, down = apex - com_keyed[9, 2], apex - com_keyed[29, 2]
    length = (np.sqrt(2 * up / G) + np.sqrt(2 * down / G)) * fps
    landing = 10 + length
    assert 12 < length < 19                   # shorter than the 20 frames keyed
    flight = [p for p in out["fixed_phases"] if p["kind"] == "FLIGHT"]
    assert len(flight) == 1 and flight[0]["first"] == 11
    # its last frame in the air by the check's contacts (a foot within 6 cm touches once it
    # slows down) before the landing
    assert landing - 2 <= flight[0]["last"] <= landing
    span = np.arange(11, int(np.floor(landing)) + 1)         # frames in the air
    t = span / fps
    fixed_air = com[span - 1]
    # the apex height kept within 5 mm (sampled at frames: below it by at most g (1/48 s)^2/2)
    assert abs(fixed_air[:, 2].max() - apex) < 0.005
    assert parabola_distance(t, fixed_air, G) < 0.005
    curvature = 2 * np.polyfit(t, fixed_air[:, 2], 2)[0]
    assert curvature == pytest.approx(-G, rel=0.02)
    # take-off as keyed; the keys after it shift: the thighs' keys at 15, 25 and 30 are
    # stretched with the flight, the landing pose is held from the new landing on
    assert np.abs(fixed[:10] - keyed[:10]).max() < 1e-5
    scale = length / 20.0
    expected = [10.0, 10 + 5 * scale, 10 + 15 * scale, 10 + 20 * scale]
    assert out["thighs"] == [10.0, 15.0, 25.0, 30.0]
    assert out["fixed_thighs"] == pytest.approx(expected, abs=1e-4)
    after = int(np.ceil(landing)) + 1
    assert np.abs(fixed[after - 1:] - keyed[29]).max() < 1e-4


def _rotation(mode, values):
    """A rotation matrix of Blender's rotation channels: Euler 'XYZ' turns about X first."""
    if mode == 'QUATERNION':
        w, x, y, z = np.array(values) / np.linalg.norm(values)
        return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                         [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                         [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])
    if mode == 'AXIS_ANGLE':
        angle, axis = values[0], np.array(values[1:]) / np.linalg.norm(values[1:])
        k = np.array([[0, -axis[2], axis[1]], [axis[2], 0, -axis[0]], [-axis[1], axis[0], 0]])
        return np.eye(3) + np.sin(angle) * k + (1 - np.cos(angle)) * k @ k
    out = np.eye(3)
    for axis, a in zip(mode, values):
        c, s = np.cos(a), np.sin(a)
        r = {"X": [[1, 0, 0], [0, c, -s], [0, s, c]], "Y": [[c, 0, s], [0, 1, 0], [-s, 0, c]],
             "Z": [[c, -s, 0], [s, c, 0], [0, 0, 1]]}[axis]
        out = np.array(r) @ out
    return out


def _pose(bones, i):
    """Armature-space bone matrices at frame index `i`: parent pose, the rest offset from the
    parent, the channels (location, rotation, scale), in float64."""
    out = {}
    for name, b in bones.items():               # parents first
        ch = b["channels"][i]
        basis = np.eye(4)
        basis[:3, :3] = _rotation(b["mode"], ch["rotation"]) * np.array(ch["scale"])
        basis[:3, 3] = ch["location"]
        rest = np.array(b["rest"])
        if b["parent"] is None:
            out[name] = rest @ basis
        else:
            parent_rest = np.array(bones[b["parent"]]["rest"])
            out[name] = out[b["parent"]] @ np.linalg.inv(parent_rest) @ rest @ basis
    return out


def test_the_checks_momenta_match_a_float64_computation_from_rest_matrices_and_keys_to_1e6(
        blender):
    out = blender.call("physics_motion.jump_channels")
    bones, n = out["bones"], len(out["frames"])
    # this computation's bone matrices are Blender's, to its float32 (a micrometre)
    poses = [_pose(bones, i) for i in range(n)]
    blender_pose = {k: np.array(v) for k, v in out["blender_pose"].items()}
    assert max(np.abs(poses[i][k] - blender_pose[k][i]).max()
               for k in bones for i in range(n)) < 2e-6
    bodies = np.array([[orthonormal(poses[i][b["bone"]] @ np.linalg.inv(
        np.array(bones[b["bone"]]["rest"])) @ np.array(b["rest_frame"]).reshape(4, 4))
        for b in out["bodies"]] for i in range(n)])
    assert np.abs(bodies - np.array(out["blender_bodies"])).max() < 1e-5
    masses = [b["mass"] for b in out["bodies"]]
    inertia = [b["inertia"] for b in out["bodies"]]
    dt = 1.0 / out["fps"]
    com, p, L = reference(bodies, masses, inertia, dt)
    assert np.abs(L).max() > 1.0 and np.abs(p).max() > 10.0      # the jump moves and turns
    assert np.abs(np.array(out["com"]) - com).max() < 1e-6
    assert np.abs(np.array(out["p"]) - p).max() < 1e-6 * np.abs(p).max()
    assert np.abs(np.array(out["L"]) - L).max() < 1e-6 * np.abs(L).max()
    # the same from Blender's float32 body matrices: within 1e-5 only (velocities are
    # differences over 1/24 s of positions known to 1e-7 m)
    _, p32, L32 = reference(np.array(out["blender_bodies"]), masses, inertia, dt)
    assert np.abs(np.array(out["p"]) - p32).max() < 1e-5 * np.abs(p).max()
    assert np.abs(np.array(out["L"]) - L32).max() < 1e-5 * np.abs(L).max()


def test_a_keyed_contact_switch_makes_a_hand_a_support_from_its_key_on(blender):
    out = blender.call("physics_motion.lean_with_a_hand_switched_to_contact")
    contact = np.array(out["contact"])
    part = np.array(out["part_samples"])
    # the hand hangs 70 cm above the ground: it touches only where its switch is keyed on
    assert not contact[:19, part].any() and contact[19:, part].all()
    masses = np.array(out["masses"])
    bodies = np.array(out["bodies"])
    com = centre_of_mass(bodies, masses)[:, :2]
    corners = np.array(out["corners"])
    sole = corners[corners[:, 2] < 0.06][:, :2]
    # the hand's contact points: its shape's samples where Blender shows its body
    dx, dy, dz = out["dimensions"]
    if out["shape"] == 'BOX':
        local = np.array([(x * dx, y * dy, z * dz) for x in (-.5, .5) for y in (-.5, .5)
                          for z in (-.5, .5)])
    else:                                     # a capsule's end centres
        h = dz / 2 - max(dx, dy) / 2
        local = np.array([(0, 0, -h), (0, 0, h)])
    hand = bodies[:, out["index"]]
    hand_pts = np.einsum("fij,nj->fni", hand[:, :3, :3], local) + hand[:, None, :3, 3]
    expected = [hull_distance(com[i], sole if i < 19 else
                               np.vstack((sole, hand_pts[i, :, :2])))
                for i in range(len(com))]
    outside = np.array(out["outside"])
    assert np.abs(outside - expected).max() < 1e-6
    feet_only = np.array([hull_distance(c, sole) for c in com])
    assert feet_only[-1] > 0.05                      # behind the heels, 5 cm and more
    assert outside[-1] < feet_only[-1] - 0.02        # the hand widens the support


def test_a_simulated_fall_baked_is_changed_by_less_than_5_mm_by_the_default_fix(blender):
    out = blender.call("physics_motion.simulated_fall_fixed")
    keyed, fixed = np.array(out["keyed"]), np.array(out["fixed"])
    outside = np.array(out["outside"])
    # the ragdoll lands and topples: its centre of mass leaves the feet while they stand
    stance = ~np.array(out["flight"])
    assert outside[stance].max() > 0.02
    assert np.abs(fixed[:, :, :3, 3] - keyed[:, :, :3, 3]).max() < 0.005


def _by_colour(groups, colours):
    """{colour name: concatenated arrays} of a drawing's (colour, array) groups."""
    names = {tuple(np.round(v, 6)): k for k, v in colours.items()}
    out = {}
    for colour, arr in groups:
        out.setdefault(names[tuple(np.round(colour, 6))], []).append(np.array(arr))
    return {k: np.concatenate(v) for k, v in out.items()}


def test_the_viewport_drawing_shows_the_path_arcs_contacts_and_support_red_where_they_fail(
        blender):
    out = blender.call("physics_motion.drawing_of_a_jump_and_a_lean")
    colours, fps = out["colours"], out["fps"]
    assert out["before_check"] is None and out["hidden"] is None
    com = centre_of_mass(np.array(out["keyed"]), out["masses"])
    jump_lines = _by_colour(out["jump"]["lines"], colours)
    # the centre of mass path: one segment per frame step, from the bodies Blender shows;
    # white in stance (frames 1-10 pass), red through the failing flight
    steps = np.stack((com[:-1], com[1:]), 1)
    white = [i for i in range(39) if i < 9 or i >= 29]       # the stance frames' steps
    assert np.abs(jump_lines["PATH_COLOR"] - steps[white]).max() < 1e-6
    red = jump_lines["FAIL_COLOR"]
    flight_path = steps[9:29]                 # the steps from take-off (10) to landing (30)
    for seg in flight_path:
        assert np.abs(red - seg).max(axis=(1, 2)).min() < 1e-6
    # the flight's arc (red): the least-squares parabola of g through frames 11-29, sampled
    # 8 times a frame
    t = np.arange(11, 30) / fps
    lifted = com[10:29] + 0.5 * G * np.outer(t * t, [0, 0, 1])
    coeffs = [np.polyfit(t, lifted[:, k], 1) for k in range(3)]
    ts = np.linspace(t[0], t[-1], out["arc_steps"] * 18 + 1)
    arc = np.column_stack([np.polyval(c, ts) for c in coeffs]) - \
        0.5 * G * np.outer(ts * ts, [0, 0, 1])
    expected_arc = np.stack((arc[:-1], arc[1:]), 1)
    assert np.abs(red[-len(expected_arc):] - expected_arc).max() < 1e-6
    # frame 5, standing: the contacts are the soles' corners, the support polygon green
    corners = np.array(out["corners"])
    sole = corners[corners[:, 2] < 0.06]
    points = _by_colour(out["jump"]["points"], colours)
    contacts = points["CONTACT_COLOR"]
    assert len(contacts) == len(sole)
    assert all(np.linalg.norm(sole - c, axis=1).min() < 1e-5 for c in contacts)
    assert np.abs(points["OK_COLOR"][0, :2] - com[4, :2]).max() < 1e-6
    assert "OK_COLOR" in jump_lines
    # once fixed, the flight passes and its arc is green
    assert [p["kind"] for p in out["fixed_phases"]] == ["STANCE", "FLIGHT", "STANCE"]
    assert out["fixed_phases"][1]["parabola_cm"] < 1.0
    assert out["fixed_phases"][1]["momentum_percent"] < 5.0
    fixed_lines = _by_colour(out["fixed"]["lines"], colours)
    assert len(fixed_lines["OK_COLOR"]) >= len(expected_arc)
    # the lean at frame 30: the centre of mass behind the heels, its support polygon red
    lean_com = centre_of_mass(np.array(out["lean_bodies"]), out["masses"])
    lean_points = _by_colour(out["lean"]["points"], colours)
    assert np.abs(lean_points["FAIL_COLOR"][0, :2] - lean_com[29, :2]).max() < 1e-6
    ring = _by_colour(out["lean"]["lines"], colours)["FAIL_COLOR"]
    lo, hi = sole[:, :2].min(axis=0), sole[:, :2].max(axis=0)
    outside = np.linalg.norm(np.maximum(0, np.maximum(lo - lean_com[29, :2],
                                                      lean_com[29, :2] - hi)))
    assert outside > 0.05
    # the red segment from the projected centre of mass to the polygon is that long
    lengths = np.linalg.norm(ring[:, 1] - ring[:, 0], axis=1)
    assert np.abs(lengths - outside).min() < 1e-6
