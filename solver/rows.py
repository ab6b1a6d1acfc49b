"""Rows: one scalar velocity constraint each, and the one generic solve every row kind uses.

A row (docs/rows.md) is the textbook sequential-impulse row: two bodies, the Jacobian
J = [JvA, JwA, JvB, JwB], the effective mass 1/K with K = J M^-1 J^T, a bias, a softness,
the accumulated impulse lambda and its clamp [lo, hi]. Rows live in flat arrays:

    rb[r]      (body a, body b), -1 for the static world
    rj[r]      the 12 Jacobian numbers
    rd[r]      IA^-1 JwA and IB^-1 JwB, cached so applying an impulse is three axpys
    rp[r]      the scalars below (EFF, BIAS, TARGET, ...)
    rk[r]      for the first row of a block, the inverse of the block's K matrix
    acc[r]     the accumulated impulse, kept across frames for warm starting

Equality rows that belong together (a ball-socket's three anchor rows, an orientation lock's
three, a hinge axis's two) can be solved as one block (BLOCK = n on the first row, -1 on the
others): dlambda = -K^-1 (Cdot + bias) with the full n x n K = J M^-1 J^T, as the reference
suggests for the ball-socket. Scalar rows see a diagonal K_ii only, so where J mixes linear
and angular terms (an anchor far from the centre of mass) their softness and convergence
depend on the world axes chosen; the block does not.

Softness follows Box2D v3's soft step: (frequency, damping ratio) become a bias rate, a mass
scale and an impulse scale once per prepare. The reference's soft row

    dlambda = -inv_A_soft (Cdot + bias + softness * lambda)

is the same update with inv_A_soft = EFF * MASS_SCALE and softness = IMPULSE_SCALE / inv_A_soft.
A row's bias has two parts. TARGET is a velocity the row always aims at (a motor's speed, a
speculative limit's closing speed C/h); BIAS is the soft position correction that the solve
pass uses and the relax pass drops. Springs (SPRING=1) keep their softness in both passes.

Rows over three or four bodies (`row_jacobian4`: a pulley whose wheels hang on bodies, a
custom constraint over pA..pD). A scalar C(xA, xB, xC, xD) has a linear and an angular block
per body, J = [JvA, JwA, JvB, JwB, JvC, JwC, JvD, JwD], so

    C* = sum_i (Jv_i . v_i + Jw_i . w_i),   K = sum_i (|Jv_i|^2 / m_i + Jw_i . I_i^-1 Jw_i),
    dlambda as for any row, applied to every body: v_i += Jv_i dlambda / m_i,
    w_i += I_i^-1 Jw_i dlambda

(each body once: a body named twice gets the sum of its blocks, so K keeps the cross term
Nape's 3-body pulley writes out). Such a row takes two consecutive slots: slot r holds a, b
and their 12 numbers like any row, slot r + 1 holds c, d and theirs. rp[r, ACTIVE] = WIDE
marks it; slot r + 1 stays inactive, so everything that walks rows one at a time skips it;
EFF of slot r is the whole 1/K and acc[r] the one impulse. The leader has BLOCK = 1 (a block
of one row): the sweep sends it to its block branch, out of the two-body rows' hot path,
which solves it with `wide_solve`; `row_cdot`, `row_apply` and warm starting read both slots,
as the direct solver does (direct.py).
"""

import math

import numpy as np
from .jit import helper, kernel

from .bodies import SPIN, VEL
from .mathx import add, cross, dot, mat_vec, scale, vec3_at

EFF, BIAS, TARGET, MASS_SCALE, IMPULSE_SCALE, LO, HI, ACTIVE, SPRING, BLOCK = range(10)
ROW_PARAMS = 10
WIDE = 2.0          # ACTIVE of a row over three or four bodies (its c, d in the next slot)
ROUND = 3.0         # ACTIVE of a block leader whose impulses are capped as one vector
                    # (`round_block_solve`: a pin's force limit)
INF = math.inf


