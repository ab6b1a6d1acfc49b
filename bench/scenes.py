"""Engine-neutral benchmark scenes and the quality figures measured on them.

A scene is plain data that every engine adapter in bench/contacts.py builds the same way:

* `Body(shape, size, position, rotation, mass)`: shape "box" (size = half extents),
  "capsule" (size = (radius, half_height), axis along the local Z) or "sphere" (size =
  (radius,)); rotation a 3x3 matrix (local to world); mass 0 makes the body static.
* `Joint(kind, a, b, anchor, axis, swing_axis, limits)`: kind "ragdoll" (axis = twist axis,
  limits = (swing1 about swing_axis, swing2 about axis x swing_axis, twist_lower,
  twist_upper)), "hinge" (rotation about axis, limits = (lower, upper): the angle of b
  relative to a, right-handed about axis, 0 as built) or "ball" (a ball socket: the anchor
  held, rotation free; axis and limits unused). Anchors and axes are world space.
* `Scene.groups`: for each articulation (a ragdoll) its bodies, root first and every other
  body after its parent, so reduced-coordinate engines (pybullet multibodies, MuJoCo) can
  build it as a tree. `Scene.parent[i]` is the joint linking body i to its parent.
* `Scene.mu`: the friction of every contact pair (MU unless the scene says otherwise; each
  adapter gives its bodies the per-body value its engine mixes into that).

Units: metres, kilograms, seconds, radians; +Z up; body 0 is always the static ground.
Every scene's restitution is 0.
"""

import math
from dataclasses import dataclass, field

import numpy as np

MU = 0.5            # friction of every contact pair (each engine mixes per-body values)


@dataclass
class Body:
    shape: str
    size: tuple
    position: np.ndarray
    rotation: np.ndarray
    mass: float


@dataclass
class Joint:
    kind: str
    a: int
    b: int
    anchor: np.ndarray
    axis: np.ndarray
    swing_axis: np.ndarray = None
    limits: tuple = ()


@dataclass
class Scene:
    name: str
    kind: str                        # "pyramid", "ragdolls", "pile" or "wall"
    bodies: list = field(default_factory=list)
    joints: list = field(default_factory=list)
    groups: list = field(default_factory=list)
    parent: dict = field(default_factory=dict)
    mu: float = MU

    def add(self, shape, size, position, rotation=None, mass=0.0):
        self.bodies.append(Body(shape, tuple(float(s) for s in size),
                                np.asarray(position, dtype=float),
                                np.eye(3) if rotation is None else np.asarray(rotation, float),
                                float(mass)))
        return len(self.bodies) - 1

    def link(self, kind, a, b, anchor, axis, limits, swing_axis=None):
        self.joints.append(Joint(kind, a, b, np.asarray(anchor, float), unit(axis),
                                 None if swing_axis is None else unit(swing_axis),
                                 tuple(float(x) for x in limits)))
        self.parent[b] = len(self.joints) - 1

    @property
    def dynamic(self):
        return [i for i, b in enumerate(self.bodies) if b.mass > 0]


# --------------------------------------------------------------------------------------------
# Rotations

def unit(v):
    v = np.asarray(v, dtype=float)
    return v / np.linalg.norm(v)


def axis_angle(axis, angle):
    x, y, z = unit(axis)
    c, s = math.cos(angle), math.sin(angle)
    k = np.array([[0, -z, y], [z, 0, -x], [-y, x, 0]])
    return np.eye(3) + s * k + (1 - c) * (k @ k)


def frame(first, second=None):
    """A right-handed rotation matrix (columns = local axes): frame(z) has the direction z
    as its local Z; frame(y, x) has y as its local Y and x (made perpendicular) as its X."""
    a = unit(first)
    if second is None:
        helper = np.array([1.0, 0, 0]) if abs(a[0]) < 0.9 else np.array([0, 1.0, 0])
        x = unit(np.cross(helper, a))
        return np.column_stack([x, np.cross(a, x), a])
    x = unit(np.asarray(second) - np.dot(second, a) * a)
    return np.column_stack([x, a, np.cross(x, a)])


