"""Ragdolls as the simulation reads them: which armatures have one, and their helper objects
(bodies, targets, joints) by role. Making and removing them is authoring/ragdoll.py."""

from mathutils import Matrix


def rigid(m):
    """`m` without its scale (unit axes), as a 4x4."""
    loc, rot, _ = m.decompose()
    return Matrix.LocRotScale(loc, rot, None)


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
