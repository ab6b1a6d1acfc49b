"""Wheel: a line joint along the suspension axis with a hinge's axle (Box2D's and Jolt's wheel
joints, in 3D; docs/point-constraints.md, docs/angular-constraints.md).

The chassis A carries the joint frame: X the suspension axis s, Y the axle. Steering turns
the axle about s by the angle sigma: the steered frame is fS = fA q_x(sigma), its Y the axle
a = fS Y, its Z the direction t1 = fS Z. The wheel B carries its own axle b = fB Y.

    suspension: the wheel's anchor stays on the line through A's anchor along s
                C_k = t_k . p = 0 for t_k = fA Y, fA Z (plane rows, sA = pB - xA, as line.py)
                d = s . p: travel limits lower <= d <= upper and a spring toward d = 0
    axle:       b stays parallel to a: C = s . b = 0 and C = t1 . b = 0
                (primitives/hinge_axis.py with t0 = s, t1), the wheel spins freely about a
    motor:      a . (wB - wA) -> speed with |torque| <= T_max (primitives/hinge_motor.py)

K of each row is its primitive's. Rows: 0-1 suspension line, 2 lower, 3 upper, 4 spring,
5-6 axle, 7 motor.
"""

import math

from ..jit import helper

from ..mathx import qaxis, qmul
from ..primitives.hinge_axis import hinge_axis
from ..primitives.hinge_motor import hinge_motor
from ..primitives.line import line_rows
from .layout import HAS_MOTOR, MOTOR_MAX, MOTOR_SPEED, STEERING
from .line import travel_rows


@helper
def prepare_wheel(r0, j, flags, jf, a, b, xa, rb, pa, pb, fa, fb, S, R_b, R_j, R_d, R_p, R_k, B_s,
                  B_inv, B_I):
    s, sa, d = line_rows(r0, a, b, xa, rb, pa, pb, fa, S, R_b, R_j, R_d, R_p, R_k, B_s, B_inv,
                         B_I)
    travel_rows(r0 + 2, j, flags, jf, a, b, s, sa, rb, d, S, R_b, R_j, R_d, R_p, R_k, B_s,
                B_inv, B_I)
    half = 0.5 * jf[j, STEERING]
    steered = qmul(fa, (math.cos(half), math.sin(half), 0.0, 0.0))
    hinge_axis(r0 + 5, a, b, s, qaxis(steered, 2), qaxis(fb, 1), S, R_b, R_j, R_d, R_p, R_k, B_s,
               B_inv, B_I)
    if flags & HAS_MOTOR:
        hinge_motor(r0 + 7, a, b, qaxis(steered, 1), jf[j, MOTOR_SPEED], jf[j, MOTOR_MAX], S, R_b,
                    R_j, R_d, R_p, R_k, B_s, B_inv, B_I)
