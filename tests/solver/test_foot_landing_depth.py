"""A ragdoll landing on a tilted box foot at World() defaults: the foot's far edge slaps down
within the frame and must not go deep into the floor. With the stiffened inertia of the
joints' loads in the box foot's friction rows (every contact of a loaded body seeing it,
branch chain44) ragdoll 14 of bench/scenes.ragdolls(20) put its right foot 19.8 mm into the
floor on frame 25; with the frame's first inertia there (main), 3.1 mm, as deep as the
crowd's other landings (docs/performance.md, the rest44 subsection)."""

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


def test_a_ragdoll_landing_on_a_tilted_foot_keeps_it_out_of_the_floor():
    s = scenes.ragdolls(20, only=[14])
    w = lg.World(gravity=GRAVITY, sleeping=False)
    populate(w, s)
    low, when = 1.0, -1
    for f in range(40):
        w.step(FRAME)
        z = scenes.lowest_point(s, w.positions, scenes.quats_to_matrices(w.orientations))
        if z < low:
            low, when = z, f
    note("ragdoll 14 landing: lowest surface point (mm)", 1e3 * low, f"frame {when}, > -5")
    # the speculative contact and the soft push-out hold a landing within a few mm (the
    # other 19 ragdolls of the crowd land no deeper than 3.1 mm)
    assert low > -5e-3, f"the foot went {-1e3 * low:.1f} mm into the floor at frame {when}"
