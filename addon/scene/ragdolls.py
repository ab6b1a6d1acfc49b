"""Ragdolls as the simulation reads them: which armatures have one, and their helper objects
(bodies, targets, joints) by role. Making and removing them is authoring/ragdoll.py."""

import bpy
from mathutils import Matrix


def rigid(m):
    """`m` without its scale (unit axes), as a 4x4."""
    loc, rot, _ = m.decompose()
    return Matrix.LocRotScale(loc, rot, None)


def scaled_rest(arm, name, scale_of=None):
    """What carries a rest frame of bone `name` (armature space) to the bone at rest with
    the pose's scale (its own and its ancestors', inherited): where a bone chain is built,
    so that its joints join bones of the size the pose shows while its joint angles still
    count from the rest pose. `scale_of(bone name)`: the pose bone's scale channels (its
    current ones if None). The identity when no bone up the chain is scaled."""
    bones = arm.data.bones
    pose = arm.pose.bones
    scale_of = scale_of or (lambda n: pose[n].scale)
    chain = []
    b = bones[name]
    while b is not None:
        chain.append(b)
        b = b.parent
    scales = [tuple(scale_of(b.name)) for b in chain]
    if all(abs(v - 1.0) < 1e-9 for sc in scales for v in sc):
        return Matrix.Identity(4)
    m = Matrix.Identity(4)
    for b, sc in zip(reversed(chain), reversed(scales)):
        link = b.parent.matrix_local.inverted() @ b.matrix_local if b.parent is not None \
            else b.matrix_local
        m = m @ link @ Matrix.Diagonal((*sc, 1.0))
    return m @ bones[name].matrix_local.inverted()


def body_carry(arm, body, scale_of=None):
    """What carries the rest frame of the helper `body` (its `rest_frame`) to where the
    simulation builds it: `scaled_rest` of its bone (a chain body's own bone, a ragdoll
    part's first bone), so that bodies, joints and targets have the size the pose shows. The
    identity for a ragdoll body that does not name its bone (made before: built at rest)."""
    p = body.ligament_ragdoll_part
    bone = p.part if p.chain else p.bone
    if bone and bone in arm.data.bones:
        return scaled_rest(arm, bone, scale_of)
    return Matrix.Identity(4)


def members(arm, role=None):
    """The ragdoll's helper objects (all roles, or only 'BODY', 'TARGET' or 'JOINT')."""
    coll = arm.ligament_ragdoll.collection
    if coll is None:
        return []
    return [o for o in coll.all_objects if o.ligament_ragdoll_part.armature == arm and
            (role is None or o.ligament_ragdoll_part.role == role)]


def members_by_role(arm, roles):
    """The ragdoll's helper objects of each role in `roles`, as lists in that order, in one
    pass over its collection (each helper's settings read once)."""
    out = {role: [] for role in roles}
    coll = arm.ligament_ragdoll.collection
    if coll is not None:
        for o in coll.all_objects:
            p = o.ligament_ragdoll_part
            if p.armature == arm:
                found = out.get(p.role)
                if found is not None:
                    found.append(o)
    return [out[role] for role in roles]


def bodies(arm):
    return members(arm, 'BODY')


def armatures(scene):
    """Armatures of `scene` that have a ragdoll."""
    return [o for o in scene.objects if o.type == 'ARMATURE' and o.ligament_ragdoll.enabled]


def home(scene, arm):
    """The collection that holds `arm` (its first one that is not a scene's own), where its
    ragdoll's collection belongs; the scene's collection for an armature at the top.

    `Object.users_collection` would list them, but it is Python that makes every object of
    every collection, the scene's too (a crowd's build asks for each armature: quadratic);
    a lookup by name in each collection is one C call, and an object of the same name from
    another library is told apart by looking at all of that collection's."""
    name = arm.name
    for c in bpy.data.collections:
        found = c.objects.get(name)
        if found is not None and (found == arm or arm in c.objects[:]):
            return c
    return scene.collection


def at_home(scene, arm):
    """Whether `arm`'s ragdoll collection sits inside the collection that holds it (as a
    child, the usual place, or deeper)."""
    coll = arm.ligament_ragdoll.collection
    if coll is None:
        return True
    place = home(scene, arm)
    return place.children.get(coll.name) == coll or coll in place.children_recursive


