"""Ragdolls from armatures: plan the ragdolls.bodies and joints of a character from its bones (and the
mesh it deforms), create them as hidden helper objects, and remove them again.

A ragdoll is made of ordinary Ligament ragdolls.bodies and joints, so the cache, the panels and the
solver treat it like any other rig:

* one helper mesh per part (a capsule or box along the part, its origin at the shape's
  centre), a dynamic Ligament body whose mass is the part's share of the total;
* one joint empty per part but the pelvis, parented to the parent part's helper, its local Y
  along the child bone (ragdoll cones twist about Y, swing about the bend axis X; hinges turn
  about Z, the bend axis, or the bone's own X or Z axis when that is within 25 degrees of it,
  so that the rig's animation about it can be followed exactly);
* one "target" empty per mapped bone, parented to its part's helper where the bone sits; a
  Copy Transforms constraint ("Ligament Ragdoll") makes the pose bone follow it.

Everything lives in one collection per ragdoll (hidden, not rendered) inside the collection
that holds the armature, so the character's collection carries its ragdoll when it is linked,
overridden, appended or duplicated; `remove` deletes it all. The
joint limits are measured from the armature's rest pose (the solver world is built with the
ragdoll at rest, see world/ragdolls.py), so they are anatomical whatever pose the
simulation starts from.

Frames: `rest_frame` is a part's frame in armature space (Z along the part, X the bend axis,
origin at the shape's centre); world matrices of helpers are ragdolls.rigid (no scale), the armature's
scale goes into the shapes and the target empties. A ragdoll is built from the bones at rest
with the pose's scale (`ragdolls.scaled_rest`: a bone scaled 1.5 in the pose gets a body 1.5
times as big, and its target carries the scale, so the bone keeps its size).
"""

import math

import bpy
import numpy as np
from mathutils import Matrix, Vector

from . import bonemap
from . import presets
from ..scene import bakes, ragdolls


CONSTRAINT = "Ligament Ragdoll"
# The collection ragdolls used to be made in, at the top of the scene (files made before they
# lived with their armature: `move_home` moves them)
COLLECTION = "Ligament Ragdolls"
MIN_SIZE = 1e-3
# Damping rates (1/s) of ragdoll ragdolls.bodies: Bullet's RagdollDemo (0.05, 0.85 per step of
# v *= (1 - d)^dt) as rates -ln(1 - d). Limp ragdolls.bodies stop rocking on the ground at default
# quality; edit them per body in Properties > Physics.
LINEAR_DAMPING = 0.05
ANGULAR_DAMPING = 1.9


# --------------------------------------------------------------------------------------------
# Planning (reads the armature and its meshes, changes nothing)

class PartPlan:
    """A part to build: bones, frame, shape and mass share; `joint` describes the joint to
    its parent part (None for the root)."""

    def __init__(self, name, bones, frame, shape, size, mass):
        self.name, self.bones, self.frame = name, bones, frame
        self.shape, self.size, self.mass = shape, size, mass
        self.parent = None
        self.joint = None


def armature_bones(arm):
    """{bone name: parent name or None} for bonemap."""
    return {b.name: (b.parent.name if b.parent else None) for b in arm.data.bones}


def _character_axes(arm, parts):
    """(left, up, forward, height) of the character in armature space, from its sided parts
    and its spine; falls back on the armature's own axes."""
    bones = arm.data.bones

    def head(part):
        return bones[parts[part][0]].head_local

    lefts = [head(p) - head(p[:-2] + ".R") for p in parts
             if p.endswith(".L") and p[:-2] + ".R" in parts]
    left = sum(lefts, Vector()) if lefts else Vector((1, 0, 0))
    top = next((p for p in ("head", "chest", "spine") if p in parts), None)
    up = (bones[parts[top][-1]].tail_local - head("pelvis")) if top else Vector((0, 0, 1))
    if left.length < 1e-9:
        left = Vector((1, 0, 0))
    left.normalize()
    up = up - up.dot(left) * left
    if up.length < 1e-9:
        up = left.orthogonal()
    up.normalize()
    points = [c for b in bones for c in (b.head_local, b.tail_local)]
    heights = [p.dot(up) for p in points]
    return left, up, left.cross(up), max(max(heights) - min(heights), MIN_SIZE)


