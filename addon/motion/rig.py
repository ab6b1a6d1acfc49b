"""A ragdolled armature's keyed motion read into the physics check (`check.py`), and the fixed
motion (`fix.py`) written as a new action.

What is read: each ragdoll body's mass, centre of mass and inertia from its shape (the same
fit and mass properties the simulation builds it from: `world.build.body_shape`, the solver
shape's `mass_properties` scaled to the body's mass), posed frame by frame where the keyed
animation puts its bone (the animated pose the simulation follows: `world.ragdolls.Skeleton`,
the bones' own F-curves and the armature's transform, no constraints); its contact sample
points from its shape; the scene's Static bodies as the ground, where they are at the first
frame checked. The range is the scene's frame range, the gravity the scene's.

The fix is a new action, a copy of the keyed one whose root bone (the nearest bone above every
ragdoll bone) has its location and rotation keyed on every frame of the range (its keys
outside the range are not kept), moved and turned as `fix.py` asks, reduced to the bake's
tolerances when the bake reduces keys; the keyed action is kept (with a fake user) and
`switch` puts either back.

A ragdoll on a rig Rigify generated is read and keyed through its controls (`rigify.py`): the
pose Blender evaluates, the root control as the root bone, the torso and IK feet for balance.
"""

import json

import bpy
import numpy as np
from mathutils import Matrix, Quaternion, Vector

from ..authoring import ragdoll
from ..baking.bake import _channelbag, write_transform
from ..kernels import solver as lg
from ..runtime import cache
from ..scene import ragdolls
from ..scene.animation import action_fcurves, matrix_world_at, parent_link, \
    quaternion_to_rotation, rotation_values, transform_fcurves
from ..scene.errors import SceneError
from ..scene.objects import effective_kind, scene_bodies, world_settings
from ..world.build import body_shape
from ..world.ragdolls import BoneDepths, Part, Skeleton, bone_path
from . import check, fix, rigify

FIX_SUFFIX = "_PhysicsFix"


def _matrix_np(m):
    return np.array(m, dtype=np.float64)


# --------------------------------------------------------------------------------------------
# Shapes as sample points and triangles

def _box_corners(half):
    hx, hy, hz = half
    return np.array([(x * hx, y * hy, z * hz) for x in (-1, 1) for y in (-1, 1)
                     for z in (-1, 1)], dtype=np.float64)


BOX_TRIANGLES = np.array([(0, 1, 3), (0, 3, 2), (4, 6, 7), (4, 7, 5), (0, 4, 5), (0, 5, 1),
                          (2, 3, 7), (2, 7, 6), (0, 2, 6), (0, 6, 4), (1, 5, 7), (1, 7, 3)])
RIM = 12     # points around a cylinder's rim


def _rim(radius, half_height):
    a = np.linspace(0.0, 2.0 * np.pi, RIM, endpoint=False)
    ring = np.column_stack((radius * np.cos(a), radius * np.sin(a)))
    return np.array([(x, y, z) for z in (-half_height, half_height) for x, y in ring])


def shape_samples(shape):
    """(points (n, 3), radii (n,)) in the shape's frame that bound it for contacts: a
    sphere's centre and a capsule's end centres with their radius, a box's corners, a
    cylinder's rims, a hull's vertices, a compound's parts' samples."""
    if isinstance(shape, lg.Sphere):
        return np.zeros((1, 3)), np.array([shape.radius])
    if isinstance(shape, lg.Capsule):
        h = shape.half_height
        return np.array([(0, 0, -h), (0, 0, h)], dtype=np.float64), np.full(2, shape.radius)
    if isinstance(shape, lg.Box):
        return _box_corners(shape.half_extents), np.zeros(8)
    if isinstance(shape, lg.Cylinder):
        return _rim(shape.radius, shape.half_height), np.zeros(2 * RIM)
    if isinstance(shape, lg.ConvexHull):
        return np.array(shape.vertices, dtype=np.float64), np.zeros(len(shape.vertices))
    if isinstance(shape, lg.Compound):
        points, radii = [], []
        for part, pos, q in shape.parts:
            p, r = shape_samples(part)
            rot = _matrix_np(_quat_matrix(q))
            points.append(p @ rot.T + pos)
            radii.append(r)
        return np.concatenate(points), np.concatenate(radii)
    raise SceneError(f"{shape!r} cannot be a ragdoll body's shape")


def _quat_matrix(q):
    return Quaternion(tuple(q)).to_matrix()


