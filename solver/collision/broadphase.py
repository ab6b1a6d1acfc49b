"""Broadphase: world AABBs of the colliders (colliders.py), fattened by each one's motion over
the frame, and sweep and prune along X. Planes are unbounded and are paired with every other
collider by the caller.

The candidate pairs come out sorted by (min id, max id), so the manifolds (and the solve
order) do not depend on where bodies happen to lie along the sweep axis.
"""

import math

import numpy as np
from ..jit import helper
from ..sorting import argsort, pair_order

from ..bodies import POS, ROT, SPIN, VEL
from ..mathx import length, qaxis, quat_at, vec3_at
from ..shapes import BOX, CAPSULE, CYLINDER, PLANE, SPHERE


@helper
def bounding_radius(kind, p):
    if kind == SPHERE:
        return p[0]
    if kind == CAPSULE or kind == CYLINDER:
        return p[0] + p[1]
    if kind == BOX:
        return math.sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2])
    return p[3]                       # hulls and meshes keep their bounding radius in p[3]


@helper
def compute_aabbs(cs, skind, sparam, dt, cap, aabb, ext):
    """aabb[i] = (min xyz, max xyz) of collider i's shape, grown by ext[i] (its motion this
    frame); cs holds the colliders' world origins and velocities (colliders.py)."""
    for i in range(cs.shape[0]):
        k = skind[i]
        p = sparam[i]
        q = quat_at(cs, i, ROT)
        x = vec3_at(cs, i, POS)
        v = length(vec3_at(cs, i, VEL))
        w = length(vec3_at(cs, i, SPIN))
        e = min((v + w * bounding_radius(k, p)) * dt, cap)
        ext[i] = e
        if k == PLANE:
            for m in range(3):
                aabb[i, m] = -np.inf
                aabb[i, 3 + m] = np.inf
            continue
        if k == SPHERE:
            r = (p[0], p[0], p[0])
        elif k == CAPSULE:
            az = qaxis(q, 2)
            r = (abs(az[0]) * p[1] + p[0], abs(az[1]) * p[1] + p[0], abs(az[2]) * p[1] + p[0])
        elif k == CYLINDER:
            az = qaxis(q, 2)
            r = (abs(az[0]) * p[1] + p[0] * math.sqrt(max(1.0 - az[0] * az[0], 0.0)),
                 abs(az[1]) * p[1] + p[0] * math.sqrt(max(1.0 - az[1] * az[1], 0.0)),
                 abs(az[2]) * p[1] + p[0] * math.sqrt(max(1.0 - az[2] * az[2], 0.0)))
        elif k == BOX:
            a0 = qaxis(q, 0)
            a1 = qaxis(q, 1)
            a2 = qaxis(q, 2)
            r = (abs(a0[0]) * p[0] + abs(a1[0]) * p[1] + abs(a2[0]) * p[2],
                 abs(a0[1]) * p[0] + abs(a1[1]) * p[1] + abs(a2[1]) * p[2],
                 abs(a0[2]) * p[0] + abs(a1[2]) * p[1] + abs(a2[2]) * p[2])
        else:
            r = (p[3], p[3], p[3])
        for m in range(3):
            aabb[i, m] = x[m] - r[m] - e
            aabb[i, 3 + m] = x[m] + r[m] + e


@helper
def sweep_and_prune(aabb, skind):
    """Overlapping AABB pairs (i < j) among bounded shapes, sorted by (i, j)."""
    n = aabb.shape[0]
    idx = np.empty(n, dtype=np.int64)
    m = 0
    for i in range(n):
        if skind[i] != PLANE:
            idx[m] = i
            m += 1
    xs = np.empty(m)
    for s in range(m):
        xs[s] = aabb[idx[s], 0]
    by_x = argsort(xs)
    order = np.empty(m, dtype=np.int64)
    for s in range(m):
        order[s] = idx[by_x[s]]
    pairs = np.empty((max(4 * m, 16), 2), dtype=np.int64)
    count = 0
    for s in range(m):
        i = order[s]
        hx = aabb[i, 3]
        for t in range(s + 1, m):
            j = order[t]
            if aabb[j, 0] > hx:
                break
            if aabb[j, 1] > aabb[i, 4] or aabb[i, 1] > aabb[j, 4] or \
                    aabb[j, 2] > aabb[i, 5] or aabb[i, 2] > aabb[j, 5]:
                continue
            if count == pairs.shape[0]:
                pairs = _grown(pairs)
            pairs[count, 0] = min(i, j)
            pairs[count, 1] = max(i, j)
            count += 1
    return _permuted(pairs, pair_order(pairs[:count]))


# Copies are loops: numba's slice assignment and fancy indexing compile an error path that
# formats shapes into a message (string kernels, ~1.5 s of the cold compile).

@helper
def _grown(pairs):
    """pairs in a table twice as long."""
    grown = np.empty((2 * pairs.shape[0], 2), dtype=np.int64)
    for s in range(pairs.shape[0]):
        grown[s, 0] = pairs[s, 0]
        grown[s, 1] = pairs[s, 1]
    return grown


@helper
def _permuted(pairs, order):
    """pairs[order]."""
    out = np.empty((order.shape[0], 2), dtype=np.int64)
    for s in range(order.shape[0]):
        out[s, 0] = pairs[order[s], 0]
        out[s, 1] = pairs[order[s], 1]
    return out
