"""Body storage layout and the integration kernels.

Structure of arrays (one row per body):
    bs[i]    state: position of the centre of mass (POS: 3 columns from there),
             orientation w,x,y,z (ROT: 4), linear velocity (VEL: 3), angular velocity
             (SPIN: 3); read and write them as vec3_at(bs, i, VEL), bs[i, SPIN + k]
    binv[i]  inverse mass (0 for static and kinematic bodies)
    bil[i]   inverse inertia tensor in the body frame, row-major 3x3
    bib[i]   inertia tensor in the body frame
    bI[i]    inverse inertia in the world frame, refreshed every substep
    bdamp[i] linear and angular damping rates (1/s)
    bkind[i] DYNAMIC, STATIC or KINEMATIC; the step sees ASLEEP for a dynamic body whose
             island sleeps (sleep.py): fixed in place, outside every solve, its user kind
             kept by the World

The step's stages take `ids`, the bodies they work on (one batch of islands, step.py): a
batch's bodies are written by its own thread only.
"""

import math

import numpy as np

from .jit import helper, kernel

from .mathx import (add, mat_at, mat_vec, qintegrate, quat_at, rotate_tensor, scale, store3,
                    store4, vec3_at)

DYNAMIC, STATIC, KINEMATIC, ASLEEP = 0, 1, 2, 3
KIND_NAMES = {"dynamic": DYNAMIC, "static": STATIC, "kinematic": KINEMATIC}
POS, ROT, VEL, SPIN = 0, 3, 7, 10     # bs columns (see above)
STATE_WIDTH = 13


@helper
def moving_kinematic(i, bs, bkind, khas):
    """A kinematic body that moves this frame: it has a target or a velocity."""
    if bkind[i] != KINEMATIC:
        return False
    if khas[i]:
        return True
    for k in range(7, 13):
        if bs[i, k] != 0.0:
            return True
    return False


@kernel
def state_fault(bs, min_norm2):
    """0 when every body's state is finite and its orientation at least sqrt(min_norm2)
    long, 1 at the first non-finite number, 2 at the first short orientation (one pass,
    for World's check before each step; the message is built in Python)."""
    for i in range(bs.shape[0]):
        for k in range(bs.shape[1]):
            if not math.isfinite(bs[i, k]):
                return 1
        q2 = 0.0
        for k in range(4):
            q2 += bs[i, ROT + k] * bs[i, ROT + k]
        if q2 < min_norm2:
            return 2
    return 0


@kernel
def update_world_inertia(bs, bil, bkind, bI):
    world_inertia(np.arange(bs.shape[0]), bs, bil, bkind, bI)


@helper(outline=True)
def world_inertia(ids, bs, bil, bkind, bI):
    for i in ids:
        if bkind[i] != DYNAMIC:
            continue
        m = rotate_tensor(quat_at(bs, i, ROT), mat_at(bil, i, 0))
        for k in range(9):
            bI[i, k] = m[k]


@helper(outline=True)
def integrate_velocities(ids, bs, binv, bdamp, bkind, gravity, h):
    """v += g h, then implicit damping v /= 1 + c h (stable for any rate)."""
    for i in ids:
        if bkind[i] != DYNAMIC or binv[i] == 0.0:
            continue
        lin = 1.0 / (1.0 + h * bdamp[i, 0])
        ang = 1.0 / (1.0 + h * bdamp[i, 1])
        for k in range(3):
            bs[i, VEL + k] = (bs[i, VEL + k] + gravity[k] * h) * lin
            bs[i, SPIN + k] *= ang


