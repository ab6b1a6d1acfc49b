"""Contacts: manifolds, their warm-start matching, and the contact patch rows.

Per frame (`ContactState.collide`): broadphase pairs of colliders (collision/colliders.py: a
body, or a compound body's part) -> filter (kind, group/mask, joints)
(`contact_pairs`) -> narrowphase, its pairs shared out among the world's threads
(`narrow_pairs`) -> manifolds with anchors stored in both bodies' frames -> match last
frame's manifolds for warm starting (docs/rows.md, Warm starting): by feature id (full impulse),
then by anchor distance, then the leftover old impulse spread over the still unmatched new
points. Fresh points (given the spread, or matched to an old point farther than NEAR_MATCH)
are clamped by their depth (shallow-contact clamp, so a fresh, barely touching point does not
inherit a deep point's push); a point matched within NEAR_MATCH is the old point under a new
feature id (a box resting half on another re-clips its patch every frame and the clipped
points' ids change) and keeps its whole impulse: clamping those starved the half-overlapping
patches of a pyramid every frame, and the boxes rocked and walked. Patch friction
impulses carry over per manifold. Pairs of sleeping bodies (with each other, the static world
or a still kinematic body) skip the narrowphase: their manifolds are parked, copied unchanged
after the narrowphase's, and left out of the solve until their island wakes (sleep.py).
A pair whose bodies have barely moved relative to each other since the narrowphase last
found its points (KEEP_SHIFT, KEEP_TURN; Jolt's body pair cache) skips the narrowphase too:
its manifold is last frame's, its material anchors measured at the new poses
(`_keep_manifold`); two round bodies always go through it. A resting pile so skips most of
its narrowphase.

Per frame `prepare_contacts` fills the rows' Jacobians; per substep `update_contacts`
(biases), `warm_start_contacts`, `solve_contacts`: one normal row per point (Contact; a face's
points in one of four orders, turn by turn), then per manifold two tangent rows at the patch
centroid, a twist row about the normal and an optional rolling row (Friction (Patch)), clamped
by the summed normal impulse refreshed every iteration. Normal rows use Box2D v3's soft
contact: with separation s from the anchors' current world positions, s > 0 is speculative
(bias = s / h, rigid, kept in the relax pass); s <= 0 pushes out softly (bias = max(rate s,
-max push), mass and impulse scale from the contact hertz and damping; the hertz is capped at
a fraction of the substep rate, `contact_hertz_limit`). After the substeps, restitution and
the impulses stay in `acc` for the next frame.

Material mixing: friction sqrt(mu_a mu_b), restitution max(e_a, e_b), rolling friction
(a lever arm in metres: rolling torque <= mu_roll * normal force) sqrt(r_a r_b).

Layout, one row per manifold:
    mi[m]   body A, body B, point count, feature ids of points 0..3, collider A, collider B
            (the pair a manifold is warm started by: a compound's parts each keep theirs)
    mf[m]   normal (0:3), friction, restitution, rolling, patch radius, rolling axis (7:10),
            per point k at 10 + 8k: anchor in A's frame (3), in B's frame (3), separation at
            collide time, normal velocity before the first impulse (for restitution);
            max normal impulse of point k at 42 + k; rounding radii (46, 47); arms (48:72);
            whether A or B is round (72); B's pose in A's frame and the normal in A's or
            B's frame when the points were found (73:84); normal impulse of point k over
            the whole frame (every substep's and restitution's) at 84 + k; the pair's
            margin without the pivot term when the points were found (88)
    acc[8m + k]  normal impulse of point k; 8m + 4..7: tangent 1, tangent 2, twist, rolling
"""

import math

import numpy as np
from .jit import helper, kernel
from .sorting import pair_order, search_sorted

from .bodies import ASLEEP, DYNAMIC, POS, ROT, SPIN, VEL, moving_kinematic
from .collision.broadphase import compute_aabbs, sweep_and_prune
from .collision.colliders import collider_states
from .collision.manifold import MAX_CANDIDATES, PT_WIDTH, patch_area, reduce_points
from .collision.narrowphase import collide_convex
from .mathx import (add, cross, dot, length, perpendicular, qconj, qmul, qrotate, quat_at,
                    scale, sub, vec3_at)
from .rows import (ACTIVE, BIAS, EFF, HI, IMPULSE_SCALE, LO, MASS_SCALE, TARGET,
                   apply_impulse, new_rows, pair_apply, pair_row_solve, pair_velocities,
                   row_angular, row_axis, row_velocity, soft_coefficients,
                   store_pair_velocities)
from .shapes import CAPSULE, CYLINDER, HULL, PLANE, SPHERE
from .sleep import wake_touched
from .vectors import qmat

MI_WIDTH = 9
COLLIDERS = 7      # mi columns 7, 8: collider A, collider B
MF_WIDTH = 89
ARMS = 48          # per point k at 48 + 6k: world arms from A's and B's centre at collide time
RADII = 46         # rounding radius of A and B (sphere, capsule): anchors are core points
ROLLS = 72         # 1 when A or B is round (sphere, capsule, cylinder): its patch can roll
POSE = 73          # B's pose in A's frame when the narrowphase found the points: position
                   # (73:76), rotation (76:80); the normal in the frame of A (83 = 0) or of
                   # B (83 = 1: A is round and B is not), 80:83
ROWS_PER_MANIFOLD = 8
P0 = 10            # first point column in mf
MAXIMP = 42
TOTAL = 84         # per point k at 84 + k: the frame's normal impulse (`add_substep_impulses`)
OWN_MARGIN = 88    # the pair's margin without the pivot term (`_pair_margin`) when its points
                   # were found: a point farther apart is the pivot's (`_friction_weight`)

LINEAR_SLOP = 0.005
SPECULATIVE_DISTANCE = 4.0 * LINEAR_SLOP
SPECULATIVE_CAP = 100.0         # m: the most a body's own motion in a frame widens its
                                # margin (6000 m/s at 60 Hz): a 1 cm ball at 200 m/s meets a
                                # 1 cm wall it would cross within the frame
MATCH_DISTANCE = 0.05           # m: distance fallback for warm-start matching
NEAR_MATCH = LINEAR_SLOP        # m: matched this close, a point is the old one (no clamp)
MIN_PAIRS_PER_THREAD = 64       # fewer pairs a thread: the narrowphase stays on one
RELAX_TOLERANCE = 1e-3          # m/s: a relax sweep that changed a manifold's rows by more
RELAX_EXTRA = 2                 # sweeps the relax pass adds over such manifolds
KEEP_SHIFT = 1e-3               # m: a pair whose bodies moved less than this relative to
KEEP_TURN = math.radians(1.0)   # each other and turned less than this since its points were
                                # found keeps them (`_keep_manifold`)
_KEEP_COS = math.cos(0.5 * KEEP_TURN)


# --- collide ------------------------------------------------------------------------------

@helper
def _looked_at(a, b, bkind, moving):
    """Whether the narrowphase sees the pair: one body awake and dynamic, or a moving
    kinematic body against a sleeping one (which the contact will wake)."""
    if bkind[a] == DYNAMIC or bkind[b] == DYNAMIC:
        return True
    return (bkind[a] == ASLEEP and moving[b]) or (bkind[b] == ASLEEP and moving[a])


