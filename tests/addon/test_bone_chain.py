"""Dynamic bone chains in Blender: a chain whose keyed root moves whips and settles back to
its rest shape, stays connected, bakes to what played live; the gravity factor; a spring's
period against its stiffness; a chain below a ragdoll part. The scenarios:
tests/addon/scenarios/bone_chain.py."""

import numpy as np


def _shape(points):
    """Each frame's bone points relative to the root's head."""
    p = np.array(points)
    return p - p[:, :1, :1]


def test_keyed_root_whips_the_chain_which_settles_back_to_rest_and_bakes(blender):
    out = blender.call("bone_chain.keyed_root_whip")
    assert out["bodies"] == 6            # the root's kinematic capsule and five dynamic
    rest = _shape([out["rest"]])[0]
    live = _shape(out["live"])
    # the sideways move swings the tip well away from its rest place...
    swing = np.linalg.norm(live[:, -1, 1] - rest[-1, 1], axis=-1)
    assert swing[4:20].max() > 0.05, swing.max()
    # ...and it comes back (in about 7 s): the last second within 2 mm of the rest shape
    assert np.abs(live[-24:] - rest).max() < 0.002, np.abs(live[-24:] - rest).max()
    # the bodies hold the bones together: within 1 mm on every frame, while they whip
    assert max(out["gaps"]) < 0.001, max(out["gaps"])
    assert np.abs(np.array(out["baked"]) - np.array(out["live"])).max() < 1e-4


def test_gravity_factor_zero_keeps_a_horizontal_chain_straight_one_makes_it_droop(blender):
    out = blender.call("bone_chain.gravity_factors", (0.0, 1.0))
    straight, droop = out["0.0"], out["1.0"]
    assert max(abs(z - 2.0) for z in straight["z"]) < 0.002
    assert 2.0 - droop["z"][-1] > 0.05
    assert straight["gap"] < 0.001 and droop["gap"] < 0.001


def test_a_single_bone_springs_at_its_stiffness(blender):
    # one bone on a root that jumps sideways and stops: with gravity off and no damping the
    # bone swings about its rest direction at the drive's frequency (the drive's hertz is the
    # frequency as hung, for the bone's inertia about the joint)
    out = blender.call("bone_chain.single_bone_spring")
    p = np.array(out)
    d = p[:, 1, 1] - p[:, 1, 0]
    angle = np.arctan2(d[:, 1], d[:, 0])        # the bone's sideways swing
    a = angle[10:] - angle[10:].mean()
    up = np.flatnonzero((a[:-1] < 0) & (a[1:] >= 0))
    period = np.diff(up).mean() / 120.0
    assert abs(period - 0.5) < 0.5 * 0.08, period
    assert np.abs(a).max() > 1e-3


def test_a_chain_below_a_ragdoll_part_hangs_from_it_and_falls_with_the_ragdoll(blender):
    # no ground: the ragdoll falls freely for two seconds (a hard landing tears the light
    # finger bodies off the hand for a frame or two, up to 2 cm: see the guide)
    out = blender.call("bone_chain.chain_below_a_ragdoll_hand")
    # the second finger bone hangs from the ragdoll's hand body, the third from the second
    assert out["hangs"] == sorted(["Rig hand.L", "Rig f_index.02.L chain"])
    assert out["hand_z"][0] - out["hand_z"][-1] > 5.0          # the ragdoll fell
    # the finger's body stays on the hand's body, and on each other, within 1 mm
    assert max(out["held"]) < 0.001, max(out["held"])
    assert max(out["gaps"]) < 0.001, max(out["gaps"])


def test_chain_settings_update_the_helpers_and_remove_deletes_the_chain(blender):
    out = blender.call("bone_chain.chain_settings_and_removal")
    assert np.allclose(out["hair"], [1.5, 1.0, 1.0, 80.0], atol=1e-4)     # float32 storage
    assert np.allclose(out["jiggle"], [6.0, 0.3, 0.0, 30.0], atol=1e-4)
    assert abs(out["width"] - 0.04) < 1e-6
    assert "a chain needs at least two bones" in out["errors"][0]
    assert "simulated already" in out["errors"][1]
    assert out["left"] == [] and out["constraints"] == []
    assert out["enabled"] is False and out["chain"] is False and out["root_simulated"] is True
