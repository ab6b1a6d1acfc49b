"""Direct solve of the joints' equality rows, and of the limits they press, island by island.

Sequential impulses converge slowly when masses differ a lot: a 0.1 kg link between a
10 kg ball and the rest of a chain passes only a sliver of the ball's load per sweep, and
soft rows with mass-weighted stiffness let light links stretch. The equality rows of the
joints (anchor points, hinge axes, orientation locks, rigid distances) are linear in the
impulses, so per island of jointed bodies we solve them exactly: the global formulation of
docs/mechanisms.md, The global solve, and docs/rows.md, The exact solve:

    K dlambda = -(J v + bias),   K = J M^-1 J^T,

solved rigidly: no mass scale and no impulse leak. Soft rows are a device to keep an
iterative solver stable; their stiffness is weighted by the rows' effective mass, so a light
link carrying a heavy load would stretch like a weak spring. The exact solve needs none of
that. Position drift is removed after the substep's position update by `project_positions`,
a Newton step on the constraint errors with the same K (post-stabilisation), which leaves
velocities alone (an island of ball sockets, hinges and ragdoll joints whose errors are all
under PROJECTION_TOLERANCE after the substep's move skips it: `lean_islands`; one whose
step turned a body more than NEWTON_TURN steps again from its new poses); what a
clamped step leaves is fed back through the soft step's bias rate in the solve pass (the
relax pass removes that bias velocity again). K is factored per island by a sparse Cholesky
twice per substep: before the solve pass, and at the moved poses for the position
projection and the relax pass; an island whose bodies barely moved since its last factoring
(turned less than REUSE_TURN, rows' bodies shifted apart less than REUSE_SHIFT, solve
inertia within REUSE_INERTIA: a ragdoll lying still or falling in one piece) keeps its
factor (`factor_islands`; a pressed limit the joints nearly hold on their own, whose Schur
complement a kept factor cannot be trusted with, has it factored again: FRAGILE_SCHUR),
also from one frame to the next while its rows and their bodies are unchanged
(`keep_islands`: its row order and pattern are kept with it, so a ragdoll lying still
neither plans nor factors again). Its rows are ordered joint by joint in
minimum-degree order (`island_pattern`): a tree of joints is eliminated from its leaves and
its factor has no fill, so factoring and solving cost what K's own couplings cost.

Limits (the joints' one-sided rows: angle limits, swing cones, twist ranges, ropes, slider
and distance bounds) run in the iterative sweep first, but an exact projection of the
equality rows alone would undo their work, and a limit would yield under an impact. So the
limits pressed in this pass (pushing already, lambda > 0, or being driven past their bound)
join their island's solve as an active set: with K_ee the equality rows' factored K, the m
pressed limits see their Schur complement S = K_ll - K_le K_ee^-1 K_el, a small dense m x m
system solved by block principal pivoting so that each limit's total impulse stays >= 0 (it
only pushes, never pulls); the equality rows are then solved exactly for those limit
impulses, d_e = -K_ee^-1 (b_e + K_el d_l). K_ee's factor is shared, so the extra cost is m
forward substitutions per island and pass (each starting at the first row its limit couples
with), nothing when no limit is pressed. The equality rows' impulses may press a limit that
was free when the pass began; the island is then solved once more with it in the set, so one
direct solve per pass (after the sweeps) suffices. The position
projection corrects violated limits the same way, one-sided. Motors, springs and contacts
stay with the iterative sweep, which runs before the direct solve (step.py).

Contacts join the same set. The normal rows of the contact manifolds that touch an island's
bodies (against the static world, a kinematic body or another body of the same island;
`island_limits`) are one-sided rows like the limits, numbered after the joint rows, and
enter the pressed set when they close faster than CONTACT_CLOSING after the sweep, or when
their impulse alone would move their body by more than CONTACT_LOAD (lambda / EFF > 0.1 m/s:
a foot carrying a body many times its own mass; a body resting under its own weight measures
about g h = 0.02 m/s and stays with the sweep, which holds it as well and costs far less). A
landing body's contacts then stop the whole articulated body at once: swept before the exact
solve, a foot's contact stopped only the foot (1 kg under 70), the joints pulled it down
again, and a 70 kg ragdoll dropped feet first from 1 m sank 4.9 cm into the floor
(`bench/landing.py`; 0.3 cm now). Solved with the island, a contact row is soft as in the
sweep (its compliance K/a2 on S's diagonal, `_contact_softness`), sees the substep's inertia
that the joint rows see (`island_contact_inertia`), and is left out of the position
projection (contacts push out through their soft bias). Several contact points on one face
make S singular (four points hold three degrees of freedom): when the pivoting does not
settle or the factor fails, projected Gauss-Seidel sweeps on S finish (`_pgs`), which only
lower the LCP's energy. Contacts between two islands, those of islands holding rows over
three or four bodies, and those of round bodies (spheres, capsules, cylinders: their patch
rolls) stay with the sweep, but for the frame a round body's point strikes (closes faster
than CONTACT_STRIKE at the frame's start: a ragdoll's capsule forearm hitting the floor as
it topples), and in an island without a motor, drive or spring a round body's point on
the world (or a static, kinematic or sleeping body) joins when it carries a load
(CONTACT_LOAD, as above: a lying forearm under its elbow).

Islands larger than MAX_DIRECT_ROWS rows are not factored. Those whose joints close loops
(a grid of ball sockets, a welded slab or truss: at least as many joints as bodies) have their
equality rows solved and projected by conjugate gradients on K to a tolerance
(`_solve_loops`, docs/decisions/loops-by-conjugate-gradients.md), each solve pass starting
from the island's last solutions, kept across substeps and frames in the plan's `factors` and
the per-row stores of `keep_islands`; their limits and contacts stay with the sweep. Larger
trees (a long chain) stay iterative, their rows keep their blocks.

Rows over three or four bodies (rows.py: two slots, ACTIVE = WIDE) are one unknown here
like any row: their K entries sum the couplings of both slots (`wide_coupling`), they link
all their bodies into one island, and applying or projecting them moves every body. Only
islands holding such a row read the second slots (`_fill_k`, `_solve_island`); two-body
islands run the code they ran before. Solved iteratively beside the direct solve instead
(the sweep only), a rope over wheels on a light held or hanging block stretches under heavy
weights, because a sweep converges slowest where masses differ most; solved here it holds to
rounding (tests/solver/test_multibody.py measures it).
"""

import math
from collections import namedtuple

import numpy as np
from .jit import helper
from .sorting import argsort

from .bodies import DYNAMIC, KINEMATIC, POS, ROT, SPIN, VEL
from .joints.layout import BALL, FLAGS, HAS_DRIVE, HAS_SPRING, HINGE, MAX_ROWS, RAGDOLL, TYPE
from .mathx import add, cross, dot, qintegrate, quat_at, vec3_at
from .rows import (ACTIVE, BIAS, BLOCK, EFF, HI, IMPULSE_SCALE, LO, MASS_SCALE, SPRING,
                   TARGET, WIDE, apply_impulse, refresh_row_mass, row_apply, row_cdot)

MAX_DIRECT_ROWS = 192
# The plan of a frame's islands (plan_islands): rows ordered by island, island start
# offsets, number of islands, the islands' Cholesky factors with their offsets, per island
# whether its factor is valid, each row's factor pattern (`island_pattern`), the
# islands' limit rows with their start offsets, and per body the rows acting on it
# (`_body_rows`), and the pressed rows' columns of G = L^-1 K_el kept while the island's
# factor is (`_solve_island`: per limit row of an island its column at gkeep[goff[s] +
# k n:], valid when gvalid[k], starting at row gfirst[k]), and per island whether its
# factor is of its rows as they are prepared now (`current`: factored at the last
# `factor_islands` or since, not kept from before; FRAGILE_SCHUR factors again only an
# island whose factor is not). The kernels take its arrays one by one (an array taken out
# of a tuple costs reference counting) and name them again with Plan(...).
Plan = namedtuple("Plan", "order starts n_islands factors offsets ok pattern lorder lstarts "
                           "bfirst brows gkeep goff gvalid gfirst current")
DIRECT = -2.0          # BLOCK value of rows the direct solver owns
MAX_PROJECTION_TURN = 0.1   # radians a substep of the world's count (`projection_turn`)
PROJECTION_CUTS = 3         # solves with the limits' errors cut, when a step is too large
PROJECTION_REACH = 2.0 * MAX_PROJECTION_TURN   # rad: an angular limit this near its bound
                            # joins the projection (`_projected_limit`)
MAX_LIMIT_ROUNDS = 4        # active-set rounds of the pressed limits (`_limit_lcp`)
MAX_DIRECT_ROUNDS = 2       # solves per island and pass when a limit gets newly pressed
CONTACT_ROWS = 8            # contact rows per manifold (contacts.ROWS_PER_MANIFOLD): the
                            # normal rows of manifold m are 8 m + k, k < its point count
CONTACT_ROLLS = 72          # contacts.ROLLS: a round body's patch (it rolls: stays with the
                            # sweep unless it strikes, see island_limits)
CONTACT_ARMS = 48           # contacts.ARMS: point k's world arms from A's, B's centre (48 + 6k)
CONTACT_STRIKE = 0.25       # m/s: a round body's contact point closing faster than this at
                            # the frame's start joins its island's solve for the frame
CONTACT_CLOSING = 0.01      # m/s: a contact joins its island's solve when closing faster,
CONTACT_LOAD = 0.1          # m/s: or when its impulse would move its body alone faster
LOAD_ONLY = 4               # a round body's point k listed as contact row 8 m + 4 + k joins
                            # its island's solve by its load only (`island_limits`)
PGS_SWEEPS = 16             # `_pgs` sweeps when the pressed rows' pivoting does not settle
REUSE_TURN = 1e-3           # rad: an island whose bodies all turned less than this since
                            # its factoring keeps its factor (`factor_islands`) ...
REUSE_SHIFT = 1e-4          # m: ... if each row's bodies moved apart less than this
REUSE_INERTIA = 1e-2        # ... and each body's solve inertia changed by less than this
                            # fraction of itself (the joints' geometric stiffness moves it
                            # 1-4e-3 a substep on a ragdoll lying still: at 1e-3, it was
                            # factored twice a substep; docs/performance.md)
FRAGILE_SCHUR = 0.05        # a pressed limit whose Schur complement S = K_ll - G^T G is
                            # under this fraction of K_ll under a kept factor has its island
                            # factored again and solved again (`_solve_island`): S is then
                            # a small difference of large numbers, and a K_ee off by
                            # REUSE_INERTIA turned it negative (a chain's root limit, S =
                            # -2.3 against K_ll = 737: impulses of 1e3 N s)
NEWTON_TURN = 2e-3          # rad: a lean island whose projection turned a body by more
                            # steps again at the new poses (`project_positions`) ...
NEWTON_PASSES = 2           # ... at most this many more times a substep
PROJECTION_TOLERANCE = 5e-8    # m (angular rows: rad): an island of ball sockets, hinges
                            # and ragdoll joints whose rows are all within this of their
                            # positions (its limits too) skips the substep's projection;
                            # at 5e-8 a crowd lying still skips 61 % of them (1e-8: 30 %),
                            # and a limb keeps its joints within 1e-7 (docs/performance.md)
KEEP_WIDTH = 48             # an island's plan and factor are kept across frames when no
                            # row of its factor has more entries left of the diagonal
                            # (`keep_islands`; a ragdoll's rows have at most about 12)
LOOP_TOLERANCE = 1e-7       # m/s (projection: m; angular rows rad/s, rad): the largest row
                            # residual an island of many loops is solved to (`_solve_loops`)
LOOP_RELATIVE = 1e-9        # ... or this fraction of its largest right-hand side, if larger
LOOP_ITERATIONS = 1000      # at most this many conjugate-gradient steps per solve
LOOP_HISTORY = 16           # the last solutions of an island of many loops' solve pass kept
                            # (with K times each) to start its next solve from (`_solve_loops`)


@helper
def find(parent, i):
    """The root of i's set in a union-find `parent` array (halving the path on the way)."""
    while parent[i] != i:
        parent[i] = parent[parent[i]]
        i = parent[i]
    return i


@helper
def union(parent, a, b, bkind):
    """Join the sets of bodies a and b if both are dynamic."""
    if a >= 0 and b >= 0 and bkind[a] == DYNAMIC and bkind[b] == DYNAMIC:
        ra = find(parent, a)
        rb = find(parent, b)
        if ra != rb:
            parent[ra] = rb


@helper
def body_islands(n_bodies, row_bodies, n_rows, bkind):
    """Union-find root per body over the rows' body pairs (only dynamic bodies link)."""
    parent = np.arange(n_bodies)
    for r in range(n_rows):
        union(parent, row_bodies[r, 0], row_bodies[r, 1], bkind)
    for i in range(n_bodies):
        parent[i] = find(parent, i)
    return parent