def matrix_to_quat(m):
    """(w, x, y, z) of a rotation matrix."""
    t = np.trace(m)
    if t > 0:
        s = 2.0 * math.sqrt(1.0 + t)
        q = (0.25 * s, (m[2, 1] - m[1, 2]) / s, (m[0, 2] - m[2, 0]) / s, (m[1, 0] - m[0, 1]) / s)
    else:
        i = int(np.argmax(np.diag(m)))
        j, k = (i + 1) % 3, (i + 2) % 3
        s = 2.0 * math.sqrt(1.0 + m[i, i] - m[j, j] - m[k, k])
        q = [0.0] * 4
        q[0] = (m[k, j] - m[j, k]) / s
        q[1 + i] = 0.25 * s
        q[1 + j] = (m[j, i] + m[i, j]) / s
        q[1 + k] = (m[k, i] + m[i, k]) / s
    q = np.array(q)
    return q / np.linalg.norm(q)


def quats_to_matrices(q):
    """(n,4) quaternions (w, x, y, z) to (n,3,3) rotation matrices."""
    q = np.asarray(q, dtype=float)
    w, x, y, z = q[:, 0], q[:, 1], q[:, 2], q[:, 3]
    return np.stack([
        np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)], -1),
        np.stack([2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)], -1),
        np.stack([2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)], -1)], 1)


# --------------------------------------------------------------------------------------------
# Scenes

BOX_MASS = 1000.0   # a 1 m box of water


def pyramid(rows):
    """`rows` rows of 1 m boxes, side faces touching, bottom row on a static ground slab."""
    n = rows * (rows + 1) // 2
    s = Scene(f"pyramid {rows} ({n} boxes)", "pyramid")
    s.add("box", (rows + 5.0, 5.0, 0.5), (0, 0, -0.5))
    for i in range(rows):
        k = rows - i
        for j in range(k):
            s.add("box", (0.5, 0.5, 0.5), ((j - (k - 1) / 2.0), 0.0, 0.5 + i), mass=BOX_MASS)
    return s


# One ragdoll, standing on z = 0 and facing -Y: (name, shape, size, centre, bone axis, mass)
RAGDOLL_BODIES = [
    ("pelvis", "box", (0.15, 0.1, 0.08), (0, 0, 1.0), None, 10.0),
    ("chest", "box", (0.17, 0.1, 0.15), (0, 0, 1.3), None, 15.0),
    ("head", "capsule", (0.1, 0.02), (0, 0, 1.6), (0, 0, 1), 4.0),
]
for _s, _x in (("L", 1.0), ("R", -1.0)):
    RAGDOLL_BODIES += [
        ("upper_arm" + _s, "capsule", (0.05, 0.12), (0.36 * _x, 0, 1.38), (_x, 0, 0), 2.0),
        ("forearm" + _s, "capsule", (0.045, 0.11), (0.69 * _x, 0, 1.38), (_x, 0, 0), 1.5),
        ("thigh" + _s, "capsule", (0.07, 0.13), (0.1 * _x, 0, 0.72), (0, 0, -1), 7.0),
        ("shin" + _s, "capsule", (0.06, 0.14), (0.1 * _x, 0, 0.31), (0, 0, -1), 4.0),
        ("foot" + _s, "box", (0.05, 0.11, 0.03), (0.1 * _x, -0.05, 0.03), None, 1.0),
    ]

# (kind, parent, child, anchor, axis, swing axis, limits); see Joint for the limits
RAGDOLL_JOINTS = [
    ("ragdoll", "pelvis", "chest", (0, 0, 1.115), (0, 0, 1), (1, 0, 0), (0.4, 0.3, -0.3, 0.3)),
    ("ragdoll", "chest", "head", (0, 0, 1.465), (0, 0, 1), (1, 0, 0), (0.5, 0.5, -0.6, 0.6)),
]
for _s, _x in (("L", 1.0), ("R", -1.0)):
    RAGDOLL_JOINTS += [
        ("ragdoll", "chest", "upper_arm" + _s, (0.19 * _x, 0, 1.38), (_x, 0, 0), (0, 1, 0),
         (1.2, 1.2, -0.5, 0.5)),
        # the elbow's axis is mirrored so that [0, 2.4] bends both forearms forward (-Y)
        ("hinge", "upper_arm" + _s, "forearm" + _s, (0.532 * _x, 0, 1.38), (0, 0, -_x), None,
         (0.0, 2.4)),
        ("ragdoll", "pelvis", "thigh" + _s, (0.1 * _x, 0, 0.92), (0, 0, -1), (1, 0, 0),
         (0.8, 0.5, -0.3, 0.3)),
        ("hinge", "thigh" + _s, "shin" + _s, (0.1 * _x, 0, 0.515), (1, 0, 0), None, (0.0, 2.2)),
        ("hinge", "shin" + _s, "foot" + _s, (0.1 * _x, 0, 0.08), (1, 0, 0), None, (-0.5, 0.5)),
    ]