@helper
def _allowed(a, b, bkind, moving, bfilter, excl, n):
    if not _looked_at(a, b, bkind, moving):
        return False
    if not ((bfilter[a, 0] & bfilter[b, 1]) and (bfilter[b, 0] & bfilter[a, 1])):
        return False
    if excl.shape[0] > 0:
        key = min(a, b) * n + max(a, b)
        i = search_sorted(excl, key)
        if i < excl.shape[0] and excl[i] == key:
            return False
    return True


@helper
def _to_local(bs, i, p):
    return qrotate(qconj(quat_at(bs, i, ROT)), sub(p, vec3_at(bs, i, POS)))


@helper
def _world_anchor(bs, i, local):
    q = quat_at(bs, i, ROT)
    r = qrotate(q, local)
    return add(vec3_at(bs, i, POS), r), r


@helper
def _rounding(kind, p):
    return p[0] if kind == SPHERE or kind == CAPSULE else 0.0


@helper
def _round(kind):
    return kind == SPHERE or kind == CAPSULE or kind == CYLINDER


@helper
def _surface_points(bs, a, b, mf, m, k, n):
    c = P0 + 8 * k
    pa, _ = _world_anchor(bs, a, (mf[m, c], mf[m, c + 1], mf[m, c + 2]))
    pb, _ = _world_anchor(bs, b, (mf[m, c + 3], mf[m, c + 4], mf[m, c + 5]))
    return add(pa, scale(n, mf[m, RADII])), sub(pb, scale(n, mf[m, RADII + 1]))


@helper
def point_velocity(bs, i, r):
    """Velocity of body i's point at arm r from its centre: v + w x r."""
    w = vec3_at(bs, i, SPIN)
    c = cross(w, r)
    return add(vec3_at(bs, i, VEL), c)


@helper
def _write_manifold(m, a, b, count, n, pts, bs, bmat, rad_a, rad_b, rolls, mi, mf):
    mi[m, 0] = a
    mi[m, 1] = b
    mi[m, 2] = count
    for k in range(3):
        mf[m, k] = n[k]
    mf[m, 3] = math.sqrt(bmat[a, 0] * bmat[b, 0])
    mf[m, 4] = max(bmat[a, 1], bmat[b, 1])
    mf[m, 5] = math.sqrt(bmat[a, 2] * bmat[b, 2])
    t1 = perpendicular(n)
    t2 = cross(n, t1)
    area = patch_area(pts, count, n, t1, t2)
    mf[m, 6] = 2.0 / 3.0 * math.sqrt(area / math.pi)
    for k in range(7, MF_WIDTH):
        mf[m, k] = 0.0
    for k in range(4):
        mi[m, 3 + k] = -1
    mf[m, RADII] = rad_a
    mf[m, RADII + 1] = rad_b
    mf[m, ROLLS] = 1.0 if rolls else 0.0
    for k in range(count):
        # a round shape's anchor is its core point (sphere centre, capsule axis point), so
        # rolling does not carry the anchor off the contact
        la = _to_local(bs, a, (pts[k, 0] - n[0] * rad_a, pts[k, 1] - n[1] * rad_a,
                               pts[k, 2] - n[2] * rad_a))
        lb = _to_local(bs, b, (pts[k, 3] + n[0] * rad_b, pts[k, 4] + n[1] * rad_b,
                               pts[k, 5] + n[2] * rad_b))
        c = P0 + 8 * k
        for j in range(3):
            mf[m, c + j] = la[j]
            mf[m, c + 3 + j] = lb[j]
        mf[m, c + 6] = pts[k, 7]
        mi[m, 3 + k] = int(pts[k, 6])
        # Jacobian arms stay fixed for the frame (Box2D v3): recomputing them from the moving
        # anchors would let a rolling or sliding body's contact point drift off the patch
        for j in range(3):
            p = 0.5 * (pts[k, j] + pts[k, 3 + j])
            mf[m, ARMS + 6 * k + j] = p - bs[a, j]
            mf[m, ARMS + 6 * k + 3 + j] = p - bs[b, j]


@helper
def _match(m, o, mi, mf, acc, old_mi, old_mf, old_acc, unit):
    """Warm-start manifold m from last frame's manifold o of the same pair (`unit`: length
    units per metre, which the distances in metres scale by)."""
    cnt = mi[m, 2]
    ocnt = old_mi[o, 2]
    r0 = m * ROWS_PER_MANIFOLD
    o0 = o * ROWS_PER_MANIFOLD
    for k in range(4, ROWS_PER_MANIFOLD):
        acc[r0 + k] = old_acc[o0 + k]
    for k in range(7, 10):
        mf[m, k] = old_mf[o, k]
    # bit j of `used`: old point j matched; bits 2k, 2k+1 of `how`: how point k matched, 0
    # unmatched, 1 by id, 2 near by distance, 3 far (bit fields, not arrays: no allocation
    # a manifold)
    used = 0
    how = 0
    for k in range(cnt):
        for j in range(ocnt):
            if not used >> j & 1 and mi[m, 3 + k] == old_mi[o, 3 + j]:
                acc[r0 + k] = old_acc[o0 + j]
                used |= 1 << j
                how |= 1 << 2 * k
                break
    for k in range(cnt):
        if how >> 2 * k & 3 != 0:
            continue
        best = -1
        bd = (MATCH_DISTANCE * unit) ** 2
        c = P0 + 8 * k
        for j in range(ocnt):
            if used >> j & 1:
                continue
            oc = P0 + 8 * j
            d = 0.0
            for x in range(3):
                d += (mf[m, c + x] - old_mf[o, oc + x]) ** 2
            if d < bd:
                bd = d
                best = j
        if best >= 0:
            acc[r0 + k] = old_acc[o0 + best]
            used |= 1 << best
            how |= (2 if bd <= (NEAR_MATCH * unit) ** 2 else 3) << 2 * k
    left = 0.0
    for j in range(ocnt):
        if not used >> j & 1:
            left += old_acc[o0 + j]
    unmatched = 0
    for k in range(cnt):
        if how >> 2 * k & 3 == 0:
            unmatched += 1
    for k in range(cnt):
        way = how >> 2 * k & 3
        if way == 0:
            acc[r0 + k] = left / unmatched
        if way == 0 or way == 3:           # shallow-contact clamp for fresh points
            pen = -mf[m, P0 + 8 * k + 6]
            acc[r0 + k] *= min(1.0, pen / (2.0 * LINEAR_SLOP * unit)) if pen > 0.0 else 0.0


