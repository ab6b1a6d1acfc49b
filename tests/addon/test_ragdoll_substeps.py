"""Metarig ragdolls landing at Jointed Substeps 4 keep their joint limits as at 8: a round
body's contact that strikes the floor (a capsule hand or forearm as the body topples) is
solved with its island's joints (solver/direct.py, island_limits), and a limit near its bound
is a row of the position projection (`_projected_limit`). The scenarios:
tests/addon/scenarios/ragdoll_substeps.py."""

import math

from test_ragdoll import _limit_excess

HEIGHTS = (0.9, 0.95, 1.02, 1.05, 1.1)


def test_metarigs_landing_at_four_jointed_substeps_keep_their_joint_limits(blender):
    # The same five drops as test_ragdoll's at 8 substeps (within 3 degrees there). With the
    # capsule limbs' contacts swept before the joints' exact solve, at 4 substeps the elbow's
    # solve pulled a forearm that had hit the floor back into it, bending a joint up to 12
    # degrees past its limit; with those contacts solved but only violated limits in the
    # position projection, its Newton step bent a neighbouring limit 6.3 degrees past at a
    # frame's end (docs/decisions/jointed-substeps.md).
    out = blender.call("ragdoll_substeps.five_drops_at", 4, HEIGHTS)
    assert out["error"] is None
    excess = [_limit_excess([frame[i] for frame in out["angles"]]) for i in range(5)]
    print("worst limit excess per drop (deg):", [round(math.degrees(e), 2) for e in excess],
          "lowest point (m):", round(out["lowest"], 4))
    assert max(excess) < math.radians(3), \
        f"a joint went {math.degrees(max(excess)):.1f} deg past its limit"
    # nothing through the floor (test_ragdoll's bound for the landing frame at 8 substeps)
    assert out["lowest"] > -0.08
