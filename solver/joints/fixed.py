"""Fixed (weld): anchor coincidence plus orientation lock (docs/point-constraints.md).
Rows: 0-2, 3-5."""

from ..jit import helper

from ..primitives.orientation_lock import orientation_lock
from .ball_socket import point_rows


@helper(inline=True)
def prepare_fixed(r0, a, b, ra, rb, pa, pb, fa, fb, S, R_b, R_j, R_d, R_p, R_k, B_s, B_inv, B_I):
    point_rows(r0, a, b, ra, rb, pa, pb, S, R_b, R_j, R_d, R_p, R_k, B_s, B_inv, B_I)
    orientation_lock(r0 + 3, a, b, fa, fb, S, R_b, R_j, R_d, R_p, R_k, B_s, B_inv, B_I)
