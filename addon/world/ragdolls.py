"""Ragdolls inside a simulation: the animated pose of the armature, the simulated switches,
the pose-matching drives, and the bones' pose from the simulated bodies (for baking).

The animated pose is forward kinematics of the pose bones' own channels (their F-curves, or
their current values where unkeyed) and the armature's object transform, evaluated at any
frame without the depsgraph, like the rest of the cache. Bone constraints of the rig (IK,
a generated rig's DEF bones following its controls) are not part of it: bake those to the
mapped bones first (Pose > Animation > Bake Action, Visual Keying).

Per frame, before the step (`RagdollRun.before_step`):

* a part whose ragdoll or bone is not "simulated" (both animatable) is kinematic and
  follows its animated bone; switching it on turns it dynamic with the animated velocity;
* with a drive strength above 0, each ragdoll joint is pulled toward the animated relative
  orientation of its two bodies, and each elbow and knee (a hinge) toward its animated hinge
  angle, by the solver's drives (`World.set_drive`: a spring of strength x stiffness Hz as
  hung, its torque capped). Only the targets are computed here; the solver does the physics;
* a part with a Hit Impulse that was hit (world/hits.py) goes limp with the parts jointed to
  it and those beyond them (`_freed_by_hit`), whatever their switches say; with Blend Back
  their joints are driven back toward the animated pose with a strength that ramps up to the
  Pose Matching Stiffness (`hits.blend_hertz`), and when the blend ends they follow the
  animation again.
"""

import math

import bpy
import numpy as np
from mathutils import Matrix, Quaternion, Vector

from ..scene import ragdolls
from ..scene.animation import action_fcurves, basis_at, compose, is_moving, matrix_world_at, \
    played_beyond_action
from ..scene.errors import SceneError
from .hits import blend_hertz
from .poses import shape_pose, start_velocity


def _matrix16(values):
    return Matrix([values[0:4], values[4:8], values[8:12], values[12:16]])


def bone_path(name):
    return f'pose.bones["{bpy.utils.escape_identifier(name)}"]'


class Skeleton:
    """Forward kinematics of the bones `names` (and their ancestors) of armature `arm`."""

    def __init__(self, arm, names, depth=None):
        """`depth`: the armature's `BoneDepths` when already made."""
        bones = arm.data.bones
        needed = set()
        for name in names:
            bone = bones[name]
            while bone is not None and bone.name not in needed:
                needed.add(bone.name)
                bone = bone.parent
        depth = BoneDepths(arm) if depth is None else depth
        self.order = sorted(needed, key=lambda n: depth[n])
        self.parent = {n: (bones[n].parent.name if bones[n].parent else None) for n in needed}
        self.rest = {n: bones[n].matrix_local.copy() for n in needed}
        # rest pose of each bone relative to its parent's rest (armature space for roots)
        self.link = {n: (self.rest[self.parent[n]].inverted() @ self.rest[n]
                         if self.parent[n] else self.rest[n]) for n in needed}
        self.arm = arm
        all_fcurves = action_fcurves(arm)
        self.fcurves = {}
        for n in needed:
            prefix = bone_path(n) + "."
            self.fcurves[n] = {(path[len(prefix):], i): fc for (path, i), fc in
                               all_fcurves.items() if path.startswith(prefix)}
        # bones played by NLA strips or drivers: their channels are read as the depsgraph
        # evaluated them at the frame (the Simulation evaluates the frame first)
        self.played = played_beyond_action(arm)
        if self.played:
            self.fcurves = {n: {} for n in needed}
        self.animated = self.played or any(self.fcurves.values())
        self._still = None

    def basis(self, name, frame):
        loc, rot, scale = basis_at(self.arm.pose.bones[name], frame, self.fcurves[name])
        return compose(loc, rot, scale)

    def pose(self, frame, overrides=None):
        """{bone: armature-space matrix} at `frame`; `overrides` fixes some bones' matrices
        (their children follow them)."""
        if not self.animated and not overrides and self._still is not None:
            return self._still
        out = {}
        for n in self.order:
            if overrides and n in overrides:
                out[n] = overrides[n]
                continue
            parent = out[self.parent[n]] if self.parent[n] else Matrix.Identity(4)
            out[n] = parent @ self.link[n] @ self.basis(n, frame)
        if not self.animated and not overrides:
            self._still = out
        return out

    def local_basis(self, name, pose):
        """The pose bone's matrix_basis that puts `name` at `pose[name]`."""
        parent = pose[self.parent[name]] if self.parent[name] else Matrix.Identity(4)
        return (parent @ self.link[name]).inverted_safe() @ pose[name]


