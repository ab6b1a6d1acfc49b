"""Swing cone: an elliptical cone limit on how far B's twist axis leaves A's
(docs/angular-constraints.md).

The relative rotation q = fA^-1 fB splits into swing * twist (twist about the frame's X).
The swing rotation vector s = phi (0, uy, uz) lies in A's YZ plane; the cone allows
(s_y / swing1)^2 + (s_z / swing2)^2 <= 1, so along the current direction the limit angle is
phi_max = 1 / sqrt((uy / swing1)^2 + (uz / swing2)^2) (for swing1 = swing2 the circle of
docs/angular-constraints.md). The row pushes along the ellipse's outward normal n = normalize(
(0, s_y / swing1^2, s_z / swing2^2)) taken to world by fA:

    C  = (phi_max - phi) (u . n) >= 0   (gap to the ellipse's tangent plane)
    C* = -n . (wB - wA),  J = [0, n, 0, -n],  K = n . (IA^-1 + IB^-1) n,  lambda >= 0.

Inside the cone the row is speculative, like every limit.
"""

import math

from ..jit import helper

from ..mathx import neg, qrotate
from .hinge_limit import hinge_limit


@helper
def swing_cone(r, a, b, fa, swing, swing1, swing2, S, R_b, R_j, R_d, R_p, R_k, B_s, B_inv, B_I):
    """Returns False (row unused) when the swing is too small to have a direction."""
    phi = math.sqrt(swing[1] * swing[1] + swing[2] * swing[2])
    if phi < 1e-9:
        return False
    uy = swing[1] / phi
    uz = swing[2] / phi
    phi_max = 1.0 / math.sqrt((uy / swing1) ** 2 + (uz / swing2) ** 2)
    gy = uy / (swing1 * swing1)
    gz = uz / (swing2 * swing2)
    g = math.sqrt(gy * gy + gz * gz)
    gy /= g
    gz /= g
    n = qrotate(fa, (0.0, gy, gz))
    hinge_limit(r, a, b, neg(n), (phi_max - phi) * (uy * gy + uz * gz), S, R_b, R_j, R_d, R_p, R_k,
                B_s, B_inv, B_I)
    return True