def _bend_axis(direction, forward, left):
    """The axis that folds `direction` toward the character's front (d x forward), or the
    character's left for bones that point forward already."""
    axis = direction.cross(forward)
    if axis.length < 0.3:
        axis = left - left.dot(direction) * direction
    return axis.normalized()


def _frame(origin, z, x):
    """4x4 with the given origin, Z axis and (orthogonalised) X axis."""
    z = z.normalized()
    x = (x - x.dot(z) * z).normalized()
    y = z.cross(x)
    m = Matrix((x, y, z)).transposed().to_4x4()
    m.translation = origin
    return m


def deformed_meshes(scene, arm):
    """Mesh objects the armature deforms through an Armature modifier with vertex groups."""
    return deformed_meshes_by_armature(scene).get(arm, [])


def weighted_points(arm, meshes, bone_names, threshold=0.5):
    """Armature-space rest positions of the vertices weighted at least `threshold` to any of
    `bone_names`, (n, 3)."""
    to_arm = arm.matrix_world.inverted_safe()
    out = []
    for mesh_obj in meshes:
        indices = {vg.index for vg in mesh_obj.vertex_groups if vg.name in bone_names}
        if not indices:
            continue
        m = to_arm @ mesh_obj.matrix_world
        for v in mesh_obj.data.vertices:
            if any(g.group in indices and g.weight >= threshold for g in v.groups):
                out.append(tuple(m @ v.co))
    return np.array(out, dtype=np.float64).reshape(-1, 3)


def _fit_section(points, frame, length, shape, default):
    """(size, centre offset in the frame's XY) of a part's cross-section from its weighted
    vertices, or the default when there are too few of them."""
    if len(points) >= 8:
        inv = np.array(frame.inverted_safe())
        local = points @ inv[:3, :3].T + inv[:3, 3]
        local = local[np.abs(local[:, 2]) <= length / 2]
    else:
        local = np.zeros((0, 3))
    if len(local) < 8:
        return list(default), Vector((0, 0, 0))
    if shape == "capsule":
        return [float(np.median(np.hypot(local[:, 0], local[:, 1])))], Vector((0, 0, 0))
    lo, hi = np.percentile(local[:, :2], 5, axis=0), np.percentile(local[:, :2], 95, axis=0)
    centre = (lo + hi) / 2
    return [float(hi[0] - lo[0]), float(hi[1] - lo[1])], Vector((centre[0], centre[1], 0))


def deformed_meshes_by_armature(scene):
    """{armature: [meshes it deforms]} for every armature, in one pass over the scene (for
    making many ragdolls at once)."""
    out = {}
    for o in scene.objects:
        if o.type != 'MESH':
            continue
        for arm in {m.object for m in o.modifiers
                    if m.type == 'ARMATURE' and m.object is not None and m.use_vertex_groups}:
            out.setdefault(arm, []).append(o)
    return out


def plan_parts(scene, arm, mapping, total_mass, meshes=None):
    """PartPlans for `mapping` (a bonemap.Mapping), parents first. `meshes`: the meshes
    `arm` deforms, when known (else found with `deformed_meshes`)."""
    plan = presets.body_plan()
    bones = arm.data.bones
    left, up, forward, height = _character_axes(arm, mapping.parts)
    if meshes is None:
        meshes = deformed_meshes(scene, arm)
    share = sum(plan[bonemap.part_base(p)]["mass"] for p in mapping.parts)
    parts = {}
    for name, chain in mapping.parts.items():
        spec = plan[bonemap.part_base(name)]
        head, tail = bones[chain[0]].head_local, bones[chain[-1]].tail_local
        axis = tail - head
        length = max(axis.length, MIN_SIZE)
        direction = axis.normalized() if axis.length > 1e-9 else up
        frame = _frame((head + tail) / 2, direction, _bend_axis(direction, forward, left))
        default = [s * height for s in spec["size"]]
        size, offset = _fit_section(weighted_points(arm, meshes, set(chain)), frame, length,
                                    spec["shape"], default)
        frame = frame @ Matrix.Translation(offset)
        mass = total_mass * spec["mass"] / share if share > 0 else total_mass / len(mapping.parts)
        part = PartPlan(name, chain, frame, spec["shape"], size + [length], mass)
        parts[name] = part
    for name, part in parts.items():
        part.parent = _mapped_parent(plan, parts, name)
        if part.parent is not None:
            part.joint = _joint_plan(plan[bonemap.part_base(name)], parts[part.parent], part,
                                     arm.pose.bones[part.bones[0]])
    _shrink_overlaps(parts)
    return parts