@helper
def row_islands(n_bodies, rb, rp, rows, bkind):
    """`body_islands` over the listed rows, a row over three or four bodies linking all of
    them (its second slot's row is listed too: rows come whole joints at a time)."""
    parent = np.arange(n_bodies)
    for r in rows:
        union(parent, rb[r, 0], rb[r, 1], bkind)
        if rp[r, ACTIVE] == WIDE:
            for i in range(2):
                for k in range(2):
                    union(parent, rb[r, i], rb[r + 1, k], bkind)
    for i in range(n_bodies):
        parent[i] = find(parent, i)
    return parent


@helper
def _is_equality(r, rp):
    """A rigid, unbounded row: C = 0, or C* = -TARGET (a pin whose target moves)."""
    return (rp[r, ACTIVE] != 0.0 and rp[r, SPRING] == 0.0
            and rp[r, LO] == -math.inf and rp[r, HI] == math.inf)


@helper
def _is_limit(r, rp):
    """A one-sided joint row (limit, rope, speculative or not): lambda in [0, inf)."""
    return (rp[r, ACTIVE] != 0.0 and rp[r, SPRING] == 0.0 and rp[r, LO] == 0.0
            and rp[r, HI] == math.inf)


@helper
def row_body(r, i, rb, rp):
    """Body i of row r: 0, 1 its slot's, 2, 3 a wide row's second slot's (else -1)."""
    if i < 2:
        return rb[r, i]
    return rb[r + 1, i - 2] if rp[r, ACTIVE] == WIDE else -1


@helper
def _dynamic_body(r, rb, rp, bkind):
    """A dynamic body of row r (-1 if none is)."""
    for i in range(4):
        body = row_body(r, i, rb, rp)
        if body >= 0 and bkind[body] == DYNAMIC:
            return body
    return -1


@helper
def _side_coupling(r, sr, rj, k, sk, rj2, rd2, binv, body):
    """J_r,side M^-1 J_k,side^T for one shared body (row k in the tables rj2, rd2)."""
    o_r = 6 * sr
    o_k = 6 * sk
    s = binv[body] * (rj[r, o_r] * rj2[k, o_k] + rj[r, o_r + 1] * rj2[k, o_k + 1]
                      + rj[r, o_r + 2] * rj2[k, o_k + 2])
    d = 3 * sk
    s += rj[r, o_r + 3] * rd2[k, d] + rj[r, o_r + 4] * rd2[k, d + 1] \
        + rj[r, o_r + 5] * rd2[k, d + 2]
    return s


@helper
def coupling_between(r, rb, rj, k, rb2, rj2, rd2, binv):
    """`coupling` of row r of the tables (rb, rj) and row k of (rb2, rj2, rd2): a joint row
    and a contact row (contacts.py keeps its rows in tables of its own)."""
    s = 0.0
    for sr in range(2):
        body = rb[r, sr]
        if body < 0:
            continue
        for sk in range(2):
            if rb2[k, sk] == body:
                s += _side_coupling(r, sr, rj, k, sk, rj2, rd2, binv, body)
    return s


@helper
def coupling(r, k, rb, rj, rd, binv):
    """K[r, k] = J_r M^-1 J_k^T summed over the bodies the two rows share (two-body rows, or
    two slots)."""
    return coupling_between(r, rb, rj, k, rb, rj, rd, binv)


@helper(outline=True)
def wide_coupling(r, k, rb, rj, rd, rp, binv):
    """`coupling` of any two rows: the slots of a wide row (rows.py) all count. Only
    islands with wide rows call it; a call of its own, it is not four more inlined copies
    of `coupling` at each of its call sites (compile time: docs/performance.md)."""
    r2 = r + 1 if rp[r, ACTIVE] == WIDE else -1
    k2 = k + 1 if rp[k, ACTIVE] == WIDE else -1
    s = coupling(r, k, rb, rj, rd, binv)
    if r2 >= 0:
        s += coupling(r2, k, rb, rj, rd, binv)
        if k2 >= 0:
            s += coupling(r2, k2, rb, rj, rd, binv)
    if k2 >= 0:
        s += coupling(r, k2, rb, rj, rd, binv)
    return s


@helper
def _has_wide(rows, rp):
    """Whether any of the rows is a row over three or four bodies. Contact rows (numbered
    past the joint rows, in an island's limits) never are, and have no row in rp: reading
    rp there read past its end, and a stray 2.0 made an island "wide" now and then (a
    ragdoll world blew up or crashed in one run out of several)."""
    for r in rows:
        if r < rp.shape[0] and rp[r, ACTIVE] == WIDE:
            return True
    return False


@helper
def cholesky(k, first, n):
    """In-place lower Cholesky of the leading n x n block inside its envelope: row i of K
    (and of its factor L) is zero left of column first[i]. False if not positive definite.
    `_limit_lcp` factors its small dense systems with it (first all zeros)."""
    for i in range(n):
        fi = first[i]
        for j in range(fi, i + 1):
            s = k[i, j]
            for m in range(max(fi, first[j]), j):
                s -= k[i, m] * k[j, m]
            if not _pivot(k, i, j, s):
                return False
    return True


@helper
def _pivot(k, i, j, s):
    """Store L[i, j] from K[i, j] less the products of the rows' earlier entries (s); False
    when a diagonal entry is not positive (K is not positive definite)."""
    if j < i:
        k[i, j] = s / k[j, j]
    elif s <= 0.0:
        return False
    else:
        k[i, i] = math.sqrt(s)
    return True


@helper
def cholesky_solve(l, first, n, x):
    """x <- (L L^T)^-1 x for an envelope factor from `cholesky`."""
    for i in range(n):
        s = x[i]
        for m in range(first[i], i):
            s -= l[i, m] * x[m]
        x[i] = s / l[i, i]
    for i in range(n - 1, -1, -1):
        x[i] /= l[i, i]
        for m in range(first[i], i):
            x[m] -= l[i, m] * x[i]


# An island's K is factored over a sparsity pattern (`island_pattern`): row i of the pattern
# holds, at pattern[i, 0], how many columns left of the diagonal row i of the factor L may
# fill, and those columns in increasing order at pattern[i, 1:]; its last three columns
# hold the first row of row i's joint, the row after the joint's last, and the first row
# of the joint's parent in the elimination tree (n: none), for `_forward_sparse`. Entries
# of L outside the pattern are zero (`plan_islands` allocates the factors zeroed and nothing
# writes there), so the sums below may run over one row's pattern and read the other row
# densely. The factor keeps the reciprocals of L's diagonal on its diagonal, so the
# substitutions multiply where they divided: a division's latency sat in every row's chain
# of dependent entries.

@helper
def sparse_cholesky(k, pattern, n):
    """In-place lower Cholesky of K's leading n x n block over its pattern, the diagonal
    holding 1 / L[i, i]. False if not positive definite."""
    for i in range(n):
        for c in range(1, pattern[i, 0] + 2):
            j = pattern[i, c] if c <= pattern[i, 0] else i
            s = k[i, j]
            for d in range(1, pattern[j, 0] + 1):
                m = pattern[j, d]
                s -= k[i, m] * k[j, m]
            if j < i:
                k[i, j] = s * k[j, j]
            elif s > 0.0:
                k[i, i] = 1.0 / math.sqrt(s)
            else:
                return False
    return True


@helper
def _forward(l, pattern, n, x, start):
    """x <- L^-1 x for a factor from `sparse_cholesky`, x zero before index `start`."""
    for i in range(start, n):
        s = x[i]
        for c in range(1, pattern[i, 0] + 1):
            s -= l[i, pattern[i, c]] * x[pattern[i, c]]
        x[i] = s * l[i, i]


@helper
def _forward_sparse(l, pattern, n, x, start, live):
    """`_forward` for a right-hand side that is zero in most joints' rows (a column of
    K_el: a limit couples only with the joints at its two bodies). The island's rows come
    joint by joint (`island_pattern`), and L has a joint's entries only in the rows of the
    joints after it on its path to the root of the elimination tree: a joint whose
    right-hand side is zero and none of whose children on that tree is live stays zero, and
    is skipped. What is computed is the union of the paths from the limit's joints to the
    root, with the values of `_forward` (a skipped row would have computed 0 from zeros).
    live: work array of n flags (a joint's first row marks it live; only those are read
    and cleared)."""
    if start >= n:
        return
    parent = pattern.shape[1] - 1
    first = pattern[start, parent - 2]
    i = first
    while i < n:
        live[i] = False
        i = pattern[i, parent - 1]
    i = first
    while i < n:
        e = pattern[i, parent - 1]
        on = live[i]
        if not on:
            for k in range(i, e):
                if x[k] != 0.0:
                    on = True
                    break
        if on:
            for k in range(i, e):
                s = x[k]
                for c in range(1, pattern[k, 0] + 1):
                    s -= l[k, pattern[k, c]] * x[pattern[k, c]]
                x[k] = s * l[k, k]
            if pattern[i, parent] < n:
                live[pattern[i, parent]] = True
        i = e


@helper
def _backward(l, pattern, n, x):
    """x <- L^-T x for a factor from `sparse_cholesky`."""
    for i in range(n - 1, -1, -1):
        x[i] *= l[i, i]
        for c in range(1, pattern[i, 0] + 1):
            x[pattern[i, c]] -= l[i, pattern[i, c]] * x[i]


@helper
def _fill_k(rows, pattern, n, R, binv, factor):
    """K's lower triangle over the pattern; returns its largest diagonal entry. Entries
    outside the pattern are zero from `plan_islands` on: neither this nor the factorisation
    writes them."""
    rb, rj, rd, rp = R[0], R[1], R[2], R[3]
    wide = _has_wide(rows, rp)
    big = 0.0
    for i in range(n):
        for c in range(1, pattern[i, 0] + 2):
            m = pattern[i, c] if c <= pattern[i, 0] else i
            if wide:
                factor[i, m] = wide_coupling(rows[i], rows[m], rb, rj, rd, rp, binv)
            else:
                factor[i, m] = coupling(rows[i], rows[m], rb, rj, rd, binv)
        big = max(big, factor[i, i])
    return big


@helper
def _factor_island(rows, pattern, n, R, binv, factor):
    big = _fill_k(rows, pattern, n, R, binv, factor)
    # Redundant rows (a loop closed twice, two joints on one pair) make K singular: a tiny
    # regularisation picks the smallest impulses that satisfy them.
    eps = 1e-10 * big
    for attempt in range(3):
        if attempt > 0:
            _fill_k(rows, pattern, n, R, binv, factor)
        for i in range(n):
            factor[i, i] += eps
        if sparse_cholesky(factor, pattern, n):
            return True
        eps *= 1e3
    return False


@helper
def _joint_adjacency(rows, jstart, nj, rb, rp, bkind):
    """Whether joints x and y (the rows rows[jstart[x]:jstart[x + 1]] and y's) share a
    dynamic body: each joint's distinct dynamic bodies are listed once, then compared."""
    jb = np.empty((nj, 4 * MAX_ROWS), dtype=np.int64)
    count = np.zeros(nj, dtype=np.int64)
    for x in range(nj):
        for i in range(jstart[x], jstart[x + 1]):
            for slot in range(4):
                body = row_body(rows[i], slot, rb, rp)
                if body < 0 or bkind[body] != DYNAMIC:
                    continue
                seen = False
                for k in range(count[x]):
                    if jb[x, k] == body:
                        seen = True
                if not seen:
                    jb[x, count[x]] = body
                    count[x] += 1
    adj = np.zeros((nj, nj), dtype=np.bool_)
    for x in range(nj):
        for y in range(x):
            share = False
            for a in range(count[x]):
                for b in range(count[y]):
                    if jb[x, a] == jb[y, b]:
                        share = True
            adj[x, y] = adj[y, x] = share
    return adj


