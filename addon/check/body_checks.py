"""Checks of the bodies where they start: shapes that cannot move or do not fit, mirrored
and sheared scales, bodies too small or thin for the substep rate, joint anchors in empty
space, mass ratios in a jointed group, bodies with nothing under them, one-sided meshes
turned away from the bodies above them."""

import math
import numpy as np

import bpy
from mathutils import Vector

from ..scene.animation import matrix_world_at, transform_fcurves
from ..scene.errors import SceneError
from ..scene.objects import effective_kind, world_settings
from ..scene.shapes import empty_shape_kind, local_vertices
from ..world.hits import axis_angle_unarmed
from .findings import ERROR, WARNING, Finding, Fix, length_text, select_fix
from .joint_list import body_pair, joint_pairs, jointed_groups
from .start_poses import determinants

THIN = 0.02              # m: bodies thinner than this are easily passed through
SMALL = 0.02             # m: bodies smaller than this along every axis
MASS_RATIO = 100.0       # heaviest to lightest dynamic body in one jointed group
ROUND_SHAPES = {'SPHERE', 'CAPSULE', 'CYLINDER'}
UNEVEN_SCALE = 1.01      # largest to smallest scale axis above this is non-uniform
NOT_ROUND = 1.1          # widest to narrowest size above this: a round shape sticks out
ANCHOR_GAP = 0.05        # m: an anchor this far outside both bodies is reported ...
ANCHOR_GAP_OF_SIZE = 0.5  # ... and farther than this fraction of the smaller body's size
SINGULAR = 1e-12         # a body whose matrix has a determinant below this is flat
NO_GRAVITY = 1e-9        # m/s^2: gravity below this: nothing falls
PARALLEL = 1e-12         # a ray this close to a triangle's plane misses it
RAY_BATCH = 1 << 18      # rays x triangles tested in one array operation


def mesh_shapes(bodies):
    """The Mesh shape on a moving body: the solver collides triangle meshes only as static."""
    out = []
    for o in bodies:
        s = o.ligament_body
        if s.shape == 'MESH' and effective_kind(o) != 'STATIC':
            out.append(Finding(ERROR, 'mesh-shape', (o.name,),
                f"'{o.name}' is a {s.kind.title()} body with the Mesh shape: triangle meshes "
                "only collide as Static bodies, so the scene does not build; use Convex Hull "
                "(or set Type to Static)",
                Fix("ligament.set_body_shape", {"objects": o.name, "shape": 'CONVEX_HULL'},
                    "Use Convex Hull")))
    return out


def shared_bodies(scene, bodies):
    """Bodies that another scene simulates too (an object linked into two scenes whose
    worlds are on): each scene steps it and writes its transform, so each takes the other's
    writes for an edit of the user's and builds again every frame, and the body lands at
    the wrong time in both. One finding per set of other scenes."""
    others = [s for s in bpy.data.scenes if s != scene and s.ligament_world.enabled]
    if not others:
        return []
    mine = {o.as_pointer(): o for o in bodies}
    shared = {}
    for other in others:
        for o in other.objects:
            if o.as_pointer() in mine and o.ligament_body.enabled:
                shared.setdefault(o.name, []).append(other.name)
    groups = {}
    for name, scenes in shared.items():
        groups.setdefault(tuple(sorted(scenes)), []).append(name)
    out = []
    for scenes, names in sorted(groups.items()):
        names.sort()
        where = ", ".join(f"'{n}'" for n in scenes)
        shown = ", ".join(f"'{n}'" for n in names[:5]) + (
            f" and {len(names) - 5} more" if len(names) > 5 else "")
        out.append(Finding(WARNING, 'shared-body', tuple(names),
            f"{shown} {'is a body' if len(names) == 1 else 'are bodies'} of scene "
            f"'{scene.name}' and of the simulated scene{'s' if len(scenes) > 1 else ''} "
            f"{where}: both scenes simulate {'it' if len(names) == 1 else 'them'} and write "
            "the transforms, each takes the other's writes for an edit and builds again "
            "every frame, and the bodies land at the wrong time in both; simulate them in one "
            f"scene: turn Ligament off in {where} (Scene properties > Ligament), or give it "
            "its own copies (Object > Relations > Make Single User > Object)",
            select_fix(names), {"scenes": list(scenes)}))
    return out


