"""The soak scene of bench/soak.py (96 moving bodies of four shapes, 21 joints of seven kinds,
a motor, a kinematic paddle sweeping the pile) run for 50 s of simulated time: nothing goes
non-finite, and once the heap has fallen the energy stays level, no body outruns what
drives it, and the joints hold. bench/soak.py runs it for 10 000 frames with frame times."""

import os
import sys

import numpy as np
import pytest

from probes import note

BENCH = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "bench")
if BENCH not in sys.path:
    sys.path.insert(0, BENCH)

import soak  # noqa: E402

FRAMES = 3000
SETTLED = 500            # frames: the heap has fallen by then


@pytest.mark.slow
def test_a_mixed_scene_runs_fifty_seconds_finite_with_level_energy_and_joints_held():
    w, ids, paddle = soak.build()
    blocks = soak.run(FRAMES, w, ids, paddle, block=250)
    assert all(b["finite"] for b in blocks), [b["frame"] for b in blocks if not b["finite"]]
    after = [b for b in blocks if b["frame"] >= SETTLED]
    e0 = after[0]["energy"]
    energies = [b["energy"] for b in after]
    note(f"soak energy from frame {SETTLED} to {FRAMES}",
         f"{min(energies):.1f}..{max(energies):.1f} J (at {SETTLED}: {e0:.1f} J)",
         "within -5 %..+2 %")
    # nothing but the paddle (3.5 m/s at most) and a 2 rad/s motor feeds energy in: level
    assert max(energies) < e0 * 1.02 and min(energies) > e0 * 0.95
    # the paddle's top speed (7 m in 2 s), a rolling ball pushed by it, a falling chain link
    assert max(b["fastest"] for b in after) < 8.0
    # every body still on the walled floor (none fell through or was flung out)
    assert (w.positions[ids, 2] > -0.05).all() and (np.abs(w.positions[ids, :2]) < 8).all()
    # the joints whose anchors coincide (the hinges and the ragdoll cones) still do
    anchors = w.joint_anchors()[soak.PINNED]
    gap = np.linalg.norm(anchors[:, 0] - anchors[:, 1], axis=1).max()
    note("soak pinned joints apart", f"{1000 * gap:.3f} mm", "< 1 mm")
    assert gap < 1e-3