def new_rows(count):
    """Zeroed row storage for `count` rows: (rb, rj, rd, rp, rk)."""
    return (np.full((count, 2), -1, dtype=np.int64), np.zeros((count, 12)), np.zeros((count, 6)),
            np.zeros((count, ROW_PARAMS)), np.zeros((count, 9)))


@kernel
def soft_coefficients(hertz, damping_ratio, h):
    """(bias rate, mass scale, impulse scale) of a spring-damper row for substep h.

    Implicit-Euler spring: omega = 2 pi f, a1 = 2 zeta + h omega, a2 = h omega a1,
    bias rate = omega / a1, mass scale = a2 / (1 + a2), impulse scale = 1 / (1 + a2).
    hertz = 0 means rigid: no bias, full mass, no impulse leak.
    """
    if hertz <= 0.0:
        return 0.0, 1.0, 0.0
    omega = 2.0 * math.pi * hertz
    a1 = 2.0 * damping_ratio + h * omega
    a2 = h * omega * a1
    a3 = 1.0 / (1.0 + a2)
    return omega / a1, a2 * a3, a3


@helper
def spring_coefficients(stiffness, damper, mass, h):
    """`soft_coefficients` of a spring given as stiffness k and damper c (N/m and N s/m, or
    N m/rad and N m s/rad) on a row of effective mass m (docs/rows.md, "Stiffness and
    damper"): with g = h (c + h k), bias rate = k / (c + h k), mass scale = g / (m + g),
    impulse scale = m / (m + g). For k = m omega^2 and c = 2 zeta m omega these are
    soft_coefficients(omega / 2 pi, zeta, h); k = 0 is a pure damper, k = c = 0 no spring
    (the impulse leaks away)."""
    g = h * (damper + h * stiffness)
    if g <= 0.0:
        return 0.0, 0.0, 1.0
    rate = stiffness / (damper + h * stiffness)
    if mass <= 0.0:
        return rate, 1.0, 0.0
    return rate, g / (mass + g), mass / (mass + g)


# Reads of a row's two bodies are branch-free: the static world (-1) reads body 0 and
# multiplies by 0. A branch on the body's sign makes numba keep the tuples in memory, which
# made preparing a row several times slower.

@helper
def _side(i):
    """(index safe to read, 1.0 for a body or 0.0 for the world)."""
    return max(i, 0), (1.0 if i >= 0 else 0.0)


@helper
def body_velocity(bs, i):
    k, s = _side(i)
    return scale(vec3_at(bs, k, VEL), s), scale(vec3_at(bs, k, SPIN), s)


@helper
def _inverse_inertia_times(bI, i, s, v):
    m = (bI[i, 0], bI[i, 1], bI[i, 2], bI[i, 3], bI[i, 4], bI[i, 5], bI[i, 6], bI[i, 7],
         bI[i, 8])
    return scale(mat_vec(m, v), s)


@helper(always=True)      # every row's prepare: a call of its own costs frame time
def _store_pair(r, a, b, jva, jwa, jvb, jwb, rb, rj, rd, binv, bI):
    """Bodies a, b and their Jacobian blocks into slot r; returns their part of K."""
    rb[r, 0] = a
    rb[r, 1] = b
    for k in range(3):
        rj[r, k] = jva[k]
        rj[r, 3 + k] = jwa[k]
        rj[r, 6 + k] = jvb[k]
        rj[r, 9 + k] = jwb[k]
    ia, sa = _side(a)
    ib, sb = _side(b)
    da = _inverse_inertia_times(bI, ia, sa, jwa)
    db = _inverse_inertia_times(bI, ib, sb, jwb)
    for k in range(3):
        rd[r, k] = da[k]
        rd[r, 3 + k] = db[k]
    return (sa * binv[ia] * dot(jva, jva) + dot(jwa, da)
            + sb * binv[ib] * dot(jvb, jvb) + dot(jwb, db))


