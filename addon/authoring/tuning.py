"""A tuned ragdoll as data: its parts' shapes, masses, materials, joint limits and drives,
read off one ragdoll, saved as a TOML file a user can edit, applied to another, and one side
mirrored onto the other.

Everything is stored by role, the body plan's part names (`pelvis`, `upper_arm.L`), never by
bone name: the bone maps (bonemap.py) already said which bones make each part, so a preset
tuned on a Rigify metarig applies to a Mixamo or a generic rig. What depends on the
character's size or rest pose is stored so that it travels:

* cross-sections (capsule radius, box width and depth) as fractions of the character's
  height, as humanoid.toml gives them; a part's length stays the target's own, joint to joint;
* hinge limits as flexion from straight (0 = straight), as humanoid.toml's `flexion`: each
  rig's rest bend is taken off again (a metarig's elbow rests a little bent, a Mixamo one
  straight); cone and twist limits count from the rest pose, as the joints hold them;
* masses in kilograms, angles in degrees.

Mirroring. The right side's joint frame is the mirror image of the left's with one axis
turned back to keep it right-handed: F_R = M F_L S, with M the reflection across the
character's middle plane and S = diag(s_x, s_y, s_z), one entry -1. A relative rotation
R = F_L R_l F_L^T mirrors to M R M; seen in F_R it is S R_l S, and a rotation by angle a about
axis e_k, conjugated by the reflection S (det S = -1), is a rotation by -s_k a about e_k. So the
angle about the axis where S is -1 keeps its sign, the angles about the other two flip. Ragdoll cones
are built with X the bend axis (d x forward, which the mirror turns around: S = diag(-1, 1,
1)): the swing about X keeps its sign, twist about Y and side swing about Z flip; the cone's
half-angles are symmetric, so only the twist range changes, [lo, hi] -> [-hi, -lo]. Hinges
turn about Z, the axis S flips (S = diag(1, 1, -1)): flexion keeps its sign and the limits
are copied. `mirror` measures S from the two joints' actual frames rather than assuming it.
"""

import json
import math
import os
import re
import tomllib

import bpy
from mathutils import Matrix, Vector

from . import bonemap
from . import controls
from . import presets
from .ragdoll import MIN_SIZE, box_mesh, capsule_mesh, refuse_from_library
from ..scene import ragdolls


FORMAT = 1
SIDE_OF = {"L": ".L", "R": ".R"}
RIG_SETTINGS = ("total_mass", "drive_strength", "drive_stiffness", "drive_damping",
                "drive_max_torque")
BODY_SETTINGS = ("mass", "friction", "restitution", "linear_damping", "angular_damping")


# --------------------------------------------------------------------------------------------
# The ragdoll's parts and frames

class _Part:
    __slots__ = ("role", "body", "joint", "bones", "frame")

    def __init__(self, role, body):
        self.role, self.body, self.joint, self.bones = role, body, None, []
        v = body.ligament_ragdoll_part.rest_frame
        self.frame = Matrix([v[0:4], v[4:8], v[8:12], v[12:16]])   # armature space, at rest


def parts(arm):
    """{role: _Part} of `arm`'s ragdoll: its body, joint to the parent (or None), bones."""
    bodies, joints, targets = [
        [o for o in role if not o.ligament_ragdoll_part.chain]      # not the bone chains'
        for role in ragdolls.members_by_role(arm, ('BODY', 'JOINT', 'TARGET'))]
    out = {b.ligament_ragdoll_part.part: _Part(b.ligament_ragdoll_part.part, b) for b in bodies}
    for e in joints:
        p = out.get(e.ligament_ragdoll_part.part)
        if p is not None:
            p.joint = e
    for t in sorted(targets, key=lambda t: t.name):
        p = out.get(t.ligament_ragdoll_part.part)
        if p is not None:
            p.bones.append(t.ligament_ragdoll_part.bone)
    for p in out.values():       # a part's bones parent first, as the bone map chained them
        p.bones.sort(key=lambda b: _depth(arm, b))
    return out


def _depth(arm, name):
    bone, d = arm.data.bones.get(name), 0
    while bone is not None and bone.parent is not None:
        bone, d = bone.parent, d + 1
    return d


def _axis(m, i):
    return Vector(m.col[i][:3]).normalized()


def _joint_rotation(part, all_parts):
    """The joint's frame (3x3) in armature space at rest: the parent body's rest frame and
    the joint empty's place on it."""
    parent = all_parts.get(part.joint.ligament_joint.object_a.ligament_ragdoll_part.part)
    return parent.frame.to_3x3().normalized() @ part.joint.matrix_basis.to_3x3().normalized()


