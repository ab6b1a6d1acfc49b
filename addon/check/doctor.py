"""The scene doctor: what in a scene will make its simulation go wrong, found before it runs.

`check(scene)` returns a list of `Finding`s, each naming its objects, saying what is wrong and
why it matters, and offering a `Fix` (an operator and its arguments) where one exists. It runs
on demand (the sidebar's Check Scene, `ligament.check_scene`), in the batch command (`check`,
and before `bake`), and before a bake (`preflight`: the errors and warnings to print first).

Severity: ERROR when the simulation cannot run as set up (a joint without its bodies, limits
the wrong way round, a Mesh shape on a moving body); WARNING when it runs but most likely not
as meant (bodies overlapping at the start, a dynamic body with nothing under it, ...); INFO
for what the doctor could not check.

Overlaps are measured by the solver itself: the doctor builds the world the live run builds
(`Simulation`), finds its contacts where the bodies start (`World.collide`, nothing
moves) and reads the depth of every contact from `World.contacts()`. Nothing here does
physics; nothing changes the scene but the rest pose the live run would store anyway.
"""

import functools
import math
from dataclasses import dataclass, field

import numpy as np

from mathutils import Quaternion, Vector

from .. import kernels
from ..world import mechanisms
from ..runtime import cache
from ..runtime.simulation import Simulation
from ..scene.animation import compose, has_transform_animation, matrix_world_at, rotation_to_quaternion, transform_fcurves
from ..scene.errors import SceneError
from ..scene.objects import SceneScan, effective_kind, scene_bodies, scene_joints, world_settings


ERROR, WARNING, INFO = 'ERROR', 'WARNING', 'INFO'
SEVERITIES = (ERROR, WARNING, INFO)

OVERLAP = 0.003          # m: deeper overlaps at the start frame make bodies jump apart
THIN = 0.02              # m: bodies thinner than this are easily passed through
SMALL = 0.02             # m: bodies smaller than this along every axis
MASS_RATIO = 100.0       # heaviest to lightest dynamic body in one jointed group
LIMIT_SLACK = math.radians(2.0)   # animated poses this far past a limit are reported
PROBE_DT = 1e-6          # s: the speculative margin of the start frame's contacts
ROUND_SHAPES = {'SPHERE', 'CAPSULE', 'CYLINDER'}


@dataclass
class Fix:
    """An operator that fixes a finding: `bpy.ops.<operator>(**args)`, shown as `label`."""
    operator: str
    args: dict
    label: str


@dataclass
class Finding:
    severity: str                 # ERROR | WARNING | INFO
    code: str                     # what kind of problem: 'overlap', 'joint-object', ...
    objects: tuple                # names of the objects involved, most relevant first
    message: str                  # what is wrong, why it matters, what to do
    fix: Fix = None
    data: dict = field(default_factory=dict)   # figures behind the message (depth, frame)

    def line(self):
        return f"{self.severity}: {self.message}"

    def as_dict(self):
        return {"severity": self.severity, "code": self.code, "objects": list(self.objects),
                "message": self.message, "data": self.data,
                "fix": None if self.fix is None else {"operator": self.fix.operator,
                                                      "args": self.fix.args,
                                                      "label": self.fix.label}}


def _names(objs):
    return "\n".join(o if isinstance(o, str) else o.name for o in objs)


def select_fix(objs, label="Select"):
    return Fix("ligament.select_objects", {"objects": _names(objs)}, label)


def _length(x):
    return f"{x * 100:.1f} cm" if abs(x) < 1.0 else f"{x:.2f} m"


def _deg(x):
    return f"{math.degrees(x):.0f}\u00b0"


# --------------------------------------------------------------------------------------------
# Entry points

def check(scene, sim=None):
    """Findings for `scene`, errors first. `sim`: a freshly built `Simulation` of the
    scene to reuse (it is left as it was); by default the doctor builds its own."""
    return _check(scene, sim)


