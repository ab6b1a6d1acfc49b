"""Islands for the parallel step: which bodies, joints and contact manifolds move together.

Once per frame, after the narrowphase, the awake dynamic and the kinematic bodies are
grouped by union-find over the enabled joints and this frame's awake manifolds (static and
sleeping bodies link nothing: a floor would glue the world into one island). A kinematic body
links the islands it touches, so each is moved by one thread only.

Each island gets its substep count (`_island_substeps`): a small jointed island (a ragdoll or
a mechanism on the ground, at most MAX_PILE jointed or free bodies, no spring or drive) steps
at World.jointed_substeps (by default World.substeps too), since the direct solver (direct.py)
holds its joints and pressed contacts exactly, and at World.calm_substeps (by default half as
many) in a frame it starts calm (`_calm`: its bodies slow, no contact closing, no joint
turning, no moving kinematic body: a ragdoll lying still); stacks, piles, lone bodies, long
chains, springs and drives at World.substeps.
Islands are ordered by (substep count, label), the label being the smallest body id in
them, and cut into at most `threads` shares of consecutive islands with about equal work
(bodies, joint rows, contact points, times the substeps); a share holding both counts is
two batches. The step runs each share's batches in its own thread (World.step, step.py).

The result is the same whatever the number of batches: the manifolds are reordered by
island, keeping their order inside an island, whether there is one batch or many, and each
batch lists its bodies and joints in increasing id. Every island sees the same sequence of
operations in any batch, so positions and velocities are bit-identical at any thread count.

A joint belongs to the island of its first dynamic or kinematic body (batch 0 when it has
none: its rows are only deactivated there). Joints over three or four bodies (a pulley whose
wheels sit on bodies, custom constraints; joints/layout.py BODY_C, BODY_D) link all of them.
"""

import math

import numpy as np

from .jit import helper, kernel

from .bodies import DYNAMIC, KINEMATIC, SPIN, VEL
from .colours import COLOURED_MIN
from .contacts import permute_manifolds
from .direct import MAX_DIRECT_ROWS, closing_speed, find
from .sorting import argsort
from .joints.layout import (BODY_A, BODY_B, BODY_C, BODY_D, BROKEN, ENABLED, FLAGS,
                            HAS_DRIVE, HAS_SPRING, PIN, TYPE)

# joints of one jointed body the direct solver surely takes whole (direct.MAX_DIRECT_ROWS
# equality rows at up to 6 a joint); a larger one steps at the full substeps
JOINTS_SOLVED_WHOLE = MAX_DIRECT_ROWS // 6
MAX_PILE = 3          # jointed or free bodies in an island of few substeps (_island_substeps)
JOINT_WORK = 8        # a joint's prepare, factor and solves, in units of one body's work
MANIFOLD_WORK = 4     # a manifold's eight rows, likewise
MIN_SHARED_WORK = 2000.0   # work (times substeps) worth a worker thread: a unit takes about
                           # 0.3 us on two cores, handing a share over 0.1-0.2 ms
RATIO_FREE = 100.0    # touching bodies up to this mass ratio step as any island ...
MAX_STIFFEN = 16      # ... above it, up to this many times the substeps (`_stiffen`)
CALM_SPEED = 0.25     # m/s: a calm island's bodies move and its contacts close slower (`_calm`)
CALM_SPIN = 1.0       # rad/s: ... and its bodies turn, alone and relative to each other, slower


@helper
def _linked(i, bkind):
    return i >= 0 and (bkind[i] == DYNAMIC or bkind[i] == KINEMATIC)


@helper
def _union(parent, a, b):
    ra = find(parent, a)
    rb = find(parent, b)
    if ra != rb:
        if ra < rb:           # the smaller id stays the root: it is the island's label
            parent[rb] = ra
        else:
            parent[ra] = rb


@helper
def _link_joints(parent, jt, bkind):
    for j in range(jt.shape[0]):
        flags = jt[j, FLAGS]
        if not flags & ENABLED or flags & BROKEN:
            continue
        first = -1
        for column in (BODY_A, BODY_B, BODY_C, BODY_D):
            body = jt[j, column]
            if _linked(body, bkind):
                if first < 0:
                    first = body
                else:
                    _union(parent, first, body)