def _add_ground(ground, shape, frame):
    """Append `shape` placed by the 4x4 numpy `frame` to the ground lists (planes,
    triangles, capsules, radii)."""
    planes, triangles, capsules, radii = ground
    rot, origin = frame[:3, :3], frame[:3, 3]
    if isinstance(shape, lg.Plane):
        n = rot @ shape.normal
        planes.append([*n, shape.offset + n @ origin])
        return
    if isinstance(shape, (lg.Sphere, lg.Capsule)):
        h = shape.half_height if isinstance(shape, lg.Capsule) else 0.0
        ends = np.array([(0, 0, -h), (0, 0, h)]) @ rot.T + origin
        capsules.append(ends)
        radii.append(shape.radius)
        return
    if isinstance(shape, lg.Compound):
        for part, pos, q in shape.parts:
            m = np.eye(4)
            m[:3, :3] = _matrix_np(_quat_matrix(q))
            m[:3, 3] = pos
            _add_ground(ground, part, frame @ m)
        return
    if isinstance(shape, lg.Box):
        verts, tris = _box_corners(shape.half_extents), BOX_TRIANGLES
    elif isinstance(shape, lg.Cylinder):
        verts = _rim(shape.radius, shape.half_height)
        hull = lg.ConvexHull(verts)
        verts, tris = hull.vertices, hull.triangles
    else:       # ConvexHull, TriangleMesh
        verts, tris = shape.vertices, shape.triangles
    world = np.asarray(verts, dtype=np.float64) @ rot.T + origin
    triangles.append(world[np.asarray(tris)])


# --------------------------------------------------------------------------------------------
# Reading the rig

class MotionRig:
    """The ragdoll of `arm` as the check reads it: its parts (world.ragdolls.Part), skeleton,
    `character`, `ground` and `settings`."""

    def __init__(self, scene, arm, depsgraph=None):
        if arm is None or arm.type != 'ARMATURE':
            name = f"'{arm.name}'" if arm is not None else "Nothing"
            raise SceneError(f"Physics check: {name} is not an armature; select the "
                             "character's armature")
        if not ragdoll.is_ragdoll(arm):
            raise SceneError(f"Physics check: armature '{arm.name}' has no Ligament ragdoll; "
                             "make one first (Properties > Physics > Ragdoll from Armature)")
        self.scene, self.arm = scene, arm
        depth = BoneDepths(arm)
        helpers = sorted((o for o in ragdolls.bodies(arm) if not o.ligament_ragdoll_part.chain),
                         key=lambda o: o.name)
        self.parts = [Part(o, None, arm, list(o.children), depth) for o in helpers]
        self.part_names = [o.ligament_ragdoll_part.part for o in helpers]
        self.skeleton = Skeleton(arm, [p.bone for p in self.parts], depth)
        # a generated Rigify rig is read as Blender evaluates it and fixed on its controls
        self.rigify = rigify.is_generated(arm)
        if not self.rigify:
            _refuse_constrained(arm, self.skeleton.order)
        # the bone the fix moves the whole character by (a generated rig's root control)
        self.root = rigify.ROOT if self.rigify else \
            _common_ancestor(arm, [p.bone for p in self.parts], depth)
        self.character = self._character(helpers, depsgraph)
        self.first = scene.frame_start
        self.ground = self._ground(depsgraph)
        ws = world_settings(scene)
        motion = arm.ligament_motion
        self.settings = check.Settings(gravity=np.array(ws["gravity"]), dt=ws["dt"],
                                       contact_distance=motion.contact_distance,
                                       contact_speed=motion.contact_speed)
        check.ground_axes(self.settings.gravity)      # refuses a scene without gravity

    def _character(self, helpers, depsgraph):
        masses, centres, inertia = [], [], []
        body, points, radii = [], [], []
        for i, obj in enumerate(helpers):
            scale = obj.matrix_world.to_scale()
            shape, offset = body_shape(obj, 'DYNAMIC', scale, depsgraph)
            volume, com, unit = shape.mass_properties()
            offset = np.zeros(3) if offset is None else np.asarray(offset, dtype=np.float64)
            mass = obj.ligament_body.mass
            masses.append(mass)
            centres.append(offset + com)
            inertia.append(unit * (mass / volume))
            p, r = shape_samples(shape)
            body += [i] * len(p)
            points.append(p + offset)
            radii.append(r)
        return check.Character(np.array(masses), np.array(centres), np.array(inertia),
                               np.array(body, dtype=np.int64), np.concatenate(points),
                               np.concatenate(radii), [o.name for o in helpers])

    def _ground(self, depsgraph):
        lists = ([], [], [], [])
        for o in scene_bodies(self.scene):
            if effective_kind(o) != 'STATIC' or o.ligament_ragdoll_part.role != 'NONE':
                continue
            loc, rot, scale = matrix_world_at(o, self.first, {}).decompose()
            shape, offset = body_shape(o, 'STATIC', scale, depsgraph)
            origin = loc if offset is None else loc + rot @ Vector(tuple(offset))
            _add_ground(lists, shape, _matrix_np(Matrix.LocRotScale(origin, rot, None)))
        planes, triangles, capsules, radii = lists
        return check.Ground(
            triangles=np.concatenate(triangles) if triangles else np.zeros((0, 3, 3)),
            planes=np.array(planes, dtype=np.float64).reshape(-1, 4),
            capsules=np.array(capsules, dtype=np.float64).reshape(-1, 2, 3),
            radii=np.array(radii, dtype=np.float64))

    def frames(self):
        scene = self.scene
        return np.arange(scene.frame_start, scene.frame_end + 1, dtype=np.float64)

    def matrices(self, frames):
        """(F, B, 4, 4) world matrices of the bodies where the keys put their bones, in
        float64 (`Pose64`): velocities are differences over a frame, and mathutils' float32
        would leave their momenta 1e-5 of their size apart from the same motion's. On a
        generated Rigify rig, where the pose Blender evaluates puts them (`rigify`)."""
        if self.rigify:
            return rigify.body_matrices(self.scene, self.arm, self.parts, frames)
        out = np.empty((len(frames), len(self.parts), 4, 4))
        self.skeleton = Skeleton(self.arm, [p.bone for p in self.parts])   # the action now
        pose64 = Pose64(self.arm, self.skeleton)
        to_body = [fix.rigid64(np.linalg.inv(_matrix_np(
            self.arm.data.bones[p.bone].matrix_local)) @ _matrix_np(p.frame)) for p in self.parts]
        for i, f in enumerate(frames):
            arm_world = pose64.world(f)
            pose = pose64.pose(f)
            for j, p in enumerate(self.parts):
                out[i, j] = fix.rigid64(arm_world @ pose[p.bone] @ to_body[j])
        return out

    def contact_settings(self, frames):
        """`settings` with each part's contact rule over `frames`: where a part's bone has Own
        Contact Rule on (keyed or not), its samples' Contact Distance and Speed are its own,
        as (F, N) arrays; `settings` itself when no part has one."""
        curves = action_fcurves(self.arm)
        keys = ("contact_override", "contact_distance", "contact_speed")
        bones = self.arm.pose.bones
        per_part, any_own = [], False
        for p in self.parts:
            pb = bones[p.bone]
            channels = {}
            for key in keys:
                fc = curves.get((f"{bone_path(p.bone)}.ligament_{key}", 0))
                channels[key] = sample_fcurve(fc, frames) if fc is not None \
                    else np.full(len(frames), float(getattr(pb, "ligament_" + key)))
            own = channels["contact_override"] > 0.5
            any_own |= bool(own.any())
            per_part.append((own, channels["contact_distance"], channels["contact_speed"]))
        if not any_own:
            return self.settings
        body = self.character.sample_body
        s = self.settings
        distance = np.full((len(frames), len(body)), float(s.contact_distance))
        speed = np.full((len(frames), len(body)), float(s.contact_speed))
        for i, (own, d, v) in enumerate(per_part):
            cols = body == i
            distance[:, cols] = np.where(own, np.maximum(d, 0.0), s.contact_distance)[:, None]
            speed[:, cols] = np.where(own, np.maximum(v, 0.0), s.contact_speed)[:, None]
        return check.Settings(gravity=s.gravity, dt=s.dt, contact_distance=distance,
                              contact_speed=speed, touch_distance=s.touch_distance)

    def check(self, matrices=None, frames=None):
        """(frames, Report) of the armature's keyed motion (of `matrices` at `frames` when
        given)."""
        frames = self.frames() if frames is None else frames
        matrices = self.matrices(frames) if matrices is None else matrices
        return frames, check.check(self.character, self.ground,
                                   self.contact_settings(frames), matrices, frames)


