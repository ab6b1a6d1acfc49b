"""Scene <-> world: read bodies and joints from Blender objects into a solver `World`, and turn
solver poses back into object transforms.

Nothing here does physics. Frames are evaluated without touching the scene: animated objects
(and baked ones) follow their action's F-curves at any frame, so the cache can simulate frames
the depsgraph has not evaluated yet (a jump ahead, a bake, a render of frame 80 from frame 1).
"""

import functools
import math

import numpy as np
from mathutils import Euler, Matrix, Quaternion, Vector

from .kernels import solver as lg
from . import mechanisms  # it imports bridge back and uses it at call time only


class SceneError(Exception):
    """Bad input in the scene. The message names the object and says how to fix it."""


TRANSFORM_PATHS = ("location", "rotation_euler", "rotation_quaternion", "rotation_axis_angle",
                   "scale")
EULER_MODES = {'XYZ', 'XZY', 'YXZ', 'YZX', 'ZXY', 'ZYX'}
KIND = {'DYNAMIC': "dynamic", 'STATIC': "static", 'ANIMATED': "kinematic"}


# --------------------------------------------------------------------------------------------
# Animation evaluation (independent of the depsgraph)

def action_fcurves(obj):
    """{(data_path, index): FCurve} of the object's assigned action (its slot), unmuted."""
    ad = obj.animation_data
    if ad is None or ad.action is None:
        return {}
    action = ad.action
    if hasattr(ad, "action_slot"):  # Blender 4.4+: slotted actions
        from bpy_extras import anim_utils
        bag = anim_utils.action_get_channelbag_for_slot(action, ad.action_slot)
        fcurves = bag.fcurves if bag is not None else ()
    else:  # Blender 4.2/4.3
        fcurves = action.fcurves
    return {(fc.data_path, fc.array_index): fc for fc in fcurves if not fc.mute}


def transform_fcurves(obj):
    """{(data_path, index): FCurve} of the object's assigned action, transforms only."""
    return {key: fc for key, fc in action_fcurves(obj).items() if key[0] in TRANSFORM_PATHS}


def has_transform_animation(obj):
    return bool(transform_fcurves(obj))


def rotation_values(obj):
    """The rotation of an object (or pose bone) in its own rotation mode, as 4 floats."""
    mode = obj.rotation_mode
    if mode == 'QUATERNION':
        return tuple(obj.rotation_quaternion)
    if mode == 'AXIS_ANGLE':
        return tuple(obj.rotation_axis_angle)
    return (*obj.rotation_euler, 0.0)


def rotation_to_quaternion(mode, values):
    if mode == 'QUATERNION':
        return Quaternion(values[:4]).normalized()
    if mode == 'AXIS_ANGLE':
        axis = Vector(values[1:4])
        if axis.length < 1e-12:
            return Quaternion()
        return Quaternion(axis.normalized(), values[0])
    return Euler(values[:3], mode).to_quaternion()


def _current_rotation(obj):
    """The object's (or pose bone's) rotation now as a quaternion: `rotation_to_quaternion`
    of its `rotation_values`, read without the lists."""
    mode = obj.rotation_mode
    if mode == 'QUATERNION':
        return obj.rotation_quaternion.normalized()
    if mode == 'AXIS_ANGLE':
        return rotation_to_quaternion(mode, tuple(obj.rotation_axis_angle))
    return Euler(obj.rotation_euler, mode).to_quaternion()


def quaternion_to_rotation(mode, q, previous=None):
    """`q` in `mode` as 4 floats; continuous with `previous` (same mode) when given."""
    if mode == 'QUATERNION':
        if previous is not None and q.dot(Quaternion(previous)) < 0.0:
            q = -q
        return tuple(q)
    if mode == 'AXIS_ANGLE':
        axis, angle = q.to_axis_angle()
        return (angle, *axis)
    if previous is not None:
        e = q.to_euler(mode, Euler(previous[:3], mode))
    else:
        e = q.to_euler(mode)
    return (*e, 0.0)


