"""Sleeping: islands of bodies at rest drop out of the step until something disturbs them.

Box2D v3's scheme (body.c's sleep time, solver.c's b2FinalizeBodies, island.c). Every awake
dynamic body keeps a timer that grows while its sleep speed |v| + r |w| stays below the
threshold and restarts at 0 otherwise; r is the body's reach (its farthest surface point
from the centre of mass), so the angular part is the speed of its surface and the test does
not depend on the body's size. Bodies touching (last step's manifolds, speculative ones
included) or joined by an enabled joint (all three or four bodies of a pulley on bodies or of
a custom constraint over them) form islands; static and kinematic bodies do not
link islands (a floor would glue the world into one). When every body of an island has been
still for `time_to_sleep`, the island falls asleep: velocities 0, the step sees its bodies
as ASLEEP (fixed, outside every solve, see bodies.py), and each remembers the island's label
(the id of one of its bodies) and its pose, frozen.

A kinematic body that moves keeps the bodies it touches or is jointed to awake.

An island wakes as a whole (timers back to 0) when
    * the narrowphase finds a manifold between one of its bodies and an awake one (touched,
      hit, or a moving kinematic body) -- `collide` looks at those pairs only;
    * a joint ties one of its bodies to an awake or moving body (a kinematic driver);
    * a body's pose or velocity no longer matches what it froze with (written from outside);
    * the World is told so (a joint added or removed, a motor or drive changed, a body's
      kind switched, a body added nearby, gravity changed, `World.wake`).

Sleeping bodies keep their manifolds (contacts.py parks them) and joint impulses, so a waking
island is warm started with the impulses that held it.
"""

import math

import numpy as np
from .jit import helper, kernel

from .bodies import ASLEEP, DYNAMIC, SPIN, VEL, moving_kinematic
from .direct import body_islands
from .joints.layout import BODY_A, BODY_B, BODY_C, BODY_D, BROKEN, ENABLED, FLAGS
from .mathx import length, vec3_at


@kernel
def wake_marked(mark, bkind, bisland, btimer):
    """Wake every sleeping body whose island label is marked; returns how many woke."""
    woke = 0
    for i in range(bkind.shape[0]):
        if bkind[i] == ASLEEP and mark[bisland[i]]:
            bkind[i] = DYNAMIC
            bisland[i] = -1
            btimer[i] = 0.0
            woke += 1
    return woke


@helper
def _mark_pair(a, b, bkind, bisland, mark, a_awake, b_awake):
    """Mark the island of whichever body sleeps when the other is awake."""
    found = False
    if a >= 0 and bkind[a] == ASLEEP and b_awake:
        mark[bisland[a]] = True
        found = True
    if b >= 0 and bkind[b] == ASLEEP and a_awake:
        mark[bisland[b]] = True
        found = True
    return found


@helper
def _awake_or_moving(i, bs, bkind, khas):
    return i >= 0 and (bkind[i] == DYNAMIC or moving_kinematic(i, bs, bkind, khas))


@helper
def _joint_body(jt, j, k):
    """Body k (0..3: A, B, C, D) of joint j."""
    return jt[j, BODY_A + k] if k < 2 else jt[j, BODY_C + k - 2]


@helper
def _many_bodies(jt, j):
    """The joint acts on more than its bodies A and B (a pulley on bodies, a custom
    constraint over three or four bodies): all of them are one island."""
    return jt[j, BODY_C] >= 0 or jt[j, BODY_D] >= 0


@helper
def _mark_joint(j, jt, bs, bkind, bisland, mark, khas):
    """_mark_pair for a joint over three or four bodies: its sleeping bodies' islands when
    another of its bodies is awake or moving."""
    awake = False
    for k in range(4):
        if _awake_or_moving(_joint_body(jt, j, k), bs, bkind, khas):
            awake = True
    found = False
    for k in range(4):
        i = _joint_body(jt, j, k)
        if awake and i >= 0 and bkind[i] == ASLEEP:
            mark[bisland[i]] = True
            found = True
    return found


@kernel
def wake_disturbed(bs, bkind, bisland, btimer, bfrozen, khas, jt, mark):
    """Before collision: wake islands whose bodies were moved or pushed from outside, or
    that a joint ties to an awake or moving body."""
    mark[:] = False
    found = False
    for i in range(bs.shape[0]):
        if bkind[i] != ASLEEP:
            continue
        for k in range(7):
            if bs[i, k] != bfrozen[i, k]:
                mark[bisland[i]] = True
                found = True
        for k in range(7, 13):
            if bs[i, k] != 0.0:
                mark[bisland[i]] = True
                found = True
    for j in range(jt.shape[0]):
        flags = jt[j, FLAGS]
        if not flags & ENABLED or flags & BROKEN:
            continue
        if _many_bodies(jt, j):
            if _mark_joint(j, jt, bs, bkind, bisland, mark, khas):
                found = True
            continue
        a = jt[j, BODY_A]
        b = jt[j, BODY_B]
        if _mark_pair(a, b, bkind, bisland, mark, _awake_or_moving(a, bs, bkind, khas),
                      _awake_or_moving(b, bs, bkind, khas)):
            found = True
    return wake_marked(mark, bkind, bisland, btimer) if found else 0


