"""The frame step: Box2D v3's soft step as a list of named stages.

    per frame:   kinematic velocities from targets (contacts were found just before, in
                 World.step: collide once with a speculative margin); the contact rows'
                 Jacobians; group the joints' equality rows into islands for the direct
                 solver (from the first substep's prepared rows)
    per substep: external forces and force fields (fields.py) -> integrate velocities -> world inertia (+ geometric stiffness of loaded
                 joints) -> prepare joint rows, contact approach speeds -> factor each
                 island's K (kept while its bodies barely move) -> warm start
                 -> solve (soft bias) -> integrate positions
                 -> move the pins' targets to the substep's end (joints/pin.py; they
                 start the frame where the last one left them)
                 -> re-prepare joint rows at the new poses
                 -> refactor K, project joint (and violated limit) position errors
                 (skipped by an island of ball, hinge and ragdoll joints already within
                 direct.PROJECTION_TOLERANCE; such an island whose step turned a body more
                 than direct.NEWTON_TURN is prepared, factored and projected again from
                 its new poses, up to NEWTON_PASSES more times)
                 -> re-measure contact separations at the projected poses (they serve the
                 relax pass and the next substep's solve: positions do not move between)
                 -> relax (no bias; then up to RELAX_EXTRA more contact sweeps over
                 the manifolds the last sweep still changed, `relax_more`)
                 -> add the substep's impulses to each joint's frame total and each
                 contact point's
    a pass:      (solve or relax) `iterations` rounds of one sweep over the iterative
                 joint rows (limits, motors, springs, rows of islands the direct solver
                 does not take; listed once after each factoring) and one over the contacts
                 (contacts.py; a big island's block by block, then colour by colour, on
                 several threads: colours.py), then one exact direct solve per island of the equality rows
                 and the limits and contacts they press (direct.py). The direct solve comes last: solved
                 after it, a landing's contact impulses on a light end body (a hand hitting
                 the floor) bent its joint up to 40 degrees past the limit
    contacts:    restitution after the substeps (contacts.py)
    per frame:   snap kinematic bodies to their targets, break overloaded joints

Sleeping bodies (kind ASLEEP, sleep.py) are neither integrated nor solved: their contacts are
not passed in, and a joint with no awake dynamic body keeps its rows inactive and its
impulses (for the warm start when it wakes) and reports its last frame's impulse.
"""

import math

import numpy as np
from .jit import helper, kernel

from .bodies import (DYNAMIC, KINEMATIC, POS, ROT, SPIN, VEL, stiffen_world_inertia,
                     world_inertia)
from .joints.layout import (BALL, BODY_A, BODY_B, BODY_C, BODY_D, BREAK_FORCE, BREAK_TORQUE,
                            BROKEN, ENABLED, FIXED, FLAGS, HINGE, MAX_ROWS, RAGDOLL, TYPE)
from .joints.frames import joint_pose
from .joints.prepare import prepare_joint_rows
from .joints.custom import prepare_custom_rows
from .mathx import cross, length, qconj, qmul, qnormalize, qrotation_vector, quat_at, \
    scale, sub, vec3_at
from .direct import (factor_islands, island_contact_inertia, keep_islands, lean_islands,
                     near_islands, newton_joints, plan_islands, project_positions,
                     projection_turn, scratch, solve_direct, NEWTON_PASSES)
from .joints.pin import move_pins
from .rows import (ACTIVE, BLOCK, ROUND, WIDE, block_solve, deactivate, round_block_solve,
                   row_solve, soft_coefficients,
                   warm_start, wide_solve)
from .contacts import ROWS_PER_MANIFOLD, contact_softness
from .colours import (colour_plan, impulses_stage, positions_stage,
                      prepare_stage, refresh_stage, restitution_stage, sweep_contacts,
                      update_stage, velocities_stage, warm_start_stage)
from .islands import joint_owner, owner