@helper
def refresh_row_mass(r, rb, rj, rd, rp, binv, bI):
    """Row r's cached IA^-1 JwA, IB^-1 JwB and effective mass again from its stored J, for the
    world inertia bI (its other parameters kept)."""
    k = _store_pair(r, rb[r, 0], rb[r, 1], vec3_at(rj, r, 0), vec3_at(rj, r, 3),
                    vec3_at(rj, r, 6), vec3_at(rj, r, 9), rb, rj, rd, binv, bI)
    rp[r, EFF] = 1.0 / k if k > 1e-300 else 0.0


@helper
def row_jacobian(r, a, b, jva, jwa, jvb, jwb, rb, rj, rd, rp, rk, bs, binv, bI):
    """Store J for row r and compute its effective mass 1 / (J M^-1 J^T)."""
    _row_defaults(r, _store_pair(r, a, b, jva, jwa, jvb, jwb, rb, rj, rd, binv, bI), rp)


@helper
def _row_defaults(r, k_sum, rp):
    """Row r's effective mass from its K, and the parameters of a rigid equality row."""
    rp[r, EFF] = 1.0 / k_sum if k_sum > 1e-300 else 0.0
    rp[r, ACTIVE] = 1.0 if k_sum > 1e-300 else 0.0
    rp[r, SPRING] = 0.0
    rp[r, TARGET] = 0.0
    rp[r, BIAS] = 0.0
    rp[r, MASS_SCALE] = 1.0
    rp[r, IMPULSE_SCALE] = 0.0
    rp[r, LO] = -INF
    rp[r, HI] = INF
    rp[r, BLOCK] = 0.0


@helper
def _fold(x, jv, jw, y, jvy, jwy):
    """Body y's blocks added to body x's when they are the same body: (y, Jv, Jw) after."""
    if y >= 0 and y == x:
        return -1, add(jv, jvy), add(jw, jwy)
    return y, jv, jw


@helper(outline=True)
def row_jacobian4(r, bodies, jac, rb, rj, rd, rp, rk, bs, binv, bI):
    """Store J for row r over up to four bodies (a, b, c, d) = bodies (-1: the world or
    none) with jac = (JvA, JwA, JvB, JwB, JvC, JwC, JvD, JwD), and its effective mass (the
    header's rows over three or four bodies). c and d fold into a body named before them
    (the sum of the blocks; a and b must differ); a row left with a and b only is an
    ordinary row, otherwise slot r + 1 holds c and d and the row is WIDE."""
    a, b, c, d = bodies
    jva, jwa, jvb, jwb, jvc, jwc, jvd, jwd = jac
    d, jvc, jwc = _fold(c, jvc, jwc, d, jvd, jwd)
    c, jva, jwa = _fold(a, jva, jwa, c, jvc, jwc)
    if c >= 0:
        c, jvb, jwb = _fold(b, jvb, jwb, c, jvc, jwc)
    d, jva, jwa = _fold(a, jva, jwa, d, jvd, jwd)
    if d >= 0:
        d, jvb, jwb = _fold(b, jvb, jwb, d, jvd, jwd)
    if c < 0:
        c, jvc, jwc, d = d, jvd, jwd, -1
    if c < 0:
        row_jacobian(r, a, b, jva, jwa, jvb, jwb, rb, rj, rd, rp, rk, bs, binv, bI)
        return
    z = (0.0, 0.0, 0.0)
    if d < 0:
        jvd, jwd = z, z
    k_sum = (_store_pair(r, a, b, jva, jwa, jvb, jwb, rb, rj, rd, binv, bI)
             + _store_pair(r + 1, c, d, jvc, jwc, jvd, jwd, rb, rj, rd, binv, bI))
    _row_defaults(r, k_sum, rp)
    rp[r + 1, ACTIVE] = 0.0
    if rp[r, ACTIVE] != 0.0:
        rp[r, ACTIVE] = WIDE
        rp[r, BLOCK] = 1.0


@helper
def row_axis(r, a, b, axis, arm_a, arm_b, R_b, R_j, R_d, R_p, R_k, B_s, B_inv, B_I):
    """The plane-family Jacobian J = [-t, t x sA, t, rB x t] (docs/point-constraints.md)."""
    row_jacobian(r, a, b, (-axis[0], -axis[1], -axis[2]), cross(axis, arm_a), axis,
                 cross(arm_b, axis), R_b, R_j, R_d, R_p, R_k, B_s, B_inv, B_I)