@helper(outline=True)
def island_pattern(order, starts, n_islands, rb, rp, bkind, kept):
    """Order each island's rows joint by joint for a sparse factor, and return the factor's
    pattern (see `sparse_cholesky`; island-local columns). Islands kept from the last
    frame (`kept`, `_restore_islands`) are left for their kept pattern.

    Two joints' rows couple in K when the joints share a dynamic body. The joints are
    eliminated in minimum-degree order (fewest coupled rows first, ties by position), and
    eliminating one couples the joints it touched (fill). A chain or tree of joints (a
    ragdoll) is eliminated from its leaves and fills nothing: its factor keeps K's own
    couplings, about two thirds of the envelope the joints' own order gave, and a third of
    its operations. Rows of one joint stay together and in their order. Each row also
    names its joint's rows and the joint's parent in the elimination tree (the first joint
    eliminated after it that it couples with), see `sparse_cholesky`'s layout."""
    width = 1
    for s in range(n_islands):
        n = starts[s + 1] - starts[s]
        if n <= MAX_DIRECT_ROWS:
            width = max(width, n)
    pattern = np.zeros((order.shape[0], width + 4), dtype=np.int64)
    last = width + 3
    for s in range(n_islands):
        s0 = starts[s]
        n = starts[s + 1] - s0
        if n > MAX_DIRECT_ROWS or kept[s]:
            continue
        rows = order[s0:s0 + n].copy()
        jstart = np.empty(n + 1, dtype=np.int64)
        nj = 0
        for i in range(n):
            if i == 0 or rows[i] // MAX_ROWS != rows[i - 1] // MAX_ROWS:
                jstart[nj] = i
                nj += 1
        jstart[nj] = n
        adj = _joint_adjacency(rows, jstart, nj, rb, rp, bkind)
        done = np.zeros(nj, dtype=np.bool_)
        elim = np.empty(nj, dtype=np.int64)
        at = np.empty(nj, dtype=np.int64)          # first island-local row of elim[p]
        degree = np.zeros(nj, dtype=np.int64)     # rows coupled with, of joints not done
        for x in range(nj):
            for y in range(nj):
                if adj[x, y]:
                    degree[x] += jstart[y + 1] - jstart[y]
        i = 0
        for p in range(nj):
            best = -1
            for x in range(nj):
                if not done[x] and (best < 0 or degree[x] < degree[best]):
                    best = x
            done[best] = True
            elim[p] = best
            size = jstart[best + 1] - jstart[best]
            for x in range(nj):
                if adj[best, x] and not done[x]:
                    degree[x] -= size
                    for y in range(nj):
                        if y != x and adj[best, y] and not done[y] and not adj[x, y]:
                            adj[x, y] = True
                            degree[x] += jstart[y + 1] - jstart[y]
            at[p] = i
            for k in range(jstart[best], jstart[best + 1]):
                order[s0 + i] = rows[k]
                i += 1
        for p in range(nj):
            x = elim[p]
            up = n                                 # the parent: the first later joint
            for q in range(nj - 1, p, -1):         # coupled with x after the fill
                if adj[x, elim[q]]:
                    up = at[q]
            for k in range(jstart[x + 1] - jstart[x]):
                row = s0 + at[p] + k
                pattern[row, last - 2] = at[p]
                pattern[row, last - 1] = at[p] + jstart[x + 1] - jstart[x]
                pattern[row, last] = up
                c = 0
                for q in range(p):
                    y = elim[q]
                    if adj[x, y]:
                        for t in range(jstart[y + 1] - jstart[y]):
                            c += 1
                            pattern[row, c] = at[q] + t
                for t in range(k):
                    c += 1
                    pattern[row, c] = at[p] + t
                pattern[row, 0] = c
    return pattern


@helper
def joint_rows(joints):
    """The rows of the listed joints, in order."""
    rows = np.empty(joints.shape[0] * MAX_ROWS, dtype=np.int64)
    for i in range(joints.shape[0]):
        for k in range(MAX_ROWS):
            rows[i * MAX_ROWS + k] = joints[i] * MAX_ROWS + k
    return rows


@helper(outline=True)
def plan_islands(R, joints, n_rows, n_bodies, bkind, mi, mf, F, bs, unit, coarse):
    """Group the equality rows of `joints` by island (once per frame: the set of equality
    rows only changes when joints are added, removed or broken, between frames). n_rows:
    the size of the row tables.

    Returns the `Plan` (its fields are described where it is defined). mi: the batch's
    contact manifolds (contacts.py), whose normal rows
    join the limits of the island they touch (`island_limits`, every frame). F: what
    `keep_islands` kept of the last frame's islands: an island whose rows and their bodies
    are those kept (`_island_key`) takes its row order, pattern and factor from there
    instead of planning and factoring again (`_restore_islands`); `factor_islands` then
    keeps the factor while the island has barely moved since it was made. An island of many
    loops takes its kept solutions likewise (`_restore_loops`). bs: the bodies' state at the
    first substep (a round body's contact joins when it strikes, `_strikes`); unit: length
    units per metre; coarse: the batch steps at Jointed Substeps below the world's count, not
    in a calm frame (a round body's loaded contact joins then, `island_limits`)."""
    rb, rp = R[0], R[3]
    rows = joint_rows(joints)
    root = row_islands(n_bodies, rb, rp, rows, bkind)
    keys = np.empty(rows.shape[0], dtype=np.int64)
    count = 0
    for r in rows:
        if _is_equality(r, rp):
            body = _dynamic_body(r, rb, rp, bkind)
            keys[count] = root[body] * (n_rows + 1) + r
            count += 1
    keys = keys[:count]
    keys = keys[argsort(keys)]
    order = np.empty(count, dtype=np.int64)
    starts = np.empty(count + 1, dtype=np.int64)
    n_islands = 0
    last = -1
    for i in range(count):
        island = keys[i] // (n_rows + 1)
        order[i] = keys[i] - island * (n_rows + 1)
        if island != last:
            starts[n_islands] = i
            n_islands += 1
            last = island
    starts[n_islands] = count
    offsets = np.zeros(n_islands + 1, dtype=np.int64)
    for s in range(n_islands):
        n = starts[s + 1] - starts[s]
        offsets[s + 1] = offsets[s] + (n * n if n <= MAX_DIRECT_ROWS else _loop_store_size(n))
    factors = np.zeros(offsets[n_islands])     # entries outside the patterns stay zero
    ok = np.zeros(n_islands, dtype=np.bool_)
    kept = _kept_order(order, starts, n_islands, rb, rp, bkind, F[1], F[2])
    pattern = island_pattern(order, starts, n_islands, rb, rp, bkind, kept)
    _restore_islands(order, starts, n_islands, kept, pattern, factors, offsets, ok, F[2],
                     F[3])
    _restore_loops(order, starts, n_islands, rb, rp, bkind, factors, offsets, F[1], F[2], F[3])
    lorder, lstarts = island_limits(order, starts, n_islands, root, R, rows, n_rows, bkind,
                                    mi, mf, bs, unit, coarse)
    bfirst, brows = _body_rows(order, n_bodies, rb)
    goff = np.zeros(n_islands + 1, dtype=np.int64)
    for s in range(n_islands):
        n = starts[s + 1] - starts[s]
        nl = lstarts[s + 1] - lstarts[s]
        goff[s + 1] = goff[s] + (nl * n if n <= MAX_DIRECT_ROWS else 0)
    gvalid = np.zeros(lorder.shape[0], dtype=np.bool_)
    return Plan(order, starts, n_islands, factors, offsets, ok, pattern, lorder, lstarts,
                bfirst, brows, np.empty(goff[n_islands]), goff, gvalid,
                np.empty(lorder.shape[0], dtype=np.int64), np.zeros(n_islands, dtype=np.bool_))


@helper
def _island_key(rows, rb, rp, bkind):
    """A 64-bit key of an island's equality rows, their bodies and which of those are
    dynamic: what its plan (`island_pattern`) depends on. Never 0 (no island kept)."""
    key = rows.shape[0]
    for r in rows:
        v = r
        for i in range(4 if rp[r, ACTIVE] == WIDE else 2):
            body = row_body(r, i, rb, rp)
            v = v * 1000003 + (body + 1) * 2 + (body >= 0 and bkind[body] == DYNAMIC)
        v ^= v >> 31
        v *= 7046029254386353131
        v ^= v >> 29
        v *= 4658895280553007687
        v ^= v >> 32
        key += v
    return key if key != 0 else 1


@helper
def _kept_order(order, starts, n_islands, rb, rp, bkind, fkey, fpat):
    """Per island, whether `keep_islands` kept it in the last frame it stepped in (every
    row's key is the island's: the same rows over the same bodies); its rows are then put
    back in their kept order."""
    kept = np.zeros(n_islands, dtype=np.bool_)
    for s in range(n_islands):
        s0 = starts[s]
        n = starts[s + 1] - s0
        if n > MAX_DIRECT_ROWS:
            continue
        rows = order[s0:s0 + n]
        key = _island_key(rows, rb, rp, bkind)
        same = True
        for r in rows:
            if fkey[r] != key:
                same = False
                break
        if same:
            kept[s] = True
            rows = rows.copy()
            for r in rows:
                order[s0 + fpat[r, 0]] = r
    return kept


@helper
def _restore_islands(order, starts, n_islands, kept, pattern, factors, offsets, ok, fpat,
                     ffac):
    """The kept islands' patterns and factors, from `keep_islands`' store."""
    last = pattern.shape[1] - 1
    for s in range(n_islands):
        if not kept[s]:
            continue
        s0 = starts[s]
        n = starts[s + 1] - s0
        factor = factors[offsets[s]:offsets[s + 1]].reshape((n, n))
        for i in range(n):
            r = order[s0 + i]
            c = fpat[r, 1]
            pattern[s0 + i, 0] = c
            for k in range(3):
                pattern[s0 + i, last - 2 + k] = fpat[r, 2 + k]
            factor[i, i] = ffac[r, 0]
            for k in range(c):
                pattern[s0 + i, 1 + k] = fpat[r, 5 + k]
                factor[i, fpat[r, 5 + k]] = ffac[r, 1 + k]
        ok[s] = True


@helper(outline=True)
def keep_islands(plan, R, bkind, F):
    """Keep each factored island's row order, pattern and factor for the next frame, in
    per-row stores (so what an island keeps does not depend on the batch it steps in):
    fkey[r] the island's key (`_island_key`; 0: nothing kept), fpat[r] the row's place in
    the island, its pattern row and its parent, ffac[r] its row of the factor. An island
    not factored now, or whose factor is too wide (KEEP_WIDTH), keeps nothing; an island of
    many loops keeps its last solutions there instead (`_keep_loops`)."""
    (order, starts, n_islands, factors, offsets, ok, pattern, lorder, lstarts, bfirst,
     brows, gkeep, goff, gvalid, gfirst, current) = plan
    rb, rp = R[0], R[3]
    fkey, fpat, ffac = F[1], F[2], F[3]
    last = pattern.shape[1] - 1
    for s in range(n_islands):
        s0 = starts[s]
        n = starts[s + 1] - s0
        rows = order[s0:s0 + n]
        if n > MAX_DIRECT_ROWS:
            _keep_loops(rows, factors[offsets[s]:offsets[s + 1]], rb, rp, bkind, fkey, fpat,
                        ffac)
            continue
        fits = ok[s] and n <= MAX_DIRECT_ROWS
        if fits:
            for i in range(n):
                if pattern[s0 + i, 0] > KEEP_WIDTH:
                    fits = False
                    break
        if not fits:
            for r in rows:
                fkey[r] = 0
            continue
        key = _island_key(rows, rb, rp, bkind)
        factor = factors[offsets[s]:offsets[s + 1]].reshape((n, n))
        for i in range(n):
            r = rows[i]
            c = pattern[s0 + i, 0]
            fkey[r] = key
            fpat[r, 0] = i
            fpat[r, 1] = c
            for k in range(3):
                fpat[r, 2 + k] = pattern[s0 + i, last - 2 + k]
            ffac[r, 0] = factor[i, i]
            for k in range(c):
                m = pattern[s0 + i, 1 + k]
                fpat[r, 5 + k] = m
                ffac[r, 1 + k] = factor[i, m]


@helper
def _body_rows(order, n_bodies, rb):
    """Per body, the rows acting on it: their positions in `order`, increasing, at
    brows[bfirst[b]:bfirst[b + 1]] for body b (its first two slots; a row over three or
    four bodies is found by a scan, `_limit_column`). A limit or contact couples only with
    the rows at its two bodies: its column of K_el is read from these lists instead of
    asking every row of its island."""
    bfirst = np.zeros(n_bodies + 1, dtype=np.int64)
    for i in range(order.shape[0]):
        r = order[i]
        for side in range(2):
            b = rb[r, side]
            if b >= 0 and (side == 0 or b != rb[r, 0]):
                bfirst[b + 1] += 1
    for b in range(n_bodies):
        bfirst[b + 1] += bfirst[b]
    brows = np.empty(bfirst[n_bodies], dtype=np.int64)
    fill = bfirst[:n_bodies].copy()
    for i in range(order.shape[0]):
        r = order[i]
        for side in range(2):
            b = rb[r, side]
            if b >= 0 and (side == 0 or b != rb[r, 0]):
                brows[fill[b]] = i
                fill[b] += 1
    return bfirst, brows


@helper
def _contact_island(a, b, root, island_of, wide, bkind):
    """The island whose solve a contact between bodies a and b joins (-1: none). A contact
    between two islands' bodies, or touching an island with rows over three or four bodies,
    stays with the sweep."""
    ia = island_of[root[a]] if bkind[a] == DYNAMIC else -1
    ib = island_of[root[b]] if bkind[b] == DYNAMIC else -1
    if bkind[a] == DYNAMIC and bkind[b] == DYNAMIC and ia != ib:
        return -1
    s = max(ia, ib)
    return -1 if s < 0 or wide[s] else s


