"""Checks measured on the built world: bodies overlapping at the start frame (the solver's
own contacts), touching bodies of very different masses, and animated poses that drive a
joint past its limits."""

import math

from mathutils import Quaternion

from ..scene.animation import has_transform_animation, matrix_world_at
from .findings import WARNING, Finding, degrees_text, length_text, select_fix

OVERLAP = 0.003          # m: deeper overlaps at the start frame make bodies jump apart
LIMIT_SLACK = math.radians(2.0)   # animated poses this far past a limit are reported
PROBE_DT = 1e-6          # s: the speculative margin of the start frame's contacts
TOUCHING = 0.005         # m: contacts closer than this at the start frame touch
MASS_RATIO = 100.0       # heavier to lighter of two touching dynamic bodies


def start_contacts(sim):
    """The solver's contacts where the bodies start (`World.collide`: nothing moves)."""
    sim.world.collide(PROBE_DT)
    return sim.world.contacts()


def overlaps(sim, poses, contacts=None):
    """Bodies overlapping at the start frame, and how deep (the solver's contacts;
    `contacts`: `start_contacts` when measured already)."""
    c = start_contacts(sim) if contacts is None else contacts
    names = {b.id: b.name for b in sim.bodies}
    deepest = {}
    for (i, j), sep in zip(c["bodies"].tolist(), c["separations"].tolist()):
        if -sep > OVERLAP:
            key = tuple(sorted((names.get(i), names.get(j)), key=str))
            deepest[key] = max(deepest.get(key, 0.0), -sep)
    out = []
    for (a, b), depth in sorted(deepest.items(), key=lambda kv: -kv[1]):
        if a is None or b is None:
            continue
        size = min(float(poses.dims[poses.row[n]].min()) for n in (a, b))
        inside = " (one is half inside the other)" if depth > 0.5 * size else ""
        out.append(Finding(WARNING, 'overlap', (a, b),
            f"'{a}' and '{b}' overlap by {length_text(depth)} at the start frame{inside}: the "
            "solver pushes them apart in the first frames, so they jump; move them apart, or "
            "let them pass through each other (a joint's Disable Collisions, or collision "
            "groups)", select_fix([a, b]), {"depth": depth}))
    return out


def touching_mass_ratios(sim, contacts=None):
    """Dynamic bodies touching at the start frame (the solver's contacts) whose masses differ
    by more than 100:1. Soft contacts give way under a load many times their lighter body's
    weight, so the solver steps such a pile finer with stiffer contacts (up to 16 times:
    solver/islands.py), which costs time, and past about 25 000:1 the light body is
    squeezed out."""
    world = sim.world
    c = start_contacts(sim) if contacts is None else contacts
    masses = world.masses
    names = {b.id: b.name for b in sim.bodies if b.kind == 'DYNAMIC'}
    pairs = {}
    for (i, j), sep in zip(c["bodies"].tolist(), c["separations"].tolist()):
        if sep < TOUCHING and i in names and j in names:
            heavy, light = (i, j) if masses[i] >= masses[j] else (j, i)
            pairs[(heavy, light)] = float(masses[heavy] / masses[light])
    out = []
    for (heavy, light), ratio in sorted(pairs.items(), key=lambda kv: -kv[1]):
        if ratio <= MASS_RATIO:
            continue
        a, b = names[heavy], names[light]
        out.append(Finding(WARNING, 'touching-mass-ratio', (a, b),
            f"'{a}' ({masses[heavy]:g} kg) touches '{b}' ({masses[light]:g} kg) at "
            f"{ratio:.0f}:1: contacts give way past 100:1, so their island is stepped up to 16 "
            "times finer (slower) to hold, and past about 25 000:1 the light one is squeezed "
            "out; bring the masses closer",
            select_fix([a, b]), {"ratio": ratio}))
    return out


def _twist_swing(jtype, rel):
    """(twist, swing excess factor) of the relative rotation `rel` in the joint empty's axes:
    hinges turn about local Z; ragdolls twist about local Y and swing about X and Z."""
    q = rel if rel.w >= 0.0 else -rel
    if jtype == 'HINGE':
        return 2.0 * math.atan2(q.z, q.w), None
    n = math.hypot(q.w, q.y)
    twist = Quaternion((q.w / n, 0.0, q.y / n, 0.0)) if n > 1e-12 else Quaternion()
    swing = q @ twist.inverted()
    axis, angle = swing.to_axis_angle()
    s = axis * angle
    return 2.0 * math.atan2(q.y, q.w), (s.x, s.z)