def _mapped_parent(plan, parts, name):
    """The nearest ancestor part that was mapped (a rig without a chest hangs the head on
    the spine), or the pelvis."""
    parent = bonemap.parent_part(plan, name)
    while parent is not None and parent not in parts:
        parent = bonemap.parent_part(plan, parent)
    if parent is None and name != "pelvis":
        return "pelvis"
    return parent


def _axis(m, i):
    return Vector(m.col[i][:3]).normalized()


def _joint_plan(spec, parent, child, pose_bone):
    """{"type", "frame" (armature space 4x4), limits in radians, "imported"} of the joint
    between `parent` and `child` at the child's first bone head."""
    d_child, d_parent = _axis(child.frame, 2), _axis(parent.frame, 2)
    anchor = pose_bone.bone.head_local.copy()
    bend = _axis(child.frame, 0)
    if spec["joint"] == "hinge":
        hinge = _bone_axis_near(pose_bone.bone, bend) * (1.0 if spec["bend"] == "forward" else -1.0)
        frame = _frame(anchor, hinge, d_child.cross(hinge))   # Z hinge, Y along the bone
        rest_angle = math.atan2(hinge.dot(d_parent.cross(d_child)), d_parent.dot(d_child))
        lower, upper = (math.radians(a) - rest_angle for a in spec["flexion"])
        joint = {"type": 'HINGE', "frame": frame, "lower": lower, "upper": upper}
    else:
        frame = _frame(anchor, bend.cross(d_child), bend)      # Y along the bone, X bend axis
        twist = [math.radians(a) for a in spec["twist"]]
        joint = {"type": 'RAGDOLL', "frame": frame, "swing_bend": math.radians(spec["swing_bend"]),
                 "swing_side": math.radians(spec["swing_side"]), "lower": twist[0],
                 "upper": twist[1]}
    joint["imported"] = _import_limit_rotation(joint, pose_bone)
    return joint


def _bone_axis_near(bone, axis, within=math.radians(25)):
    """The bone's own X or Z axis (signed like `axis`) when one is within `within` of
    `axis`, else `axis`: rigs bend elbows and knees about a bone axis, and a hinge about
    exactly that axis can follow their animation."""
    for i in (0, 2):
        own = Vector(bone.matrix_local.col[i][:3]).normalized()
        if abs(own.dot(axis)) > math.cos(within):
            return own if own.dot(axis) > 0 else -own
    return axis


def _import_limit_rotation(joint, pose_bone):
    """Take the limits of an enabled "Limit Rotation" constraint (local space) on the child
    bone: per bone axis the range about the joint axis it is closest to. Swing cones are
    symmetric, so they take the larger side. Returns True when something was imported."""
    con = next((c for c in pose_bone.constraints if c.type == 'LIMIT_ROTATION' and
                not c.mute and c.influence > 0 and c.owner_space == 'LOCAL'), None)
    if con is None:
        return False
    bone_axes = [Vector(pose_bone.bone.matrix_local.col[i][:3]).normalized() for i in range(3)]
    frame = joint["frame"]

    def limits_about(axis):
        """(lower, upper) of the bone axis parallel to `axis`, signed to it, or None."""
        i = max(range(3), key=lambda k: abs(bone_axes[k].dot(axis)))
        if abs(bone_axes[i].dot(axis)) < 0.7 or not getattr(con, "use_limit_" + "xyz"[i]):
            return None
        lo, hi = getattr(con, "min_" + "xyz"[i]), getattr(con, "max_" + "xyz"[i])
        return (lo, hi) if bone_axes[i].dot(axis) > 0 else (-hi, -lo)

    imported = False
    if joint["type"] == 'HINGE':
        found = limits_about(_axis(frame, 2))
        if found:
            joint["lower"], joint["upper"] = found
            imported = True
        return imported
    for key, i in (("swing_bend", 0), ("swing_side", 2)):
        found = limits_about(_axis(frame, i))
        if found:
            joint[key] = min(max(abs(found[0]), abs(found[1]), math.radians(0.5)),
                             math.radians(179))
            imported = True
    found = limits_about(_axis(frame, 1))
    if found:
        joint["lower"], joint["upper"] = found
        imported = True
    return imported