@helper
def contact_pairs(bs, cs, cbody, skind, sparam, bkind, khas, bfilter, excl, dt, cap):
    """This frame's candidate pairs of colliders for `narrow_pairs`, each (a, b) with A's
    shape kind at most B's, in the order their manifolds are written; each collider's
    speculative extension (its motion over dt, at most `cap`); and which kinematic bodies
    move. cs, cbody, skind and sparam are the colliders' (collision/colliders.py); two parts
    of one body never pair.

    Pairs where neither body is awake and dynamic skip the narrowphase (a moving kinematic
    body against a sleeping one excepted, to wake it): a sleeping body keeps last frame's
    manifolds with a static, still kinematic or sleeping partner (`park_sleeping`). `cap`
    is in the world's length unit (`ContactState.speculative_cap` metres times the unit)."""
    n = bs.shape[0]
    moving = np.zeros(n, dtype=np.bool_)
    active = 0
    for i in range(n):
        moving[i] = moving_kinematic(i, bs, bkind, khas)
        if moving[i] or bkind[i] == DYNAMIC:
            active += 1
    nc = cs.shape[0]
    aabb = np.empty((nc, 6))
    ext = np.empty(nc)
    if active > 0:             # else the whole world sleeps: no pair needs the narrowphase
        compute_aabbs(cs, skind, sparam, dt, cap, aabb, ext)
        pairs = sweep_and_prune(aabb, skind)
    else:
        pairs = np.empty((0, 2), dtype=np.int64)
    # planes meet every bounded collider
    nplanes = 0
    for i in range(nc):
        if skind[i] == PLANE and active > 0:
            nplanes += 1
    if nplanes > 0:
        extra = np.empty((nplanes * nc, 2), dtype=np.int64)
        c = 0
        for p in range(nc):
            if skind[p] != PLANE:
                continue
            for i in range(nc):
                if skind[i] != PLANE:
                    extra[c, 0] = min(i, p)
                    extra[c, 1] = max(i, p)
                    c += 1
        allp = np.concatenate((pairs, extra[:c]))
        pairs = allp[pair_order(allp)]
    out = np.empty((pairs.shape[0], 2), dtype=np.int64)
    count = 0
    for s in range(pairs.shape[0]):
        a = pairs[s, 0]
        b = pairs[s, 1]
        if cbody[a] == cbody[b] or not _allowed(cbody[a], cbody[b], bkind, moving, bfilter,
                                                excl, n):
            continue
        if skind[b] < skind[a]:
            t = a
            a = b
            b = t
        out[count, 0] = a
        out[count, 1] = b
        count += 1
    return out[:count], ext, moving


@helper
def old_pair_keys(old_mi, n):
    """Last frame's manifolds' collider pair keys (n colliders), sorted, and their manifolds
    in that order (parked manifolds come unsorted), for `narrow_pairs` to find a pair's old
    manifold."""
    old_n = old_mi.shape[0]
    old_pair = np.empty((old_n, 2), dtype=np.int64)
    c = COLLIDERS
    for o in range(old_n):
        old_pair[o, 0] = min(old_mi[o, c], old_mi[o, c + 1])
        old_pair[o, 1] = max(old_mi[o, c], old_mi[o, c + 1])
    old_order = pair_order(old_pair)
    old_key = np.empty(old_n, dtype=np.int64)
    for o in range(old_n):
        old_key[o] = old_pair[old_order[o], 0] * n + old_pair[old_order[o], 1]
    return old_key, old_order


@helper
def _relative_pose(bs, a, b):
    """B's position and rotation in A's frame."""
    qa = quat_at(bs, a, ROT)
    p = qrotate(qconj(qa), sub(vec3_at(bs, b, POS), vec3_at(bs, a, POS)))
    return p, qmul(qconj(qa), quat_at(bs, b, ROT))


@helper
def _record_pose(bs, a, b, nrm, on_b, mf, m):
    """Remember where B stood in A's frame when the narrowphase found manifold m's points,
    and the normal in the frame of the body whose surface sets it: B's when A is round and
    B is not (a ball rolling on a box: fixed in the ball, the normal would roll with it)."""
    p, q = _relative_pose(bs, a, b)
    nl = qrotate(qconj(quat_at(bs, b if on_b else a, ROT)), nrm)
    mf[m, POSE + 10] = 1.0 if on_b else 0.0
    for k in range(3):
        mf[m, POSE + k] = p[k]
        mf[m, POSE + 7 + k] = nl[k]
    for k in range(4):
        mf[m, POSE + 3 + k] = q[k]


@helper
def _pose_kept(bs, a, b, old_mf, o, unit):
    """Whether B has moved less than KEEP_SHIFT and turned less than KEEP_TURN in A's frame
    since the narrowphase found manifold o's points."""
    p, q = _relative_pose(bs, a, b)
    d2 = 0.0
    for k in range(3):
        d2 += (p[k] - old_mf[o, POSE + k]) ** 2
    c = abs(q[0] * old_mf[o, POSE + 3] + q[1] * old_mf[o, POSE + 4] +
            q[2] * old_mf[o, POSE + 5] + q[3] * old_mf[o, POSE + 6])
    return d2 <= (KEEP_SHIFT * unit) ** 2 and c >= _KEEP_COS


@helper
def _keep_manifold(m, o, bs, bmat, mi, mf, acc, old_mi, old_mf, old_acc):
    """Manifold m is last frame's manifold o, its pair barely moved (`_pose_kept`; Jolt's
    body pair cache): the anchors are material points of both bodies, so the points follow
    them, and the normal stays fixed in the body `_record_pose` chose; the separations, the
    arms and the normal are measured at the bodies' poses now (two round bodies, whose normal
    turns as they roll on each other, always go through the narrowphase), and the impulses
    are carried whole (every point matches by its feature id).

    A sphere's or capsule's point against a body that is not round acts at A's surface
    point, under its core anchor: the contact of a round surface is always at its core
    point plus the radius along the normal, wherever the body rolled to. B's anchor, a
    point of B's surface, stays where the points were found (it sets the separation, along
    the normal, only); the impulses acting midway between the two sat half the roll behind
    the contact and turned the body further the way it rolled, until the pair was collided
    anew and the point jumped back: a ratchet that fed a capsule forearm resting its tip on
    the floor 2 mJ in 3 s (tests/solver/test_resting_arm.py)."""
    a = old_mi[o, 0]
    b = old_mi[o, 1]
    for k in range(MI_WIDTH):
        mi[m, k] = old_mi[o, k]
    for k in range(MF_WIDTH):
        mf[m, k] = old_mf[o, k]
    r0 = m * ROWS_PER_MANIFOLD
    o0 = o * ROWS_PER_MANIFOLD
    for k in range(ROWS_PER_MANIFOLD):
        acc[r0 + k] = old_acc[o0 + k]
    nrm = qrotate(quat_at(bs, b if old_mf[o, POSE + 10] != 0.0 else a, ROT),
                  (old_mf[o, POSE + 7], old_mf[o, POSE + 8], old_mf[o, POSE + 9]))
    for k in range(3):
        mf[m, k] = nrm[k]
    mf[m, 3] = math.sqrt(bmat[a, 0] * bmat[b, 0])
    mf[m, 4] = max(bmat[a, 1], bmat[b, 1])
    mf[m, 5] = math.sqrt(bmat[a, 2] * bmat[b, 2])
    under_a = mf[m, RADII] > 0.0 and mf[m, RADII + 1] == 0.0
    for k in range(mi[m, 2]):
        pa, pb = _surface_points(bs, a, b, mf, m, k, nrm)
        c = P0 + 8 * k
        mf[m, c + 6] = dot(sub(pb, pa), nrm)
        mf[m, c + 7] = 0.0
        mf[m, MAXIMP + k] = 0.0
        mid = pa if under_a else scale(add(pa, pb), 0.5)
        for j in range(3):
            mf[m, ARMS + 6 * k + j] = mid[j] - bs[a, j]
            mf[m, ARMS + 6 * k + 3 + j] = mid[j] - bs[b, j]


