"""An island of many loops starts each solve pass from its own last solutions (direct.py
`_solve_loops`, docs/decisions/loops-by-conjugate-gradients.md): kept per row of the island,
so two grids swinging side by side step bit-identically on one thread and on two, and a
snapshot (save_state) keeps them, so a replay from it is bit-identical too."""

import numpy as np

import solver as lg
from probes import FRAME, G


def _grids(threads):
    """Two 8 x 8 grids of spheres joined by ball sockets at their midpoints (496 rows each:
    solved by conjugate gradients), each hung from one top corner so it swings."""
    w = lg.World(gravity=(0, 0, -G), threads=threads)
    for x0 in (0.0, 20.0):
        ids = np.array([[w.add_body(lg.Sphere(0.4), (x0 + k, 0.0, -i), mass=1.0)
                         for k in range(8)] for i in range(8)])
        for i in range(8):
            for k in range(8):
                if k + 1 < 8:
                    w.add_ball_socket(ids[i, k], ids[i, k + 1], (x0 + k + 0.5, 0.0, -i))
                if i + 1 < 8:
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
    w1, w2 = _grids(1), _grids(2)
    one, two = _steps(w1, 40), _steps(w2, 40)
    assert _shares(w2) == 2                  # one grid on each thread
    swing = np.linalg.norm(one[-1][0] - one[0][0], axis=1)
    assert swing.max() > 0.5                 # the grids do swing
    assert _same(one, two)


def test_a_replay_from_a_snapshot_is_bit_identical():
    w = _grids(1)
    _steps(w, 20)
    saved = w.save_state()
    first = _steps(w, 20)
    w.load_state(saved)
    again = _steps(w, 20)
    assert _same(first, again)