@helper
def row_angular(r, a, b, axis, R_b, R_j, R_d, R_p, R_k, B_s, B_inv, B_I):
    """The angular Jacobian J = [0, -a, 0, a]: C* = a . (wB - wA)."""
    z = (0.0, 0.0, 0.0)
    row_jacobian(r, a, b, z, (-axis[0], -axis[1], -axis[2]), z, axis, R_b, R_j, R_d, R_p, R_k, B_s,
                 B_inv, B_I)


@helper
def row_velocity(r, rj, bs, a, b):
    """Cdot = J . u for row r."""
    va, wa = body_velocity(bs, a)
    vb, wb = body_velocity(bs, b)
    return (rj[r, 0] * va[0] + rj[r, 1] * va[1] + rj[r, 2] * va[2]
            + rj[r, 3] * wa[0] + rj[r, 4] * wa[1] + rj[r, 5] * wa[2]
            + rj[r, 6] * vb[0] + rj[r, 7] * vb[1] + rj[r, 8] * vb[2]
            + rj[r, 9] * wb[0] + rj[r, 10] * wb[1] + rj[r, 11] * wb[2])


@helper
def apply_impulse(r, impulse, rb, rj, rd, bs, binv):
    a = rb[r, 0]
    b = rb[r, 1]
    if a >= 0:
        s = impulse * binv[a]
        for k in range(3):
            bs[a, VEL + k] += rj[r, k] * s
            bs[a, SPIN + k] += rd[r, k] * impulse
    if b >= 0:
        s = impulse * binv[b]
        for k in range(3):
            bs[b, VEL + k] += rj[r, 6 + k] * s
            bs[b, SPIN + k] += rd[r, 3 + k] * impulse


@helper(always=True)      # the sweeps' per-row update: a call of its own costs frame time
def row_impulse(r, use_bias, cdot, rp, acc):
    """The one generic update: the new clamped accumulated impulse of row r given its
    velocity error Cdot; stores it and returns the change to apply."""
    if use_bias or rp[r, SPRING] != 0.0:
        bias = rp[r, TARGET] + rp[r, BIAS]
        mass_scale = rp[r, MASS_SCALE]
        impulse_scale = rp[r, IMPULSE_SCALE]
    else:
        bias = rp[r, TARGET]
        mass_scale = 1.0
        impulse_scale = 0.0
    old = acc[r]
    new = old - rp[r, EFF] * mass_scale * (cdot + bias) - impulse_scale * old
    if new < rp[r, LO]:
        new = rp[r, LO]
    elif new > rp[r, HI]:
        new = rp[r, HI]
    acc[r] = new
    return new - old


@helper
def row_cdot(r, rb, rj, rp, bs):
    """Cdot = J . u of any row (both slots of a wide one)."""
    v = row_velocity(r, rj, bs, rb[r, 0], rb[r, 1])
    if rp[r, ACTIVE] == WIDE:
        v += row_velocity(r + 1, rj, bs, rb[r + 1, 0], rb[r + 1, 1])
    return v


@helper
def row_apply(r, impulse, rb, rj, rd, rp, bs, binv):
    """apply_impulse for any row (to all the bodies of a wide one)."""
    apply_impulse(r, impulse, rb, rj, rd, bs, binv)
    if rp[r, ACTIVE] == WIDE:
        apply_impulse(r + 1, impulse, rb, rj, rd, bs, binv)


@helper
def wide_solve(r, use_bias, rb, rj, rd, rp, acc, bs, binv):
    """row_solve for a row over three or four bodies."""
    row_apply(r, row_impulse(r, use_bias, row_cdot(r, rb, rj, rp, bs), rp, acc), rb, rj, rd, rp,
              bs, binv)


@helper
def row_solve(r, use_bias, rb, rj, rd, rp, acc, bs, binv):
    """The one generic solve: clamp the accumulated impulse, apply the change."""
    if rp[r, ACTIVE] == 0.0:
        return
    cdot = row_velocity(r, rj, bs, rb[r, 0], rb[r, 1])
    apply_impulse(r, row_impulse(r, use_bias, cdot, rp, acc), rb, rj, rd, bs, binv)