@helper
def _pair_margin(cs, ca, cb, own, dt, cap, pivot):
    """How far apart colliders ca and cb may be for the narrowphase to give them points:
    their own margin `own` (SPECULATIVE_DISTANCE and each one's motion over the frame,
    `narrow_pairs`), and the pivot of a face that strikes at one edge. The impulse that stops the striking edge turns the body about it, which
    the frame-start spin does not foresee: a box foot landing tilted on its heel slaps
    flat within the frame, its far edge, carried about the heel by a centre that keeps
    moving, closing at up to twice the centre's speed. So the pair's relative speed counts
    once more; without it, ragdolls at 4 substeps (bench/scenes.ragdolls) landed with a
    foot's far edge 94.8 mm up, outside the margin (20 + 68 mm), and that edge, with no
    point, ended the frame 8 mm in the floor. A pair moving together (a resting pile)
    adds nothing. Only for a pair with a body whose island stepped at fewer substeps than
    the world's last frame (`pivot`; World._collide's `coarse`): at the world's count the
    slap ends within a substep of the frame's next narrowphase, and the extra points kept a
    crowd's ragdoll swinging at 8 substeps (docs/decisions/jointed-substeps.md)."""
    if not pivot:
        return own
    rel = length(sub(vec3_at(cs, ca, VEL), vec3_at(cs, cb, VEL)))
    return own + min(rel * dt, cap)


@kernel(nogil=True)
def narrow_pairs(pairs, bs, cs, cbody, skind, sparam, hverts, ext, bmat, old_key, old_order,
                 old_mi, old_mf, old_acc, mi, mf, acc, unit, dt, cap, coarse):
    """The manifolds of `pairs` of colliders (from `contact_pairs`; cs, cbody, skind and
    sparam are the colliders'), written from row 0 of mi, mf and acc (room for one a pair),
    each warm started from last frame's manifold of the same pair of colliders (`unit`:
    length units per metre); a pair's points are those within its margin
    (`_pair_margin`: dt is the frame, cap bounds a body's share in the world's unit);
    returns their count and how many pairs went through the narrowphase (the others kept
    their manifold, `_keep_manifold`). A manifold depends on its pair alone, so the world's
    threads share the pairs out in runs and the table is the same as one thread's (the GIL is
    released)."""
    n = cs.shape[0]
    old_n = old_key.shape[0]
    pts = np.empty((MAX_CANDIDATES, PT_WIDTH))
    scratch = np.empty((2, MAX_CANDIDATES, 3))
    scratch_id = np.empty((2, MAX_CANDIDATES), dtype=np.int64)
    m = 0
    fresh = 0
    for s in range(pairs.shape[0]):
        ca = pairs[s, 0]
        cb = pairs[s, 1]
        a = cbody[ca]
        b = cbody[cb]
        key = min(ca, cb) * n + max(ca, cb)
        s_old = search_sorted(old_key, key)
        o = -1
        if s_old < old_n and old_key[s_old] == key and \
                old_mi[old_order[s_old], COLLIDERS] == ca:
            o = old_order[s_old]
        round_a = _round(skind[ca])
        round_b = _round(skind[cb])
        if o >= 0 and not (round_a and round_b) and _pose_kept(bs, a, b, old_mf, o, unit):
            _keep_manifold(m, o, bs, bmat, mi, mf, acc, old_mi, old_mf, old_acc)
            m += 1
            continue
        fresh += 1
        # SPECULATIVE_DISTANCE and each collider's motion over the frame (`ext`: its speed
        # and its spin times its extent, broadphase.compute_aabbs)
        own = SPECULATIVE_DISTANCE * unit + ext[ca] + ext[cb]
        margin = _pair_margin(cs, ca, cb, own, dt, cap, coarse[a] or coarse[b])
        count, nrm = collide_convex(skind[ca], vec3_at(cs, ca, POS), quat_at(cs, ca, ROT),
                                    sparam[ca], skind[cb], vec3_at(cs, cb, POS),
                                    quat_at(cs, cb, ROT), sparam[cb], margin, pts, scratch,
                                    scratch_id, hverts, unit)
        if count <= 0:
            continue
        count = reduce_points(pts, count, nrm)
        _write_manifold(m, a, b, count, nrm, pts, bs, bmat, _rounding(skind[ca], sparam[ca]),
                        _rounding(skind[cb], sparam[cb]), round_a or round_b, mi, mf)
        mi[m, COLLIDERS] = ca
        mi[m, COLLIDERS + 1] = cb
        mf[m, OWN_MARGIN] = own
        _record_pose(bs, a, b, nrm, round_a, mf, m)
        r0 = m * ROWS_PER_MANIFOLD
        for k in range(ROWS_PER_MANIFOLD):
            acc[r0 + k] = 0.0
        if o >= 0 and dot((old_mf[o, 0], old_mf[o, 1], old_mf[o, 2]), nrm) > 0.5:   # not flipped
            _match(m, o, mi, mf, acc, old_mi, old_mf, old_acc, unit)
        m += 1
    return m, fresh


@helper
def park_sleeping(old_mi, old_mf, old_acc, bkind, moving, mi, mf, acc, m):
    """After the narrowphase's m manifolds: last frame's manifolds of sleeping pairs the
    narrowphase did not look at, carried over unchanged (their pose has not moved, and their
    impulses wait there for the warm start when they wake). Returns the new count; mi has
    room for every old manifold after m."""
    for o in range(old_mi.shape[0]):
        a = old_mi[o, 0]
        b = old_mi[o, 1]
        if (bkind[a] == ASLEEP or bkind[b] == ASLEEP) and not _looked_at(a, b, bkind, moving):
            _park(m, o, mi, mf, acc, old_mi, old_mf, old_acc)
            m += 1
    return m


@helper
def _park(m, o, mi, mf, acc, old_mi, old_mf, old_acc):
    """Carry a sleeping pair's manifold over unchanged; on waking it starts afresh for
    restitution (no approach speed recorded)."""
    for k in range(mi.shape[1]):      # loops, not row copies: see broadphase._grown
        mi[m, k] = old_mi[o, k]
    for k in range(mf.shape[1]):
        mf[m, k] = old_mf[o, k]
    for k in range(4):
        mf[m, MAXIMP + k] = 0.0
        mf[m, TOTAL + k] = 0.0
    for k in range(ROWS_PER_MANIFOLD):
        acc[m * ROWS_PER_MANIFOLD + k] = old_acc[o * ROWS_PER_MANIFOLD + k]


@kernel
def collide_begin(bs, cbody, corig, cs, skind, sparam, bkind, khas, bfilter, excl, dt, cap,
                  old_mi):
    """The collision stage before the narrowphase, in one call: the colliders posed from
    their bodies (`collider_states`), this frame's candidate pairs (`contact_pairs`) and
    last frame's manifolds' keys (`old_pair_keys`)."""
    collider_states(bs, cbody, corig, cs)
    pairs, ext, moving = contact_pairs(bs, cs, cbody, skind, sparam, bkind, khas, bfilter,
                                       excl, dt, cap)
    old_key, old_order = old_pair_keys(old_mi, cs.shape[0])
    return pairs, ext, moving, old_key, old_order