# --------------------------------------------------------------------------------------------
# F-curves read in bulk

BISECTIONS = 52      # halvings of a Bezier segment's parameter: below float64's resolution
_BULK_INTERPOLATIONS = {'CONSTANT', 'LINEAR', 'BEZIER'}


def sample_fcurve(fc, frames):
    """(F,) values of the F-curve `fc` at `frames`, its keys read at once (`foreach_get`) and
    interpolated here as Blender does: constant, linear and Bezier keys (a Bezier segment's
    handles shortened to the segment's length, as Blender's `BKE_fcurve_correct_bezpart`, its
    parameter found by bisection), the end keys' values held outside them. A curve with
    modifiers, linear extrapolation or easing keys (Sine, Back, Bounce...) is Blender's own
    `evaluate`, frame by frame."""
    frames = np.asarray(frames, dtype=np.float64)
    keys = fc.keyframe_points
    n = len(keys)
    interpolation = [k.interpolation for k in keys] if n else []
    if n == 0 or len(fc.modifiers) or fc.extrapolation != 'CONSTANT' or \
            not set(interpolation) <= _BULK_INTERPOLATIONS:
        return np.array([fc.evaluate(f) for f in frames], dtype=np.float64)
    co, left, right = (np.empty(2 * n) for _ in range(3))
    keys.foreach_get("co", co)
    keys.foreach_get("handle_left", left)
    keys.foreach_get("handle_right", right)
    co, left, right = co.reshape(n, 2), left.reshape(n, 2), right.reshape(n, 2)
    out = np.where(frames <= co[0, 0], co[0, 1], co[-1, 1])
    if n == 1:
        return out
    seg = np.clip(np.searchsorted(co[:, 0], frames, side='right') - 1, 0, n - 2)
    inside = (frames > co[0, 0]) & (frames < co[-1, 0])
    kind = np.array(interpolation)[seg]
    a, b = co[seg], co[seg + 1]
    linear = a[:, 1] + (b[:, 1] - a[:, 1]) * (frames - a[:, 0]) / (b[:, 0] - a[:, 0])
    value = np.where(kind == 'CONSTANT', a[:, 1], linear)
    bezier = inside & (kind == 'BEZIER')
    if bezier.any():
        value[bezier] = _bezier(a[bezier], right[seg][bezier], left[seg + 1][bezier],
                                b[bezier], frames[bezier])
    return np.where(inside, value, out)