def _up(all_parts):
    top = next((all_parts[r] for r in ("head", "chest", "spine") if r in all_parts), None)
    if top is None or "pelvis" not in all_parts:
        return Vector((0, 0, 1))
    return (top.frame.translation - all_parts["pelvis"].frame.translation).normalized()


def _length(part):
    return _extent(part.body)[2]


def _extent(obj):
    """The helper mesh's size along its local X, Y, Z in world units."""
    co = [v.co for v in obj.data.vertices]
    s = obj.matrix_world.to_scale()
    return [(max(c[i] for c in co) - min(c[i] for c in co)) * s[i] for i in range(3)]


def height(arm, all_parts=None):
    """The character's height in world units: the span of its parts along its up axis."""
    all_parts = all_parts or parts(arm)
    up = _up(all_parts)
    scale = arm.matrix_world.to_scale()[0]
    ends = []
    for p in all_parts.values():
        half = _length(p) / scale / 2 * _axis(p.frame, 2)
        ends += [(p.frame.translation + half).dot(up), (p.frame.translation - half).dot(up)]
    return max(max(ends) - min(ends), MIN_SIZE) * scale


def _shape_kind(role):
    return presets.body_plan()[bonemap.part_base(role)]["shape"]


def _section(part):
    """The cross-section in world units: [radius] of a capsule, [width, depth] of a box."""
    ext = _extent(part.body)
    if _shape_kind(part.role) == "capsule":
        return [min(ext[0], ext[1]) / 2]
    return ext[:2]


def _reshape(part, section):
    """Give the helper mesh this cross-section (world units), keeping its length."""
    obj = part.body
    s = obj.matrix_world.to_scale()
    length = _extent(obj)[2]
    if _shape_kind(part.role) == "capsule":
        r = max(section[0], MIN_SIZE)
        verts, faces = capsule_mesh(r, max(length / 2 - r, MIN_SIZE))
    else:
        verts, faces = box_mesh([max(v / 2, MIN_SIZE) for v in (*section[:2], length)])
    verts = [(x / s[0], y / s[1], z / s[2]) for x, y, z in verts]
    old = obj.data
    mesh = bpy.data.meshes.new(old.name)
    mesh.from_pydata(verts, [], faces)
    obj.data = mesh
    if old.users == 0:
        bpy.data.meshes.remove(old)


def _hinge_rest_angle(part, all_parts):
    """The hinge angle of the rest pose from straight, about the hinge axis (as
    ragdoll._joint_plan measures it)."""
    parent = all_parts[part.joint.ligament_joint.object_a.ligament_ragdoll_part.part]
    hinge = _joint_rotation(part, all_parts).col[2]
    d_parent, d_child = _axis(parent.frame, 2), _axis(part.frame, 2)
    return math.atan2(hinge.dot(d_parent.cross(d_child)), d_parent.dot(d_child))


def _set_masses(arm, masses):
    """Set per-body masses and keep the ragdoll's total and mass shares in step with them."""
    bodies = [o for o in ragdolls.bodies(arm) if not o.ligament_ragdoll_part.chain]
    for obj in bodies:
        if obj in masses:
            obj.ligament_body.mass = masses[obj]
    total = sum(o.ligament_body.mass for o in bodies)
    for obj in bodies:
        obj.ligament_ragdoll_part.mass_share = obj.ligament_body.mass / total
    arm.ligament_ragdoll.total_mass = total     # shares the total out again: the same masses


# --------------------------------------------------------------------------------------------
# Read, write

def read(arm):
    """The ragdoll of `arm` as preset data: {"format", "rig", "ragdoll", "parts"}."""
    all_parts = parts(arm)
    h = height(arm, all_parts)
    rd = arm.ligament_ragdoll
    doc = {"format": FORMAT, "rig": rd.bone_map,
           "ragdoll": {k: getattr(rd, k) for k in RIG_SETTINGS}, "parts": {}}
    # the bodies' masses as they are now (a body's own mass may have been edited since the
    # total was last set)
    doc["ragdoll"]["total_mass"] = sum(p.body.ligament_body.mass for p in all_parts.values())
    for role in bonemap.part_names(presets.body_plan()):
        p = all_parts.get(role)
        if p is None:
            continue
        s = p.body.ligament_body
        d = {k: getattr(s, k) for k in BODY_SETTINGS}
        d["shape"] = s.shape
        key = "radius" if _shape_kind(role) == "capsule" else "section"
        section = [v / h for v in _section(p)]
        d[key] = section[0] if key == "radius" else section
        pb = arm.pose.bones.get(p.bones[0]) if p.bones else None
        if pb is not None:
            d["drive_strength"] = pb.ligament_drive_strength
            d["simulated"] = pb.ligament_simulated
        if p.joint is not None:
            j = p.joint.ligament_joint
            d["limited"] = j.use_limit_ang
            lo, hi = j.limit_ang_lower, j.limit_ang_upper
            if j.type == 'HINGE':
                rest = _hinge_rest_angle(p, all_parts)
                d["flexion"] = [math.degrees(lo + rest), math.degrees(hi + rest)]
            else:
                d["twist"] = [math.degrees(lo), math.degrees(hi)]
                d["swing_bend"] = math.degrees(j.swing_1)
                d["swing_side"] = math.degrees(j.swing_2)
        doc["parts"][role] = d
    if len(rd.controls):
        doc["controls"] = {"pairs": [[c.source, c.target] for c in rd.controls]}
    return doc


