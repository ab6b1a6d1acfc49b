"""Line: a point of B stays on a line of A, every rotation free (Nape's LineJoint,
nape-constraints.md 3.5, in 3D; docs/point-constraints.md).

The line runs through A's anchor along the frame's X axis t (carried by A); t0, t1 (the
frame's Y and Z) span the plane across it. With p = pB - pA and sA = pB - xA (the axes ride on
A, so their rotation with A is part of C*):

    C_k = t_k . p = 0                  J_k = [-t_k, t_k x sA, t_k, rB x t_k]   (plane rows)
    d   = t . p,  lower <= d <= upper  J = +-[-t, t x sA, t, rB x t]           (limit rows)

and a motor (C* -> speed, |lambda| <= F_max h) and a spring toward d = 0 along t, on the same
plane Jacobian. K is the plane row's (primitives/plane.py); the spring's is held over the two
line rows (primitives/spring.py), so it swings at its hertz whatever the arm.

Rows: 0-1 the line, 2 lower, 3 upper, 4 spring, 5 motor.
"""

from ..jit import helper

from ..mathx import neg
from ..primitives.limit import limit
from ..primitives.motor import motor
from ..primitives.line import line_rows
from ..primitives.spring import linear_spring
from .layout import (HAS_LOWER, HAS_MOTOR, HAS_SPRING, HAS_UPPER, LOWER, MOTOR_MAX, MOTOR_SPEED,
                     SPRING_DAMPING, SPRING_HZ, SPRING_STIFFNESS, UPPER)


@helper
def travel_rows(r0, j, flags, jf, a, b, axis, sa, rb, d, S, R_b, R_j, R_d, R_p, R_k, B_s, B_inv,
                B_I):
    """Rows r0 lower, r0 + 1 upper, r0 + 2 spring on the displacement d along `axis`."""
    if flags & HAS_LOWER:
        limit(r0, a, b, axis, sa, rb, d - jf[j, LOWER], S, R_b, R_j, R_d, R_p, R_k, B_s, B_inv,
              B_I)
    if flags & HAS_UPPER:
        limit(r0 + 1, a, b, neg(axis), sa, rb, jf[j, UPPER] - d, S, R_b, R_j, R_d, R_p, R_k, B_s,
              B_inv, B_I)
    if flags & HAS_SPRING:   # held over the line's two plane rows, r0 - 2 and r0 - 1
        linear_spring(r0 + 2, a, b, axis, sa, rb, d, jf[j, SPRING_HZ], jf[j, SPRING_DAMPING],
                      (flags & SPRING_STIFFNESS) != 0, r0 - 2, 2, S, R_b, R_j, R_d, R_p, R_k,
                      B_s, B_inv, B_I)


@helper
def prepare_line(r0, j, flags, jf, a, b, xa, rb, pa, pb, fa, S, R_b, R_j, R_d, R_p, R_k, B_s,
                 B_inv, B_I):
    axis, sa, d = line_rows(r0, a, b, xa, rb, pa, pb, fa, S, R_b, R_j, R_d, R_p, R_k, B_s,
                            B_inv, B_I)
    travel_rows(r0 + 2, j, flags, jf, a, b, axis, sa, rb, d, S, R_b, R_j, R_d, R_p, R_k, B_s,
                B_inv, B_I)
    if flags & HAS_MOTOR:
        motor(r0 + 5, a, b, axis, sa, rb, jf[j, MOTOR_SPEED], jf[j, MOTOR_MAX], S, R_b, R_j, R_d,
              R_p, R_k, B_s, B_inv, B_I)