@helper
def wake_touched(mi, narrow, bs, bkind, bisland, btimer, khas, mark):
    """After the narrowphase: a manifold between a sleeping body and an awake (or moving
    kinematic) one wakes the sleeping island. Only the narrowphase's manifolds (0..narrow)
    can hold such a pair."""
    mark[:] = False
    found = False
    for m in range(narrow):
        a = mi[m, 0]
        b = mi[m, 1]
        if _mark_pair(a, b, bkind, bisland, mark, _awake_or_moving(a, bs, bkind, khas),
                      _awake_or_moving(b, bs, bkind, khas)):
            found = True
    return wake_marked(mark, bkind, bisland, btimer) if found else 0


@helper
def _still_with_mover(a, b, bs, bkind, khas, btimer):
    """A moving kinematic body keeps the dynamic body it touches or holds awake."""
    if a >= 0 and b >= 0:
        if bkind[a] == DYNAMIC and moving_kinematic(b, bs, bkind, khas):
            btimer[a] = 0.0
        if bkind[b] == DYNAMIC and moving_kinematic(a, bs, bkind, khas):
            btimer[b] = 0.0


@kernel
def end_frame(sleeping, bs, bkind, breach, bisland, btimer, bfrozen, khas, mi, jt, dt,
              threshold, time_to_sleep):
    """After the step, in one call: when the world sleeps, `fall_asleep`; then whether
    every body's state is finite (World raises when not: the simulation blew up)."""
    if sleeping:
        fall_asleep(bs, bkind, breach, bisland, btimer, bfrozen, khas, mi, jt, dt, threshold,
                    time_to_sleep)
    for i in range(bs.shape[0]):
        for k in range(bs.shape[1]):
            if not math.isfinite(bs[i, k]):
                return False
    return True


@helper
def fall_asleep(bs, bkind, breach, bisland, btimer, bfrozen, khas, mi, jt, dt, threshold,
                time_to_sleep):
    """After the step: advance the sleep timers and put to sleep every island whose bodies
    have all been still for time_to_sleep. mi holds the manifolds that were solved.
    Returns how many bodies fell asleep."""
    n = bs.shape[0]
    for i in range(n):
        if bkind[i] != DYNAMIC:
            continue
        v = length(vec3_at(bs, i, VEL))
        w = length(vec3_at(bs, i, SPIN))
        if v + breach[i] * w > threshold:
            btimer[i] = 0.0
        else:
            btimer[i] += dt
    for m in range(mi.shape[0]):
        _still_with_mover(mi[m, 0], mi[m, 1], bs, bkind, khas, btimer)
    for j in range(jt.shape[0]):
        if jt[j, FLAGS] & ENABLED and not jt[j, FLAGS] & BROKEN:
            if not _many_bodies(jt, j):
                _still_with_mover(jt[j, BODY_A], jt[j, BODY_B], bs, bkind, khas, btimer)
                continue
            for k in range(4):
                for m in range(k + 1, 4):
                    _still_with_mover(_joint_body(jt, j, k), _joint_body(jt, j, m), bs, bkind,
                                      khas, btimer)
    ripe = False
    for i in range(n):
        if bkind[i] == DYNAMIC and btimer[i] >= time_to_sleep:
            ripe = True
            break
    if not ripe:
        return 0
    pairs = np.empty((mi.shape[0] + 6 * jt.shape[0], 2), dtype=np.int64)
    count = 0
    for m in range(mi.shape[0]):
        pairs[count, 0] = mi[m, 0]
        pairs[count, 1] = mi[m, 1]
        count += 1
    for j in range(jt.shape[0]):
        if jt[j, FLAGS] & ENABLED and not jt[j, FLAGS] & BROKEN:
            pairs[count, 0] = jt[j, BODY_A]
            pairs[count, 1] = jt[j, BODY_B]
            count += 1
            if _many_bodies(jt, j):
                for k in range(4):
                    for m in range(max(k + 1, 2), 4):
                        pairs[count, 0] = _joint_body(jt, j, k)
                        pairs[count, 1] = _joint_body(jt, j, m)
                        count += 1
    root = body_islands(n, pairs, count, bkind)
    least = np.full(n, np.inf)      # per island, the shortest time one of its bodies was still
    for i in range(n):
        if bkind[i] == DYNAMIC:
            least[root[i]] = min(least[root[i]], btimer[i])
    slept = 0
    for i in range(n):
        if bkind[i] == DYNAMIC and least[root[i]] >= time_to_sleep:
            bkind[i] = ASLEEP
            bisland[i] = root[i]
            for k in range(7, 13):
                bs[i, k] = 0.0
            for k in range(7):
                bfrozen[i, k] = bs[i, k]
            slept += 1
    return slept
