"""External forces: forces, torques and impulses from scripts, and Blender's force fields.

Per body, `bforce[i]` holds the force (0:3, at the centre of mass) and torque (3:6) that
`World.apply_force` / `apply_torque` asked for; they act, constant, over every substep of the
next `World.step` and are then cleared. Force fields are rows of `fields` (layout below),
evaluated every substep at each awake dynamic body's centre of mass and velocity, and applied
as a central force, as Blender's rigid body world applies them (rigidbody.cc,
`rigidbody_update_sim_ob`: `BKE_effectors_apply` at the body's position and velocity, then
`RB_body_apply_central_force`): a field pushes a body by where its centre is, not by the area
it shows the field, and never turns it.

The formulas are Blender's (blenkernel effect.cc): `get_effector_data` (where the field
acts from, by shape), `effector_falloff` (z direction, sphere / tube / cone falloff with
power and min / max distance), `do_physical_effector` (the force of each kind, its noise and
flow). Blender's rigid bodies see a field through a point whose velocity counts per frame
(`pd_point_from_loc`: vel_to_sec = the scene's fps), so every kind's force but the flow
term is divided by the fps there and Drag and Harmonic read the velocity times the fps;
RATE holds that number (1 by default: the field as a particle sees it, forces in newtons).

Kinds: FORCE (radial, strength N at falloff 1, + pushes away), WIND (along the field's axis),
VORTEX (about the axis: point shape, Blender's "old" vortex, strength x distance; plane shape
the "new" one), TURBULENCE (gradient noise of the position, `size` its scale), DRAG (against
the velocity: `damping` x |v| + `strength` x |v|^2, each at most 2 as in Blender, whose
settings name them Quadratic Drag and Linear Drag), HARMONIC (spring to the field's origin
or, with `size`, to a sphere of that rest length, damped by `damping` x 2 sqrt(strength)).
"""

import math

import numpy as np

from .jit import helper, kernel
from .bodies import DYNAMIC, POS, ROT, SPIN, VEL
from .mathx import add, cross, dot, length, mat_at, mat_vec, normalize, quat_at, \
    rotate_tensor, scale, sub, vec3_at

FORCE, WIND, VORTEX, TURBULENCE, DRAG, HARMONIC = 1, 2, 3, 4, 5, 6
KINDS = {"force": FORCE, "wind": WIND, "vortex": VORTEX, "turbulence": TURBULENCE,
         "drag": DRAG, "harmonic": HARMONIC}
POINT, PLANE, LINE = 0, 1, 2
SHAPES = {"point": POINT, "plane": PLANE, "line": LINE}
SPHERE, TUBE, CONE = 0, 1, 2
FALLOFFS = {"sphere": SPHERE, "tube": TUBE, "cone": CONE}
BOTH, Z_POS, Z_NEG = 0, 1, 2
Z_DIRECTIONS = {"both": BOTH, "positive": Z_POS, "negative": Z_NEG}

# fields[k] columns
KIND = 0
SHAPE = 1
FALLOFF = 2
ZDIR = 3
LOC = 4            # 3: the field object's location
AXIS = 7           # 3: its unit local Z in the world
STRENGTH = 10
FLOW = 11
POWER = 12         # falloff power (distance)
USE_MIN = 13
MIN = 14
USE_MAX = 15
MAX = 16
POWER_R = 17       # radial falloff power (tube, cone)
USE_MIN_R = 18
MIN_R = 19
USE_MAX_R = 20
MAX_R = 21
DAMPING = 22       # Drag: linear drag; Harmonic: damping
SIZE = 23          # Turbulence: noise size; Harmonic: rest length
NOISE = 24
SEED = 25
RATE = 26          # Blender's vel_to_sec (see above)
WEIGHT = 27        # effector weights: all x this kind's
GRAVITATION = 28   # Force: strength / distance^2
GLOBAL = 29        # Turbulence: noise of the global position
ENABLED = 30
FIELD_WIDTH = 31