@helper
def joint_owner(j, jt, bkind):
    """The body whose island joint j belongs to: its first linked body (-1: none)."""
    for column in (BODY_A, BODY_B, BODY_C, BODY_D):
        if _linked(jt[j, column], bkind):
            return jt[j, column]
    return -1


@helper
def owner(a, b, bkind):
    """The body whose island a joint or manifold of bodies a, b belongs to (-1: none)."""
    if _linked(a, bkind):
        return a
    return b if _linked(b, bkind) else -1


@helper
def _calm(label, n, bs, bkind, khas, bsub, jt, mi, mf, speed, spin):
    """Per island label: whether the island starts the frame calm, so a small jointed
    island may step at World.calm_substeps. Calm: its bodies move slower than `speed`
    (units/s) and turn slower than `spin` (rad/s), no contact point of it closes faster
    than `speed`, no joint's bodies turn relative to each other faster than `spin`, no
    kinematic body in it has a target this frame, and every body of it was stepped before
    (bsub > 0: not a body's first frame). A ragdoll lying still is calm; one falling (fewer
    substeps lag a fall further behind the parabola), landing (its speculative contacts
    close), with a limb swinging towards a limit, or hit by a body (whose contact joins the
    island) is not."""
    calm = np.ones(n + 1, dtype=np.bool_)
    for i in range(n):
        if label[i] < 0:
            continue
        if bkind[i] == KINEMATIC and khas[i] or bsub[i] == 0:
            calm[label[i]] = False
        elif bkind[i] == DYNAMIC:
            v2 = bs[i, VEL] ** 2 + bs[i, VEL + 1] ** 2 + bs[i, VEL + 2] ** 2
            w2 = bs[i, SPIN] ** 2 + bs[i, SPIN + 1] ** 2 + bs[i, SPIN + 2] ** 2
            if v2 >= speed * speed or w2 >= spin * spin:
                calm[label[i]] = False
    for m in range(mi.shape[0]):
        o = owner(mi[m, 0], mi[m, 1], bkind)
        if o < 0 or not calm[label[o]]:
            continue
        for k in range(mi[m, 2]):
            if closing_speed(m, k, mi, mf, bs, bkind) > speed:
                calm[label[o]] = False
    for j in range(jt.shape[0]):
        flags = jt[j, FLAGS]
        o = joint_owner(j, jt, bkind)
        if o < 0 or not flags & ENABLED or flags & BROKEN or not calm[label[o]]:
            continue
        a, b = jt[j, BODY_A], jt[j, BODY_B]
        turn = 0.0
        for k in range(3):
            wa = bs[a, SPIN + k] if _linked(a, bkind) else 0.0
            wb = bs[b, SPIN + k] if _linked(b, bkind) else 0.0
            turn += (wa - wb) ** 2
        if turn > spin * spin:
            calm[label[o]] = False
    return calm


@helper
def _island_substeps(label, parent, n, jt, bkind, substeps, jointed_substeps, calm,
                     calm_substeps):
    """Substeps per island label: `jointed_substeps` for an island of at most MAX_PILE
    jointed or free bodies (a ragdoll, two crossed on the ground, a box on one) whose joints
    the direct solver takes whole (direct.py: at most JOINTS_SOLVED_WHOLE joints a body) and
    have no spring or drive; `substeps` for the others: stacks and lone bodies, bigger piles
    (their contacts are swept, not solved exactly: at 4 of 8 substeps a pile of four hinged
    planks jitters at 0.14 m/s, of eight at 0.3 m/s; three stay still within a micrometre),
    long chains (solved iteratively), springs, drives and pins (a pin's target moves like a
    kinematic body; a spring's numerical damping grows
    with the substep; a metarig's pose-matching drives at 4 substeps missed their pose by 40
    degrees). Such an island that starts the frame calm (`_calm`) steps at the fewer of
    `jointed_substeps` and `calm_substeps`. `parent`: the union-find over the joints alone
    (before the contacts joined islands)."""
    jointed = np.zeros(n + 1, dtype=np.bool_)        # per label
    full = np.zeros(n + 1, dtype=np.bool_)           # per label
    joints = np.zeros(n, dtype=np.int64)             # per jointed body's root
    parts = np.zeros(n + 1, dtype=np.int64)          # per label: its jointed or free bodies
    for j in range(jt.shape[0]):
        flags = jt[j, FLAGS]
        o = joint_owner(j, jt, bkind)
        if o < 0 or not flags & ENABLED or flags & BROKEN:
            continue
        jointed[label[o]] = True
        joints[find(parent, o)] += 1
        if flags & (HAS_SPRING | HAS_DRIVE) or jt[j, TYPE] == PIN:
            full[label[o]] = True
    for i in range(n):
        if label[i] >= 0 and find(parent, i) == i:
            parts[label[i]] += 1
            if joints[i] > JOINTS_SOLVED_WHOLE:
                full[label[i]] = True
    sub = np.full(n + 1, substeps, dtype=np.int64)
    for i in range(n):
        if label[i] == i and jointed[i] and not full[i] and parts[i] <= MAX_PILE:
            sub[i] = min(jointed_substeps, calm_substeps) if calm[i] else jointed_substeps
    return sub


