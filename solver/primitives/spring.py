"""Spring rows: a soft equality that pulls C toward 0, held by the joint's equality rows.

Used on the free coordinate of hinges (angle, J = [0, -a, 0, a]; also the hinge drive toward
a target angle), prismatics and distance joints (plane J along the axis). docs/rows.md: the
implicit spring-damper becomes a bias rate, a mass scale and an impulse scale; the row keeps
them in both solve and relax.

A spring asked for f hertz must make the rig as hung oscillate at f: its stiffness is
k = m omega^2 with m the mass that moves when C changes. For a door hung at its edge that is
the inertia about the hinge line, not about the centre of mass: the joint's point rows make
the door turn about its edge. So before its drive settings the row is `hold`-ed over the
joint's equality rows e0..e0+n-1 (n = 0: a distance spring, which has none):

    J <- J - K_se K_ee^-1 J_e,   m = 1 / (K_ss - K_se K_ee^-1 K_es)   (the Schur complement)

(docs/rows.md, "Springs as hung"). For a body hinged to the world, m = a . I_com a + M d^2,
the parallel-axis inertia about the hinge line (d: the centre of mass's distance from it);
for a slider whose rotation is locked, m is the body's mass whatever the arm. With
`stiffness` the two numbers are a stiffness and a damper (N/m, N s/m or N m/rad, N m s/rad)
instead of (hertz, damping ratio), over that same m.
"""

from ..jit import helper

from ..rows import hold, row_angular, row_axis, set_spring


@helper
def angular_spring(r, a, b, axis, c, first, second, stiffness, e0, n, S, R_b, R_j, R_d, R_p,
                   R_k, B_s, B_inv, B_I):
    row_angular(r, a, b, axis, R_b, R_j, R_d, R_p, R_k, B_s, B_inv, B_I)
    hold(r, 1, e0, n, R_b, R_j, R_d, R_p, B_inv)
    set_spring(r, c, first, second, stiffness, S[3], R_p)


@helper
def linear_spring(r, a, b, t, arm_a, arm_b, c, first, second, stiffness, e0, n, S, R_b, R_j,
                  R_d, R_p, R_k, B_s, B_inv, B_I):
    row_axis(r, a, b, t, arm_a, arm_b, R_b, R_j, R_d, R_p, R_k, B_s, B_inv, B_I)
    hold(r, 1, e0, n, R_b, R_j, R_d, R_p, B_inv)
    set_spring(r, c, first, second, stiffness, S[3], R_p)
