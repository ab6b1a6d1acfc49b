"""Argument validation for the public API: each check returns the value in the form the
solver stores (float64 arrays, floats) or raises ValueError with a message that names the
argument and says what would be valid. The batch checks (`rows` and the ones after it) take
one value for every row or one per row, and name the first bad row."""

import math

import numpy as np

from . import vectors

ZERO_LENGTH = 1e-12     # a direction or quaternion shorter than this has no direction


def vector(name, value, size=3):
    # plain floats: numpy's reductions cost microseconds a call on 3 numbers, and a world
    # of a few thousand bodies and joints makes ten thousand of these calls
    if type(value) is tuple and len(value) == size and \
            all(type(x) is float or type(x) is int for x in value):
        if not all(map(math.isfinite, value)):
            raise ValueError(f"{name} must be finite, got {value!r}")
        return np.array(value, dtype=np.float64)
    try:
        arr = np.asarray(value, dtype=np.float64).reshape(-1)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be {size} numbers, got {value!r}") from None
    if arr.shape != (size,):
        raise ValueError(f"{name} must be {size} numbers, got {value!r}")
    if not all(map(math.isfinite, arr.tolist())):
        raise ValueError(f"{name} must be finite, got {value!r}")
    return arr


def direction(name, value):
    v = vector(name, value)
    n = vectors.norm(v)
    if n < ZERO_LENGTH:
        raise ValueError(f"{name} must not be a zero-length vector, got {value!r}")
    return v / n


def quaternion(name, value):
    q = vector(name, value, 4)
    n = vectors.norm(q)
    if n < ZERO_LENGTH:
        raise ValueError(f"{name} must be a non-zero quaternion (w, x, y, z), got {value!r}")
    return q / n


def number(name, value, minimum=None, strict=False, allow_inf=False):
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a number, got {value!r}") from None
    if math.isnan(x) or (not allow_inf and math.isinf(x)):
        raise ValueError(f"{name} must be finite, got {value!r}")
    if minimum is not None and (x < minimum or (strict and x == minimum)):
        raise ValueError(f"{name} must be {'>' if strict else '>='} {minimum:g}, got {value!r}")
    return x


def optional_number(name, value, **kw):
    return None if value is None else number(name, value, **kw)


def rows(name, value, n, width=None):
    """`value` as float64 (n,) or (n, width): a single value (a number, or `width` numbers)
    is repeated for every row."""
    shape = (n,) if width is None else (n, width)
    if n == 0:
        return np.zeros(shape)
    try:
        arr = np.asarray(value, dtype=np.float64)
        arr = np.broadcast_to(arr, shape) if arr.shape != shape else arr
    except (TypeError, ValueError):
        what = "a number" if width is None else f"{width} numbers"
        raise ValueError(f"{name} must be {what} or one per row ({n} rows), got {value!r}") \
            from None
    bad = ~np.isfinite(arr) if width is None else ~np.isfinite(arr).all(axis=1)
    if bad.any():
        i = int(np.argmax(bad))
        raise ValueError(f"{name} of row {i} must be finite, got {arr[i]!r}")
    return arr


def rows_at_least(name, value, n, minimum, strict=False):
    arr = rows(name, value, n)
    bad = arr <= minimum if strict else arr < minimum
    if bad.any():
        i = int(np.argmax(bad))
        raise ValueError(f"{name} of row {i} must be {'>' if strict else '>='} {minimum:g}, "
                         f"got {arr[i]:g}")
    return arr


def row_units(name, value, n, width):
    """Rows of `width` numbers scaled to unit length (directions, quaternions)."""
    arr = rows(name, value, n, width)
    length = np.sqrt((arr * arr).sum(axis=1))
    if (length < ZERO_LENGTH).any():
        i = int(np.argmax(length < ZERO_LENGTH))
        raise ValueError(f"{name} of row {i} must not be zero, got {arr[i]!r}")
    return arr / length[:, None]


def row_list(name, value, n):
    """A per-row list from one value (not a list or tuple) or a sequence of n values."""
    if isinstance(value, (list, tuple, np.ndarray)):
        if len(value) != n:
            raise ValueError(f"{name} must be one value or one per row ({n} rows), got "
                             f"{len(value)}")
        return list(value)
    return [value] * n


def count(a):
    """The row count of a batch: the length of its body ids `a`."""
    try:
        return len(a)
    except TypeError:
        raise ValueError(f"a must be a sequence of body ids (or None), one per row, got "
                         f"{a!r}") from None
