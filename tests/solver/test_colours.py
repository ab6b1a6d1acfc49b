"""One big island solved colour by colour on several threads (solver/colours.py).

The colouring must be a proper one (no two manifolds of a colour on one dynamic body, every
manifold once, the manifolds' data moved with them), the result bit-identical whether the
island's stages run on one thread or on several (a jointed body in it too), and an island too
small to colour stepped as before. The pile's physics under the coloured sweep is checked by
test_piles.py (its 20-row pyramids and brick wall are coloured islands).
"""

import numpy as np
import pytest

import solver as lg
from solver import pool
from solver.bodies import DYNAMIC
from solver.colours import COLOURED_MIN, MAX_COLOURS, order_manifolds
from solver.contacts import ROWS_PER_MANIFOLD, permute_manifolds
from solver.jit import kernel

FRAME = 1.0 / 60.0


@kernel
def _order(C, ids, bs, bkind, gravity):
    return order_manifolds(C, ids, bs, bkind, gravity)


@kernel
def _permute(order, mi, mf, acc, rows_per):
    permute_manifolds(order, mi, mf, acc, rows_per)


@pytest.mark.parametrize("n", [0, 1, 2, 7, 500])
def test_permute_manifolds_is_numpys_indexing(n):
    """In place, cycle by cycle: the same as taking each table at the order (half the
    manifolds left where they are, the rest in cycles of every length)."""
    rng = np.random.default_rng(n)
    order = np.arange(n)
    moved = rng.permutation(n)[: n // 2]
    order[moved] = moved[rng.permutation(len(moved))]
    mi = rng.integers(0, 1000, (n, 9))
    mf = rng.random((n, 11))
    acc = rng.random(n * ROWS_PER_MANIFOLD)
    want = (mi[order], mf[order], acc.reshape(n, ROWS_PER_MANIFOLD)[order].ravel())
    _permute(order, mi, mf, acc, ROWS_PER_MANIFOLD)
    for got, expected in zip((mi, mf, acc), want):
        assert np.array_equal(got, expected)


class _Always:
    """A Spread that always takes the count asked for (the World's own choice depends on
    the machine's load; these tests must run the threads)."""

    def choose(self, threads):
        return threads

    def record(self, threads, seconds):
        pass


ROWS, COLUMNS = 16, 30


def _impulses(acc, m):
    return acc[m * ROWS_PER_MANIFOLD:(m + 1) * ROWS_PER_MANIFOLD]


def _wall(threads, rows=ROWS, columns=COLUMNS, kinematic=False):
    """A staggered wall of bricks on a floor, a box thrown into it: one island of several
    hundred manifolds, moving."""
    w = lg.World(gravity=(0, 0, -9.81), threads=threads)
    w.add_body(lg.Box((40, 40, 1)), (0, 0, -0.5), kind="static")
    size = (0.4, 0.2, 0.2)
    for r in range(rows):
        shift = 0.2 if r % 2 else 0.0
        for c in range(columns):
            w.add_body(lg.Box(size), (c * 0.401 + shift - 6.0, 0.0, 0.1 + 0.2 * r), mass=1.0)
    w.add_body(lg.Box((0.3, 0.3, 0.3)), (0.0, -2.0, 1.2), mass=20.0,
               linear_velocity=(0.0, 8.0, 0.0))
    if kinematic:
        w.add_body(lg.Box((12, 0.1, 0.1)), (0.0, 0.15, 0.05), kind="kinematic",
                   linear_velocity=(0.0, -0.3, 0.0))
    w._spread = _Always()
    return w


@pytest.mark.slow
def test_blocks_and_colours_share_no_body_and_keep_each_manifold_whole():
    w = _wall(1)
    for _ in range(20):
        w.step(FRAME)
    mi, mf, acc, rows, params = w._collide(FRAME)
    assert len(mi) >= COLOURED_MIN
    bs, bkind = w._bs.view, w._kernel_args()[0][6]
    before = {(int(a), int(b), int(k7), int(k8)): (f.copy(), _impulses(acc, m).copy())
              for m, (a, b, *_, k7, k8), f in zip(range(len(mi)), mi, mf)}
    ids = np.arange(len(bs))
    blocks, colours = _order((mi, mf, acc, rows, params), ids, bs, bkind, (0.0, 0.0, -9.81))
    assert blocks[0] == 0 and blocks[-1] == colours[0] and colours[-1] == len(mi)
    assert np.all(np.diff(blocks) >= 0) and np.all(np.diff(colours) >= 0)

    def dynamic(lo, hi):
        return [int(b) for m in range(lo, hi) for b in mi[m, :2] if bkind[b] == DYNAMIC]

    owner = {}
    for k in range(len(blocks) - 1):
        for b in dynamic(blocks[k], blocks[k + 1]):
            assert owner.setdefault(b, k) == k, f"body {b} in blocks {owner[b]} and {k}"
    assert len(blocks) - 1 >= 2
    inside = blocks[-1] - blocks[0]
    assert inside > 0.7 * len(mi)          # most manifolds lie inside a block
    used = 0
    for c in range(MAX_COLOURS):
        bodies = dynamic(colours[c], colours[c + 1])
        assert len(bodies) == len(set(bodies)), f"colour {c} has a body twice"
        used += colours[c + 1] > colours[c]
    assert 1 <= used <= 16
    after = {(int(a), int(b), int(k7), int(k8)): (f, _impulses(acc, m))
             for m, (a, b, *_, k7, k8), f in zip(range(len(mi)), mi, mf)}
    assert after.keys() == before.keys()
    for key, (f, a) in before.items():
        assert np.array_equal(after[key][0], f) and np.array_equal(after[key][1], a)


@pytest.mark.slow
@pytest.mark.parametrize("kinematic", [False, True])
def test_one_and_several_threads_bit_identical(kinematic):
    """The wall knocked over by the thrown box: positions and velocities equal to the bit
    whether its stages run on one thread or on two, or three (more than the cores)."""
    states = []
    for threads in (1, 2, 3):
        w = _wall(threads, kinematic=kinematic)
        for _ in range(90):
            w.step(FRAME)
        states.append(w._bs.view.copy())
    assert np.array_equal(states[0], states[1])
    assert np.array_equal(states[0], states[2])
    bricks = slice(1, 1 + ROWS * COLUMNS)
    start = _wall(1, kinematic=kinematic)._bs.view[bricks, :3]
    moved = np.linalg.norm(states[0][bricks, :3] - start, axis=1)
    assert moved.max() > 0.1        # the box went through the wall: there was work to share


@pytest.mark.slow
def test_only_big_islands_are_coloured_joints_or_not():
    w = _wall(2, rows=3, columns=6)                 # a small wall: a plain island
    big = _wall(2)
    for _ in range(5):
        w.step(FRAME)
        big.step(FRAME)
    assert not _coloured(w).any()
    assert _coloured(big).sum() == 1
    a = big.add_body(lg.Sphere(0.05), (3.0, 3.0, 3.0), mass=1.0)
    big.add_ball_socket(1, a, (3.0, 3.0, 3.0))       # a joint on a brick: still coloured
    big.step(FRAME)
    assert _coloured(big).sum() == 1


@pytest.mark.slow
def test_wrecking_ball_on_a_joint_bit_identical():
    """A ball hanging from a ball socket swings through the wall: while it touches the
    bricks the island has a joint (solved on the calling thread), still the same result
    on one thread as on two."""
    states = []
    for threads in (1, 2):
        w = _wall(threads)
        ball = w.add_body(lg.Sphere(0.3), (0.0, -3.0, 4.0), mass=200.0)
        w.add_ball_socket(None, ball, (0.0, 0.0, 4.5))
        for _ in range(120):
            w.step(FRAME)
        states.append(w._bs.view.copy())
        assert np.linalg.norm(w.positions[ball] - (0.0, 0.0, 4.5)) == \
            pytest.approx(np.hypot(3.0, 0.5), abs=2e-3)  # the joint held its length
    assert np.array_equal(states[0], states[1])
    bricks = slice(1, 1 + ROWS * COLUMNS)
    start = _wall(1)._bs.view[bricks, :3]
    assert np.linalg.norm(states[0][bricks, :3] - start, axis=1).max() > 0.1


def _coloured(w):
    """Which of the world's batches islands.partition would colour this frame."""
    B, J, R, K = w._kernel_args()
    return w._partition(B, J, K, w._collide(FRAME), w.threads)[9]     # batch_coloured


def test_spread_takes_the_faster_count_and_tries_the_other_again():
    def run(cost, frames):
        s = pool.Spread()
        picks = []
        for _ in range(frames):
            k = s.choose(2)
            picks.append(k)
            s.record(k, cost(k, len(picks)))
        return picks

    assert pool.Spread().choose(1) == 1
    P = pool.Spread.PROBE
    # two threads three times faster: one thread tried again after PROBE frames, then
    # after 2 PROBE, 4 PROBE (each try lost)
    picks = run(lambda k, f: 1.0 if k == 2 else 3.0, 8 * P + 10)
    assert picks[:4] == [2, 2, 1, 1]
    tries = [i for i, k in enumerate(picks) if k == 1 and i >= 4]
    assert tries == [3 + P, 3 + 3 * P, 3 + 7 * P]
    # a loaded machine: two threads cost more, one runs
    picks = run(lambda k, f: 5.0 if k == 2 else 1.0, 4 * P)
    assert picks[4:].count(2) == 2
    # the load goes away at frame 300: the next try of two threads wins and they stay
    picks = run(lambda k, f: (5.0 if f < 300 else 0.5) if k == 2 else 1.0, 6 * P)
    assert picks[-2 * P:].count(2) >= 2 * P - 1
