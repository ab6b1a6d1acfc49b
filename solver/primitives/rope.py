"""Rope: |p| <= L, slack below (docs/point-constraints.md, "Rope setup").

C = L - |p| >= 0 with J = -J_distance = [n, -(n x sA), -n, -(rB x n)] and lambda >= 0: the row
can only pull the anchors together, and (speculative while slack) only when the rope would
go taut within this substep. A slack rope applies no impulse at all.
"""

from ..jit import helper

from ..mathx import neg
from .distance import distance_axis
from .limit import limit


@helper(inline=True)
def rope(r, a, b, pa, pb, arm_a, arm_b, max_length, S, R_b, R_j, R_d, R_p, R_k, B_s, B_inv, B_I):
    n, d = distance_axis(pa, pb)
    limit(r, a, b, neg(n), arm_a, arm_b, max_length - d, S, R_b, R_j, R_d, R_p, R_k, B_s, B_inv,
          B_I)
