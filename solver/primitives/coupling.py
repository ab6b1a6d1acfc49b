"""Coupling: one row over a weighted sum of two bodies' velocities (Nape's AngleJoint,
MotorJoint and PulleyJoint; Jolt's gear and rack and pinion parts; derived in
docs/mechanisms.md, Coupled coordinates).

Mechanisms couple coordinates that belong to different joints or ropes: a gear the angles
of two hinges, a rack and pinion a hinge angle and a slide, a pulley two rope lengths. Each
coupled coordinate q_i has a rate that is linear in one body's velocities, dq_i/dt = g_i . u_i,
so a weighted sum c = q_A + rho q_B (rho: the ratio) has

    C  = c - c0 (= 0, or c - lower >= 0 and upper - c >= 0 for a range)
    C* = J u,   J = [JvA, JwA, JvB, JwB] = the weighted g_i of the two bodies
    K  = |JvA|^2 / mA + JwA . IA^-1 JwA + |JvB|^2 / mB + JwB . IB^-1 JwB

and the caller supplies J; rows.row_jacobian computes K (docs/rows.md). The range is two
one-sided rows (J and -J), speculative while inside, like every limit; a rate (Nape's
MotorJoint: C* = speed) is a motor row with a capped impulse.

`coupling_range4` is the same over up to four bodies (Nape's 4-body pulley, a custom
constraint over pA..pD): J has a block per body, K sums them (rows.row_jacobian4), and each
row may take two slots, so the upper bound's row starts two slots after the first.
"""

from ..jit import helper

from ..mathx import neg
from ..rows import row_jacobian, row_jacobian4, set_equality, set_lower_limit, set_motor


@helper
def coupling(r, a, b, jva, jwa, jvb, jwb, c, S, R_b, R_j, R_d, R_p, R_k, B_s, B_inv, B_I):
    """C = c = 0 (rigid, solved with the joints' softness)."""
    row_jacobian(r, a, b, jva, jwa, jvb, jwb, R_b, R_j, R_d, R_p, R_k, B_s, B_inv, B_I)
    set_equality(r, c, (S[0], S[1], S[2]), R_p)


@helper
def coupling_limit(r, a, b, jva, jwa, jvb, jwb, c, S, R_b, R_j, R_d, R_p, R_k, B_s, B_inv, B_I):
    """C = c >= 0 (lambda >= 0)."""
    row_jacobian(r, a, b, jva, jwa, jvb, jwb, R_b, R_j, R_d, R_p, R_k, B_s, B_inv, B_I)
    set_lower_limit(r, c, (S[0], S[1], S[2]), S[4], R_p)


@helper
def coupling_motor(r, a, b, jva, jwa, jvb, jwb, speed, max_force, S, R_b, R_j, R_d, R_p, R_k,
                   B_s, B_inv, B_I):
    """C* -> speed with |lambda| <= max_force h."""
    row_jacobian(r, a, b, jva, jwa, jvb, jwb, R_b, R_j, R_d, R_p, R_k, B_s, B_inv, B_I)
    set_motor(r, speed, max_force * S[3], R_p)


@helper
def coupling_range(r, a, b, jva, jwa, jvb, jwb, c, held, has_lower, lower, has_upper, upper, S,
                   R_b, R_j, R_d, R_p, R_k, B_s, B_inv, B_I):
    """c held at `held` (no bound given), or lower <= c <= upper in rows r, r + 1."""
    if not (has_lower or has_upper):
        coupling(r, a, b, jva, jwa, jvb, jwb, c - held, S, R_b, R_j, R_d, R_p, R_k, B_s, B_inv,
                 B_I)
        return
    if has_lower:
        coupling_limit(r, a, b, jva, jwa, jvb, jwb, c - lower, S, R_b, R_j, R_d, R_p, R_k, B_s,
                       B_inv, B_I)
    if has_upper:
        coupling_limit(r + 1, a, b, neg(jva), neg(jwa), neg(jvb), neg(jwb), upper - c, S, R_b,
                       R_j, R_d, R_p, R_k, B_s, B_inv, B_I)


@helper
def negated(jac):
    """-J of a four-body Jacobian (JvA, JwA, ..., JvD, JwD): the upper bound's row."""
    return (neg(jac[0]), neg(jac[1]), neg(jac[2]), neg(jac[3]), neg(jac[4]), neg(jac[5]),
            neg(jac[6]), neg(jac[7]))


@helper
def coupling_range4(r, bodies, jac, c, held, has_lower, lower, has_upper, upper, S, R_b, R_j,
                    R_d, R_p, R_k, B_s, B_inv, B_I):
    """`coupling_range` over bodies = (a, b, c, d) with jac = (JvA, JwA, ..., JvD, JwD)
    (rows.row_jacobian4): c held at `held`, or lower <= c <= upper in rows r and r + 2."""
    soft = (S[0], S[1], S[2])
    if not (has_lower or has_upper):
        row_jacobian4(r, bodies, jac, R_b, R_j, R_d, R_p, R_k, B_s, B_inv, B_I)
        set_equality(r, c - held, soft, R_p)
        return
    if has_lower:
        row_jacobian4(r, bodies, jac, R_b, R_j, R_d, R_p, R_k, B_s, B_inv, B_I)
        set_lower_limit(r, c - lower, soft, S[4], R_p)
    if has_upper:
        row_jacobian4(r + 2, bodies, negated(jac), R_b, R_j, R_d, R_p, R_k, B_s, B_inv, B_I)
        set_lower_limit(r + 2, upper - c, soft, S[4], R_p)
