"""Ragdolls at `jointed_substeps=4` should go no deeper into the floor than at 8, lying or
landing. Lying, they do: a capsule forearm that only the sweep holds was pulled back into
the floor by its elbow's exact solve (-6.8 mm at 4, -2.7 at 8), while the elbow's joints
saw the forearm's inertia plus its geometric stiffness weighted by the island's substep
squared, four times that at 8. Taken at the world's substep (solver/step.py `hk`, branch
geo) the trio lies no deeper than -3.10 mm at 4 and -2.45 at 8. Before, taking a round
body's loaded contact points into the island's exact solve fixed it but bent Rigify
metarigs' limits past 3 degrees at Jointed Substeps 4 (tests/addon/test_ragdoll_substeps.py;
docs/decisions/jointed-substeps.md); with every contact of a loaded body seeing the
stiffened inertia (branch chain44) it passed (-2.64 mm at 4 jointed substeps, -2.81 at 8),
but that let a landing box foot slap 19.8 mm into the floor.

Landing: a tilted box foot lands on its heel edge and the landing impulse slaps it flat
within the frame; its far edge, 94.8 mm up at the frame's start and outside the
narrowphase's margin, had no contact point and ended the frame 8 mm in the floor (-3.0 mm
at 8). A margin counting the pivot about the striking edge fixes it (contacts._pair_margin,
for pairs whose island steps below the world's count, branch sub4g): -1.10 mm at 4, -2.98
at 8; with sub4f's other changes the trio lies at -1.76 mm at 4."""

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


def _lowest(only, jointed, frames):
    """Ragdolls `only` of bench/scenes.ragdolls(20) alone at `jointed` substeps: the lowest
    surface point of any of their bodies over `frames` frames (m, 0 = the floor's top) and
    the frame it was reached in."""
    s = scenes.ragdolls(20, only=only)
    w = lg.World(gravity=GRAVITY, sleeping=False, jointed_substeps=jointed)
    populate(w, s)
    low, when = 1.0, -1
    for f in range(frames):
        w.step(FRAME)
        z = scenes.lowest_point(s, w.positions, scenes.quats_to_matrices(w.orientations))
        if z < low:
            low, when = z, f
    return low, when


def _no_deeper_at_four(only, frames):
    low4, when4 = _lowest(only, 4, frames)
    low8, when8 = _lowest(only, 8, frames)
    note("lowest point at 4 jointed substeps (mm)", 1e3 * low4, f"frame {when4}")
    note("lowest point at 8 (mm)", 1e3 * low8, f"frame {when8}")
    assert low4 > low8 - 1e-3, \
        f"at 4 substeps the ragdoll went {1e3 * (low8 - low4):.1f} mm deeper than at 8"


def test_a_lying_ragdoll_rests_as_deep_at_four_jointed_substeps_as_at_eight():
    # Ragdoll 15's lying left forearm sank from -2.2 mm (frame 71) to -6.8 mm (frame 80) at
    # 4 substeps with the geometric stiffness at the island's substep; the three go no
    # deeper than -2.45 mm at 8. Now -3.10 mm at 4 (frame 59).
    # Ragdolls 11, 15 and 16, the ones that touch each other (15 lands, topples against its
    # neighbours and lies on its left forearm from frame 70).
    _no_deeper_at_four([11, 15, 16], 100)


def test_a_foot_landing_on_its_heel_goes_no_deeper_at_four_jointed_substeps_than_at_eight():
    # main: -8.02 mm at 4 (frame 25), -2.98 at 8 (frame 26); with the pivot margin and the
    # friction anchor weighted by nearness (a950d26): -1.38 at 4, -0.86 at 8; with sub4g's
    # (the pivot margin below the world's count only): -1.10 at 4 (frame 31), -2.98 at 8.
    # Ragdoll 8 alone: it lands on its right foot, tilted, on frame 25.
    _no_deeper_at_four([8], 40)