def _capsule_segment(part):
    half = max(part.size[-1] / 2 - part.size[0], 0.0)
    c, z = part.frame.translation, _axis(part.frame, 2)
    return c - half * z, c + half * z


def _segment_distance(p1, q1, p2, q2):
    """Closest distance between segments p1q1 and p2q2 (sampled: parts are few and short)."""
    ts = np.linspace(0.0, 1.0, 9)
    a = [p1.lerp(q1, t) for t in ts]
    b = [p2.lerp(q2, t) for t in ts]
    return min((u - v).length for u in a for v in b)


def _shrink_overlaps(parts):
    """Capsules of parts that are not jointed together must not overlap at rest (thighs, arms
    against the head): shrink both radii until they clear."""
    caps = [p for p in parts.values() if p.shape == "capsule"]
    for i, a in enumerate(caps):
        for b in caps[i + 1:]:
            if a.parent == b.name or b.parent == a.name:
                continue
            gap = _segment_distance(*_capsule_segment(a), *_capsule_segment(b))
            reach = a.size[0] + b.size[0]
            if gap < 1.02 * reach:
                scale = gap / (1.02 * reach)
                a.size[0] *= scale
                b.size[0] *= scale


# --------------------------------------------------------------------------------------------
# Geometry of the helper meshes (the body's shape is fitted to their bounds)

def capsule_mesh(radius, half_height, segments=12, rings=3):
    """Vertices and faces of a capsule along Z: a cylinder of half height `half_height`
    between hemispherical caps of `radius`."""
    lats = [(-1, k) for k in range(rings - 1, -1, -1)] + [(1, k) for k in range(rings)]
    verts = []
    for side, k in lats:
        phi = (math.pi / 2) * k / rings
        z = side * (half_height + radius * math.sin(phi))
        r = radius * math.cos(phi)
        verts += [(r * math.cos(t), r * math.sin(t), z)
                  for t in (2 * math.pi * s / segments for s in range(segments))]
    bottom, top = len(verts), len(verts) + 1
    verts += [(0, 0, -half_height - radius), (0, 0, half_height + radius)]
    faces = []
    for ring in range(len(lats) - 1):
        for s in range(segments):
            a, b = ring * segments + s, ring * segments + (s + 1) % segments
            faces.append((a, b, b + segments, a + segments))
    last = (len(lats) - 1) * segments
    for s in range(segments):
        faces.append((bottom, (s + 1) % segments, s))
        faces.append((top, last + s, last + (s + 1) % segments))
    return verts, faces


def box_mesh(half):
    hx, hy, hz = half
    verts = [(x * hx, y * hy, z * hz) for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)]
    faces = [(0, 1, 3, 2), (4, 6, 7, 5), (0, 4, 5, 1), (2, 3, 7, 6), (0, 2, 6, 4), (1, 5, 7, 3)]
    return verts, faces


def part_mesh(part, scale):
    """The helper's mesh data for `part` at the armature's world `scale`."""
    length = part.size[-1] * scale
    if part.shape == "capsule":
        radius = max(part.size[0] * scale, MIN_SIZE)
        verts, faces = capsule_mesh(radius, max(length / 2 - radius, MIN_SIZE))
    else:
        verts, faces = box_mesh([max(s / 2, MIN_SIZE) for s in
                                 (part.size[0] * scale, part.size[1] * scale, length)])
    mesh = bpy.data.meshes.new(part.name)
    mesh.from_pydata(verts, [], faces)
    return mesh


# --------------------------------------------------------------------------------------------
# Building and removing in the scene


def uniform_scale(arm):
    s = arm.matrix_world.to_scale()
    if max(s) - min(s) > 1e-4 * max(s) or min(s) <= 0:
        raise ValueError(f"Armature '{arm.name}' has a non-uniform or negative scale "
                         f"{tuple(round(v, 4) for v in s)}; apply the scale (Ctrl A > Scale)")
    return s[0]


def is_ragdoll(arm):
    """Whether `arm` has a ragdoll made from its bones (not only bone chains, which share
    the ragdoll's collection and switches: authoring/chain.py)."""
    rd = arm.ligament_ragdoll
    return rd.enabled and rd.bone_map != ""


def _collection(scene, arm):
    """A new collection for `arm`'s ragdoll inside the collection that holds the armature
    (`ragdolls.home`), so that linking, appending or duplicating the character's collection
    brings its ragdoll along. Not rendered; `set_visible` hides it in the viewport."""
    coll = bpy.data.collections.new(f"Ragdoll {arm.name}")
    coll.hide_render = True
    ragdolls.home(scene, arm).children.link(coll)
    return coll


