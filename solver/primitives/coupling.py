"""Coupling: one row over a weighted sum of two bodies' velocities (Nape's AngleJoint,
MotorJoint and PulleyJoint, nape-constraints.md 3.3, 3.6, 3.7; Jolt's gear and rack and
pinion parts).

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
"""

from ..jit import helper

from ..mathx import neg
from ..rows import row_jacobian, set_equality, set_lower_limit, set_motor


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