# --- rows between one pair of bodies, velocities held in locals -----------------------------
# Contact manifolds solve all their rows on one pair of bodies: load the two velocities once,
# run row_impulse on each row, store once. `u` is (vA, wA, vB, wB) as a 12-tuple.

@helper
def pair_velocities(bs, a, b):
    return (bs[a, VEL], bs[a, VEL + 1], bs[a, VEL + 2], bs[a, SPIN], bs[a, SPIN + 1],
            bs[a, SPIN + 2], bs[b, VEL], bs[b, VEL + 1], bs[b, VEL + 2], bs[b, SPIN],
            bs[b, SPIN + 1], bs[b, SPIN + 2])


@helper
def store_pair_velocities(bs, a, b, u):
    for k in range(6):
        bs[a, VEL + k] = u[k]
        bs[b, VEL + k] = u[6 + k]


@helper
def pair_row_velocity(r, rj, u):
    return (rj[r, 0] * u[0] + rj[r, 1] * u[1] + rj[r, 2] * u[2] + rj[r, 3] * u[3]
            + rj[r, 4] * u[4] + rj[r, 5] * u[5] + rj[r, 6] * u[6] + rj[r, 7] * u[7]
            + rj[r, 8] * u[8] + rj[r, 9] * u[9] + rj[r, 10] * u[10] + rj[r, 11] * u[11])


@helper
def pair_apply(r, d, rj, rd, ia, ib, u):
    """u after an impulse d on row r (ia, ib: the bodies' inverse masses)."""
    sa = d * ia
    sb = d * ib
    return (u[0] + rj[r, 0] * sa, u[1] + rj[r, 1] * sa, u[2] + rj[r, 2] * sa,
            u[3] + rd[r, 0] * d, u[4] + rd[r, 1] * d, u[5] + rd[r, 2] * d,
            u[6] + rj[r, 6] * sb, u[7] + rj[r, 7] * sb, u[8] + rj[r, 8] * sb,
            u[9] + rd[r, 3] * d, u[10] + rd[r, 4] * d, u[11] + rd[r, 5] * d)


@helper
def pair_row_solve(r, use_bias, rj, rd, rp, acc, ia, ib, u):
    """row_solve for a row whose bodies' velocities are in u; returns the new u."""
    if rp[r, ACTIVE] == 0.0:
        return u
    d = row_impulse(r, use_bias, pair_row_velocity(r, rj, u), rp, acc)
    return pair_apply(r, d, rj, rd, ia, ib, u)


@helper
def _coupling(r, k, rb, rj, rd, binv):
    """K[r, k] = J_r M^-1 J_k^T for two rows on the same pair of bodies."""
    a = rb[r, 0]
    b = rb[r, 1]
    s = 0.0
    if a >= 0:
        s += binv[a] * (rj[r, 0] * rj[k, 0] + rj[r, 1] * rj[k, 1] + rj[r, 2] * rj[k, 2])
        s += rj[r, 3] * rd[k, 0] + rj[r, 4] * rd[k, 1] + rj[r, 5] * rd[k, 2]
    if b >= 0:
        s += binv[b] * (rj[r, 6] * rj[k, 6] + rj[r, 7] * rj[k, 7] + rj[r, 8] * rj[k, 8])
        s += rj[r, 9] * rd[k, 3] + rj[r, 10] * rd[k, 4] + rj[r, 11] * rd[k, 5]
    return s


@helper
def _k_entry(r0, n, i, m, rb, rj, rd, binv):
    if i < n and m < n:
        return _coupling(r0 + i, r0 + m, rb, rj, rd, binv)
    return 1.0 if i == m else 0.0