def _bezier(v1, v2, v3, v4, x):
    """Values at `x` of the Bezier segments from key `v1` (its right handle `v2`) to key `v4`
    (its left handle `v3`), all (n, 2)."""
    h1, h2 = v1 - v2, v4 - v3
    length = (v4[:, 0] - v1[:, 0])[:, None]
    # a handle longer than the segment is shortened to it, along itself
    v2 = v1 - h1 * np.minimum(1.0, length / np.maximum(np.abs(h1[:, :1]), 1e-300))
    v3 = v4 - h2 * np.minimum(1.0, length / np.maximum(np.abs(h2[:, :1]), 1e-300))

    def cubic(t, k):
        s = 1.0 - t
        return s * s * s * v1[:, k] + 3 * s * s * t * v2[:, k] + 3 * s * t * t * v3[:, k] + \
            t * t * t * v4[:, k]

    lo, hi = np.zeros(len(x)), np.ones(len(x))
    for _ in range(BISECTIONS):
        mid = 0.5 * (lo + hi)
        below = cubic(mid, 0) < x
        lo, hi = np.where(below, mid, lo), np.where(below, hi, mid)
    return cubic(0.5 * (lo + hi), 1)


# --------------------------------------------------------------------------------------------
# Forward kinematics in float64

def _axis_rotation(axis, angle):
    c, s = np.cos(angle), np.sin(angle)
    i, j = {'X': (1, 2), 'Y': (2, 0), 'Z': (0, 1)}[axis]
    r = np.eye(3)
    r[i, i] = r[j, j] = c
    r[j, i], r[i, j] = s, -s
    return r


def rotation64(mode, values):
    """The 3x3 rotation of rotation `values` (4 floats, as `rotation_values`) in `mode`."""
    if mode == 'QUATERNION':
        w, x, y, z = np.asarray(values[:4], dtype=np.float64) / max(
            float(np.linalg.norm(values[:4])), 1e-300)
        return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                         [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                         [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])
    if mode == 'AXIS_ANGLE':
        axis = np.asarray(values[1:4], dtype=np.float64)
        n = float(np.linalg.norm(axis))
        if n < 1e-12:
            return np.eye(3)
        half = 0.5 * float(values[0])
        return rotation64('QUATERNION', (np.cos(half), *(np.sin(half) * axis / n)))
    out = np.eye(3)
    for axis, angle in zip(mode, values[:3]):     # 'XYZ': X first, so Rz Ry Rx
        out = _axis_rotation(axis, float(angle)) @ out
    return out


def basis64(owner, frame, fcurves):
    """The 4x4 matrix_basis (float64) of an object or pose bone at `frame` from its channels'
    F-curves `fcurves` ({(short path, index): FCurve}; its current values where unkeyed)."""
    loc, scale = list(owner.location), list(owner.scale)
    mode = owner.rotation_mode
    rot = list(rotation_values(owner))
    rot_path = {'QUATERNION': "rotation_quaternion", 'AXIS_ANGLE': "rotation_axis_angle"}.get(
        mode, "rotation_euler")
    for (path, index), fc in fcurves.items():
        if path == "location":
            loc[index] = fc.evaluate(frame)
        elif path == "scale":
            scale[index] = fc.evaluate(frame)
        elif path == rot_path:
            rot[index] = fc.evaluate(frame)
    out = np.eye(4)
    out[:3, :3] = rotation64(mode, rot) * np.asarray(scale, dtype=np.float64)[None, :]
    out[:3, 3] = loc
    return out


