"""The joints of one check and what several checks read of them: each joint's pair of
objects (read once), and the groups of bodies joints tie together."""

import functools


def joint_pairs(joints):
    """[(empty, its settings, type, object A, object B)] of `joints`: read once for a
    `JointList` (the anchor, mass-ratio and falling checks each walk every joint's pair)."""
    if isinstance(joints, JointList):
        return joints.pairs
    return read_pairs(joints)


def read_pairs(joints):
    rows = []
    for e in joints:
        js = e.ligament_joint
        rows.append((e, js, js.type, js.object_a, js.object_b))
    return rows


class JointList(list):
    """The joint empties of one `check`, with their pairs read once (`joint_pairs`)."""

    @functools.cached_property
    def pairs(self):
        return read_pairs(self)


def body_pair(a, b, names):
    """(a, b) when both are different objects named in `names`, else None."""
    if a is None or b is None or a == b or a.name not in names or b.name not in names:
        return None
    return a, b


def jointed_groups(joints, names):
    """Union-find over the joints: {name: root name}."""
    parent = {n: n for n in names}

    def root(n):
        while parent[n] != n:
            parent[n] = parent[parent[n]]
            n = parent[n]
        return n
    for _, _, _, a, b in joint_pairs(joints):
        pair = body_pair(a, b, parent)
        if pair is not None:
            ra, rb = root(pair[0].name), root(pair[1].name)
            if ra != rb:
                parent[ra] = rb
    return {n: root(n) for n in names}
