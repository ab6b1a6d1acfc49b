"""Collision shapes and their mass properties.

Every shape is plain data in its own local frame. `mass_properties()` gives the volume, the
centre of mass and the inertia tensor about it for unit density; a body built on the shape
puts its centre of mass there (see `World.add_body`). Sphere, Capsule and Cylinder (both
along local Z), Box and ConvexHull can be dynamic; TriangleMesh and Plane are static only.
A Compound is a rigid union of convex parts, each placed in the body's frame; each part
collides on its own (collision/colliders.py).
"""

import math

import numpy as np

from .hull import convex_hull, polyhedron_mass_properties

SPHERE, CAPSULE, CYLINDER, BOX, HULL, MESH, PLANE, COMPOUND = range(8)
SHAPE_NAMES = ("Sphere", "Capsule", "Cylinder", "Box", "ConvexHull", "TriangleMesh", "Plane",
               "Compound")


# The largest size a dynamic shape may have (m): its mass properties grow with size^5 and
# overflow float64 near 1e61; far below that a body a thousand kilometres across is no
# rigid body a scene means.
MAX_SIZE = 1e6


def _positive(name, value):
    value = float(value)
    if not math.isfinite(value) or value <= 0.0:
        raise ValueError(f"{name} must be a finite number > 0, got {value!r}")
    if value > MAX_SIZE:
        raise ValueError(f"{name} must be at most {MAX_SIZE:g} m, got {value!r}: model the "
                         "scene in metres (a unit of a larger size overflows the mass)")
    return value


def _finite_vector(name, value, size=3):
    arr = np.asarray(value, dtype=np.float64)
    if arr.shape != (size,) or not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be {size} finite numbers, got {value!r}")
    return arr


def _within_size(name, points):
    """`points` (local coordinates of a dynamic shape) within MAX_SIZE of its origin."""
    reach = float(np.abs(points).max()) if len(points) else 0.0
    if reach > MAX_SIZE:
        raise ValueError(f"{name} reach {reach:g} m from the shape's origin, more than "
                         f"{MAX_SIZE:g} m: model the scene in metres (a unit of a larger "
                         "size overflows the mass)")


class Shape:
    kind = -1
    dynamic_ok = True

    @property
    def center_of_mass(self):
        return self.mass_properties()[1]

    def params(self):
        """Up to four numbers that size the shape in the kernels' shape table."""
        return (0.0, 0.0, 0.0, 0.0)

    def __repr__(self):
        return f"{type(self).__name__}({', '.join(f'{v:g}' for v in self.params() if v)})"


class Sphere(Shape):
    kind = SPHERE

    def __init__(self, radius):
        self.radius = _positive("Sphere radius", radius)

    def params(self):
        return (self.radius, 0.0, 0.0, 0.0)

    def mass_properties(self):
        r = self.radius
        v = 4.0 / 3.0 * math.pi * r ** 3
        return v, np.zeros(3), np.eye(3) * (0.4 * v * r * r)


class Capsule(Shape):
    """A cylinder of `half_height` capped with hemispheres of `radius`, along local Z."""
    kind = CAPSULE

    def __init__(self, radius, half_height):
        self.radius = _positive("Capsule radius", radius)
        self.half_height = _positive("Capsule half_height", half_height)

    def params(self):
        return (self.radius, self.half_height, 0.0, 0.0)

    def mass_properties(self):
        r, h = self.radius, self.half_height
        vc = math.pi * r * r * 2.0 * h          # cylinder part
        vs = 4.0 / 3.0 * math.pi * r ** 3       # both caps
        izz = vc * r * r / 2.0 + vs * 0.4 * r * r
        # Each cap: 2/5 m r^2 about its flat face's centre axis, shifted by h and its own
        # centroid (3r/8): m (2/5 r^2 + h^2 + 3/4 h r).
        ixx = vc * (r * r / 4.0 + h * h / 3.0) + vs * (0.4 * r * r + h * h + 0.75 * h * r)
        return vc + vs, np.zeros(3), np.diag([ixx, ixx, izz])


