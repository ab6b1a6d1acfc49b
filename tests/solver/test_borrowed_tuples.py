"""Tuples of arrays passed into a kernel are borrowed like the arrays themselves
(solver/jit.py `_borrowed`): the step's stages take their tables as tuples (R, B, C, the
island plan), and each array taken out of one counted a reference up and down, an atomic
operation each time: a tenth of a ragdoll's frame in NRT_incref and NRT_decref
(docs/performance.md, `bench/kernel_profile.py --callers NRT_incref,NRT_decref`). A function
that only borrows does no reference counting; one that hands an array of its tuple back, or
allocates, keeps it, and what it handed back stays alive."""

import numpy as np
from numba.core import types

from solver import jit
from solver.step import warm_start_rows
from test_kernel_cache import _refcount_calls

A1 = types.float64[::1]
A2 = types.float64[:, ::1]
I1 = types.int64[::1]
I2 = types.int64[:, ::1]


@jit.helper(outline=True)
def _axpy(a, b, c):
    for i in range(a.shape[0]):
        a[i] += b[i] * c[i]


@jit.kernel
def _sweeps(R, B, n):
    """As the step's stages do: the rows' tuple passed on whole, the bodies' taken apart."""
    for _ in range(n):
        _axpy(*R, B[0])


@jit.kernel
def _second(t):
    return t[1]


@jit.kernel
def _sum_copy(t):
    c = t[0].copy()
    return c.sum()


def test_a_function_that_only_borrows_tuples_of_arrays_does_no_reference_counting():
    sig = (types.Tuple((A1, A1)), types.Tuple((A1, A2)), types.int64)
    assert _refcount_calls(_sweeps, sig) == 0
    a, b, c = np.zeros(3), np.arange(3.0), np.full(3, 2.0)
    _sweeps((a, b), (c, np.zeros((1, 1))), 2)
    assert list(a) == [0.0, 4.0, 8.0]


def test_a_stage_of_the_step_taking_its_rows_and_bodies_as_tuples_counts_nothing():
    """The joints' warm start, as step_frame calls it: rows R = (rb, rj, rd, rp, rk),
    bodies (bs, binv, bI)."""
    R = types.Tuple((I2, A2, A2, A2, A2))
    body = types.Tuple((A2, A1, A2))
    sig = (I1, I2, I1, R, A1, body)
    assert _refcount_calls(warm_start_rows, sig) == 0


def test_an_array_handed_back_from_a_tuple_keeps_its_reference():
    assert _refcount_calls(_second, (types.Tuple((A1, A1)),)) > 0
    t = (np.zeros(2), np.arange(4.0))
    got = _second(t)
    del t
    assert list(got) == [0.0, 1.0, 2.0, 3.0]


def test_a_function_that_allocates_keeps_its_reference_counting():
    assert _refcount_calls(_sum_copy, (types.Tuple((A1, A1)),)) > 0
    assert _sum_copy((np.arange(5.0), np.zeros(1))) == 10.0