def skipped_bodies(sim):
    """Bodies the build left out (zero scale): the rest of the scene simulates, these stay
    where they are."""
    if sim is None:
        return []
    return [Finding(ERROR, 'body-skipped', (name,),
                    f"'{name}' is not simulated: {message}", select_fix([name]))
            for name, message in sim.skipped_bodies.items()]


def hit_axis_angle(bodies):
    """A Hit Impulse on an Animated body in Axis Angle rotation mode whose rotation an NLA
    strip or a driver plays: it follows its animation and takes no hits (world/hits.py,
    `axis_angle_unarmed`)."""
    return [Finding(WARNING, 'hit-axis-angle', (o.name,),
                    f"'{o.name}' has a Hit Impulse but rotates in Axis Angle mode with its "
                    "rotation played by an NLA strip or a driver, which would write over the "
                    "rotation of a hit: it follows its animation and takes no hits; set its "
                    "Rotation Mode to Quaternion or an Euler order (Object Properties > "
                    "Transform), or key its rotation in its own action", select_fix([o]))
            for o in bodies if axis_angle_unarmed(o)]


def empty_bodies(bodies):
    """An Empty as a body: it has no geometry, so its shape comes from its display size."""
    out = []
    for o in bodies:
        if o.type != 'EMPTY' or o.ligament_body.shape == 'COMPOUND':
            continue
        kind, size = empty_shape_kind(o), o.empty_display_size
        shows = {'BOX': 'CUBE', 'SPHERE': 'SPHERE'}.get(kind) == o.empty_display_type
        see = "as it shows" if shows else (
            "set Display As to Cube or Sphere to see it" if kind in {'BOX', 'SPHERE'} else
            "set Display As to Cube to see its bounds")
        out.append(Finding(WARNING, 'empty-body', (o.name,),
            f"'{o.name}' is an Empty: it has no geometry, so it collides as a {kind.lower()} of "
            f"its display size ({length_text(size)} from its centre, times its scale), {see}; "
            "make the body a mesh for another shape",
            select_fix([o]), {"shape": kind, "display_size": size}))
    return out


def scales(poses):
    """Negative scale, and non-uniform scale on a body with children. (A body's own
    non-uniform scale is fine otherwise: shapes are fitted to the scaled geometry.)"""
    out = []
    if not len(poses):
        return out
    mirrored = determinants(poses.m[:, :3, :3]) < 0.0
    sc = poses.axes
    uneven = sc.max(axis=1) > UNEVEN_SCALE * sc.min(axis=1)
    for i in np.flatnonzero(mirrored | uneven):   # the bodies' own settings read for these
        o = poses.objs[i]
        own = tuple(o.scale)
        if mirrored[i]:
            fix = _scale_fix(o)
            if poses.kinds[i] == 'DYNAMIC':   # others are never written back
                mine = any(c < 0 for c in own)
                whose = "its" if mine else "a parent's"
                out.append(Finding(ERROR, 'negative-scale', (o.name,),
                    f"'{o.name}' is mirrored ({whose} scale is negative): a rigid body cannot "
                    "be mirrored, so the simulation writes it back turned the wrong way and it "
                    "jumps at the first simulated frame; apply the scale",
                    fix if mine else select_fix([o]), {"scale": own}))
            continue
        if max(own) > UNEVEN_SCALE * min(own) and o.children:
            fix = _scale_fix(o)
            out.append(Finding(WARNING, 'non-uniform-scale', (o.name,),
                f"'{o.name}' is scaled non-uniformly ({', '.join(f'{c:g}' for c in own)}) and "
                f"has objects parented to it ({', '.join(sorted(c.name for c in o.children))})"
                ": they are sheared out of shape when it turns (joint empties too, which "
                "skews their axes); apply the scale", fix, {"scale": own}))
    return out