class Cylinder(Shape):
    kind = CYLINDER

    def __init__(self, radius, half_height):
        self.radius = _positive("Cylinder radius", radius)
        self.half_height = _positive("Cylinder half_height", half_height)

    def params(self):
        return (self.radius, self.half_height, 0.0, 0.0)

    def mass_properties(self):
        r, h = self.radius, self.half_height
        v = math.pi * r * r * 2.0 * h
        ixx = v * (3.0 * r * r + 4.0 * h * h) / 12.0
        return v, np.zeros(3), np.diag([ixx, ixx, v * r * r / 2.0])


class Box(Shape):
    kind = BOX

    def __init__(self, half_extents):
        he = _finite_vector("Box half_extents", half_extents)
        if np.any(he <= 0.0):
            raise ValueError(f"Box half_extents must all be > 0, got {tuple(he)}")
        _within_size("Box half_extents", he)
        self.half_extents = he

    def params(self):
        return (*self.half_extents, 0.0)

    def mass_properties(self):
        x, y, z = self.half_extents
        v = 8.0 * x * y * z
        return v, np.zeros(3), np.diag([y * y + z * z, x * x + z * z, x * x + y * y]) * (v / 3.0)


class ConvexHull(Shape):
    """The convex hull of `points` (local frame). `vertices`/`triangles` hold the hull itself.

    `max_vertices` keeps at most that many of its vertices, the farthest out first (a hull
    inside the full one): the separating axis test between two hulls costs about the cube
    of their vertex counts (bench/hulls.py), so a hull of a dense mesh collides far faster
    simplified. None keeps every vertex."""
    kind = HULL

    def __init__(self, points, max_vertices=None):
        pts = np.asarray(points, dtype=np.float64)
        if pts.ndim != 2 or pts.shape[1] != 3 or not np.all(np.isfinite(pts)):
            raise ValueError("ConvexHull points must be an (n, 3) array of finite numbers")
        _within_size("ConvexHull points", pts)
        try:
            self.vertices, self.triangles = convex_hull(pts, max_vertices=max_vertices)
        except ValueError as exc:
            raise ValueError(f"ConvexHull: {exc}") from None
        self._mass = polyhedron_mass_properties(self.vertices, self.triangles)

    def mass_properties(self):
        v, c, i = self._mass
        return v, c.copy(), i.copy()

    def __repr__(self):
        return f"ConvexHull({len(self.vertices)} vertices)"


class TriangleMesh(Shape):
    """A static triangle soup, e.g. a floor or stairs. Not closed, so it has no mass.

    Two-sided by default: a body meets a triangle from either side and is pushed out on the
    side its centre is on. `one_sided=True` makes each triangle collide only with bodies on
    its front (the side its normal, (v1 - v0) x (v2 - v0), points to): a body behind it
    passes through, as the inside of a room or the underside of terrain should let it."""
    kind = MESH
    dynamic_ok = False

    def __init__(self, vertices, triangles, one_sided=False):
        v = np.asarray(vertices, dtype=np.float64)
        t = np.asarray(triangles, dtype=np.int64)
        if v.ndim != 2 or v.shape[1] != 3 or not np.all(np.isfinite(v)):
            raise ValueError("TriangleMesh vertices must be an (n, 3) array of finite numbers")
        if t.ndim != 2 or t.shape[1] != 3 or len(t) == 0:
            raise ValueError("TriangleMesh triangles must be a non-empty (m, 3) array of vertex indices")
        if t.min() < 0 or t.max() >= len(v):
            raise ValueError(f"TriangleMesh triangle indices must lie in 0..{len(v) - 1}")
        if not isinstance(one_sided, (bool, np.bool_)):
            raise ValueError(f"TriangleMesh one_sided must be True or False, got {one_sided!r}")
        self.vertices, self.triangles = v, t
        self.one_sided = bool(one_sided)

    def mass_properties(self):
        raise ValueError("TriangleMesh is static only: use kind='static'")

    def __repr__(self):
        side = ", one-sided" if self.one_sided else ""
        return f"TriangleMesh({len(self.triangles)} triangles{side})"


class Plane(Shape):
    """The half-space below normal . x = offset (in the body's frame). Static only."""
    kind = PLANE
    dynamic_ok = False

    def __init__(self, normal=(0.0, 0.0, 1.0), offset=0.0):
        n = _finite_vector("Plane normal", normal)
        length = float(np.linalg.norm(n))
        if length < 1e-12:
            raise ValueError("Plane normal must not be the zero vector")
        self.normal = n / length
        self.offset = float(offset)
        if not math.isfinite(self.offset):
            raise ValueError(f"Plane offset must be finite, got {offset!r}")

    def params(self):
        return (*self.normal, self.offset)

    def mass_properties(self):
        raise ValueError("Plane is static only: use kind='static'")

    def __repr__(self):
        return f"Plane(normal={tuple(self.normal)}, offset={self.offset:g})"