@helper
def _block_k(r0, n, rb, rj, rd, binv):
    """The block's K = J M^-1 J^T padded to 3x3 with the identity, as nested tuples."""
    return ((_k_entry(r0, n, 0, 0, rb, rj, rd, binv), _k_entry(r0, n, 0, 1, rb, rj, rd, binv),
             _k_entry(r0, n, 0, 2, rb, rj, rd, binv)),
            (_k_entry(r0, n, 1, 0, rb, rj, rd, binv), _k_entry(r0, n, 1, 1, rb, rj, rd, binv),
             _k_entry(r0, n, 1, 2, rb, rj, rd, binv)),
            (_k_entry(r0, n, 2, 0, rb, rj, rd, binv), _k_entry(r0, n, 2, 1, rb, rj, rd, binv),
             _k_entry(r0, n, 2, 2, rb, rj, rd, binv)))


@helper
def make_block(r0, n, rb, rj, rd, rp, rk, bs, binv, bI):
    """Turn n (2 or 3) filled equality rows r0.. into one block; stays scalar if K is singular."""
    for i in range(n):
        if rp[r0 + i, ACTIVE] == 0.0:
            return
    k = _block_k(r0, n, rb, rj, rd, binv)
    det = (k[0][0] * (k[1][1] * k[2][2] - k[1][2] * k[2][1])
           - k[0][1] * (k[1][0] * k[2][2] - k[1][2] * k[2][0])
           + k[0][2] * (k[1][0] * k[2][1] - k[1][1] * k[2][0]))
    scale_ = k[0][0] * k[1][1] * k[2][2]
    if not abs(det) > 1e-12 * abs(scale_):
        return
    inv = 1.0 / det
    rk[r0, 0] = (k[1][1] * k[2][2] - k[1][2] * k[2][1]) * inv
    rk[r0, 1] = (k[0][2] * k[2][1] - k[0][1] * k[2][2]) * inv
    rk[r0, 2] = (k[0][1] * k[1][2] - k[0][2] * k[1][1]) * inv
    rk[r0, 3] = (k[1][2] * k[2][0] - k[1][0] * k[2][2]) * inv
    rk[r0, 4] = (k[0][0] * k[2][2] - k[0][2] * k[2][0]) * inv
    rk[r0, 5] = (k[0][2] * k[1][0] - k[0][0] * k[1][2]) * inv
    rk[r0, 6] = (k[1][0] * k[2][1] - k[1][1] * k[2][0]) * inv
    rk[r0, 7] = (k[0][1] * k[2][0] - k[0][0] * k[2][1]) * inv
    rk[r0, 8] = (k[0][0] * k[1][1] - k[0][1] * k[1][0]) * inv
    rp[r0, BLOCK] = n
    for i in range(1, n):
        rp[r0 + i, BLOCK] = -1.0


@helper
def hold(r0, m, e0, n, rb, rj, rd, rp, binv):
    """Rows r0..r0+m-1 in their held form over the n equality rows e0.. of their joint (all on
    the same two bodies):

        J_r <- J_r - c^T J_e,   c = K_ee^-1 K_er,   K = J M^-1 J^T,

    so K_r'e = 0 (their impulses leave the equality rows alone) and their K is the Schur
    complement K_rr - K_re K_ee^-1 K_er: the free coordinates' mass with the joint's other
    rows held, what a spring on them must use to oscillate at its hertz as hung (docs/rows.md,
    "Springs as hung"). J_r' u is the rate a row will see once the equality rows are
    projected. EFF becomes 1 / K_r'r'. Call it after filling the rows, before `set_spring`;
    K_ee is reduced once for all m rows (one small allocation per call). A redundant or
    inactive equality row holds nothing; a row the equality rows lock completely gets EFF 0
    (it can do nothing)."""
    if n == 0:
        return
    t = np.empty((n, n + m))        # [K_ee | K_er], reduced in place to [I | c]
    big = 0.0
    for i in range(n):
        for k in range(i + 1):
            t[i, k] = t[k, i] = _coupling(e0 + i, e0 + k, rb, rj, rd, binv)
        for q in range(m):
            t[i, n + q] = _coupling(e0 + i, r0 + q, rb, rj, rd, binv)
        big = max(big, t[i, i])
    for p in range(n):
        pivot = t[p, p]
        if not pivot > 1e-9 * big:
            t[p, :] = 0.0
            continue
        for k in range(p, n + m):
            t[p, k] /= pivot
        for i in range(n):
            f = t[i, p]
            if i != p and f != 0.0:
                for k in range(p, n + m):
                    t[i, k] -= f * t[p, k]
    for q in range(m):
        r = r0 + q
        if rp[r, ACTIVE] == 0.0:
            continue
        k_free = _coupling(r, r, rb, rj, rd, binv)
        for i in range(n):
            c = t[i, n + q]
            if c != 0.0:
                for k in range(12):
                    rj[r, k] -= c * rj[e0 + i, k]
                for k in range(6):
                    rd[r, k] -= c * rd[e0 + i, k]
        k_held = _coupling(r, r, rb, rj, rd, binv)
        rp[r, EFF] = 1.0 / k_held if k_held > 1e-9 * k_free else 0.0