class BoneDepths:
    """`depths[name]`: how many ancestors the armature's bone has, walking up only from the
    bones asked about and remembering each (`Bone.parent_recursive` builds the list of them
    on every call; a metarig has 159 bones, a ragdoll maps 16)."""

    def __init__(self, arm):
        self.bones = arm.data.bones
        self.depth = {}

    def __getitem__(self, name):
        depth = self.depth
        chain = []
        bone = self.bones[name]
        while bone is not None and bone.name not in depth:
            chain.append(bone.name)
            bone = bone.parent
        d = -1 if bone is None else depth[bone.name]
        for n in reversed(chain):
            d += 1
            depth[n] = d
        return depth[name]


class Part:
    """One body of a ragdoll (or of a bone chain: `chain` is its root bone) at run time."""
    __slots__ = ("name", "body", "bone", "frame", "to_body", "targets", "obj_settings",
                 "chain")

    def __init__(self, obj, body, arm, children, depth):
        """`children`: the objects parented to `obj` (`children_by_parent`), `depth`: the
        armature's `BoneDepths`."""
        p = obj.ligament_ragdoll_part
        self.name = obj.name
        self.chain = p.chain                          # "" for a ragdoll's own parts
        self.obj_settings = obj.ligament_body         # Hit Impulse, Blend Back
        self.body = body                              # Body
        self.frame = _matrix16(p.rest_frame)          # armature space, rest pose
        self.targets = {}                             # bone -> target empty's local matrix
        bones = depth.bones
        for child in children:
            cp = child.ligament_ragdoll_part
            if cp.role == 'TARGET':
                if cp.bone not in bones:
                    raise SceneError(f"Ragdoll of '{arm.name}': bone '{cp.bone}' is gone "
                                     "(renamed or deleted); remove the ragdoll and make it "
                                     "again")
                self.targets[cp.bone] = child.matrix_basis.copy()
        if not self.targets:
            raise SceneError(f"Ragdoll of '{arm.name}': body '{obj.name}' lost its bone "
                             "targets; remove the ragdoll and make it again")
        self.bone = min(self.targets, key=depth.__getitem__)
        # the body's frame relative to its first bone (both at rest, armature space)
        self.to_body = bones[self.bone].matrix_local.inverted() @ self.frame


class Joint:
    """A joint of a ragdoll: its solver id, its parts (indices), and for hinge and ragdoll
    joints the joint frame's rotation in each part's frame at rest (`frame_a`, `frame_b`;
    None for other types); `chain`: the root bone of the bone chain it belongs to, or ""."""
    __slots__ = ("id", "a", "b", "hinge", "frame_a", "frame_b", "chain")

    def __init__(self, joint_id, a, b, hinge, chain=""):
        self.id, self.a, self.b, self.hinge, self.chain = joint_id, a, b, hinge, chain
        self.frame_a = self.frame_b = None