FLT_EPSILON = 1.1920929e-07


# --- noise -------------------------------------------------------------------------------

@helper
def _hash(a, b, c, d):
    """A 31-bit integer hash of four integers (splitmix64 finaliser on their mix)."""
    x = np.uint64(a) * np.uint64(0x9E3779B97F4A7C15)
    x ^= np.uint64(b) * np.uint64(0xC2B2AE3D27D4EB4F)
    x ^= np.uint64(c) * np.uint64(0x165667B19E3779F9)
    x ^= np.uint64(d) * np.uint64(0x27D4EB2F165667C5)
    x ^= x >> np.uint64(30)
    x *= np.uint64(0xBF58476D1CE4E5B9)
    x ^= x >> np.uint64(27)
    x *= np.uint64(0x94D049BB133111EB)
    x ^= x >> np.uint64(31)
    return np.int64(x >> np.uint64(33))


@helper
def _wind_noise(amount, seed, frame, body, draw):
    """Blender's `wind_func`: a random term of magnitude up to ~amount, of either sign, with
    Blender's distribution (an int r in 0..127 over a float in [1, 2), times amount / 128,
    the sign + when r > 64). Blender draws from one generator reseeded each frame with
    seed + frame; here each (seed, frame, body, draw) has its own draw, so the noise is the
    same whichever order bodies are stepped in."""
    r = (_hash(seed, frame, body, 2 * draw) + 1) % 128
    u = _hash(seed, frame, body, 2 * draw + 1) / 2147483648.0 + 1.0
    sign = 1.0 if r > 64 else -1.0
    return sign * (r / u) * amount / 128.0


@helper
def _fade(t):
    return t * t * t * (t * (t * 6.0 - 15.0) + 10.0)


@helper
def _grad(ix, iy, iz, x, y, z):
    """Perlin's improved-noise gradient (one of 12 cube edge directions) at a lattice point,
    chosen by a spatial hash of its coordinates (products by large primes, xor-ed: a table
    lookup, Perlin's own scheme, was six times slower here), dotted with the offset."""
    k = (ix * 73856093) ^ (iy * 19349663) ^ (iz * 83492791)
    h = (k ^ (k >> 15)) % 12
    if h < 4:
        return (x if h & 1 == 0 else -x) + (y if h & 2 == 0 else -y)
    if h < 8:
        return (x if h & 1 == 0 else -x) + (z if h & 2 == 0 else -z)
    return (y if h & 1 == 0 else -y) + (z if h & 2 == 0 else -z)


@helper
def gradient_noise(x, y, z):
    """Gradient noise in about [-1, 1], smooth, 0 on the integer lattice."""
    fx, fy, fz = math.floor(x), math.floor(y), math.floor(z)
    ix, iy, iz = int(fx), int(fy), int(fz)
    x -= fx
    y -= fy
    z -= fz
    u, v, w = _fade(x), _fade(y), _fade(z)
    n000 = _grad(ix, iy, iz, x, y, z)
    n100 = _grad(ix + 1, iy, iz, x - 1.0, y, z)
    n010 = _grad(ix, iy + 1, iz, x, y - 1.0, z)
    n110 = _grad(ix + 1, iy + 1, iz, x - 1.0, y - 1.0, z)
    n001 = _grad(ix, iy, iz + 1, x, y, z - 1.0)
    n101 = _grad(ix + 1, iy, iz + 1, x - 1.0, y, z - 1.0)
    n011 = _grad(ix, iy + 1, iz + 1, x, y - 1.0, z - 1.0)
    n111 = _grad(ix + 1, iy + 1, iz + 1, x - 1.0, y - 1.0, z - 1.0)
    a = n000 + u * (n100 - n000)
    b = n010 + u * (n110 - n010)
    c = n001 + u * (n101 - n001)
    d = n011 + u * (n111 - n011)
    e = a + v * (b - a)
    f = c + v * (d - c)
    return e + w * (f - e)


