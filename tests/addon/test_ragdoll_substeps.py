"""Metarig ragdolls landing at Jointed Substeps 4 (the default, test_ragdoll.py's drops) keep
their joint limits as at 8, and at 8 as at 4: a round body's contact that strikes the floor (a
capsule hand or forearm as the body topples) or carries a load on it is solved with its
island's joints (solver/direct.py, island_limits), a limit near its bound is a row of the
position projection (`_projected_limit`), and the projection catches up with a limit as fast a
second at either count (`projection_turn`). The scenarios:
tests/addon/scenarios/ragdoll_substeps.py."""

import math

from test_ragdoll import _limit_excess

HEIGHTS = (0.9, 0.95, 1.02, 1.05, 1.1)


def test_metarigs_landing_at_eight_jointed_substeps_keep_their_joint_limits(blender):
    # The same five drops as test_ragdoll's at the default Jointed Substeps 4 (within 3
    # degrees there), at the full count. Before branch sub4f it was the other way round, and
    # at 4 substeps: with the capsule limbs' contacts swept before the joints' exact solve,
    # the elbow's solve pulled a forearm that had hit the floor back into it, bending a joint
    # up to 12 degrees past its limit; with those contacts solved but only violated limits in
    # the position projection, its Newton step bent a neighbouring limit 6.3 degrees past at
    # a frame's end; with a round body's loaded contacts against its own spine in the exact
    # solve, a wrist 7.21 degrees at 8 (docs/decisions/jointed-substeps.md).
    out = blender.call("ragdoll_substeps.five_drops_at", 8, HEIGHTS)
    assert out["error"] is None
    excess = [_limit_excess([frame[i] for frame in out["angles"]]) for i in range(5)]
    print("worst limit excess per drop (deg):", [round(math.degrees(e), 2) for e in excess],
          "lowest point (m):", round(out["lowest"], 4))
    assert max(excess) < math.radians(3), \
        f"a joint went {math.degrees(max(excess)):.1f} deg past its limit"
    # nothing through the floor (test_ragdoll's bound for the landing frame at 8 substeps)
    assert out["lowest"] > -0.08


def test_a_character_landing_at_four_jointed_substeps_stays_on_the_floor_as_at_eight(blender):
    # A limp ragdoll with no restitution that has landed does not leave the floor again: it
    # may topple and roll, but some body touches the floor at every frame. The metarig of
    # test_characters, dropped from 1 m at 24 fps, lands on its feet in a deep crouch on
    # frame 17; at Jointed Substeps 4 its feet's contacts and knee and hip limits, solved
    # together, threw the whole body up at 1.4 m/s (the landing frame's impulse on the
    # feet 280 N s where stopping it took 200) and it hung 12 cm above the floor on frame
    # 23: each joint's geometric stiffness (solver/bodies.py) weighted the solve's inertia
    # with the island's own substep squared, four times that at 8 substeps on the impact's
    # loads (docs/decisions/jointed-substeps.md).
    for jointed in (4, 8):
        out = blender.call("ragdoll_substeps.character_landing", jointed)
        assert out["error"] is None
        lowest = out["lowest"]
        touched = next(f for f, z in enumerate(lowest) if z < 0.005)
        print(f"Jointed Substeps {jointed}: lands on frame {touched + 1}, highest lowest point "
              f"after it {1000 * max(lowest[touched:]):.1f} mm, deepest "
              f"{1000 * min(lowest):.1f} mm")
        # within the speculative contacts' reach of the floor (SPECULATIVE_DISTANCE, 20 mm)
        assert max(lowest[touched:]) < 0.02, (jointed, lowest)
        assert min(lowest) > -0.08        # and not through it (test_ragdoll's landing bound)