def _scale_fix(o):
    """Apply Scale for a mesh whose scale is not keyed, else select it."""
    if o.type == 'MESH' and not scale_animated(o):
        return Fix("ligament.apply_body_scale", {"objects": o.name}, "Apply Scale")
    return select_fix([o])


def round_shapes(poses):
    """Sphere, capsule and cylinder shapes on objects that are not round: the shape is
    fitted to the widest axis, so it sticks out of the object."""
    out = []
    if not len(poses):
        return out
    d = poses.dims
    for i in np.flatnonzero(d.max(axis=1) > NOT_ROUND * d.min(axis=1)):   # round shapes stick out
        o = poses.objs[i]
        shape = o.ligament_body.shape
        if shape not in ROUND_SHAPES:
            continue
        di = d[i].tolist()
        if shape == 'SPHERE':
            wide, narrow = max(di), min(di)
        else:
            wide, narrow = max(di[0], di[1]), min(di[0], di[1])
        if wide > NOT_ROUND * narrow:
            gap = (wide - narrow) / 2
            out.append(Finding(WARNING, 'shape-fit', (o.name,),
                f"'{o.name}' has the {shape.title()} shape but is "
                f"{' x '.join(length_text(x) for x in di)}: the round shape is fitted to the widest "
                f"axis, so it collides up to {length_text(gap)} away from the surface you see; use "
                "Convex Hull or Box",
                Fix("ligament.set_body_shape", {"objects": o.name, "shape": 'CONVEX_HULL'},
                    "Use Convex Hull"), {"gap": gap}))
    return out


def scale_animated(obj):
    return any(path == "scale" for path, _ in transform_fcurves(obj))


def sizes(scene, poses):
    """Very small and very thin dynamic bodies: fast bodies pass through them. Sizes in
    metres: scene units times the Unit Scale (a character built in centimetres is not small)."""
    out = []
    if not len(poses):
        return out
    rate = _substep_rate(scene)
    unit = world_settings(scene)["length_unit"]
    size, thin = poses.dims.max(axis=1) * unit, poses.dims.min(axis=1) * unit
    for i in np.flatnonzero((thin < THIN) | (size < SMALL)):
        o = poses.objs[i]
        if poses.kinds[i] != 'DYNAMIC':
            continue
        if size[i] < SMALL:
            out.append(Finding(WARNING, 'small', (o.name,),
                f"'{o.name}' is very small ({length_text(size[i])} across): anything moving faster "
                f"than {size[i] * rate:.1f} m/s (its size times the {rate:.0f} substeps a "
                "second) can pass through it, and it jitters in contact; scale the scene up "
                "or raise Substeps", select_fix([o]), {"size": float(size[i])}))
        else:
            out.append(Finding(WARNING, 'thin', (o.name,),
                f"'{o.name}' is very thin ({length_text(thin[i])}): anything moving faster than "
                f"{thin[i] * rate:.1f} m/s (its thickness times the {rate:.0f} substeps a "
                "second) can pass through it; make it thicker or raise Substeps",
                select_fix([o]), {"thickness": float(thin[i])}))
    return out


def _substep_rate(scene):
    settings = world_settings(scene)
    return settings["substeps"] / settings["dt"]