class Pose64:
    """A `Skeleton`'s forward kinematics (armature-space bone matrices) and the armature's
    world matrix, in float64 from the rest matrices and the keyed channels."""

    def __init__(self, arm, skeleton):
        self.arm, self.sk = arm, skeleton
        rest = {n: _matrix_np(m) for n, m in skeleton.rest.items()}
        self.link = {n: (np.linalg.inv(rest[p]) @ rest[n] if p else rest[n])
                     for n, p in skeleton.parent.items()}
        self.arm_fcurves = transform_fcurves(arm)

    def world(self, frame):
        local = basis64(self.arm, frame, self.arm_fcurves)
        if self.arm.parent is None:
            return local
        parent = matrix_world_at(self.arm.parent, frame, {})
        return _matrix_np(parent @ parent_link(self.arm)) @ local

    def pose(self, frame):
        out = {}
        bones = self.arm.pose.bones
        for n in self.sk.order:
            p = self.sk.parent[n]
            m = self.link[n] @ basis64(bones[n], frame, self.sk.fcurves[n])
            out[n] = out[p] @ m if p else m
        return out


def _refuse_constrained(arm, names):
    """Refuse an armature whose ragdoll bones (or bones above them) follow constraints (an IK
    leg) but a rig Rigify generated (`rigify`, read as Blender evaluates it): the check reads
    the bones' own keys, as Pose Matching does, so its figures would be of another motion
    than the one shown.
    Limit constraints pass: they only clamp keys (a ragdoll takes its joint limits from
    Limit Rotation)."""
    bones = arm.pose.bones
    clamps = {'LIMIT_ROTATION', 'LIMIT_LOCATION', 'LIMIT_SCALE'}
    constrained = [n for n in names
                   if any(not c.mute and c.influence > 0.0 and c.type not in clamps and
                          not c.name.startswith(ragdoll.CONSTRAINT)
                          for c in bones[n].constraints)]
    if constrained:
        shown = ", ".join(f"'{n}'" for n in constrained[:3])
        more = f" and {len(constrained) - 3} more" if len(constrained) > 3 else ""
        raise SceneError(
            f"Physics check: bones of '{arm.name}' follow constraints ({shown}{more}), which "
            "the check does not evaluate on a rig Rigify did not generate: it reads the bones' "
            "own keys. Bake the motion onto the bones first (Pose > Animation > Bake Action, "
            "Visual Keying and Clear Constraints on)")


def _common_ancestor(arm, names, depth):
    """The deepest bone that is `names`' common ancestor (or one of them)."""
    bones = arm.data.bones

    def chain(name):
        out, bone = [], bones[name]
        while bone is not None:
            out.append(bone.name)
            bone = bone.parent
        return out[::-1]

    chains = [chain(n) for n in names]
    common = None
    for level in zip(*chains):
        if len(set(level)) != 1:
            break
        common = level[0]
    if common is None:
        raise SceneError(f"Physics fix: the ragdoll bones of '{arm.name}' have no common "
                         "parent bone to move them by; parent them under one root bone")
    return common


# --------------------------------------------------------------------------------------------
# The report kept on the armature

def store_report(arm, frames, report):
    """The report's figures per phase (frames, not indices) as JSON on the armature, for the
    panels and scripts; returns them."""
    phases = []
    for ph in check.summary(report):
        ph["first"] = int(frames[ph["first"]])
        ph["last"] = int(frames[ph["last"]])
        phases.append(ph)
    arm.ligament_motion.report = json.dumps(phases)
    return phases


def stored_report(arm):
    try:
        return json.loads(arm.ligament_motion.report or "[]")
    except ValueError:
        return []


# The last check of each armature, for the viewport's drawing: {session_uid: (frames,
# Report, Settings)} (only figures are kept in the file; a drawing waits for a new check).
# An ID's session_uid is never reused in a Blender session, even after loading a file.
_checked = {}


def _remember(arm, frames, report, settings):
    _checked[arm.session_uid] = (frames, report, settings)


def last_check(arm):
    """(frames, Report, Settings) of the last check or fix of `arm` in this session, or
    None."""
    return _checked.get(arm.session_uid)


def check_armature(scene, arm):
    """Check the keyed motion of `arm`; returns (frames, Report) and keeps the figures."""
    rig = MotionRig(scene, arm)
    frames, report = rig.check()
    store_report(arm, frames, report)
    _remember(arm, frames, report, rig.settings)
    return frames, report


# --------------------------------------------------------------------------------------------
# The fixed action

def keyed_action(arm):
    """The action the fix starts from: the kept keyed one while the fixed one plays."""
    motion = arm.ligament_motion
    ad = arm.animation_data
    current = ad.action if ad is not None else None
    # the simulated pass's action (motion/simulate.py) is made from the fixed one too
    if current is not None and current in (motion.fixed_action, motion.simulated_action) \
            and motion.keyed_action:
        return motion.keyed_action
    return current


