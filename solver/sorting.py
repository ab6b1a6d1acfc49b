"""A stable argsort for kernels.

numba's np.argsort(kind="mergesort") compiles a generic merge sort machinery of about a
second per key type on the first run; this bottom-up merge sort does the same job (stable,
O(n log n)) and compiles in a tenth of that.
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