def _check(scene, sim):
    scan = sim.scan if sim is not None and sim.scan is not None else SceneScan(scene)
    bodies = scan.bodies
    if not bodies:
        return [Finding(INFO, 'no-bodies', (), f"Scene '{scene.name}' has no Ligament bodies: "
                        "nothing to simulate; add some with Ligament > Add Body")]
    joints = JointList(scan.joints)
    findings = []
    findings += joint_objects(scene, joints,
                              {n for n, _ in sim.joints} if _fresh(sim) else ())
    findings += limit_order(joints)
    findings += custom_expressions(joints)
    findings += mesh_shapes(bodies)
    sim, built_here, note = _simulation(scene, sim, findings)
    if note is not None:
        findings.append(note)
    try:
        poses = start_matrices(scene, bodies, sim)
        findings += scales(poses)
        findings += round_shapes(poses)
        findings += sizes(scene, poses)
        findings += anchors(scene, joints, poses, sim)
        findings += mass_ratios(joints, sim)
        findings += falling(scene, joints, poses)
        if sim is not None:
            findings += animated_limits(scene, sim, scan.by_name)
            findings += overlaps(sim, poses)
    finally:
        if sim is not None and not built_here:
            sim.world.load_state(sim.states[sim.start])
    order = {s: i for i, s in enumerate(SEVERITIES)}
    return sorted(findings, key=lambda f: order[f.severity])


def preflight(scene, sim=None):
    """The findings to print before a simulation or a bake starts: errors and warnings."""
    return [f for f in check(scene, sim) if f.severity != INFO]


def summary(scene, findings):
    """One line: 'no problems' for a clean scene, else the counts by severity."""
    counts = {s: sum(f.severity == s for f in findings) for s in SEVERITIES}
    if not counts[ERROR] and not counts[WARNING]:
        n_b, n_j = len(scene_bodies(scene)), len(scene_joints(scene))
        if n_b == 0:
            return f"Scene '{scene.name}': no Ligament bodies to check"
        return (f"Scene '{scene.name}': no problems found ({n_b} bod{'y' if n_b == 1 else 'ies'}"
                f", {n_j} joint{'' if n_j == 1 else 's'})")
    parts = [f"{counts[s]} {s.lower()}{'s' if counts[s] != 1 else ''}"
             for s in SEVERITIES if counts[s]]
    return f"Scene '{scene.name}': " + ", ".join(parts)


# The last check of each scene, for the sidebar: scene key -> (findings, summary line).
_results = {}


def store(scene, findings):
    _results[scene.session_uid] = (findings, summary(scene, findings))


def results(scene):
    """(findings, summary) of the scene's last Check Scene, or None."""
    return _results.get(scene.session_uid)


def on_build(scene, sim):
    """The check before a new simulation plays (the runtime calls it after each build): its
    errors and warnings, kept for the sidebar's Scene Check panel."""
    findings = preflight(scene, sim)
    if findings:
        store(scene, findings)
    return findings


def register():
    cache.build_checks.append(on_build)


def unregister():
    while on_build in cache.build_checks:
        cache.build_checks.remove(on_build)


def recheck(scene):
    """Check again if the scene was checked before (after a fix, the list shows what is
    left)."""
    if results(scene) is not None:
        store(scene, check(scene))


def _fresh(sim):
    """A Simulation still at its start frame (one that moved on is not measured)."""
    return sim is not None and sim.world_frame == sim.start


def _simulation(scene, sim, findings):
    """(sim, built here, note): the world to measure, or None with an INFO saying why."""
    if _fresh(sim):
        return sim, False, None  # else none, or moved on since it was built: build one
    if not kernels.ready():
        if kernels.blocking():
            kernels.prepare_blocking()
        else:
            kernels.ensure_started()
            return None, True, Finding(
                INFO, 'not-measured', (), "Overlaps and animated poses were not checked: the "
                "solver is being prepared (first run only); check again when it is ready")
    try:
        return Simulation(scene), True, None
    except SceneError as exc:
        if any(f.severity == ERROR for f in findings):
            return None, True, Finding(
                INFO, 'not-measured', (), "Overlaps and animated poses were not checked: "
                "the scene does not build until the errors above are fixed")
        return None, True, Finding(ERROR, 'build', (), f"The scene does not build: {exc}")