@helper
def turbulence(size, x, y, z):
    """Blender's `BLI_noise_generic_turbulence` with its Turbulence field's arguments (three
    octaves, soft): a sum of noise in [0, 1] at doubling frequencies and halving amplitudes,
    normalised back to [0, 1]. The noise is this module's gradient noise, not Blender's own
    table: the same character, not the same numbers."""
    if size != 0.0:
        x /= size
        y /= size
        z /= size
    amp = 1.0
    freq = 1.0
    total = 0.0
    for _ in range(3):
        total += amp * (0.5 + 0.5 * gradient_noise(freq * x, freq * y, freq * z))
        amp *= 0.5
        freq *= 2.0
    return total * 4.0 / 7.0


# --- one field ---------------------------------------------------------------------------

@helper
def _falloff_func(fac, use_min, mindist, use_max, maxdist, power):
    if use_max != 0.0 and fac > maxdist:
        return 0.0
    if use_min != 0.0 and fac < mindist:
        return 1.0
    if use_min == 0.0:
        mindist = 0.0
    return (1.0 + fac - mindist) ** (-power)


@helper
def field_falloff(F, k, to_point2, distance):
    """`effector_falloff`: the effector weight, cut by the z direction, times the distance
    falloff (sphere: from the field's point; tube and cone: along the axis and radially)."""
    f = F[k, WEIGHT]
    axis = vec3_at(F, k, AXIS)
    fac = dot(axis, to_point2)
    zdir = F[k, ZDIR]
    if (zdir == Z_POS and fac < 0.0) or (zdir == Z_NEG and fac > 0.0):
        return 0.0
    kind = F[k, FALLOFF]
    if kind == SPHERE:
        return f * _falloff_func(distance, F[k, USE_MIN], F[k, MIN], F[k, USE_MAX], F[k, MAX],
                                 F[k, POWER])
    f *= _falloff_func(abs(fac), F[k, USE_MIN], F[k, MIN], F[k, USE_MAX], F[k, MAX],
                       F[k, POWER])
    if f == 0.0:
        return 0.0
    if kind == TUBE:
        r = length(sub(to_point2, scale(axis, fac)))
    else:
        d = length(to_point2)
        c = min(1.0, max(-1.0, fac / d)) if d > 0.0 else 1.0
        r = math.degrees(math.acos(c))
    return f * _falloff_func(r, F[k, USE_MIN_R], F[k, MIN_R], F[k, USE_MAX_R], F[k, MAX_R],
                             F[k, POWER_R])