def fix_armature(scene, arm, flight=True, spin=True, balance=True, keep='TIMING'):
    """Make the fixed action of `arm` and play it: with `spin` the root's rotation re-timed
    in each flight to keep the angular momentum, with `flight` the flights moved onto
    parabolas of g (`keep` 'TIMING': take-off and landing where keyed, the height follows;
    'HEIGHT': the keyed apex kept, the flight's length follows and the keys after it shift),
    with `balance` the pelvis shifted in stance until the centre of mass is over the
    support, the legs reaching the keyed feet. Returns (frames, the keyed motion's Report,
    the fixed motion's Report)."""
    if keep not in ('TIMING', 'HEIGHT'):
        raise ValueError(f"Physics fix: keep must be 'TIMING' or 'HEIGHT', not {keep!r}")
    ad = arm.animation_data
    keyed = keyed_action(arm)
    if keyed is None:
        raise SceneError(f"Physics fix: armature '{arm.name}' has no action to fix; key its "
                         "motion first")
    slot = getattr(ad, "action_slot", None)
    slot_id = slot.identifier if slot is not None else ""
    playing = ad.action
    fixed = None
    try:
        _assign(arm, keyed, slot_id)
        rig = MotionRig(scene, arm)
        frames = rig.frames()
        before = rig.check(frames=frames)[1]
        fixed = keyed.copy()
        _assign(arm, fixed, slot_id)
        spans = []
        if flight and keep == 'HEIGHT':
            spans = fix.height_kept_spans(
                before.com, _failing(before, "parabola_cm", 100.0 * arm.ligament_motion.tolerance),
                frames, rig.settings)
            _retime_action(arm, spans)
        legs, values, root = _fixed_channels(scene, arm, frames, flight, spin, balance, spans)
    except Exception:
        _assign(arm, playing, slot_id)      # a fix that fails leaves the scene as it was
        if fixed is not None:
            bpy.data.actions.remove(fixed)
        raise

    motion = arm.ligament_motion
    old_fixed = motion.fixed_action
    keyed.use_fake_user = True
    bag = _channelbag(fixed, getattr(arm.animation_data, "action_slot", None))
    ws = scene.ligament_world
    # the bake's Reduce Keys and tolerances, as a bake of the ragdoll writes its keys
    tolerance = (ws.bake_tolerance_location, ws.bake_tolerance_rotation) \
        if ws.bake_reduce else None
    for bone, rows in [(root, values)] + list(legs.items()):
        write_transform(bag, bone_path(bone) + ".", arm.pose.bones[bone].rotation_mode,
                        frames, rows, bone, linear=True, tolerance=tolerance)
    motion.keyed_action, motion.fixed_action = keyed, fixed
    if old_fixed is not None and old_fixed != fixed and old_fixed.users == 0:
        bpy.data.actions.remove(old_fixed)
    fixed.name = keyed.name + FIX_SUFFIX
    arm.update_tag()
    cache.invalidate(scene)
    rig = MotionRig(scene, arm)
    after = rig.check()[1]
    store_report(arm, frames, after)
    _remember(arm, frames, after, rig.settings)
    return frames, before, after


def _retime_action(arm, spans):
    """Re-time every key of the action `arm` plays (its slot's F-curves, the handles with
    them): each flight of `spans` stretched to its new length, the keys after it shifted."""
    if not spans:
        return
    bag = _channelbag(arm.animation_data.action, getattr(arm.animation_data, "action_slot",
                                                         None))
    for fc in bag.fcurves:
        for k in fc.keyframe_points:
            k.co.x, k.handle_left.x, k.handle_right.x = fix.retime(
                (k.co.x, k.handle_left.x, k.handle_right.x), spans)
        fc.update()


def _fixed_channels(scene, arm, frames, flight, spin, balance, spans=()):
    """({leg bone: channels}, the root's channels, the root bone) of the fix of the action
    `arm` plays (the keyed one, or with `spans` the keyed one re-timed so that those flights
    keep their height: `height_kept_spans`)."""
    rig = MotionRig(scene, arm)
    matrices = rig.matrices(frames)
    before = rig.check(matrices, frames)[1]
    roots = _root_matrices(rig, frames)
    # flights that pass the check are left as keyed (a simulated jump, baked, is physical)
    motion = arm.ligament_motion
    spinning = _failing(before, "momentum_percent", motion.momentum_tolerance) if spin else \
        np.zeros(len(frames), dtype=bool)
    turned = np.zeros(len(frames), dtype=bool)
    if spinning.any():
        keyed_roots = roots
        roots, matrices = fix.retimed_spin(rig.character, rig.settings, matrices, roots,
                                           spinning)
        for ph in before.phases:      # a re-timed turn moves the centre of mass too
            span = slice(ph.first, ph.last + 1)
            if ph.kind == 'FLIGHT' and np.abs(roots[span] - keyed_roots[span]).max() > 0.0:
                turned[span] = True
    airborne = np.zeros(len(frames), dtype=bool)      # frames put on a parabola
    if flight:
        com = check.dynamics(rig.character, matrices, rig.settings.dt)[0]
        flying = _failing(before, "parabola_cm", 100.0 * motion.tolerance) | turned
        # the re-timed flights: on the parabola from the take-off to the landing key, now
        # perhaps between frames (where the pose is read, the spin's re-timing aside)
        for ta, tb, length in spans:
            ta = float(fix.retime([ta], spans)[0])
            tb = ta + length
            inside = (frames > ta) & (frames < tb)
            airborne |= inside
            flying &= ~((frames >= np.floor(ta)) & (frames <= np.ceil(tb)))
            ends = _coms(rig, np.array([ta, tb]))
            roots[inside, :3, 3] += fix.parabola(
                frames[inside] * rig.settings.dt, ta * rig.settings.dt, tb * rig.settings.dt,
                ends[0], ends[1], rig.settings.gravity) - com[inside]
        roots[:, :3, 3] += fix.flight_displacements(com, flying, frames, rig.settings)
    legs = {}
    if balance and rig.rigify:
        legs = rigify.balance(rig, frames, before, airborne)     # torso and IK feet keyed
    elif balance:
        legs = _balance(rig, frames, before, roots, airborne)
    return legs, _root_channels(rig, frames, roots), rig.root


