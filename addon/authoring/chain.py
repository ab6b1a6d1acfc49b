"""Dynamic bone chains (tails, hair strands, ears, jiggle): each bone below a chain's root a
capsule jointed to its parent by a ragdoll (swing/twist) joint sprung toward the animated pose
(the rest pose where the bones are not keyed), the root bone a kinematic capsule that follows
the armature's animation.

A chain is made of the same helper objects as a ragdoll (world/ragdolls.py runs both): they
live in the armature's ragdoll collection (made when the armature has no ragdoll yet) and are
tagged with `ligament_ragdoll_part.chain` = the chain's root bone, whose pose bone holds the
chain's settings (`PoseBone.ligament_chain`). A chain whose root bone already belongs to a
ragdoll part, or one of whose ancestors does, hangs from that part (a tail on the pelvis,
a strand on the head) instead of a root body of its own that follows the animation.

Frames: a bone's body frame is the bone's rest matrix in armature space moved to the bone's
middle with Z along the bone (the capsule's axis); its joint empty sits at the bone's head with
Y along the bone (the ragdoll joint's twist axis), X the bone's X axis.

A chain is built where Blender shows the bones when it is made (their evaluated pose, scale
included: a chain under a bone scaled 1.5 in the pose is 1.5 times as long): the helpers
are placed at the posed frames, the capsules sized to the posed bones, and the target
empties carry the bones' pose scale, so the bones copying them keep their size.
"""

import math

import bpy
from mathutils import Matrix, Vector

from . import ragdoll
from ..scene import ragdolls

# name: (stiffness Hz, damping ratio, gravity factor, radius as a fraction of the chain's
# mean bone length, swing limit deg, twist limit deg). The stiffness is each joint's, for
# the part of the chain it carries (world/ragdolls.py, chain_scales); a chain's slowest
# sway is slower (about a third of it for five bones), and damped less, so the dampings are
# high. Hair: soft, hangs and trails without wobbling (1.5 Hz, damping 1, gravity 1); tail:
# holds its shape against half of gravity and whips with an overshoot or two (3 Hz, damping
# 0.7, gravity 0.5); jiggle: fast and bouncy, no gravity (6 Hz, damping 0.3, gravity 0).
PRESETS = {
    'HAIR': (1.5, 1.0, 1.0, 0.15, 80.0, 10.0),
    'TAIL': (3.0, 0.7, 0.5, 0.25, 60.0, 15.0),
    'JIGGLE': (6.0, 0.3, 0.0, 0.35, 30.0, 5.0),
}
DENSITY = 1000.0          # kg/m^3 of the capsules (water: flesh, hair tufts)
ROOT_SIMULATED = "ligament_chain_root_simulated"   # pose bone: its Simulated before the chain
MIN_SIZE = ragdoll.MIN_SIZE


def apply_preset(settings, preset):
    """Set a chain's stiffness, damping, gravity factor and limits from a preset (the
    radius depends on the bones: `create` sets it)."""
    if preset not in PRESETS:
        raise ValueError(f"Unknown bone chain preset {preset!r}; use one of "
                         f"{', '.join(PRESETS)}")
    hz, zeta, gravity, _, swing, twist = PRESETS[preset]
    settings.stiffness, settings.damping, settings.gravity_factor = hz, zeta, gravity
    settings.swing_limit, settings.twist_limit = swing, twist


def chains_of(bones, selected):
    """[(root, [bones below it, parents first])] of the selected bones: each selected bone
    whose parent is not selected roots a chain of its selected descendants. `bones`: the
    armature's bones (data), `selected`: names."""
    chosen = set(selected)
    out = []
    for name in selected:
        bone = bones[name]
        if bone.parent is not None and bone.parent.name in chosen:
            continue
        members, todo = [], list(bone.children)
        while todo:
            child = todo.pop(0)
            if child.name in chosen:
                members.append(child.name)
                todo.extend(child.children)
        out.append((name, members))
    return out


def body_frame(bone):
    """The bone's body frame in armature space: its rest matrix with Y turned onto Z (the
    capsule's axis), at the bone's middle."""
    m = bone.matrix_local @ Matrix.Rotation(-math.pi / 2, 4, 'X')   # bone Y -> frame Z
    m.translation = (bone.head_local + bone.tail_local) / 2
    return m


