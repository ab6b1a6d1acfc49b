"""Ragdoll: ball-socket + elliptical swing cone + twist range about the frame's X (the bone).

Rows: 0-2 anchor, 3 swing cone, 4 twist lower, 5 twist upper (docs/angular-constraints.md, "Typical
ragdoll composition"), 6-8 the optional orientation drive (pose matching).
"""

from ..jit import helper

from ..mathx import qaxis, qconj, qmul, swing_twist
from ..primitives.swing_cone import swing_cone
from ..primitives.twist_limit import twist_axis, twist_limit
from .ball_socket import point_rows
from .drive import prepare_drive
from .layout import SWING1, SWING2, TWIST_LOWER, TWIST_UPPER


@helper(inline=True)
def prepare_ragdoll(r0, j, flags, jf, a, b, ra, rb, pa, pb, fa, fb, S, R_b, R_j, R_d, R_p, R_k,
                    B_s, B_inv, B_I):
    point_rows(r0, a, b, ra, rb, pa, pb, S, R_b, R_j, R_d, R_p, R_k, B_s, B_inv, B_I)
    swing, twist = swing_twist(qmul(qconj(fa), fb))
    swing_cone(r0 + 3, a, b, fa, swing, jf[j, SWING1], jf[j, SWING2], S, R_b, R_j, R_d, R_p, R_k,
               B_s, B_inv, B_I)
    axis = twist_axis(qaxis(fa, 0), qaxis(fb, 0))
    twist_limit(r0 + 4, r0 + 5, a, b, axis, twist, jf[j, TWIST_LOWER], jf[j, TWIST_UPPER],
                S, R_b, R_j, R_d, R_p, R_k, B_s, B_inv, B_I)
    prepare_drive(r0 + 6, j, flags, jf, a, b, fa, fb, r0, S, R_b, R_j, R_d, R_p, R_k, B_s, B_inv,
                  B_I)