def anchors(scene, joints, poses, sim=None):
    """Joint anchors far from both bodies: the bodies turn about a point in empty space.
    With the built `sim`, its joints' anchors on body A are read from its world (where the
    empties put them, moved with the bodies to the start pose) in one pass."""
    out = []
    start = scene.ligament_world.frame_start
    known = dict(poses.known)   # world matrices at the start frame, shared by the lookups
    built = {}
    if sim is not None and sim.joints:
        names, ids = zip(*sim.joints)
        points = sim.world.joint_anchors()[list(ids), 0].tolist()
        built = dict(zip(names, points))
    rows = []   # (joint, A, B, its anchor, the bodies it should be on)
    for e, js, jtype, a, b in joint_pairs(joints):
        pair = body_pair(a, b, poses.row)
        if pair is None or jtype in {'MOTOR', 'PULLEY', 'CUSTOM'}:   # no shared anchor
            continue
        anchor = built.get(e.name)
        if anchor is None:
            try:
                anchor = tuple(matrix_world_at(e, start, known).translation)
            except SceneError:
                continue
        ends = (a,) if jtype in {'DISTANCE', 'ROPE'} else (a, b)   # their anchor is on A
        rows.append((e, a, b, anchor, ends))
    if not rows:
        return out
    # every (joint, end body) pair at once: the anchor's distance to the body's bounds
    # and the body's largest size
    which = np.array([poses.row[o.name] for row in rows for o in row[4]])
    gap, size = _bounds_gaps(poses, np.array([row[3] for row in rows for _ in row[4]]), which)
    unit = world_settings(scene)["length_unit"]     # gaps in metres
    gap, size = gap * unit, size * unit
    k = 0
    for e, a, b, anchor, ends in rows:
        n = len(ends)
        g, sz = gap[k:k + n].min(), size[k:k + n].min()
        k += n
        if g > max(ANCHOR_GAP, ANCHOR_GAP_OF_SIZE * sz):
            whom = f"'{a.name}'" if len(ends) == 1 else f"both '{a.name}' and '{b.name}'"
            out.append(Finding(WARNING, 'anchor', (e.name, a.name, b.name),
                f"Joint '{e.name}': its anchor (the empty) is {length_text(g)} outside {whom}, "
                "so they turn about a point in empty space as if held by an invisible rigid "
                "arm; move the empty to where the bodies meet", select_fix([e]),
                {"distance": float(g)}))
    return out


def _bounds_gaps(poses, points, which):
    """For each point and the body in row `which[i]` of `poses`: the point's distance to the
    body's bounding box (0 inside) and the body's largest size along its own axes, as two
    arrays. With M = [A t], the point's local position is A^-1 (p - t), and its distance to
    the clamped one in the world |A (clamped - local)|; a body whose A is singular counts as
    touching every point."""
    a, t = poses.m[which, :3, :3], poses.m[which, :3, 3]
    # the inverse as the adjugate over the determinant (rows of the adjugate: cross
    # products of A's columns; no LAPACK, see `determinants`)
    c0, c1, c2 = a[:, :, 0], a[:, :, 1], a[:, :, 2]
    adj = np.stack([np.cross(c1, c2), np.cross(c2, c0), np.cross(c0, c1)], axis=1)
    det = np.einsum("ni,ni->n", c0, adj[:, 0])
    ok = np.abs(det) > SINGULAR
    inv = adj / np.where(ok, det, 1.0)[:, None, None]
    lo, hi = poses.lo[which], poses.hi[which]
    local = np.einsum("nij,nj->ni", inv, points - t)
    gap = np.linalg.norm(np.einsum("nij,nj->ni", a, np.clip(local, lo, hi) - local), axis=1)
    gap[~ok] = 0.0
    size = poses.dims[which].max(axis=1)
    return gap, size