@helper
def _stiffen(label, n, mi, bkind, binv):
    """Per island label, how many times finer than World.substeps it steps and how many times
    stiffer its contacts are (1: as the world). A soft contact row is a spring as stiff as its
    effective mass times (2 pi hertz)^2, and a light body's rows carry whatever rests on it:
    a box 1000 times heavier than the 1 kg box under it pressed both 15 mm deep (twice
    ratio x g / omega^2 at 130 Hz), 10 000 times heavier went through it. An island whose
    touching dynamic bodies differ by a mass ratio r > RATIO_FREE steps at k = ceil(sqrt(r /
    RATIO_FREE)) times the substeps (at most MAX_STIFFEN) with k times the contact hertz
    (`contact_softness`: the same fraction of its own substep rate), which divides the
    depth by k^2: about 3 mm at any ratio up to 25 600:1."""
    ratio = np.ones(n + 1)
    for m in range(mi.shape[0]):
        a = mi[m, 0]
        b = mi[m, 1]
        if bkind[a] == DYNAMIC and bkind[b] == DYNAMIC and binv[a] > 0.0 and binv[b] > 0.0:
            r = max(binv[a], binv[b]) / min(binv[a], binv[b])
            if r > ratio[label[a]]:
                ratio[label[a]] = r
    k = np.ones(n + 1, dtype=np.int64)
    for i in range(n + 1):
        if ratio[i] > RATIO_FREE:
            k[i] = min(int(math.ceil(math.sqrt(ratio[i] / RATIO_FREE))), MAX_STIFFEN)
    return k