@helper
def block_solve(r0, n, use_bias, rb, rj, rd, rp, rk, acc, bs, binv):
    """Solve n rows together: dlambda = -ms K^-1 (Cdot + bias) - is lambda, each row's
    accumulated impulse then clamped to its [lo, hi] (unbounded for equalities; a capped
    drive's block clamps each axis on its own)."""
    rhs0 = 0.0
    rhs1 = 0.0
    rhs2 = 0.0
    a = rb[r0, 0]
    b = rb[r0, 1]
    soft = use_bias or rp[r0, SPRING] != 0.0
    mass_scale = rp[r0, MASS_SCALE] if soft else 1.0
    impulse_scale = rp[r0, IMPULSE_SCALE] if soft else 0.0
    for i in range(n):
        r = r0 + i
        bias = rp[r, TARGET] + (rp[r, BIAS] if soft else 0.0)
        c = row_velocity(r, rj, bs, a, b) + bias
        if i == 0:
            rhs0 = c
        elif i == 1:
            rhs1 = c
        else:
            rhs2 = c
    for i in range(n):
        r = r0 + i
        kc = rk[r0, 3 * i] * rhs0 + rk[r0, 3 * i + 1] * rhs1 + rk[r0, 3 * i + 2] * rhs2
        old = acc[r]
        new = min(max(old - mass_scale * kc - impulse_scale * old, rp[r, LO]), rp[r, HI])
        acc[r] = new
        apply_impulse(r, new - old, rb, rj, rd, bs, binv)


@helper
def round_block_solve(r0, n, use_bias, rb, rj, rd, rp, rk, acc, bs, binv):
    """`block_solve` whose accumulated impulses are capped as one vector, |lambda| <= HI of
    the leader (the rows carry [-HI, HI] as well, so nothing else takes them for
    equalities): a pin's force, whatever its direction, never above its limit. A cap per
    row would let the force reach sqrt(n) times it along a diagonal (Box2D v3's mouse joint
    caps its impulse the same way)."""
    a = rb[r0, 0]
    b = rb[r0, 1]
    soft = use_bias or rp[r0, SPRING] != 0.0
    mass_scale = rp[r0, MASS_SCALE] if soft else 1.0
    impulse_scale = rp[r0, IMPULSE_SCALE] if soft else 0.0
    rhs0 = 0.0
    rhs1 = 0.0
    rhs2 = 0.0
    for i in range(n):
        r = r0 + i
        c = row_velocity(r, rj, bs, a, b) + rp[r, TARGET] + (rp[r, BIAS] if soft else 0.0)
        if i == 0:
            rhs0 = c
        elif i == 1:
            rhs1 = c
        else:
            rhs2 = c
    new0 = 0.0
    new1 = 0.0
    new2 = 0.0
    for i in range(n):
        r = r0 + i
        kc = rk[r0, 3 * i] * rhs0 + rk[r0, 3 * i + 1] * rhs1 + rk[r0, 3 * i + 2] * rhs2
        x = acc[r] - mass_scale * kc - impulse_scale * acc[r]
        if i == 0:
            new0 = x
        elif i == 1:
            new1 = x
        else:
            new2 = x
    total = new0 * new0 + new1 * new1 + new2 * new2
    cap = rp[r0, HI]
    shrink = cap / math.sqrt(total) if total > cap * cap else 1.0
    for i in range(n):
        r = r0 + i
        old = acc[r]
        acc[r] = (new0 if i == 0 else (new1 if i == 1 else new2)) * shrink
        apply_impulse(r, acc[r] - old, rb, rj, rd, bs, binv)


