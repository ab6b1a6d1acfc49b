"""A dense direct solve of a world's joint rows: the slow, obviously-correct reference.

The iterative solver sweeps rows one (or one block) at a time. This module solves the same
rows all at once, in the global form "Ax = b" (docs/mechanisms.md, The global solve):

    u        the stacked body velocities [v_0, w_0, v_1, w_1, ...]          (6n)
    J        one row per active constraint row, its 12 numbers placed at the
             columns of its two bodies (the static world has no columns);
             a row over three or four bodies places its second slot's 12 too  (m x 6n)
    W        M^-1: 1/m_i I_3 and the world inverse inertia per dynamic body (6n x 6n)
    A        J W J^T + D,   b = -(J u + bias),   A lambda = b

with D the softness the rows carry (zero for rigid rows: bias rate 0, mass scale 1, impulse
scale 0). The masses and inertias are taken from `World.masses` and `World.inertia`, not
from the kernels' cached world-frame tensors, and the linear algebra is numpy's, so the
result is independent of `rows.row_solve`, `rows.block_solve` and `direct.py`.

Rows with finite bounds (limits, motors) make the problem a boxed LCP; `solve_dense`
handles them with a small active-set loop, fine for the few rows of a test scene.

Typical use, comparing the iterative solver with the exact answer for the current state:

    lam = reference.direct_impulses(world, h=1 / 480)     # (joint_count * MAX_ROWS,)

`convex_hull_incremental` is the same for `solver.hull`: the classic incremental hull in
numpy, quadratic, which the Quickhull kernel is tested and timed against.
"""

import numpy as np

from .bodies import update_world_inertia
from .hull import hull_seed
from .joints.layout import MAX_ROWS
from .rows import (ACTIVE, BIAS, BLOCK, EFF, HI, IMPULSE_SCALE, LO, MASS_SCALE, SPRING,
                   TARGET, WIDE, new_rows)
from .step import prepare_customs, prepare_joints

RIGID = (0.0, 1.0, 0.0)        # (bias rate, mass scale, impulse scale) of a rigid row


def build_rows(world, h, softness=RIGID):
    """The rows the step would build at the start of a substep of length h for the world's
    current state: (R, bI) with R = (rb, rj, rd, rp, rk) for joint_count * MAX_ROWS slots.

    The world is not modified (the world-frame inverse inertia goes to a scratch array).
    """
    n = world.body_count
    bs = world._bs.view.copy()
    binv = world._binv.view
    bI = np.zeros((n, 9))
    update_world_inertia(bs, world._bil.view, world._bkind.view, bI)
    R = new_rows(max(world.joint_count, 1) * MAX_ROWS)
    S = (float(softness[0]), float(softness[1]), float(softness[2]), float(h), 1.0 / h)
    prepare_joints(world._jt.view, world._jf.view, world._jpts.view, world._bkind.view, S, R,
                   (bs, binv, bI))
    prepare_customs(world._custom_args(), world._jt.view, world._jf.view, world._bkind.view, S,
                    R, (bs, binv, bI))
    return R, bI


def inverse_mass_matrix(world):
    """W = M^-1 (6n x 6n) from the public masses and world inertia tensors."""
    n = world.body_count
    W = np.zeros((6 * n, 6 * n))
    masses = world.masses
    for i in range(n):
        if not np.isfinite(masses[i]):
            continue                          # static or kinematic: infinite mass
        W[6 * i:6 * i + 3, 6 * i:6 * i + 3] = np.eye(3) / masses[i]
        W[6 * i + 3:6 * i + 6, 6 * i + 3:6 * i + 6] = np.linalg.inv(world.inertia(i))
    return W


def body_velocities(world):
    """u = [v_0, w_0, v_1, w_1, ...] (6n)."""
    return np.concatenate([world.linear_velocities, world.angular_velocities], axis=1).reshape(-1)


def global_jacobian(world, R, rows):
    """J (len(rows) x 6n): each row's 12 numbers at its bodies' columns."""
    rb, rj, rp = R[0], R[1], R[3]
    J = np.zeros((len(rows), 6 * world.body_count))
    for k, r in enumerate(rows):
        for slot in ((r, r + 1) if rp[r, ACTIVE] == WIDE else (r,)):
            a, b = rb[slot]
            if a >= 0:
                J[k, 6 * a:6 * a + 6] += rj[slot, 0:6]
            if b >= 0:
                J[k, 6 * b:6 * b + 6] += rj[slot, 6:12]
    return J


def _softness_matrix(R, rows, A, use_bias):
    """D such that the iterative solver's fixed point is (A + D) lambda = b.

    A scalar soft row stops changing when EFF ms (Cdot + bias) + is lambda = 0, i.e.
    Cdot + bias + (is / ms) K_ii lambda = 0; a block of n rows the same with its n x n K.
    """
    rp = R[3]
    D = np.zeros((len(rows), len(rows)))
    index = {r: k for k, r in enumerate(rows)}
    for k, r in enumerate(rows):
        soft = use_bias or rp[r, SPRING] != 0.0
        if not soft or rp[r, IMPULSE_SCALE] == 0.0:
            continue
        c = rp[r, IMPULSE_SCALE] / rp[r, MASS_SCALE]
        blk = int(rp[r, BLOCK])
        if blk > 0:
            members = [index[m] for m in range(r, r + blk) if m in index]
            for i in members:
                for m in members:
                    D[i, m] = c * A[i, m]
        elif blk == 0:
            D[k, k] = c * A[k, k]
    return D


