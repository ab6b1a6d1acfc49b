"""One big island on every thread: its contacts solved block by block, then colour by colour.

A batch of islands runs on one thread (islands.py), and an island is one batch: a stack, a
wall or a pile touching everywhere is one island, so it ran on one thread whatever the
machine. Its rows are swept in sequence (Gauss-Seidel): a manifold's solve reads and
writes its two bodies' velocities, so two manifolds on a common body cannot be solved at
the same time. Static and kinematic bodies never change in a solve (their inverse mass is
0), so they do not count: the floor under a thousand boxes does not tie them together.

The island's manifolds are ordered in two parts (`order_manifolds`):
* blocks: the dynamic bodies sorted along the island's widest extent across gravity and
  cut into runs of about BLOCK_BODIES (`body_blocks`: a pyramid or a wall cut into
  upright slices). A manifold whose dynamic bodies all lie in one block belongs to it;
  blocks share no body, so they are swept at the same time, each in the manifolds' own
  order, as the plain sweep would (most manifolds: a load carried down a pile is passed
  on within its block in one sweep). A sweep deals the blocks out to the threads by
  weight, the heaviest first (`share_blocks`): its manifolds, or in the relax pass's extra
  sweeps its busy ones, which gather where a pile was hit;
* colours: the manifolds between blocks, coloured greedily (Box2D v3's and Jolt's graph
  colouring, `colour_manifolds`) so that no two of a colour share a dynamic body; each
  colour is solved at once, the colours one after another, after the blocks (a colour of
  fewer than SMALL_COLOUR manifolds on the calling thread: starting the threads would cost
  more). One that finds none of MAX_COLOURS free goes to the overflow, solved last on the
  calling thread. Colouring the whole island instead (every manifold) let a 20-row pyramid
  creep 9 mm in 10 s: a colour passes a load on by one contact a sweep.
Manifolds are stored in that order (mi, mf and their impulses permuted), so a block's or a
colour's rows are read in one stretch. The island's other stages split its bodies
(integration, forces) or its manifolds (the contact rows' updates) into CHUNK-sized ranges;
each range writes only its own bodies or manifolds.

The result does not depend on the thread count: blocks share no dynamic body, nor do the
manifolds of a colour, so the order in which they run does not matter, and the phases run
in the same order on one thread as on sixteen. The blocks and colours depend on the island
alone, and which islands are coloured too (islands.py `partition`: COLOURED_MIN manifolds
or more; such an island gets a batch of its own), so an island is solved the same way at
any thread count. Its joints (a wrecking ball on a rope in the wall it breaks) are solved
as in any island, on the calling thread, between the contact phases. Smaller islands keep the plain sweep: starting the threads
costs microseconds per phase and stage, some fifty times a substep.

Every `parallel` helper here holds one `prange` loop and is called from the thread that
steps the world (World.step runs coloured batches there, one at a time, before the others,
on as many threads as `pool.Spread` measured to be faster).
"""

import numpy as np
from numba import prange

from .jit import helper

from .bodies import DYNAMIC, integrate_positions, integrate_velocities
from .contacts import (ROWS_PER_MANIFOLD, _add_substep_impulses, _prepare_contacts,
                       _refresh_contacts, _update_contacts, add_substep_impulses,
                       apply_restitution, permute_manifolds, prepare_contacts,
                       refresh_contacts, restitute_manifold, solve_contacts, solve_manifold,
                       update_contacts, warm_start_contacts, warm_start_manifold)
from .fields import apply_external
from .sorting import argsort

MAX_COLOURS = 62       # colours a body's bit mask holds (int64); more: the overflow
COLOURED_MIN = 1024    # manifolds: an island this big is coloured (a 210-box pyramid,
                       # about 600, stepped 13 % slower on one thread coloured and
                       # barely faster on two)
BLOCK_BODIES = 256     # dynamic bodies a block holds, about (`body_blocks`) ...
MAX_BLOCKS = 64        # ... in at least two blocks and at most this many
CHUNK = 64             # bodies or manifolds a thread takes at a time in the other stages
SMALL_COLOUR = 32      # manifolds: a colour this small is swept on the calling thread


@helper(separate=True)
def colour_plan(C, ids, bs, bkind, gravity, threads):
    """A batch's plan P = (blocks, colours, threads): for a coloured batch (threads > 0)
    its manifolds put in block and colour order (`order_manifolds`), its stages spread
    over `threads` of numba's threads (1: all on the calling thread, no thread started);
    for another batch (threads == 0) nothing."""
    if threads > 0:
        blocks, colours = order_manifolds(C, ids, bs, bkind, gravity)
        return blocks, colours, threads
    return np.zeros(1, dtype=np.int64), np.zeros(1, dtype=np.int64), 0