@helper(outline=True)
def kinematic_velocities(ids, bs, bkind, ktarget, khas, dt):
    """Velocities that carry each targeted kinematic body onto its target in one frame."""
    for i in ids:
        if bkind[i] != KINEMATIC or not khas[i]:
            continue
        v = scale(sub(vec3_at(ktarget, i, 0), vec3_at(bs, i, POS)), 1.0 / dt)
        dq = qmul(quat_at(ktarget, i, 3), qconj(quat_at(bs, i, ROT)))
        w = scale(qrotation_vector(dq), 1.0 / dt)
        for k in range(3):
            bs[i, VEL + k] = v[k]
            bs[i, SPIN + k] = w[k]


@helper(outline=True)
def snap_kinematic(ids, bs, bkind, ktarget, khas):
    for i in ids:
        if bkind[i] == KINEMATIC and khas[i]:
            q = qnormalize(quat_at(ktarget, i, 3))
            for k in range(3):
                bs[i, k] = ktarget[i, k]
            for k in range(4):
                bs[i, ROT + k] = q[k]
            khas[i] = False


@helper
def _awake(i, bkind):
    return i >= 0 and bkind[i] == DYNAMIC


@helper
def joint_awake(j, jt, bkind):
    """A joint takes part in the step while one of its bodies is awake and dynamic."""
    return (_awake(jt[j, BODY_A], bkind) or _awake(jt[j, BODY_B], bkind)
            or _awake(jt[j, BODY_C], bkind) or _awake(jt[j, BODY_D], bkind))


@helper(outline=True)
def joint_geometric_stiffness(G, jt, jf, acc, bs, bkind, h, kg):
    """Per body, sum over its joints of |anchor force| x |arm|: how strongly the joints'
    loads resist turning the body (the diagonal geometric stiffness of the anchor rows).
    Forces come from the last substep's accumulated impulses, so this needs no extra state."""
    for i in G[0]:
        kg[i] = 0.0
    for j in G[1]:
        flags = jt[j, FLAGS]
        kind = jt[j, TYPE]
        if not flags & ENABLED or flags & BROKEN or not (
                kind == BALL or kind == HINGE or kind == FIXED or kind == RAGDOLL) \
                or not joint_awake(j, jt, bkind):
            continue
        r0 = j * MAX_ROWS
        force = math.sqrt(acc[r0] ** 2 + acc[r0 + 1] ** 2 + acc[r0 + 2] ** 2) / h
        if force == 0.0:
            continue
        pose = joint_pose(j, jt, jf, bs)
        if pose[0] >= 0:
            kg[pose[0]] += force * length(pose[4])
        if pose[1] >= 0:
            kg[pose[1]] += force * length(pose[5])


# The kernels below that loop over rows take the row and body tuples (R, B) and hand their
# arrays one by one to a private kernel: an array taken out of a tuple is a new reference to
# numba (an atomic reference-count update each time; prepare_joint_rows in joints/prepare.py
# has the measurement), an array passed as an argument is borrowed.

@kernel(inline=True)
def prepare_joints(jt, jf, jpts, bkind, S, R, B):
    _prepare_joints(np.arange(jt.shape[0]), jt, jf, jpts, bkind, S, *R, *B)


@helper(inline=True)
def prepare_joint_list(joints, jt, jf, jpts, bkind, S, R, B):
    _prepare_joints(joints, jt, jf, jpts, bkind, S, *R, *B)


@kernel
def prepare_customs(X, jt, jf, bkind, S, R, B):
    """The custom constraints' rows (the step's `prepare_custom_rows`), for Python: the
    reference solver and the tests."""
    prepare_custom_rows(X, jt, jf, bkind, S, R, B)


@helper(separate=True)
def _prepare_joints(joints, jt, jf, jpts, bkind, S, rb, rj, rd, rp, rk, bs, binv, bI):
    for j in joints:
        if joint_awake(j, jt, bkind):
            prepare_joint_rows(j, jt, jf, jpts, S, rb, rj, rd, rp, rk, bs, binv, bI)
        else:
            for r in range(j * MAX_ROWS, (j + 1) * MAX_ROWS):
                deactivate(r, rp)


@helper(inline=True)
def warm_start_rows(joints, jt, bkind, R, acc, B):
    """Sleeping joints are skipped: warm_start would forget an inactive row's impulse."""
    _warm_start_rows(joints, jt, bkind, R[0], R[1], R[2], R[3], acc, B[0], B[1])


