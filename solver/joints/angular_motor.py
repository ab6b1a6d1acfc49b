"""Angular motor: drives a . (wB - rho wA) toward a speed with capped torque (Nape's MotorJoint,
nape-constraints.md 3.6; docs/angular-constraints.md).

    C* = a . wB - rho a . wA,   J = [0, -rho a, 0, a],   K = rho^2 a . IA^-1 a + a . IB^-1 a

a velocity-only row (no position error): bias = -speed, |lambda| <= T_max h. rho is the ratio
(1 unless given: the relative spin). Row 0 only; the axis is the frame's X axis, carried by A.
"""

from ..jit import helper

from ..mathx import qaxis, scale
from ..primitives.coupling import coupling_motor
from .layout import MOTOR_MAX, MOTOR_SPEED, RATIO


@helper(inline=True)
def prepare_angular_motor(r0, j, jf, a, b, fa, S, R_b, R_j, R_d, R_p, R_k, B_s, B_inv, B_I):
    axis = qaxis(fa, 0)
    z = (0.0, 0.0, 0.0)
    coupling_motor(r0, a, b, z, scale(axis, -jf[j, RATIO]), z, axis, jf[j, MOTOR_SPEED],
                   jf[j, MOTOR_MAX], S, R_b, R_j, R_d, R_p, R_k, B_s, B_inv, B_I)