def move_home(scene, arm):
    """Move `arm`'s ragdoll collection into the collection that holds the armature (files
    made when ragdolls lived in a "Ligament Ragdolls" collection of their own). Returns the
    collection it moved into, or None when there was nothing to move."""
    coll = arm.ligament_ragdoll.collection
    if coll is None or ragdolls.at_home(scene, arm):
        return None
    home = ragdolls.home(scene, arm)
    for parent in [c for c in bpy.data.collections if c.library is None and
                   coll.name in c.children and c.children[coll.name] == coll]:
        parent.children.unlink(coll)
    for sc in bpy.data.scenes:
        if coll.name in sc.collection.children and sc.collection.children[coll.name] == coll:
            sc.collection.children.unlink(coll)
    home.children.link(coll)
    if coll.library is None:
        coll.hide_render = True
    _remove_old_parent()
    set_visible(scene, arm, arm.ligament_ragdoll.show_bodies)
    return home


def _remove_old_parent():
    """The "Ligament Ragdolls" collection of the old layout, once nothing is left in it."""
    parent = bpy.data.collections.get(COLLECTION)
    if parent is not None and parent.library is None and not parent.children and \
            not parent.objects:
        bpy.data.collections.remove(parent)


def layer_collection(view_layer, coll):
    """The view layer's LayerCollection of `coll`, or None."""
    stack = [view_layer.layer_collection]
    while stack:
        lc = stack.pop()
        if lc.collection == coll:
            return lc
        stack.extend(lc.children)
    return None


def set_visible(scene, arm, visible):
    """Show or hide the helper ragdolls.bodies and joints of `arm`'s ragdoll in every view layer
    (hidden helpers still move: the bones' constraints depend on them)."""
    coll = arm.ligament_ragdoll.collection
    if coll is None:
        return
    for view_layer in scene.view_layers:
        lc = layer_collection(view_layer, coll)
        if lc is not None:
            lc.hide_viewport = not visible


def _tag(obj, arm, part, role, bone=""):
    p = obj.ligament_ragdoll_part
    p.armature, p.part, p.role, p.bone = arm, part, role, bone


def target_empty(name, coll, body, world, size):
    """The empty a bone follows (through its Copy Transforms): a child of the helper body
    `body` at the world matrix `world` (the bone's rest), linked into `coll`."""
    target = bpy.data.objects.new(name, None)
    coll.objects.link(target)
    target.empty_display_type = 'PLAIN_AXES'
    target.empty_display_size = size
    target.parent = body
    target.matrix_parent_inverse = Matrix.Identity(4)
    target.matrix_basis = body.matrix_world.inverted() @ world
    return target


def refuse_from_library(arm, what):
    """Refuse `what` on a linked armature or a library override of one: it would change the
    ragdoll's bodies, joints or collection, which are the character file's (Blender does not
    add objects to an overridden collection, and an override does not keep a body's shape or
    a joint's limits: an edit would be lost when the shot is saved)."""
    library = ragdolls.library_of(arm)
    if library is not None:
        raise ValueError(f"Armature '{arm.name}' comes from '{library}': {what} changes its "
                         "ragdoll's bodies and joints, which are read from there. Do it in "
                         "that file and save it; this file gets it when it is opened again")


def create(scene, arm, mapping, total_mass, material=None, meshes=None):
    """Build the ragdoll of `arm` for `mapping`. Returns the PartPlans. On any error every
    object made so far is removed again and the error re-raised. `meshes`: the meshes `arm`
    deforms, when the caller has them (`deformed_meshes_by_armature`)."""
    refuse_from_library(arm, "Ragdoll from Armature")
    scale = uniform_scale(arm)
    parts = plan_parts(scene, arm, mapping, total_mass, meshes)
    _refuse_over_chains(arm, parts)
    made = []
    try:
        _build(scene, arm, mapping, parts, scale, material, made)
    except Exception:
        _delete_objects(made)
        _remove_constraints(arm)
        raise
    return parts