@helper(outline=True)
def _warm_start_rows(joints, jt, bkind, rb, rj, rd, rp, acc, bs, binv):
    for j in joints:
        if joint_awake(j, jt, bkind):
            for r in range(j * MAX_ROWS, (j + 1) * MAX_ROWS):
                warm_start(r, rb, rj, rd, rp, acc, bs, binv)


@helper(outline=True)
def clear_joint_impulses(joints, jt, bkind, jimp):
    for j in joints:
        if joint_awake(j, jt, bkind):
            jimp[j, :] = 0.0


@kernel
def solve_rows(R, acc, B, use_bias, iterations):
    """Iterative sweeps over every row the direct solver does not own (the sweep the passes
    run, listed here for one call; the reference-solver tests drive it on its own)."""
    sweep = np.empty(acc.shape[0], dtype=np.int64)
    n = list_sweep_rows(R, sweep)
    solve_listed_rows(sweep[:n], R, acc, B, use_bias, iterations)


@helper(outline=True)
def list_sweep_rows(R, sweep):
    """The rows the iterative sweep solves, in order, into sweep: active scalar rows and
    block leaders (not block members, not rows the direct solver owns). Returns their
    count. Valid until the rows are prepared again or handed to the direct solver."""
    rp = R[3]
    n = 0
    for r in range(rp.shape[0]):
        if rp[r, ACTIVE] != 0.0 and rp[r, BLOCK] >= 0.0:
            sweep[n] = r
            n += 1
    return n


@helper(outline=True)
def list_joint_sweep_rows(joints, rp, sweep):
    """`list_sweep_rows` over the rows of the listed joints."""
    n = 0
    for j in joints:
        for r in range(j * MAX_ROWS, (j + 1) * MAX_ROWS):
            if rp[r, ACTIVE] != 0.0 and rp[r, BLOCK] >= 0.0:
                sweep[n] = r
                n += 1
    return n


@helper(inline=True)
def solve_listed_rows(sweep, R, acc, B, use_bias, iterations):
    """`iterations` sweeps over the rows of `list_sweep_rows`: scalar rows solve, block
    leaders solve their block."""
    _solve_listed_rows(sweep, R[0], R[1], R[2], R[3], R[4], acc, B[0], B[1], use_bias,
                       iterations)


@helper(outline=True)
def _solve_block(r, use_bias, rb, rj, rd, rp, rk, acc, bs, binv):
    """A block leader's solve, or a row over three or four bodies (rows.py), kept out of
    line: inlined next to the scalar row's solve it made the sweep's loop about three times
    slower."""
    if rp[r, ACTIVE] == WIDE:
        wide_solve(r, use_bias, rb, rj, rd, rp, acc, bs, binv)
    elif rp[r, ACTIVE] == ROUND:
        round_block_solve(r, int(rp[r, BLOCK]), use_bias, rb, rj, rd, rp, rk, acc, bs, binv)
    else:
        block_solve(r, int(rp[r, BLOCK]), use_bias, rb, rj, rd, rp, rk, acc, bs, binv)


@helper(outline=True)
def _solve_listed_rows(sweep, rb, rj, rd, rp, rk, acc, bs, binv, use_bias, iterations):
    for _ in range(iterations):
        for i in range(sweep.shape[0]):
            r = sweep[i]
            if rp[r, BLOCK] == 0.0:
                row_solve(r, use_bias, rb, rj, rd, rp, acc, bs, binv)
            else:
                _solve_block(r, use_bias, rb, rj, rd, rp, rk, acc, bs, binv)


@helper(separate=True)
def solve_pass(plan, sweep, W, R, acc, B, C, P, use_bias, iterations, busy, held, turn):
    """One solve (use_bias) or relax pass: `iterations` sweeps over the iterative joint rows
    and the contacts (a relax pass then up to `RELAX_EXTRA` more over the manifolds its
    last sweep still changed, `relax_more`), then the joints' equality rows and their
    pressed limits projected exactly, island by island (last, so an impact's contact
    impulses do not leave a joint past its limit). `turn`: the turn of the pass's first
    contact sweep (`contacts.solve_manifold`); each sweep after it takes the next."""
    for i in range(iterations):
        solve_listed_rows(sweep, R, acc, B, use_bias, 1)
        sweep_contacts(P, C, B, use_bias, busy, False, turn + i)
    if not use_bias:
        relax_more(C, P, B, busy, held, turn + iterations)
    solve_direct(plan, use_bias, R, acc, B[0], B[1], W, C)