@helper
def closing_speed(m, k, mi, mf, bs, bkind):
    """How fast point k of manifold m closes along its normal (> 0: closing; A's velocity
    minus B's at the point, along the normal from A to B; static bodies still, kinematic
    ones at their last frame's velocity)."""
    o = CONTACT_ARMS + 6 * k
    rel = 0.0
    for side in range(2):
        body = mi[m, side]
        if bkind[body] != DYNAMIC and bkind[body] != KINEMATIC:
            continue
        arm = (mf[m, o + 3 * side], mf[m, o + 3 * side + 1], mf[m, o + 3 * side + 2])
        v = add(vec3_at(bs, body, VEL), cross(vec3_at(bs, body, SPIN), arm))
        along = dot(v, (mf[m, 0], mf[m, 1], mf[m, 2]))
        rel += along if side == 0 else -along
    return rel


@helper
def _strikes(m, k, mi, mf, bs, bkind, unit):
    """Whether point k of manifold m closes faster than CONTACT_STRIKE along its normal."""
    return closing_speed(m, k, mi, mf, bs, bkind) > CONTACT_STRIKE * unit


@helper
def island_limits(order, starts, n_islands, root, R, rows, n_rows, bkind, mi, mf, bs, unit,
                  coarse):
    """The joints' limit rows (lambda >= 0, not springs) grouped by the island of equality
    rows they act in: (rows ordered by island, island start offsets). A limit row whose
    bodies have no equality rows stays with the iterative sweep only.

    The normal rows of the contact manifolds mi join them (`_contact_island`), numbered
    after the joint rows: contact row c is n_rows + c. Not those of round bodies (spheres,
    capsules, cylinders: mf's ROLLS flag): their patch rolls, friction stays with the sweep,
    and solved with the island a ragdoll's head resting on the floor spun up (0.3 to 4
    rad/s) and two cars steered alike on cylinder wheels turned 1 % apart
    (tests/addon/test_mechanisms_blender.py). Unless it strikes: a round body's point closing
    faster than CONTACT_STRIKE at the frame's start (`_strikes`) joins for that frame. A
    ragdoll toppling after it lands at 4 substeps hit the floor with a capsule forearm that
    the sweep stopped and its elbow's exact solve pulled 9.2 mm into the floor (2 mm at 8
    substeps; bench/landing.py --set jointed_substeps=4). Solved with the island, a landing's
    contacts stop the whole body at once; swept before the island's exact solve, a 1 kg
    foot under a 70 kg body stopped only itself, and the joints pulled it 5 cm into the
    floor. A round body's other points join, in an island without a motor, drive or
    spring, when they carry a load (`_contact_row`'s load_only; the solve's CONTACT_LOAD):
    lying on the floor under an elbow's exact solve, a ragdoll's capsule forearm at 4
    substeps was pushed up by the sweep and down again by the elbow, and sank 6.8 mm over
    ten frames (bench/scenes.ragdolls(20); 1.9 mm at most at 8). A head resting under its
    own weight does not reach the load, and cars' wheels (their islands driven) stay with
    the sweep. Only against the world, a static, kinematic or sleeping body: a round body
    pressed against another body of its own island (a metarig's capsule upper arm against
    its spine) joined by its load and closed a loop through the joints, and the exact solve
    bent the metarig's wrist 7.21 degrees past its limit at 8 substeps
    (tests/addon/test_ragdoll.py). Those load-only rows join only when `coarse` (the batch
    steps at Jointed Substeps below the world's count and did not start the frame calm): at
    the world's count they kept a crowd's ragdoll swinging, and in calm frames (Calm
    Substeps) they cost a crowd lying still 13 % more CPU (docs/decisions/jointed-substeps.md)."""
    rb, rp = R[0], R[3]
    island_of = np.full(root.shape[0], -1, dtype=np.int64)
    wide = np.zeros(n_islands + 1, dtype=np.bool_)
    driven = np.zeros(n_islands + 1, dtype=np.bool_)
    for s in range(n_islands):
        island_of[root[_dynamic_body(order[starts[s]], rb, rp, bkind)]] = s
        wide[s] = _has_wide(order[starts[s]:starts[s + 1]], rp)
    for r in rows:
        if rp[r, ACTIVE] != 0.0 and not _is_equality(r, rp) and not _is_limit(r, rp):
            body = _dynamic_body(r, rb, rp, bkind)
            if body >= 0 and island_of[root[body]] >= 0:
                driven[island_of[root[body]]] = True      # a motor, drive or spring
    span = n_rows + CONTACT_ROWS * mi.shape[0] + 1
    keys = np.empty(rows.shape[0] + 4 * mi.shape[0], dtype=np.int64)
    count = 0
    for r in rows:
        if _is_limit(r, rp):
            body = _dynamic_body(r, rb, rp, bkind)
            if body >= 0 and island_of[root[body]] >= 0:
                keys[count] = island_of[root[body]] * span + r
                count += 1
    if n_islands > 0:
        for m in range(mi.shape[0]):
            s = _contact_island(mi[m, 0], mi[m, 1], root, island_of, wide, bkind)
            if s < 0:
                continue
            for k in range(mi[m, 2]):
                if mf[m, CONTACT_ROLLS] == 0.0 or _strikes(m, k, mi, mf, bs, bkind, unit):
                    keys[count] = s * span + n_rows + CONTACT_ROWS * m + k
                    count += 1
                elif coarse and not driven[s] and (bkind[mi[m, 0]] != DYNAMIC or
                                        bkind[mi[m, 1]] != DYNAMIC):
                    keys[count] = s * span + n_rows + CONTACT_ROWS * m + LOAD_ONLY + k
                    count += 1
    keys = keys[:count]
    keys = keys[argsort(keys)]
    lorder = np.empty(count, dtype=np.int64)
    lstarts = np.zeros(n_islands + 1, dtype=np.int64)
    for i in range(count):
        island = keys[i] // span
        lorder[i] = keys[i] - island * span
        lstarts[island + 1] += 1
    for s in range(n_islands):
        lstarts[s + 1] += lstarts[s]
    return lorder, lstarts


@helper(inline=True)
def factor_islands(plan, R, binv, bs, bI, fpose, unit, bkind, which):
    """Factor each island's K for this substep and hand its rows to the direct solver.
    An island too large to factor whose joints close loops is solved by conjugate gradients
    (`_solve_loops`); a larger tree or mechanism, or a singular island, stays with the
    iterative sweep.

    An island factored before (in this frame, or kept from the last: `keep_islands`)
    keeps its factor while K = J M^-1 J^T has
    barely changed since (`_barely_moved`): none of its bodies turned by REUSE_TURN or more,
    no row's bodies moved apart by REUSE_SHIFT or more, and no body's solve inertia (bI:
    turned, stiffened by its joints' loads) changed by REUSE_INERTIA. K is then within
    about that fraction of the one factored, and the solves, the Newton step of the
    position projection and the relax pass, stay exact to that, but for a pressed limit
    the joints nearly hold on their own: its island is factored again where it is solved
    (FRAGILE_SCHUR, `_solve_island`). A ragdoll lying still or
    falling in one piece keeps one factor for many substeps. fpose: per body, its pose and
    solve inertia when its island was last factored (quaternion, position, bI: 16 numbers),
    written here; unit: length units per metre. which: per island, look at it when > 0
    (the projection's further Newton steps factor only the islands that take them: looked
    at again, an island its own projection moved a little past REUSE_TURN since its kept
    factoring was factored anew, and so by the batch it was in: by the thread count).

    (Arrays reach the kernel one by one: an array taken out of a tuple costs numba a
    reference-count update, see step.py.)"""
    (order, starts, n_islands, factors, offsets, ok, pattern, lorder, lstarts, bfirst,
     brows, gkeep, goff, gvalid, gfirst, current) = plan
    _factor_islands(order, starts, n_islands, factors, offsets, ok, pattern, lorder,
                    lstarts, bfirst, brows, gkeep, goff, gvalid, gfirst, current,
                    *R, binv, bs, bI, fpose, unit, bkind, which)


@helper
def _barely_moved(rows, rb, rp, bs, bI, fpose, turn, shift):
    """Whether the rows' bodies all turned by less than `turn` (rad), moved apart from each
    row's first body by less than `shift` (units), and keep their solve inertia within the
    fraction REUSE_INERTIA, since fpose was written (`_remember_poses`). The static world never
    moves; a kinematic body counts like any. A joint's rows come one after another and
    share its bodies: a two-body row on the bodies of the row before it is not checked
    again (20 ragdolls at rest: the checks 4.0 -> 1.5 % of the step)."""
    cos2 = math.cos(0.5 * turn) ** 2
    last_a = -2
    last_b = -2
    for r in rows:
        first = rb[r, 0]
        if rp[r, ACTIVE] == WIDE:
            last_a = -2
        elif first == last_a and rb[r, 1] == last_b:
            continue
        else:
            last_a = first
            last_b = rb[r, 1]
        for i in range(4 if rp[r, ACTIVE] == WIDE else 2):
            body = row_body(r, i, rb, rp)
            if body < 0:
                continue
            d = 0.0
            for k in range(4):
                d += bs[body, ROT + k] * fpose[body, k]
            if d * d < cos2 * (1.0 - 1e-15):
                return False
            big = 0.0
            change = 0.0
            for k in range(9):
                big += fpose[body, 7 + k] ** 2
                change += (bI[body, k] - fpose[body, 7 + k]) ** 2
            if change > REUSE_INERTIA * REUSE_INERTIA * big:
                return False
            apart = 0.0
            for k in range(3):
                u = bs[first, POS + k] - fpose[first, 4 + k] if first >= 0 else 0.0
                apart += (bs[body, POS + k] - fpose[body, 4 + k] - u) ** 2
            if apart >= shift * shift:
                return False
    return True


@helper
def _remember_poses(rows, rb, rp, bs, bI, fpose):
    """Write the rows' bodies' poses and solve inertias into fpose (`_barely_moved`)."""
    for r in rows:
        for i in range(4 if rp[r, ACTIVE] == WIDE else 2):
            body = row_body(r, i, rb, rp)
            if body < 0:
                continue
            for k in range(4):
                fpose[body, k] = bs[body, ROT + k]
            for k in range(3):
                fpose[body, 4 + k] = bs[body, POS + k]
            for k in range(9):
                fpose[body, 7 + k] = bI[body, k]


@helper(outline=True)
def _factor_islands(order, starts, n_islands, factors, offsets, ok, pattern, lorder,
                    lstarts, bfirst, brows, gkeep, goff, gvalid, gfirst, current,
                    rb, rj, rd, rp, rk, binv, bs, bI, fpose, unit, bkind, which):
    plan = Plan(order, starts, n_islands, factors, offsets, ok, pattern, lorder, lstarts,
                bfirst, brows, gkeep, goff, gvalid, gfirst, current)
    R = (rb, rj, rd, rp, rk)
    for s in range(n_islands):
        if which[s] <= 0.0:
            continue
        n = starts[s + 1] - starts[s]
        rows = order[starts[s]:starts[s + 1]]
        if ok[s] and n <= MAX_DIRECT_ROWS and _barely_moved(rows, rb, rp, bs, bI, fpose,
                                                            REUSE_TURN, REUSE_SHIFT * unit):
            current[s] = False
            continue
        current[s] = True
        ok[s] = False
        gvalid[lstarts[s]:lstarts[s + 1]] = False      # the kept columns of G (`_solve_island`)
        if n > MAX_DIRECT_ROWS:
            ok[s] = _closes_loops(rows, rb, rp, bkind) and not _has_wide(rows, rp)
            continue
        factor = factors[offsets[s]:offsets[s + 1]].reshape((n, n))
        ok[s] = _factor_island(rows, pattern[starts[s]:starts[s + 1]], n, R, binv, factor)
        if ok[s]:
            _remember_poses(rows, rb, rp, bs, bI, fpose)
    mark_direct(plan, R[3])


@helper
def mark_direct(plan, rp):
    """Flag the rows of factored islands so the iterative sweep skips them (again after the
    rows are re-prepared: preparing resets the flag)."""
    (order, starts, n_islands, factors, offsets, ok, pattern, lorder, lstarts, bfirst,
     brows, gkeep, goff, gvalid, gfirst, current) = plan
    for s in range(n_islands):
        if ok[s]:
            for i in range(starts[s], starts[s + 1]):
                rp[order[i], BLOCK] = DIRECT


@helper(inline=True)
def _island(plan, s):
    """(rows, Cholesky factor, its pattern, limit rows, the limit rows' kept columns of G
    with their validity and first rows) of island s of the plan: views of the plan's
    arrays. Inlined, so that its callers see the views made of the arrays they borrow and
    count no references (jit.py `_borrowed_part`); called, it hands views back, which
    numba counts."""
    (order, starts, n_islands, factors, offsets, ok, pattern, lorder, lstarts, bfirst,
     brows, gkeep, goff, gvalid, gfirst, current) = plan
    n = starts[s + 1] - starts[s]
    nl = lstarts[s + 1] - lstarts[s]
    return (order[starts[s]:starts[s + 1]], factors[offsets[s]:offsets[s + 1]].reshape((n, n)),
            pattern[starts[s]:starts[s + 1]], lorder[lstarts[s]:lstarts[s + 1]],
            gkeep[goff[s]:goff[s + 1]].reshape((nl, n)), gvalid[lstarts[s]:lstarts[s + 1]],
            gfirst[lstarts[s]:lstarts[s + 1]])