class RagdollRun:
    """A ragdoll in a Simulation: its parts (body ids), joints, skeleton and switches."""

    def __init__(self, arm, parts, joints, depth=None):
        """`depth`: the armature's `BoneDepths` when already made."""
        self.arm = arm
        self.name = arm.name
        self.parts = parts
        self.joints = joints
        self.skeleton = Skeleton(arm, [p.bone for p in parts], depth)
        self.fcurves = action_fcurves(arm)
        self.baked = arm.ligament_ragdoll.baked
        self.drive_animated = any(path.endswith("drive_strength") or
                                  path.endswith("drive_stiffness") for path, _ in self.fcurves)
        self.ids = np.array([p.body.id for p in parts], dtype=np.int64)
        self._paths = {}   # (owner, path) -> its F-curve or None
        self.start_poses = (None, None)   # (frame, [helper world matrix]): place_at_start's
        # Unkeyed, undriven switches and drive settings only change through their update
        # callbacks, which drop the cache: a ragdoll with none keyed or driven, every part
        # simulated and no drive has nothing to do before a step (every part was built
        # dynamic).
        ad = arm.animation_data
        paths = [path for path, _ in self.fcurves]
        paths += [d.data_path for d in ad.drivers] if ad is not None else []
        keyed = any(path.startswith("ligament_ragdoll.") or ".ligament_ragdoll." in path or
                    path.endswith((".ligament_simulated", ".ligament_drive_strength"))
                    for path in paths)
        # parts that react to hits (by index), and what goes limp when each is hit
        self.reacting = frozenset(i for i, p in enumerate(parts)
                                  if p.obj_settings.hit_impulse > 0.0)
        self.freed = {i: _freed_by_hit(i, joints) for i in self.reacting}
        # bone chains: {root bone: (stiffness Hz, damping ratio)}, their joints
        self.chains = {j.chain: _chain_spring(arm, j.chain) for j in joints if j.chain}
        self.chain_joints = [j for j in joints if j.chain]
        self.ragdoll_joints = [j for j in joints if not j.chain]
        self.chain_scales = None     # per chain joint, see chain_scales
        # chains whose bones below the root are not keyed pull toward a fixed relative
        # orientation: their drives are set once (`set_static_drives`), not every frame
        self.chain_static = not self.skeleton.played and \
            not any(self.skeleton.fcurves.get(p.bone) for p in parts
                    if p.chain and p.bone != p.chain)
        self.keyed = keyed
        self.flags = None            # the parts' simulated flags when nothing keys them
        # every pose drive's strength (and torque cap) times this; `scale_drives` (Live Mode)
        self.drive_scale = 1.0
        self.scaled = False
        self.idle = not keyed and not self.baked and not self.reacting and \
            self.value(None, "drive_strength", 0) <= 0.0 and \
            all(self.simulated_flags(0)) and not self.chains

    def scale_drives(self, factor):
        """Every pose drive's strength and torque cap times `factor` from the next step (0:
        the drives off, the ragdoll limp). The drives are then sent every step, so a drive on
        in the world's state (a state loaded from another simulation) is switched off at 0."""
        self.drive_scale = float(factor)
        self.scaled = True
        self.idle = False

    # --- animated values ------------------------------------------------------------------

    def value(self, owner, path, frame):
        """An animatable property of the armature (owner None) or of a pose bone, at `frame`."""
        fc = self._paths.get((owner, path), False)
        if fc is False:
            if owner is None:
                fc = self.fcurves.get((f"ligament_ragdoll.{path}", 0))
            else:      # the pose bone's own, or keys on the name files made before used
                bone = bone_path(owner)
                fc = self.fcurves.get((f"{bone}.ligament_{path}", 0))
                if fc is None:
                    fc = self.fcurves.get((f"{bone}.ligament_ragdoll.{path}", 0))
            self._paths[owner, path] = fc
        if fc is not None:
            return fc.evaluate(frame)
        if owner is None:
            return getattr(self.arm.ligament_ragdoll, path)
        return ragdolls.bone_switch(self.arm.pose.bones[owner], path)

    def simulated_flags(self, frame):
        """Per part: is it simulated at `frame` (its ragdoll's and its bone's switches on,
        and not baked)? A new list each call."""
        if self.flags is not None:
            return list(self.flags)
        if self.baked or not self.value(None, "simulated", frame) > 0.5:
            flags = [False] * len(self.parts)
        else:
            flags = [self.value(p.bone, "simulated", frame) > 0.5 for p in self.parts]
        if not self.keyed:     # unkeyed switches only change through a rebuild
            self.flags = flags
        return list(flags)

    def animated_poses(self, frame, known, only=None):
        """[(world matrix of the part's helper object)] at `frame` from the animation (with
        `only`, a list of part indices, those parts' and None for the others)."""
        arm_world = matrix_world_at(self.arm, frame, known)
        pose = self.skeleton.pose(frame)
        if only is not None:
            out: list = [None] * len(self.parts)
            for i in only:
                p = self.parts[i]
                out[i] = ragdolls.rigid(arm_world @ pose[p.bone] @ p.to_body)
            return out
        return [ragdolls.rigid(arm_world @ pose[p.bone] @ p.to_body) for p in self.parts]

    # --- per step -------------------------------------------------------------------------

    def place_at_start(self, world, start, dt, frames):
        """Move the bodies (built at the rest pose so the joints' limits are anatomical) to
        the animated pose of the start frame, moving as the animation does (the armature's
        own keys, or a parent carrying it). `frames(f)`: the `matrix_world_at` memo of frame
        f with what only the depsgraph knows. Returns the helpers' start matrices."""
        poses = self.animated_poses(start, frames(start))
        moving = self.skeleton.animated or is_moving(self.arm)
        nxt = self.animated_poses(start + 1, frames(start + 1)) if moving else poses
        pos, rot, vel, spin = [], [], [], []
        for part, m, m1 in zip(self.parts, poses, nxt):
            com, q = shape_pose(part.body, m)
            pos.append(com)
            rot.append(q)
            if not moving:       # a still pose: starts at rest
                continue
            v, w = start_velocity((com, q), shape_pose(part.body, m1), dt)
            vel.append(v)
            spin.append(w)
        # The world's state arrays are views: write the start poses in place, all at once.
        world.positions[self.ids] = pos
        world.orientations[self.ids] = rot
        world.linear_velocities[self.ids] = vel if moving else 0.0
        world.angular_velocities[self.ids] = spin if moving else 0.0
        # parts not simulated at the start (a bone chain's root) are kinematic from it, as
        # every step's `before_step` makes them: the scene check sees them held
        for part, sim in zip(self.parts, self.simulated_flags(start)):
            if not sim:
                world.set_kind(part.body.id, "kinematic")
        self.start_poses = (start, poses)
        return poses

    def limp(self, off):
        """{part index: (hit frame, blend frames)} of the parts limp after hits (`off`: {body
        name: hit frame} of the bodies off their animation), the latest hit first: each hit
        part with the parts jointed to it and those beyond them (`_freed_by_hit`)."""
        out = {}
        if not self.reacting or not off:
            return out
        hits = sorted(((off[self.parts[i].name], i) for i in self.reacting
                       if self.parts[i].name in off), reverse=True)
        for hit, i in hits:
            blend = self.parts[i].obj_settings.blend_back
            for k in self.freed[i]:
                out.setdefault(k, (hit, blend))
        return out

    def before_step(self, world, frame, known, off=None):
        """Kinds, kinematic targets and drives for the step that ends at `frame`; `off`:
        {body name: hit frame} of the hit bodies off their animation."""
        if self.idle:
            return
        flags = self.simulated_flags(frame)
        limp = self.limp(off)
        for i in limp:
            flags[i] = True
        strength = 0.0 if self.baked else \
            self.value(None, "drive_strength", frame) * self.drive_scale
        every = strength > 0.0 or bool(self.reacting) or \
            (bool(self.chains) and not self.chain_static)
        if every:
            poses = self.animated_poses(frame, known)
        elif not all(flags):      # only the animated parts' targets
            poses = self.animated_poses(frame, known, [i for i, f in enumerate(flags) if not f])
        else:
            poses = None
        # dynamic bodies are the ones with a finite mass: one array read per ragdoll instead
        # of a World.kind call per body
        dynamic = np.isfinite(world.masses[self.ids]).tolist()
        for part, sim, dyn, m in zip(self.parts, flags, dynamic,
                                     poses or [None] * len(self.parts)):
            b = part.body.id
            if sim != dyn:
                world.set_kind(b, "dynamic" if sim else "kinematic")
            if not sim:
                world.set_kinematic_target(b, *shape_pose(part.body, m))
        self._drive(world, frame, strength, poses, limp)

    def _drive_chains(self, world, poses):
        """Each bone chain joint sprung toward the animated relative orientation of its two
        bodies (the rest pose where the chain's bones are not keyed), at the chain's
        stiffness for the part of the chain it carries (`chain_scales`)."""
        scales = self.chain_scales
        if scales is None:
            scales = self.chain_scales = chain_scales(self, world)
        for j, scale in zip(self.chain_joints, scales):
            hertz, zeta = self.chains[j.chain]
            target = poses[j.a].to_quaternion().inverted() @ poses[j.b].to_quaternion()
            world.set_drive(j.id, tuple(target), hertz * scale, zeta * scale)

    def set_static_drives(self, world, start, known):
        """The drives of chains whose bones are not keyed, once (they are part of the
        world's saved state from then on)."""
        if self.chain_joints and self.chain_static:
            self._drive_chains(world, self.animated_poses(start, known))

    def _drive(self, world, frame, strength, poses, limp=None):
        if self.chain_joints and not self.chain_static and poses is not None:
            self._drive_chains(world, poses)
        if strength <= 0.0 and not self.drive_animated and not self.reacting and \
                not self.scaled:
            return  # never on: nothing to switch off
        hertz = strength * self.value(None, "drive_stiffness", frame)
        damping = self.value(None, "drive_damping", frame)
        cap = self.value(None, "drive_max_torque", frame) * self.drive_scale
        for j in self.ragdoll_joints:
            child = self.parts[j.b]
            f = 0.0 if poses is None or hertz <= 0.0 else \
                hertz * self.value(child.bone, "drive_strength", frame)
            torque = cap * f / hertz if cap > 0 and hertz > 0 else None
            zeta = damping
            blend = limp.get(j.a) or limp.get(j.b) if limp else None
            if blend is not None and blend[1] > 0:   # back toward the animation after a hit
                pull = blend_hertz(frame, blend[0], blend[1],
                                   self.value(None, "drive_stiffness", frame))
                if pull > f:
                    f, torque, zeta = pull, None, 1.0
            if f <= 0.0:
                world.set_drive(j.id, 0.0 if j.hinge else (1, 0, 0, 0), 0.0)
                continue
            qa = poses[j.a].to_quaternion()
            qb = poses[j.b].to_quaternion()
            target = _hinge_angle(j, qa, qb) if j.hinge else tuple(qa.inverted() @ qb)
            world.set_drive(j.id, target, f, zeta, torque)