# --------------------------------------------------------------------------------------------
# Joints and their settings

def joint_objects(scene, joints, built=()):
    """Joints with a missing, identical or non-body object: the scene does not build.
    `built`: names of joints a fresh build of the scene made (their objects passed the same
    tests there), not looked at again."""
    out = []
    rows = [row for row in _joint_pairs(joints) if row[0].name not in built and
            row[2] not in mechanisms.COUPLINGS]   # a gear or rack: the build names the problem
    if not rows:
        return out
    in_scene = set(scene.objects.keys())
    for e, js, jtype, a, b in rows:
        objs = {}
        sides = (("a", a), ("b", b))
        if jtype == 'PATH' or (jtype == 'CUSTOM' and a is None):
            sides = (("b", b),)      # a path's curve is no body; a custom's unset A: the world
        for which, obj in sides:
            label = which.upper()
            if obj is None:
                out.append(Finding(ERROR, 'joint-object', (e.name,),
                    f"Joint '{e.name}': object {label} is not set (or was deleted), so the "
                    "joint holds nothing; pick it in Properties > Physics > Ligament Joint or "
                    "disable the joint", select_fix([e])))
            elif obj.name not in in_scene:
                out.append(Finding(ERROR, 'joint-object', (e.name, obj.name),
                    f"Joint '{e.name}': object {label} '{obj.name}' is not in this scene "
                    "(deleted or in another scene); pick an object of this scene",
                    select_fix([e])))
            elif not obj.ligament_body.enabled:
                out.append(Finding(ERROR, 'joint-object', (e.name, obj.name),
                    f"Joint '{e.name}': object {label} '{obj.name}' is not a Ligament body, "
                    "so the joint has nothing to hold; make it a body (Ligament > Add Body)",
                    select_fix([obj], "Select Object")))
            else:
                objs[which] = obj
        if len(objs) == 2 and objs["a"] == objs["b"]:
            out.append(Finding(ERROR, 'joint-object', (e.name, objs["a"].name),
                f"Joint '{e.name}': objects A and B are both '{objs['a'].name}'; a joint "
                "holds two different bodies together: pick another B", select_fix([e])))
    return out


def limit_order(joints):
    """Limits whose lower end is above the upper end: the joint cannot be built."""
    out = []
    for e, js, jtype, _, _ in _joint_pairs(joints):
        checks = []
        if jtype in {'HINGE', 'RAGDOLL'} and js.use_limit_ang:
            checks.append(('ANGULAR', js.limit_ang_lower, js.limit_ang_upper, _deg))
        if jtype in {'PRISMATIC', 'DISTANCE'} and js.use_limit_lin:
            checks.append(('LINEAR', js.limit_lin_lower, js.limit_lin_upper, _length))
        for which, lower, upper, fmt in checks:
            if lower > upper:
                kind = "angle" if which == 'ANGULAR' else "distance"
                out.append(Finding(ERROR, 'limit-order', (e.name,),
                    f"Joint '{e.name}': the lower {kind} limit {fmt(lower)} is above the upper "
                    f"{fmt(upper)}, so no position satisfies it and the joint cannot be built; "
                    "swap them", Fix("ligament.swap_limits", {"joint": e.name, "which": which},
                                     "Swap Limits"),
                    {"lower": lower, "upper": upper}))
    return out


def custom_expressions(joints):
    """Custom joints whose expression does not parse or does not fit its letters: the joint
    is skipped. The solver's message names the symbol or the mismatch and its column."""
    out = []
    for e in joints:
        js = e.ligament_joint
        if js.type != 'CUSTOM':
            continue
        problem = mechanisms.expression_problem(js)
        if problem:
            out.append(Finding(ERROR, 'custom-expression', (e.name,),
                f"Joint '{e.name}': {problem}; the joint is skipped until the Expression is "
                "fixed (Properties > Physics > Ligament Joint)", select_fix([e]),
                {"expression": js.expression}))
    return out


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