def apply(arm, doc):
    """Write preset data onto the ragdoll of `arm`, role by role. Returns (roles applied,
    roles in the preset this ragdoll lacks)."""
    refuse_from_library(arm, "a ragdoll preset")
    all_parts = parts(arm)
    h = height(arm, all_parts)
    rd = arm.ligament_ragdoll
    for k, v in doc.get("ragdoll", {}).items():
        if k in RIG_SETTINGS and k != "total_mass":
            setattr(rd, k, v)
    done, missing, masses = [], [], {}
    for role, d in doc.get("parts", {}).items():
        p = all_parts.get(role)
        if p is None:
            missing.append(role)
            continue
        s = p.body.ligament_body
        for k in BODY_SETTINGS:
            if k in d and k != "mass":
                setattr(s, k, d[k])
        if "mass" in d:
            masses[p.body] = d["mass"]
        if "shape" in d:
            s.shape = d["shape"]
        if "radius" in d or "section" in d:
            rel = [d["radius"]] if "radius" in d else d["section"]
            _reshape(p, [v * h for v in rel])
        for bone in p.bones:
            pb = arm.pose.bones.get(bone)
            if pb is None:
                continue
            if "drive_strength" in d:
                pb.ligament_drive_strength = d["drive_strength"]
            if "simulated" in d:
                pb.ligament_simulated = d["simulated"]
        if p.joint is not None:
            _apply_joint(p, d, all_parts)
        done.append(role)
    _set_masses(arm, masses)
    pairs = doc.get("controls", {}).get("pairs")
    if pairs:
        controls.set_pairs(arm, [(str(p[0]), str(p[1])) for p in pairs if len(p) == 2])
    return done, missing


def _apply_joint(p, d, all_parts):
    j = p.joint.ligament_joint
    if "limited" in d:
        j.use_limit_ang = d["limited"]
    if j.type == 'HINGE' and "flexion" in d:
        rest = _hinge_rest_angle(p, all_parts)
        j.limit_ang_lower, j.limit_ang_upper = (math.radians(a) - rest for a in d["flexion"])
    elif j.type == 'RAGDOLL':
        if "twist" in d:
            j.limit_ang_lower, j.limit_ang_upper = (math.radians(a) for a in d["twist"])
        if "swing_bend" in d:
            j.swing_1 = math.radians(d["swing_bend"])
        if "swing_side" in d:
            j.swing_2 = math.radians(d["swing_side"])


# --------------------------------------------------------------------------------------------
# Mirror

def _mirror_matrix(all_parts):
    """The reflection across the character's middle plane, in armature space: its normal
    runs from the right parts to the left ones."""
    left = Vector()
    for role, p in all_parts.items():
        if role.endswith(".L") and role[:-2] + ".R" in all_parts:
            left += p.frame.translation - all_parts[role[:-2] + ".R"].frame.translation
    if left.length < 1e-9:
        raise ValueError("no left and right parts to mirror")
    n = left.normalized()
    return Matrix.Identity(3) - 2 * Matrix([[a * b for b in n] for a in n])


def mirror_signs(src, dst, all_parts, reflect):
    """S = (M F_src)^T F_dst of two joints, rounded to its diagonal of +-1 (see the module's
    docstring): an angle about joint axis k maps to -S[k] times itself."""
    f_src = _joint_rotation(src, all_parts)
    f_dst = _joint_rotation(dst, all_parts)
    s = (reflect @ f_src).transposed() @ f_dst
    return [1.0 if s[k][k] > 0 else -1.0 for k in range(3)]