def basis_at(obj, frame, fcurves=None):
    """(location, rotation quaternion, scale) of the object's own channels at `frame`; a
    pose bone works too, given its fcurves keyed by the short path ("location", index)."""
    fcurves = transform_fcurves(obj) if fcurves is None else fcurves
    if not fcurves:   # its channels as they are (read directly: a crowd has thousands)
        return Vector(obj.location), _current_rotation(obj), Vector(obj.scale)
    loc = list(obj.location)
    scale = list(obj.scale)
    mode = obj.rotation_mode
    rot = list(rotation_values(obj))
    rot_path = {'QUATERNION': "rotation_quaternion", 'AXIS_ANGLE': "rotation_axis_angle"}.get(
        mode, "rotation_euler")
    for (path, index), fc in fcurves.items():
        value = fc.evaluate(frame)
        if path == "location":
            loc[index] = value
        elif path == "scale":
            scale[index] = value
        elif path == rot_path:
            rot[index] = value
    return Vector(loc), rotation_to_quaternion(mode, rot), Vector(scale)


def compose(loc, quat, scale):
    return Matrix.LocRotScale(Vector(loc), Quaternion(quat), Vector(scale))


def matrix_world_at(obj, frame, overrides):
    """World matrix of `obj` at `frame`. `overrides` maps object names to world matrices
    already known for this frame (simulated bodies), and is filled as a memo."""
    known = overrides.get(obj.name)
    if known is not None:
        return known
    loc, rot, scale = basis_at(obj, frame)
    local = compose(loc, rot, scale)
    if obj.parent is not None:
        parent = matrix_world_at(obj.parent, frame, overrides)
        m = parent @ _parent_link(obj) @ local
    else:
        m = local
    overrides[obj.name] = m
    return m


def _parent_link(obj):
    if obj.parent_type in {'OBJECT'}:
        return obj.matrix_parent_inverse
    raise SceneError(f"Object '{obj.name}': parent type {obj.parent_type} is not supported; "
                     "parent it to an object (Ctrl P > Object) or clear the parent")


# --------------------------------------------------------------------------------------------
# Shapes

BOUNDED = {'BOX', 'SPHERE', 'CAPSULE', 'CYLINDER'}   # shapes fitted to the bounds alone


def _evaluated_bounds(obj, depsgraph):
    """The low and high corners of the evaluated mesh's bounds in the object's local frame,
    two 3-tuples, for an evaluated mesh object without modifiers (its evaluated bounds are its
    vertices' bounds, shape keys included); None for other objects (`_local_vertices` reads
    those) or a mesh without vertices. Reading the whole mesh to fit a box to it cost ~40 us
    a body, a fifth of building a crowd of ragdolls."""
    if obj.type != 'MESH' or depsgraph is None or len(obj.modifiers):
        return None
    eval_obj = obj.evaluated_get(depsgraph)
    # an object the depsgraph does not evaluate (disabled in viewports, in an excluded
    # collection) comes back as the original, whose bounds are cached from its last
    # evaluation: its mesh may have changed since
    if not eval_obj.is_evaluated or not len(eval_obj.data.vertices):
        return None
    box = eval_obj.bound_box   # corner 0 is the low one, corner 6 the high one
    return box[0][:], box[6][:]


def _bounded_shape(shape_type, bounds, scale):
    """`fit_shape` of a box, sphere, capsule or cylinder from the bounds' corners (lo, hi),
    on plain floats (numpy costs a microsecond an operation on three numbers, and a crowd
    fits thousands of these)."""
    lo, hi = [], []
    for a, b, s in zip(*bounds, scale):
        a, b = a * s, b * s
        lo.append(min(a, b))
        hi.append(max(a, b))
    center = [(a + b) / 2 for a, b in zip(lo, hi)]
    half = [(b - a) / 2 for a, b in zip(lo, hi)]
    eps = 1e-4
    if shape_type == 'BOX':
        return lg.Box([max(x, eps) for x in half]), center
    if shape_type == 'SPHERE':
        return lg.Sphere(max(max(half), eps)), center
    r = max(half[0], half[1], eps)
    if shape_type == 'CAPSULE':
        return lg.Capsule(r, max(half[2] - r, eps)), center
    return lg.Cylinder(r, max(half[2], eps)), center