def _refuse_over_chains(arm, parts):
    """A ragdoll over bones a bone chain simulates would give them two Copy Transforms and
    two bodies, and a chain root that follows the animation would pin its ragdoll part (a
    chest held in the air): refused, naming the chains, before anything is made. A chain
    made after the ragdoll hangs from its parts instead (authoring/chain.py)."""
    chained = {}                   # bone: chain root, for the bones chains simulate
    own_root = set()               # roots of chains with a body of their own
    for obj in ragdolls.members(arm, 'TARGET'):
        p = obj.ligament_ragdoll_part
        if p.chain:
            chained[p.bone] = p.chain
            if p.bone == p.chain:
                own_root.add(p.chain)
    ragdoll_bones = {b for part in parts.values() for b in part.bones}
    clash = {}
    for bone, root in chained.items():
        if bone in ragdoll_bones:
            clash.setdefault(root, []).append(bone)
    for root in own_root - set(clash):
        b = arm.data.bones[root].parent if root in arm.data.bones else None
        while b is not None and b.name not in ragdoll_bones:
            b = b.parent
        if b is not None:
            clash[root] = [b.name]
    if clash:
        chains = "; ".join(f"the chain rooted at '{root}' ({', '.join(sorted(bones))})"
                           for root, bones in sorted(clash.items()))
        raise ValueError(f"its bone chains meet bones the ragdoll would simulate: {chains}. "
                         "Nothing was made: remove those bone chains first (Bone properties > "
                         "Ligament > Remove Bone Chain), make the ragdoll, then add them again "
                         "and they hang from the ragdoll's parts")


def _build(scene, arm, mapping, parts, scale, material, made):
    coll = arm.ligament_ragdoll.collection    # the armature's bone chains' (kept)
    if coll is None:
        coll = _collection(scene, arm)
        made.append(coll)
    world = arm.matrix_world
    helpers, targets = {}, {}
    for part in parts.values():
        # built where the pose shows the part's bones at rest, their pose scale included
        # (`ragdolls.body_carry`: the simulation builds the world there too)
        carry = ragdolls.scaled_rest(arm, part.bones[0])
        posed = scale if carry == Matrix.Identity(4) else \
            scale * (carry @ arm.data.bones[part.bones[0]].matrix_local).to_scale().y
        obj = bpy.data.objects.new(f"{arm.name} {part.name}", part_mesh(part, posed))
        made.append(obj)
        coll.objects.link(obj)
        obj.rotation_mode = 'QUATERNION'
        obj.matrix_world = ragdolls.rigid(world @ carry @ part.frame)
        obj.display_type = 'WIRE'
        obj.hide_render = True
        s = obj.ligament_body
        s.shape = 'CAPSULE' if part.shape == "capsule" else 'BOX'
        s.mass = part.mass
        s.linear_damping, s.angular_damping = LINEAR_DAMPING, ANGULAR_DAMPING
        if material is not None:
            s.friction, s.restitution = material["friction"], material["bounciness"]
        s.enabled = True
        _tag(obj, arm, part.name, 'BODY', part.bones[0])
        obj.ligament_ragdoll_part.mass_share = part.mass / max(
            sum(p.mass for p in parts.values()), 1e-12)
        obj.ligament_ragdoll_part.rest_frame = [v for row in part.frame for v in row]
        helpers[part.name] = obj
        for bone in part.bones:
            # the target carries the bone's pose scale: the bone copying it keeps its size
            target = target_empty(
                f"{arm.name} {bone} target", coll, obj,
                world @ ragdolls.scaled_rest(arm, bone) @ arm.data.bones[bone].matrix_local,
                0.05 * scale)
            made.append(target)
            _tag(target, arm, part.name, 'TARGET', bone)
            targets[bone] = target
    for part in parts.values():
        if part.joint is not None:
            made.append(_joint_empty(coll, arm, part, helpers, scale))
    first = None
    for part in parts.values():
        for bone in part.bones:
            constraints = arm.pose.bones[bone].constraints
            if first is None:
                first = con = constraints.new('COPY_TRANSFORMS')
                con.name = CONSTRAINT
            else:
                # A copy keeps the name: renaming a constraint fixes animation paths in every
                # datablock of the file, which made a crowd of ragdolls O(N^2) to build
                con = constraints.copy(first)
            con.target = targets[bone]
    rd = arm.ligament_ragdoll
    rd.collection = coll
    rd.bone_map = mapping.key
    rd.total_mass = sum(p.mass for p in parts.values())
    rd.enabled = True
    set_visible(scene, arm, False)
    sync_constraints(scene, arm)