def joint_frame(bone):
    """The joint at the bone's head: Y along the bone (twist), X the bone's X axis."""
    m = bone.matrix_local.copy()
    m.translation = bone.head_local
    return m


def capsule_size(bone, radius):
    """(radius, half height) of a bone's capsule spanning head to tail, the radius at most a
    third of the bone's length."""
    r = max(min(radius, bone.length / 3), MIN_SIZE)
    return r, max(bone.length / 2 - r, MIN_SIZE)


def _part_of_bone(arm, bone):
    """The ragdoll helper body whose targets include `bone` or its nearest ancestor that has
    one (a chain on a finger hangs from the ragdoll's hand), or None."""
    owner = {obj.ligament_ragdoll_part.bone: obj.parent
             for obj in ragdolls.members(arm, 'TARGET') if obj.parent is not None}
    b = arm.data.bones[bone]
    while b is not None:
        if b.name in owner:
            return owner[b.name]
        b = b.parent
    return None


def create(scene, arm, bones, preset='HAIR', radius=None):
    """Make a chain for each selected chain of `bones` (names) of `arm` (see `chains_of`).
    Returns [(root, bone count)]. On any error everything made is removed again."""
    ragdoll.refuse_from_library(arm, "Add Bone Chain")
    if arm.mode == 'EDIT':
        raise ValueError(f"Armature '{arm.name}' is in Edit Mode; leave it first")
    scale = ragdoll.uniform_scale(arm)
    missing = [b for b in bones if b not in arm.data.bones]
    if missing:
        raise ValueError(f"Armature '{arm.name}' has no bone {missing[0]!r}")
    chains = [(root, members) for root, members in chains_of(arm.data.bones, bones) if members]
    if not chains:
        raise ValueError(f"Armature '{arm.name}': select a bone with children (or the bones of "
                         "a chain, the root first); a chain needs at least two bones")
    taken = {o.ligament_ragdoll_part.bone for o in ragdolls.members(arm, 'TARGET')}
    for root, members in chains:
        clash = [b for b in members if b in taken]
        if clash:
            raise ValueError(f"Bone '{clash[0]}' of armature '{arm.name}' is simulated already "
                             "(a ragdoll part or another chain); remove that first")
    made, rd = [], arm.ligament_ragdoll
    new_container = not rd.enabled
    try:
        if new_container:
            coll = ragdoll._collection(scene, arm)
            made.append(coll)
            rd.collection = coll
            rd.bone_map = ""
            rd.enabled = True
        for root, members in chains:
            _build_chain(scene, arm, root, members, preset, radius, scale, made)
    except Exception:
        ragdoll._delete_objects(made)
        for root, members in chains:
            _remove_chain_constraints(arm, members)
            _give_back_root(arm.pose.bones[root], False)
        if new_container:
            rd.enabled, rd.collection = False, None
        raise
    ragdoll.set_visible(scene, arm, rd.show_bodies)
    ragdoll.sync_constraints(scene, arm)
    return [(root, len(members)) for root, members in chains]


def _mean_length(arm, names):
    return sum(arm.data.bones[n].length for n in names) / len(names)


def _build_chain(scene, arm, root, members, preset, radius, scale, made):
    settings = arm.pose.bones[root].ligament_chain
    settings.enabled = True
    apply_preset(settings, preset)
    if radius is None:
        radius = PRESETS.get(preset, PRESETS['HAIR'])[3] * _mean_length(arm, members)
    settings.radius = radius
    coll = arm.ligament_ragdoll.collection
    helpers = {}
    root_body = _part_of_bone(arm, root)
    if root_body is None:
        root_body = _helper(coll, arm, root, root, radius, scale, made)
        switch = arm.pose.bones[root]
        switch[ROOT_SIMULATED] = switch.ligament_simulated     # given back on removal
        switch.ligament_simulated = False   # follows the animation
    helpers[root] = root_body
    for name in members:
        helpers[name] = _helper(coll, arm, name, root, radius, scale, made)
        parent = arm.data.bones[name].parent.name
        made.append(_joint(coll, arm, name, root, helpers[parent], helpers[name], settings,
                           scale))
        con = arm.pose.bones[name].constraints.new('COPY_TRANSFORMS')
        con.name = ragdoll.CONSTRAINT
        con.target = next(o for o in helpers[name].children
                          if o.ligament_ragdoll_part.role == 'TARGET')