def _local_vertices(obj, depsgraph):
    """Vertex positions of the evaluated geometry in the object's local frame, (n,3)."""
    if obj.type == 'MESH':
        eval_obj = obj.evaluated_get(depsgraph) if depsgraph is not None else obj
        mesh = eval_obj.data if depsgraph is None else eval_obj.to_mesh()
        try:
            n = len(mesh.vertices)
            co = np.empty(n * 3, dtype=np.float64)
            mesh.vertices.foreach_get("co", co)
            co = co.reshape(n, 3)
            mesh.calc_loop_triangles()
            m = len(mesh.loop_triangles)
            tris = np.empty(m * 3, dtype=np.int64)
            mesh.loop_triangles.foreach_get("vertices", tris)
            tris = tris.reshape(m, 3)
        finally:
            if depsgraph is not None:
                eval_obj.to_mesh_clear()
        return co, tris
    corners = np.array([tuple(c) for c in obj.bound_box], dtype=np.float64)
    return corners, None


def _auto_shape(v, lo, hi):
    """Sphere if every vertex is at one distance from the centre, cylinder if round in XY,
    else box."""
    center = (lo + hi) / 2
    half = (hi - lo) / 2
    if len(v) >= 12 and np.all(half > 1e-9):
        d = np.linalg.norm(v - center, axis=1)
        if abs(half[0] - half[1]) < 0.02 * half.max() and abs(half[1] - half[2]) < 0.02 * half.max() \
                and d.max() - d.min() < 0.03 * d.max():
            return 'SPHERE'
        rxy = np.linalg.norm(v[:, :2] - center[:2], axis=1)
        on_caps = np.abs(np.abs(v[:, 2] - center[2]) - half[2]) < 1e-3 * half.max()
        if abs(half[0] - half[1]) < 0.02 * half.max() and np.all(on_caps) \
                and rxy.max() - rxy.min() < 0.03 * rxy.max():
            return 'CYLINDER'
    return 'BOX'


def fit_shape(obj, shape_type, scale, depsgraph=None, kind='DYNAMIC'):
    """(solver shape, offset) for `obj`: the shape in the body frame and the position of the
    body frame's origin relative to the object's origin, both in scaled object axes."""
    if shape_type in BOUNDED:
        bounds = _evaluated_bounds(obj, depsgraph)
        if bounds is not None:
            return _bounded_shape(shape_type, bounds, scale)
    verts, tris = _local_vertices(obj, depsgraph)
    if len(verts) == 0:
        raise SceneError(f"Object '{obj.name}' has no geometry to fit a shape to; "
                         "give it a mesh or disable its Ligament body")
    v = verts * np.asarray(scale, dtype=np.float64)
    lo, hi = v.min(axis=0), v.max(axis=0)
    center, half = (lo + hi) / 2, (hi - lo) / 2
    if shape_type == 'AUTO':
        shape_type = _auto_shape(v, lo, hi)
    eps = 1e-4
    if shape_type == 'BOX':
        return lg.Box(np.maximum(half, eps)), center
    if shape_type == 'SPHERE':
        return lg.Sphere(max(half.max(), eps)), center
    if shape_type in {'CAPSULE', 'CYLINDER'}:
        r = max(half[0], half[1], eps)
        if shape_type == 'CAPSULE':
            return lg.Capsule(r, max(half[2] - r, eps)), center
        return lg.Cylinder(r, max(half[2], eps)), center
    if shape_type == 'CONVEX_HULL':
        try:
            hull = lg.ConvexHull(v)
        except ValueError as exc:
            raise SceneError(f"Object '{obj.name}' is flat or empty along an axis "
                             f"({tuple(np.round(2 * half, 5))}); a convex hull cannot be "
                             f"built ({exc}); use the Box shape") from None
        return hull, None  # offset comes from the hull's centre of mass
    if shape_type == 'MESH':
        if kind != 'STATIC':
            raise SceneError(f"Object '{obj.name}': the Mesh shape works for Static bodies only; "
                             "use Convex Hull for a moving body or set Type to Static")
        if tris is None or len(tris) == 0:
            raise SceneError(f"Object '{obj.name}' has no faces for the Mesh shape; "
                             "use Box or add faces")
        return lg.TriangleMesh(v, tris), np.zeros(3)
    raise SceneError(f"Object '{obj.name}': unknown shape {shape_type}")