def _rotation(q):
    w, x, y, z = q
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                     [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                     [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])


def _qmul(a, b):
    aw, ax, ay, az = a
    bw, bx, by, bz = b
    return np.array([aw * bw - ax * bx - ay * by - az * bz, aw * bx + ax * bw + ay * bz - az * by,
                     aw * by - ax * bz + ay * bw + az * bx, aw * bz + ax * by - ay * bx + az * bw])


class Compound(Shape):
    """A rigid union of convex parts: `parts` is a sequence of (shape, position) or (shape,
    position, orientation), the part's origin and rotation (w, x, y, z; identity when left
    out) in the compound's frame. Parts are Sphere, Capsule, Cylinder, Box or ConvexHull; a
    Compound part is flattened into its own parts. Mass properties add the parts' up (the
    parallel axis theorem), so parts should touch, not overlap: a shared volume counts twice.
    Each part collides on its own with other bodies (never with its own body's other parts).

    `parts` holds the flattened (shape, position (3,), orientation (4,)) tuples."""
    kind = COMPOUND

    def __init__(self, parts):
        try:
            items = list(parts)
        except TypeError:
            raise ValueError("Compound parts must be a sequence of (shape, position, "
                             f"orientation) tuples, got {parts!r}") from None
        if not items:
            raise ValueError("Compound needs at least one part")
        flat = []
        for i, part in enumerate(items):
            if not isinstance(part, (tuple, list)) or len(part) not in (2, 3):
                raise ValueError(f"Compound parts[{i}] must be (shape, position) or (shape, "
                                 f"position, orientation), got {part!r}")
            shape = part[0]
            pos = _finite_vector(f"Compound parts[{i}] position", part[1])
            q = _finite_vector(f"Compound parts[{i}] orientation",
                               part[2] if len(part) == 3 else (1.0, 0.0, 0.0, 0.0), 4)
            norm = float(np.linalg.norm(q))
            if norm < 1e-6:
                raise ValueError(f"Compound parts[{i}] orientation must be a non-zero "
                                 f"quaternion (w, x, y, z), got {tuple(q)}")
            q = q / norm
            if isinstance(shape, Compound):
                r = _rotation(q)
                for sub_shape, sub_pos, sub_q in shape.parts:
                    flat.append((sub_shape, pos + r @ sub_pos, _qmul(q, sub_q)))
                continue
            if not isinstance(shape, Shape) or not shape.dynamic_ok:
                raise ValueError(f"Compound parts[{i}] must be a Sphere, Capsule, Cylinder, "
                                 f"Box or ConvexHull, got {shape!r}")
            _within_size(f"Compound parts[{i}] position", pos)
            flat.append((shape, pos, q))
        self.parts = flat
        self._mass = self._union_mass()

    def _union_mass(self):
        """Volume, centre of mass and inertia about it of the parts together (unit density):
        each part's tensor turned into the compound's frame (R I R^T) and moved to the common
        centre of mass by the parallel axis theorem, m (|d|^2 E - d d^T)."""
        volumes, centres, tensors = [], [], []
        for shape, pos, q in self.parts:
            v, c, inertia = shape.mass_properties()
            r = _rotation(q)
            volumes.append(v)
            centres.append(pos + r @ c)
            tensors.append(r @ inertia @ r.T)
        volumes = np.array(volumes)
        centres = np.array(centres)
        total = float(volumes.sum())
        com = (volumes[:, None] * centres).sum(axis=0) / total
        inertia = np.zeros((3, 3))
        for v, c, t in zip(volumes, centres, tensors):
            d = c - com
            inertia += t + v * (np.dot(d, d) * np.eye(3) - np.outer(d, d))
        return total, com, 0.5 * (inertia + inertia.T)

    def mass_properties(self):
        v, c, i = self._mass
        return v, c.copy(), i.copy()

    def __repr__(self):
        return f"Compound({len(self.parts)} parts)"
