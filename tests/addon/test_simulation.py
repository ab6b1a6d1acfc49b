"""Live simulation through the frame-change handler: bodies from objects, joints from empties,
and the per-frame cache. The scenarios: tests/addon/scenarios/simulation.py."""

import math

import numpy as np


def test_cube_dropped_on_static_ground_comes_to_rest_on_it(blender):
    out = blender.call("simulation.cube_dropped_on_ground")
    assert out["error"] is None
    z = np.array(out["z"])
    assert z[0] == 2.0
    assert z.min() > 0.45, "the cube went through the ground"
    # At rest on its face: centre half a metre above the ground, not moving in the last second.
    assert abs(z[-1] - 0.5) < 0.02
    assert np.ptp(z[-24:]) < 1e-3


def test_hinged_door_swings_about_the_empty_z_axis_and_keeps_its_anchor(blender):
    out = blender.call("simulation.door_swings")
    assert out["builds"] == 1
    assert out["error"] is None
    assert max(out["drift"]) < 0.01
    angles = np.array(out["angles"])
    assert angles.max() > np.radians(60), "the door did not swing down"
    moving = angles > 1e-3
    axes = np.array(out["axes"])[moving]
    # Rotation only about world X, which is the empty's local Z.
    assert np.all(np.abs(axes[:, 0]) > 0.999)


def test_scrubbing_back_and_jumping_give_the_first_pass_transforms(blender):
    out = blender.call("simulation.scrub_and_jump")
    first = out["first"]
    for f, t in {**out["back"], **out["jumps"]}.items():
        assert t == first[f], f"frame {f} differs from the first pass"
    assert out["fresh"] == first["30"]
    assert first["1"] != first["40"]
    # Back at the start frame the door is where the user put it.
    assert np.allclose(out["start"][0], [0, 1.0, 2]) and np.allclose(out["start"][1], 0)


def test_editing_a_joint_invalidates_the_cache_and_changes_the_motion(blender):
    out = blender.call("simulation.joint_edited")
    assert out["cached_after_edit"] is None
    assert out["before"] != out["after"]
    assert out["angle"] < 0.3 + 0.05


def test_jointed_substeps_step_the_hinged_door_at_their_own_count(blender):
    # The door is a small jointed island: with Jointed Substeps 4 (Substeps 8) it steps at 4
    # and swings as with Substeps 4 everywhere, ten times nearer to it than Substeps 8
    # everywhere is (not the same bits: an island below the world's count takes its joints'
    # geometric stiffness as at the world's, solver/step.py); a free box beside it keeps
    # Substeps (it falls as at 8 everywhere, bit for bit).
    out = blender.call("simulation.jointed_substeps")
    assert out["error"] is None
    (door_mixed, crate_mixed, counts), (door_4, _, _), (door_8, crate_8, _) = \
        out["mixed"], out["four"], out["eight"]
    assert counts == [[4, 8]], counts
    door_mixed, door_4, door_8 = (np.array(d) for d in (door_mixed, door_4, door_8))
    off_4, off_8 = np.abs(door_mixed - door_4).max(), np.abs(door_8 - door_4).max()
    print(f"the door at (8, 4) from (4, 4): {off_4:.2e}; (8, 8) from (4, 4): {off_8:.2e}")
    assert off_4 < 0.1 * off_8
    assert np.allclose(crate_mixed, crate_8, rtol=0, atol=1e-9)


def test_jointed_substeps_at_auto_follow_substeps_and_a_set_count_holds(blender):
    # A new scene's Jointed Substeps is 0, Auto: half of Substeps rounded up, at least 4 and
    # at most Substeps (the solver's World default), so raising Substeps raises the door's
    # count too; a count set by hand holds, at most Substeps. The free crate steps at
    # Substeps throughout. Calm Substeps (0, Auto) is half of the jointed count, at least 4
    # and at most it; the panel shows what each Auto comes to.
    out = blender.call("simulation.jointed_substeps_follow_substeps")
    assert out["error"] is None and out["default"] == 0
    expected = {(8, 0): (4, 4), (16, 0): (8, 4), (10, 0): (5, 4), (4, 0): (4, 4),
                (2, 0): (2, 2), (16, 6): (6, 4), (16, 20): (16, 8)}
    for substeps, jointed, world, counts, calm, labels in out["runs"]:
        door, calm_auto = expected[substeps, jointed]
        assert (world, counts, calm) == (door, [[door, substeps]], calm_auto), \
            (substeps, jointed, world, counts, calm)
        assert labels["jointed_substeps"] == (f"Jointed (Auto: {door})" if jointed == 0
                                              else "Jointed Substeps"), labels
        assert labels["calm_substeps"] == f"Calm (Auto: {calm_auto})", labels