# --------------------------------------------------------------------------------------------
# Scene description -> World

class Body:
    """One simulated object: its solver id and how to turn a solver pose into its transform."""
    __slots__ = ("name", "id", "kind", "offset", "scale", "animated", "rotation_mode",
                 "has_children")

    def __init__(self, name, body_id, kind, offset, scale, animated, rotation_mode):
        self.name = name
        self.id = body_id
        self.kind = kind            # 'DYNAMIC' | 'STATIC' | 'ANIMATED'
        self.offset = offset        # Vector: centre of mass from the object origin, in
                                    # world-scaled object axes
        self.scale = scale          # Vector: world scale of the object (kept while simulating)
        self.animated = animated    # follows F-curves (animated kind or baked)
        self.rotation_mode = rotation_mode
        self.has_children = False


def scene_bodies(scene):
    return [o for o in scene.objects if o.ligament_body.enabled]


def scene_joints(scene):
    return [o for o in scene.objects if o.type == 'EMPTY' and o.ligament_joint.enabled]


class SceneScan:
    """The scene's bodies, joint empties and objects by name, each found once (a pass over
    every object of the scene) for a build and the scene check that follows it. Short-lived:
    the scene does not change while it is in use."""

    def __init__(self, scene):
        self.scene = scene

    @functools.cached_property
    def bodies(self):
        return scene_bodies(self.scene)

    @functools.cached_property
    def joints(self):
        return scene_joints(self.scene)

    @functools.cached_property
    def by_name(self):
        return {o.name: o for o in self.scene.objects}


def effective_kind(obj):
    """Baked dynamic bodies replay their keys: to the solver they are animated."""
    s = obj.ligament_body
    if s.kind == 'DYNAMIC' and s.baked:
        return 'ANIMATED'
    return s.kind


def world_settings(scene):
    ws = scene.ligament_world
    fps = scene.render.fps / scene.render.fps_base
    return {
        "gravity": tuple(scene.gravity) if scene.use_gravity else (0.0, 0.0, 0.0),
        "dt": 1.0 / fps,
        "substeps": ws.substeps,
        "jointed_substeps": ws.jointed_substeps or None,   # 0: as many as substeps
        "iterations": ws.iterations,
        # Blender's own thread setting (Render > Performance > Threads: Auto-Detect gives
        # every core, or `blender -t N`; Fixed gives its count)
        "threads": scene.render.threads,
    }


def _pose_from_matrix(m):
    loc, rot, scale = m.decompose()
    return loc, rot, scale


