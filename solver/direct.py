"""Direct solve of the joints' equality rows, island by island.

Sequential impulses converge slowly when masses differ a lot: a 0.1 kg link between a
10 kg ball and the rest of a chain passes only a sliver of the ball's load per sweep, and
soft rows with mass-weighted stiffness let light links stretch. The equality rows of the
joints (anchor points, hinge axes, orientation locks, rigid distances) are linear in the
impulses, so per island of jointed bodies we solve them exactly: the global formulation of
constrained-dynamics-blog.md,

    K dlambda = -(J v + bias),   K = J M^-1 J^T,

solved rigidly: no mass scale and no impulse leak. Soft rows are a device to keep an
iterative solver stable; their stiffness is weighted by the rows' effective mass, so a light
link carrying a heavy load would stretch like a weak spring. The exact solve needs none of
that. Position drift is removed after the substep's position update by `project_positions`,
a Newton step on the constraint errors with the same K (post-stabilisation), which leaves
velocities alone; what a clamped step leaves is fed back through the soft step's bias rate in
the solve pass (the relax pass removes that bias velocity again). K is factored per island by an
envelope (skyline) Cholesky twice per substep: before the solve pass, and at the moved poses for the position
projection and the relax pass. Inequality rows (limits, motors,
springs, contacts) stay with the iterative sweep, which runs first in each pass so the
direct projection has the last word on the joints.

Islands larger than MAX_DIRECT_ROWS rows stay iterative (their rows keep their blocks).
"""

import math

import numpy as np
from numba import njit

from .bodies import DYNAMIC
from .mathx import qintegrate
from .rows import ACTIVE, BIAS, BLOCK, HI, LO, SPRING, TARGET, apply_impulse, row_velocity

MAX_DIRECT_ROWS = 192
DIRECT = -2.0          # BLOCK value of rows the direct solver owns
MAX_PROJECTION_TURN = 0.1   # radians


@njit(cache=True, inline="always")
def _find(parent, i):
    while parent[i] != i:
        parent[i] = parent[parent[i]]
        i = parent[i]
    return i


@njit(cache=True)
def body_islands(n_bodies, row_bodies, n_rows, bkind):
    """Union-find root per body over the rows' body pairs (only dynamic bodies link)."""
    parent = np.arange(n_bodies)
    for r in range(n_rows):
        a = row_bodies[r, 0]
        b = row_bodies[r, 1]
        if a >= 0 and b >= 0 and bkind[a] == DYNAMIC and bkind[b] == DYNAMIC:
            ra = _find(parent, a)
            rb = _find(parent, b)
            if ra != rb:
                parent[ra] = rb
    for i in range(n_bodies):
        parent[i] = _find(parent, i)
    return parent


@njit(cache=True, inline="always")
def _is_equality(r, rp):
    return (rp[r, ACTIVE] != 0.0 and rp[r, SPRING] == 0.0 and rp[r, TARGET] == 0.0
            and rp[r, LO] == -math.inf and rp[r, HI] == math.inf)


@njit(cache=True, inline="always")
def _side_coupling(r, sr, k, sk, rj, rd, binv, body):
    """J_r,side M^-1 J_k,side^T for one shared body."""
    o_r = 6 * sr
    o_k = 6 * sk
    s = binv[body] * (rj[r, o_r] * rj[k, o_k] + rj[r, o_r + 1] * rj[k, o_k + 1]
                      + rj[r, o_r + 2] * rj[k, o_k + 2])
    d = 3 * sk
    s += rj[r, o_r + 3] * rd[k, d] + rj[r, o_r + 4] * rd[k, d + 1] + rj[r, o_r + 5] * rd[k, d + 2]
    return s


@njit(cache=True, inline="always")
def coupling(r, k, rb, rj, rd, binv):
    """K[r, k] = J_r M^-1 J_k^T summed over the bodies the two rows share."""
    s = 0.0
    for sr in range(2):
        body = rb[r, sr]
        if body < 0:
            continue
        for sk in range(2):
            if rb[k, sk] == body:
                s += _side_coupling(r, sr, k, sk, rj, rd, binv, body)
    return s


@njit(cache=True)
def cholesky(k, first, n):
    """In-place lower Cholesky of the leading n x n block inside its envelope: row i of K
    (and of its factor L) is zero left of column first[i]. False if not positive definite.
    Ordered along a chain or tree of joints the envelope is narrow, so a ragdoll costs far
    less than the dense n^3 / 3."""
    for i in range(n):
        fi = first[i]
        for j in range(fi, i + 1):
            s = k[i, j]
            for m in range(max(fi, first[j]), j):
                s -= k[i, m] * k[j, m]
            if j < i:
                k[i, j] = s / k[j, j]
            elif s <= 0.0:
                return False
            else:
                k[i, i] = math.sqrt(s)
    return True