# --------------------------------------------------------------------------------------------
# Where everything is at the start frame

class StartPoses:
    """Every body's world matrix at the start frame and its local bounds, as arrays with one
    row per body whose pose is known (in the order of `bodies`): the per-body checks run over
    all of them at once.

        names, objs, row    the bodies' names, objects, and row by name
        m                   (n, 4, 4) world matrices
        lo, hi              (n, 3) local bounds (`_local_bounds`)
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
        bounds = np.array([_local_bounds(o) for o in objs], dtype=np.float64).reshape(-1, 2, 3)
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
        return StartPoses(objs, m, [b.kind for b in rows], {})
    start = scene.ligament_world.frame_start
    objs, mats = [], {}
    for o in bodies:
        try:
            mats[o.name] = _rest_matrix(o, start)
        except SceneError:
            continue
        objs.append(o)
    m = [[tuple(r) for r in mats[o.name]] for o in objs]
    return StartPoses(objs, m, [effective_kind(o) for o in objs], mats)


def _determinants(a):
    """(n,) determinants of (n, 3, 3) matrices (a triple product: np.linalg goes through
    LAPACK, whose thread pool costs milliseconds a call inside Blender)."""
    return np.einsum("ni,ni->n", a[:, :, 0], np.cross(a[:, :, 1], a[:, :, 2]))


def _rest_matrix(obj, start):
    s = obj.ligament_body
    if effective_kind(obj) == 'DYNAMIC' and s.rest_valid and s.sim_pose and \
            not has_transform_animation(obj):
        q = rotation_to_quaternion(s.rest_rotation_mode, tuple(s.rest_rotation))
        local = compose(tuple(s.rest_location), q, obj.scale)
        if obj.parent is None:
            return local
        return matrix_world_at(obj.parent, start, {}) @ obj.matrix_parent_inverse @ local
    return matrix_world_at(obj, start, {})


def _local_bounds(obj):
    """The object's local bounding box (lo, hi) as two 3-tuples (`StartPoses` reads each
    body's once per check)."""
    box = obj.bound_box    # axis-aligned in the object's frame: corner 0 low, corner 6 high
    return box[0][:], box[6][:]


# --------------------------------------------------------------------------------------------
# Bodies

def scales(poses):
    """Negative scale, and non-uniform scale on a body with children. (A body's own
    non-uniform scale is fine otherwise: shapes are fitted to the scaled geometry.)"""
    out = []
    if not len(poses):
        return out
    mirrored = _determinants(poses.m[:, :3, :3]) < 0.0
    sc = poses.axes
    uneven = sc.max(axis=1) > 1.01 * sc.min(axis=1)
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
        if max(own) > 1.01 * min(own) and o.children:
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
    for i in np.flatnonzero(d.max(axis=1) > 1.1 * d.min(axis=1)):   # round shapes stick out
        o = poses.objs[i]
        shape = o.ligament_body.shape
        if shape not in ROUND_SHAPES:
            continue
        di = d[i].tolist()
        if shape == 'SPHERE':
            wide, narrow = max(di), min(di)
        else:
            wide, narrow = max(di[0], di[1]), min(di[0], di[1])
        if wide > 1.1 * narrow:
            gap = (wide - narrow) / 2
            out.append(Finding(WARNING, 'shape-fit', (o.name,),
                f"'{o.name}' has the {shape.title()} shape but is "
                f"{' x '.join(_length(x) for x in di)}: the round shape is fitted to the widest "
                f"axis, so it collides up to {_length(gap)} away from the surface you see; use "
                "Convex Hull or Box",
                Fix("ligament.set_body_shape", {"objects": o.name, "shape": 'CONVEX_HULL'},
                    "Use Convex Hull"), {"gap": gap}))
    return out


def scale_animated(obj):
    return any(path == "scale" for path, _ in transform_fcurves(obj))


