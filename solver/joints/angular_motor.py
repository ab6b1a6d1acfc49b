"""Angular motor: drives a . (wB - wA) toward a speed with capped torque
(docs/angular-constraints.md).

Row 0 only; the axis is the frame's X axis, carried by A.
"""

from ..jit import helper

from ..mathx import qaxis
from ..primitives.hinge_motor import hinge_motor
from .layout import MOTOR_MAX, MOTOR_SPEED


@helper(inline=True)
def prepare_angular_motor(r0, j, jf, a, b, fa, S, R_b, R_j, R_d, R_p, R_k, B_s, B_inv, B_I):
    hinge_motor(r0, a, b, qaxis(fa, 0), jf[j, MOTOR_SPEED], jf[j, MOTOR_MAX], S, R_b, R_j, R_d,
                R_p, R_k, B_s, B_inv, B_I)