@njit(cache=True)
def cholesky_solve(l, first, n, x):
    """x <- (L L^T)^-1 x for an envelope factor from `cholesky`."""
    for i in range(n):
        s = x[i]
        for m in range(first[i], i):
            s -= l[i, m] * x[m]
        x[i] = s / l[i, i]
    for i in range(n - 1, -1, -1):
        x[i] /= l[i, i]
        for m in range(first[i], i):
            x[m] -= l[i, m] * x[i]


@njit(cache=True, inline="always")
def _fill_k(rows, first, n, R, binv, factor):
    """K's lower envelope; returns its largest diagonal entry."""
    rb, rj, rd = R[0], R[1], R[2]
    big = 0.0
    for i in range(n):
        for m in range(first[i], i + 1):
            factor[i, m] = coupling(rows[i], rows[m], rb, rj, rd, binv)
        big = max(big, factor[i, i])
    return big


@njit(cache=True)
def _factor_island(rows, first, n, R, binv, factor):
    big = _fill_k(rows, first, n, R, binv, factor)
    # Redundant rows (a loop closed twice, two joints on one pair) make K singular: a tiny
    # regularisation picks the smallest impulses that satisfy them.
    eps = 1e-10 * big
    for attempt in range(3):
        if attempt > 0:
            _fill_k(rows, first, n, R, binv, factor)
        for i in range(n):
            factor[i, i] += eps
        if cholesky(factor, first, n):
            return True
        eps *= 1e3
    return False


@njit(cache=True, inline="always")
def _shares_body(r, k, rb, bkind):
    for i in range(2):
        body = rb[r, i]
        if body >= 0 and bkind[body] == DYNAMIC and (rb[k, 0] == body or rb[k, 1] == body):
            return True
    return False


@njit(cache=True)
def island_envelope(order, starts, n_islands, rb, bkind):
    """Per row of the plan, the island-local index of the first row it couples with."""
    first = np.empty(order.shape[0], dtype=np.int64)
    for s in range(n_islands):
        s0 = starts[s]
        for i in range(starts[s + 1] - s0):
            m = 0
            while m < i and not _shares_body(order[s0 + i], order[s0 + m], rb, bkind):
                m += 1
            first[s0 + i] = m
    return first


@njit(cache=True)
def plan_islands(R, n_rows, n_bodies, bkind):
    """Group the joints' equality rows by island (once per frame: the set of equality rows
    only changes when joints are added, removed or broken, between frames).

    Returns the plan (rows ordered by island, island start offsets, number of islands, a
    buffer for the islands' Cholesky factors with their offsets, and per island whether
    its factor is valid, and where each row's envelope starts)."""
    rb, rp = R[0], R[3]
    root = body_islands(n_bodies, rb, n_rows, bkind)
    keys = np.empty(n_rows, dtype=np.int64)
    count = 0
    for r in range(n_rows):
        if _is_equality(r, rp):
            a = rb[r, 0]
            body = a if a >= 0 and bkind[a] == DYNAMIC else rb[r, 1]
            keys[count] = root[body] * (n_rows + 1) + r
            count += 1
    keys = np.sort(keys[:count])
    order = np.empty(count, dtype=np.int64)
    starts = np.empty(count + 1, dtype=np.int64)
    n_islands = 0
    last = -1
    for i in range(count):
        island = keys[i] // (n_rows + 1)
        order[i] = keys[i] - island * (n_rows + 1)
        if island != last:
            starts[n_islands] = i
            n_islands += 1
            last = island
    starts[n_islands] = count
    offsets = np.zeros(n_islands + 1, dtype=np.int64)
    for s in range(n_islands):
        n = starts[s + 1] - starts[s]
        offsets[s + 1] = offsets[s] + (n * n if n <= MAX_DIRECT_ROWS else 0)
    factors = np.empty(offsets[n_islands])
    ok = np.zeros(n_islands, dtype=np.bool_)
    first = island_envelope(order, starts, n_islands, rb, bkind)
    return order, starts, n_islands, factors, offsets, ok, first


@njit(cache=True)
def factor_islands(plan, R, binv):
    """Factor each island's K for this substep and hand its rows to the direct solver.
    An island too large or singular stays with the iterative sweep."""
    order, starts, n_islands, factors, offsets, ok, first = plan
    for s in range(n_islands):
        n = starts[s + 1] - starts[s]
        ok[s] = False
        if n > MAX_DIRECT_ROWS:
            continue
        rows = order[starts[s]:starts[s + 1]]
        factor = factors[offsets[s]:offsets[s + 1]].reshape((n, n))
        ok[s] = _factor_island(rows, first[starts[s]:starts[s + 1]], n, R, binv, factor)
    mark_direct(plan, R[3])