@helper(separate=True)
def begin_substep(P, ids, B, J, G, E, X, S, R, gravity, h, kg, turned, jointed, hk):
    """A substep's start: integrate velocities (forces, fields, gravity), renew the world
    inertia of the bodies joints hold (`turned`) with the joints' geometric stiffness
    weighted by hk^2 (`stiffen_world_inertia`; hk: the substep of the world's count, or the
    island's own when it steps finer), and prepare the joint rows (soft coefficients S)."""
    bs, binv, bil, bib, bI, bdamp, bkind = B
    jt, jf, acc, jpts = J[0], J[1], J[2], J[4]
    body = (bs, binv, bI)
    velocities_stage(P, ids, bs, binv, bil, bdamp, bkind, E, gravity, h)
    if jointed:
        world_inertia(turned, bs, bil, bkind, bI)
        joint_geometric_stiffness(G, jt, jf, acc, bs, bkind, h, kg)
        stiffen_world_inertia(turned, bs, bib, bkind, kg, hk, bI)
    prepare_joint_list(G[1], jt, jf, jpts, bkind, S, R, body)
    custom_rows(X, jt, jf, bkind, S, R, body)


# The step's big stages, each compiled to machine code of its own and called by symbol
# (jit.py `helper(separate=True)`): step_frame's module declares them instead of linking
# their code in and optimising it all again, and warmup.py compiles them in two processes
# at once. A call per stage and substep costs nothing measurable.

@helper(separate=True)
def custom_rows(X, jt, jf, bkind, S, R, body):
    prepare_custom_rows(X, jt, jf, bkind, S, R, body)


@helper(separate=True)
def plan_stage(R, joints, n_rows, n_bodies, bkind, mi, mf, F, bs, unit, coarse):
    return plan_islands(R, joints, n_rows, n_bodies, bkind, mi, mf, F, bs, unit, coarse)


@helper(separate=True)
def factor_stage(plan, R, binv, bs, bI, fpose, unit, bkind, which):
    factor_islands(plan, R, binv, bs, bI, fpose, unit, bkind, which)


@helper(separate=True)
def project_stage(plan, R, bs, binv, W, C, lean, h, near, todo):
    return project_positions(plan, R, bs, binv, W, C, lean, h, near, todo)


@helper(separate=True)
def keep_stage(plan, R, bkind, F):
    keep_islands(plan, R, bkind, F)


@helper
def held_bodies(joints, jt, n):
    """Per body (n of them): whether a joint of `joints` holds it."""
    held = np.zeros(n, dtype=np.bool_)
    for j in joints:
        for b in (jt[j, BODY_A], jt[j, BODY_B], jt[j, BODY_C], jt[j, BODY_D]):
            if b >= 0:
                held[b] = True
    return held


@helper
def relax_more(C, P, B, busy, held, turn):
    """More relax sweeps over the manifolds the last one changed by more than the relax
    tolerance (a velocity), until none does or `RELAX_EXTRA` sweeps (C's params 6 and 7).
    A tall pile's contacts are far from solved after a sweep or two, and the rigid
    velocity left over rings the pile (docs/decisions/piles-at-rest.md); a pile at rest,
    a body alone on the ground, are solved already and skip them. Which manifolds a sweep
    takes depends on their own rows only, so an island's result does not depend on the
    batch it is in. Manifolds of jointed bodies (`held`) take none: the sweeps solve
    contacts alone, and a ragdoll landing would leave them pushed past limits that are
    not pressed yet (the direct solve that follows projects only the pressed ones). `turn`:
    the first extra sweep's (`solve_pass`)."""
    mi = C[0]
    for m in range(busy.shape[0]):
        if busy[m] and (held[mi[m, 0]] or held[mi[m, 1]]):
            busy[m] = False
    for i in range(int(C[4][7])):
        left = False
        for m in range(busy.shape[0]):
            if busy[m]:
                left = True
                break
        if not left:
            return
        sweep_contacts(P, C, B, False, busy, True, turn + i)