@helper
def field_force(F, k, p, v, body, frame):
    """The force field k puts on a body whose centre is at p, moving at v (`get_effector_data`,
    `effector_falloff`, `do_physical_effector`)."""
    kind = F[k, KIND]
    origin = vec3_at(F, k, LOC)
    axis = vec3_at(F, k, AXIS)
    shape = F[k, SHAPE]
    to_point2 = sub(p, origin)
    if shape == PLANE or shape == LINE:
        along = scale(axis, dot(to_point2, axis))
        if kind == VORTEX or shape == LINE:
            to_point = sub(to_point2, along)       # from the nearest point of the axis
        else:
            to_point = along                       # from the nearest point of the XY plane
    else:
        to_point = to_point2
    distance = length(to_point)
    if kind == HARMONIC and F[k, SIZE] != 0.0 and distance > 0.0:
        to_point = scale(to_point, (distance - F[k, SIZE]) / distance)
    falloff = field_falloff(F, k, to_point2, distance)
    if falloff <= 0.0:
        return (0.0, 0.0, 0.0)
    strength = F[k, STRENGTH]
    damp = F[k, DAMPING]
    rate = F[k, RATE]
    noise = F[k, NOISE]
    if noise > 0.0:
        seed = int(F[k, SEED])
        strength += _wind_noise(noise, seed, frame, body, 0)
        if kind == HARMONIC or kind == DRAG:
            damp += _wind_noise(noise, seed, frame, body, 1)
    force = (0.0, 0.0, 0.0)
    if kind == WIND:
        force = scale(axis, strength * falloff)
    elif kind == FORCE:
        if F[k, GRAVITATION] != 0.0:
            strength = 0.0 if distance < FLT_EPSILON else strength / (distance * distance)
        force = scale(normalize(to_point), strength * falloff)
    elif kind == VORTEX:
        if shape == POINT:
            force = scale(normalize(cross(axis, to_point)), strength * distance * falloff)
        else:
            temp = scale(cross(axis, to_point2), strength * falloff)
            force = scale(cross(axis, temp), strength * falloff)
            force = add(force, sub(temp, scale(v, rate)))
    elif kind == TURBULENCE:
        c = p if F[k, GLOBAL] != 0.0 else add(to_point2, axis)
        size = F[k, SIZE]
        force = (-1.0 + 2.0 * turbulence(size, c[0], c[1], c[2]),
                 -1.0 + 2.0 * turbulence(size, c[1], c[2], c[0]),
                 -1.0 + 2.0 * turbulence(size, c[2], c[0], c[1]))
        force = scale(force, strength * falloff)
    elif kind == DRAG:
        speed = length(v)
        fac = speed * rate
        s = min(strength, 2.0)
        d = min(damp, 2.0)
        force = scale(normalize(v), -falloff * fac * (s * fac + d))
    elif kind == HARMONIC:
        force = scale(to_point, -strength * falloff)
        force = sub(force, scale(v, damp * 2.0 * math.sqrt(abs(strength)) * rate))
    total = scale(force, 1.0 / rate)
    if kind != HARMONIC and kind != DRAG and F[k, FLOW] != 0.0:
        total = sub(total, scale(v, F[k, FLOW] * falloff))
    return total


@helper
def fields_force(F, p, v, body, frame):
    total = (0.0, 0.0, 0.0)
    for k in range(F.shape[0]):
        if F[k, ENABLED] != 0.0:
            total = add(total, field_force(F, k, p, v, body, frame))
    return total


# --- the step's stage and a query ----------------------------------------------------------

@helper(outline=True)
def apply_external(ids, bs, binv, bil, bkind, E, h):
    """One substep of the external forces: v += (applied force + fields' force) h / m and
    w += I^-1 (applied torque) h, for each awake dynamic body of `ids`.
    E = (bforce (n, 6), fields (k, FIELD_WIDTH), frame): `frame` numbers the field noise's
    draws (World counts its steps)."""
    bforce, F, frame = E
    for i in ids:
        if bkind[i] != DYNAMIC or binv[i] == 0.0:
            continue
        f = (bforce[i, 0], bforce[i, 1], bforce[i, 2])
        if F.shape[0] > 0:
            f = add(f, fields_force(F, vec3_at(bs, i, POS), vec3_at(bs, i, VEL), i, frame))
        dv = binv[i] * h
        for c in range(3):
            bs[i, VEL + c] += f[c] * dv
        t = (bforce[i, 3], bforce[i, 4], bforce[i, 5])
        if t[0] != 0.0 or t[1] != 0.0 or t[2] != 0.0:
            dw = mat_vec(rotate_tensor(quat_at(bs, i, ROT), mat_at(bil, i, 0)), t)
            for c in range(3):
                bs[i, SPIN + c] += dw[c] * h


@kernel
def field_forces_at(F, points, velocities, bodies, frame, out):
    """The fields' summed force at each point moving at its velocity (as body bodies[j])."""
    for j in range(points.shape[0]):
        f = fields_force(F, vec3_at(points, j, 0), vec3_at(velocities, j, 0), bodies[j], frame)
        for c in range(3):
            out[j, c] = f[c]