@njit(cache=True)
def mark_direct(plan, rp):
    """Flag the rows of factored islands so the iterative sweep skips them (again after the
    rows are re-prepared: preparing resets the flag)."""
    order, starts, n_islands, factors, offsets, ok, first = plan
    for s in range(n_islands):
        if ok[s]:
            for i in range(starts[s], starts[s + 1]):
                rp[order[i], BLOCK] = DIRECT


@njit(cache=True, inline="always")
def _island(plan, s):
    """(rows, Cholesky factor, envelope) of island s of the plan."""
    order, starts, n_islands, factors, offsets, ok, first = plan
    n = starts[s + 1] - starts[s]
    return (order[starts[s]:starts[s + 1]], factors[offsets[s]:offsets[s + 1]].reshape((n, n)),
            first[starts[s]:starts[s + 1]])


@njit(cache=True)
def solve_direct(plan, use_bias, R, acc, bs, binv):
    """Project velocities exactly onto J v = -bias (solve pass) or J v = 0 (relax)."""
    rb, rj, rd, rp = R[0], R[1], R[2], R[3]
    ok = plan[5]
    for s in range(plan[2]):
        if not ok[s]:
            continue
        rows, factor, first = _island(plan, s)
        n = len(rows)
        x = np.empty(n)
        for i in range(n):
            r = rows[i]
            x[i] = row_velocity(r, rj, bs, rb[r, 0], rb[r, 1]) + (rp[r, BIAS] if use_bias else 0.0)
        cholesky_solve(factor, first, n, x)
        for i in range(n):
            r = rows[i]
            d = -x[i]
            acc[r] += d
            apply_impulse(r, d, rb, rj, rd, bs, binv)


@njit(cache=True, inline="always")
def _displace(r, d, rb, rj, rd, bs, binv):
    """Move the row's bodies by the position-level 'impulse' d: dx = M^-1 J^T d."""
    for side in range(2):
        body = rb[r, side]
        if body < 0 or binv[body] == 0.0:
            continue
        o = 6 * side
        s = d * binv[body]
        for k in range(3):
            bs[body, k] += rj[r, o + k] * s
        rot = (rd[r, 3 * side] * d, rd[r, 3 * side + 1] * d, rd[r, 3 * side + 2] * d)
        q = qintegrate((bs[body, 3], bs[body, 4], bs[body, 5], bs[body, 6]), rot, 1.0)
        for k in range(4):
            bs[body, 3 + k] = q[k]


@njit(cache=True)
def project_positions(plan, R, bs, binv):
    """Post-stabilisation (Cline & Pai 2003): one Newton step on the position errors,
    K dp = -C, moving bodies by M^-1 J^T dp. Rows must hold BIAS = C (bias rate 1).
    Velocities are untouched, so this removes drift without adding energy."""
    rb, rj, rd, rp = R[0], R[1], R[2], R[3]
    ok = plan[5]
    turn = np.zeros((bs.shape[0], 3))
    for s in range(plan[2]):
        if not ok[s]:
            continue
        rows, factor, first = _island(plan, s)
        n = len(rows)
        x = np.empty(n)
        for i in range(n):
            x[i] = rp[rows[i], BIAS]
        cholesky_solve(factor, first, n, x)
        # Newton's step is exact for small errors; a large one (a violent frame) is scaled
        # so no body of the island turns by more than MAX_PROJECTION_TURN, keeping the step
        # where the linearisation holds.
        for i in range(n):
            r = rows[i]
            for side in range(2):
                body = rb[r, side]
                if body >= 0:
                    for k in range(3):
                        turn[body, k] += x[i] * rd[r, 3 * side + k]
        worst = 0.0
        for i in range(n):
            r = rows[i]
            for side in range(2):
                body = rb[r, side]
                if body >= 0:
                    worst = max(worst, math.sqrt(turn[body, 0] ** 2 + turn[body, 1] ** 2
                                                 + turn[body, 2] ** 2))
        for i in range(n):
            r = rows[i]
            for side in range(2):
                body = rb[r, side]
                if body >= 0:
                    turn[body, 0] = turn[body, 1] = turn[body, 2] = 0.0
        step = 1.0 if worst <= MAX_PROJECTION_TURN else MAX_PROJECTION_TURN / worst
        for i in range(n):
            _displace(rows[i], -step * x[i], rb, rj, rd, bs, binv)