BONE_SWITCHES = ("simulated", "drive_strength")
# A bone chain's settings a shot tunes, `PoseBone.ligament_chain_<key>` on its root bone
CHAIN_SETTINGS = ("stiffness", "damping", "gravity_factor")
# Settings that are properties of the pose bone itself (a library override keeps them) and
# the property group files made before kept each in: {own name: (group, key in the group)}
MOVED_TO_POSE_BONE = {**{"ligament_" + k: ("ligament_ragdoll", k) for k in BONE_SWITCHES},
                      **{"ligament_chain_" + k: ("ligament_chain", k) for k in CHAIN_SETTINGS}}


def stored_group(owner, name):
    """What the property group `name` of `owner` holds in the file, as a dict, whether or not
    its properties are registered now (5.0 keeps registered properties apart from custom
    ones)."""
    system = getattr(owner, "bl_system_properties_get", None)
    props = system() if system is not None else owner
    group = props.get(name) if props is not None else None
    return group.to_dict() if hasattr(group, "to_dict") else {}


def stored_before(pb):
    """{own name: value} of the settings of `MOVED_TO_POSE_BONE` a file made before kept in
    the pose bone's groups and the pose bone's own property does not hold (unset)."""
    groups = {}
    out = {}
    for own, (group, key) in MOVED_TO_POSE_BONE.items():
        if group not in groups:
            groups[group] = stored_group(pb, group)
        if key in groups[group] and not pb.is_property_set(own):
            out[own] = type(getattr(pb, own))(groups[group][key])
    return out


def bone_setting(pb, own):
    """A setting of `MOVED_TO_POSE_BONE` of pose bone `pb`: its own property `own`, or, while
    that is unset, what a file made before kept in the pose bone's group (a character linked
    from such a file keeps its settings)."""
    if not pb.is_property_set(own):
        group, key = MOVED_TO_POSE_BONE[own]
        old = stored_group(pb, group)
        if key in old:
            return type(getattr(pb, own))(old[key])
    return getattr(pb, own)


def bone_switch(pb, key):
    """A ragdoll bone's switch ("simulated" or "drive_strength"), `bone_setting`."""
    return bone_setting(pb, "ligament_" + key)


def chain_setting(pb, key):
    """A bone chain's setting of `CHAIN_SETTINGS` on its root pose bone, `bone_setting`."""
    return bone_setting(pb, "ligament_chain_" + key)


def group_missing_in_library(obj, name):
    """The library file of `obj`, a library override, when the object it overrides was saved
    without the property group `name` (by an older Ligament): the override cannot keep a
    change to it (Blender stores an override as differences from the library's properties,
    and a group the library lacks as a whole, which it cannot load). None otherwise."""
    ov = obj.override_library
    ref = ov.reference if ov is not None else None
    if ref is None or ref.library is None:
        return None
    if group_saved(ref, name):
        return None
    return ref.library.filepath


def group_saved(owner, name):
    """Whether `owner` holds the property group `name` with a value in it, as `keep_groups`
    saves it. Blender before 5.0 makes a group on an ID as soon as its properties are read
    (making a library override reads those of the linked ID too), holding only empty
    entries, so a group's presence does not tell that a file kept it."""
    system = getattr(owner, "bl_system_properties_get", None)
    props = system() if system is not None else owner
    group = props.get(name) if props is not None else None
    if group is None:
        return False
    if not hasattr(group, "to_dict"):
        return True
    return any(value != {} for value in group.to_dict().values())


def keep_groups(arm):
    """Store the property groups a library override of `arm` may change (see
    `group_missing_in_library`) in the file `arm` is saved in."""
    if not group_saved(arm, "ligament_motion"):
        motion = arm.ligament_motion
        motion.show_drawing = motion.show_drawing      # a write stores a value in the group


def library_of(obj):
    """The file `obj` comes from when it is linked or a library override of a linked object
    (its library's path as the file names it), else None."""
    if obj.library is not None:
        return obj.library.filepath
    ov = obj.override_library
    if ov is not None and ov.reference is not None and ov.reference.library is not None:
        return ov.reference.library.filepath
    return None