def test_calm_substeps_reach_the_world_and_default_to_half_the_jointed_count(blender):
    # A hinged pair of planks lying on the floor is a calm island after its first step:
    # with Calm Substeps 0 (automatic: half of Jointed Substeps 8) and 4 it steps at 4
    # substeps and the two play alike, with 8 (calm stepping off) at 8 every frame.
    out = blender.call("simulation.calm_substeps")
    assert out["error"] is None
    auto, four, off = out["auto"], out["four"], out["off"]
    assert (auto["calm"], four["calm"], off["calm"]) == (4, 4, 8)
    # frame 1 is the start frame (nothing stepped), frame 2 a body's first step
    assert auto["counts"][1] == 8 and set(auto["counts"][5:]) == {4}, auto["counts"]
    assert set(off["counts"][1:]) == {8}
    assert auto["poses"] == four["poses"]


def test_shapes_fit_the_evaluated_geometry_and_the_object_scale(blender):
    out = blender.call("simulation.shapes_fit_geometry_and_scale")
    assert abs(out["tower"] - 2.5) < 0.03
    assert abs(out["slab"] - 0.2) < 0.02
    assert max(out["tilt"]) < 0.05


def test_a_body_disabled_in_viewports_is_fitted_to_its_mesh_as_it_is_now(blender):
    """A body the depsgraph does not evaluate (disabled in viewports) keeps the bounds of its
    last evaluation; its mesh grown to 2 m afterwards must still give a 2 m box, which rests
    with its origin 1 m above the ground (a stale 1 m box would rest at 0.5 m)."""
    out = blender.call("simulation.body_disabled_in_viewports_grown")
    assert abs(out["z"] - 1.0) < 0.02, out


def test_parented_bodies_and_rotation_modes_move_like_unparented_ones(blender):
    out = blender.call("simulation.parented_door")
    assert out["parent"] == "Rig"
    for f, (a, b) in enumerate(out["pairs"], start=1):
        a, b = np.array(a), np.array(b)
        b[1, 3] -= 10.0
        assert np.abs(a - b).max() < 1e-4, f"frame {f}"
    assert not np.allclose(out["pairs"][0][0], out["pairs"][-1][0])


def test_animated_body_follows_its_keys_and_drags_a_welded_body(blender):
    out = blender.call("simulation.animated_lift_and_welded_load")
    assert out["builds"] == 1, "the animation must not invalidate the cache every frame"
    lift, load = np.array(out["lift"]), np.array(out["load"])
    assert lift[0] == 2.0 and abs(lift[24] - 4.0) < 1e-6  # Blender's animation, untouched
    assert np.abs((lift - load) - 0.5).max() < 0.02
    assert abs(load[-1] - 3.5) < 0.02


def test_collision_groups_let_bodies_of_different_groups_pass_through_each_other(blender):
    out = blender.call("simulation.collision_groups")
    same, other = out
    assert abs(same - (1.1 + 0.25)) < 0.02
    assert abs(other - 0.25) < 0.02


def test_moving_a_body_mid_simulation_makes_that_its_new_start_pose(blender):
    out = blender.call("simulation.body_moved_mid_simulation")
    assert abs(out["landed"][2] - 0.5) < 0.05
    # Like Blender's rigid bodies: where the user puts a body is where the simulation starts
    # from, so frame 21 shows the cube 20 frames after a start at (5, 0, 4): landed at x = 5...
    assert abs(out["after_move"][0] - 5) < 1e-3 and abs(out["after_move"][2] - 0.5) < 0.15
    # ...and at the start frame it is where the user put it.
    assert np.allclose(out["start"], [5, 0, 4])


def test_ragdoll_swing_limits_follow_the_empty_axes(blender):
    out = blender.call("simulation.ragdoll_swing_limits", (20.0, 70.0))
    assert out["error"] is None
    narrow, wide = out["tilts"]
    assert abs(narrow - 20.0) < 4.0
    assert abs(wide - 70.0) < 6.0


def test_add_body_with_auto_shape_makes_a_uv_sphere_roll_and_a_cube_stick_on_a_slope(blender):
    out = blender.call("simulation.auto_shapes_on_a_slope")
    assert out["shapes"] == ["AUTO", "AUTO"]
    ball, cube = out["moved"]
    assert ball > 1.0, "a sphere fitted to the UV sphere rolls down the slope"
    assert cube < 0.05, "a box fitted to the cube stays put"
    assert "Sphere (Sphere)" in blender.stdout and "Cube (Box)" in blender.stdout  # the report


