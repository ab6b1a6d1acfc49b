"""Collision shapes fitted to an object's evaluated geometry (modifiers and shape keys
applied), in its scaled local axes."""

import numpy as np
from mathutils import Matrix, Vector

from ..kernels import solver as lg

from .animation import parent_link
from .errors import SceneError


BOUNDED = {'BOX', 'SPHERE', 'CAPSULE', 'CYLINDER'}   # shapes fitted to the bounds alone
# A Convex Hull keeps at most this many vertices, the farthest out first: two hulls collide
# at a cost of about the cube of their vertex counts (0.1 s for two of 64 overlapping,
# 0.44 s for 128; bench/hulls.py), and a dense mesh's hull is a few per cent smaller at 64.
HULL_VERTICES = 64


def _evaluated_bounds(obj, depsgraph):
    """The low and high corners of the evaluated mesh's bounds in the object's local frame,
    two 3-tuples, for an evaluated mesh object without modifiers (its evaluated bounds are its
    vertices' bounds, shape keys included); None for other objects (`local_vertices` reads
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


def local_vertices(obj, depsgraph):
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


# Auto shape: how close to round a mesh must be to get a round shape, relative to its size.
ROUND_AXES = 0.02       # the half sizes along the round axes may differ by this much
ROUND_RADII = 0.03      # the vertices' distances from the centre (or axis) spread this little
FLAT_CAPS = 1e-3        # a cylinder's cap vertices lie this close to its end planes
DEGENERATE = 1e-9       # m: a half size below this is a flat mesh, fitted by a box


def _auto_shape(v, lo, hi):
    """Sphere if every vertex is at one distance from the centre, cylinder if round in XY,
    else box."""
    center = (lo + hi) / 2
    half = (hi - lo) / 2
    if len(v) >= 12 and np.all(half > DEGENERATE):
        d = np.linalg.norm(v - center, axis=1)
        if abs(half[0] - half[1]) < ROUND_AXES * half.max() and \
                abs(half[1] - half[2]) < ROUND_AXES * half.max() and \
                d.max() - d.min() < ROUND_RADII * d.max():
            return 'SPHERE'
        rxy = np.linalg.norm(v[:, :2] - center[:2], axis=1)
        on_caps = np.abs(np.abs(v[:, 2] - center[2]) - half[2]) < FLAT_CAPS * half.max()
        if abs(half[0] - half[1]) < ROUND_AXES * half.max() and np.all(on_caps) \
                and rxy.max() - rxy.min() < ROUND_RADII * rxy.max():
            return 'CYLINDER'
    return 'BOX'


def empty_shape_kind(obj):
    """The shape an Empty body collides as: its shape setting when that is a box, sphere,
    capsule or cylinder; for Auto what it shows (Display As Sphere: a sphere, else a box)."""
    shape = obj.ligament_body.shape
    if shape in BOUNDED:
        return shape
    return 'SPHERE' if obj.empty_display_type == 'SPHERE' else 'BOX'


def fit_shape(obj, shape_type, scale, depsgraph=None, kind='DYNAMIC', one_sided=False):
    """(solver shape, offset) for `obj`: the shape in the body frame and the position of the
    body frame's origin relative to the object's origin, both in scaled object axes. The
    offset is None where the shape's own origin is the object's (a convex hull, a compound):
    the body's centre of mass is then the shape's. An Empty has no geometry: as a Compound it
    collides as its children, else its shape spans its display size (`empty_shape_kind`).
    `one_sided`: a Mesh shape's faces collide on their front only."""
    if shape_type == 'COMPOUND':
        return compound_shape(obj, scale, depsgraph), None
    if obj.type == 'EMPTY':
        if shape_type not in BOUNDED and shape_type != 'AUTO':
            raise SceneError(f"Object '{obj.name}' is an Empty: it has no mesh for the "
                             f"{shape_type.replace('_', ' ').title()} shape; use Box, Sphere, "
                             "Capsule, Cylinder or Compound (its children's shapes)")
        r = obj.empty_display_size
        return _bounded_shape(empty_shape_kind(obj), ((-r, -r, -r), (r, r, r)), scale)
    if shape_type in BOUNDED:
        bounds = _evaluated_bounds(obj, depsgraph)
        if bounds is not None:
            return _bounded_shape(shape_type, bounds, scale)
    verts, tris = local_vertices(obj, depsgraph)
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
            hull = lg.ConvexHull(v, max_vertices=HULL_VERTICES)
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
        return lg.TriangleMesh(v, tris, one_sided=bool(one_sided)), np.zeros(3)
    raise SceneError(f"Object '{obj.name}': unknown shape {shape_type}")


PART_TYPES = {'MESH', 'CURVE', 'SURFACE', 'META', 'FONT'}    # children that can be parts


def compound_parts(obj):
    """The children of a Compound body that are its parts (objects with geometry)."""
    return [c for c in obj.children if c.type in PART_TYPES]


def compound_shape(obj, scale, depsgraph=None):
    """A Compound of `obj`'s children, as Bullet's Compound Parent: each child a part shaped
    by its own Ligament Shape setting (Auto, Box, Sphere, Capsule, Cylinder, Convex Hull, or
    Compound for its own children), placed where it sits in `obj`'s scaled axes. The
    parent's own geometry is not a part."""
    units = compound_shape_units(obj, scale, depsgraph)
    while True:
        try:
            next(units)
        except StopIteration as stop:
            return stop.value


def compound_shape_units(obj, scale, depsgraph=None):
    """`compound_shape` as a generator that yields after each part's shape (a Compound of
    hundreds of convex parts is built a slice at a time, runtime/building.py)."""
    parts = []
    frame = Matrix.Diagonal((*scale, 1.0))
    for child in compound_parts(obj):
        shape_type = child.ligament_body.shape
        if shape_type == 'MESH':
            raise SceneError(f"Object '{child.name}': a part of the Compound body '{obj.name}' "
                             "cannot have the Mesh shape; give it Convex Hull (or use Split "
                             "into Convex Parts on the concave mesh)")
        loc, rot, child_scale = (frame @ parent_link(child) @ child.matrix_basis).decompose()
        if min(abs(c) for c in child_scale) < 1e-8:
            raise SceneError(f"Object '{child.name}' (a part of '{obj.name}') has zero scale; "
                             "apply a non-zero scale")
        shape, offset = fit_shape(child, shape_type, child_scale, depsgraph)
        position = loc if offset is None else loc + rot @ Vector(tuple(offset))
        parts.append((shape, tuple(position), tuple(rot)))
        yield
    if not parts:
        raise SceneError(f"Object '{obj.name}' has the Compound shape but no child objects "
                         "with geometry: parent the parts to it (each with its own Ligament "
                         "Shape), or run Split into Convex Parts on a mesh")
    return lg.Compound(parts)
