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

from .jit import kernel


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
        w = orientations[i, 0]
        x = orientations[i, 1]
        y = orientations[i, 2]
        z = orientations[i, 3]
        if w * reference[k, 0] + x * reference[k, 1] + y * reference[k, 2] + \
                z * reference[k, 3] < 0.0:
            w, x, y, z = -w, -x, -y, -z
        quat[k, 0] = w
        quat[k, 1] = x
        quat[k, 2] = y
        quat[k, 3] = z
        ox = offsets[k, 0]
        oy = offsets[k, 1]
        oz = offsets[k, 2]
        # R(q) o = o + 2 w (v x o) + 2 v x (v x o), v = (x, y, z)
        tx = 2.0 * (y * oz - z * oy)
        ty = 2.0 * (z * ox - x * oz)
        tz = 2.0 * (x * oy - y * ox)
        loc[k, 0] = positions[i, 0] - (ox + w * tx + (y * tz - z * ty))
        loc[k, 1] = positions[i, 1] - (oy + w * ty + (z * tx - x * tz))
        loc[k, 2] = positions[i, 2] - (oz + w * tz + (x * ty - y * tx))
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
        r = rows[k]
        differs = False
        for c in range(3):
            v = np.float32(loc[k, c])
            if locations[r, c] != v:
                differs = True
                locations[r, c] = v
            kept_loc[kept_rows[k], c] = v
        for c in range(4):
            v = np.float32(rot[k, c])
            if rotations[r, c] != v:
                differs = True
                rotations[r, c] = v
            kept_rot[kept_rows[k], c] = v
        if differs:
            changed[count] = k
            count += 1
    return changed[:count]