def _chain_spring(arm, root):
    """(stiffness Hz, damping ratio) of the bone chain rooted at `root`."""
    pb = arm.pose.bones.get(root)
    if pb is None:
        raise SceneError(f"Bone chain of '{arm.name}': its root bone '{root}' is gone "
                         "(renamed or deleted); remove the chain and add it again")
    return ragdolls.chain_setting(pb, "stiffness"), ragdolls.chain_setting(pb, "damping")


def chain_scales(run, world):
    """Per chain joint of `run`: the factor on the chain's stiffness (Hz) and damping ratio
    that makes the joint swing the whole chain below it at that stiffness and damping.

    The solver's drive hertz is the frequency of the joint's own two bodies as hung (their
    inertias about the anchor, docs/rows.md); a joint near a chain's root carries every bone
    below it, so its spring must be stiffer by sqrt(I_below / I_joint): I_below the inertia
    of the bones below the joint about its anchor, I_joint the inertia the solver uses (the
    child bone's about the anchor, in series with the parent's when the parent is dynamic).
    Bones count as rods along their bodies' axes, at the rest pose."""
    scale = run.arm.matrix_world.to_scale()[0]
    masses = world.masses
    bones = run.arm.data.bones
    centre = [Vector(p.frame.translation) * scale for p in run.parts]
    length = [bones[p.bone].length * scale for p in run.parts]
    mass = [float(masses[p.body.id]) for p in run.parts]
    below = {}
    for j in run.chain_joints:
        below.setdefault(j.a, []).append(j.b)
    out = []
    for j in run.chain_joints:
        anchor = bones[run.parts[j.b].bone].head_local * scale

        def about(k):
            return mass[k] * (length[k] ** 2 / 12.0 + (centre[k] - anchor).length_squared)
        carried, todo = 0.0, [j.b]
        while todo:
            k = todo.pop()
            carried += about(k)
            todo.extend(below.get(k, ()))
        own = about(j.b)
        parent = run.parts[j.a]
        if parent.chain and parent.bone != parent.chain and math.isfinite(mass[j.a]):
            own = 1.0 / (1.0 / own + 1.0 / about(j.a))
        out.append(math.sqrt(carried / own) if own > 0.0 else 1.0)
    return out


