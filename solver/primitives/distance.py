"""Distance: |p| - L = 0 between two anchors (docs/point-constraints.md).

With n = p / |p| frozen for the substep, C* = n . p* and the row is a plane row along n:
    J = [-n, n x sA, n, rB x n],  C = |p| - L.
`distance_axis` returns n (a fixed fallback when the anchors coincide) for callers that add
range limits or a spring along the same direction.
"""

from ..jit import helper

from ..mathx import length, scale, sub
from .plane import plane


@helper
def distance_axis(pa, pb):
    p = sub(pb, pa)
    d = length(p)
    if d < 1e-9:
        return (0.0, 0.0, 1.0), d
    return scale(p, 1.0 / d), d


@helper(inline=True)
def distance(r, a, b, pa, pb, arm_a, arm_b, rest_length, S, R_b, R_j, R_d, R_p, R_k, B_s, B_inv,
             B_I):
    n, d = distance_axis(pa, pb)
    plane(r, a, b, n, arm_a, arm_b, d - rest_length, S, R_b, R_j, R_d, R_p, R_k, B_s, B_inv, B_I)
