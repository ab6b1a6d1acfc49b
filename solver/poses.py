"""Bodies' poses in bulk for a caller that shows them elsewhere (the Blender add-on writes
them to objects every frame): one kernel call a frame instead of a dozen array operations,
each of which costs microseconds of fixed overhead at the few bodies of a ragdoll.

`shape_origins`: where the bodies' shape origins are (a body's position is its centre of
mass) and their orientations, each quaternion's sign taken on the side of a reference (the
last frame's, so that interpolated or keyed rotations do not flip through the long way).

`store_float32`: poses rounded to the float32 an application stores, written into its
arrays at given rows, with which rows changed; and the same values kept as float64 in a
record of what was written.
"""

import numpy as np

from .jit import helper, kernel
from .mathx import qrotate, quat_at, store3, store4, sub, vec3


@helper
def _qdot(a, b):
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3]


@helper
def _store_rounded(dst, r, src, k, kept, kept_row):
    """src[k] rounded to float32 into dst[r] and kept[kept_row]; whether dst[r] held
    other values."""
    differs = False
    for c in range(src.shape[1]):
        v = np.float32(src[k, c])
        if dst[r, c] != v:
            differs = True
            dst[r, c] = v
        kept[kept_row, c] = v
    return differs


@kernel
def shape_origins(positions, orientations, ids, offsets, reference):
    """(locations (n, 3), quaternions (n, 4)) of bodies `ids`: the shape origin
    positions[i] - R(q_i) offsets[k] (offsets[k]: the centre of mass seen from the shape
    origin, in the body frame) and q_i = orientations[i], negated where its dot product
    with reference[k] is negative (a quaternion and its negation are the same rotation)."""
    n = ids.shape[0]
    if offsets.shape[0] < n or reference.shape[0] < n:
        raise IndexError("an offset and a reference quaternion for each body")
    loc = np.empty((n, 3))
    quat = np.empty((n, 4))
    for k in range(n):
        i = ids[k]
        if i < 0 or i >= positions.shape[0] or i >= orientations.shape[0]:
            raise IndexError("a body id out of range")
        q = quat_at(orientations, i, 0)
        if _qdot(q, quat_at(reference, k, 0)) < 0.0:
            q = (-q[0], -q[1], -q[2], -q[3])
        store4(quat, k, 0, q)
        store3(loc, k, 0, sub(vec3(positions, i), qrotate(q, vec3(offsets, k))))
    return loc, quat


@kernel
def store_float32(locations, rotations, rows, loc, rot, kept_loc, kept_rot, kept_rows):
    """Write loc[k] and rot[k] rounded to float32 into locations[rows[k]] and
    rotations[rows[k]] (float32 arrays), and the rounded values into kept_loc[kept_rows[k]]
    and kept_rot[kept_rows[k]] (float64). Returns the k whose row held other values. Rows
    are checked before anything is written (IndexError)."""
    n = rows.shape[0]
    if loc.shape[0] < n or rot.shape[0] < n or kept_rows.shape[0] < n:
        raise IndexError("a pose and a kept row for each row")
    for k in range(n):
        if rows[k] < 0 or rows[k] >= locations.shape[0] or rows[k] >= rotations.shape[0] \
                or kept_rows[k] < 0 or kept_rows[k] >= kept_loc.shape[0] \
                or kept_rows[k] >= kept_rot.shape[0]:
            raise IndexError("a row out of range")
    changed = np.empty(n, dtype=np.int64)
    count = 0
    for k in range(n):
        moved = _store_rounded(locations, rows[k], loc, k, kept_loc, kept_rows[k])
        turned = _store_rounded(rotations, rows[k], rot, k, kept_rot, kept_rows[k])
        if moved or turned:
            changed[count] = k
            count += 1
    return changed[:count]