def mass_ratios(joints, sim=None):
    """Dynamic bodies over 100:1 in mass in one jointed group. With the built `sim`, the
    kinds and masses are the world's."""
    dynamic, mass, seen = {}, {}, set()   # each joint end's settings read once
    built = {b.name: b for b in sim.bodies} if sim is not None else None
    masses = sim.world.masses if sim is not None else None
    for _, _, _, a, b in joint_pairs(joints):
        for o in (a, b):
            if o is None or o.name in seen:
                continue
            seen.add(o.name)
            if built is not None:
                body = built.get(o.name)
                # a kinematic ragdoll part (a bone chain's root) has an infinite mass
                if body is not None and body.kind == 'DYNAMIC' and \
                        math.isfinite(masses[body.id]):
                    dynamic[o.name] = o
                    mass[o.name] = float(masses[body.id])
            elif o.ligament_body.enabled and effective_kind(o) == 'DYNAMIC':
                dynamic[o.name] = o
                mass[o.name] = o.ligament_body.mass
    groups = {}
    for name, root in jointed_groups(joints, dynamic).items():
        groups.setdefault(root, []).append(name)
    out = []
    for members in groups.values():
        heavy = dynamic[max(members, key=mass.__getitem__)]
        light = dynamic[min(members, key=mass.__getitem__)]
        ratio = mass[heavy.name] / mass[light.name]
        if ratio > MASS_RATIO:
            out.append(Finding(WARNING, 'mass-ratio', (heavy.name, light.name),
                f"'{heavy.name}' ({mass[heavy.name]:g} kg) and '{light.name}' "
                f"({mass[light.name]:g} kg) are joined in one chain at {ratio:.0f}:1: "
                "limits, motors and contacts converge slowly past 100:1, so the light bodies "
                "jitter or give way; bring the masses closer or raise Iterations",
                select_fix([heavy, light]), {"ratio": ratio}))
    return out


def falling(scene, joints, poses):
    """Dynamic bodies with nothing under them (nor a joint holding them): they fall for the
    whole frame range."""
    settings = world_settings(scene)
    g = np.array(settings["gravity"], dtype=np.float64)
    if np.linalg.norm(g) < NO_GRAVITY or not len(poses):
        return []
    down = Vector(g).normalized()
    u = down.orthogonal().normalized()
    v = down.cross(u)
    names = poses.names
    # the extent of each body's world bounds along u, v and down: the box's centre, plus and
    # minus its half sizes along its own axes projected (its corners' min and max)
    m = poses.m
    centre = np.einsum("nij,nj->ni", m[:, :3, :3], (poses.lo + poses.hi) / 2) + m[:, :3, 3]
    half = (poses.hi - poses.lo) / 2
    columns = []
    for d in (u, v, down):
        d = np.array(tuple(d))
        c = centre @ d
        r = np.abs(np.einsum("nij,i->nj", m[:, :3, :3], d) * half).sum(axis=1)
        columns += (c - r, c + r)
    box = np.stack(columns, axis=1)   # footprint across gravity (u, v), extent along it
    kinds = dict(zip(names, poses.kinds))
    roots = jointed_groups(joints, names)
    index = {r: i for i, r in enumerate(sorted(set(roots.values())))}
    group = np.array([index[roots[n]] for n in names])
    held = np.zeros(len(index), dtype=bool)           # a static or animated body is in it
    for n, k in zip(names, group):
        if kinds[n] != 'DYNAMIC':
            held[k] = True
    changed = True
    while changed:     # supported: above something held, or above something supported
        changed = False
        for i in np.flatnonzero(~held[group]):
            if held[group[i]]:
                continue
            a = box[i]
            under = held[group] & (group != group[i]) & (box[:, 0] < a[1]) & \
                (a[0] < box[:, 1]) & (box[:, 2] < a[3]) & (a[2] < box[:, 3]) & \
                (box[:, 5] > a[4])            # reaching lower down than its top
            if under.any():
                held[group[i]] = True
                changed = True
    ws = scene.ligament_world
    seconds = max(ws.frame_end - ws.frame_start, 0) * settings["dt"]
    drop = 0.5 * float(np.linalg.norm(g)) * seconds ** 2
    out = []
    reported = set()
    for i, n in enumerate(names):
        k = group[i]
        if held[k] or k in reported:
            continue
        reported.add(k)
        members = sorted(m for m, h in zip(names, group) if h == k)
        if len(members) == 1:
            who = f"'{n}' has nothing under it and no joint to anything static: it falls"
        else:
            who = (f"'{n}' and the {len(members) - 1} bodies jointed to it have nothing under "
                   "them and no joint to anything static: they fall")
        out.append(Finding(WARNING, 'falling', tuple(members),
            f"{who} for the whole frame range, {length_text(drop)} by frame {ws.frame_end}; add a "
            "ground (a Static body) under it, or a joint to hold it", select_fix(members),
            {"drop": drop}))
    return out