@helper(outline=True)
def integrate_positions(ids, bs, bil, bib, bkind, h):
    """Advance positions and orientations by one substep.

    Free rotation keeps the world angular momentum L = I(q) w constant, so the gyroscopic
    term is handled exactly in momentum: the orientation moves by a midpoint rule on
    w(q) = I(q)^-1 L and the new angular velocity is I(q_new)^-1 L. A tumbling body keeps
    |L| to round-off and its energy to O(h^2), and the intermediate-axis flip comes out.
    """
    for i in ids:
        kind = bkind[i]
        if kind == STATIC or kind == ASLEEP:
            continue
        x = vec3_at(bs, i, POS)
        q = quat_at(bs, i, ROT)
        v = vec3_at(bs, i, VEL)
        w = vec3_at(bs, i, SPIN)
        store3(bs, i, POS, add(x, scale(v, h)))
        if kind == DYNAMIC:
            ib = mat_at(bib, i, 0)
            il = mat_at(bil, i, 0)
            if il[0] == il[4] and il[4] == il[8] and il[1] == 0.0 and il[2] == 0.0 \
                    and il[5] == 0.0:
                store4(bs, i, ROT, qintegrate(q, w, h))      # isotropic: w is constant
                continue
            L = mat_vec(rotate_tensor(q, ib), w)
            q_half = qintegrate(q, w, 0.5 * h)
            w_half = mat_vec(rotate_tensor(q_half, il), L)
            q_new = qintegrate(q, w_half, h)
            store4(bs, i, ROT, q_new)
            store3(bs, i, SPIN, mat_vec(rotate_tensor(q_new, il), L))
        else:
            store4(bs, i, ROT, qintegrate(q, w, h))


@helper(outline=True)
def stiffen_world_inertia(ids, bs, bib, bkind, kg, h, bI):
    """Add the rotational geometric stiffness kg (N m / rad) to the inertia the constraint
    solve sees: I_solve = R I R^T + h^2 kg E (Andrews, Teichmann, Kry 2017, "Geometric
    stiffness for real-time constrained multibody dynamics", diagonal approximation).

    A light link between heavily loaded joints has transverse modes of frequency
    sqrt(load / (mass length)); once that passes the substep rate the linearised velocity
    constraints feed energy into them and the chain explodes. The term makes such a link
    rotationally heavier in the implicit solve only (integration uses the true inertia),
    which damps those modes and leaves slow motion alone.

    h is the substep of the world's count (World.substeps) for an island stepped at fewer
    (`jointed_substeps`; step.py passes min(island's, world's)), the island's own in a frame
    it started calm (`calm_substeps`, where the world's left a lying metarig turning): the term is
    a metric the constraint solve projects in, not the true one, so while it stays near the
    body's own inertia the solve's velocities keep the true kinetic energy; on an impact's
    loads, at twice the substep, it grew to several times a light body's inertia, and a
    metarig landing in a crouch at 24 fps and 4 substeps was thrown up 12 cm (the landing
    frame's impulse on its 1 kg feet 280 N s where stopping the body took 200; KE + PE up
    from 541 to 682 J in one frame; docs/decisions/jointed-substeps.md).
    """
    for i in ids:
        if bkind[i] != DYNAMIC or kg[i] <= 0.0:
            continue
        m = rotate_tensor(quat_at(bs, i, ROT), mat_at(bib, i, 0))
        extra = h * h * kg[i]
        a = m[0] + extra
        b = m[1]
        c = m[2]
        d = m[3]
        e = m[4] + extra
        f = m[5]
        g = m[6]
        k = m[7]
        l = m[8] + extra
        det = a * (e * l - f * k) - b * (d * l - f * g) + c * (d * k - e * g)
        inv = 1.0 / det
        bI[i, 0] = (e * l - f * k) * inv
        bI[i, 1] = (c * k - b * l) * inv
        bI[i, 2] = (b * f - c * e) * inv
        bI[i, 3] = (f * g - d * l) * inv
        bI[i, 4] = (a * l - c * g) * inv
        bI[i, 5] = (c * d - a * f) * inv
        bI[i, 6] = (d * k - e * g) * inv
        bI[i, 7] = (b * g - a * k) * inv
        bI[i, 8] = (a * e - b * d) * inv
