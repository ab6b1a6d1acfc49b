"""A solver World for a scene at its start frame: the start matrices (dynamic bodies from their
rest pose, parents first), the bodies' shapes and rows, then the joints in build order."""

from mathutils import Vector

from . import mechanisms
from ..kernels import solver as lg
from ..scene import versioning
from ..scene.animation import compose, delta_matrix, has_delta, matrix_world_at, parent_link
from ..scene.errors import SceneError
from ..scene.objects import SceneScan, effective_kind, world_settings
from ..scene.shapes import compound_shape_units, fit_shape
from .bodies import Body, KIND, add_bodies, collision_filter
from .hits import is_armed
from .joints import JointBatch, add_joint

MIN_SCALE = 1e-8      # a scale axis below this flattens the body: no shape, no inertia


class ZeroScale(SceneError):
    """A body flattened to nothing: left out of the world (`body_rows`), not an error."""


def build_world(scene, rest_pose, depsgraph=None, skipped=None, scan=None, known=None,
                skipped_bodies=None):
    """A solver World for `scene` at its start frame.

    `rest_pose(obj)` gives the (location, rotation quaternion) of a dynamic body's
    `matrix_basis` at the start frame. Returns (world, bodies, joints, frame_start), joints
    as [(empty name, joint id)]. A joint that cannot be built (a missing object, bad
    settings) raises SceneError, or with a `skipped` dict is left out and its message
    stored there under the empty's name, so one broken joint does not stop the rest.
    `scan`: the scene's `SceneScan` when the caller has one. `known`: a dict the build fills
    with the world matrices it evaluated at the start frame (bodies at rest, joint empties),
    by object name. `skipped_bodies`: a dict that takes the bodies flattened to zero scale by
    object name, with the reason, instead of an error (a ragdoll's part still stops the
    build: its ragdoll needs every part); the joints on them are then skipped too."""
    return drain(build_world_units(scene, rest_pose, depsgraph, skipped, scan, known,
                                   skipped_bodies))


def build_world_units(scene, rest_pose, depsgraph=None, skipped=None, scan=None, known=None,
                      skipped_bodies=None):
    """`build_world` a unit of work at a time: a generator that yields after the start
    matrices, after each body's shape (the shapes are most of a big scene's build) and
    after the joints, and returns what `build_world` returns. Nothing it does between two
    units depends on the time between them (runtime/building.py slices a build there)."""
    scan = SceneScan(scene) if scan is None else scan
    start = scene.ligament_world.frame_start
    world = new_world(scene)
    known = {} if known is None else known
    start_matrices(scan.bodies, rest_pose, start, known)
    yield
    bodies, rows, objs = yield from body_rows_units(scan.bodies, start, known, depsgraph,
                                                    skipped_bodies)
    add_bodies(world, objs, rows)
    joints = add_joints(world, scan.joints, {b.name: b.id for b in bodies}, start, known,
                        bodies, skipped)
    yield
    return world, bodies, joints, start


def drain(units):
    """Run a generator of units of work to its end; what it returns."""
    while True:
        try:
            next(units)
        except StopIteration as stop:
            return stop.value


def new_world(scene):
    """An empty World with the scene's Ligament World settings, read as this version of the
    add-on means them: the scene is stamped so (scene/versioning.py), so that a copy of it
    written without a save (Blender's autosave) is not taken for an older file's."""
    versioning.stamp(scene)
    settings = world_settings(scene)
    return lg.World(gravity=settings["gravity"], substeps=settings["substeps"],
                    jointed_substeps=settings["jointed_substeps"],
                    calm_substeps=settings["calm_substeps"],
                    iterations=settings["iterations"], threads=settings["threads"],
                    length_unit=settings["length_unit"])


def start_matrices(objs, rest_pose, start, known):
    """Fill `known` with the dynamic bodies' world matrices at the start frame, from their
    rest pose, parents before children so that a child of a body uses its parent's rest pose
    (everything else is evaluated from its animation when asked, `matrix_world_at`)."""
    names = {o.name for o in objs}
    pending = [o for o in objs if effective_kind(o) == 'DYNAMIC']
    while pending:
        progressed = False
        for o in list(pending):
            if o.parent is not None and o.parent.name in names and o.parent in pending:
                continue
            loc, rot = rest_pose(o)
            # its own delta transform (not one the simulation writes) is part of its pose
            local = delta_matrix(o, loc, rot, o.scale) if has_delta(o) else \
                compose(loc, rot, o.scale)
            if o.parent is not None:
                known[o.name] = matrix_world_at(o.parent, start, known) @ parent_link(o) @ local
            else:
                known[o.name] = local
            pending.remove(o)
            progressed = True
        if not progressed:
            raise SceneError(f"Object '{pending[0].name}': parenting loop between bodies")


