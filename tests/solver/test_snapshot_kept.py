"""A snapshot's kept factors (World._save_kept) are exactly the kept rows and their entries,
frame after frame, while what is kept changes between snapshots: a joint steered (every
factor forgotten), bodies and joints added (the kept arrays grow), a joint broken, a second
limb landing. The expectation is the kept arrays compacted here another way (row by row);
a replay from each snapshot is bit-identical."""

import numpy as np
import solver as lg
from limbs import limb_chain
from probes import FRAME, G
from test_determinism import _same


def _compacted(w):
    """(fpose, rows, keys, heads, cols, values) of the kept arrays, row by row: a kept row
    (key not 0) keeps its first five pattern columns, its c column places and c + 1 factor
    entries (the diagonal, then the c entries), c = pattern column 1."""
    fpose, fkey, fpat, ffac = w._kept
    rows = [r for r in range(len(fkey)) if fkey[r] != 0]
    cols = [fpat[r, 5:5 + fpat[r, 1]] for r in rows]
    values = [ffac[r, :fpat[r, 1] + 1] for r in rows]
    return (fpose.copy(), np.array(rows, dtype=np.int64), fkey[rows], fpat[rows, :5],
            np.concatenate(cols) if cols else np.zeros(0, np.int32),
            np.concatenate(values) if values else np.zeros(0))


def test_snapshots_keep_exactly_the_kept_factors_while_what_is_kept_changes():
    w = lg.World(gravity=(0, 0, -G), sleeping=False)
    w.add_body(lg.Box((8, 8, 0.5)), (0, 0, -0.5), kind="static")
    bodies, _ = limb_chain(w, links=5, bars="box")
    hinge = 1           # limb_chain's second joint
    states, kept_rows = [], set()
    for f in range(150):
        if f == 40:     # steered: every island plans and factors afresh
            w.set_motor(hinge, 1.0, 5.0)
        if f == 70:     # a second limb, higher up: the tables and the kept arrays grow
            more, _ = limb_chain(w, links=4, bars="box")
            w.positions[more] += (0.0, 2.0, 1.0)
            breaking = w.add_ball_socket(more[0], more[1], tuple(w.positions[more[0]]),
                                         break_force=1e-3)
        w.step(FRAME)
        saved = w.save_state()
        assert _same(saved["kept_factors"], _compacted(w)), f"frame {f}"
        kept_rows.add(saved["kept_factors"][1].tobytes() + saved["kept_factors"][2].tobytes())
        states.append(saved)
    assert w.joint_broken(breaking), "the weak joint did not break"
    assert len(kept_rows) > 2, f"what is kept changed {len(kept_rows) - 1} times"
    for f in (75, 100, 120):     # snapshots of these bodies and joints (after frame 70)
        w.load_state(states[f])
        for _ in range(f + 1, 150):
            w.step(FRAME)
        assert _same(w.save_state(), states[-1]), f"the replay from frame {f} differs"
