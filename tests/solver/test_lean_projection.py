"""An island of ball sockets, hinges and ragdoll joints skips a substep's position projection
when its joints are already within direct.PROJECTION_TOLERANCE (5e-8 m and rad): the error
it leaves must stay that small, at rest and while the island swings and lands."""

import numpy as np
import solver as lg
from limbs import limb_chain
from probes import FRAME, G, note, separation


def test_a_tumbling_limb_chain_keeps_its_joints_within_twice_the_skip_tolerance():
    w = lg.World(gravity=(0, 0, -G), sleeping=False)
    w.add_body(lg.Box((5, 5, 0.5)), (0, 0, -0.5), kind="static")
    bodies, ends = limb_chain(w)
    w.apply_impulse(bodies[-1], (0, 2.0, 3.0))       # it tumbles, lands and comes to rest
    moving = resting = 0.0
    for f in range(240):
        w.step(FRAME)
        gap = max(separation(a, b) for a, b in ends)
        if f < 120:
            moving = max(moving, gap)
        else:
            resting = max(resting, gap)
    speed = float(np.abs(w.linear_velocities[bodies]).max())
    # 2026-11-29: 5.3e-8 m moving, 5.0e-8 m at rest (at a tolerance of 1e-8: 1.3e-8 and
    # 1.0e-8; projecting every substep: 6e-10 and 5e-12 m); the bound is twice the
    # tolerance the projection is skipped within
    note("limb chain: largest joint gap while moving (m)", moving, "< 1e-7")
    note("limb chain: largest joint gap at rest (m)", resting, "< 1e-7")
    assert speed < 0.05, f"the chain still moves at {speed:.3f} m/s"
    assert moving < 1e-7, f"a joint opened {1e3 * moving:.6f} mm while the chain moved"
    assert resting < 1e-7, f"a joint opened {1e3 * resting:.6f} mm at rest (allowed 1e-4)"