@kernel
def partition(bkind, binv, jt, mi, mf, acc, rows_per, threads, substeps, jointed_substeps,
              calm_substeps, bs, khas, bsub, calm_speed, calm_spin):
    """Cut the world into batches of whole islands, each batch stepped at one substep count.

    A jointed island of at most MAX_PILE jointed or free bodies (a ragdoll or a mechanism on
    the ground: its joints are solved exactly) steps at `jointed_substeps`, or at
    `calm_substeps` when it starts the frame calm (`_calm`: bs, the bodies' velocities, khas
    the kinematic bodies with a target this frame, bsub the substeps each body last stepped
    at, calm_speed and calm_spin the thresholds);
    the others (stacks, lone bodies, piles; `_island_substeps`) at `substeps`.
    Each island's work (its bodies, joints and contact points, `JOINT_WORK`, `MANIFOLD_WORK`)
    times its substeps goes to one of at most `threads` threads (one when the islands not
    coloured come to less than MIN_SHARED_WORK: a worker thread would cost more than it
    saves), the largest first to the thread with the least so far; a thread's islands are
    batched by substep count (the world's first), stiffening and calm, each batch in label
    order. An island of touching bodies over
    RATIO_FREE in mass steps at k times `substeps` with k times stiffer contacts
    (`_stiffen`).

    mi, mf, acc: the awake manifolds and their impulses, reordered here by island.
    An island of COLOURED_MIN manifolds or more is a batch of its own, its contacts solved
    on every thread (colours.py).

    Returns (bodies, body_start, joints, joint_start, manifold_start, joint_batch,
    batch_substeps, batch_cut, batch_stiffen, batch_coloured, batch_calm): batch k moves
    bodies[body_start[k]:body_start[k + 1]], solves joints[joint_start[k]:joint_start[k + 1]]
    and manifolds manifold_start[k]:manifold_start[k + 1] at batch_substeps[k] substeps, in
    thread batch_cut[k] (the batches of one cut have about a thread's share of the work
    together); joint_batch[j] is joint j's batch, and its contacts are batch_stiffen[k] times
    stiffer than the world's; batch_coloured[k]: the batch is one coloured island;
    batch_calm[k]: its islands started the frame calm and step at fewer substeps than
    `substeps` for it (step.py takes their joints' geometric stiffness at their own
    substep, a jointed island's below the world's count at the world's)."""
    n = bkind.shape[0]
    nm = mi.shape[0]
    nj = jt.shape[0]
    parent = np.arange(n)
    _link_joints(parent, jt, bkind)
    by_joints = parent.copy()
    for m in range(nm):
        if _linked(mi[m, 0], bkind) and _linked(mi[m, 1], bkind):
            _union(parent, mi[m, 0], mi[m, 1])
    label = np.empty(n, dtype=np.int64)           # island label per body, -1 unlinked
    work = np.zeros(n + 1)                        # per label (n: nothing linked)
    for i in range(n):
        label[i] = find(parent, i) if _linked(i, bkind) else -1
        if label[i] >= 0:
            work[label[i]] += 1.0
    big = np.zeros(n + 1, dtype=np.int64)          # per label: its manifolds
    for j in range(nj):
        o = joint_owner(j, jt, bkind)
        work[label[o] if o >= 0 else n] += JOINT_WORK
    for m in range(nm):
        o = owner(mi[m, 0], mi[m, 1], bkind)
        work[label[o] if o >= 0 else n] += MANIFOLD_WORK * mi[m, 2] / 4.0
        big[label[o] if o >= 0 else n] += 1
    calm = _calm(label, n, bs, bkind, khas, bsub, jt, mi, mf, calm_speed, calm_spin)
    sub = _island_substeps(label, by_joints, n, jt, bkind, substeps, jointed_substeps, calm,
                           calm_substeps)
    stiff = _stiffen(label, n, mi, bkind, binv)
    for i in range(n):
        if label[i] == i and stiff[i] > 1:
            sub[i] = max(sub[i], substeps * stiff[i])
    # The islands' threads: the largest first, each to the thread with the least work so far
    # (Graham's longest-processing-time rule; ties to the lower label and thread). Cut into
    # contiguous runs of the label order instead, an island worth a seventh of the work
    # sat where a cut fell, and one of two threads did 55 % of it
    islands = np.empty(n, dtype=np.int64)
    n_islands = 0
    shared = 0.0                                  # the islands' not coloured
    for i in range(n):
        if label[i] == i:
            islands[n_islands] = i
            n_islands += 1
            if big[i] < COLOURED_MIN:
                shared += work[i] * sub[i]
    islands = islands[:n_islands]
    cuts = max(1, min(threads, n_islands)) if shared >= MIN_SHARED_WORK else 1
    cut_of = np.zeros(n + 1, dtype=np.int64)
    if cuts > 1:
        load = np.zeros(cuts)
        by_work = islands[argsort(-(work[islands] * sub[islands]))]
        for i in by_work:
            if big[i] < COLOURED_MIN:
                t = int(np.argmin(load))
                cut_of[i] = t
                load[t] += work[i] * sub[i]
    # islands in batch order: those at the world's count first, then by thread, substep
    # count, stiffening, calm, label (rank[label] is an island's place); the unlinked
    # joints and manifolds (label n) go to batch 0
    slow_of = np.zeros(n + 1, dtype=np.int64)
    most_sub = 1
    most_stiff = 1
    for i in islands:
        slow_of[i] = 1 if calm[i] and sub[i] < substeps else 0
        most_sub = max(most_sub, sub[i] + 1)
        most_stiff = max(most_stiff, stiff[i] + 1)
    key = np.empty(n_islands, dtype=np.int64)
    for k in range(n_islands):
        i = islands[k]
        first = 0 if sub[i] == substeps and stiff[i] == 1 else 1
        key[k] = ((((first * cuts + cut_of[i]) * most_sub + sub[i]) * most_stiff + stiff[i])
                  * 2 + slow_of[i]) * (n + 1) + i
    ordered = islands[argsort(key)]
    rank = np.full(n + 1, -1, dtype=np.int64)
    for k in range(n_islands):
        rank[ordered[k]] = k
    batch_of = np.zeros(n + 1, dtype=np.int64)
    room = cuts + n_islands + 1      # a batch per cut, and one more where a count changes
    batch_substeps = np.full(room, substeps, dtype=np.int64)
    batch_stiffen = np.ones(room, dtype=np.int64)
    batch_cut = np.zeros(room, dtype=np.int64)
    batch_coloured = np.zeros(room, dtype=np.bool_)
    batch_calm = np.zeros(room, dtype=np.bool_)
    batches = 0
    last_cut = -1
    for k in range(n_islands):
        i = ordered[k]
        cut = cut_of[i]
        coloured = big[i] >= COLOURED_MIN
        slow = slow_of[i] == 1
        if k == 0 or cut != last_cut or sub[i] != batch_substeps[batches - 1] or \
                stiff[i] != batch_stiffen[batches - 1] or coloured or \
                batch_coloured[batches - 1] or slow != batch_calm[batches - 1]:
            batch_substeps[batches] = sub[i]
            batch_stiffen[batches] = stiff[i]
            batch_cut[batches] = cut
            batch_coloured[batches] = coloured
            batch_calm[batches] = slow
            batches += 1
        last_cut = cut
        batch_of[i] = batches - 1
    batches = max(batches, 1)
    batch_substeps = batch_substeps[:batches].copy()
    batch_cut = batch_cut[:batches].copy()
    batch_stiffen = batch_stiffen[:batches].copy()
    batch_coloured = batch_coloured[:batches].copy()
    batch_calm = batch_calm[:batches].copy()
    # bodies and joints by batch, ids increasing inside a batch (counting sort)
    body_start = np.zeros(batches + 1, dtype=np.int64)
    for i in range(n):
        if label[i] >= 0:
            body_start[batch_of[label[i]] + 1] += 1
    joint_start = np.zeros(batches + 1, dtype=np.int64)
    joint_batch = np.zeros(nj, dtype=np.int64)
    for j in range(nj):
        o = joint_owner(j, jt, bkind)
        joint_batch[j] = batch_of[label[o]] if o >= 0 else 0
        joint_start[joint_batch[j] + 1] += 1
    for k in range(batches):
        body_start[k + 1] += body_start[k]
        joint_start[k + 1] += joint_start[k]
    bodies = np.empty(body_start[batches], dtype=np.int64)
    fill = np.empty(batches, dtype=np.int64)
    for k in range(batches):
        fill[k] = body_start[k]
    for i in range(n):
        if label[i] >= 0:
            k = batch_of[label[i]]
            bodies[fill[k]] = i
            fill[k] += 1
    joints = np.empty(nj, dtype=np.int64)
    for k in range(batches):
        fill[k] = joint_start[k]
    for j in range(nj):
        k = joint_batch[j]
        joints[fill[k]] = j
        fill[k] += 1
    # manifolds by island rank (unlinked first), their order kept inside an island
    key_count = np.zeros(n + 2, dtype=np.int64)
    mkey = np.empty(nm, dtype=np.int64)
    for m in range(nm):
        o = owner(mi[m, 0], mi[m, 1], bkind)
        mkey[m] = rank[label[o]] + 1 if o >= 0 else 0
        key_count[mkey[m] + 1] += 1
    for k in range(n + 1):
        key_count[k + 1] += key_count[k]
    order = np.empty(nm, dtype=np.int64)
    for m in range(nm):
        order[key_count[mkey[m]]] = m
        key_count[mkey[m]] += 1
    manifold_start = np.zeros(batches + 1, dtype=np.int64)
    for m in range(nm):
        k = batch_of[ordered[mkey[m] - 1]] if mkey[m] > 0 else 0
        manifold_start[k + 1] += 1
    for k in range(batches):
        manifold_start[k + 1] += manifold_start[k]
    sorted_already = True
    for m in range(nm):
        if order[m] != m:
            sorted_already = False
            break
    if not sorted_already:
        permute_manifolds(order, mi, mf, acc, rows_per)
    return (bodies, body_start, joints, joint_start, manifold_start, joint_batch,
            batch_substeps, batch_cut, batch_stiffen, batch_coloured, batch_calm)