def build_world(scene, rest_pose, depsgraph=None, skipped=None, scan=None, known=None):
    """A solver World for `scene` at its start frame.

    `rest_pose(obj)` gives the (location, rotation quaternion) of a dynamic body's
    `matrix_basis` at the start frame. Returns (world, bodies, joints, frame_start), joints
    as [(empty name, joint id)]. A joint that cannot be built (a missing object, bad
    settings) raises SceneError, or with a `skipped` dict is left out and its message
    stored there under the empty's name, so one broken joint does not stop the rest.
    `scan`: the scene's `SceneScan` when the caller has one. `known`: a dict the build fills
    with the world matrices it evaluated at the start frame (bodies at rest, joint empties),
    by object name."""
    scan = SceneScan(scene) if scan is None else scan
    ws = scene.ligament_world
    start = ws.frame_start
    settings = world_settings(scene)
    world = lg.World(gravity=settings["gravity"], substeps=settings["substeps"],
                     jointed_substeps=settings["jointed_substeps"],
                     iterations=settings["iterations"], threads=settings["threads"])

    objs = scan.bodies
    names = {o.name for o in objs}
    # World matrices at the start frame: dynamic bodies from their rest pose, everything else
    # from its animation (or its current transform when it has none).
    known = {} if known is None else known
    dynamic = [o for o in objs if effective_kind(o) == 'DYNAMIC']
    pending = list(dynamic)
    while pending:  # parents before children, so a child of a body uses its rest pose
        progressed = False
        for o in list(pending):
            if o.parent is not None and o.parent.name in names and o.parent in pending:
                continue
            loc, rot = rest_pose(o)
            local = compose(loc, rot, o.scale)
            if o.parent is not None:
                known[o.name] = matrix_world_at(o.parent, start, known) @ _parent_link(o) @ local
            else:
                known[o.name] = local
            pending.remove(o)
            progressed = True
        if not progressed:
            raise SceneError(f"Object '{pending[0].name}': parenting loop between bodies")

    bodies = []
    rows = {key: [] for key in ("shapes", "positions", "orientations", "mass", "kind", "friction",
                                "restitution", "linear_damping", "angular_damping",
                                "collision_group", "collision_mask")}
    for o in objs:
        s = o.ligament_body
        kind = effective_kind(o)
        m = matrix_world_at(o, start, known)
        loc, rot, scale = _pose_from_matrix(m)
        if min(abs(c) for c in scale) < 1e-8:
            raise SceneError(f"Object '{o.name}' has zero scale; apply a non-zero scale")
        try:
            shape, offset = fit_shape(o, s.shape, scale, depsgraph, kind)
        except ValueError as exc:
            raise SceneError(f"Object '{o.name}': {exc}") from None
        is_hull = offset is None
        # The solver's position is the centre of mass: remember where the object origin is.
        if is_hull:
            offset = shape.center_of_mass
        rows["positions"].append(tuple(loc) if is_hull else tuple(loc + rot @ Vector(offset)))
        rows["shapes"].append(shape)
        rows["orientations"].append(tuple(rot))
        rows["mass"].append(s.mass if kind == 'DYNAMIC' else None)
        rows["kind"].append(KIND[kind])
        rows["friction"].append(s.friction)
        rows["restitution"].append(s.restitution)
        rows["linear_damping"].append(s.linear_damping)
        rows["angular_damping"].append(s.angular_damping)
        bits = collision_filter(s.collision_group)
        rows["collision_group"].append(bits["collision_group"])
        rows["collision_mask"].append(bits["collision_mask"])
        bodies.append(Body(o.name, len(bodies), kind, Vector(offset), scale.copy(),
                           kind == 'ANIMATED', o.rotation_mode))
    _add_bodies(world, objs, rows)
    ids = {b.name: b.id for b in bodies}
    joints, built = [], {}
    batch = _JointBatch(world, ids, start, known, bodies, built, joints, skipped)
    for e in mechanisms.build_order(scan.joints):  # couplings after their joints
        try:
            if batch.take(e):
                continue
            batch.flush()   # a joint added on its own may refer to the ones before it
            built[e.name] = _add_joint(world, e, ids, start, known, bodies, built, skipped)
            joints.append((e.name, built[e.name]))
        except SceneError as exc:
            if skipped is None:
                raise
            skipped[e.name] = str(exc)
    batch.flush()
    return world, bodies, joints, start


def _add_bodies(world, objs, rows):
    """The bodies' rows added to the (empty) world in one batch: body i is objs[i]. A row
    the world refuses is added again on its own, which names it, with its object."""
    placed = ("shapes", "positions", "orientations")
    settings = {key: values for key, values in rows.items() if key not in placed}
    try:
        world.add_bodies(*(rows[key] for key in placed), **settings)
        return
    except ValueError:
        pass
    for i, o in enumerate(objs):
        try:
            world.add_body(*(rows[key][i] for key in placed),
                           **{key: values[i] for key, values in settings.items()})
        except ValueError as exc:
            raise SceneError(f"Object '{o.name}': {exc}") from None
    raise AssertionError("add_bodies refused rows that add_body takes")


def collision_filter(group):
    """Solver group/mask bits for the UI's collision group: group 0 collides with every body,
    group g (1..31) only with group g and group 0. Two bodies touch when each one's group
    bits meet the other's mask."""
    if group == 0:
        return {"collision_group": 0xFFFFFFFF, "collision_mask": 0xFFFFFFFF}
    return {"collision_group": 1 << group, "collision_mask": 1 << group}


