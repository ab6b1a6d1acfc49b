"""Directing the simulation by hand in real Blender: Add Pin (an empty that pulls its body's
point to wherever the empty is: moved, keyed, parented; switched on and off by its keyed
`enabled`; its force limited), on bodies and on a ragdoll's pose bones, and Transfer Pose
(the simulated pose keyed at the current frame onto the armature or its control rig).
The scenarios: tests/addon/scenarios/pins.py."""

G = 9.81


def test_add_pin_makes_a_pin_empty_at_each_selected_body_and_refuses_others(blender):
    out = blender.call("pins.add_pin_on_a_selection")
    assert out["res"] == ["FINISHED"]
    assert [r[:4] for r in out["rows"]] == [["Pin A", "PIN", "A", True], ["Pin B", "PIN", "B", True]]
    centres = {"A": (0, 0, 2), "B": (2, 1, 3)}
    for name, _, body, _, at, point, dot in out["rows"]:
        # at the body's centre, turned as the body, its pinned point where it is
        assert max(abs(x - y) for x, y in zip(at, centres[body])) < 1e-5
        assert max(abs(x - y) for x, y in zip(at, point)) < 1e-5
        assert dot > 1.0 - 1e-9
    assert "'Wall' is Static" in out["refused"] and out["count"] == 2


def test_rigid_pin_keeps_the_body_on_its_keyed_empty_moving_a_metre_in_24_frames(blender):
    # the pin holds the box by a corner: the box swings under gravity while the corner
    # follows the keyed empty
    out = blender.call("pins.rigid_pin_keyed_a_metre")
    assert out["error"] is None
    assert abs(out["moved"] - 1.0) < 1e-6
    assert max(out["errors"]) < 1e-3, out["errors"]
    assert out["turned"] > 0.05          # it swung about the corner


def test_pin_follows_its_parent_and_its_keyed_switch(blender):
    # A pin parented to a keyed (non-body) object carries a ball along; its keyed `enabled`
    # lets go at frame 10 (the ball falls from rest at frame 9 as a free ball falls from
    # rest, the same ball never pinned beside it) and takes hold again at frame 20.
    out = blender.call("pins.pin_parented_and_switched")
    assert out["error"] is None
    rows = {f: (err, z, x, zf) for f, err, z, x, zf in out["rows"]}
    # held (and carried along x by the parent) while on
    for f in list(range(1, 10)) + list(range(20, 31)):
        assert rows[f][0] < 1e-3, (f, rows[f])     # the pinned point on the empty
    err, z, x, zf = range(4)      # the columns of rows
    assert abs(rows[30][z] - 3.0) < 1e-3 and rows[30][x] > 0.5     # carried along x
    # off: it falls from rest at frame 9 as the free ball fell from rest at frame 1
    for k in range(1, 11):
        drop = rows[9][z] - rows[9 + k][z]
        free_drop = rows[1][zf] - rows[1 + k][zf]
        assert abs(drop - free_drop) < 1e-5, (k, drop, free_drop)
    t = 10 / 24.0     # and that is a fall under gravity (the substeps lead by 1/80 of it)
    assert abs(rows[1][zf] - rows[11][zf] - 0.5 * 9.81 * t * t) < 0.02 * 0.5 * 9.81 * t * t


def test_pin_force_limit_lets_a_heavy_body_sink_at_g_minus_f_over_m(blender):
    # a 2 kg box held up by a rigid pin of at most 9.81 N (half its weight) sinks at g / 2
    out = blender.call("pins.pin_force_limited", 9.81)
    assert abs(out["max_force"] - 9.81) < 1e-5
    t = 23 / 24.0
    expected = 0.5 * (G - 9.81 / 2.0) * t * t
    drop = 5.0 - out["zs"][-1]
    assert abs(drop - expected) < 0.02 * expected, (drop, expected)


def test_pose_bone_pin_holds_a_ragdoll_hand_where_its_empty_is_keyed(blender):
    out = blender.call("pins.pose_bone_pin_on_a_hand")
    assert out["res"] == ["FINISHED"] and out["error"] is None
    assert "hand.L" in out["bone_of_body"]
    assert max(out["errors"]) < 2e-3, out["errors"]


def test_transfer_pose_keys_the_simulated_pose_onto_the_armature(blender):
    out = blender.call("pins.transfer_pose_onto_the_armature")
    assert out["res"] == ["FINISHED"] and out["res_part"] == ["FINISHED"]
    assert out["fell"] > 0.1                       # the pose is not the rest pose
    assert out["keyed"] == out["moved"]
    assert out["frames"] == [30.0]
    assert out["dist"] < 1e-4, out["dist"]
    assert out["turn"] < 0.01, out["turn"]
    assert out["part_keyed"] and "forearm.R" in out["part_keyed"]
    assert set(out["part_keyed"]) < set(out["moved"])


def test_transfer_pose_keys_the_control_rig_where_controls_are_set_up(blender):
    # a plain control rig: the ragdoll's bones under other names, rolled 30 degrees
    out = blender.call("pins.transfer_pose_onto_a_control_rig")
    assert out["res"] == ["FINISHED"]
    assert out["arm_keys"] == 0 and out["rig_keys"] > 0
    assert out["dist"] < 1e-4, out["dist"]
    # as close as the armature's own keys (the test above)
    assert out["turn"] < 0.01, out["turn"]
