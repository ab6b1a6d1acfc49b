"""Ball-socket: the anchors coincide; three plane rows along the world axes
(docs/point-constraints.md).

Rows: 0-2 anchor coincidence, solved as one 3x3 block; 3-5 the optional orientation drive.
"""

from ..jit import helper

from ..mathx import sub
from ..primitives.plane import plane
from ..rows import make_block
from .drive import prepare_drive


@helper
def point_rows(r0, a, b, ra, rb, pa, pb, S, R_b, R_j, R_d, R_p, R_k, B_s, B_inv, B_I):
    p = sub(pb, pa)
    for i in range(3):
        e = (1.0 if i == 0 else 0.0, 1.0 if i == 1 else 0.0, 1.0 if i == 2 else 0.0)
        plane(r0 + i, a, b, e, ra, rb, p[i], S, R_b, R_j, R_d, R_p, R_k, B_s, B_inv, B_I)
    make_block(r0, 3, R_b, R_j, R_d, R_p, R_k, B_s, B_inv, B_I)


@helper(inline=True)
def prepare_ball_socket(r0, j, flags, jf, a, b, ra, rb, pa, pb, fa, fb, S, R_b, R_j, R_d, R_p, R_k,
                        B_s, B_inv, B_I):
    point_rows(r0, a, b, ra, rb, pa, pb, S, R_b, R_j, R_d, R_p, R_k, B_s, B_inv, B_I)
    prepare_drive(r0 + 3, j, flags, jf, a, b, fa, fb, r0, S, R_b, R_j, R_d, R_p, R_k, B_s, B_inv,
                  B_I)