def _joint_object(empty, which, ids):
    js = empty.ligament_joint
    obj = getattr(js, "object_" + which)
    label = which.upper()
    if obj is None:
        raise SceneError(f"Joint '{empty.name}': object {label} is not set (or was deleted); "
                         f"pick it in Properties > Physics > Ligament Joint, or disable the joint")
    if obj.name not in ids:
        if not obj.ligament_body.enabled:
            raise SceneError(f"Joint '{empty.name}': object {label} '{obj.name}' is not a "
                             f"Ligament body; add one with Ligament > Add Body")
        raise SceneError(f"Joint '{empty.name}': object {label} '{obj.name}' is not in the "
                         f"scene (deleted?); pick another object or disable the joint")
    return ids[obj.name]


def _joint_frame(empty, start, known):
    """(matrix, anchor, (x, y, z) axes) of a joint empty at the start frame."""
    m = matrix_world_at(empty, start, known)
    r = m.to_3x3().normalized()
    return m, tuple(m.translation), tuple(tuple(r.col[i]) for i in range(3))


def _joint_common(js):
    """The arguments every joint kind takes: collisions between its bodies, breaking."""
    common = dict(collide_connected=not js.disable_collisions)
    if js.breakable:
        common.update(break_force=js.break_threshold, break_torque=js.break_threshold)
    return common


def _joint_bodies(empty, ids):
    """Body ids of the joint's objects A and B (SceneError if unset, not bodies, the same)."""
    a = _joint_object(empty, "a", ids)
    b = _joint_object(empty, "b", ids)
    if a == b:
        raise SceneError(f"Joint '{empty.name}': object A and object B are the same object; "
                         "pick two different bodies")
    return a, b


def _angle_limits(js):
    return (js.limit_ang_lower, js.limit_ang_upper) if js.use_limit_ang else (None, None)


def _ragdoll_settings(js, x, y):
    """`World.add_ragdoll`'s arguments from the joint's settings and the empty's axes: twist
    about local Y (the bone), swing_1 about local X, swing_2 about local Z; without angle
    limits the twist is free (-pi to pi)."""
    lower, upper = (js.limit_ang_lower, js.limit_ang_upper) if js.use_limit_ang else \
        (-math.pi, math.pi)
    return dict(twist_axis=y, swing1=js.swing_1, swing2=js.swing_2, twist_lower=lower,
                twist_upper=upper, swing_axis=x)


class _JointBatch:
    """Ball, ragdoll and plain hinge joints (no motor, no spring) gathered and added to the
    world in one call per kind (`World.add_ball_sockets`, `add_ragdolls`, `add_hinges`): a
    few milliseconds for a crowd of ragdolls instead of tens of microseconds a joint. Each
    joint's arguments are the ones `_add_joint` passes the single call; a batch the world
    refuses is added again joint by joint, which names the bad one."""

    ADD = {'BALL': "add_ball_sockets", 'HINGE': "add_hinges", 'RAGDOLL': "add_ragdolls"}
    PLURAL = {"anchor": "anchors", "axis": "axes", "twist_axis": "twist_axes",
              "swing_axis": "swing_axes"}   # the batch calls' names of the per-joint ones

    def __init__(self, world, ids, start, known, bodies, built, joints, skipped):
        self.world, self.ids, self.start, self.known = world, ids, start, known
        self.bodies, self.built, self.joints, self.skipped = bodies, built, joints, skipped
        self.pending = {}

    def take(self, empty):
        """Gather the joint if it is a batched kind (True), else leave it (False)."""
        js = empty.ligament_joint
        t = js.type
        if t not in self.ADD or (t == 'HINGE' and (js.use_motor or js.use_spring)):
            return False
        a, b = _joint_bodies(empty, self.ids)
        _, anchor, (x, y, z) = _joint_frame(empty, self.start, self.known)
        args = dict(anchor=anchor, **_joint_common(js))
        if t == 'HINGE':
            lower, upper = _angle_limits(js)
            args.update(axis=z, lower=lower, upper=upper)
        elif t == 'RAGDOLL':
            args.update(_ragdoll_settings(js, x, y))
        self.pending.setdefault(t, []).append((empty, a, b, args))
        return True

    def flush(self):
        for t, rows in self.pending.items():
            empties, a, b, args = zip(*rows)
            keys = set().union(*args)   # breaking is given for breakable joints only
            columns = {self.PLURAL.get(k, k): [row.get(k) for row in args] for k in keys}
            try:
                ids = getattr(self.world, self.ADD[t])(list(a), list(b), **columns)
            except ValueError:   # one by one: the bad joint is named (and maybe skipped)
                for e in empties:
                    try:
                        self._added(e, _add_joint(self.world, e, self.ids, self.start,
                                                  self.known, self.bodies, self.built,
                                                  self.skipped))
                    except SceneError as exc:
                        if self.skipped is None:
                            raise
                        self.skipped[e.name] = str(exc)
                continue
            for e, j in zip(empties, ids.tolist()):
                self._added(e, j)
        self.pending = {}

    def _added(self, empty, joint):
        self.built[empty.name] = joint
        self.joints.append((empty.name, joint))


