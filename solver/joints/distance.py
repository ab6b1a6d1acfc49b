"""Distance: a rigid rod, a [min, max] range, and/or a spring toward a rest length.

Rows: 0 rigid length (no range, no spring) or spring, 1 min length, 2 max length.
All act along n = (pB - pA) / |pB - pA| (docs/point-constraints.md). With a spring the joint
has no equality rows, so the spring's effective mass is its row's own (n x rB . IB^-1 n x rB
included): that is the mass a body hung on the spring moves with, and it swings at the hertz
asked (primitives/spring.py).
"""

from ..jit import helper

from ..mathx import neg
from ..primitives.distance import distance, distance_axis
from ..primitives.limit import limit
from ..primitives.spring import linear_spring
from .layout import (HAS_LOWER, HAS_SPRING, HAS_UPPER, LENGTH, LOWER, REST, SPRING_DAMPING,
                     SPRING_HZ, SPRING_STIFFNESS, UPPER)


@helper(inline=True)
def prepare_distance(r0, j, flags, jf, a, b, ra, rb, pa, pb, S, R_b, R_j, R_d, R_p, R_k, B_s,
                     B_inv, B_I):
    n, d = distance_axis(pa, pb)
    if flags & HAS_SPRING:
        linear_spring(r0, a, b, n, ra, rb, d - jf[j, REST], jf[j, SPRING_HZ],
                      jf[j, SPRING_DAMPING], (flags & SPRING_STIFFNESS) != 0, r0, 0, S, R_b,
                      R_j, R_d, R_p, R_k, B_s, B_inv, B_I)
    elif not flags & (HAS_LOWER | HAS_UPPER):
        distance(r0, a, b, pa, pb, ra, rb, jf[j, LENGTH], S, R_b, R_j, R_d, R_p, R_k, B_s, B_inv,
                 B_I)
    if flags & HAS_LOWER:
        limit(r0 + 1, a, b, n, ra, rb, d - jf[j, LOWER], S, R_b, R_j, R_d, R_p, R_k, B_s, B_inv,
              B_I)
    if flags & HAS_UPPER:
        limit(r0 + 2, a, b, neg(n), ra, rb, jf[j, UPPER] - d, S, R_b, R_j, R_d, R_p, R_k, B_s,
              B_inv, B_I)