def mirror(arm, source='L'):
    """Copy each sided part's settings from `source` ('L' or 'R') to the other side, with the
    joint limits mirrored. Returns the roles written."""
    if source not in SIDE_OF:
        raise ValueError(f"mirror from 'L' or 'R', not {source!r}")
    refuse_from_library(arm, "Mirror")
    src_side, dst_side = SIDE_OF[source], SIDE_OF['R' if source == 'L' else 'L']
    all_parts = parts(arm)
    reflect = _mirror_matrix(all_parts)
    written, masses = [], {}
    for role, src in all_parts.items():
        if not role.endswith(src_side):
            continue
        dst = all_parts.get(role[:-2] + dst_side)
        if dst is None:
            continue
        a, b = src.body.ligament_body, dst.body.ligament_body
        for k in BODY_SETTINGS:
            if k != "mass":
                setattr(b, k, getattr(a, k))
        masses[dst.body] = a.mass
        b.shape = a.shape
        _reshape(dst, _section(src))
        pa = arm.pose.bones.get(src.bones[0]) if src.bones else None
        if pa is not None:
            for bone in dst.bones:
                pb = arm.pose.bones[bone]
                pb.ligament_drive_strength = pa.ligament_drive_strength
                pb.ligament_simulated = pa.ligament_simulated
        if src.joint is not None and dst.joint is not None:
            ja, jb = src.joint.ligament_joint, dst.joint.ligament_joint
            s = mirror_signs(src, dst, all_parts, reflect)
            # the limited angle is the hinge's (about Z) or the twist (about Y)
            k = 2 if ja.type == 'HINGE' else 1
            lo, hi = ja.limit_ang_lower, ja.limit_ang_upper
            jb.use_limit_ang = ja.use_limit_ang
            jb.limit_ang_lower, jb.limit_ang_upper = (lo, hi) if s[k] < 0 else (-hi, -lo)
            if ja.type == 'RAGDOLL':
                jb.swing_1, jb.swing_2 = ja.swing_1, ja.swing_2
        written.append(dst.role)
    _set_masses(arm, masses)
    return written


# --------------------------------------------------------------------------------------------
# Files: TOML in the user's folder

HEADER = """\
# A Ligament ragdoll preset: a tuned ragdoll's settings by body part (the roles of
# presets/ragdoll/humanoid.toml), so it applies to any rig a bone map fits.
# Sizes (radius, section = [width, depth]) are fractions of the character's height; masses
# in kg; angles in degrees: flexion from straight for elbows and knees, twist and swing from
# the rest pose for the others. Leave out any line to keep the target's own value.
"""


def _value(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(round(float(v), 6))
    if isinstance(v, str):
        return json.dumps(v)
    return "[" + ", ".join(_value(x) for x in v) + "]"


def dumps(doc):
    """Preset data as TOML text."""
    lines = [HEADER, f"format = {doc['format']}", f"rig = {_value(doc.get('rig', ''))}", "",
             "[ragdoll]"]
    lines += [f"{k} = {_value(v)}" for k, v in doc["ragdoll"].items()]
    for role, d in doc["parts"].items():
        lines += ["", f'[parts."{role}"]'] + [f"{k} = {_value(v)}" for k, v in d.items()]
    if doc.get("controls"):
        # (source bone, control rig bone) pairs of Bake onto Controls
        lines += ["", "[controls]", "pairs = ["] + [
            f"    {_value(p)}," for p in doc["controls"]["pairs"]] + ["]"]
    return "\n".join(lines) + "\n"


def loads(text, where="preset"):
    """Preset data from TOML text; ValueError naming what is wrong."""
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"{where}: {exc}") from None
    if doc.get("format") != FORMAT:
        raise ValueError(f"{where}: not a Ligament ragdoll preset (format = {FORMAT} missing)")
    roles = set(bonemap.part_names(presets.body_plan()))
    for role in doc.get("parts", {}):
        if role not in roles:
            raise ValueError(f"{where}: [parts.\"{role}\"] is not a body part "
                             f"({', '.join(sorted(roles))})")
    return doc


def user_dir(create=False):
    """The folder of the user's ragdoll presets (in the extension's user folder)."""
    package = __package__.partition(".addon")[0]
    try:
        return bpy.utils.extension_path_user(package, path="ragdoll_presets", create=create)
    except (ValueError, KeyError, AttributeError):
        path = os.path.join(bpy.utils.user_resource('CONFIG'), "ligament", "ragdoll_presets")
        if create:
            os.makedirs(path, exist_ok=True)
        return path


def preset_path(name):
    safe = re.sub(r"[^\w\- .]", "_", name).strip() or "ragdoll"
    return os.path.join(user_dir(create=True), safe + ".toml")


def user_presets():
    """{name: path} of the presets in the user's folder."""
    d = user_dir()
    if not os.path.isdir(d):
        return {}
    return {os.path.splitext(n)[0]: os.path.join(d, n) for n in sorted(os.listdir(d))
            if n.endswith(".toml")}


def save(arm, path):
    with open(path, "w") as f:
        f.write(dumps(read(arm)))
    return path


def load(path):
    with open(path) as f:
        return loads(f.read(), os.path.basename(path))
