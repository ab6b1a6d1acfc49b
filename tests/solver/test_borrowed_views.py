"""Views of borrowed arrays are borrowed too (solver/jit.py `_borrowed_part`): the direct
solver takes each island's rows, factor and columns as views of the plan's arrays
(`order[a:b]`, `factors[a:b].reshape((n, n))`, `gk[k]`) and loops over arrays of rows, and
numba counted each view's reference up and down, an atomic operation each: the reference
counts left after the tuples were borrowed (docs/performance.md, 2026-11-30, branch
views44). A function whose views, iterators and named tuples only hold the memory of the
arrays its caller passed does no reference counting; one that hands a view back, makes a
copy (an array index) or allocates keeps it, and no array is freed early or kept alive
after its last use."""

import collections
import sys

import numpy as np
import pytest
from numba.core import types
from numba.core.runtime import _nrt_python, rtsys

from solver import jit
from solver.direct import _barely_moved, _solve_island
from test_kernel_cache import _refcount_calls

A1 = types.float64[::1]
A2 = types.float64[:, ::1]
I1 = types.int64[::1]
I2 = types.int64[:, ::1]
B1 = types.bool_[::1]

Pair = collections.namedtuple("Pair", ["first", "second"])


@jit.helper(outline=True)
def _scaled_sum(a, w):
    total = 0.0
    for i in range(a.shape[0]):
        total += a[i] * w
    return total


@jit.helper(outline=True)
def _pair_sum(p):
    return _scaled_sum(p.first, 1.0) + _scaled_sum(p.second, 1.0)


@jit.kernel
def _views(order, starts, flat, m):
    """As the direct solver does: an island's rows as a slice, its factor as a reshaped
    slice, a row of a 2-d array, a loop over an array, a named tuple of views."""
    total = 0.0
    for s in range(starts.shape[0] - 1):
        rows = order[starts[s]:starts[s + 1]]
        n = rows.shape[0]
        block = flat[:n * n].reshape((n, n))
        for r in rows:                        # an iterator over the view
            total += r * _scaled_sum(block[0], 1.0)
        total += _pair_sum(Pair(m[s], m[s, 1:]))
        total += _scaled_sum(m[:, s], 2.0)              # a column: not contiguous
    return total


def _views_by_hand(order, starts, flat, m):
    total = 0.0
    for s in range(len(starts) - 1):
        rows = order[starts[s]:starts[s + 1]]
        n = len(rows)
        block = flat[:n * n].reshape((n, n))
        for r in rows:
            total += r * block[0].sum()
        total += m[s].sum() + m[s, 1:].sum()
        total += 2.0 * m[:, s].sum()
    return total


@jit.kernel
def _fancy(a, idx):
    b = a[idx]                 # an array index: a copy, not a view
    return _scaled_sum(b, 1.0)


@jit.helper(outline=True)
def _same(a):
    return a


@jit.kernel
def _view_back(a):
    return _same(a[1:])        # a view handed back through a call


@pytest.fixture
def nrt_stats():
    """numba's counts of the arrays made and freed (NUMBA_NRT_STATS), on for the test."""
    was = _nrt_python.memsys_stats_enabled()
    _nrt_python.memsys_enable_stats()
    yield
    if not was:
        _nrt_python.memsys_disable_stats()


def test_a_function_that_only_takes_views_does_no_reference_counting():
    sig = (I1, I1, A1, A2)
    assert _refcount_calls(_views, sig) == 0
    order = np.array([3, 1, 4, 1, 5, 9], dtype=np.int64)
    starts = np.array([0, 2, 6], dtype=np.int64)
    flat = np.arange(40.0) * 0.5
    m = np.arange(12.0).reshape((2, 6))
    assert _views(order, starts, flat, m) == _views_by_hand(order, starts, flat, m)


def test_views_leave_the_arrays_reference_counts_as_they_were(nrt_stats):
    """numba's own count of the arrays it made and freed, and Python's of the arrays passed
    in: a view counted down and never up would free an array still in use; one counted up
    and never down would keep it for ever."""
    order = np.array([3, 1, 4, 1, 5, 9], dtype=np.int64)
    starts = np.array([0, 2, 6], dtype=np.int64)
    flat = np.arange(40.0)
    m = np.ones((2, 6))
    _views(order, starts, flat, m)
    before = rtsys.get_allocation_stats()
    counts = [sys.getrefcount(a) for a in (order, starts, flat, m)]
    for _ in range(1000):
        _views(order, starts, flat, m)
    after = rtsys.get_allocation_stats()
    assert [sys.getrefcount(a) for a in (order, starts, flat, m)] == counts
    assert after.mi_alloc - before.mi_alloc == after.mi_free - before.mi_free
    assert after.alloc - before.alloc == after.free - before.free


def test_a_copy_made_by_an_array_index_keeps_its_reference_counting(nrt_stats):
    assert _refcount_calls(_fancy, (A1, I1)) > 0
    a = np.arange(10.0)
    before = rtsys.get_allocation_stats()
    for _ in range(100):
        assert _fancy(a, np.array([1, 3, 3], dtype=np.int64)) == 7.0
    after = rtsys.get_allocation_stats()
    assert after.alloc - before.alloc >= 100           # the copies were made ...
    assert after.alloc - before.alloc == after.free - before.free   # ... and freed


def test_a_view_handed_back_through_a_call_keeps_its_reference_and_its_array():
    assert _refcount_calls(_view_back, (A1,)) > 0
    a = np.arange(5.0)
    view = _view_back(a)
    del a
    assert list(view) == [1.0, 2.0, 3.0, 4.0]


def test_the_direct_solvers_island_solve_and_reuse_check_count_nothing():
    """`_solve_island` (the Schur complement of an island's pressed limits, its columns of
    G rows of the plan's gkeep) and `_barely_moved` (a loop over the island's rows), typed
    as `_solve_direct` and `_factor_islands` call them."""
    R = types.Tuple((I2, A2, A2, A2, A2))
    CR = types.Tuple((I2, A2, A2))
    W = types.Tuple((A1, I1, A1, A1, A1, B1, I1, A2, A1, B1, I1, A2, A1, I1, A1, B1, I1, A2))
    sig = (I1, A2, I2, I1, types.int64, types.boolean, R, CR, A1, A1, A1, A1, A1, W,
           I1, I1, types.int64, I1, A2, B1, I1)
    assert _refcount_calls(_solve_island, sig) == 0
    sig = (I1, I2, A2, A2, A2, A2, types.float64, types.float64)
    assert _refcount_calls(_barely_moved, sig) == 0