def _limit_excess(js, rel):
    """(how far past its limits, the angle, the limit passed) for the joint at `rel`."""
    twist, swing = _twist_swing(js.type, rel)
    worst = (0.0, twist, None)
    if js.use_limit_ang:
        if twist < js.limit_ang_lower:
            worst = (js.limit_ang_lower - twist, twist, js.limit_ang_lower)
        elif twist > js.limit_ang_upper:
            worst = (twist - js.limit_ang_upper, twist, js.limit_ang_upper)
    if swing is not None:
        phi = math.hypot(*swing)
        if phi > 1e-9:
            ux, uz = swing[0] / phi, swing[1] / phi
            phi_max = 1.0 / math.sqrt((ux / js.swing_1) ** 2 + (uz / js.swing_2) ** 2)
            if phi - phi_max > worst[0]:
                worst = (phi - phi_max, phi, phi_max)
    return worst


def _sample_frames(scene):
    ws = scene.ligament_world
    start, end = ws.frame_start, max(ws.frame_end, ws.frame_start)
    stride = max(1, (end - start) // 60)
    frames = list(range(start, end + 1, stride))
    return frames if frames[-1] == end else frames + [end]


def animated_limits(scene, sim, objs):
    """Animated targets outside a joint's limits: a ragdoll's animated pose (its start pose
    and what pose matching pulls toward), and joints between two bodies that both follow
    their keys. `objs`: the scene's objects by name."""
    start = sim.start
    frames = _sample_frames(scene)
    joint_names = {jid: name for name, jid in sim.joints}
    out = []
    # Ragdolls: the animated pose of the armature, part by part.
    for run in sim.ragdolls:
        specs = []
        for j in run.joints:   # hinge and ragdoll joints: their frames in the parts' at rest
            e = objs.get(joint_names.get(j.id))
            if e is None or j.frame_a is None:
                continue
            specs.append((e, j.a, j.b, j.frame_a, j.frame_b))
        if not specs:
            continue
        animated = run.skeleton.animated or has_transform_animation(run.arm)
        worst = {}
        placed = run.start_poses     # the pose the run started from, made at attach
        for f in (frames if animated else [start]):
            poses = placed[1] if f == placed[0] else run.animated_poses(f, {})
            for e, ia, ib, fa, fb in specs:
                rel = (poses[ia].to_quaternion() @ fa).inverted() @ (
                    poses[ib].to_quaternion() @ fb)
                excess = _limit_excess(e.ligament_joint, rel)
                if excess[0] > worst.get(e.name, (0.0,))[0]:
                    worst[e.name] = (*excess, f)
        for name, (excess, angle, limit, f) in worst.items():
            if excess > LIMIT_SLACK:
                out.append(_limit_finding(objs[name], run.arm.name, angle, limit, f,
                                          f"ragdoll '{run.arm.name}''s animated pose"))
    # Joints between two bodies that both follow their animation (the joint cannot give).
    moving = {b.name for b in sim.bodies if b.kind != 'DYNAMIC'}
    animated = {b.name for b in sim.bodies if b.animated}
    ragdoll_joints = {joint_names.get(j.id) for run in sim.ragdolls for j in run.joints}
    for name, jid in sim.joints:
        e = objs.get(name)
        if e is None or name in ragdoll_joints:
            continue
        js = e.ligament_joint
        a, b = js.object_a, js.object_b
        if js.type not in {'HINGE', 'RAGDOLL'} or a is None or b is None or \
                not {a.name, b.name} <= moving or not {a.name, b.name} & animated:
            continue
        qj = matrix_world_at(e, start, {}).to_quaternion()
        fa = matrix_world_at(a, start, {}).to_quaternion().inverted() @ qj
        fb = matrix_world_at(b, start, {}).to_quaternion().inverted() @ qj
        worst = (0.0, 0.0, None, start)
        for f in frames:
            rel = (matrix_world_at(a, f, {}).to_quaternion() @ fa).inverted() @ (
                matrix_world_at(b, f, {}).to_quaternion() @ fb)
            excess = _limit_excess(js, rel)
            if excess[0] > worst[0]:
                worst = (*excess, f)
        if worst[0] > LIMIT_SLACK:
            out.append(_limit_finding(e, None, worst[1], worst[2], worst[3],
                                      f"the keys of '{a.name}' and '{b.name}'"))
    return out


def _limit_finding(e, armature, angle, limit, frame, whose):
    objs = (e.name,) if armature is None else (e.name, armature)
    return Finding(WARNING, 'animated-limit', objs,
        f"Joint '{e.name}': {whose} turns it to {degrees_text(angle)} at frame {frame}, past its limit "
        f"of {degrees_text(limit)}: the joint fights the animation there (a pose started past a limit "
        "snaps back in the first frame); widen the limit or change the animation",
        select_fix([e]), {"angle": angle, "limit": limit, "frame": frame})