def sizes(scene, poses):
    """Very small and very thin dynamic bodies: fast bodies pass through them."""
    out = []
    if not len(poses):
        return out
    rate = _substep_rate(scene)
    size, thin = poses.dims.max(axis=1), poses.dims.min(axis=1)
    for i in np.flatnonzero((thin < THIN) | (size < SMALL)):
        o = poses.objs[i]
        if poses.kinds[i] != 'DYNAMIC':
            continue
        if size[i] < SMALL:
            out.append(Finding(WARNING, 'small', (o.name,),
                f"'{o.name}' is very small ({_length(size[i])} across): anything moving faster "
                f"than {size[i] * rate:.1f} m/s (its size times the {rate:.0f} substeps a "
                "second) can pass through it, and it jitters in contact; scale the scene up "
                "or raise Substeps", select_fix([o]), {"size": float(size[i])}))
        else:
            out.append(Finding(WARNING, 'thin', (o.name,),
                f"'{o.name}' is very thin ({_length(thin[i])}): anything moving faster than "
                f"{thin[i] * rate:.1f} m/s (its thickness times the {rate:.0f} substeps a "
                "second) can pass through it; make it thicker or raise Substeps",
                select_fix([o]), {"thickness": float(thin[i])}))
    return out


def _substep_rate(scene):
    settings = world_settings(scene)
    return settings["substeps"] / settings["dt"]


def _joint_pairs(joints):
    """[(empty, its settings, type, object A, object B)] of `joints`: read once for a
    `JointList` (the anchor, mass-ratio and falling checks each walk every joint's pair)."""
    if isinstance(joints, JointList):
        return joints.pairs
    return _read_pairs(joints)


def _read_pairs(joints):
    rows = []
    for e in joints:
        js = e.ligament_joint
        rows.append((e, js, js.type, js.object_a, js.object_b))
    return rows


class JointList(list):
    """The joint empties of one `check`, with their pairs read once (`_joint_pairs`)."""

    @functools.cached_property
    def pairs(self):
        return _read_pairs(self)


def _body_pair(a, b, names):
    """(a, b) when both are different objects named in `names`, else None."""
    if a is None or b is None or a == b or a.name not in names or b.name not in names:
        return None
    return a, b


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
    for e, js, jtype, a, b in _joint_pairs(joints):
        pair = _body_pair(a, b, poses.row)
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
    k = 0
    for e, a, b, anchor, ends in rows:
        n = len(ends)
        g, sz = gap[k:k + n].min(), size[k:k + n].min()
        k += n
        if g > max(0.05, 0.5 * sz):
            whom = f"'{a.name}'" if len(ends) == 1 else f"both '{a.name}' and '{b.name}'"
            out.append(Finding(WARNING, 'anchor', (e.name, a.name, b.name),
                f"Joint '{e.name}': its anchor (the empty) is {_length(g)} outside {whom}, "
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
    # products of A's columns; no LAPACK, see `_determinants`)
    c0, c1, c2 = a[:, :, 0], a[:, :, 1], a[:, :, 2]
    adj = np.stack([np.cross(c1, c2), np.cross(c2, c0), np.cross(c0, c1)], axis=1)
    det = np.einsum("ni,ni->n", c0, adj[:, 0])
    ok = np.abs(det) > 1e-12
    inv = adj / np.where(ok, det, 1.0)[:, None, None]
    lo, hi = poses.lo[which], poses.hi[which]
    local = np.einsum("nij,nj->ni", inv, points - t)
    gap = np.linalg.norm(np.einsum("nij,nj->ni", a, np.clip(local, lo, hi) - local), axis=1)
    gap[~ok] = 0.0
    size = poses.dims[which].max(axis=1)
    return gap, size


def _groups(joints, names):
    """Union-find over the joints: {name: root name}."""
    parent = {n: n for n in names}

    def root(n):
        while parent[n] != n:
            parent[n] = parent[parent[n]]
            n = parent[n]
        return n
    for _, _, _, a, b in _joint_pairs(joints):
        pair = _body_pair(a, b, parent)
        if pair is not None:
            ra, rb = root(pair[0].name), root(pair[1].name)
            if ra != rb:
                parent[ra] = rb
    return {n: root(n) for n in names}


def mass_ratios(joints, sim=None):
    """Dynamic bodies over 100:1 in mass in one jointed group. With the built `sim`, the
    kinds and masses are the world's."""
    dynamic, mass, seen = {}, {}, set()   # each joint end's settings read once
    built = {b.name: b for b in sim.bodies} if sim is not None else None
    masses = sim.world.masses if sim is not None else None
    for _, _, _, a, b in _joint_pairs(joints):
        for o in (a, b):
            if o is None or o.name in seen:
                continue
            seen.add(o.name)
            if built is not None:
                body = built.get(o.name)
                if body is not None and body.kind == 'DYNAMIC':
                    dynamic[o.name] = o
                    mass[o.name] = float(masses[body.id])
            elif o.ligament_body.enabled and effective_kind(o) == 'DYNAMIC':
                dynamic[o.name] = o
                mass[o.name] = o.ligament_body.mass
    groups = {}
    for name, root in _groups(joints, dynamic).items():
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
    if np.linalg.norm(g) < 1e-9 or not len(poses):
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
    roots = _groups(joints, names)
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
            f"{who} for the whole frame range, {_length(drop)} by frame {ws.frame_end}; add a "
            "ground (a Static body) under it, or a joint to hold it", select_fix(members),
            {"drop": drop}))
    return out