@helper(inline=True)
def accumulate_joint_impulses(joints, jt, jf, R, acc, bs, jimp):
    """Add this substep's impulse on B (linear, and angular about the anchor) to jimp.

    For a joint whose B side is the world, it is minus the impulse on A. A row over three or
    four bodies counts by its first slot (bodies a and b)."""
    _accumulate_joint_impulses(joints, jt, jf, R[1], R[3], acc, bs, jimp)


@helper(outline=True)
def _accumulate_joint_impulses(joints, jt, jf, rj, rp, acc, bs, jimp):
    for j in joints:
        r0 = j * MAX_ROWS
        on_b = jt[j, BODY_B] >= 0
        lin = (0.0, 0.0, 0.0)
        ang = (0.0, 0.0, 0.0)
        for r in range(r0, r0 + MAX_ROWS):
            if rp[r, ACTIVE] == 0.0 or acc[r] == 0.0:
                continue
            o = 6 if on_b else 0
            lam = acc[r]
            lin = (lin[0] + lam * rj[r, o], lin[1] + lam * rj[r, o + 1], lin[2] + lam * rj[r, o + 2])
            ang = (ang[0] + lam * rj[r, o + 3], ang[1] + lam * rj[r, o + 4],
                   ang[2] + lam * rj[r, o + 5])
        if lin[0] == 0.0 and lin[1] == 0.0 and lin[2] == 0.0 and \
                ang[0] == 0.0 and ang[1] == 0.0 and ang[2] == 0.0:
            continue
        pose = joint_pose(j, jt, jf, bs)
        arm = pose[5] if on_b else pose[4]
        ang = sub(ang, cross(arm, lin))
        if not on_b:                      # B is the world: report the reaction, -(on A)
            lin = (-lin[0], -lin[1], -lin[2])
            ang = (-ang[0], -ang[1], -ang[2])
        for k in range(3):
            jimp[j, k] += lin[k]
            jimp[j, 3 + k] += ang[k]


@helper(outline=True)
def break_joints(joints, jt, jf, jimp, acc, bkind, dt):
    """A joint breaks when last frame's mean constraint force or torque exceeds its limit."""
    for j in joints:
        flags = jt[j, FLAGS]
        if not flags & ENABLED or flags & BROKEN or not joint_awake(j, jt, bkind):
            continue
        fmax = jf[j, BREAK_FORCE]
        tmax = jf[j, BREAK_TORQUE]
        force = length(vec3_at(jimp, j, 0)) / dt
        torque = length(vec3_at(jimp, j, 3)) / dt
        if (fmax > 0.0 and force > fmax) or (tmax > 0.0 and torque > tmax):
            jt[j, FLAGS] = flags | BROKEN
            for r in range(j * MAX_ROWS, (j + 1) * MAX_ROWS):
                acc[r] = 0.0


@helper
def rescale_warm_start(G, jt, acc, C, bkind, substeps):
    """Scale the warm-start impulses of an island whose substep count changed since it last
    stepped (islands.partition: a ragdoll that lands on a box, or leaves it) by old / new
    count: a row's impulse per substep is its force times the substep, so a ragdoll of 4
    substeps warm started with 8 substeps' impulses would start the frame at half its load.
    Then record the count for the batch's bodies."""
    ids, joints, bsub = G[0], G[1], G[2]
    for j in joints:
        o = joint_owner(j, jt, bkind)
        if o >= 0 and bsub[o] > 0 and bsub[o] != substeps:
            f = bsub[o] / substeps
            for r in range(j * MAX_ROWS, (j + 1) * MAX_ROWS):
                acc[r] *= f
    mi, cacc = C[0], C[2]
    for m in range(mi.shape[0]):
        o = owner(mi[m, 0], mi[m, 1], bkind)
        if o >= 0 and bsub[o] > 0 and bsub[o] != substeps:
            f = bsub[o] / substeps
            for r in range(m * ROWS_PER_MANIFOLD, (m + 1) * ROWS_PER_MANIFOLD):
                cacc[r] *= f
    for i in ids:
        bsub[i] = substeps