def _posed(arm, name):
    """The bone's world matrix as Blender shows it now (its evaluated pose, scale included)."""
    return arm.matrix_world @ arm.pose.bones[name].matrix


def _posed_frame(arm, name, frame):
    """`frame` (armature space, at rest) where the pose shows bone `name`, without scale."""
    bone = arm.data.bones[name]
    return ragdolls.rigid(_posed(arm, name) @ bone.matrix_local.inverted() @ frame)


def _bone_scale(world):
    """How many times its rest length a bone's world matrix shows it (along the bone): the
    armature's scale times the pose's."""
    return world.to_scale().y


def _helper(coll, arm, bone_name, root, radius, scale, made):
    """The helper body of one bone (its capsule) and the target empty the bone copies, at the
    bone's pose and of its posed size (`scale`: the armature's, which the pose's scale of the
    bone multiplies)."""
    bone = arm.data.bones[bone_name]
    frame = body_frame(bone)
    posed = _posed(arm, bone_name)
    scale = _bone_scale(posed)
    obj = bpy.data.objects.new(f"{arm.name} {bone_name} chain", _capsule(bone, radius, scale))
    made.append(obj)
    coll.objects.link(obj)
    obj.rotation_mode = 'QUATERNION'
    obj.matrix_world = _posed_frame(arm, bone_name, frame)
    obj.display_type = 'WIRE'
    obj.hide_render = True
    r, half = capsule_size(bone, radius)
    s = obj.ligament_body
    s.shape = 'CAPSULE'
    s.mass = max(DENSITY * math.pi * (r * scale) ** 2 * (2 * half * scale + 4 / 3 * r * scale),
                 1e-4)
    s.linear_damping, s.angular_damping = 0.0, 0.0
    s.enabled = True
    p = obj.ligament_ragdoll_part
    p.armature, p.part, p.role, p.bone, p.chain = arm, bone_name, 'BODY', "", root
    p.rest_frame = [v for row in frame for v in row]
    # the target carries the bone's pose scale: the bone copying it keeps its size
    target = ragdoll.target_empty(f"{arm.name} {bone_name} chain target", coll, obj, posed,
                                  0.02 * scale)
    made.append(target)
    t = target.ligament_ragdoll_part
    t.armature, t.part, t.role, t.bone, t.chain = arm, bone_name, 'TARGET', bone_name, root
    return obj


def _built_world(arm, helper):
    """A helper body's world matrix where the simulation builds it (world/ragdolls.py,
    reference_matrix): its rest frame with the armature at rest and the pose's scale (a
    ragdoll part may be moved by the simulation now)."""
    v = helper.ligament_ragdoll_part.rest_frame
    frame = Matrix([v[0:4], v[4:8], v[8:12], v[12:16]])
    return ragdolls.rigid(arm.matrix_world @ ragdolls.body_carry(arm, helper) @ frame)


def _capsule(bone, radius, scale):
    r, half = capsule_size(bone, radius)
    verts, faces = ragdoll.capsule_mesh(r * scale, half * scale, segments=8, rings=2)
    mesh = bpy.data.meshes.new(f"{bone.name} chain")
    mesh.from_pydata(verts, [], faces)
    return mesh