def _joint_empty(coll, arm, part, helpers, scale):
    j = part.joint
    empty = bpy.data.objects.new(f"{arm.name} {part.name} joint", None)
    coll.objects.link(empty)
    empty.empty_display_type = 'ARROWS'
    empty.empty_display_size = 0.1 * scale
    parent = helpers[part.parent]
    empty.parent = parent
    empty.matrix_parent_inverse = Matrix.Identity(4)
    empty.matrix_basis = parent.matrix_world.inverted() @ ragdolls.rigid(
        arm.matrix_world @ ragdolls.scaled_rest(arm, part.bones[0]) @ j["frame"])
    js = empty.ligament_joint
    js.type = j["type"]
    js.object_a, js.object_b = parent, helpers[part.name]
    js.disable_collisions = True
    js.use_limit_ang = True
    js.limit_ang_lower, js.limit_ang_upper = j["lower"], j["upper"]
    if j["type"] == 'RAGDOLL':
        js.swing_1, js.swing_2 = j["swing_bend"], j["swing_side"]
    js.enabled = True
    _tag(empty, arm, part.name, 'JOINT')
    return empty


def _delete_objects(items):
    for item in reversed(items):
        try:
            if isinstance(item, bpy.types.Collection):
                bpy.data.collections.remove(item)
                continue
            data = item.data
            bpy.data.objects.remove(item)
            if data is not None and data.users == 0:
                bpy.data.meshes.remove(data)
        except ReferenceError:
            pass


def _remove_constraints(arm):
    for pb in arm.pose.bones:
        for con in [c for c in pb.constraints if c.name.startswith(CONSTRAINT)]:
            pb.constraints.remove(con)


def remove(scene, arm):
    """Delete the ragdoll of `arm`: helpers, joints, targets, constraints, collection. A baked
    ragdoll keeps its bake as the armature's animation, and so does its control rig; the
    actions from before the bake get a fake user (`scene.bakes.keep_bake`). Returns
    [(armature name, kept action name or None)] of the baked ones."""
    library = ragdolls.library_of(arm)
    if library is not None:
        raise ValueError(f"Armature '{arm.name}' comes from '{library}': its ragdoll is read "
                         "from there, and a library override cannot keep it removed. To "
                         "stop simulating it here, switch off its Simulated; to remove it, "
                         "do it in that file")
    kept = []
    for obj in dict.fromkeys((arm, arm.ligament_ragdoll.control_rig)):
        if obj is not None and obj.type == 'ARMATURE' and obj.ligament_ragdoll.baked:
            kept.append((obj.name, bakes.keep_bake(obj.ligament_ragdoll)))
    coll = arm.ligament_ragdoll.collection
    objs = ragdolls.members(arm)
    _remove_constraints(arm)
    _delete_objects(objs)
    if coll is not None and not coll.all_objects:
        bpy.data.collections.remove(coll)
    _remove_old_parent()
    for pb in arm.pose.bones:     # its bone chains went with it
        pb.ligament_chain.enabled = False
    rd = arm.ligament_ragdoll
    rd.enabled = False
    rd.collection = None
    return kept


def sync_constraints(scene, arm):
    """Bones follow the helpers only while the simulation drives them: not when the world is
    off or the ragdoll is baked (then the armature plays its own action)."""
    active = scene.ligament_world.enabled and arm.ligament_ragdoll.enabled and \
        not arm.ligament_ragdoll.baked
    for pb in arm.pose.bones:
        for con in pb.constraints:
            if con.name.startswith(CONSTRAINT) and con.mute == active:
                con.mute = not active


def set_total_mass(arm):
    """Share the ragdoll's total mass out over its ragdolls.bodies (after a change of the total)."""
    total = arm.ligament_ragdoll.total_mass
    for obj in ragdolls.bodies(arm):
        if obj.ligament_ragdoll_part.chain:     # a bone chain's capsules keep their own
            continue
        obj.ligament_body.mass = max(total * obj.ligament_ragdoll_part.mass_share, 1e-4)


# --------------------------------------------------------------------------------------------
# Characters copied: a duplicate of a ragdolled armature that Blender's duplicate left
# following another armature's ragdoll gets one of its own