def body_rows(objs, start, known, depsgraph, skipped=None):
    """([Body], the columns `add_bodies` takes, [the bodies' objects]): each object's shape
    fitted to its evaluated geometry, placed at its centre of mass at the start frame. An
    object whose shape cannot be made raises SceneError; with a `skipped` dict one of zero
    scale (not a ragdoll's part) is left out instead, its message stored there by name."""
    return drain(body_rows_units(objs, start, known, depsgraph, skipped))


def body_rows_units(objs, start, known, depsgraph, skipped=None):
    """`body_rows` as a generator that yields after each object's shape."""
    bodies = []
    rows = {key: [] for key in ("shapes", "positions", "orientations", "mass", "kind", "friction",
                                "restitution", "linear_damping", "angular_damping",
                                "collision_group", "collision_mask")}
    kept = []
    for o in objs:
        s = o.ligament_body
        kind = effective_kind(o)
        m = matrix_world_at(o, start, known)
        loc, rot, scale = m.decompose()
        try:
            shape, offset = yield from body_shape_units(o, kind, scale, depsgraph)
        except ZeroScale as exc:
            if skipped is None or o.ligament_ragdoll_part.role == 'BODY':
                raise
            skipped[o.name] = str(exc)
            continue
        kept.append(o)
        is_hull = offset is None
        # The solver's position is the centre of mass: remember where the object origin is.
        if is_hull:
            offset = shape.center_of_mass
        rows["positions"].append(tuple(loc) if is_hull else tuple(loc + rot @ Vector(offset)))
        rows["shapes"].append(shape)
        rows["orientations"].append(tuple(rot))
        # an Animated body that reacts to hits simulates with its Mass once hit
        rows["mass"].append(s.mass if kind == 'DYNAMIC' or is_armed(o) else None)
        rows["kind"].append(KIND[kind])
        rows["friction"].append(s.friction)
        rows["restitution"].append(s.restitution)
        rows["linear_damping"].append(s.linear_damping)
        rows["angular_damping"].append(s.angular_damping)
        bits = collision_filter(s.collision_group, o.ligament_ragdoll_part.chain != "")
        rows["collision_group"].append(bits["collision_group"])
        rows["collision_mask"].append(bits["collision_mask"])
        bodies.append(Body(o.name, len(bodies), kind, Vector(offset), scale.copy(),
                           kind == 'ANIMATED', o.rotation_mode))
        prepare_collision(shape)
        yield
    return bodies, rows, kept


def prepare_collision(shape):
    """A convex hull's collision tables (its faces and edges), made with its body: the
    world's first collide (the scene check's) would make every body's at once, the longest
    unit of a build of hundreds of hulls. Cached on the shape, the same tables either way."""
    parts = [p[0] for p in shape.parts] if isinstance(shape, lg.Compound) else [shape]
    for part in parts:
        if isinstance(part, lg.ConvexHull):
            lg.collision.geometry.hull_tables(part)


def body_shape(o, kind, scale, depsgraph):
    """`fit_shape` of the body `o` at world `scale`; SceneError naming it when it has none
    (ZeroScale when its scale is zero along an axis)."""
    return drain(body_shape_units(o, kind, scale, depsgraph))


def body_shape_units(o, kind, scale, depsgraph):
    """`body_shape` as a generator: a Compound's parts yield one by one."""
    if min(abs(c) for c in scale) < MIN_SCALE:
        raise ZeroScale(f"Object '{o.name}' has zero scale (it is flat along an axis); "
                         "give it a non-zero scale")
    try:
        if o.ligament_body.shape == 'COMPOUND':
            shape = yield from compound_shape_units(o, scale, depsgraph)
            return shape, None
        return fit_shape(o, o.ligament_body.shape, scale, depsgraph, kind,
                         o.ligament_body.one_sided)
    except ValueError as exc:
        raise SceneError(f"Object '{o.name}': {exc}") from None


def add_joints(world, empties, ids, start, known, bodies, skipped):
    """The joints of `empties` added in build order (couplings after the joints they couple,
    runs of plain joints in one batch call); returns [(empty name, joint id)]."""
    joints, built = [], {}
    batch = JointBatch(world, ids, start, known, bodies, built, joints, skipped)
    for e in mechanisms.build_order(empties):
        try:
            if batch.take(e):
                continue
            batch.flush()   # a joint added on its own may refer to the ones before it
            built[e.name] = add_joint(world, e, ids, start, known, bodies, built, skipped)
            joints.append((e.name, built[e.name]))
        except SceneError as exc:
            if skipped is None:
                raise
            skipped[e.name] = str(exc)
    batch.flush()
    return joints