@helper
def _dot_from(u, v, i0, n):
    s = 0.0
    for i in range(i0, n):
        s += u[i] * v[i]
    return s


@helper(inline=True)
def island_contact_inertia(plan, R, C, bI, binv):
    """The contact rows that join an island's solve see the inertia its joint rows see (the
    substep's, stiffened by the joints' loads, bodies.py) instead of the frame's first:
    with two inertias in one K its Schur complement on the contacts was indefinite right
    after an impact (the stiffening follows the joints' last impulses)."""
    CR = C[3]
    _island_contact_inertia(plan.lorder, CR[0], CR[1], CR[2], CR[3], bI, binv, R[3].shape[0])


@helper(outline=True)
def _island_contact_inertia(lorder, crb, crj, crd, crp, bI, binv, nr):
    for r in lorder:
        if r >= nr:
            c, _ = _contact_row(r, nr)
            refresh_row_mass(c, crb, crj, crd, crp, binv, bI)


@helper
def _contact_row(r, nr):
    """Contact row c of the plan's limit entry r (>= nr, the joint rows' count), and
    whether it joins its island's solve by its load only (a round body's point that does not
    strike: `island_limits` lists it as 8 m + LOAD_ONLY + k, a friction row's slot)."""
    c = r - nr
    if c % CONTACT_ROWS >= LOAD_ONLY:
        return c - LOAD_ONLY, True
    return c, False


@helper
def _contact_softness(c, crp):
    """The soft contact row's compliance as a K diagonal term, K_c / a2: Box2D v3's soft
    update dlambda = -EFF MASS_SCALE (Cdot + bias) - IMPULSE_SCALE lambda is the rigid one
    for K + K / a2 with a2 = MASS_SCALE / IMPULSE_SCALE (0 for a rigid, speculative row)."""
    if crp[c, IMPULSE_SCALE] == 0.0 or crp[c, EFF] == 0.0:
        return 0.0
    return crp[c, IMPULSE_SCALE] / (crp[c, MASS_SCALE] * crp[c, EFF])


@helper
def _pgs(s, r, lam0, m, dl):
    """Projected Gauss-Seidel sweeps on `_limit_lcp`'s system, from dl: it lowers the LCP's
    energy every step (S positive semi-definite), so it cannot push harder than the limits
    need. Used when block pivoting does not settle or S is singular (several coplanar
    contact points of one body, or contacts and limits holding the same motion)."""
    for _ in range(PGS_SWEEPS):
        for a in range(m):
            if s[a, a] <= 0.0:
                continue
            w = r[a] + _dot_from(s[a], dl, 0, m)
            dl[a] = max(lam0[a] + dl[a] - w / s[a, a], 0.0) - lam0[a]


@helper
def _limit_lcp(s, r, lam0, m, dl, act, idx, sub, rhs, dense):
    """dl for the limit rows' LCP on their Schur complement S (positive definite):

        w = S dl + r,   lam = lam0 + dl >= 0,   w >= 0,   lam w = 0

    by block principal pivoting (Judice & Pires): solve the rows of the active set as
    equalities (w = 0) with the others released (lam = 0), drop the rows whose impulse
    turns negative, take back released rows that are pressed (w < 0), repeat. A few rounds
    settle the handful of limits pressed at once; if they do not, the impulses are clamped
    (the equality rows stay exact whatever dl is: the caller solves them for it).
    act, idx, sub, rhs: scratch of at least m (m x m); dense: m zeros (an envelope that
    starts at column 0)."""
    act[:m] = True
    for _ in range(MAX_LIMIT_ROUNDS):
        k = 0
        for a in range(m):
            if act[a]:
                idx[k] = a
                k += 1
            else:
                dl[a] = -lam0[a]
        big = 0.0
        for i in range(k):
            ai = idx[i]
            v = r[ai]
            for b in range(m):
                if not act[b]:
                    v += s[ai, b] * dl[b]
            rhs[i] = -v
            for j in range(i + 1):
                sub[i, j] = s[ai, idx[j]]
            big = max(big, sub[i, i])
        if k > 0:
            # Two opposite limits pressed at once (lower == upper) make S singular.
            for i in range(k):
                sub[i, i] += 1e-9 * big
            if not cholesky(sub, dense, k):
                # singular beyond the regularisation: coplanar contact points of one body
                # (four on a face hold three degrees of freedom)
                dl[:m] = 0.0
                _pgs(s, r, lam0, m, dl)
                return
            cholesky_solve(sub, dense, k, rhs)
            for i in range(k):
                dl[idx[i]] = rhs[i]
        changed = False
        for a in range(m):
            if act[a]:
                if lam0[a] + dl[a] < 0.0:
                    act[a] = False
                    changed = True
            elif r[a] + _dot_from(s[a], dl, 0, m) < 0.0:
                act[a] = True
                changed = True
        if not changed:
            return
    dl[:m] = 0.0         # from the impulses the pass began with: the unsettled pivots' dl
    _pgs(s, r, lam0, m, dl)      # can be far off (clamped, it once threw a car 7 m up)


@helper(outline=True)
def scratch(plan):
    """Work arrays for `_solve_island`, sized to the plan's largest island and limit count:
    (x, lims, bl, lam0, dl, pressed, start, s, r, act, idx, sub, rhs, dense, soft,
    live, which, move); the columns of G are the plan's (gkeep); move: per body of the
    world, the displacements `_project_positions` sums (made here once a frame instead of
    at each projection)."""
    starts, n_islands, lstarts = plan.starts, plan.n_islands, plan.lstarts
    n = 1
    m = 1
    for i in range(n_islands):
        n = max(n, starts[i + 1] - starts[i])
        m = max(m, lstarts[i + 1] - lstarts[i])
    return (np.empty(n), np.empty(m, dtype=np.int64), np.empty(m), np.empty(m), np.empty(m),
            np.zeros(m, dtype=np.bool_), np.empty(m, dtype=np.int64),
            np.empty((m, m)), np.empty(m), np.empty(m, dtype=np.bool_),
            np.empty(m, dtype=np.int64), np.empty((m, m)), np.empty(m),
            np.zeros(m, dtype=np.int64), np.zeros(m), np.empty(n, dtype=np.bool_),
            np.empty(m, dtype=np.int64), np.zeros((plan.bfirst.shape[0] - 1, 7)))


@helper
def _touches(r, a, b, rb):
    """Row r acts on body a or b (bodies of another row; -1, the world, never counts)."""
    for side in range(2):
        body = rb[r, side]
        if body >= 0 and (body == a or body == b):
            return True
    return False


@helper
def _limit_coupling(row, lim, la, lb, wide, rb, rj, rd, rp, crb, crj, crd, binv):
    """K[row, lim] (la, lb: the limit's bodies; lim >= the joint rows' count: a contact
    row); `wide`: the island has rows over three or four bodies (and no contact rows)."""
    if wide:
        return wide_coupling(row, lim, rb, rj, rd, rp, binv)
    if _touches(row, la, lb, rb):
        nr = rp.shape[0]
        if lim >= nr:
            return coupling_between(row, rb, rj, lim - nr, crb, crj, crd, binv)
        return coupling(row, lim, rb, rj, rd, binv)
    return 0.0


@helper
def _limits_coupling(x, y, wide, rb, rj, rd, rp, crb, crj, crd, binv):
    """K[x, y] of two limit rows, either of them a contact row (numbered after the joint
    rows)."""
    if wide:
        return wide_coupling(x, y, rb, rj, rd, rp, binv)
    nr = rp.shape[0]
    if x < nr and y < nr:
        return coupling(x, y, rb, rj, rd, binv)
    if x < nr:
        return coupling_between(x, rb, rj, y - nr, crb, crj, crd, binv)
    if y < nr:
        return coupling_between(y, rb, rj, x - nr, crb, crj, crd, binv)
    return coupling(x - nr, y - nr, crb, crj, crd, binv)


@helper
def _limit_bodies(r, rb, rp, crb):
    nr = rp.shape[0]
    if r >= nr:
        return crb[r - nr, 0], crb[r - nr, 1]
    return rb[r, 0], rb[r, 1]


@helper
def _limit_column(rows, lim, wide, R, CR, binv, bfirst, brows, s0, ga):
    """ga <- K_el's column of limit row lim (the island's rows `rows`, at positions s0... of
    the plan's order); returns the first row it couples with (len(rows): none). Only the
    rows at the limit's two bodies couple with it, listed per body in (bfirst, brows): the
    others are zero, as `_limit_coupling` would find them, at the cost of the two bodies'
    rows instead of the island's (an island with rows over three or four bodies asks every
    row)."""
    rb, rj, rd, rp = R[0], R[1], R[2], R[3]
    crb, crj, crd = CR[0], CR[1], CR[2]
    n = rows.shape[0]
    la, lb = _limit_bodies(lim, rb, rp, crb)
    f0 = n
    if wide:
        for i in range(n):
            ga[i] = _limit_coupling(rows[i], lim, la, lb, wide, rb, rj, rd, rp, crb, crj, crd,
                                    binv)
            if ga[i] != 0.0 and f0 == n:
                f0 = i
        return f0
    ga[:n] = 0.0
    for body in (la, lb):
        if body < 0:
            continue
        for t in range(bfirst[body], bfirst[body + 1]):
            i = brows[t] - s0
            if i < 0 or i >= n:            # a static body's rows in another island
                continue
            ga[i] = _limit_coupling(rows[i], lim, la, lb, wide, rb, rj, rd, rp, crb, crj, crd,
                                    binv)
            if ga[i] != 0.0 and i < f0:
                f0 = i
    return f0


@helper
def _solve_island(rows, factor, pattern, lims, m, wide, R, CR, binv, x, bl, lam0, dl, W,
                  bfirst, brows, s0, which, gk, gv, gf):
    """The island's impulses for the equality rows (x, in: their b_e; out: d_e) and the m
    pressed limit rows lims (dl), from

        [K_ee K_el] [d_e]     [b_e]
        [K_le K_ll] [d_l] = - [b_l],    lam0 + d_l >= 0 (a limit only pushes).

    K_ee = L L^T has its factor; the limits enter through their Schur complement
    S = K_ll - G^T G with G = L^-1 K_el, a small dense system (`_limit_lcp`), and then
    d_e = -L^-T (L^-1 b_e + G d_l) holds the equality rows exactly. A limit couples only
    with the rows of the joints at its two bodies (only those are asked for K_el), so each
    column of G starts late in the island's order, its forward solve starts there and
    visits only the joints on the way to the root (`_forward_sparse`).
    W: work arrays from `scratch`; `wide`: the island has rows over three or four bodies.
    CR: the contact rows' tables (rb, rj, rd), for limits numbered past the joint rows.
    bfirst, brows: the plan's rows per body (`_body_rows`); s0: the island's first row's
    position in the plan's order.

    The pressed row lims[a] is the island's limit row which[a]; its column of G is kept
    in gk[which[a]] (first row gf, valid while gv) until the island is factored again
    (`_factor_islands`): the rounds of a pass, the passes and projections of the substeps
    an island keeps its factor through (a ragdoll lying still) compute it once. K_el is
    then that of the poses the column was made at, as K_ee is that of the factoring:
    both within the reuse tolerances of today's. Returns whether a pressed limit's S fell
    under FRAGILE_SCHUR of its K_ll: a small difference of large numbers, which those
    tolerances can leave wrong or negative (the caller factors the island again and solves
    it again when its factor is not `current`, `_refactor`)."""
    rb, rj, rd, rp = R[0], R[1], R[2], R[3]
    crb, crj, crd = CR[0], CR[1], CR[2]
    start, s, r, act, idx, sub, rhs, dense, soft, live = W[6:16]
    n = rows.shape[0]
    fragile = False
    _forward(factor, pattern, n, x, 0)                    # z = L^-1 b_e
    if m > 0:
        for a in range(m):
            k = which[a]
            if not gv[k]:
                ga = gk[k]
                f0 = _limit_column(rows, lims[a], wide, R, CR, binv, bfirst, brows, s0, ga)
                _forward_sparse(factor, pattern, n, ga, f0, live)    # G = L^-1 K_el
                gf[k] = f0
                gv[k] = True
            start[a] = gf[k]
        for a in range(m):
            ga = gk[which[a]]
            r[a] = bl[a] - _dot_from(ga, x, start[a], n)
            for b in range(a + 1):
                k_ab = _limits_coupling(lims[a], lims[b], wide, rb, rj, rd, rp, crb, crj,
                                        crd, binv)
                s[a, b] = k_ab - _dot_from(ga, gk[which[b]], max(start[a], start[b]), n)
                s[b, a] = s[a, b]
            if s[a, a] < FRAGILE_SCHUR * k_ab:        # k_ab: K_ll's diagonal (b == a)
                fragile = True
            s[a, a] += soft[a]
            r[a] += soft[a] * lam0[a]
        _limit_lcp(s, r, lam0, m, dl, act, idx, sub, rhs, dense)
        for a in range(m):
            ga = gk[which[a]]
            for i in range(start[a], n):
                x[i] += ga[i] * dl[a]
    _backward(factor, pattern, n, x)
    for i in range(n):
        x[i] = -x[i]
    return fragile