def _add_joint(world, empty, ids, start, known, bodies, built=None, skipped=None):
    """`built`: {empty name: joint id} of the joints built so far (couplings read it),
    `skipped`: build_world's."""
    js = empty.ligament_joint
    m, anchor, (x, y, z) = _joint_frame(empty, start, known)
    common = _joint_common(js)
    lim_a = _angle_limits(js)
    lim_l = (js.limit_lin_lower, js.limit_lin_upper) if js.use_limit_lin else (None, None)
    motor = {}
    spring = {}
    if js.use_spring and js.spring_mode == 'STIFFNESS':
        spring = dict(spring_stiffness=js.spring_stiffness, spring_damper=js.spring_damper)
    elif js.use_spring:
        spring = dict(spring_hz=js.spring_frequency, spring_damping=js.spring_damping)
    t = js.type
    if t in mechanisms.TYPES:
        try:
            return mechanisms.add(world, empty, m, ids, start, known, built or {}, skipped,
                                  common, lim_a, lim_l, spring)
        except (ValueError, TypeError) as exc:
            raise SceneError(f"Joint '{empty.name}': {exc}") from None
    a, b = _joint_bodies(empty, ids)
    try:
        if t == 'BALL':
            return world.add_ball_socket(a, b, anchor, **common)
        if t == 'FIXED':
            return world.add_fixed(a, b, anchor, **common)
        if t == 'HINGE':
            if js.use_motor:
                motor = dict(motor_speed=js.motor_velocity, max_motor_torque=js.motor_max_force)
            return world.add_hinge(a, b, anchor, z, lower=lim_a[0], upper=lim_a[1],
                                   **motor, **spring, **common)
        if t == 'PRISMATIC':
            if js.use_motor:
                motor = dict(motor_speed=js.motor_velocity, max_motor_force=js.motor_max_force)
            return world.add_prismatic(a, b, anchor, x, lower=lim_l[0], upper=lim_l[1],
                                       **motor, **spring, **common)
        if t == 'RAGDOLL':
            return world.add_ragdoll(a, b, anchor, **_ragdoll_settings(js, x, y), **common)
        if t == 'MOTOR':
            return world.add_angular_motor(a, b, z, speed=js.motor_velocity,
                                           max_torque=js.motor_max_force,
                                           ratio=mechanisms.ratio(js), **common)
        anchor_b = tuple(world.positions[b])
        if t == 'DISTANCE':
            return world.add_distance(a, b, anchor, anchor_b, min_length=lim_l[0] if js.use_limit_lin else None,
                                      max_length=lim_l[1] if js.use_limit_lin else None,
                                      **spring, **common)
        if t == 'ROPE':
            length = js.rope_length or float(np.linalg.norm(np.subtract(anchor_b, anchor)))
            return world.add_rope(a, b, anchor, anchor_b, length, **common)
    except (ValueError, TypeError) as exc:
        raise SceneError(f"Joint '{empty.name}': {exc}") from None
    raise SceneError(f"Joint '{empty.name}': unknown type {t}")


