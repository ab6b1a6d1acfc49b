"""Body storage layout and the integration kernels.

Structure of arrays (one row per body):
    bs[i]    state: position of the centre of mass (0:3), orientation w,x,y,z (3:7),
             linear velocity (7:10), angular velocity (10:13)
    binv[i]  inverse mass (0 for static and kinematic bodies)
    bil[i]   inverse inertia tensor in the body frame, row-major 3x3
    bib[i]   inertia tensor in the body frame
    bI[i]    inverse inertia in the world frame, refreshed every substep
    bdamp[i] linear and angular damping rates (1/s)
    bkind[i] DYNAMIC, STATIC or KINEMATIC
"""

from numba import njit

from .mathx import (add, mat_at, mat_vec, qintegrate, quat_at, rotate_tensor, scale, store3,
                    store4, vec3_at)

DYNAMIC, STATIC, KINEMATIC = 0, 1, 2
KIND_NAMES = {"dynamic": DYNAMIC, "static": STATIC, "kinematic": KINEMATIC}
STATE_WIDTH = 13


@njit(cache=True)
def update_world_inertia(bs, bil, bkind, bI):
    for i in range(bs.shape[0]):
        if bkind[i] != DYNAMIC:
            continue
        m = rotate_tensor(quat_at(bs, i, 3), mat_at(bil, i, 0))
        for k in range(9):
            bI[i, k] = m[k]


@njit(cache=True)
def integrate_velocities(bs, binv, bdamp, bkind, gravity, h):
    """v += g h, then implicit damping v /= 1 + c h (stable for any rate)."""
    for i in range(bs.shape[0]):
        if bkind[i] != DYNAMIC or binv[i] == 0.0:
            continue
        lin = 1.0 / (1.0 + h * bdamp[i, 0])
        ang = 1.0 / (1.0 + h * bdamp[i, 1])
        for k in range(3):
            bs[i, 7 + k] = (bs[i, 7 + k] + gravity[k] * h) * lin
            bs[i, 10 + k] *= ang


@njit(cache=True)
def integrate_positions(bs, bil, bib, bkind, h):
    """Advance positions and orientations by one substep.

    Free rotation keeps the world angular momentum L = I(q) w constant, so the gyroscopic
    term is handled exactly in momentum: the orientation moves by a midpoint rule on
    w(q) = I(q)^-1 L and the new angular velocity is I(q_new)^-1 L. A tumbling body keeps
    |L| to round-off and its energy to O(h^2), and the intermediate-axis flip comes out.
    """
    for i in range(bs.shape[0]):
        kind = bkind[i]
        if kind == 1:                      # static
            continue
        x = vec3_at(bs, i, 0)
        q = quat_at(bs, i, 3)
        v = vec3_at(bs, i, 7)
        w = vec3_at(bs, i, 10)
        store3(bs, i, 0, add(x, scale(v, h)))
        if kind == DYNAMIC:
            ib = mat_at(bib, i, 0)
            il = mat_at(bil, i, 0)
            if il[0] == il[4] and il[4] == il[8] and il[1] == 0.0 and il[2] == 0.0 \
                    and il[5] == 0.0:
                store4(bs, i, 3, qintegrate(q, w, h))      # isotropic: w is constant
                continue
            L = mat_vec(rotate_tensor(q, ib), w)
            q_half = qintegrate(q, w, 0.5 * h)
            w_half = mat_vec(rotate_tensor(q_half, il), L)
            q_new = qintegrate(q, w_half, h)
            store4(bs, i, 3, q_new)
            store3(bs, i, 10, mat_vec(rotate_tensor(q_new, il), L))
        else:
            store4(bs, i, 3, qintegrate(q, w, h))