def solve_dense(A, b, lo, hi, max_rounds=50):
    """lambda with A lambda = b on free rows and lo <= lambda <= hi (boxed LCP, active set).

    A row at its lower bound must have A lambda - b >= 0, at its upper bound <= 0.
    Uses least squares, so redundant equality rows get the minimum-norm impulses.
    """
    m = len(b)
    state = np.zeros(m, dtype=np.int8)          # 0 free, -1 at lo, +1 at hi
    lam = np.zeros(m)
    for _ in range(max_rounds):
        lam = np.where(state < 0, lo, np.where(state > 0, hi, 0.0))
        free = state == 0
        if free.any():
            rhs = b[free] - A[np.ix_(free, ~free)] @ lam[~free]
            lam[free] = np.linalg.lstsq(A[np.ix_(free, free)], rhs, rcond=None)[0]
        changed = False
        below, above = free & (lam < lo), free & (lam > hi)
        if below.any() or above.any():
            state[below], state[above] = -1, 1
            changed = True
        else:
            w = A @ lam - b
            release = ((state < 0) & (w < 0.0)) | ((state > 0) & (w > 0.0))
            if release.any():
                state[release] = 0
                changed = True
        if not changed:
            break
    return lam


def direct_impulses(world, h=None, rows=None, use_bias=True, softness=RIGID):
    """Exact impulses of the world's joint rows for its current velocities.

    h           substep length used to build the rows (default: a 60 Hz frame / substeps)
    rows        (R, bI) from `build_rows`, to solve rows you built yourself
    use_bias    True for the solve pass (rows' bias and softness), False for the relax pass
    Returns lambda, shaped like the solver's accumulated impulses (joint_count * MAX_ROWS),
    zero for inactive rows. With rigid rows it is the solution of
    (J M^-1 J^T) lambda = -(J u + target).
    """
    if h is None:
        h = 1.0 / 60.0 / world.substeps
    R, _ = build_rows(world, h, softness) if rows is None else rows
    rp = R[3]
    count = world.joint_count * MAX_ROWS
    active = [r for r in range(count) if rp[r, ACTIVE] != 0.0 and rp[r, EFF] != 0.0]
    lam = np.zeros(count)
    if not active:
        return lam
    J = global_jacobian(world, R, active)
    W = inverse_mass_matrix(world)
    A = J @ W @ J.T
    bias = np.array([rp[r, TARGET] + (rp[r, BIAS] if use_bias or rp[r, SPRING] else 0.0)
                     for r in active])
    b = -(J @ body_velocities(world) + bias)
    A = A + _softness_matrix(R, active, A, use_bias)
    lam[active] = solve_dense(A, b, rp[active, LO], rp[active, HI])
    return lam


def velocities_after(world, impulses, h=None, rows=None, softness=RIGID):
    """Body velocities (n, 6) after applying `impulses` (from `direct_impulses`) to the
    world's current velocities: u + M^-1 J^T lambda."""
    if h is None:
        h = 1.0 / 60.0 / world.substeps
    R, _ = build_rows(world, h, softness) if rows is None else rows
    count = world.joint_count * MAX_ROWS
    used = [r for r in range(count) if impulses[r] != 0.0]
    u = body_velocities(world)
    if used:
        J = global_jacobian(world, R, used)
        u = u + inverse_mass_matrix(world) @ J.T @ impulses[used]
    return u.reshape(-1, 6)


def convex_hull_incremental(points, tolerance=None):
    """The convex hull by the classic incremental algorithm in numpy (each point removes the
    faces it sees and stitches the horizon to itself; quadratic): the reference
    `solver.hull.convex_hull` is tested and timed against. Returns (vertices (V,3),
    triangles (F,3) int), outward-facing (CCW).

    Raises ValueError when the points span no volume (all on a plane, a line or a point).
    """
    pts, eps, seeds = hull_seed(points, tolerance)
    i0, i1, i2, i3 = seeds.tolist()
    faces = np.array([(i0, i1, i2), (i0, i2, i3), (i0, i3, i1), (i1, i3, i2)], dtype=np.int64)

    def planes(f):
        a, b, c = pts[f[:, 0]], pts[f[:, 1]], pts[f[:, 2]]
        n = np.cross(b - a, c - a)
        n /= np.linalg.norm(n, axis=1)[:, None]
        return n, np.einsum("ij,ij->i", n, a)

    n, dd = planes(faces)
    centre = pts[[i0, i1, i2, i3]].mean(axis=0)
    # Visit far points first: fewer faces are created and destroyed.
    order = np.argsort(-np.linalg.norm(pts - centre, axis=1))
    for p in order:
        if p in (i0, i1, i2, i3):
            continue
        visible = (n @ pts[p] - dd) > eps
        if not visible.any():
            continue
        vis_faces = faces[visible]
        edges = np.concatenate([vis_faces[:, [0, 1]], vis_faces[:, [1, 2]], vis_faces[:, [2, 0]]])
        edge_set = {(int(a), int(b)) for a, b in edges}
        horizon = [(a, b) for (a, b) in edge_set if (b, a) not in edge_set]
        new = np.array([(a, b, p) for (a, b) in horizon], dtype=np.int64)
        faces = np.concatenate([faces[~visible], new])
        nn, nd = planes(new)
        n = np.concatenate([n[~visible], nn])
        dd = np.concatenate([dd[~visible], nd])

    used = np.unique(faces)
    remap = -np.ones(len(pts), dtype=np.int64)
    remap[used] = np.arange(len(used))
    return pts[used].copy(), remap[faces]