def clear_chain_overlaps(world, run, dt):
    """Keep `run`'s bone chain bodies from colliding with the parts of its ragdoll they
    overlap at their start poses. Chains collide with the ragdoll's parts (a tail meets the
    legs), but a capsule made from bones that start inside the chest or neck it hangs from
    is held there by its joints while its contact pushes it out: the two fight every
    substep, and the fight fed a JIGGLE chain on a metarig's chest until the rig was
    thrown (docs/performance.md, the rest44 subsection). Parts a chain clears at the start
    keep colliding with it. Returns the pairs ignored, as body ids (chain, part)."""
    chain = {p.body.id for p in run.parts if p.chain}
    own = {p.body.id for p in run.parts if not p.chain}
    if not chain or not own:
        return []
    state = world.save_state()      # the check's contacts must not warm start the first step
    world.collide(dt)
    found = world.contacts()
    world.load_state(state)
    pairs = set()
    for (a, b), sep in zip(found["bodies"].tolist(), found["separations"].tolist()):
        if sep < 0.0 and ((a in chain and b in own) or (b in chain and a in own)):
            pairs.add((a, b) if a in chain else (b, a))
    for a, b in sorted(pairs):
        world.ignore_collisions(a, b)
    return sorted(pairs)


# A gravity factor below 1 lifts each chain body by (1 - factor) m g with a soft spring to an
# anchor ANCHOR_HEIGHT above it, stretched GRAVITY_REACH beyond its rest length: the pull
# changes by 0.1 % per metre the body moves along it, and tilts by 0.1 mrad per metre it
# moves across (no per-body gravity in the solver; the spring is an ordinary joint row).
ANCHOR_HEIGHT, GRAVITY_REACH = 10000.0, 1000.0


