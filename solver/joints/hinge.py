"""Hinge: one rotation about the frame's X axis (docs/angular-constraints.md).

Rows: 0-2 anchor (ball-socket), 3-4 hinge axis, 5 lower angle, 6 upper angle, 7 motor,
8 spring toward angle 0, 9 drive toward a target angle (`World.set_drive`: a spring of its
own hertz and damping ratio whose torque about the axis is capped). The angle is the twist of
fA^-1 fB about the axis.

The spring and the drive act on the angle with the anchor and axis rows 0-4 held
(primitives/spring.py): their mass is the inertia about the hinge line, so a door hung at its
edge swings at the hertz asked, and their torque turns the door about its edge.
"""

import math

from ..jit import helper

from ..mathx import neg, qaxis, qconj, qmul, swing_twist
from ..primitives.hinge_axis import hinge_axis
from ..primitives.hinge_limit import hinge_limit
from ..primitives.hinge_motor import hinge_motor
from ..primitives.spring import angular_spring
from ..rows import clamp
from .ball_socket import point_rows
from .layout import (DRIVE_DAMPING, DRIVE_HZ, DRIVE_MAX, DRIVE_TARGET, HAS_DRIVE, HAS_LOWER,
                     HAS_MOTOR, HAS_SPRING, HAS_UPPER, LOWER, MOTOR_MAX, MOTOR_SPEED,
                     SPRING_DAMPING, SPRING_HZ, SPRING_STIFFNESS, UPPER)


@helper(inline=True)
def hinge_angle(fa, fb):
    return swing_twist(qmul(qconj(fa), fb))[1]


@helper
def angle_error(angle, target):
    """angle - target wrapped to [-pi, pi): the drive turns the short way round."""
    d = angle - target
    return d - 2.0 * math.pi * math.floor(d / (2.0 * math.pi) + 0.5)


@helper(inline=True)
def prepare_hinge(r0, j, flags, jf, a, b, ra, rb, pa, pb, fa, fb, S, R_b, R_j, R_d, R_p, R_k, B_s,
                  B_inv, B_I):
    point_rows(r0, a, b, ra, rb, pa, pb, S, R_b, R_j, R_d, R_p, R_k, B_s, B_inv, B_I)
    axis = qaxis(fa, 0)
    hinge_axis(r0 + 3, a, b, qaxis(fa, 1), qaxis(fa, 2), qaxis(fb, 0), S, R_b, R_j, R_d, R_p, R_k,
               B_s, B_inv, B_I)
    angle = hinge_angle(fa, fb)
    if flags & HAS_LOWER:
        hinge_limit(r0 + 5, a, b, axis, angle - jf[j, LOWER], S, R_b, R_j, R_d, R_p, R_k, B_s,
                    B_inv, B_I)
    if flags & HAS_UPPER:
        hinge_limit(r0 + 6, a, b, neg(axis), jf[j, UPPER] - angle, S, R_b, R_j, R_d, R_p, R_k, B_s,
                    B_inv, B_I)
    if flags & HAS_MOTOR:
        hinge_motor(r0 + 7, a, b, axis, jf[j, MOTOR_SPEED], jf[j, MOTOR_MAX], S, R_b, R_j, R_d,
                    R_p, R_k, B_s, B_inv, B_I)
    if flags & HAS_SPRING:
        angular_spring(r0 + 8, a, b, axis, angle, jf[j, SPRING_HZ], jf[j, SPRING_DAMPING],
                       (flags & SPRING_STIFFNESS) != 0, r0, 5, S, R_b, R_j, R_d, R_p, R_k, B_s,
                       B_inv, B_I)
    if flags & HAS_DRIVE:
        angular_spring(r0 + 9, a, b, axis, angle_error(angle, jf[j, DRIVE_TARGET]),
                       jf[j, DRIVE_HZ], jf[j, DRIVE_DAMPING], False, r0, 5, S, R_b, R_j, R_d,
                       R_p, R_k, B_s, B_inv, B_I)
        clamp(r0 + 9, jf[j, DRIVE_MAX] * S[3], R_p)