# --------------------------------------------------------------------------------------------
# Measured on the built world

def overlaps(sim, poses):
    """Bodies overlapping at the start frame, and how deep (the solver's contacts)."""
    world = sim.world
    world.collide(PROBE_DT)
    c = world.contacts()
    names = {b.id: b.name for b in sim.bodies}
    deepest = {}
    for (i, j), sep in zip(c["bodies"].tolist(), c["separations"].tolist()):
        if -sep > OVERLAP:
            key = tuple(sorted((names.get(i), names.get(j)), key=str))
            deepest[key] = max(deepest.get(key, 0.0), -sep)
    out = []
    for (a, b), depth in sorted(deepest.items(), key=lambda kv: -kv[1]):
        if a is None or b is None:
            continue
        size = min(float(poses.dims[poses.row[n]].min()) for n in (a, b))
        inside = " (one is half inside the other)" if depth > 0.5 * size else ""
        out.append(Finding(WARNING, 'overlap', (a, b),
            f"'{a}' and '{b}' overlap by {_length(depth)} at the start frame{inside}: the "
            "solver pushes them apart in the first frames, so they jump; move them apart, or "
            "let them pass through each other (a joint's Disable Collisions, or collision "
            "groups)", select_fix([a, b]), {"depth": depth}))
    return out


def _twist_swing(jtype, rel):
    """(twist, swing excess factor) of the relative rotation `rel` in the joint empty's axes:
    hinges turn about local Z; ragdolls twist about local Y and swing about X and Z."""
    q = rel if rel.w >= 0.0 else -rel
    if jtype == 'HINGE':
        return 2.0 * math.atan2(q.z, q.w), None
    n = math.hypot(q.w, q.y)
    twist = Quaternion((q.w / n, 0.0, q.y / n, 0.0)) if n > 1e-12 else Quaternion()
    swing = q @ twist.inverted()
    axis, angle = swing.to_axis_angle()
    s = axis * angle
    return 2.0 * math.atan2(q.y, q.w), (s.x, s.z)


def _limit_excess(js, rel):
    """(how far past its limits, the angle, the limit passed) for the joint at `rel`."""
    twist, swing = _twist_swing(js.type, rel)
    worst = (0.0, twist, None)
    if js.use_limit_ang:
        if twist < js.limit_ang_lower:
            worst = (js.limit_ang_lower - twist, twist, js.limit_ang_lower)
        elif twist > js.limit_ang_upper:
            worst = (twist - js.limit_ang_upper, twist, js.limit_ang_upper)
    if swing is not None:
        phi = math.hypot(*swing)
        if phi > 1e-9:
            ux, uz = swing[0] / phi, swing[1] / phi
            phi_max = 1.0 / math.sqrt((ux / js.swing_1) ** 2 + (uz / js.swing_2) ** 2)
            if phi - phi_max > worst[0]:
                worst = (phi - phi_max, phi, phi_max)
    return worst