@kernel(nogil=True)
def step_frame(B, J, R, K, dt, substeps, world_substeps, stiffen, calm, iterations,
               relax_iterations, gravity, joint_hertz, joint_damping, C, X, G, E, colour):
    """Advance a batch of islands by one frame of length dt in `substeps` substeps (the
    batch's; `world_substeps` sets the contact stiffness cap, `contact_softness`, and
    `stiffen` multiplies the contact hertz and its cap: islands.py `_stiffen`; `calm`: the
    batch's islands started the frame calm and step at Calm Substeps, their joints'
    geometric stiffness taken at their own substep, not the world's: `hk` below).

    B = (bs, binv, bil, bib, bI, bdamp, bkind)   bodies (see bodies.py; bkind as the step
                                                 sees it, ASLEEP for sleeping bodies)
    J = (jt, jf, acc, jimp, jpts)                joints, their rows' impulses, the paths'
                                                 points (joints/path.py)
    R = (rb, rj, rd, rp, rk)                     row scratch (see rows.py)
    K = (ktarget, khas)                          kinematic targets for this frame
    C = (mi, mf, acc, rows, params)              the batch's awake contact manifolds
                                                 (contacts.py)
    X = (ci, cf)                                 the batch's custom constraints
                                                 (joints/custom.py)
    G = (bodies, joints, bsub, F)                the batch's dynamic and kinematic bodies
                                                 and its joints (islands.py), and per body
                                                 of the world the substep count its island
                                                 last stepped at (`rescale_warm_start`);
                                                 F = (fpose, fkey, fpat, ffac): the islands'
                                                 factors kept across frames (direct.py
                                                 `keep_islands`)
    E = (bforce, fields, frame)                  applied forces and torques, force fields
                                                 (fields.py), evaluated every substep
    colour                                       0, or the batch is one big island,
                                                 its contacts solved colour by colour, its
                                                 stages spread over `colour` threads
                                                 (colours.py; only from the calling thread)

    A batch's islands share no dynamic or kinematic body with another batch's, and the
    step reads and writes only the batch's bodies, joints, rows and manifolds (static and
    sleeping bodies are read, never moved), so batches run in parallel threads (the GIL is
    released) and each island's result does not depend on the batch it is in.
    """
    bs, binv, bil, bib, bI, bdamp, bkind = B
    jt, jf, acc, jimp, jpts = J
    ktarget, khas = K
    ids, joints = G[0], G[1]
    h = dt / substeps
    # the geometric stiffness's substep: an island stepped at fewer substeps than the world
    # (Jointed Substeps) is stiffened as at the world's count (bodies.py
    # `stiffen_world_inertia`: weighted by its own, coarser substep squared it threw a
    # landing ragdoll up); one that started the frame calm (Calm Substeps) at its own, which
    # keeps a lying ragdoll still (as at the world's, a metarig lying on the floor still
    # turned a body at 0.58 rad/s after 5 s)
    hw = dt / world_substeps            # the world's substep
    hk = h if calm else min(h, hw)
    soft = soft_coefficients(joint_hertz, joint_damping, h)
    S = (soft[0], soft[1], soft[2], h, 1.0 / h)
    S_error = (1.0, 1.0, 0.0, h, 1.0 / h)      # rows re-prepared with BIAS = C
    body = (bs, binv, bI)
    csoft = contact_softness(C[4], h, hw, stiffen)
    turn = projection_turn(h, hw)
    SC = (csoft[0], csoft[1], csoft[2], h, 1.0 / h)
    rescale_warm_start(G, jt, acc, C, bkind, substeps)
    clear_joint_impulses(joints, jt, bkind, jimp)

    kinematic_velocities(ids, bs, bkind, ktarget, khas, dt)
    kg = np.zeros(bs.shape[0])
    fpose = G[3][0]         # poses at each island's factoring, kept across frames (direct.py)
    world_inertia(ids, bs, bil, bkind, bI)
    P = colour_plan(C, ids, bs, bkind, gravity, colour)
    prepare_stage(P, C, SC, body)
    refresh_stage(P, C, SC, body)
    sweep = np.empty(joints.shape[0] * MAX_ROWS, dtype=np.int64)
    busy = np.zeros(C[0].shape[0], dtype=np.bool_)    # per manifold, see relax_more
    held = held_bodies(joints, jt, bs.shape[0])
    # the world inertia is renewed each substep for the joint rows only, so only for the
    # bodies a joint holds (`turned`); the contact rows keep the frame's first, as in Box2D
    # v3 (a batch of contacts alone, a pile of boxes, skips it). Renewed for every body of a
    # batch with a joint, a body with rolling friction (whose rows read it) would move by
    # the batch it falls in, and so by the thread count
    turned = ids[held[ids]]
    jointed = joints.shape[0] > 0
    # the first substep's rows are prepared before the loop: the islands' plan is made from
    # them (which rows are equalities and limits does not change within the frame)
    move_pins(joints, jt, jf, 0.0, dt)
    begin_substep(P, ids, B, J, G, E, X, S, R, gravity, h, kg, turned, jointed, hk)
    plan = plan_stage(R, joints, acc.shape[0], bs.shape[0], bkind, C[0], C[1], G[3], bs,
                      C[4][8], substeps < world_substeps and not calm)
    W = scratch(plan)
    lean = lean_islands(plan, jt)
    near = near_islands(plan, jt)
    todo = np.empty(plan.n_islands)
    every = np.ones(plan.n_islands)
    for s in range(substeps):
        if s > 0:
            begin_substep(P, ids, B, J, G, E, X, S, R, gravity, h, kg, turned, jointed, hk)
        update_stage(P, C, body)
        factor_stage(plan, R, binv, bs, bI, fpose, C[4][8], bkind, every)
        n_sweep = list_joint_sweep_rows(joints, R[3], sweep)
        warm_start_rows(joints, jt, bkind, R, acc, body)
        island_contact_inertia(plan, R, C, bI, binv)
        warm_start_stage(P, C, body)
        solve_pass(plan, sweep[:n_sweep], W, R, acc, body, C, P, True, iterations, busy, held,
                   s)
        positions_stage(P, ids, bs, bil, bib, bkind, h)
        if jointed:
            world_inertia(turned, bs, bil, bkind, bI)
            stiffen_world_inertia(turned, bs, bib, bkind, kg, hk, bI)
        move_pins(joints, jt, jf, (s + 1) / substeps, dt)
        prepare_joint_list(joints, jt, jf, jpts, bkind, S_error, R, body)
        custom_rows(X, jt, jf, bkind, S_error, R, body)
        factor_stage(plan, R, binv, bs, bI, fpose, C[4][8], bkind, every)
        n_sweep = list_joint_sweep_rows(joints, R[3], sweep)
        todo[:] = turn        # the turn each island's projection may take
        again = project_stage(plan, R, bs, binv, W, C, lean, h, near, todo)
        for _ in range(NEWTON_PASSES):     # more Newton steps where one turned far
            if again == 0:
                break
            prepare_joint_list(newton_joints(plan, todo, jt.shape[0]), jt, jf, jpts, bkind,
                               S_error, R, body)
            factor_stage(plan, R, binv, bs, bI, fpose, C[4][8], bkind, todo)
            again = project_stage(plan, R, bs, binv, W, C, lean, h, near, todo)
        refresh_stage(P, C, SC, body)
        island_contact_inertia(plan, R, C, bI, binv)
        solve_pass(plan, sweep[:n_sweep], W, R, acc, body, C, P, False, relax_iterations, busy,
                   held, s + iterations)
        accumulate_joint_impulses(joints, jt, jf, R, acc, bs, jimp)
        impulses_stage(P, C)
    keep_stage(plan, R, bkind, G[3])
    restitution_stage(P, C, body)
    snap_kinematic(ids, bs, bkind, ktarget, khas)
    break_joints(joints, jt, jf, jimp, acc, bkind, dt)