@helper
def clamp_round(r0, n, max_impulse, rp):
    """Cap rows r0..r0+n-1 (a block made by `make_block`) as one vector: |lambda| <=
    max_impulse per substep (`round_block_solve`). Rows left scalar (a singular K) are capped
    each at max_impulse / sqrt(n), which keeps the vector under it too."""
    if rp[r0, BLOCK] == n:
        for i in range(n):
            clamp(r0 + i, max_impulse, rp)
        rp[r0, ACTIVE] = ROUND
    else:
        for i in range(n):
            clamp(r0 + i, max_impulse / math.sqrt(n), rp)


@helper
def warm_start(r, rb, rj, rd, rp, acc, bs, binv):
    """Pre-apply last step's impulse (docs/rows.md); inactive rows forget theirs."""
    if rp[r, ACTIVE] == 0.0:
        acc[r] = 0.0
        return
    if acc[r] != 0.0:
        row_apply(r, acc[r], rb, rj, rd, rp, bs, binv)


# --- how a filled row is driven: equality, one-sided limit, motor, spring -----------------

@helper
def set_equality(r, c, soft, rp):
    """C = 0, solved softly (bias rate, mass scale, impulse scale from `soft`)."""
    rp[r, BIAS] = soft[0] * c
    rp[r, MASS_SCALE] = soft[1]
    rp[r, IMPULSE_SCALE] = soft[2]


@helper
def set_lower_limit(r, c, soft, inv_h, rp):
    """C >= 0 with lambda >= 0. While C > 0 the row is speculative (Box2D v3): it only stops
    the approach that would cross C = 0 within this substep, so limits never overshoot by
    more than a substep's worth of error and never pull."""
    rp[r, LO] = 0.0
    rp[r, HI] = INF
    if c > 0.0:
        rp[r, TARGET] = c * inv_h
    else:
        set_equality(r, c, soft, rp)


@helper
def set_motor(r, speed, max_impulse, rp):
    """Drive C* toward `speed` with |lambda| <= max_impulse per substep."""
    rp[r, TARGET] = -speed
    rp[r, LO] = -max_impulse
    rp[r, HI] = max_impulse


@helper
def set_spring(r, c, first, second, stiffness, h, rp):
    """A spring-damper pulling C toward 0 in both solve and relax passes: (first, second) are
    (hertz, damping ratio), or with `stiffness` (stiffness k, damper c) over the row's
    effective mass (`spring_coefficients`; set EFF first, e.g. by `hold`).

    The substep's two passes damp the spring by themselves: the solve pass is implicit Euler
    (damping ratio h omega / 2 of its own) and the relax pass solves the spring again at the
    moved position x + h v, adding a damper h k (another h omega / 2). So the damping asked
    for is reduced by h omega (the damper by 2 h k) down to 0, and the rig decays at the
    ratio asked; below h omega it decays at h omega (docs/rows.md, "Springs as hung")."""
    if stiffness:
        damper = max(second - 2.0 * h * first, 0.0)
        soft = spring_coefficients(first, damper, rp[r, EFF], h)
    else:
        zeta = max(second - 2.0 * math.pi * first * h, 0.0)
        soft = soft_coefficients(first, zeta, h)
    set_equality(r, c, soft, rp)
    rp[r, SPRING] = 1.0


@helper
def clamp(r, max_impulse, rp):
    """|lambda| <= max_impulse per substep (a drive's torque cap times h)."""
    rp[r, LO] = -max_impulse
    rp[r, HI] = max_impulse


@helper
def deactivate(r, rp):
    rp[r, ACTIVE] = 0.0
