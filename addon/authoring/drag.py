"""Drag while it plays: grab a body under the cursor and pull it, recorded as the keys of a Pin
(its target's location and its on/off switch), so that scrubbing, replay, the cache's partial
re-simulation and the bake reproduce the drag exactly: the simulation reads the keys, as it
reads any Pin's (world/pins.py).

`DragSession` holds what a drag does; the modal operator in the 3D View
(ui/operators/drag.py) only turns mouse events into its verbs, with the view's rays from
`view_ray`. Tests call the verbs directly with rays given as numbers.

The pull is a soft pin (a spring of `hertz` and `damping_ratio` to the cursor's point) with a
force limit, so a dragged ragdoll is pulled, not torn apart or fired through the floor."""

import numpy as np
from mathutils import Vector

from ..scene.objects import scene_bodies
from ..scene.shapes import local_vertices
from .pins import create_pin

WHEEL_STEP = 1.1        # the grab's depth changes by this factor per wheel step
PARALLEL = 1e-9         # a ray this close to parallel to the drag plane does not move it


def view_ray(perspective_matrix, size, coord):
    """(origin, direction) in world space of the ray through the pixel `coord` (x, y from
    the region's bottom left) of a view of `size` (width, height) whose perspective matrix
    (projection times view, `RegionView3D.perspective_matrix`) is given: from the point the
    pixel shows on the near clip plane toward the one on the far plane (a perspective or an
    orthographic view alike)."""
    inv = perspective_matrix.inverted()
    x = 2.0 * coord[0] / size[0] - 1.0
    y = 2.0 * coord[1] / size[1] - 1.0
    near = inv @ Vector((x, y, -1.0, 1.0))
    far = inv @ Vector((x, y, 1.0, 1.0))
    near, far = near.xyz / near.w, far.xyz / far.w
    return near, (far - near).normalized()


def ray_triangles(origin, direction, v, tris):
    """The least t >= 0 at which origin + t direction meets a triangle (Moller-Trumbore,
    both sides), or None. v (n, 3) vertices, tris (m, 3) their indices."""
    a, b, c = v[tris[:, 0]], v[tris[:, 1]], v[tris[:, 2]]
    e1, e2 = b - a, c - a
    p = np.cross(direction, e2)
    det = np.einsum("ij,ij->i", e1, p)
    ok = np.abs(det) > 1e-12
    inv = np.where(ok, 1.0 / np.where(ok, det, 1.0), 0.0)
    s = origin - a
    u = np.einsum("ij,ij->i", s, p) * inv
    q = np.cross(s, e1)
    w = (q @ direction) * inv
    t = np.einsum("ij,ij->i", e2, q) * inv
    hit = ok & (u >= 0.0) & (w >= 0.0) & (u + w <= 1.0) & (t >= 0.0)
    return float(t[hit].min()) if hit.any() else None


def pick(scene, origin, direction, matrix=None):
    """(body, world point) of the nearest Dynamic body's mesh the ray meets, or None. Every
    body of the scene is looked at, shown or not (a ragdoll's parts are hidden). `matrix`:
    fn(object) -> its world matrix, or None to skip it (default: `matrix_world`; Live Mode
    gives the poses of its own world, which the depsgraph has not evaluated yet)."""
    origin, direction = Vector(origin), Vector(direction).normalized()
    best = None
    for obj in scene_bodies(scene):
        if obj.type != 'MESH' or obj.ligament_body.kind != 'DYNAMIC':
            continue
        v, tris = local_vertices(obj, None)
        if tris is None or not len(tris):
            continue
        m = obj.matrix_world if matrix is None else matrix(obj)
        if m is None:
            continue
        inv = m.inverted_safe()
        o = np.array(inv @ origin)
        d = np.array(inv.to_3x3() @ direction)      # t stays the world ray's parameter
        t = ray_triangles(o, d, v, tris)
        if t is not None and (best is None or t < best[0]):
            best = (t, obj)
    if best is None:
        return None
    return best[1], origin + direction * best[0]


class DragSession:
    """One drag of a body at a time: `grab` the body under a ray, `move` its target with the
    cursor's rays, `wheel` to push the target away or pull it nearer, `release` to let go (or
    to leave the Pin where it is). Each verb keys the Pin at the frame it is given: while
    the timeline plays, the frame about to be simulated (what the drag does is then what
    that frame's step reads); paused, the current one.

    hertz, damping_ratio  the pull's spring (soft: the body trails the cursor)
    max_force             the most force (N) the pull applies (0: no limit)"""

    def __init__(self, scene, hertz=3.0, damping_ratio=1.0, max_force=500.0):
        self.scene = scene
        self.hertz, self.damping_ratio, self.max_force = hertz, damping_ratio, max_force
        self.pin = None
        self.body = None
        self.plane = None          # (point, normal) the target moves in
        self.pins = []             # every pin this session made, in order

    def grab(self, origin, direction, frame, forward=None):
        """Grab the body the ray meets at its point: a new Pin there, switched on from
        `frame` (off before it). The target then moves in the plane through that point
        facing `forward` (the view's direction; default the ray's). Returns the body, or
        None when the ray meets none."""
        found = pick(self.scene, origin, direction)
        if found is None:
            return None
        body, point = found
        self.body = body
        self.pin = create_pin(self.scene, body, point, hertz=self.hertz,
                              damping_ratio=self.damping_ratio, max_force=self.max_force,
                              name=f"Drag {body.name}")
        normal = Vector(forward if forward is not None else direction).normalized()
        self.plane = (point.copy(), normal)
        if frame > self.scene.ligament_world.frame_start:
            self._switch(False, frame - 1)
        self._switch(True, frame)
        self._key_target(point, frame)
        self.pins.append(self.pin)
        return body

    def move(self, origin, direction, frame):
        """The target where the ray meets the drag's plane, keyed at `frame`. Returns it."""
        if self.pin is None:
            return None
        point, normal = self.plane
        d = Vector(direction)
        along = d.dot(normal)
        if abs(along) < PARALLEL:
            return None
        target = Vector(origin) + d * ((point - Vector(origin)).dot(normal) / along)
        self._key_target(target, frame)
        return target

    def wheel(self, steps, origin):
        """Move the drag's plane away from the view (`steps` > 0) or toward it, WHEEL_STEP
        times its distance from `origin` per step. The target moves on the next `move`."""
        if self.pin is None:
            return
        point, normal = self.plane
        depth = (point - Vector(origin)).dot(normal)
        self.plane = (point + normal * depth * (WHEEL_STEP ** steps - 1.0), normal)

    def release(self, frame, pin=False):
        """Let go at `frame` (the Pin switched off from then), or with `pin` leave it on where
        it is. Returns the Pin."""
        empty = self.pin
        if empty is not None and not pin:
            self._switch(False, frame)
        self.pin, self.body, self.plane = None, None, None
        return empty

    def _switch(self, on, frame):
        js = self.pin.ligament_joint
        js.enabled = on
        js.keyframe_insert("enabled", frame=frame)

    def _key_target(self, point, frame):
        self.pin.location = point
        self.pin.keyframe_insert("location", frame=frame)