def test_only_what_the_simulation_reads_drops_the_cache(blender):
    """Moving an object no body or joint depends on keeps the cached frames; moving the
    static ground they stand on, renaming a body or parenting one drops them."""
    out = blender.call("simulation.what_drops_the_cache")
    assert out["error"] is None
    assert out["prop"] == 0
    assert out["ground"] == 1
    assert out["parent"] == 2


def test_edits_between_frames_of_every_kind_drop_the_cache_and_plain_frames_keep_it(blender):
    """While it plays, the frame handler compares what only an edit through Blender's API
    changes (names, fields, posed armatures) when the depsgraph has seen such an edit since
    the last frame: each kind of edit made by a script between two frames builds again, and
    so do edits made by the user's own frame handlers (one that runs after the add-on's and
    moves the ground, one that changes the wind once a frame is evaluated) on the next frame;
    frames with no edit build nothing."""
    out = blender.call("simulation.edits_between_frames")
    assert out["error"] is None and out["ragdoll"]
    c = out["counts"]
    assert c["plain"] == 1 and c["plain after"] == 0   # the build at frame 1 only
    assert c["field"] == 1 and c["rename"] == 1 and c["pose"] == 1
    assert c["late handler"] == 1                      # frame 22 builds again
    assert c["post handler"] == 1                      # frame 25 does


# the door's inertia about its centre (a 1 x 0.05 x 2 m box, about the 2 m edge) and about
# the hinge line 0.55 m away
DOOR_I_EDGE = 10.0 * (1.0 ** 2 + 0.05 ** 2) / 12 + 10.0 * 0.55 ** 2


def _frequency(angles, fps=24, first_frame=4):
    """Mean frequency from the zero crossings of angles[first_frame - 1:] (frame 1 = index 0)."""
    a = np.array(angles[first_frame - 1:])
    t = np.arange(len(a)) / fps
    i = np.nonzero(np.sign(a[:-1]) * np.sign(a[1:]) < 0)[0]
    crossings = t[i] + a[i] / (a[i] - a[i + 1]) * (t[i + 1] - t[i])
    assert len(crossings) >= 4, f"only {len(crossings)} zero crossings"
    return (len(crossings) - 1) / (2.0 * (crossings[-1] - crossings[0]))


def test_door_hung_at_its_edge_swings_at_its_hinge_spring_frequency(blender):
    # About its edge the door is 4.6x as heavy as about its centre: a spring sized from the
    # centre's inertia swung it at 0.47 of the frequency asked.
    out = blender.call("simulation.sprung_door",
                      {"spring_frequency": 1.5, "spring_damping": 0.0})
    assert out["error"] is None
    freq = _frequency(out["angles"])
    print(f"door on a 1.5 Hz hinge spring: {freq:.4f} Hz")
    assert np.abs(out["angles"][3:]).max() > 0.2
    assert abs(freq - 1.5) / 1.5 < 0.03


def test_hinge_spring_in_stiffness_mode_swings_at_sqrt_k_over_the_inertia_about_the_hinge(
        blender):
    k = 60.0                                                      # N m / rad
    out = blender.call("simulation.sprung_door",
                      {"spring_mode": 'STIFFNESS', "spring_stiffness": k, "spring_damper": 0.0})
    assert out["error"] is None
    expected = math.sqrt(k / DOOR_I_EDGE) / (2 * math.pi)
    freq = _frequency(out["angles"])
    print(f"door on a {k} N m/rad hinge spring: {freq:.4f} Hz, expected {expected:.4f}")
    assert abs(freq - expected) / expected < 0.03


def test_a_crate_dropped_on_a_floor_plane_turned_over_rests_on_it(blender):
    # The Mesh shape is two-sided: a floor whose normal points down holds a crate dropped
    # from 2 m as a floor facing up does; with One-Sided on, the crate falls through.
    out = blender.call("simulation.crates_on_flipped_floors")
    assert out["error"] is None
    z = np.array(out["z"])
    assert z[:, 0].min() > 0.45, "the crate went through the floor"
    assert abs(z[-1, 0] - 0.5) < 0.02
    assert np.ptp(z[-12:, 0]) < 1e-3
    # one-sided, met from behind: it falls on, at least 90 % of free fall's drop over the 71
    # frames at 24 fps (the default linear damping takes about 3 %)
    t = 71 / 24
    assert z[-1, 1] < 2.0 - 0.9 * 0.5 * 9.81 * t * t, z[-1, 1]