@helper
def _refactor(s, rows, pattern, n, R, binv, factor, gv, ok, current):
    """Factor island s again at its rows as now prepared (its kept factor gave a pressed
    limit a Schur complement under FRAGILE_SCHUR, `_solve_island`), its columns of G
    dropped; it is `current` then. Returns whether K factored (if not, the island is not
    ok until the next `factor_islands` factors it)."""
    current[s] = True
    gv[:] = False
    ok[s] = _factor_island(rows, pattern, n, R, binv, factor)
    return ok[s]


@helper
def _rhs(r, use_bias, rj, rp, bs, rb):
    """J v + bias of row r (the relax pass keeps only the always-on TARGET)."""
    return row_cdot(r, rb, rj, rp, bs) + rp[r, TARGET] + (rp[r, BIAS] if use_bias else 0.0)


@helper(inline=True)
def solve_direct(plan, use_bias, R, acc, bs, binv, W, C):
    """Project velocities exactly onto J v = -bias (solve pass) or J v = -target (relax) for
    the equality rows and the pressed limit rows: those already pushing (lambda > 0) or
    being driven past their bound now. A limit row's total impulse stays >= 0.

    The equality rows' impulses can drive a limit of the island that was not pressed past its
    bound; then the island is solved again with that limit in the pressed set (at most
    MAX_DIRECT_ROUNDS solves per island), so no sweep has to run between two direct solves.
    W: work arrays from `scratch`. C: the batch's contacts (contacts.py); their normal rows
    numbered past the joint rows in the plan's limits are solved here like limits: those
    closing faster than CONTACT_CLOSING, or pushing harder than CONTACT_LOAD says (a
    contact the sweep holds on its own stays with it).

    (Arrays reach the kernel one by one: an array taken out of a tuple costs numba a
    reference-count update, see step.py.)"""
    CR = C[3]
    (order, starts, n_islands, factors, offsets, ok, pattern, lorder, lstarts, bfirst,
     brows, gkeep, goff, gvalid, gfirst, current) = plan
    _solve_direct(order, starts, n_islands, factors, offsets, ok, pattern, lorder,
                  lstarts, bfirst, brows, gkeep, goff, gvalid, gfirst, current,
                  use_bias, *R, acc, bs, binv, *W, CR[0], CR[1], CR[2], CR[3], C[2],
                  C[4][8])


@helper(outline=True)
def _solve_direct(order, starts, n_islands, factors, offsets, ok, pattern, lorder,
                  lstarts, bfirst, brows, gkeep, goff, gvalid, gfirst, current,
                  use_bias, rb, rj, rd, rp, rk, acc, bs, binv,
                  x, lims, bl, lam0, dl, pressed, start, s_, r_, act, idx, sub, rhs, dense,
                  soft, live, which, move, crb, crj, crd, crp, cacc, unit):
    plan = Plan(order, starts, n_islands, factors, offsets, ok, pattern, lorder, lstarts,
                bfirst, brows, gkeep, goff, gvalid, gfirst, current)
    R = (rb, rj, rd, rp, rk)
    CR = (crb, crj, crd)
    W = (x, lims, bl, lam0, dl, pressed, start, s_, r_, act, idx, sub, rhs, dense, soft,
         live, which, move)
    nr = rp.shape[0]
    for s in range(plan.n_islands):
        if not ok[s]:
            continue
        if starts[s + 1] - starts[s] > MAX_DIRECT_ROWS:
            rows = order[starts[s]:starts[s + 1]]
            for i in range(len(rows)):
                x[i] = _rhs(rows[i], use_bias, rj, rp, bs, rb)
            store = factors[offsets[s]:offsets[s + 1]]   # the solve pass's solutions
            _solve_loops(rows, rb, rj, rd, binv, x, unit, store if use_bias else store[:0])
            for i in range(len(rows)):
                acc[rows[i]] += x[i]
                row_apply(rows[i], x[i], rb, rj, rd, rp, bs, binv)
            continue
        rows, factor, pattern, limits, gk, gv, gf = _island(plan, s)
        n = len(rows)
        nl = len(limits)
        wide = _has_wide(rows, rp) or _has_wide(limits, rp)
        pressed[:nl] = False
        for round_ in range(MAX_DIRECT_ROUNDS):
            m = 0
            fresh = False
            for k in range(nl):
                r = limits[k]
                if r >= nr:                       # a contact row
                    c, load_only = _contact_row(r, nr)
                    if crp[c, ACTIVE] == 0.0:
                        continue
                    r = nr + c
                    b = _rhs(c, use_bias, crj, crp, bs, crb)
                    lam = cacc[c]
                    closing = b <= -CONTACT_CLOSING * unit and not load_only
                    if not pressed[k] and not closing and \
                            lam <= CONTACT_LOAD * unit * crp[c, EFF]:
                        continue
                else:
                    if not _is_limit(r, rp):
                        continue
                    b = _rhs(r, use_bias, rj, rp, bs, rb)
                    lam = acc[r]
                if lam > 0.0 or b < 0.0:
                    if not pressed[k]:
                        pressed[k] = True
                        fresh = True
                    which[m] = k
                    lims[m] = r
                    bl[m] = b
                    lam0[m] = lam
                    soft[m] = _contact_softness(r - nr, crp) if r >= nr and use_bias else 0.0
                    m += 1
            if round_ > 0 and not fresh:
                break
            for i in range(n):
                x[i] = _rhs(rows[i], use_bias, rj, rp, bs, rb)
            dl[:m] = 0.0
            if _solve_island(rows, factor, pattern, lims, m, wide, R, CR, binv, x, bl, lam0,
                             dl, W, bfirst, brows, starts[s], which, gk, gv, gf) and \
                    not current[s]:
                if not _refactor(s, rows, pattern, n, R, binv, factor, gv, ok, current):
                    break
                for i in range(n):
                    x[i] = _rhs(rows[i], use_bias, rj, rp, bs, rb)
                dl[:m] = 0.0
                _solve_island(rows, factor, pattern, lims, m, wide, R, CR, binv, x, bl, lam0,
                              dl, W, bfirst, brows, starts[s], which, gk, gv, gf)
            for i in range(n):
                r = rows[i]
                acc[r] += x[i]
                row_apply(r, x[i], rb, rj, rd, rp, bs, binv)
            for a in range(m):
                r = lims[a]
                if r >= nr:
                    c = r - nr
                    cacc[c] += dl[a]
                    apply_impulse(c, dl[a], crb, crj, crd, bs, binv)
                else:
                    acc[r] += dl[a]
                    row_apply(r, dl[a], rb, rj, rd, rp, bs, binv)


@helper
def _add_displacement(r, d, rb, rj, rd, rp, binv, move):
    """Add row r's position-level 'impulse' d to its bodies' displacements, M^-1 J^T d:
    move[body, 0:3] the shift, move[body, 3:6] the turn (a rotation vector), move[body, 6]
    1 once the body has one."""
    slots = 2 if rp[r, ACTIVE] == WIDE else 1
    for slot in range(slots):
        q = r + slot
        for side in range(2):
            body = rb[q, side]
            if body >= 0 and binv[body] != 0.0:
                move[body, 6] = 1.0
                s = d * binv[body]
                o = 6 * side
                for k in range(3):
                    move[body, k] += rj[q, o + k] * s
                    move[body, 3 + k] += d * rd[q, 3 * side + k]


@helper
def _largest_turn2(r, rp, rb, move):
    """The square of the largest turn among row r's bodies."""
    worst = 0.0
    for i in range(4):
        body = row_body(r, i, rb, rp)
        if body >= 0:
            worst = max(worst, move[body, 3] ** 2 + move[body, 4] ** 2 + move[body, 5] ** 2)
    return worst


@helper
def _move_bodies(r, step, rp, rb, bs, move):
    """Move row r's bodies by step times their displacement, once each: the displacement is
    cleared as it is applied (for the next island)."""
    for i in range(4):
        body = row_body(r, i, rb, rp)
        if body < 0:
            continue
        if move[body, 6] == 0.0:
            continue
        for k in range(3):
            bs[body, k] += step * move[body, k]
        q = qintegrate(quat_at(bs, body, ROT), (move[body, 3], move[body, 4], move[body, 5]),
                       step)
        for k in range(4):
            bs[body, ROT + k] = q[k]
        for k in range(7):
            move[body, k] = 0.0