def _coms(rig, frames):
    """(n, 3) centres of mass of the motion `rig` plays at (perhaps fractional) `frames`."""
    m = rig.character.masses
    mats = rig.matrices(frames)
    centres = np.einsum("fbij,bj->fbi", mats[..., :3, :3], rig.character.centres) + \
        mats[..., :3, 3]
    return (m[None, :, None] * centres).sum(axis=1) / m.sum()


def _failing(report, figure, limit):
    """(F,) the frames of the flights whose `figure` is beyond `limit`."""
    out = np.zeros(len(report.com), dtype=bool)
    for ph in report.phases:
        if ph.kind == 'FLIGHT' and getattr(ph, figure) > limit:
            out[ph.first:ph.last + 1] = True
    return out


def _assign(arm, action, slot_id):
    ad = arm.animation_data or arm.animation_data_create()
    ad.action = action
    if hasattr(ad, "action_slot") and slot_id:
        slot = action.slots.get(slot_id)
        if slot is not None and ad.action_slot != slot:
            ad.action_slot = slot


def _channel_space(rig, frame):
    """The world matrix a root bone's channels (matrix_basis) are applied in at `frame`:
    the armature's, its parent bone's pose and its rest offset from it."""
    sk, root = rig.skeleton, rig.root
    parent = sk.parent.get(root)
    pose = sk.pose(frame)
    return matrix_world_at(rig.arm, frame, {}) @ \
        (pose[parent] if parent else Matrix.Identity(4)) @ sk.link[root]


def _root_matrices(rig, frames):
    """(F, 4, 4) world matrices of the root bone where the keys put it (on a generated
    Rigify rig, where its evaluated pose does)."""
    if rig.rigify:
        return rigify.bone_matrices(rig.scene, rig.arm, rig.root, frames)
    sk = rig.skeleton
    return np.array([_matrix_np(matrix_world_at(rig.arm, f, {}) @ sk.pose(f)[rig.root])
                     for f in frames])


def _root_channels(rig, frames, roots):
    """(F, 7) location and rotation channels (in the root bone's rotation mode, continuous)
    that put the root bone at the world matrices `roots` (its scale channels are left as
    keyed)."""
    mode = rig.arm.pose.bones[rig.root].rotation_mode
    out, previous = [], None
    for f, world in zip(frames, roots):
        basis = _channel_space(rig, f).inverted_safe() @ Matrix(world.tolist())
        loc, q, _ = basis.decompose()
        previous = quaternion_to_rotation(mode, q, previous)
        out.append([*loc, *previous])
    return np.array(out, dtype=np.float64)


# --------------------------------------------------------------------------------------------
# Balance: the pelvis shifted, the legs reaching the keyed feet

BALANCE_PASSES = 4


def _legs(rig):
    """[(thigh, shin, foot) bones] of the sides that have all three parts."""
    bone = dict(zip(rig.part_names, (p.bone for p in rig.parts)))
    return [tuple(bone[f"{n}.{side}"] for n in ("thigh", "shin", "foot"))
            for side in ("L", "R")
            if all(f"{n}.{side}" in bone for n in ("thigh", "shin", "foot"))]


def _vec(m):
    return np.array(m.translation, dtype=np.float64)


def _leg_pose(pose, root, root_moved, leg):
    """Overrides {bone: armature-space matrix} for a leg whose hip moved with the root (from
    `root`, its keyed matrix, to `root_moved`): thigh and shin turned by the least rotations that
    keep their lengths and put the foot back where it was keyed (the knee in the plane of
    its keyed bend), the foot as keyed."""
    thigh, shin, foot = leg
    hip, knee0, ankle = _vec(pose[thigh]), _vec(pose[shin]), _vec(pose[foot])
    hip_new = np.array((root_moved @ root.inverted_safe() @ pose[thigh]).translation)
    l1, l2 = np.linalg.norm(knee0 - hip), np.linalg.norm(ankle - knee0)
    bend = (knee0 - hip) - ((knee0 - hip) @ (ankle - hip)) / max(
        (ankle - hip) @ (ankle - hip), 1e-12) * (ankle - hip)
    pole = knee0 if np.linalg.norm(bend) > 1e-3 else \
        knee0 + np.array(pose[thigh].col[2][:3])
    knee = fix.knee(hip_new, ankle, l1, l2, pole)
    r1 = fix.rotation_between(knee0 - hip, knee - hip_new)
    r2 = fix.rotation_between(ankle - knee0, ankle - knee)
    out = {}
    for bone, r, head in ((thigh, r1, hip_new), (shin, r2, knee)):
        m = np.array(pose[bone])
        m[:3, :3] = r @ m[:3, :3]
        m[:3, 3] = head
        out[bone] = Matrix(m.tolist())
    out[foot] = pose[foot].copy()
    return out