def borrowed_from(arm):
    """The other armatures whose ragdoll helpers `arm`'s bones follow (a copy of a ragdolled
    armature duplicated without its ragdoll: Blender points the copy's bone constraints at
    the original's targets), by name order."""
    out = {}
    for pb in arm.pose.bones:
        for con in pb.constraints:
            if not con.name.startswith(CONSTRAINT) or getattr(con, "target", None) is None:
                continue
            owner = con.target.ligament_ragdoll_part.armature
            if owner is not None and owner != arm:
                out[owner.name] = owner
    return [out[k] for k in sorted(out)]


def make_own(scene, arm):
    """Give `arm` a ragdoll of its own: a copy of the ragdoll its bones borrow (its tuning
    kept: shapes, masses, limits, bone chains), placed on `arm`; its own ragdoll collection
    linked into the armature's collection when it exists but is not in the scene (appended
    with the old layout); or, when there is none (its bodies were lost), a new one from its
    bone map. Returns the armature copied from, or None."""
    sources = [s for s in borrowed_from(arm) if ragdolls.members(s)]
    if sources:
        copy_ragdoll(scene, sources[0], arm)
        return sources[0]
    rd = arm.ligament_ragdoll
    if ragdolls.bodies(arm) and not ragdolls.at_home(scene, arm):
        move_home(scene, arm)      # its own, brought along but not in the scene: link it
        return None
    if not rd.bone_map:
        raise ValueError(f"Armature '{arm.name}' has no ragdoll to copy and no bone map to "
                         "make one from; remove its ragdoll and make it again")
    _remove_constraints(arm)
    total, key = rd.total_mass, rd.bone_map
    rd.enabled, rd.collection = False, None
    create(scene, arm, bonemap.choose(armature_bones(arm), key), total)
    return None


def copy_ragdoll(scene, src, arm):
    """Copy `src`'s ragdoll helpers (bodies, targets, joints) for `arm`, a copy of `src`
    with the same bones: in a collection of `arm`'s own, its bodies at `arm`'s rest pose,
    its bones' constraints pointed at the copies."""
    uniform_scale(arm)
    members = ragdolls.members(src)
    missing = {o.ligament_ragdoll_part.bone for o in members
               if o.ligament_ragdoll_part.role == 'TARGET'} - set(arm.data.bones.keys())
    if missing:
        raise ValueError(f"Armature '{arm.name}' has no bone '{sorted(missing)[0]}' of the "
                         f"ragdoll of '{src.name}'; make a ragdoll of its own instead")
    made = []
    try:
        coll = _collection(scene, arm)
        made.append(coll)
        copies = {}
        for o in members:
            c = o.copy()
            made.append(c)
            if o.name.startswith(src.name):
                c.name = arm.name + o.name[len(src.name):]
            coll.objects.link(c)
            copies[o] = c
        for o, c in copies.items():
            if o.parent in copies:
                c.parent = copies[o.parent]
            c.ligament_ragdoll_part.armature = arm
            js = c.ligament_joint
            js.object_a = copies.get(js.object_a, js.object_a)
            js.object_b = copies.get(js.object_b, js.object_b)
            s = c.ligament_body
            s.rest_valid = s.sim_pose = s.baked = False
            if c.parent is None and c.ligament_ragdoll_part.role == 'BODY':
                v = c.ligament_ragdoll_part.rest_frame
                c.matrix_world = ragdolls.rigid(
                    arm.matrix_world @ ragdolls.body_carry(arm, c) @
                    Matrix([v[0:4], v[4:8], v[8:12], v[12:16]]))
        for pb in arm.pose.bones:
            for con in pb.constraints:
                if con.name.startswith(CONSTRAINT) and con.target in copies:
                    con.target = copies[con.target]
    except Exception:
        _delete_objects(made)
        raise
    rd = arm.ligament_ragdoll
    rd.collection = coll
    rd.enabled = True
    rd.baked = False
    set_visible(scene, arm, rd.show_bodies)
    sync_constraints(scene, arm)


def adopt_stored_switches(arm):
    """Give the pose bones of `arm` (local, or a library override) the settings a file made
    before kept in their property groups (each bone's switches, a bone chain's spring and
    gravity: `ragdolls.MOVED_TO_POSE_BONE`), so that the panels show them; one set through
    the override or by hand is kept. Returns how many were moved."""
    moved = 0
    for pb in arm.pose.bones:
        for own, value in ragdolls.stored_before(pb).items():
            setattr(pb, own, value)
            moved += 1
    return moved