@kernel
def collide_end(old_mi, old_mf, old_acc, bkind, moving, mi, mf, acc, narrow, sleeping, bs,
                bisland, btimer, khas, mark):
    """The collision stage after the narrowphase's `narrow` manifolds, in one call: the
    sleeping pairs' manifolds parked after them (`park_sleeping`), then, when the world
    sleeps, the islands woken by a touch (sleep.wake_touched). Returns the manifold count
    and whether an island woke (its parked manifolds are then sorted to the awake ones,
    `ContactState.sort_awake`)."""
    count = park_sleeping(old_mi, old_mf, old_acc, bkind, moving, mi, mf, acc, narrow)
    woke = False
    if sleeping:
        woke = wake_touched(mi, narrow, bs, bkind, bisland, btimer, khas, mark) != 0
    return count, woke


@kernel
def awake_first(mi, mf, acc, start, n, bkind):
    """Reorder manifolds start..n (the parked ones) so those with an awake dynamic body
    come first, keeping their order; returns where the sleeping ones begin."""
    keep = np.empty(n - start, dtype=np.int64)
    rest = np.empty(n - start, dtype=np.int64)
    nk = 0
    nr = 0
    for m in range(start, n):
        if bkind[mi[m, 0]] == DYNAMIC or bkind[mi[m, 1]] == DYNAMIC:
            keep[nk] = m
            nk += 1
        else:
            rest[nr] = m
            nr += 1
    if nk == 0:
        return start
    order = np.concatenate((keep[:nk], rest[:nr]))
    w = ROWS_PER_MANIFOLD
    mi2 = mi[order].copy()
    mf2 = mf[order].copy()
    acc2 = np.empty((n - start) * w)
    for i in range(n - start):
        for k in range(w):
            acc2[i * w + k] = acc[order[i] * w + k]
    mi[start:n] = mi2
    mf[start:n] = mf2
    acc[start * w:n * w] = acc2
    return start + nk


# --- per substep --------------------------------------------------------------------------

# prepare_, update_, refresh_, warm_start_ and solve_contacts keep their (C, S, B) signatures
# and hand the arrays one by one to a private kernel (`_solve_contacts`, ...) that runs the
# loop: an array taken out of a tuple is a new reference to numba (an atomic reference-count
# update each time, see step.py), an array passed as an argument is borrowed.

@helper
def permute_manifolds(order, mi, mf, acc, rows_per):
    """Put manifolds in `order` (mi, mf and their rows' impulses; islands.py, colours.py):
    manifold i becomes the one at order[i]. In place, cycle by cycle (each manifold moved
    once, the cycle's first through a spare; those already in place not touched). Plain
    loops: numba's fancy indexing of 2-d arrays cost seconds of compile."""
    n = order.shape[0]
    ti = np.empty((1, mi.shape[1]), dtype=np.int64)       # the spare manifold
    tf = np.empty((1, mf.shape[1]))
    ta = np.empty(rows_per)
    done = np.zeros(n, dtype=np.bool_)
    for s in range(n):
        if done[s] or order[s] == s:
            continue
        _move_manifold(mi, mf, acc, s, ti, tf, ta, 0, rows_per)
        i = s
        while True:
            done[i] = True
            j = order[i]
            if j == s:
                _move_manifold(ti, tf, ta, 0, mi, mf, acc, i, rows_per)
                break
            _move_manifold(mi, mf, acc, j, mi, mf, acc, i, rows_per)
            i = j


@helper
def _move_manifold(mi, mf, acc, j, to_mi, to_mf, to_acc, i, rows_per):
    """Manifold j of (mi, mf, acc) into place i of (to_mi, to_mf, to_acc)."""
    for k in range(mi.shape[1]):
        to_mi[i, k] = mi[j, k]
    for k in range(mf.shape[1]):
        to_mf[i, k] = mf[j, k]
    for k in range(rows_per):
        to_acc[i * rows_per + k] = acc[j * rows_per + k]


@helper(inline=True)
def prepare_contacts(C, S, B):
    """Once per frame: the rows' Jacobians and effective masses. As in Box2D v3 the arms
    are the world arms found at collide time and the inertia is the frame's first, so only
    the biases change from substep to substep (update_contacts)."""
    mi, mf, acc, R, P = C
    _prepare_contacts(0, mi.shape[0], mi, mf, acc, *R, *B)


@helper
def _friction_weight(mf, m, k):
    """Point k of manifold m's share (1 or 0) of the friction rows' anchor: 1 when it was
    found within the pair's own margin (OWN_MARGIN: SPECULATIVE_DISTANCE and the bodies'
    own motion, as every point was before the pivot term), 0 when only the pivot term
    (`_pair_margin`) brought it in. Commit a950d26 weighted every point by its nearness
    (1 within LINEAR_SLOP, 0 at SPECULATIVE_DISTANCE), which moved the anchor of manifolds
    the pivot term does not touch too; leaving out only the pivot's points (branch sub4e)
    keeps a manifold without them anchored at all its points' centroid, as before the
    pivot term."""
    return 1.0 if mf[m, P0 + 8 * k + 6] <= mf[m, OWN_MARGIN] else 0.0


@helper(outline=True)
def _prepare_contacts(lo, hi, mi, mf, acc, rb_, rj, rd, rp, rk, bs, binv, bI):
    """`prepare_contacts` of manifolds lo..hi-1 (colours.py runs ranges in parallel).

    The friction rows act at the centroid of the points found within the pair's own margin
    (`_friction_weight`): a face landing on one edge has its far corners as speculative
    points by the pivot term (`_pair_margin`), and friction at the whole face's centre
    twisted the landing body about the edge it stands on (a metarig's hand bent 8.9 degrees
    past its limit, tests/addon/test_ragdoll.py)."""
    for m in range(lo, hi):
        a = mi[m, 0]
        b = mi[m, 1]
        cnt = mi[m, 2]
        n = (mf[m, 0], mf[m, 1], mf[m, 2])
        r0 = m * ROWS_PER_MANIFOLD
        total = 0.0
        for k in range(cnt):
            total += _friction_weight(mf, m, k)
        cen_a = (0.0, 0.0, 0.0)
        cen_b = (0.0, 0.0, 0.0)
        for k in range(4):
            r = r0 + k
            mf[m, TOTAL + k] = 0.0
            if k >= cnt:
                rp[r, ACTIVE] = 0.0
                acc[r] = 0.0
                continue
            q = ARMS + 6 * k
            ra = (mf[m, q], mf[m, q + 1], mf[m, q + 2])
            rb = (mf[m, q + 3], mf[m, q + 4], mf[m, q + 5])
            wk = _friction_weight(mf, m, k) if total > 0.0 else 1.0
            cen_a = add(cen_a, scale(ra, wk))
            cen_b = add(cen_b, scale(rb, wk))
            row_axis(r, a, b, n, ra, rb, rb_, rj, rd, rp, rk, bs, binv, bI)
            rp[r, LO] = 0.0
        ra = scale(cen_a, 1.0 / (total if total > 0.0 else cnt))
        rb = scale(cen_b, 1.0 / (total if total > 0.0 else cnt))
        t1 = perpendicular(n)
        t2 = cross(n, t1)
        row_axis(r0 + 4, a, b, t1, ra, rb, rb_, rj, rd, rp, rk, bs, binv, bI)
        row_axis(r0 + 5, a, b, t2, ra, rb, rb_, rj, rd, rp, rk, bs, binv, bI)
        row_angular(r0 + 6, a, b, n, rb_, rj, rd, rp, rk, bs, binv, bI)
        for k in range(4, 7):
            rp[r0 + k, LO] = 0.0
            rp[r0 + k, HI] = 0.0
        rp[r0 + 7, ACTIVE] = 0.0