def lift_chains(world, run):
    """The gravity-factor springs of `run`'s bone chains (dynamic members only), added to
    `world` at the bodies' current poses. Returns their joint ids."""
    g = np.asarray(world.gravity, dtype=np.float64)
    weight = float(np.linalg.norm(g))
    if weight <= 0.0:
        return []
    up = -g / weight
    factors = {}
    out = []
    masses = world.masses
    for part in run.parts:
        if not part.chain or part.bone == part.chain:
            continue    # a ragdoll part, or the chain's (animated) root
        if part.chain not in factors:
            factors[part.chain] = ragdolls.chain_setting(run.arm.pose.bones[part.chain],
                                                         "gravity_factor")
        lift = (1.0 - factors[part.chain]) * float(masses[part.body.id]) * weight
        if lift <= 0.0:
            continue
        p = world.positions[part.body.id].copy()
        out.append(world.add_distance(None, part.body.id, p + up * ANCHOR_HEIGHT, p,
                                      spring_stiffness=lift / GRAVITY_REACH, spring_damper=0.0,
                                      rest_length=ANCHOR_HEIGHT - GRAVITY_REACH))
    return out


def _freed_by_hit(i, joints):
    """The parts that go limp when part i is hit: the part jointed to it toward the root
    (its joint's A side) and every part beyond that (a chest hit frees the spine, the chest,
    the head and the arms; a forearm hit the upper arm, the forearm and the hand). Only
    the parts next to it would leave a limp part held between two animated ones, locked."""
    parent = {j.b: j.a for j in joints}
    children = {}
    for j in joints:
        children.setdefault(j.a, []).append(j.b)
    out, todo = set(), [parent.get(i, i)]
    while todo:
        k = todo.pop()
        if k not in out:
            out.add(k)
            todo.extend(children.get(k, ()))
    return frozenset(out)


def reference_matrix(obj, frame, known=None):
    """World matrix of a ragdoll body's helper with its armature at the rest pose (where the
    solver world is built, so that joint angles count from the rest pose), with the pose's
    scale at `frame` (`ragdolls.body_carry`). `known`: a `matrix_world_at` memo of `frame`
    (the armature's matrix is read once for all its helpers)."""
    p = obj.ligament_ragdoll_part
    arm = p.armature
    arm_world = matrix_world_at(arm, frame, {} if known is None else known)
    return ragdolls.rigid(arm_world @ ragdolls.body_carry(arm, obj, scale_at(arm, frame)) @
                          _matrix16(p.rest_frame))


def scale_at(arm, frame):
    """`scale_of(bone name)` for `ragdolls.scaled_rest`: the pose bone's scale channels at
    `frame` (keyed, or its current ones)."""
    fcurves = action_fcurves(arm)

    def scale_of(n):
        path = bone_path(n) + ".scale"
        scale = list(arm.pose.bones[n].scale)
        for i in range(3):
            fc = fcurves.get((path, i))
            if fc is not None:
                scale[i] = fc.evaluate(frame)
        return scale
    return scale_of


