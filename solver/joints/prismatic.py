"""Prismatic: one translation along the frame's X axis, no rotation (docs/point-constraints.md).

Rows: 0-1 planes perpendicular to the axis, 2-4 orientation lock, 5 lower, 6 upper,
7 motor, 8 spring toward displacement 0, held by rows 0-4 (primitives/spring.py: for a body
whose centre of mass is off the axis its mass, not the smaller naive 1 / (1/m + (rB x t) .
I^-1 (rB x t))). The axis and its perpendiculars ride on A, so the arm on A is sA = pB - xA.
"""

from ..jit import helper

from ..mathx import neg
from ..primitives.limit import limit
from ..primitives.motor import motor
from ..primitives.orientation_lock import orientation_lock
from ..primitives.line import line_rows
from ..primitives.spring import linear_spring
from .layout import (HAS_LOWER, HAS_MOTOR, HAS_SPRING, HAS_UPPER, LOWER, MOTOR_MAX,
                     MOTOR_SPEED, SPRING_DAMPING, SPRING_HZ, SPRING_STIFFNESS, UPPER)


@helper(inline=True)
def prepare_prismatic(r0, j, flags, jf, a, b, xa, rb, pa, pb, fa, fb, S, R_b, R_j, R_d, R_p, R_k,
                      B_s, B_inv, B_I):
    axis, sa, d = line_rows(r0, a, b, xa, rb, pa, pb, fa, S, R_b, R_j, R_d, R_p, R_k, B_s,
                            B_inv, B_I)
    orientation_lock(r0 + 2, a, b, fa, fb, S, R_b, R_j, R_d, R_p, R_k, B_s, B_inv, B_I)
    if flags & HAS_LOWER:
        limit(r0 + 5, a, b, axis, sa, rb, d - jf[j, LOWER], S, R_b, R_j, R_d, R_p, R_k, B_s, B_inv,
              B_I)
    if flags & HAS_UPPER:
        limit(r0 + 6, a, b, neg(axis), sa, rb, jf[j, UPPER] - d, S, R_b, R_j, R_d, R_p, R_k, B_s,
              B_inv, B_I)
    if flags & HAS_MOTOR:
        motor(r0 + 7, a, b, axis, sa, rb, jf[j, MOTOR_SPEED], jf[j, MOTOR_MAX], S, R_b, R_j, R_d,
              R_p, R_k, B_s, B_inv, B_I)
    if flags & HAS_SPRING:
        linear_spring(r0 + 8, a, b, axis, sa, rb, d, jf[j, SPRING_HZ], jf[j, SPRING_DAMPING],
                      (flags & SPRING_STIFFNESS) != 0, r0, 5, S, R_b, R_j, R_d, R_p, R_k, B_s,
                      B_inv, B_I)
