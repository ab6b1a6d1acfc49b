"""Rope: at most `length` between the anchors, slack below. Row 0 only (distance.md)."""

from ..jit import helper

from ..primitives.rope import rope
from .layout import LENGTH


@helper(inline=True)
def prepare_rope(r0, j, jf, a, b, ra, rb, pa, pb, S, R, B):
    rope(r0, a, b, pa, pb, ra, rb, jf[j, LENGTH], S, R, B)