def is_body(obj, scene=None):
    """Whether `obj` is a body of a ragdoll (of one whose armature is in `scene`, if given):
    one moved out of its ragdoll's collection is a body of its own (the scene check says
    so)."""
    p = obj.ligament_ragdoll_part
    if p.role != 'BODY' or p.armature is None or not p.armature.ligament_ragdoll.enabled:
        return False
    coll = p.armature.ligament_ragdoll.collection
    if coll is None or coll.all_objects.get(obj.name) != obj:
        return False
    return scene is None or scene.objects.get(p.armature.name) == p.armature


def _hinge_angle(j, qa, qb):
    """Angle of B about the hinge (the joint frame's Z) relative to A, zero at rest: the
    solver's hinge angle (the world is built at the rest pose), for the hinge drive's target."""
    rel = (qa @ j.frame_a).inverted() @ (qb @ j.frame_b)
    return 2.0 * math.atan2(rel.z, rel.w)


def children_by_parent():
    """{object: [its children]}, what `Object.children` gives, in one pass over the file's
    objects (`children` makes that pass on every call: O(N^2) for a crowd of ragdolls)."""
    out = {}
    for o in bpy.data.objects:
        if o.parent is not None:
            out.setdefault(o.parent, []).append(o)
    return out


def attach(scene, sim, frames):
    """RagdollRuns for the ragdolls in `sim` (a runtime Simulation whose world was just built
    with the ragdolls at rest); moves their bodies to the start pose and returns
    (runs, {helper name: start world matrix}). `frames(f)`: the `matrix_world_at` memo of
    frame f with what only the depsgraph knows there."""
    by_name = {b.name: b for b in sim.bodies}
    joint_ids = dict(sim.joints)
    children = children_by_parent()
    runs, starts = [], {}
    # the world matrices the build made the bodies and joints from (helpers at rest, joint
    # empties with them): the joints' frames in their parts' frames are the world's own
    built = sim.rest_matrices
    for arm in ragdolls.armatures(scene):
        helpers, empties = ragdolls.members_by_role(arm, ('BODY', 'JOINT'))
        helpers = [o for o in helpers if o.name in by_name]
        if not helpers:
            continue
        depth = BoneDepths(arm)
        parts = [Part(o, by_name[o.name], arm, children.get(o, ()), depth) for o in helpers]
        index = {o.name: i for i, o in enumerate(helpers)}
        joints = []
        for e in empties:
            js = e.ligament_joint
            if e.name not in joint_ids or js.object_a is None or js.object_b is None or \
                    js.object_a.name not in index or js.object_b.name not in index:
                continue
            j = Joint(joint_ids[e.name], index[js.object_a.name], index[js.object_b.name],
                      js.type == 'HINGE', e.ligament_ragdoll_part.chain)
            if js.type in {'HINGE', 'RAGDOLL'}:   # hinge drives and the scene check
                qj = built[e.name].to_quaternion()
                j.frame_a = built[js.object_a.name].to_quaternion().inverted() @ qj
                j.frame_b = built[js.object_b.name].to_quaternion().inverted() @ qj
            joints.append(j)
        run = RagdollRun(arm, parts, joints, depth)
        for part, m in zip(parts, run.place_at_start(sim.world, sim.start, sim.dt, frames)):
            starts[part.name] = m
        if run.chains:
            clear_chain_overlaps(sim.world, run, sim.dt)
            lift_chains(sim.world, run)
            run.set_static_drives(sim.world, sim.start, frames(sim.start))
        runs.append(run)
    return runs, starts


def bake_skeleton(run):
    """The Skeleton of every bone a ragdoll moves, for `bone_poses`."""
    return Skeleton(run.arm, [b for p in run.parts for b in p.targets])


def bone_poses(run, skeleton, frame, helper_poses, known=None):
    """{bone: matrix_basis} of the mapped bones at `frame` from the helpers' world poses
    (`helper_poses`: {helper name: (location, quaternion values)}), for baking. `known`: the
    `matrix_world_at` memo of the frame."""
    arm_inv = matrix_world_at(run.arm, frame, {} if known is None else known).inverted_safe()
    overrides = {}
    for part in run.parts:
        loc, rot = helper_poses[part.name]
        helper = Matrix.LocRotScale(loc, Quaternion(rot), None)
        for bone, local in part.targets.items():
            overrides[bone] = arm_inv @ helper @ local
    pose = skeleton.pose(frame, overrides)
    return {bone: skeleton.local_basis(bone, pose) for bone in overrides}
