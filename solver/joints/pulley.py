"""Pulley: |pA - fA| + rho |pB - fB| held, or kept in a range (Nape's PulleyJoint,
docs/mechanisms.md, Coupled coordinates), its two fixed ends in the world or on bodies C and D.

A rope runs from anchor pA on body A over the point fA, then (as rho ropes: a block and
tackle of ratio rho) from fB to anchor pB on body B. fA sits on body C and fB on body D, or
in the world (Nape's 4-body pulley; C = D is one block carrying both wheels). With the unit
rope directions n_A = (pA - fA) / |pA - fA|, n_B likewise, and the arms rA = pA - xA,
rB = pB - xB, rC = fA - xC, rD = fB - xD from the centres to the points:

    c  = |pA - fA| + rho |pB - fB|
    C  = c - L = 0  (rigid), or c - lower >= 0 and upper - c >= 0
    C* = n_A . (vA + wA x rA - vC - wC x rC) + rho n_B . (vB + wB x rB - vD - wD x rD)

and with n . (w x r) = w . (r x n), one block per body:

    J  = [ n_A,  rA x n_A,          (A)
           rho n_B,  rho rB x n_B,  (B)
          -n_A, -rC x n_A,          (C)
          -rho n_B, -rho rD x n_B ] (D)
    K  = sum over the bodies of |Jv|^2 / m + Jw . I^-1 Jw

(rows.row_jacobian4; a point in the world adds no block, and where C or D is A or B, or C is
D, the blocks of that body add up first, which gives Nape's K_{2=3} and K_{1=3} with their
cross terms). With both fixed points in the world the row is the two-body row of
primitives/coupling.py, as before; otherwise a row over three or four bodies, one unknown of
its island's exact solve like any equality row (direct.py).

A rope that can go slack is the range with only `upper`: the row can only shorten the rope
(lambda >= 0 on upper - c), speculative while slack, so a slack rope never pulls.
Rows: 0 the equality, or 0 lower and 2 upper (each may take two slots).
"""

from ..jit import helper

from ..mathx import add, cross, neg, qrotate, scale, sub, vec3_at
from ..primitives.coupling import coupling_range4
from ..primitives.distance import distance_axis
from .frames import body_pose
from .layout import (BODY_C, BODY_D, FIXED_A, FIXED_B, HAS_LOWER, HAS_UPPER, LENGTH, LOWER,
                     RATIO, UPPER)


@helper
def _fixed_point(jt, jf, j, body_col, point_col, B_s):
    """(the body carrying a fixed point, its centre, the point in the world)."""
    c = jt[j, body_col]
    x, q = body_pose(B_s, c)
    return c, x, add(x, qrotate(q, vec3_at(jf, j, point_col)))


@helper
def prepare_pulley(r0, j, flags, jt, jf, a, b, ra, rb, pa, pb, S, R_b, R_j, R_d, R_p, R_k, B_s,
                   B_inv, B_I):
    c, xc, fa = _fixed_point(jt, jf, j, BODY_C, FIXED_A, B_s)
    d, xd, fb = _fixed_point(jt, jf, j, BODY_D, FIXED_B, B_s)
    na, la = distance_axis(fa, pa)
    nb, lb = distance_axis(fb, pb)
    rho = jf[j, RATIO]
    nb_rho = scale(nb, rho)
    jac = (na, cross(ra, na), nb_rho, cross(rb, nb_rho),
           neg(na), neg(cross(sub(fa, xc), na)), neg(nb_rho), neg(cross(sub(fb, xd), nb_rho)))
    coupling_range4(r0, (a, b, c, d), jac, la + rho * lb, jf[j, LENGTH],
                    (flags & HAS_LOWER) != 0, jf[j, LOWER], (flags & HAS_UPPER) != 0,
                    jf[j, UPPER], S, R_b, R_j, R_d, R_p, R_k, B_s, B_inv, B_I)