def _balance(rig, frames, report, roots, airborne):
    """Shift the root in the stance frames where the centre of mass is outside the support
    (the least shift, lowered where the legs could not reach), legs by IK; not in the frames
    of `airborne` (a re-timed flight's, put on its parabola: the check of the re-timed keys
    may see its last frames touch). Updates `roots` (world) and returns {leg bone: (F, 7)
    channels} (keyed where nothing moved)."""
    sk, arm, settings = rig.skeleton, rig.arm, rig.settings
    legs = _legs(rig)
    feet = [i for i, n in enumerate(rig.part_names) if n.startswith("foot")]
    shifts = fix.balance_shifts(report, settings,
                                standing=np.isin(rig.character.sample_body, feet))
    shifts[airborne] = 0.0
    if not legs or not np.abs(shifts).any():
        return {}
    rows = {b: [] for leg in legs for b in leg}
    previous = {}
    up_world = -np.asarray(settings.gravity) / np.linalg.norm(settings.gravity)
    for i, f in enumerate(frames):
        pose = sk.pose(f)
        arm_world = matrix_world_at(arm, f, {})
        overrides = {}
        if np.abs(shifts[i]).any():
            to_arm = np.linalg.inv(np.array(arm_world.to_3x3()))
            up = to_arm @ up_world
            up /= np.linalg.norm(up)
            root0 = pose[rig.root]
            total = to_arm @ shifts[i]
            hull, _ = check.support_polygon(report, i, settings.gravity)
            for _ in range(BALANCE_PASSES):
                drop = _drop(pose, legs, total, up)
                root = root0.copy()
                root.translation = root0.translation + Vector(tuple(total - drop * up))
                overrides = {rig.root: root}
                for leg in legs:
                    overrides.update(_leg_pose(pose, root0, root, leg))
                moved = sk.pose(f, overrides)
                com = _com(rig, arm_world, moved)
                _, u, w = check.ground_axes(settings.gravity)
                dist, nearest = check.nearest_in_polygon((com @ u, com @ w), hull)
                if dist <= 0.0:
                    break
                step = (nearest - (com @ u, com @ w)) * (1.0 + 0.005 / dist)
                total = total + to_arm @ (step[0] * u + step[1] * w)
            roots[i] = _matrix_np(arm_world @ overrides[rig.root])
        moved = sk.pose(f, overrides) if overrides else pose
        for bone in rows:
            loc, q, _ = sk.local_basis(bone, moved).decompose()
            mode = arm.pose.bones[bone].rotation_mode
            previous[bone] = quaternion_to_rotation(mode, q, previous.get(bone))
            rows[bone].append([*loc, *previous[bone]])
    return {b: np.array(v, dtype=np.float64) for b, v in rows.items()}


def _drop(pose, legs, shift, up):
    """How far the root must go down (along `up`) after `shift` for every leg to reach its
    keyed foot with its knee a little bent."""
    hips, knees, ankles = (np.array([_vec(pose[leg[j]]) for leg in legs]) for j in range(3))
    return fix.reach_drop(hips, knees, ankles, shift, up)


def _com(rig, arm_world, pose):
    m = rig.character.masses
    centres = []
    for p, c in zip(rig.parts, rig.character.centres):
        body = ragdolls.rigid(arm_world @ pose[p.bone] @ p.to_body)
        centres.append(_matrix_np(body)[:3, :3] @ c + _matrix_np(body)[:3, 3])
    return (m[:, None] * np.array(centres)).sum(axis=0) / m.sum()


def switch(scene, arm):
    """Play the keyed action if the fixed one plays, else the fixed one. Returns the action
    now playing."""
    motion = arm.ligament_motion
    if motion.keyed_action is None or motion.fixed_action is None:
        raise SceneError(f"Armature '{arm.name}' has no fixed action yet; run Physics Fix")
    ad = arm.animation_data
    slot = getattr(ad, "action_slot", None) if ad is not None else None
    slot_id = slot.identifier if slot is not None else ""
    target = motion.keyed_action if ad is not None and ad.action == motion.fixed_action \
        else motion.fixed_action
    _assign(arm, target, slot_id)
    arm.update_tag()
    cache.invalidate(scene)
    return target