def one_sided_meshes(scene, poses):
    """Static bodies with a one-sided Mesh shape whose faces under a dynamic body point away
    from it (down, along gravity): the body falls through them. A ray from each dynamic
    body's centre along gravity finds the first face under it."""
    settings = world_settings(scene)
    g = np.array(settings["gravity"], dtype=np.float64)
    if np.linalg.norm(g) < NO_GRAVITY or not len(poses):
        return []
    down = g / np.linalg.norm(g)
    meshes = [i for i, o in enumerate(poses.objs) if poses.kinds[i] == 'STATIC' and
              o.ligament_body.shape == 'MESH' and o.ligament_body.one_sided]
    dynamic = [i for i, k in enumerate(poses.kinds) if k == 'DYNAMIC']
    if not meshes or not dynamic:
        return []
    m = poses.m
    centres = np.einsum("nij,nj->ni", m[dynamic, :3, :3],
                        (poses.lo[dynamic] + poses.hi[dynamic]) / 2) + m[dynamic, :3, 3]
    nearest = np.full(len(dynamic), np.inf)     # the first face under each body ...
    facing = np.zeros(len(dynamic), dtype=bool)  # ... points away from it
    owner = np.full(len(dynamic), -1)
    for i in meshes:
        verts, tris = local_vertices(poses.objs[i], None)
        if tris is None or not len(tris):
            continue
        w = verts @ m[i, :3, :3].T + m[i, :3, 3]
        a, b, c = w[tris[:, 0]], w[tris[:, 1]], w[tris[:, 2]]
        step = max(1, RAY_BATCH // len(tris))          # rays x triangles held at once
        t, away = np.empty(len(dynamic)), np.empty(len(dynamic), dtype=bool)
        for r in range(0, len(dynamic), step):
            t[r:r + step], away[r:r + step] = _ray_hits(centres[r:r + step], down, a, b, c)
        closer = t < nearest
        nearest[closer] = t[closer]
        facing[closer] = away[closer]
        owner[closer] = i
    out = []
    for k in np.flatnonzero(facing & np.isfinite(nearest)):
        mesh, body = poses.objs[owner[k]], poses.objs[dynamic[k]]
        out.append(Finding(WARNING, 'one-sided-mesh', (mesh.name, body.name),
            f"'{mesh.name}' is a one-sided Mesh and its faces under '{body.name}' point away "
            f"from it (down): '{body.name}' falls through them; turn off One-Sided (both sides "
            "collide) or flip the normals (Edit Mode: Mesh > Normals > Flip)",
            Fix("ligament.make_two_sided", {"objects": mesh.name}, "Make Two-Sided"),
            {"distance": float(nearest[k])}))
    return out


def _ray_hits(origins, d, a, b, c):
    """For rays from each of `origins` along d: the distance to the nearest of the triangles
    (a, b, c) it crosses (inf if none), and whether that triangle's normal, (b - a) x (c - a),
    points along d (Moller-Trumbore, all rays against all triangles at once)."""
    e1, e2 = b - a, c - a
    p = np.cross(d, e2)                               # (T, 3)
    det = np.einsum("ti,ti->t", e1, p)
    ok = np.abs(det) > PARALLEL
    inv = np.where(ok, 1.0 / np.where(ok, det, 1.0), 0.0)
    s = origins[:, None, :] - a[None, :, :]           # (R, T, 3)
    u = np.einsum("rti,ti->rt", s, p) * inv
    q = np.cross(s, e1[None, :, :])
    v = (q @ d) * inv
    t = np.einsum("rti,ti->rt", q, e2) * inv
    hit = ok & (u >= 0.0) & (v >= 0.0) & (u + v <= 1.0) & (t >= 0.0)
    t = np.where(hit, t, np.inf)
    first = np.argmin(t, axis=1)
    rows = np.arange(len(origins))
    normal = np.cross(e1, e2)
    return t[rows, first], (normal[first] @ d) > 0.0
