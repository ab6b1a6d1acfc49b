"""A stable argsort and a binary search for kernels.

numba's np.argsort(kind="mergesort") compiles a generic merge sort machinery of about a
second per key type on the first run; this bottom-up merge sort does the same job (stable,
O(n log n)) and compiles in a tenth of that. np.searchsorted likewise compiles a generic
search with NaN-aware comparisons of every kind (complex ones too) for each caller:
`search_sorted` is the same search for the integer keys kernels look up.
"""

import numpy as np

from .jit import helper


@helper
def argsort(keys):
    """Indices that sort `keys` (1-d) ascending; equal keys keep their order."""
    n = keys.shape[0]
    order = np.arange(n)
    work = np.empty(n, dtype=np.int64)
    width = 1
    while width < n:
        for lo in range(0, n, 2 * width):
            mid = min(lo + width, n)
            hi = min(lo + 2 * width, n)
            i = lo
            j = mid
            for k in range(lo, hi):
                if i < mid and (j >= hi or keys[order[j]] >= keys[order[i]]):
                    work[k] = order[i]
                    i += 1
                else:
                    work[k] = order[j]
                    j += 1
        order, work = work, order
        width *= 2
    return order


@helper
def search_sorted(keys, key):
    """np.searchsorted(keys, key): the first index whose key is not below `key` (keys
    ascending; keys.shape[0] when all are below)."""
    lo = 0
    hi = keys.shape[0]
    while lo < hi:
        mid = (lo + hi) >> 1
        if keys[mid] < key:
            lo = mid + 1
        else:
            hi = mid
    return lo


SMALL_RUN = 32     # pairs sharing a first id: sorted by insertion up to this many


@helper
def pair_order(pairs):
    """Indices that sort `pairs` ((k, 2) non-negative ids) by (first, second), ascending,
    equal pairs keeping their order: a counting sort by the first id, then each run of one
    first id by the second (by insertion when short, else `argsort`): O(k + largest id) for
    pairs whose first id few share, where `argsort` of the keys first * n + second is
    O(k log k)."""
    k = pairs.shape[0]
    n = 0
    for s in range(k):
        n = max(n, pairs[s, 0] + 1)
    start = np.zeros(n + 1, dtype=np.int64)
    for s in range(k):
        start[pairs[s, 0] + 1] += 1
    for i in range(n):
        start[i + 1] += start[i]
    order = np.empty(k, dtype=np.int64)
    fill = start[:n].copy()
    for s in range(k):
        a = pairs[s, 0]
        order[fill[a]] = s
        fill[a] += 1
    for a in range(n):
        lo = start[a]
        hi = start[a + 1]
        if hi - lo > SMALL_RUN:
            second = np.empty(hi - lo, dtype=np.int64)
            for i in range(lo, hi):
                second[i - lo] = pairs[order[i], 1]
            run = order[lo:hi].copy()
            by = argsort(second)
            for i in range(hi - lo):
                order[lo + i] = run[by[i]]
            continue
        for i in range(lo + 1, hi):
            s = order[i]
            b = pairs[s, 1]
            j = i - 1
            while j >= lo and pairs[order[j], 1] > b:
                order[j + 1] = order[j]
                j -= 1
            order[j + 1] = s
    return order
