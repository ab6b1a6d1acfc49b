"""Ragdolls at `jointed_substeps=4` go no deeper into the floor than at 8, lying or
landing.

Lying: a capsule forearm that only the sweep held was pulled back into the floor by its
elbow's exact solve (-6.79 mm at 4 against -2.73 at 8 on main before branch sub4f). A round
body's loaded contact on the world joins its island's exact solve (direct.island_limits).

Landing: a tilted box foot lands on its heel edge and the landing impulse slaps it flat
within the frame; its far edge, 94.8 mm up at the frame's start, was outside the
narrowphase's margin, had no contact point and ended the frame 8 mm in the floor (-3.0 mm
at 8). A pair's margin counts the pivot about the striking edge (contacts._pair_margin;
docs/performance.md, "The landing foot's pivot margin").
"""

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
    # Ragdoll 15's lying left forearm sinks from -2.2 mm (frame 71) to -6.8 mm (frame 80)
    # at 4 substeps before sub4f; the three go no deeper than -2.7 mm at 8. sub4f: -1.45 mm
    # at 4, -1.42 at 8.
    # Ragdolls 11, 15 and 16, the ones that touch each other (15 lands, topples against its
    # neighbours and lies on its left forearm from frame 70).
    _no_deeper_at_four([11, 15, 16], 100)


def test_a_foot_landing_on_its_heel_goes_no_deeper_at_four_jointed_substeps_than_at_eight():
    # Before the pivot margin: -8.02 mm at 4 (frame 25), -2.98 at 8 (frame 26); sub4f:
    # -1.38 at 4, -0.69 at 8.
    # Ragdoll 8 alone: it lands on its right foot, tilted, on frame 25.
    _no_deeper_at_four([8], 40)