def add_ragdoll(s, origin, rotation):
    """One 13-body ragdoll (box pelvis, chest and feet, capsule head and limbs; ragdoll cones
    at spine, neck, shoulders and hips, hinges at elbows, knees and ankles), turned by
    `rotation` about its feet and put at `origin`."""
    o, r = np.asarray(origin, float), np.asarray(rotation, float)
    ids = {}
    for name, shape, size, centre, bone, mass in RAGDOLL_BODIES:
        local = np.eye(3) if bone is None else frame(bone)
        ids[name] = s.add(shape, size, o + r @ centre, r @ local, mass)
    for kind, a, b, anchor, axis, swing, limits in RAGDOLL_JOINTS:
        s.link(kind, ids[a], ids[b], o + r @ anchor, r @ axis, limits,
               None if swing is None else r @ swing)
    s.groups.append([ids[name] for name, *_ in RAGDOLL_BODIES])


def ragdolls(count=20, spacing=2.0, only=None):
    """`count` ragdolls on a 5-wide grid, each tilted 0.35 rad and turned about Z by its own
    angle, feet 0.3-0.9 m above a static ground slab: they land on one foot and collapse.
    only: the indices of the ragdolls to build (each where it stands among the `count`)."""
    s = Scene(f"{count} ragdolls ({13 * count} bodies)", "ragdolls")
    s.add("box", (30.0, 30.0, 0.5), (0, 0, -0.5))
    for k in range(count) if only is None else only:
        turn = axis_angle((0, 0, 1), 0.9 * k)
        tilt = axis_angle((1, 0, 0), 0.35 if k % 2 else -0.35)
        add_ragdoll(s, ((k % 5) * spacing, (k // 5) * spacing, 0.3 + 0.3 * (k % 3)),
                    turn @ tilt)
    return s


def limit_generic(constraint, angular):
    """Set a Blender GENERIC rigid body constraint (Bullet's 6-dof joint, the nearest it has
    to a ragdoll joint): translation locked, rotation about the empty's local X, Y, Z held in
    the three (lower, upper) pairs of `angular`."""
    for ax, (lo, hi) in zip("xyz", angular):
        setattr(constraint, f"use_limit_lin_{ax}", True)
        setattr(constraint, f"limit_lin_{ax}_lower", 0.0)
        setattr(constraint, f"limit_lin_{ax}_upper", 0.0)
        setattr(constraint, f"use_limit_ang_{ax}", True)
        setattr(constraint, f"limit_ang_{ax}_lower", lo)
        setattr(constraint, f"limit_ang_{ax}_upper", hi)


# --------------------------------------------------------------------------------------------
# Quality figures, from poses: positions (n,3) and rotation matrices (n,3,3) of every body
# in scene order (the ground's row is ignored)

def drift(scene, positions):
    """(top box drift, largest box drift) in metres since the start."""
    ids = scene.dynamic
    start = np.array([scene.bodies[i].position for i in ids])
    d = np.linalg.norm(np.asarray(positions)[ids] - start, axis=1)
    return float(d[-1]), float(d.max())


def lowest_point(scene, positions, rotations):
    """The lowest z of any dynamic body's surface (0 = resting on the ground's top)."""
    low = math.inf
    for i in scene.dynamic:
        b, p, r = scene.bodies[i], positions[i], rotations[i]
        if b.shape == "box":
            z = p[2] - np.abs(r[2]) @ np.asarray(b.size)
        elif b.shape == "sphere":
            z = p[2] - b.size[0]
        else:
            z = p[2] - abs(r[2, 2]) * b.size[1] - b.size[0]
        low = min(low, z)
    return float(low)


class JointGauge:
    """Each joint's anchor glued to both of its bodies as built; `gap` is the largest
    distance between the two copies, the joint's separation."""

    def __init__(self, scene):
        j = scene.joints
        self.a = np.array([x.a for x in j])
        self.b = np.array([x.b for x in j])
        anchors = np.array([x.anchor for x in j])
        self.la = self._local(scene, self.a, anchors)
        self.lb = self._local(scene, self.b, anchors)

    @staticmethod
    def _local(scene, ids, points):
        return np.array([scene.bodies[i].rotation.T @ (p - scene.bodies[i].position)
                         for i, p in zip(ids, points)])

    def gap(self, positions, rotations):
        pa = positions[self.a] + np.einsum("nij,nj->ni", rotations[self.a], self.la)
        pb = positions[self.b] + np.einsum("nij,nj->ni", rotations[self.b], self.lb)
        return float(np.linalg.norm(pa - pb, axis=1).max())
