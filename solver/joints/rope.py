"""Rope: at most `length` between the anchors, slack below. Row 0 only
(docs/point-constraints.md)."""

from ..jit import helper

from ..primitives.rope import rope
from .layout import LENGTH


@helper(inline=True)
def prepare_rope(r0, j, jf, a, b, ra, rb, pa, pb, S, R_b, R_j, R_d, R_p, R_k, B_s, B_inv, B_I):
    rope(r0, a, b, pa, pb, ra, rb, jf[j, LENGTH], S, R_b, R_j, R_d, R_p, R_k, B_s, B_inv, B_I)
