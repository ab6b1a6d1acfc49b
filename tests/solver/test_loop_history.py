"""An island of many loops starts each solve pass from its own last solutions (direct.py
`_solve_loops`, docs/decisions/loops-by-conjugate-gradients.md): kept per row of the island,
so two grids swinging side by side step bit-identically on one thread and on two, and a
snapshot (save_state) keeps them, so a replay from it is bit-identical too."""

import numpy as np

import solver as lg
from probes import FRAME, G


def _grids(threads, n=8):
    """Two n x n grids of spheres joined by ball sockets at their midpoints (8 x 8: 339 rows
    each, over MAX_DIRECT_ROWS: solved by conjugate gradients), each hung from one top corner
    so it swings."""
    w = lg.World(gravity=(0, 0, -G), threads=threads)
    for x0 in (0.0, 2.5 * n):
        ids = np.array([[w.add_body(lg.Sphere(0.4), (x0 + k, 0.0, -i), mass=1.0)
                         for k in range(n)] for i in range(n)])
        for i in range(n):
            for k in range(n):
                if k + 1 < n:
                    w.add_ball_socket(ids[i, k], ids[i, k + 1], (x0 + k + 0.5, 0.0, -i))
                if i + 1 < n:
                    w.add_ball_socket(ids[i, k], ids[i + 1, k], (x0 + k, 0.0, -i - 0.5))
        w.add_ball_socket(None, ids[0, 0], (x0, 0.0, 0.0))
    return w


def _steps(w, frames):
    out = []
    for _ in range(frames):
        w.step(FRAME)
        out.append((w.positions.copy(), w.orientations.copy(), w.linear_velocities.copy(),
                    w.angular_velocities.copy(),
                    np.array([w.joint_impulse(j)[0] for j in range(w.joint_count)])))
    return out


def _same(a, b):
    return all(np.array_equal(x, y) for s, t in zip(a, b) for x, y in zip(s, t))


def _shares(w):
    """How many threads' shares this frame's islands are cut into (as test_threads.py)."""
    B, J, R, K = w._kernel_args()
    return int(w._partition(B, J, K, w._collide(FRAME), w.threads)[7].max()) + 1


def test_two_grids_bit_identical_on_one_and_two_threads():
    # 12 x 12: enough work for a worker thread (two 8 x 8 grids stay on one)
    w1, w2 = _grids(1, 12), _grids(2, 12)
    one, two = _steps(w1, 15), _steps(w2, 15)
    assert _shares(w2) == 2                  # one grid on each thread
    swing = np.linalg.norm(one[-1][0] - one[0][0], axis=1)
    assert swing.max() > 0.1                 # the grids do swing
    assert _same(one, two)


def test_a_replay_from_a_snapshot_is_bit_identical():
    w = _grids(1)
    _steps(w, 20)
    saved = w.save_state()
    first = _steps(w, 20)
    w.load_state(saved)
    again = _steps(w, 20)
    assert _same(first, again)