def _joint(coll, arm, name, root, parent, child, settings, scale):
    empty = bpy.data.objects.new(f"{arm.name} {name} chain joint", None)
    coll.objects.link(empty)
    empty.empty_display_type = 'ARROWS'
    empty.empty_display_size = 0.05 * scale
    empty.parent = parent
    empty.matrix_parent_inverse = Matrix.Identity(4)
    # the joint where the simulation builds it: both bones at rest with the pose's scale
    empty.matrix_basis = _built_world(arm, parent).inverted() @ ragdolls.rigid(
        arm.matrix_world @ ragdolls.scaled_rest(arm, name) @ joint_frame(arm.data.bones[name]))
    js = empty.ligament_joint
    js.type = 'RAGDOLL'
    js.object_a, js.object_b = parent, child
    js.disable_collisions = True
    js.use_limit_ang = True
    twist = math.radians(settings.twist_limit)
    js.limit_ang_lower, js.limit_ang_upper = -twist, twist
    js.swing_1 = js.swing_2 = math.radians(settings.swing_limit)
    js.enabled = True
    p = empty.ligament_ragdoll_part
    p.armature, p.part, p.role, p.chain = arm, name, 'JOINT', root
    return empty


def chain_roots(arm):
    """Root bones of `arm`'s chains."""
    return [pb.name for pb in arm.pose.bones if pb.ligament_chain.enabled]


def chain_of_bone(arm, bone):
    """The root bone of the chain `bone` belongs to (its root or a simulated member), or
    None."""
    pb = arm.pose.bones.get(bone)
    if pb is not None and pb.ligament_chain.enabled:
        return bone
    for obj in ragdolls.members(arm, 'TARGET'):
        p = obj.ligament_ragdoll_part
        if p.bone == bone and p.chain:
            return p.chain
    return None


def _remove_chain_constraints(arm, names):
    for name in names:
        pb = arm.pose.bones.get(name)
        if pb is None:
            continue
        for con in [c for c in pb.constraints if c.name.startswith(ragdoll.CONSTRAINT)]:
            pb.constraints.remove(con)


def remove(scene, arm, root):
    """Delete the chain rooted at `root`: its helpers, joints and bone constraints. The
    armature's ragdoll container goes too when nothing else is left in it."""
    ragdoll.refuse_from_library(arm, "Remove Bone Chain")
    objs = [o for o in ragdolls.members(arm) if o.ligament_ragdoll_part.chain == root]
    bones = [o.ligament_ragdoll_part.bone for o in objs
             if o.ligament_ragdoll_part.role == 'TARGET']
    own_root = root in bones           # not hung from a ragdoll part
    _remove_chain_constraints(arm, [b for b in bones if b != root])
    ragdoll._delete_objects(objs)
    pb = arm.pose.bones.get(root)
    if pb is not None:
        _give_back_root(pb, own_root)
    if not ragdolls.members(arm):
        ragdoll.remove(scene, arm)


def _give_back_root(pb, own_root):
    """The chain's root bone as it was before the chain: its Simulated switch as the user
    had it (a chain whose root follows the animation turned it off)."""
    pb.ligament_chain.enabled = False
    if ROOT_SIMULATED in pb:
        pb.ligament_simulated = bool(pb[ROOT_SIMULATED])
        del pb[ROOT_SIMULATED]
    elif own_root:                     # made before the switch was kept
        pb.ligament_simulated = True


def set_radius(arm, root):
    """Give the chain's capsules the radius of its settings (their meshes made again)."""
    radius = arm.pose.bones[root].ligament_chain.radius
    ragdoll.uniform_scale(arm)
    for obj in ragdolls.bodies(arm):
        p = obj.ligament_ragdoll_part
        if p.chain != root or p.part not in arm.data.bones:
            continue
        # the size the chain was made at: its target carries the bone's world scale
        target = next((c for c in obj.children if c.ligament_ragdoll_part.role == 'TARGET'),
                      None)
        scale = _bone_scale(target.matrix_basis) if target is not None else \
            ragdoll.uniform_scale(arm)
        old = obj.data
        obj.data = _capsule(arm.data.bones[p.part], radius, scale)
        if old.users == 0:
            bpy.data.meshes.remove(old)


def set_limits(arm, root):
    """The chain's joints' swing and twist limits from its settings."""
    settings = arm.pose.bones[root].ligament_chain
    for obj in ragdolls.members(arm, 'JOINT'):
        if obj.ligament_ragdoll_part.chain != root:
            continue
        js = obj.ligament_joint
        twist = math.radians(settings.twist_limit)
        js.limit_ang_lower, js.limit_ang_upper = -twist, twist
        js.swing_1 = js.swing_2 = math.radians(settings.swing_limit)
