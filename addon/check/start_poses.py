"""Where every body is at the start frame, as arrays the per-body checks run over at once:
from the built world when there is one, else from the objects' rest poses and keys."""

import numpy as np
from mathutils import Vector

from .. import kernels
from ..scene.animation import compose, has_transform_animation, matrix_world_at, \
    parent_link, rotation_to_quaternion
from ..scene.errors import SceneError
from ..scene.objects import effective_kind, is_compound
from ..scene.shapes import compound_parts


class StartPoses:
    """Every body's world matrix at the start frame and its local bounds, as arrays with one
    row per body whose pose is known (in the order of `bodies`): the per-body checks run over
    all of them at once.

        names, objs, row    the bodies' names, objects, and row by name
        m                   (n, 4, 4) world matrices
        lo, hi              (n, 3) local bounds (`local_bounds`)
        dims                (n, 3) world size of the bounds along the body's own axes
        kinds               [effective kind] ('DYNAMIC', 'STATIC', 'ANIMATED')
        known               {name: Matrix} for `matrix_world_at` (the rest matrices
                            when there is no built world)
    """

    def __init__(self, objs, m, kinds, known):
        self.objs = objs
        self.names = [o.name for o in objs]
        self.row = {n: i for i, n in enumerate(self.names)}
        self.m = np.asarray(m, dtype=np.float64).reshape(-1, 4, 4)
        bounds = np.array([local_bounds(o) for o in objs], dtype=np.float64).reshape(-1, 2, 3)
        self.lo, self.hi = bounds[:, 0], bounds[:, 1]
        self.axes = np.sqrt((self.m[:, :3, :3] ** 2).sum(axis=1))   # column lengths: scale
        self.dims = np.abs(self.hi - self.lo) * self.axes
        self.kinds = kinds
        self.known = known

    def __len__(self):
        return len(self.names)


def start_matrices(scene, bodies, sim):
    """The bodies' `StartPoses`: from the built world when there is one (exactly where the
    simulation starts), else from the objects' rest poses and keys."""
    if sim is not None:
        built = {b.name: b for b in sim.bodies}
        objs = [o for o in bodies if o.name in built]
        rows = [built[o.name] for o in objs]
        ids = [b.id for b in rows]
        quats = np.asarray(sim.world.orientations[ids], dtype=np.float64).reshape(-1, 4)
        rot = kernels.vectors.qmats(quats)
        offset = np.array([tuple(b.offset) for b in rows], dtype=np.float64).reshape(-1, 3)
        scale = np.array([tuple(b.scale) for b in rows], dtype=np.float64).reshape(-1, 3)
        m = np.zeros((len(objs), 4, 4))
        m[:, :3, :3] = rot * scale[:, None, :]
        m[:, :3, 3] = sim.world.positions[ids] - np.einsum("nij,nj->ni", rot, offset)
        m[:, 3, 3] = 1.0
        # a ragdoll part not simulated at the start (a bone chain's root) is kinematic
        kinds = ['ANIMATED' if b.kind == 'DYNAMIC' and sim.world.kind(b.id) == "kinematic"
                 else b.kind for b in rows]
        return StartPoses(objs, m, kinds, {})
    start = scene.ligament_world.frame_start
    objs, mats = [], {}
    for o in bodies:
        try:
            mats[o.name] = rest_matrix(o, start)
        except SceneError:
            continue
        objs.append(o)
    m = [[tuple(r) for r in mats[o.name]] for o in objs]
    return StartPoses(objs, m, [effective_kind(o) for o in objs], mats)


def determinants(a):
    """(n,) determinants of (n, 3, 3) matrices (a triple product: np.linalg goes through
    LAPACK, whose thread pool costs milliseconds a call inside Blender)."""
    return np.einsum("ni,ni->n", a[:, :, 0], np.cross(a[:, :, 1], a[:, :, 2]))


def rest_matrix(obj, start):
    s = obj.ligament_body
    if effective_kind(obj) == 'DYNAMIC' and s.rest_valid and s.sim_pose and \
            not has_transform_animation(obj):
        q = rotation_to_quaternion(s.rest_rotation_mode, tuple(s.rest_rotation))
        local = compose(tuple(s.rest_location), q, obj.scale)
        if obj.parent is None:
            return local
        return matrix_world_at(obj.parent, start, {}) @ obj.matrix_parent_inverse @ local
    return matrix_world_at(obj, start, {})


def local_bounds(obj):
    """The object's local bounding box (lo, hi) as two 3-tuples (`StartPoses` reads each
    body's once per check); an Empty's spans its display size, the shape it collides as, and
    a Compound body's its parts."""
    if is_compound(obj):
        return _compound_bounds(obj)
    if obj.type == 'EMPTY':
        r = obj.empty_display_size
        return (-r, -r, -r), (r, r, r)
    box = obj.bound_box    # axis-aligned in the object's frame: corner 0 low, corner 6 high
    return box[0][:], box[6][:]


def _compound_bounds(obj):
    """A Compound body's local bounds: its parts' (children's) corners in its frame."""
    corners = [parent_link(c) @ c.matrix_basis @ Vector(p)
               for c in compound_parts(obj) for p in c.bound_box]
    if not corners:
        box = obj.bound_box
        return box[0][:], box[6][:]
    return (tuple(min(p[k] for p in corners) for k in range(3)),
            tuple(max(p[k] for p in corners) for k in range(3)))
