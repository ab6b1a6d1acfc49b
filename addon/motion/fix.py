"""The physics fix of keyed motion, on arrays (numpy only, like check.py): displacements of
the character's root that make the checked motion physical.

Flight follows gravity, timing kept: in each flight, the centre of mass is moved onto the
parabola of curvature g through where it was keyed at take-off and at landing (the last
stance frame before the flight and the first after it), p(t) = C_a + (C_b - C_a) (t - t_a) /
(t_b - t_a) + g (t - t_a)(t - t_b) / 2. Every body moves by the same displacement p(t) - C(t)
(the root carries them), so the centre of mass lands on p exactly; the displacement is 0 at
take-off and landing, where it meets the keyed motion, and 0 in stance (the contacts stay
where they were keyed). A flight at the start or the end of the frames has no take-off (or
landing) frame: its first (or last) frame is kept instead.
"""

import numpy as np

from . import check


def flight_displacements(report, frames, settings):
    """(F, 3) world displacements of the root, per frame: the parabola's minus the keyed
    centre of mass in flight, 0 in stance."""
    frames = np.asarray(frames, dtype=np.float64)
    t = frames * settings.dt
    g = np.asarray(settings.gravity, dtype=np.float64)
    com = report.com
    out = np.zeros_like(com)
    last_index = len(frames) - 1
    for is_flight, first, last in check.runs(report.flight):
        if not is_flight:
            continue
        a = first - 1 if first > 0 else first
        b = last + 1 if last < last_index else last
        if b == a:
            continue
        ta, tb = t[a], t[b]
        span = slice(first, last + 1)
        s = ((t[span] - ta) / (tb - ta))[:, None]
        target = com[a] + (com[b] - com[a]) * s + \
            0.5 * np.outer((t[span] - ta) * (t[span] - tb), g)
        out[span] = target - com[span]
    return out


def displaced(matrices, displacement):
    """`matrices` (F, B, 4, 4) with every body moved by its frame's `displacement` (F, 3)."""
    out = np.array(matrices, dtype=np.float64, copy=True)
    out[..., :3, 3] += np.asarray(displacement)[:, None, :]
    return out
