"""Split a concave mesh into convex parts, made child objects of it: with the Compound shape
the body collides as those parts (each a Convex Hull) while the mesh itself stays what is
seen.

The decomposition is CoACD's (Wei et al. 2022, "Approximate convex decomposition for 3D
meshes with collision-aware concavity and tree search"; the `coacd` wheel the extension
bundles): it cuts the mesh along planes until each piece is within `threshold` of its
convex hull (a concavity relative to the mesh's size)."""

import time

import bpy
import numpy as np

from ..scene.errors import SceneError
from ..scene.shapes import local_vertices

PART_OF = "ligament_convex_part_of"     # custom property on the parts made here: the parent
DEFAULT_THRESHOLD = 0.05


def decompose(vertices, triangles, threshold=DEFAULT_THRESHOLD, max_parts=0, seed=0):
    """Convex parts of a closed triangle mesh: a list of (vertices (k, 3), triangles (j, 3)).
    `threshold`: the concavity each part may keep (0.01 fine .. 1 coarse); `max_parts` > 0
    merges down to that many parts."""
    try:
        import coacd
    except ImportError as exc:
        raise SceneError("Split into Convex Parts needs the CoACD library, bundled with the "
                         "extension for Linux x64, Windows x64 and macOS arm64; it did not "
                         f"load here ({exc})") from None
    coacd.set_log_level("error")
    mesh = coacd.Mesh(np.ascontiguousarray(vertices, dtype=np.float64),
                      np.ascontiguousarray(triangles, dtype=np.int32))
    parts = coacd.run_coacd(mesh, threshold=float(threshold),
                            max_convex_hull=int(max_parts) if max_parts > 0 else -1,
                            seed=int(seed))
    return [(np.asarray(v, dtype=np.float64), np.asarray(t, dtype=np.int64)) for v, t in parts]


def made_parts(obj):
    """The children of `obj` that an earlier split made (tagged when made; the tag's name
    may be an old name of `obj`: a renamed object keeps its parts)."""
    return [c for c in obj.children if PART_OF in c]


def remove_parts(obj):
    for child in made_parts(obj):
        mesh = child.data
        bpy.data.objects.remove(child)
        if mesh is not None and mesh.users == 0:
            bpy.data.meshes.remove(mesh)


def split_into_parts(obj, depsgraph, threshold=DEFAULT_THRESHOLD, max_parts=0,
                     progress=None):
    """Replace the parts an earlier split made with new ones: each a child mesh object of
    `obj` in its local frame (wireframe, not rendered) with the Convex Hull shape, and give
    `obj` the Compound shape (making it a body if it was not one). `progress(fraction)` is
    called as the work goes. Returns (the part objects, seconds the decomposition took)."""
    if obj.type != 'MESH':
        raise SceneError(f"Object '{obj.name}' is not a mesh; Split into Convex Parts works "
                         "on mesh objects")
    report = progress or (lambda fraction: None)
    report(0.0)
    vertices, triangles = local_vertices(obj, depsgraph)
    if triangles is None or len(triangles) == 0:
        raise SceneError(f"Object '{obj.name}' has no faces to split")
    report(0.1)
    t0 = time.perf_counter()
    pieces = decompose(vertices, triangles, threshold, max_parts)
    seconds = time.perf_counter() - t0
    report(0.8)
    remove_parts(obj)
    collection = obj.users_collection[0] if obj.users_collection else \
        bpy.context.scene.collection
    made = []
    for k, (v, t) in enumerate(pieces):
        mesh = bpy.data.meshes.new(f"{obj.name}.part.{k:03d}")
        mesh.from_pydata([tuple(p) for p in v], [], [tuple(int(i) for i in f) for f in t])
        mesh.update()
        part = bpy.data.objects.new(mesh.name, mesh)
        collection.objects.link(part)
        part.parent = obj
        part.matrix_parent_inverse.identity()      # vertices are in obj's local frame
        part.display_type = 'WIRE'
        part.hide_render = True
        part[PART_OF] = obj.name
        part.ligament_body.shape = 'CONVEX_HULL'
        made.append(part)
        report(0.8 + 0.2 * (k + 1) / len(pieces))
    s = obj.ligament_body
    s.shape = 'COMPOUND'
    s.enabled = True
    return made, seconds