def _sample_frames(scene):
    ws = scene.ligament_world
    start, end = ws.frame_start, max(ws.frame_end, ws.frame_start)
    stride = max(1, (end - start) // 60)
    frames = list(range(start, end + 1, stride))
    return frames if frames[-1] == end else frames + [end]


def animated_limits(scene, sim, objs):
    """Animated targets outside a joint's limits: a ragdoll's animated pose (its start pose
    and what pose matching pulls toward), and joints between two bodies that both follow
    their keys. `objs`: the scene's objects by name."""
    start = sim.start
    frames = _sample_frames(scene)
    joint_names = {jid: name for name, jid in sim.joints}
    out = []
    # Ragdolls: the animated pose of the armature, part by part.
    for run in sim.ragdolls:
        specs = []
        for j in run.joints:   # hinge and ragdoll joints: their frames in the parts' at rest
            e = objs.get(joint_names.get(j.id))
            if e is None or j.frame_a is None:
                continue
            specs.append((e, j.a, j.b, j.frame_a, j.frame_b))
        if not specs:
            continue
        animated = run.skeleton.animated or has_transform_animation(run.arm)
        worst = {}
        placed = run.start_poses     # the pose the run started from, made at attach
        for f in (frames if animated else [start]):
            poses = placed[1] if f == placed[0] else run.animated_poses(f, {})
            for e, ia, ib, fa, fb in specs:
                rel = (poses[ia].to_quaternion() @ fa).inverted() @ (
                    poses[ib].to_quaternion() @ fb)
                excess = _limit_excess(e.ligament_joint, rel)
                if excess[0] > worst.get(e.name, (0.0,))[0]:
                    worst[e.name] = (*excess, f)
        for name, (excess, angle, limit, f) in worst.items():
            if excess > LIMIT_SLACK:
                out.append(_limit_finding(objs[name], run.arm.name, angle, limit, f,
                                          f"ragdoll '{run.arm.name}''s animated pose"))
    # Joints between two bodies that both follow their animation (the joint cannot give).
    moving = {b.name for b in sim.bodies if b.kind != 'DYNAMIC'}
    animated = {b.name for b in sim.bodies if b.animated}
    ragdoll_joints = {joint_names.get(j.id) for run in sim.ragdolls for j in run.joints}
    for name, jid in sim.joints:
        e = objs.get(name)
        if e is None or name in ragdoll_joints:
            continue
        js = e.ligament_joint
        a, b = js.object_a, js.object_b
        if js.type not in {'HINGE', 'RAGDOLL'} or a is None or b is None or \
                not {a.name, b.name} <= moving or not {a.name, b.name} & animated:
            continue
        qj = matrix_world_at(e, start, {}).to_quaternion()
        fa = matrix_world_at(a, start, {}).to_quaternion().inverted() @ qj
        fb = matrix_world_at(b, start, {}).to_quaternion().inverted() @ qj
        worst = (0.0, 0.0, None, start)
        for f in frames:
            rel = (matrix_world_at(a, f, {}).to_quaternion() @ fa).inverted() @ (
                matrix_world_at(b, f, {}).to_quaternion() @ fb)
            excess = _limit_excess(js, rel)
            if excess[0] > worst[0]:
                worst = (*excess, f)
        if worst[0] > LIMIT_SLACK:
            out.append(_limit_finding(e, None, worst[1], worst[2], worst[3],
                                      f"the keys of '{a.name}' and '{b.name}'"))
    return out


def _limit_finding(e, armature, angle, limit, frame, whose):
    objs = (e.name,) if armature is None else (e.name, armature)
    return Finding(WARNING, 'animated-limit', objs,
        f"Joint '{e.name}': {whose} turns it to {_deg(angle)} at frame {frame}, past its limit "
        f"of {_deg(limit)}: the joint fights the animation there (a pose started past a limit "
        "snaps back in the first frame); widen the limit or change the animation",
        select_fix([e]), {"angle": angle, "limit": limit, "frame": frame})