@helper(inline=True)
def update_contacts(C, B):
    """Per substep, before the solve: the approach speeds restitution will reverse and the
    rolling row about the current relative spin. The normal rows' separation biases are
    `refresh_contacts`', measured once per substep after the positions moved (they hold until
    the next position update)."""
    mi, mf, acc, R, P = C
    _update_contacts(0, mi.shape[0], mi, mf, acc, *R, *B)


@helper(outline=True)
def _update_contacts(lo, hi, mi, mf, acc, rb_, rj, rd, rp, rk, bs, binv, bI):
    """`update_contacts` of manifolds lo..hi-1."""
    for m in range(lo, hi):
        a = mi[m, 0]
        b = mi[m, 1]
        n = (mf[m, 0], mf[m, 1], mf[m, 2])
        r0 = m * ROWS_PER_MANIFOLD
        for k in range(mi[m, 2]):
            if mf[m, MAXIMP + k] == 0.0:
                mf[m, P0 + 8 * k + 7] = row_velocity(r0 + k, rj, bs, a, b)
        rr = r0 + 7
        wrel = sub(vec3_at(bs, b, SPIN), vec3_at(bs, a, SPIN))
        wt = sub(wrel, scale(n, dot(wrel, n)))
        wl = length(wt)
        if mf[m, 5] > 0.0 and wl > 1e-4:
            axis = scale(wt, 1.0 / wl)
            old = (mf[m, 7], mf[m, 8], mf[m, 9])
            d = dot(old, axis)
            acc[rr] = acc[rr] * d if d > 0.5 else 0.0
            for k in range(3):
                mf[m, 7 + k] = axis[k]
            row_angular(rr, a, b, axis, rb_, rj, rd, rp, rk, bs, binv, bI)
            rp[rr, LO] = 0.0
            rp[rr, HI] = 0.0
        else:
            rp[rr, ACTIVE] = 0.0
            acc[rr] = 0.0


@helper(inline=True)
def warm_start_contacts(C, B):
    """Pre-apply last step's impulses, one manifold (one pair of bodies) at a time."""
    mi, mf, acc, R, P = C
    _warm_start_contacts(mi, acc, R[1], R[2], R[3], B[0], B[1])


@helper(outline=True)
def _warm_start_contacts(mi, acc, rj, rd, rp, bs, binv):
    for m in range(mi.shape[0]):
        warm_start_manifold(m, mi, acc, rj, rd, rp, bs, binv)


@helper(always=True)
def warm_start_manifold(m, mi, acc, rj, rd, rp, bs, binv):
    a = mi[m, 0]
    b = mi[m, 1]
    u = pair_velocities(bs, a, b)
    for r in range(m * ROWS_PER_MANIFOLD, (m + 1) * ROWS_PER_MANIFOLD):
        if rp[r, ACTIVE] == 0.0:
            acc[r] = 0.0
        elif acc[r] != 0.0:
            u = pair_apply(r, acc[r], rj, rd, binv[a], binv[b], u)
    store_pair_velocities(bs, a, b, u)


@helper(inline=True)
def solve_contacts(C, B, use_bias, iterations, busy, only_busy, turn):
    """Per manifold: the normal rows, then the patch friction rows clamped by their sum.
    The pair's velocities stay in locals for the manifold's eight rows. busy[m] records
    whether the sweep changed a row of manifold m by more than the relax tolerance (a
    velocity, P[6]); with `only_busy` the sweep solves only those (`relax_more`). Sweep i
    of the `iterations` takes the normal rows in the order turn + i picks
    (`solve_manifold`); the step counts turns sweep by sweep (`step.solve_pass`), so a
    face's points, each solved knowing only those before it, lean no stack toward the
    side of the first."""
    mi, mf, acc, R, P = C
    _solve_contacts(mi, mf, acc, R[1], R[2], R[3], B[0], B[1], use_bias, iterations, busy,
                    only_busy, P[6], turn)


@helper(always=True)      # inlined into each pass's sweep, with its flags known there
def _solve_contacts(mi, mf, acc, rj, rd, rp, bs, binv, use_bias, iterations, busy, only_busy,
                    tol, turn):
    for i in range(iterations):
        for m in range(mi.shape[0]):
            if only_busy and not busy[m]:
                continue
            busy[m] = solve_manifold(m, mi, mf, acc, rj, rd, rp, bs, binv, use_bias, tol,
                                     turn + i)


