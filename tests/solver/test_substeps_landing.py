"""A ragdoll landing on a tilted box foot at `jointed_substeps=4` should go no deeper than at
8. The foot lands on its heel edge and the landing impulse slaps it flat within the frame:
its far edge must have contact points from the frame's start, which the pair's margin gives
it by counting the pivot about the striking edge (`contacts._pair_margin`); without it that
edge, 94.8 mm up at the frame's start and outside the margin, ended the frame 8 mm in the
floor (docs/decisions/jointed-substeps-not-default.md)."""

import os
import sys

import solver as lg
from probes import FRAME, note

BENCH = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "bench")
if BENCH not in sys.path:
    sys.path.insert(0, BENCH)

import scenes  # noqa: E402  (bench/scenes.py: the benchmarks' crowd of ragdolls)
from contacts import GRAVITY, populate  # noqa: E402


def _lowest(jointed, frames=40):
    """Ragdoll 8 of bench/scenes.ragdolls(20) alone (it lands on its right foot, tilted, on
    frame 25) at `jointed` substeps: the lowest surface point of any of its bodies over the
    run (m, 0 = the floor's top) and the frame it was reached in."""
    s = scenes.ragdolls(20, only=[8])
    w = lg.World(gravity=GRAVITY, sleeping=False, jointed_substeps=jointed)
    populate(w, s)
    low, when = 1.0, -1
    for f in range(frames):
        w.step(FRAME)
        z = scenes.lowest_point(s, w.positions, scenes.quats_to_matrices(w.orientations))
        if z < low:
            low, when = z, f
    return low, when


def test_a_foot_landing_on_its_heel_goes_no_deeper_at_four_jointed_substeps_than_at_eight():
    low4, when4 = _lowest(4)
    low8, when8 = _lowest(8)
    note("lowest point at 4 jointed substeps (mm)", 1e3 * low4, f"frame {when4}")
    note("lowest point at 8 (mm)", 1e3 * low8, f"frame {when8}")
    assert low4 > low8 - 1e-3, \
        f"at 4 substeps the ragdoll went {1e3 * (low8 - low4):.1f} mm deeper than at 8"
