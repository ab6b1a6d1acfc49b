"""Rope: at most `length` between the anchors, slack below. Row 0 only (distance.md)."""

from numba import njit

from ..primitives.rope import rope
from .layout import LENGTH


@njit(cache=True, inline="always")
def prepare_rope(r0, j, jf, a, b, ra, rb, pa, pb, S, R, B):
    rope(r0, a, b, pa, pb, ra, rb, jf[j, LENGTH], S, R, B)