@helper(always=True)
def solve_manifold(m, mi, mf, acc, rj, rd, rp, bs, binv, use_bias, tol, turn):
    """One manifold's rows (see `solve_contacts`); returns whether a row's impulse changed
    by more than tol times its effective mass (a velocity change above tol). The normal
    rows go in one of four orders, by `turn` mod 4: first to last, last to first, and each
    of those begun half way round. A face's points run round its edge, so over four turns
    each point comes first once: the orders are the face's two mirror images and its half
    turn (one reversal alone mirrors a box face along one axis only, and a column of boxes
    kept awake rocked 3 cm along the other)."""
    r0 = m * ROWS_PER_MANIFOLD
    a = mi[m, 0]
    b = mi[m, 1]
    ia = binv[a]
    ib = binv[b]
    u = pair_velocities(bs, a, b)
    moved = False
    total = 0.0
    cnt = mi[m, 2]
    for i in range(cnt):
        k = cnt - 1 - i if turn % 2 == 1 else i
        if turn // 2 % 2 == 1:
            k = (k + cnt // 2) % cnt
        r = r0 + k
        old = acc[r]
        u = pair_row_solve(r, use_bias, rj, rd, rp, acc, ia, ib, u)
        moved = moved or _moved(r, old, rp, acc, tol)
        total += acc[r]
        if acc[r] > mf[m, MAXIMP + k]:
            mf[m, MAXIMP + k] = acc[r]
    cap = mf[m, 3] * total
    caps = (cap, cap, cap * mf[m, 6], mf[m, 5] * total)
    for k in range(4):
        r = r0 + 4 + k
        rp[r, LO] = -caps[k]
        rp[r, HI] = caps[k]
        old = acc[r]
        u = pair_row_solve(r, use_bias and k < 2, rj, rd, rp, acc, ia, ib, u)
        moved = moved or _moved(r, old, rp, acc, tol)
    store_pair_velocities(bs, a, b, u)
    return moved


@helper
def _moved(r, old, rp, acc, tol):
    e = rp[r, EFF]
    return rp[r, ACTIVE] != 0.0 and e > 0.0 and abs(acc[r] - old) > tol * e


@helper(outline=True)
def add_substep_impulses(C):
    """Add the substep's normal impulses to the frame's (`TOTAL`). In the soft step a
    substep applies its rows' accumulated impulse whole (the warm start re-applies the last
    substep's, the solve and the relax add to it), so the frame's impulse is the sum over
    its substeps (Box2D v3's totalNormalImpulse)."""
    _add_substep_impulses(0, C[0].shape[0], C[0], C[1], C[2])


@helper(outline=True)
def _add_substep_impulses(lo, hi, mi, mf, acc):
    for m in range(lo, hi):
        r0 = m * ROWS_PER_MANIFOLD
        for k in range(mi[m, 2]):
            mf[m, TOTAL + k] += acc[r0 + k]


@helper(outline=True)
def apply_restitution(C, B):
    """Points that closed faster than the threshold leave at -e times that speed."""
    mi, mf, acc, R, P = C
    for m in range(mi.shape[0]):
        restitute_manifold(m, mi, mf, acc, R[0], R[1], R[2], R[3], B[0], B[1], P[3])


@helper
def restitute_manifold(m, mi, mf, acc, rb, rj, rd, rp, bs, binv, threshold):
    e = mf[m, 4]
    if e == 0.0:
        return
    r0 = m * ROWS_PER_MANIFOLD
    for k in range(mi[m, 2]):
        vrel = mf[m, P0 + 8 * k + 7]
        if vrel > -threshold or mf[m, MAXIMP + k] == 0.0:
            continue
        r = r0 + k
        vn = row_velocity(r, rj, bs, rb[r, 0], rb[r, 1])
        old = acc[r]
        new = max(old - rp[r, EFF] * (vn + e * vrel), 0.0)
        acc[r] = new
        mf[m, TOTAL + k] += new - old
        apply_impulse(r, new - old, rb, rj, rd, bs, binv)


@helper
def contact_softness(P, h, h_cap, stiffen):
    """Box2D v3 contact softness for substeps of h: hertz capped at a fraction of the
    substep rate 1 / h_cap (P[5], a quarter by default as in Box2D v3). h_cap is the
    world's substep, also for an island stepped at fewer substeps (islands.py): its
    contacts are as stiff as the rest of the world's. An island of very different masses
    steps `stiffen` times finer than the world with `stiffen` times the hertz and its cap
    (islands.py `_stiffen`)."""
    hertz = stiffen * min(P[0], P[5] / h_cap)
    return soft_coefficients(hertz, P[1], h)



# --- Python side ----------------------------------------------------------------------------

# collide_end's island tables in a world that does not sleep (not read; typed as a sleeping
# world's, so both take the one compiled kernel)
_NO_SLEEP = (np.zeros(0, dtype=np.int64), np.zeros(0), np.zeros(0, dtype=np.bool_))


class ContactState:
    """The world's manifolds (this frame's) and their rows; `World` owns one."""

    def __init__(self, hertz=60.0, damping_ratio=5.0, push_velocity=3.0,
                 restitution_threshold=1.0, hertz_limit=0.25, unit=1.0):
        """Speeds in m/s; `unit`: the world's length units per metre (World.length_unit's
        inverse), which every length and speed in metres here is scaled by: params[8]."""
        self.unit = unit
        # 6, 7: the relax tolerance (m/s) and how many more relax sweeps may follow over
        # the manifolds a sweep still changed by more than it (step.relax_more)
        self.params = np.array([hertz, damping_ratio, push_velocity * unit,
                                restitution_threshold * unit, LINEAR_SLOP * unit, hertz_limit,
                                RELAX_TOLERANCE * unit, RELAX_EXTRA, unit])
        self.n = 0
        self.n_awake = 0           # manifolds 0..n_awake are solved; the rest sleep
        self.n_narrow = 0          # manifolds 0..n_narrow came from this frame's narrowphase
        self.fresh = -1            # pairs last frame's narrowphase looked at (-1: none yet)
        self.runs = 1              # how many runs of pairs the last narrowphase was cut into
        self.speculative_cap = SPECULATIVE_CAP   # bench/contacts.py --fast compares 1 m
        self._row_views = None     # (rows, their views of the solved manifolds): kernel_args
        self._alloc(64)

    def _alloc(self, cap):
        self.mi = np.zeros((cap, MI_WIDTH), dtype=np.int64)
        self.mf = np.zeros((cap, MF_WIDTH))
        self.acc = np.zeros(cap * ROWS_PER_MANIFOLD)
        self.rows = new_rows(cap * ROWS_PER_MANIFOLD)
        self._spare = (np.zeros((cap, MI_WIDTH), dtype=np.int64), np.zeros((cap, MF_WIDTH)),
                       np.zeros(cap * ROWS_PER_MANIFOLD))

    def collide(self, bs, cs, cbody, corig, skind, sparam, hverts, bkind, khas, bmat, bfilter,
                excl, dt, coarse, pool=None, threads=1, sleep=None):
        """This frame's manifolds; bkind is the step's view (ASLEEP for sleeping bodies); cs
        (posed here from the bodies), cbody, corig, skind, sparam and hverts are the
        colliders' (collision/colliders.py). Last frame's tables are read in place: the new
        ones go to the spare buffers. With `threads` > 1 and enough pairs, the narrowphase
        runs in that many runs of pairs, all but the first on `pool` (a
        ThreadPoolExecutor); the result is the same. `sleep`: (bisland, btimer, mark) of a
        world that sleeps, whose islands a touch wakes (sleep.wake_touched); returns
        whether one woke."""
        old = (self.mi[:self.n], self.mf[:self.n], self.acc[:self.n * ROWS_PER_MANIFOLD])
        cap = self.speculative_cap * self.unit
        pairs, ext, moving, old_key, old_order = collide_begin(
            bs, cbody, corig, cs, skind, sparam, bkind, khas, bfilter, excl, dt, cap, old[0])
        need = len(pairs) + self.n               # a manifold a pair, then the parked ones
        if len(self._spare[0]) < need:
            self._alloc(max(64, 2 * need))       # `old` keeps the arrays it views alive
        mi, mf, acc = self._spare
        args = (bs, cs, cbody, skind, sparam, hverts, ext, bmat, old_key, old_order) + old
        # shared out when last frame's narrowphase had work enough for that: a resting pile
        # keeps most manifolds (cheap), and cutting it into runs cost more than it saved
        work = len(pairs) if self.fresh < 0 else self.fresh
        runs = min(threads, len(pairs) // MIN_PAIRS_PER_THREAD,
                   work // MIN_PAIRS_PER_THREAD) if pool is not None else 1
        if runs <= 1:
            runs = 1
            m, fresh = narrow_pairs(pairs, *args, mi, mf, acc, self.unit, dt, cap, coarse)
        else:
            cut = [len(pairs) * k // runs for k in range(runs + 1)]
            w = ROWS_PER_MANIFOLD

            def run(k):
                lo, hi = cut[k], cut[k + 1]
                return narrow_pairs(pairs[lo:hi], *args, mi[lo:hi], mf[lo:hi],
                                    acc[lo * w:hi * w], self.unit, dt, cap, coarse)

            futures = [pool.submit(run, k) for k in range(1, runs)]
            counts = [run(0)] + [f.result() for f in futures]
            fresh = sum(f for _, f in counts)
            counts = [c for c, _ in counts]
            m = counts[0]
            for k in range(1, runs):     # close the gaps between the runs' tables
                lo, c = cut[k], counts[k]
                if lo != m and c > 0:
                    mi[m:m + c] = mi[lo:lo + c]
                    mf[m:m + c] = mf[lo:lo + c]
                    acc[m * w:(m + c) * w] = acc[lo * w:(lo + c) * w]
                m += c
        narrow = m
        self.fresh = fresh
        self.runs = runs
        bisland, btimer, mark = _NO_SLEEP if sleep is None else sleep
        count, woke = collide_end(*old, bkind, moving, mi, mf, acc, m, sleep is not None,
                                  bs, bisland, btimer, khas, mark)
        self._spare = (self.mi, self.mf, self.acc)
        self.mi, self.mf, self.acc = mi, mf, acc
        self.n = count
        self.n_narrow = narrow
        self.n_awake = narrow
        return woke

    def sort_awake(self, bkind):
        """After islands woke: their parked manifolds join the solved ones."""
        if self.n > self.n_narrow:
            self.n_awake = awake_first(self.mi, self.mf, self.acc, self.n_narrow, self.n,
                                       bkind)

    def kernel_args(self):
        """The solved manifolds (sleeping ones excluded) and their rows (the same views of
        the rows while the count and the arrays are)."""
        n = self.n_awake
        r = n * ROWS_PER_MANIFOLD
        if self._row_views is None or self._row_views[0] is not self.rows or \
                len(self._row_views[1][0]) != r:
            self._row_views = (self.rows, tuple(x[:r] for x in self.rows))
        return (self.mi[:n], self.mf[:n], self.acc[:r], self._row_views[1], self.params)

    def save(self):
        n = self.n
        return (self.mi[:n].copy(), self.mf[:n].copy(),
                self.acc[:n * ROWS_PER_MANIFOLD].copy(), self.n_awake, self.n_narrow)

    def load(self, saved):
        mi, mf, acc = saved[:3]
        n = len(mi)
        if n > len(self.mi):
            self._alloc(2 * n)
        self.mi[:n] = mi
        self.mf[:n] = mf
        self.acc[:n * ROWS_PER_MANIFOLD] = acc
        self.n = n
        self.n_awake, self.n_narrow = saved[3:] if len(saved) > 3 else (n, n)

    def report(self, bs):
        """Points (k,3), normals (k,3), separations (k,), normal impulses (k,), bodies (k,2)."""
        pts, nrm, sep, imp, pair = [], [], [], [], []
        for m in range(self.n):
            a, b, cnt = self.mi[m, 0:3]
            n = self.mf[m, 0:3]
            for k in range(cnt):
                c = P0 + 8 * k
                pa = _np_anchor(bs, a, self.mf[m, c:c + 3]) + n * self.mf[m, RADII]
                pb = _np_anchor(bs, b, self.mf[m, c + 3:c + 6]) - n * self.mf[m, RADII + 1]
                pts.append(0.5 * (pa + pb))
                nrm.append(n.copy())
                sep.append(float(np.dot(pb - pa, n)))
                imp.append(self.acc[m * ROWS_PER_MANIFOLD + k])
                pair.append((a, b))
        return (np.array(pts).reshape(-1, 3), np.array(nrm).reshape(-1, 3), np.array(sep),
                np.array(imp), np.array(pair, dtype=np.int64).reshape(-1, 2))

    def point_count(self):
        return int(self.mi[:self.n, 2].sum())

    def frame_impulses(self, body):
        """(other bodies (k,), normal impulse vectors on `body` (k, 3)): per body it
        touched, the frame's normal impulses (`TOTAL`) summed over the pair's points."""
        mi, mf = self.mi[:self.n], self.mf[:self.n]
        on_a, on_b = mi[:, 0] == body, mi[:, 1] == body
        rows = np.flatnonzero(on_a | on_b)
        points = np.arange(4)[None, :] < mi[rows, 2][:, None]
        total = np.where(points, mf[rows, TOTAL:TOTAL + 4], 0.0).sum(axis=1)
        # the normal points from A into B: a normal impulse pushes B along it, A against it
        sign = np.where(on_b[rows], 1.0, -1.0)
        vectors = (sign * total)[:, None] * mf[rows, 0:3]
        others, which = np.unique(np.where(on_b[rows], mi[rows, 0], mi[rows, 1]),
                                  return_inverse=True)
        out = np.zeros((len(others), 3))
        np.add.at(out, which.ravel(), vectors)
        return others.astype(np.int64), out


def _np_anchor(bs, i, local):
    return bs[i, POS:POS + 3] + qmat(bs[i, ROT:ROT + 4]) @ local


def shape_tables(shapes):
    """(kind (n,), params (n,4), hull vertices (m,3)) for the kernels. A hull's params are
    (first vertex row, vertex count, 0, bounding radius about its origin)."""
    kinds = np.array([s.kind for s in shapes], dtype=np.int64)
    params = np.array([s.params() for s in shapes], dtype=np.float64).reshape(-1, 4)
    verts = [np.zeros((0, 3))]
    start = 0
    for i, s in enumerate(shapes):
        if s.kind == HULL:
            v = np.asarray(s.vertices, dtype=np.float64)
            params[i] = (start, len(v), 0.0, float(np.linalg.norm(v, axis=1).max()))
            verts.append(v)
            start += len(v)
    return kinds, params, np.ascontiguousarray(np.concatenate(verts))


@helper(inline=True)
def refresh_contacts(C, S, B):
    """After the positions moved: the normal rows' separation from the anchors' new world
    positions (Box2D v3 re-measures it before relaxing, so relax cannot re-open the gap a
    speculative row already closed). Jacobians stay as prepared."""
    mi, mf, acc, R, P = C
    _refresh_contacts(0, mi.shape[0], mi, mf, R[3], B[0], S[0], S[1], S[2], S[4], P[2])


@helper(outline=True)
def _refresh_contacts(lo, hi, mi, mf, rp, bs, bias_rate, mass_scale, impulse_scale, inv_h,
                      push):
    """`refresh_contacts` of manifolds lo..hi-1."""
    for m in range(lo, hi):
        a = mi[m, 0]
        b = mi[m, 1]
        n = (mf[m, 0], mf[m, 1], mf[m, 2])
        for k in range(mi[m, 2]):
            r = m * ROWS_PER_MANIFOLD + k
            c = P0 + 8 * k
            pa, pb = _surface_points(bs, a, b, mf, m, k, n)
            s = dot(sub(pb, pa), n)
            if s > 0.0:
                rp[r, TARGET] = s * inv_h
                rp[r, BIAS] = 0.0
                rp[r, MASS_SCALE] = 1.0
                rp[r, IMPULSE_SCALE] = 0.0
            else:
                rp[r, TARGET] = 0.0
                rp[r, BIAS] = max(bias_rate * s, -push)
                rp[r, MASS_SCALE] = mass_scale
                rp[r, IMPULSE_SCALE] = impulse_scale