@helper
def body_blocks(ids, bs, bkind, gravity):
    """Per body, its block (-1: not dynamic): the island's dynamic bodies sorted along
    its widest horizontal extent (across gravity) and cut into equal runs of about
    BLOCK_BODIES, at least two; and the block count."""
    n_dyn = 0
    lo = np.full(3, np.inf)
    hi = np.full(3, -np.inf)
    for i in ids:
        if bkind[i] == DYNAMIC:
            n_dyn += 1
            for k in range(3):
                lo[k] = min(lo[k], bs[i, k])
                hi[k] = max(hi[k], bs[i, k])
    down = -1
    g = 0.0
    for k in range(3):
        if abs(gravity[k]) > g:
            g = abs(gravity[k])
            down = k
    axis = 0
    wide = -1.0
    for k in range(3):
        if k != down and n_dyn > 0 and hi[k] - lo[k] > wide:
            wide = hi[k] - lo[k]
            axis = k
    dyn = np.empty(n_dyn, dtype=np.int64)
    keys = np.empty(n_dyn)
    j = 0
    for i in ids:
        if bkind[i] == DYNAMIC:
            dyn[j] = i
            keys[j] = bs[i, axis]
            j += 1
    n_blocks = max(2, min(MAX_BLOCKS, n_dyn // BLOCK_BODIES))
    block = np.full(bkind.shape[0], -1, dtype=np.int64)
    order = argsort(keys)
    for r in range(n_dyn):
        block[dyn[order[r]]] = r * n_blocks // max(n_dyn, 1)
    return block, n_blocks


@helper
def order_manifolds(C, ids, bs, bkind, gravity):
    """Put the batch's manifolds in the order the coloured stages take them (mi, mf and
    their impulses): first each block's (`body_blocks`: manifolds whose dynamic bodies are
    all in that block, in their own order), then the others (between blocks) by colour
    (`colour_manifolds`). Returns (blocks, colours): block k's manifolds are
    blocks[k]:blocks[k + 1], colour c's colours[c]:colours[c + 1], the overflow's (colour
    MAX_COLOURS) last."""
    mi, mf, acc = C[0], C[1], C[2]
    nm = mi.shape[0]
    block, n_blocks = body_blocks(ids, bs, bkind, gravity)
    group = np.empty(nm, dtype=np.int64)
    for m in range(nm):
        ka = block[mi[m, 0]]
        kb = block[mi[m, 1]]
        if ka < 0 or kb < 0 or ka == kb:
            group[m] = max(ka, kb)
        else:
            group[m] = -1
    colour, key = colour_manifolds(mi, bkind, group)
    groups = n_blocks + MAX_COLOURS + 1          # the blocks, then the colours
    starts = np.zeros(groups + 1, dtype=np.int64)
    for m in range(nm):
        group[m] = group[m] if group[m] >= 0 else n_blocks + colour[m]
        starts[group[m] + 1] += 1
    for k in range(groups):
        starts[k + 1] += starts[k]
    by_key = _counting_order(key, bkind.shape[0])
    fill = starts[:-1].copy()
    order = np.empty(nm, dtype=np.int64)
    for i in range(nm):
        m = by_key[i]
        order[fill[group[m]]] = m
        fill[group[m]] += 1
    permute_manifolds(order, mi, mf, acc, ROWS_PER_MANIFOLD)
    return starts[:n_blocks + 1].copy(), starts[n_blocks:].copy()


@helper
def colour_manifolds(mi, bkind, group):
    """Greedy colours of the manifolds with group[m] < 0 (in their order: the lowest colour
    neither dynamic body has yet; MAX_COLOURS, the overflow, when none is free), and the
    key a colour's manifolds are stored by: their first dynamic body's id (0 for the
    others and the overflow, which keep their own order). Inside a colour any order gives
    the same result, and by body the sweep walks the bodies' state in order."""
    nm = mi.shape[0]
    used = np.zeros(bkind.shape[0], dtype=np.int64)
    colour = np.zeros(nm, dtype=np.int64)
    key = np.zeros(nm, dtype=np.int64)
    for m in range(nm):
        if group[m] >= 0:
            continue
        a = mi[m, 0]
        b = mi[m, 1]
        da = bkind[a] == DYNAMIC
        db = bkind[b] == DYNAMIC
        taken = (used[a] if da else 0) | (used[b] if db else 0)
        c = 0
        while c < MAX_COLOURS and (taken >> c) & 1:
            c += 1
        if c < MAX_COLOURS:
            if da:
                used[a] |= 1 << c
            if db:
                used[b] |= 1 << c
            key[m] = a if da else b
        colour[m] = c
    return colour, key


@helper
def _counting_order(key, n):
    """The indices of key (values 0..n-1) in increasing key, equal keys in index order."""
    count = np.zeros(n + 1, dtype=np.int64)
    for i in range(key.shape[0]):
        count[key[i] + 1] += 1
    for k in range(n):
        count[k + 1] += count[k]
    order = np.empty(key.shape[0], dtype=np.int64)
    for i in range(key.shape[0]):
        order[count[key[i]]] = i
        count[key[i]] += 1
    return order


@helper
def spread(P):
    """Whether the batch's stages run on several threads (a coloured batch on one thread
    runs the plain stages, and its sweeps block by block and colour by colour on the
    calling thread)."""
    return P[2] > 1


# --- sweeps: the blocks, then the colours ------------------------------------------------

@helper
def _solve_range(lo, hi, mi, mf, acc, rj, rd, rp, bs, binv, use_bias, busy, only_busy, tol,
                 turn):
    for m in range(lo, hi):
        if not only_busy or busy[m]:
            busy[m] = solve_manifold(m, mi, mf, acc, rj, rd, rp, bs, binv, use_bias, tol,
                                     turn)


@helper
def share_blocks(blocks, busy, only_busy, threads):
    """The blocks dealt out to `threads` threads, the heaviest first to the least loaded
    (a block weighs its manifolds, or with only_busy its busy ones: after a hit the busy
    ones gather in a block or two): (start, order), thread t sweeps the blocks
    order[start[t]:start[t + 1]]. Blocks share no dynamic body, so which thread sweeps
    one changes the time taken, not the result."""
    nb = blocks.shape[0] - 1
    weight = np.empty(nb)
    for k in range(nb):
        if only_busy:
            c = 0
            for m in range(blocks[k], blocks[k + 1]):
                if busy[m]:
                    c += 1
            weight[k] = -c
        else:
            weight[k] = -(blocks[k + 1] - blocks[k])
    load = np.zeros(threads)
    thread = np.empty(nb, dtype=np.int64)
    start = np.zeros(threads + 1, dtype=np.int64)
    for k in argsort(weight):
        t = 0
        for u in range(1, threads):
            if load[u] < load[t]:
                t = u
        thread[k] = t
        load[t] -= weight[k]
        start[t + 1] += 1
    for t in range(threads):
        start[t + 1] += start[t]
    order = np.empty(nb, dtype=np.int64)
    fill = start[:-1].copy()
    for k in range(nb):
        order[fill[thread[k]]] = k
        fill[thread[k]] += 1
    return start, order


@helper(parallel=True)
def _solve_blocks(blocks, mi, mf, acc, rj, rd, rp, bs, binv, use_bias, busy, only_busy, tol,
                  turn, threads):
    start, order = share_blocks(blocks, busy, only_busy, threads)
    for t in prange(threads):
        for i in range(start[t], start[t + 1]):
            k = order[i]
            _solve_range(blocks[k], blocks[k + 1], mi, mf, acc, rj, rd, rp, bs, binv,
                         use_bias, busy, only_busy, tol, turn)


@helper(parallel=True)
def _solve_colour(lo, hi, mi, mf, acc, rj, rd, rp, bs, binv, use_bias, busy, only_busy, tol,
                  turn):
    for m in prange(lo, hi):
        if not only_busy or busy[m]:
            busy[m] = solve_manifold(m, mi, mf, acc, rj, rd, rp, bs, binv, use_bias, tol,
                                     turn)


@helper(outline=True)
def _solve_coloured(P, C, B, use_bias, busy, only_busy, turn):
    blocks, colours = P[0], P[1]
    mi, mf, acc, R, params = C
    rj, rd, rp = R[1], R[2], R[3]
    bs, binv = B[0], B[1]
    tol = params[6]
    if spread(P):
        _solve_blocks(blocks, mi, mf, acc, rj, rd, rp, bs, binv, use_bias, busy, only_busy,
                      tol, turn, P[2])
    else:
        _solve_range(blocks[0], blocks[-1], mi, mf, acc, rj, rd, rp, bs, binv, use_bias,
                     busy, only_busy, tol, turn)
    for c in range(MAX_COLOURS + 1):
        lo, hi = colours[c], colours[c + 1]
        if spread(P) and c < MAX_COLOURS and hi - lo >= SMALL_COLOUR:
            _solve_colour(lo, hi, mi, mf, acc, rj, rd, rp, bs, binv, use_bias, busy,
                          only_busy, tol, turn)
        else:
            _solve_range(lo, hi, mi, mf, acc, rj, rd, rp, bs, binv, use_bias, busy,
                         only_busy, tol, turn)


@helper
def _warm_start_range(lo, hi, mi, acc, rj, rd, rp, bs, binv):
    for m in range(lo, hi):
        warm_start_manifold(m, mi, acc, rj, rd, rp, bs, binv)


@helper(parallel=True)
def _warm_start_blocks(blocks, mi, acc, rj, rd, rp, bs, binv):
    for k in prange(blocks.shape[0] - 1):
        _warm_start_range(blocks[k], blocks[k + 1], mi, acc, rj, rd, rp, bs, binv)


@helper(parallel=True)
def _warm_start_colour(lo, hi, mi, acc, rj, rd, rp, bs, binv):
    for m in prange(lo, hi):
        warm_start_manifold(m, mi, acc, rj, rd, rp, bs, binv)


@helper(outline=True)
def _warm_start_coloured(P, C, B):
    blocks, colours = P[0], P[1]
    mi, acc, R = C[0], C[2], C[3]
    if spread(P):
        _warm_start_blocks(blocks, mi, acc, R[1], R[2], R[3], B[0], B[1])
    else:
        _warm_start_range(blocks[0], blocks[-1], mi, acc, R[1], R[2], R[3], B[0], B[1])
    for c in range(MAX_COLOURS + 1):
        lo, hi = colours[c], colours[c + 1]
        if spread(P) and c < MAX_COLOURS and hi - lo >= SMALL_COLOUR:
            _warm_start_colour(lo, hi, mi, acc, R[1], R[2], R[3], B[0], B[1])
        else:
            _warm_start_range(lo, hi, mi, acc, R[1], R[2], R[3], B[0], B[1])


@helper
def _restitute_range(lo, hi, mi, mf, acc, rb, rj, rd, rp, bs, binv, threshold):
    for m in range(lo, hi):
        restitute_manifold(m, mi, mf, acc, rb, rj, rd, rp, bs, binv, threshold)


@helper(parallel=True)
def _restitute_blocks(blocks, mi, mf, acc, rb, rj, rd, rp, bs, binv, threshold):
    for k in prange(blocks.shape[0] - 1):
        _restitute_range(blocks[k], blocks[k + 1], mi, mf, acc, rb, rj, rd, rp, bs, binv,
                         threshold)


@helper(parallel=True)
def _restitute_colour(lo, hi, mi, mf, acc, rb, rj, rd, rp, bs, binv, threshold):
    for m in prange(lo, hi):
        restitute_manifold(m, mi, mf, acc, rb, rj, rd, rp, bs, binv, threshold)


@helper(outline=True)
def _restitution_coloured(P, C, B):
    blocks, colours = P[0], P[1]
    mi, mf, acc, R, params = C
    rows = (R[0], R[1], R[2], R[3])
    if spread(P):
        _restitute_blocks(blocks, mi, mf, acc, *rows, B[0], B[1], params[3])
    else:
        _restitute_range(blocks[0], blocks[-1], mi, mf, acc, *rows, B[0], B[1], params[3])
    for c in range(MAX_COLOURS + 1):
        lo, hi = colours[c], colours[c + 1]
        if spread(P) and c < MAX_COLOURS and hi - lo >= SMALL_COLOUR:
            _restitute_colour(lo, hi, mi, mf, acc, *rows, B[0], B[1], params[3])
        else:
            _restitute_range(lo, hi, mi, mf, acc, *rows, B[0], B[1], params[3])


# --- stages over bodies or manifolds, in ranges ------------------------------------------

@helper(parallel=True)
def _velocities_in_ranges(ids, bs, binv, bil, bdamp, bkind, E, gravity, h):
    """`fields.apply_external` then `bodies.integrate_velocities`, CHUNK bodies a range."""
    n = ids.shape[0]
    for k in prange((n + CHUNK - 1) // CHUNK):
        part = ids[k * CHUNK:min(n, (k + 1) * CHUNK)]
        apply_external(part, bs, binv, bil, bkind, E, h)
        integrate_velocities(part, bs, binv, bdamp, bkind, gravity, h)


@helper(parallel=True)
def _positions_in_ranges(ids, bs, bil, bib, bkind, h):
    """`bodies.integrate_positions`, CHUNK bodies a range."""
    n = ids.shape[0]
    for k in prange((n + CHUNK - 1) // CHUNK):
        integrate_positions(ids[k * CHUNK:min(n, (k + 1) * CHUNK)], bs, bil, bib, bkind, h)


@helper(parallel=True)
def _rows_in_ranges(C, B, first):
    """`contacts.prepare_contacts` (first: the frame's first) or `contacts.update_contacts`,
    CHUNK manifolds a range."""
    mi, mf, acc, R, P = C
    n = mi.shape[0]
    for k in prange((n + CHUNK - 1) // CHUNK):
        lo = k * CHUNK
        hi = min(n, lo + CHUNK)
        if first:
            _prepare_contacts(lo, hi, mi, mf, acc, R[0], R[1], R[2], R[3], R[4], B[0], B[1],
                              B[2])
        else:
            _update_contacts(lo, hi, mi, mf, acc, R[0], R[1], R[2], R[3], R[4], B[0], B[1],
                             B[2])


@helper(parallel=True)
def _refresh_in_ranges(C, S, B):
    """`contacts.refresh_contacts`, CHUNK manifolds a range."""
    mi, mf, acc, R, P = C
    n = mi.shape[0]
    for k in prange((n + CHUNK - 1) // CHUNK):
        _refresh_contacts(k * CHUNK, min(n, (k + 1) * CHUNK), mi, mf, R[3], B[0], S[0], S[1],
                          S[2], S[4], P[2])


@helper(parallel=True)
def _impulses_in_ranges(C):
    """`contacts.add_substep_impulses`, CHUNK manifolds a range."""
    mi, mf, acc = C[0], C[1], C[2]
    n = mi.shape[0]
    for k in prange((n + CHUNK - 1) // CHUNK):
        _add_substep_impulses(k * CHUNK, min(n, (k + 1) * CHUNK), mi, mf, acc)


# --- the stages step_frame calls: coloured, or the plain ones ----------------------------
#
# Those step_frame calls itself (not through another stage) are compiled to machine code of
# their own and called by symbol (jit.py `helper(separate=True)`), as step.py's big stages
# are: linked into step_frame, their code, the coloured paths' and the plain ones', was
# optimised and compiled again in step_frame's module, in one process after everything
# else (solver/warmup.py shares them between the processes).

@helper
def sweep_contacts(P, C, B, use_bias, busy, only_busy, turn):
    """One sweep over the contacts (`contacts.solve_contacts`), each manifold's normal rows
    in the order `turn` picks (`contacts.solve_manifold`)."""
    if P[2] > 0:
        _solve_coloured(P, C, B, use_bias, busy, only_busy, turn)
    else:
        solve_contacts(C, B, use_bias, 1, busy, only_busy, turn)


@helper(separate=True)
def warm_start_stage(P, C, B):
    if P[2] > 0:
        _warm_start_coloured(P, C, B)
    else:
        warm_start_contacts(C, B)


@helper(separate=True)
def restitution_stage(P, C, B):
    if P[2] > 0:
        _restitution_coloured(P, C, B)
    else:
        apply_restitution(C, B)


@helper
def velocities_stage(P, ids, bs, binv, bil, bdamp, bkind, E, gravity, h):
    """External forces and fields, then gravity and damping."""
    if spread(P):
        _velocities_in_ranges(ids, bs, binv, bil, bdamp, bkind, E, gravity, h)
    else:
        apply_external(ids, bs, binv, bil, bkind, E, h)
        integrate_velocities(ids, bs, binv, bdamp, bkind, gravity, h)


@helper(separate=True)
def positions_stage(P, ids, bs, bil, bib, bkind, h):
    if spread(P):
        _positions_in_ranges(ids, bs, bil, bib, bkind, h)
    else:
        integrate_positions(ids, bs, bil, bib, bkind, h)


@helper(separate=True)
def prepare_stage(P, C, S, B):
    if spread(P):
        _rows_in_ranges(C, B, True)
    else:
        prepare_contacts(C, S, B)


@helper(separate=True)
def update_stage(P, C, B):
    if spread(P):
        _rows_in_ranges(C, B, False)
    else:
        update_contacts(C, B)


@helper(separate=True)
def refresh_stage(P, C, S, B):
    if spread(P):
        _refresh_in_ranges(C, S, B)
    else:
        refresh_contacts(C, S, B)


@helper(separate=True)
def impulses_stage(P, C):
    if spread(P):
        _impulses_in_ranges(C)
    else:
        add_substep_impulses(C)
