"""Pulley: |pA - fA| + rho |pB - fB| held, or kept in a range (Nape's PulleyJoint,
nape-constraints.md 3.7, with its two fixed ends in the world).

A rope runs from anchor pA on body A over the world point fA, then (as rho ropes: a block
and tackle of ratio rho) from fB to anchor pB on body B. With n_A = (pA - fA) / |pA - fA|,
n_B likewise, and the arms rA, rB from the centres to the anchors:

    c  = |pA - fA| + rho |pB - fB|
    C  = c - L = 0  (rigid), or c - lower >= 0 and upper - c >= 0
    C* = n_A . (vA + wA x rA) + rho n_B . (vB + wB x rB)
    J  = [n_A, rA x n_A, rho n_B, rho (rB x n_B)]              (primitives/coupling.py)
    K  = 1/mA + (rA x n_A) . IA^-1 (rA x n_A) + rho^2 (1/mB + (rB x n_B) . IB^-1 (rB x n_B))

A rope that can go slack is the range with only `upper`: the row can only shorten the rope
(lambda >= 0 on upper - c), speculative while slack, so a slack rope never pulls.
Rows: 0 the equality, or 0 lower and 1 upper.
"""

from ..jit import helper

from ..mathx import cross, scale, vec3_at
from ..primitives.coupling import coupling_range
from ..primitives.distance import distance_axis
from .layout import FIXED_A, FIXED_B, HAS_LOWER, HAS_UPPER, LENGTH, LOWER, RATIO, UPPER


@helper
def prepare_pulley(r0, j, flags, jf, a, b, ra, rb, pa, pb, S, R_b, R_j, R_d, R_p, R_k, B_s, B_inv,
                   B_I):
    na, la = distance_axis(vec3_at(jf, j, FIXED_A), pa)
    nb, lb = distance_axis(vec3_at(jf, j, FIXED_B), pb)
    rho = jf[j, RATIO]
    coupling_range(r0, a, b, na, cross(ra, na), scale(nb, rho), scale(cross(rb, nb), rho),
                   la + rho * lb, jf[j, LENGTH], (flags & HAS_LOWER) != 0, jf[j, LOWER],
                   (flags & HAS_UPPER) != 0, jf[j, UPPER], S, R_b, R_j, R_d, R_p, R_k, B_s, B_inv,
                   B_I)