# --------------------------------------------------------------------------------------------
# World -> transforms

def shape_pose(body, m):
    """(shape origin, rotation) of `body` for its object's world matrix `m`, as tuples: what
    `World.set_kinematic_target` takes."""
    q = m.to_quaternion()
    return tuple(m.translation + q @ body.offset), tuple(q)


def body_pose(body, position, orientation):
    """(object origin, rotation) in world space for a body pose (centre of mass `position`,
    orientation (w,x,y,z))."""
    q = Quaternion(orientation)
    return Vector(position) - q @ body.offset, q


def local_pose(obj, origin, q, scale, parent_world, previous):
    """(location, rotation values in the object's mode) that put `obj` at world `origin`,
    `q`; `previous` (the last frame's rotation values) keeps eulers and quaternions
    continuous."""
    if obj.parent is None:
        loc, rot = origin, q
    else:
        world = Matrix.LocRotScale(origin, q, scale)
        local = (parent_world @ obj.matrix_parent_inverse).inverted_safe() @ world
        loc, rot, _ = local.decompose()
    return tuple(loc), quaternion_to_rotation(obj.rotation_mode, rot, previous)


# --------------------------------------------------------------------------------------------
# Keyed dynamic bodies: the keys give the pose at the start frame; after it the simulation
# moves the object through its delta transform, which Blender composes with the keyed one
# (matrix_basis = T(location + delta_location) R(delta_rotation) R(rotation) S), so the
# keys keep playing untouched and every evaluation (playback, frame_set, renders) shows the
# simulated pose. `ligament_body.sim_delta` marks a delta written here.

def check_delta(obj):
    """Refuse a keyed dynamic body whose delta transform the simulation cannot own."""
    s = obj.ligament_body
    if obj.rotation_mode == 'AXIS_ANGLE':
        raise SceneError(f"Object '{obj.name}' is a keyed Dynamic body in Axis Angle rotation "
                         "mode, whose delta rotation Blender does not expose: set its Rotation "
                         "Mode to Quaternion or an Euler order, or its type to Animated")
    if s.sim_delta:
        return
    if Vector(obj.delta_location).length > 1e-9 or \
            Quaternion(obj.delta_rotation_quaternion).rotation_difference(Quaternion()).angle \
            > 1e-9 or Vector(obj.delta_rotation_euler).length > 1e-9:
        raise SceneError(f"Object '{obj.name}' is a keyed Dynamic body with a delta transform "
                         "of its own; the simulation moves it through its delta transform "
                         "after the start frame: clear it (Object > Clear > Delta transforms "
                         "in the N panel) or apply it into the keys")


def apply_delta(obj, frame, loc, rot):
    """Make the keyed object show the pose (location, rotation values in its mode) at
    `frame` through its delta transform."""
    loc_k, q_k, _ = basis_at(obj, frame)
    q = rotation_to_quaternion(obj.rotation_mode, rot)
    turn = q @ q_k.inverted()
    obj.delta_location = Vector(loc) - loc_k
    if obj.rotation_mode == 'QUATERNION':
        obj.delta_rotation_quaternion = turn
    else:
        obj.delta_rotation_euler = turn.to_euler(obj.rotation_mode, obj.delta_rotation_euler)
    if not obj.ligament_body.sim_delta:
        obj.ligament_body.sim_delta = True


def clear_delta(obj):
    """The keys alone again (at and before the start frame, and when the simulation stops)."""
    if not obj.ligament_body.sim_delta:
        return
    obj.delta_location = (0.0, 0.0, 0.0)
    obj.delta_rotation_quaternion = (1.0, 0.0, 0.0, 0.0)
    obj.delta_rotation_euler = (0.0, 0.0, 0.0)
    obj.ligament_body.sim_delta = False


def apply_pose(obj, loc, rot):
    obj.location = loc
    mode = obj.rotation_mode
    if mode == 'QUATERNION':
        obj.rotation_quaternion = rot
    elif mode == 'AXIS_ANGLE':
        obj.rotation_axis_angle = rot
    else:
        obj.rotation_euler = rot[:3]