@helper(outline=True)
def near_islands(plan, jt):
    """Per island of the plan, whether its limits near their bound join the projection
    (`_projected_limit`): not in an island with a spring or a drive. With them, a metarig
    carrying a jiggle chain (ragdoll joints sprung at 6 Hz, twist within 5 degrees) was
    thrown 6e22 m within 30 frames (tests/addon/test_chain_and_ragdoll.py); the cause is
    not found (docs/decisions/jointed-substeps.md)."""
    order, starts = plan.order, plan.starts
    near = np.ones(plan.n_islands, dtype=np.bool_)
    for s in range(plan.n_islands):
        for i in range(starts[s], starts[s + 1]):
            if jt[order[i] // MAX_ROWS, FLAGS] & (HAS_SPRING | HAS_DRIVE):
                near[s] = False
                break
    return near


@helper(outline=True)
def lean_islands(plan, jt):
    """Per island of the plan, whether all its joints are articulation joints (ball
    sockets, hinges, ragdoll cones): such an island skips its position projection in a
    substep that left its joints within PROJECTION_TOLERANCE (`_within_tolerance`).
    Mechanisms, welds, pins, sliders and custom constraints keep it every substep: a gear's
    coupled angles, an Atwood rope and a weld are held near rounding (tests/solver). The
    island's limit rows count too: a rope or a pulley is one-sided, a limit row only."""
    order, starts, lorder, lstarts = plan.order, plan.starts, plan.lorder, plan.lstarts
    lean = np.zeros(plan.n_islands, dtype=np.bool_)
    for s in range(plan.n_islands):
        lean[s] = (_articulated(order[starts[s]:starts[s + 1]], jt)
                   and _articulated(lorder[lstarts[s]:lstarts[s + 1]], jt))
    return lean


@helper
def _articulated(rows, jt):
    """Whether every joint row of `rows` (contact rows, numbered past the joints', aside)
    is a ball socket's, a hinge's or a ragdoll cone's."""
    for r in rows:
        j = r // MAX_ROWS
        if j < jt.shape[0]:
            kind = jt[j, TYPE]
            if not (kind == BALL or kind == HINGE or kind == RAGDOLL):
                return False
    return True


@helper
def _within_tolerance(rows, limits, rj, rp, unit):
    """Whether the island's equality rows hold their positions within PROJECTION_TOLERANCE
    (rows prepared with BIAS = C) and none of its limits is violated by more: the Newton
    step of the projection would move its bodies by about that. Skipped, the error is left
    to the next substep's solve pass (its soft bias) and projection: it stays within about
    the tolerance, where a ragdoll lying still leaves 1e-9 to 4e-8 m a substep."""
    for r in rows:
        linear = False
        for k in (0, 1, 2, 6, 7, 8):
            if rj[r, k] != 0.0:
                linear = True
        tol = PROJECTION_TOLERANCE * unit if linear else PROJECTION_TOLERANCE
        if abs(rp[r, BIAS]) > tol:
            return False
    for r in limits:
        if r < rp.shape[0] and _is_limit(r, rp):
            linear = False
            for k in (0, 1, 2, 6, 7, 8):
                if rj[r, k] != 0.0:
                    linear = True
            tol = PROJECTION_TOLERANCE * unit if linear else PROJECTION_TOLERANCE
            if rp[r, BIAS] < -tol:
                return False
    return True


@helper
def projection_turn(h, h_full):
    """The most a body turns in one projection of a substep of length h, when the world's
    substeps are h_full long: MAX_PROJECTION_TURN at the world's count, so much a second.
    Per substep, an island stepped at half the count (jointed_substeps) caught up with a
    limit bent past by an impact at half the rate a second, and the frame ended before it
    had: at 4 substeps a Rigify metarig's ankle ended its landing frame 10.4 degrees past
    its limit (tests/addon/test_ragdoll_substeps.py)."""
    return MAX_PROJECTION_TURN * (h / h_full)


@helper
def newton_joints(plan, todo, n_joints):
    """The joints of the plan's islands marked in `todo` (`project_positions`), each once:
    the joints to prepare again at their projected poses before another Newton step."""
    order, starts, lorder, lstarts = plan.order, plan.starts, plan.lorder, plan.lstarts
    seen = np.zeros(n_joints, dtype=np.bool_)
    joints = np.empty(n_joints, dtype=np.int64)
    n = 0
    for s in range(plan.n_islands):
        if todo[s] > 0.0:
            for rows in (order[starts[s]:starts[s + 1]], lorder[lstarts[s]:lstarts[s + 1]]):
                for r in rows:
                    j = r // MAX_ROWS
                    if j < n_joints and not seen[j]:     # contact rows aside
                        seen[j] = True
                        joints[n] = j
                        n += 1
    return joints[:n]


@helper(inline=True)
def project_positions(plan, R, bs, binv, W, C, lean, h, near, todo):
    """Post-stabilisation (Cline & Pai 2003): one Newton step on the position errors,
    K dp = -C, moving bodies by M^-1 J^T dp, for the equality rows and the violated limit
    rows (C < 0), whose dp may only push (dp >= 0, `_limit_lcp`). Each body moves once, by
    its rows' summed shift and rotation vector (composing a rotation per row cost a
    quaternion update per row and side and is not the Newton step: a ragdoll's joints
    gaped 0.27 mm instead of 0.01 at 4 substeps). Rows must hold BIAS = C
    (bias rate 1; a limit inside its range holds BIAS = 0). Velocities are untouched, so
    this removes drift without adding energy. W: work arrays from `scratch`.

    (Arrays reach the kernel one by one: an array taken out of a tuple costs numba a
    reference-count update, see step.py.)

    An island of articulation joints (`lean`, from `lean_islands`) whose joints are within
    PROJECTION_TOLERANCE of their positions and whose limits are not violated is left as it
    is: its Newton step would move nothing that matters (a ragdoll lying still).

    todo: per island, the most a body of it may still turn in the substep's projection
    (`projection_turn` before its first step; 0: leave the island). Left at what remains
    for a lean island whose step turned a body by more than NEWTON_TURN, and 0 for the
    others: the linearisation's error, about the turn squared times a body's size, is then
    over a micrometre, and another step from the new poses (their rows prepared again, K
    factored again) closes what the first left. One step left a metarig landing at 4
    substeps 0.2-0.5 mm open at its landing frames' ends; three, under 1 um (the frame's
    end is what Blender shows and bakes). The remaining turn keeps the limits' catch-up at
    its pace: with `turn` a step, a mirrored ragdoll's landing parted from its mirror image
    twice as far (tests/addon/test_ragdoll_presets.py). Returns how many islands are left
    to step again."""
    CR = C[3]
    (order, starts, n_islands, factors, offsets, ok, pattern, lorder, lstarts, bfirst,
     brows, gkeep, goff, gvalid, gfirst, current) = plan
    return _project_positions(order, starts, n_islands, factors, offsets, ok, pattern,
                              lorder, lstarts, bfirst, brows, gkeep, goff, gvalid, gfirst,
                              current,
                              *R, bs, binv, *W, CR[0], CR[1], CR[2], C[4][8], lean, h,
                              near, todo)


@helper(outline=True)
def _project_positions(order, starts, n_islands, factors, offsets, ok, pattern, lorder,
                       lstarts, bfirst, brows, gkeep, goff, gvalid, gfirst, current,
                       rb, rj, rd, rp, rk, bs, binv,
                       x, lims, bl, lam0, dl, pressed, start, s_, r_, act, idx, sub, rhs, dense,
                       soft, live, which, move, crb, crj, crd, unit, lean, h, near, todo):
    plan = Plan(order, starts, n_islands, factors, offsets, ok, pattern, lorder, lstarts,
                bfirst, brows, gkeep, goff, gvalid, gfirst, current)
    R = (rb, rj, rd, rp, rk)
    CR = (crb, crj, crd)
    W = (x, lims, bl, lam0, dl, pressed, start, s_, r_, act, idx, sub, rhs, dense, soft,
         live, which, move)
    move[:, :] = 0.0
    again = 0
    for s in range(plan.n_islands):
        tb = todo[s]            # the turn this island may still take this substep
        if tb <= 0.0:
            continue
        todo[s] = 0.0
        if not ok[s]:
            continue
        n = starts[s + 1] - starts[s]
        if n > MAX_DIRECT_ROWS:
            rows = order[starts[s]:starts[s + 1]]
            for i in range(n):
                x[i] = rp[rows[i], BIAS]
            _solve_loops(rows, rb, rj, rd, binv, x, unit, factors[:0])
            _move_island(rows, x, n, lims, dl, 0, rb, rj, rd, rp, bs, binv, move, tb)
            continue
        rows, factor, pattern, limits, gk, gv, gf = _island(plan, s)
        if lean[s] and _within_tolerance(rows, limits, rj, rp, unit):
            continue
        for i in range(n):
            x[i] = rp[rows[i], BIAS]
        m = 0
        violated = 0
        for k in range(len(limits)):
            r = limits[k]
            if r < rp.shape[0] and _is_limit(r, rp):   # not contacts
                c = _projected_limit(r, rj, rp, h)
                if c >= PROJECTION_REACH or c >= 0.0 and not near[s]:
                    continue
                if c < 0.0:
                    violated += 1
                which[m] = k
                soft[m] = 0.0
                lims[m] = r
                bl[m] = c
                lam0[m] = 0.0
                dl[m] = 0.0
                m += 1
        wide = _has_wide(rows, rp) or _has_wide(limits, rp)
        if _solve_island(rows, factor, pattern, lims, m, wide, R, CR, binv, x, bl, lam0, dl,
                         W, bfirst, brows, starts[s], which, gk, gv, gf) and not current[s]:
            if not _refactor(s, rows, pattern, n, R, binv, factor, gv, ok, current):
                continue
            for i in range(n):
                x[i] = rp[rows[i], BIAS]
            for a in range(m):
                dl[a] = 0.0
            _solve_island(rows, factor, pattern, lims, m, wide, R, CR, binv, x, bl, lam0, dl,
                          W, bfirst, brows, starts[s], which, gk, gv, gf)
        worst = _displace(rows, x, n, lims, dl, m, rb, rj, rd, rp, binv, move)
        cut = 1.0
        for _ in range(PROJECTION_CUTS):
            if worst <= tb or violated == 0:
                break
            # A step this large is cut to `tb` (`_apply_moves`); cut as a
            # whole, it left the joints open by the fraction of their error it did not take
            # while the substeps caught up with a limit bent far past (a metarig landing
            # at 24 fps: 2.1 mm at the frame's end, tests/addon/test_landing_gaps.py).
            # Solved again with the limits' errors cut by that fraction (again while the
            # step is still too large), the step closes the joints whole and catches up with
            # the limits as before.
            _clear_moves(rows, n, lims, m, rp, rb, move)
            cut *= tb / worst
            for i in range(n):
                x[i] = rp[rows[i], BIAS]
            for a in range(m):
                c = _projected_limit(lims[a], rj, rp, h)
                bl[a] = cut * c if c < 0.0 else c
                lam0[a] = 0.0
                dl[a] = 0.0
            _solve_island(rows, factor, pattern, lims, m, wide, R, CR, binv, x, bl, lam0, dl,
                          W, bfirst, brows, starts[s], which, gk, gv, gf)
            worst = _displace(rows, x, n, lims, dl, m, rb, rj, rd, rp, binv, move)
        _apply_moves(rows, n, lims, m, worst, rp, rb, bs, move, tb)
        took = min(worst, tb)
        if lean[s] and took > NEWTON_TURN and tb - took > NEWTON_TURN:
            todo[s] = tb - took
            again += 1
    return again


@helper
def _projected_limit(r, rj, rp, h):
    """Limit row r's position error C for the projection: C < 0 violated (BIAS), else its
    gap (TARGET = C / h, speculative), PROJECTION_REACH or more (leave it out) for a gap
    that wide or a linear limit's gap. A limit inside its range but near its bound is
    solved with the projection as a one-sided row that may close its gap but not cross it:
    left out, the Newton step that closed the joints and the violated limits turned bodies
    by up to MAX_PROJECTION_TURN and bent a neighbouring limit past its bound, with no
    substep left to catch up at the frame's end (Rigify metarigs landing at 4 substeps,
    tests/addon/test_ragdoll_substeps.py)."""
    if rp[r, BIAS] < 0.0:
        return rp[r, BIAS]
    for k in (0, 1, 2, 6, 7, 8):
        if rj[r, k] != 0.0:
            return PROJECTION_REACH
    return rp[r, TARGET] * h


@helper
def _move_island(rows, x, n, lims, dl, m, rb, rj, rd, rp, bs, binv, move, turn):
    """Move the island's bodies by the projection's displacements x (rows) and dl (the m
    limit rows lims)."""
    worst = _displace(rows, x, n, lims, dl, m, rb, rj, rd, rp, binv, move)
    _apply_moves(rows, n, lims, m, worst, rp, rb, bs, move, turn)


@helper
def _displace(rows, x, n, lims, dl, m, rb, rj, rd, rp, binv, move):
    """Sum the displacements x (rows) and dl (the m limit rows lims) per body into move;
    the largest turn of a body (rad)."""
    for i in range(n):
        _add_displacement(rows[i], x[i], rb, rj, rd, rp, binv, move)
    for a in range(m):
        _add_displacement(lims[a], dl[a], rb, rj, rd, rp, binv, move)
    worst = 0.0
    for i in range(n):
        worst = max(worst, _largest_turn2(rows[i], rp, rb, move))
    for a in range(m):
        worst = max(worst, _largest_turn2(lims[a], rp, rb, move))
    return math.sqrt(worst)


@helper
def _clear_moves(rows, n, lims, m, rp, rb, move):
    """Forget the displacements summed for the island's bodies."""
    for j in range(n + m):
        r = rows[j] if j < n else lims[j - n]
        for i in range(4):
            body = row_body(r, i, rb, rp)
            if body >= 0:
                for k in range(7):
                    move[body, k] = 0.0


@helper
def _apply_moves(rows, n, lims, m, worst, rp, rb, bs, move, turn):
    """Move the island's bodies by their summed displacements, `worst` their largest turn."""
    # Newton's step is exact for small errors; a large one (a violent frame) is scaled
    # so no body of the island turns by more than `turn`, keeping the step
    # where the linearisation holds. Each body moves once, by its summed displacement.
    step = 1.0 if worst <= turn else turn / worst
    for i in range(n):
        _move_bodies(rows[i], step, rp, rb, bs, move)
    for a in range(m):
        _move_bodies(lims[a], step, rp, rb, bs, move)


# --- islands whose joints close many loops -------------------------------------------------
# A lattice (a grid of ball sockets, a welded slab or truss) is one island of hundreds of
# joints whose elimination fills: its K is too large to factor densely, and the sweep left it
# soft (a 10 x 10 grid of spheres opened 7 mm, a 10-bay welded truss sagged 11 cm). Such an
# island's equality rows are solved to a tolerance by conjugate gradients on K itself, never
# formed: K p = J M^-1 J^T p is one scatter of the rows' impulses onto their bodies and one
# gather of the rows' velocities. Each iterate is the best solution in a growing subspace, so
# it converges where the sweep crawls. The preconditioner is K's diagonal D, and the steps
# start from zero: every iterate lies in D^-1 range(K), so of the many impulses that solve a
# structure with redundant welds (K singular) the one found is the smallest in D's norm,
# whatever the rows' order. Loads statics fixes (what the supports carry in all, the load
# on a lone pin) come out exact; how redundant welds share the rest is that choice, not an
# elastic structure's (a truss welded to two piers pushes them apart by 40 % of its weight;
# with a symmetric Gauss-Seidel preconditioner, which chose by the rows' order, by 42 %).
# The island's limits and contacts stay with the sweep.

@helper
def _closes_loops(rows, rb, rp, bkind):
    """Whether the island's joints close loops: at least as many joints as bodies, the
    static world (every body that is not dynamic) counted as one body."""
    joints = 0
    last = -1
    seen = np.zeros(bkind.shape[0], dtype=np.bool_)
    bodies = 0
    ground = 0
    for r in rows:
        j = r // MAX_ROWS
        if j != last:
            joints += 1
            last = j
        for side in range(2):
            body = rb[r, side]
            if body < 0 or bkind[body] != DYNAMIC:
                ground = 1
            elif not seen[body]:
                seen[body] = True
                bodies += 1
    return joints >= bodies + ground


@helper
def _clear_bodies(n, rb, u):
    """u = 0 at the bodies of the island's rows 0..n-1, before `_scatter` sums into it."""
    for i in range(n):
        for side in range(2):
            body = rb[i, side]
            if body >= 0:
                u[body, :] = 0.0


@helper
def _scatter(r, d, rb, rj, rd, binv, u):
    """u += M^-1 J_r^T d for a two-body row (u[body, 0:3] velocity, 3:6 spin)."""
    for side in range(2):
        body = rb[r, side]
        if body >= 0 and binv[body] != 0.0:
            s = d * binv[body]
            o = 6 * side
            for k in range(3):
                u[body, k] += rj[r, o + k] * s
                u[body, 3 + k] += rd[r, 3 * side + k] * d


@helper
def _gather(r, rb, rj, u):
    """J_r u."""
    s = 0.0
    for side in range(2):
        body = rb[r, side]
        if body >= 0:
            o = 6 * side
            for k in range(3):
                s += rj[r, o + k] * u[body, k] + rj[r, o + 3 + k] * u[body, 3 + k]
    return s


@helper
def _jacobi(n, rb, rj, rd, binv, dinv, r, z, u):
    """z = D^-1 r for K's diagonal D (each row's own inverse effective mass); leaves
    u = M^-1 J^T z. Rows 0..n-1 of rb, rj, rd are the island's (`_island_rows`)."""
    _clear_bodies(n, rb, u)
    for i in range(n):
        z[i] = r[i] * dinv[i]
        _scatter(i, z[i], rb, rj, rd, binv, u)


@helper
def _island_rows(rows, rb, rj, rd):
    """Copies of the rows' bodies, Jacobians and M^-1 J^T, one after another: a conjugate
    gradient step reads them all twice, and an island's rows are a few of each joint's
    MAX_ROWS slots (a ball socket's 3 of 10), so read in place most of each cache line
    fetched was another row's (a 30 x 30 grid's step took 17 % less CPU time on copies,
    timed alone)."""
    n = rows.shape[0]
    crb = np.empty((n, 2), dtype=np.int64)
    crj = np.empty((n, 12))
    crd = np.empty((n, 6))
    for i in range(n):
        r = rows[i]
        crb[i, 0] = rb[r, 0]
        crb[i, 1] = rb[r, 1]
        for k in range(12):
            crj[i, k] = rj[r, k]
        for k in range(6):
            crd[i, k] = rd[r, k]
    return crb, crj, crd


# An island of many loops keeps its solve pass's last LOOP_HISTORY solutions X (each scaled
# to x^T K x = 1) with K X, and starts the next solve pass from the best combination of them
# (Galerkin: x0 = X E^-1 X^T b, E = X^T K X), then runs the conjugate gradients from there.
# Once a lattice hangs, each substep's right-hand side is mostly what the last solves left in
# K's slowest modes (the warm start re-applies their corrections), which the steps from zero
# had to find again every substep: a 30 x 30 grid's 5 226 rows took about 150-200 steps a
# frame, 20 per solve for a residual only twice the tolerance. The solutions span those modes
# (K^-1 amplifies them). The store is the island's stretch of the plan's `factors` (layout
# `_loop_store_size`), kept across frames per row by `keep_islands` (`_keep_loops`,
# `_restore_loops`) while the island's rows and bodies stay the same, so what a solve starts
# from depends only on the island's own history, whatever the thread count, and a
# snapshot (World.save_state) keeps it. K moves a little between the solutions: K X is as it
# was, so E is close; the guess is scaled by its exact line search along it (K x0 computed
# afresh), so it never starts worse than from zero, and the steps then solve the true residual.

@helper
def _loop_store_size(n):
    """Floats of an island's store of solutions: count and next slot, E (LOOP_HISTORY^2),
    then X and K X (LOOP_HISTORY x n each, one solution per row)."""
    return 2 + LOOP_HISTORY * LOOP_HISTORY + 2 * LOOP_HISTORY * n


@helper
def _loop_parts(store, n):
    m = LOOP_HISTORY
    e = store[2:2 + m * m].reshape((m, m))
    xs = store[2 + m * m:2 + m * m + m * n].reshape((m, n))
    kxs = store[2 + m * m + m * n:2 + m * m + 2 * m * n].reshape((m, n))
    return e, xs, kxs


@helper
def _restore_loops(order, starts, n_islands, rb, rp, bkind, factors, offsets, fkey, fpat,
                   ffac):
    """The kept solutions of the islands of many loops (`_keep_loops`): those whose rows
    are the same rows over the same bodies (`_island_key`) as when they were kept."""
    m = LOOP_HISTORY
    for s in range(n_islands):
        s0 = starts[s]
        n = starts[s + 1] - s0
        if n <= MAX_DIRECT_ROWS:
            continue
        rows = order[s0:s0 + n]
        key = _island_key(rows, rb, rp, bkind)
        same = True
        for i in range(n):
            if fkey[rows[i]] != key or fpat[rows[i], 0] != i:
                same = False
                break
        if not same:
            continue
        store = factors[offsets[s]:offsets[s + 1]]
        e, xs, kxs = _loop_parts(store, n)
        count = fpat[rows[0], 2]
        store[0] = count
        store[1] = fpat[rows[0], 3]
        for i in range(n):
            r = rows[i]
            for k in range(count):
                xs[k, i] = ffac[r, k]
                kxs[k, i] = ffac[r, m + k]
        for a in range(count):
            for c in range(a + 1):
                e[a, c] = e[c, a] = 0.5 * (_dot_from(xs[a], kxs[c], 0, n)
                                           + _dot_from(xs[c], kxs[a], 0, n))


@helper
def _keep_loops(rows, store, rb, rp, bkind, fkey, fpat, ffac):
    """Keep an island of many loops' solutions per row for the next frame: fkey[r] the
    island's key, fpat[r] the row's place, the entries kept less one (so World.save_state
    keeps them), the count and the next slot; ffac[r] its entries of X then of K X."""
    m = LOOP_HISTORY
    n = rows.shape[0]
    count = int(store[0])
    key = _island_key(rows, rb, rp, bkind) if count > 0 else 0
    e, xs, kxs = _loop_parts(store, n)
    for i in range(n):
        r = rows[i]
        fkey[r] = key
        if count == 0:
            continue
        fpat[r, 0] = i
        fpat[r, 1] = 2 * m - 1
        fpat[r, 2] = count
        fpat[r, 3] = int(store[1])
        for k in range(m):
            ffac[r, k] = xs[k, i] if k < count else 0.0
            ffac[r, m + k] = kxs[k, i] if k < count else 0.0


@helper
def _apply_k(n, rb, rj, rd, binv, v, kv, u):
    """kv = K v for the island's rows 0..n-1 (`_island_rows`)."""
    _clear_bodies(n, rb, u)
    for i in range(n):
        _scatter(i, v[i], rb, rj, rd, binv, u)
    for i in range(n):
        kv[i] = _gather(i, rb, rj, u)


@helper
def _small_solve(e, count, g):
    """g <- E^-1 g for the leading count x count block of E (symmetric, about unit
    diagonal), by a Cholesky factor that drops the solutions nearly dependent on earlier
    ones (their pivot under 1e-8 of their diagonal: their coefficient is 0)."""
    l = np.zeros((count, count))
    for i in range(count):
        for j in range(i + 1):
            t = e[i, j]
            for k in range(j):
                t -= l[i, k] * l[j, k]
            if j < i:
                l[i, j] = t / l[j, j] if l[j, j] > 0.0 else 0.0
            elif t > 1e-8 * e[i, i]:
                l[i, i] = math.sqrt(t)
    for i in range(count):
        if l[i, i] <= 0.0:
            g[i] = 0.0
            continue
        t = g[i]
        for k in range(i):
            t -= l[i, k] * g[k]
        g[i] = t / l[i, i]
    for i in range(count - 1, -1, -1):
        if l[i, i] <= 0.0:
            g[i] = 0.0
            continue
        t = g[i]
        for k in range(i + 1, count):
            t -= l[k, i] * g[k]
        g[i] = t / l[i, i]


@helper
def _loop_guess(store, n, rb, rj, rd, binv, b, x, kx, u):
    """x <- the kept solutions' best combination for right-hand side b (Galerkin, then its
    exact line search); b <- b - K x, the residual left to solve."""
    e, xs, kxs = _loop_parts(store, n)
    count = int(store[0])
    g = np.empty(count)
    for k in range(count):
        g[k] = _dot_from(xs[k], b, 0, n)
    _small_solve(e, count, g)
    for i in range(n):
        t = 0.0
        for k in range(count):
            t += g[k] * xs[k, i]
        x[i] = t
    _apply_k(n, rb, rj, rd, binv, x, kx, u)
    xkx = _dot_from(x, kx, 0, n)
    xb = _dot_from(x, b, 0, n)
    a = xb / xkx if xkx > 0.0 and xb > 0.0 else 0.0
    for i in range(n):
        x[i] *= a
        b[i] -= a * kx[i]


@helper
def _loop_remember(store, n, x, kx):
    """Keep solution x (with K x) in the oldest slot of the island's store, scaled to
    x^T K x = 1, and its row and column of E."""
    e, xs, kxs = _loop_parts(store, n)
    q = _dot_from(x, kx, 0, n)
    if not (q > 0.0 and q < np.inf):
        return
    c = 1.0 / math.sqrt(q)
    count = int(store[0])
    slot = int(store[1])
    for i in range(n):
        xs[slot, i] = x[i] * c
        kxs[slot, i] = kx[i] * c
    count = min(count + 1, LOOP_HISTORY)
    for k in range(count):
        e[slot, k] = e[k, slot] = 0.5 * (_dot_from(xs[slot], kxs[k], 0, n)
                                         + _dot_from(xs[k], kxs[slot], 0, n))
    store[0] = count
    store[1] = (slot + 1) % LOOP_HISTORY


@helper(outline=True)
def _solve_loops(rows, rb, rj, rd, binv, x, unit, store):
    """x <- -K^-1 x for an island's equality rows (two-body rows), by Jacobi-preconditioned
    conjugate gradients to LOOP_TOLERANCE (scaled to the world's unit) or LOOP_RELATIVE of
    the largest right-hand side. store: the island's kept solutions (the solve pass: started
    from them, and the solution kept) or empty (the relax pass and the projection)."""
    n = rows.shape[0]
    big = 0.0
    for i in range(n):
        big = max(big, abs(x[i]))
    tol = max(LOOP_TOLERANCE * unit, LOOP_RELATIVE * big)
    if big <= tol:           # most of a hanging lattice's solves, once it hangs still
        for i in range(n):
            x[i] = 0.0
        return
    crb, crj, crd = _island_rows(rows, rb, rj, rd)
    u = np.zeros((binv.shape[0], 6))
    dinv = np.empty(n)
    b = np.empty(n)
    for i in range(n):
        kii = 0.0
        for side in range(2):
            body = crb[i, side]
            if body >= 0:
                o = 6 * side
                for k in range(3):
                    kii += binv[body] * crj[i, o + k] ** 2 \
                        + crj[i, o + 3 + k] * crd[i, 3 * side + k]
        dinv[i] = 1.0 / kii if kii > 0.0 else 0.0
        b[i] = -x[i]
        x[i] = 0.0
    z = np.empty(n)
    p = np.empty(n)
    kp = np.empty(n)
    keep = store.shape[0] > 0
    rhs = b.copy() if keep else b[:0]
    if keep and store[0] > 0.0:
        _loop_guess(store, n, crb, crj, crd, binv, b, x, kp, u)
    _loop_steps(n, crb, crj, crd, binv, dinv, x, b, z, p, kp, u, tol)
    if keep:
        for i in range(n):
            kp[i] = rhs[i] - b[i]         # K x, exact up to the steps' rounding
        _loop_remember(store, n, x, kp)


@helper
def _loop_steps(n, crb, crj, crd, binv, dinv, x, b, z, p, kp, u, tol):
    """The conjugate-gradient steps from x with residual b (both updated) to tolerance."""
    worst = 0.0
    for i in range(n):
        worst = max(worst, abs(b[i]))
    if worst <= tol:
        return
    _jacobi(n, crb, crj, crd, binv, dinv, b, z, u)
    rz = 0.0
    for i in range(n):
        p[i] = z[i]
        kp[i] = _gather(i, crb, crj, u)
        rz += b[i] * z[i]
    for _ in range(LOOP_ITERATIONS):
        pkp = 0.0
        for i in range(n):
            pkp += p[i] * kp[i]
        if pkp <= 0.0 or rz <= 0.0:
            return
        alpha = rz / pkp
        worst = 0.0
        for i in range(n):
            x[i] += alpha * p[i]
            b[i] -= alpha * kp[i]
            worst = max(worst, abs(b[i]))
        if worst <= tol:
            return
        _jacobi(n, crb, crj, crd, binv, dinv, b, z, u)
        rz_next = 0.0
        for i in range(n):
            rz_next += b[i] * z[i]
        beta = rz_next / rz
        rz = rz_next
        for i in range(n):
            p[i] = z[i] + beta * p[i]
            kp[i] = _gather(i, crb, crj, u) + beta * kp[i]
