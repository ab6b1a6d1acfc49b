"""Contact benchmark: the same scenes in Ligament, Blender's Bullet, pybullet and MuJoCo.

    PYTHONPATH=. /work/venv/bin/python bench/contacts.py            # 10 s of each scene
    PYTHONPATH=. /work/venv/bin/python bench/contacts.py --big      # + the 5050-box pyramid
    PYTHONPATH=. /work/venv/bin/python bench/contacts.py --quick    # 2 s of each scene
    PYTHONPATH=. /work/venv/bin/python bench/contacts.py --fast     # speculative margin cost

On 2 cores the default run takes about 10-15 minutes (MuJoCo's 820-box pyramid alone would
take longer: every engine and scene stops after --budget 150 s of wall time, and the `sim s`
column tells how many simulated seconds the figures cover); --big adds about 5.

Optional engines come from requirements-bench.txt (`pip install -r requirements-bench.txt`);
an engine that does not import is skipped with the reason printed. `--engines` and `--scenes`
pick a subset (e.g. `--engines ligament,mujoco --scenes ragdolls`).

Scenes (bench/scenes.py builds them once; every engine gets the same bodies, sizes, masses,
positions and joint frames):

* pyramid 20 / pyramid 40: 210 / 820 boxes of 1 m and 1000 kg, side faces touching, on a
  static ground slab.
* ragdolls: 20 ragdolls of 13 bodies (box pelvis, chest and feet, capsule head and limbs)
  and 12 joints (swing/twist cones at spine, neck, shoulders and hips, limited hinges at
  elbows, knees and ankles; jointed neighbours do not collide), dropped tilted onto the
  ground on a 5 x 4 grid.
* pyramid 100 (`--big`): 5050 boxes (base 100), Ligament only, always the full --seconds.
* `--fast` (Ligament only, instead of the table): what the speculative margin's reach costs.
  The same scenes run with the margin capped at 1 m of a body's motion per frame (before)
  and at today's cap (contacts.SPECULATIVE_CAP): pyramid 20, whose slow bodies never reach
  the old cap, and 50 balls of 1 cm shot at 100 to 200 m/s at a 1 cm wall from 3 m away;
  each line gives ms/frame and how many balls ended past the wall.

Common settings: gravity 9.81, 60 Hz frames of 4 substeps each, contact friction 0.5 for every
pair and restitution 0, no damping. Friction is mixed differently per engine, so each gets the
per-body value that gives 0.5 per pair: Ligament sqrt(a*b) and MuJoCo max(a, b) take 0.5,
Bullet's a*b takes sqrt(0.5). Iterations are each engine's own: Ligament `--iterations`
(default 5) solve/relax sweeps per substep with contacts at `--contact-hertz` (default 120)
and `--hertz-limit` (default 0.5: up to half the substep rate; the solver's own default is
60 Hz, a quarter, 2 iterations being enough there, but a 20-row pyramid then sinks 7.5 mm,
Bullet's 2.3); Bullet (both) 10 solver iterations per substep,
Blender's default; MuJoCo its default Newton solver (timestep 1/240 s, 4 steps a frame).
Each engine computes inertia from its own shapes.

* Ligament: `solver.World(substeps=4, sleeping=False)`, one `step(1/60)` a frame; like
  Blender's Bullet (deactivation off by default) it keeps every body awake unless
  `--sleeping` (a settled pyramid then falls asleep and costs well under 1 ms a frame).
* Bullet (Blender): the `bpy` wheel's rigid body world (`rigidbody.world_add`,
  substeps_per_frame 4), stepped by `scene.frame_set`, so a frame includes Blender's
  depsgraph update of every object, as in Blender itself. Ragdoll cones are GENERIC
  constraints with the swing limits on the frame's X and Z and the twist on Y (Bullet has no
  cone joint here); hinges are HINGE constraints with Z limits.
* pybullet: free boxes are maximal-coordinate bodies; each ragdoll is one multibody
  (loadURDF of a generated URDF, Featherstone) with spherical and revolute joints; revolute
  limits hold, spherical ones have no limits in pybullet's URDF path; self-collision on except
  between a link and its parent.
* MuJoCo: one MJCF; ragdoll cones are three limited hinges (swing1, swing2, twist) at the
  anchor; MuJoCo does not collide a body with its parent.

Figures, per scene and engine:

* ms/frame: median wall time of one frame over the frames after the first 10 (warm-up; for
  Ligament that keeps numba's compile or cache load out). Ligament's start-up is printed
  once apart: a child process imports the solver and steps a small pyramid and a ragdoll once,
  twice in a row (the first compiles whatever numba's cache lacks or holds stale, the second
  is a warm start), and with `--cold` a third time with an empty NUMBA_CACHE_DIR (compiling
  every kernel: minutes).
* vs Bullet: ms/frame over Bullet (Blender)'s on the same scene (below 1 = faster).
* sim s: the simulated seconds the figures below cover (--seconds unless the budget ran out).
* pyramids, after that time: top drift, how far the top box's centre moved
  from where it started (m), and max drift, the largest such move of any box.
* ragdolls, over every frame of the run: max gap, the largest distance between a joint's
  anchor as carried by its two bodies (joint separation, m; reduced-coordinate engines hold
  it at 0 by construction), and lowest z, the lowest point of any body surface (m; 0 is
  resting on the ground, below 0 is penetration: the landing impacts set it); rest z, the
  same lowest point at the end, when the ragdolls lie on the ground.
"""

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
for _p in (ROOT, HERE):
    if _p not in sys.path:
        sys.path.insert(0, _p)

import scenes as S  # noqa: E402

FPS = 60
SUBSTEPS = 4
GRAVITY = (0.0, 0.0, -9.81)
BULLET_ITERATIONS = 10
WARMUP = 10


# --------------------------------------------------------------------------------------------
# Engines: build(scene) in __init__, step() one frame, poses() -> positions (n,3) and
# rotation matrices (n,3,3) of every body in scene order

def populate(w, scene, linear_damping=0.0, angular_damping=0.0):
    """Add the scene's bodies (boxes, capsules and spheres, mass 0: static) and joints to
    World w, the dynamic bodies with the damping given."""
    import solver as lg
    for i, b in enumerate(scene.bodies):
        shape = (lg.Box(b.size) if b.shape == "box" else lg.Sphere(b.size[0])
                 if b.shape == "sphere" else lg.Capsule(*b.size))
        q = S.matrix_to_quat(b.rotation)
        if b.mass > 0:
            got = w.add_body(shape, b.position, q, mass=b.mass, friction=scene.mu,
                             linear_damping=linear_damping, angular_damping=angular_damping)
        else:
            got = w.add_body(shape, b.position, q, kind="static", friction=scene.mu)
        assert got == i
    for j in scene.joints:
        if j.kind == "hinge":
            w.add_hinge(j.a, j.b, j.anchor, j.axis, lower=j.limits[0], upper=j.limits[1])
        elif j.kind == "ball":
            w.add_ball_socket(j.a, j.b, j.anchor)
        else:
            w.add_ragdoll(j.a, j.b, j.anchor, j.axis, *j.limits, swing_axis=j.swing_axis)


class Ligament:
    label = "Ligament"
    module = "solver"

    def __init__(self, scene, args):
        import solver as lg
        self.w = lg.World(gravity=GRAVITY, substeps=SUBSTEPS, iterations=args.iterations,
                          sleeping=args.sleeping, contact_hertz=args.contact_hertz,
                          contact_hertz_limit=args.hertz_limit)
        populate(self.w, scene)

    def step(self):
        self.w.step(1.0 / FPS)

    def poses(self):
        return self.w.positions.copy(), S.quats_to_matrices(self.w.orientations)


class BlenderBullet:
    """Blender's rigid body world. Every body stays awake (Blender's default) unless
    `args.deactivation` is set: then Blender's Enable Deactivation on every active body at
    its default thresholds (0.4 m/s, 0.5 rad/s; Bullet puts a body to sleep after 2 s
    under them); the bodies in `args.start_asleep` (ids) also get Start Deactivated (they
    start asleep, as animators set a wall up to wait for its hit)."""
    label = "Bullet (Blender)"
    module = "bpy"

    def __init__(self, scene, args):
        import bpy
        self.bpy = bpy
        bpy.ops.wm.read_factory_settings(use_empty=True)
        self.scene = sc = bpy.context.scene
        sc.render.fps, sc.render.fps_base = FPS, 1.0
        bpy.ops.rigidbody.world_add()
        rbw = sc.rigidbody_world
        rbw.substeps_per_frame = SUBSTEPS
        rbw.solver_iterations = BULLET_ITERATIONS
        rbw.point_cache.frame_start = 1
        rbw.point_cache.frame_end = int(args.seconds * FPS) + 2
        meshes, self.objs = {}, []
        for b in scene.bodies:
            key = (b.shape, b.size)
            if key not in meshes:
                meshes[key] = self._mesh(*key)
            o = bpy.data.objects.new("body", meshes[key])
            o.rotation_mode = 'QUATERNION'
            o.location, o.rotation_quaternion = b.position, S.matrix_to_quat(b.rotation)
            sc.collection.objects.link(o)
            self.objs.append(o)
        for kind in ('ACTIVE', 'PASSIVE'):
            chosen = [o for o, b in zip(self.objs, scene.bodies) if (b.mass > 0) == (kind == 'ACTIVE')]
            with bpy.context.temp_override(selected_objects=chosen, object=chosen[0],
                                           active_object=chosen[0]):
                bpy.ops.rigidbody.objects_add(type=kind)
        for o, b in zip(self.objs, scene.bodies):
            rb = o.rigid_body
            rb.collision_shape = b.shape.upper()
            rb.mass = max(b.mass, 1.0)
            rb.friction = math.sqrt(scene.mu)      # Bullet multiplies the two frictions
            rb.restitution = 0.0
            rb.linear_damping = rb.angular_damping = 0.0
            rb.use_deactivation = getattr(args, "deactivation", False)
        for i in getattr(args, "start_asleep", ()):
            self.objs[i].rigid_body.use_start_deactivated = True
        for j in scene.joints:
            self._constraint(j)
        self.frame = 1
        sc.frame_set(1)

    def _mesh(self, shape, size):
        """A mesh whose bounds are the shape (scale stays 1, so Blender's shape-from-bounds
        gives exactly these sizes)."""
        import bmesh
        bm = bmesh.new()
        if shape == "box":
            bmesh.ops.create_cube(bm, size=1.0)
            bmesh.ops.scale(bm, vec=[2 * h for h in size], verts=bm.verts)
        elif shape == "sphere":
            bmesh.ops.create_uvsphere(bm, u_segments=32, v_segments=16, radius=size[0])
        else:
            r, hh = size
            bmesh.ops.create_cone(bm, cap_ends=True, segments=16, radius1=r, radius2=r,
                                  depth=2 * (hh + r))
        mesh = self.bpy.data.meshes.new(shape)
        bm.to_mesh(mesh)
        bm.free()
        return mesh

    def _constraint(self, j):
        bpy = self.bpy
        e = bpy.data.objects.new("joint", None)
        self.scene.collection.objects.link(e)
        e.rotation_mode = 'QUATERNION'
        m = S.frame(j.axis, j.swing_axis) if j.kind == "ragdoll" else S.frame(j.axis)
        e.location, e.rotation_quaternion = j.anchor, S.matrix_to_quat(m)
        bpy.context.view_layer.objects.active = e    # (a temp_override here crashes Blender)
        bpy.ops.rigidbody.constraint_add(
            type={"ragdoll": 'GENERIC', "hinge": 'HINGE', "ball": 'POINT'}[j.kind])
        c = e.rigid_body_constraint
        c.object1, c.object2 = self.objs[j.a], self.objs[j.b]
        c.disable_collisions = True
        if j.kind == "ball":
            return
        if j.kind == "hinge":       # about the frame's Z; Bullet measures A relative to B
            c.use_limit_ang_z = True
            c.limit_ang_z_lower, c.limit_ang_z_upper = -j.limits[1], -j.limits[0]
            return
        s1, s2, lo, hi = j.limits  # twist on the frame's Y, swings on X and Z
        S.limit_generic(c, ((-s1, s1), (lo, hi), (-s2, s2)))

    def step(self):
        self.frame += 1
        self.scene.frame_set(self.frame)

    def poses(self):
        dg = self.bpy.context.evaluated_depsgraph_get()
        m = np.array([np.array(o.evaluated_get(dg).matrix_world) for o in self.objs])
        return m[:, :3, 3], m[:, :3, :3]


def _rpy(m):
    """URDF roll, pitch, yaw (R = Rz(yaw) Ry(pitch) Rx(roll)) of a rotation matrix."""
    if abs(m[2, 0]) > 1.0 - 1e-9:
        s = -math.copysign(1.0, m[2, 0])
        return math.atan2(s * m[0, 1], m[1, 1]), s * math.pi / 2, 0.0
    return math.atan2(m[2, 1], m[2, 2]), math.asin(-m[2, 0]), math.atan2(m[1, 0], m[0, 0])


def _xyz(v):
    return " ".join(f"{x:.9g}" for x in v)


class PyBullet:
    label = "pybullet"
    module = "pybullet"

    def __init__(self, scene, args):
        import pybullet as p
        self.p = p
        self.cid = cid = p.connect(p.DIRECT)
        p.setGravity(*GRAVITY, physicsClientId=cid)
        p.setPhysicsEngineParameter(fixedTimeStep=1.0 / FPS, numSubSteps=SUBSTEPS,
                                    numSolverIterations=BULLET_ITERATIONS, physicsClientId=cid)
        self.handles = [None] * len(scene.bodies)          # (multibody, link or -1)
        shapes = {}
        for i, b in enumerate(scene.bodies):
            if i in scene.parent or any(g[0] == i for g in scene.groups):
                continue
            if (b.shape, b.size) not in shapes:
                shapes[b.shape, b.size] = p.createCollisionShape(
                    p.GEOM_BOX, halfExtents=b.size, physicsClientId=cid)
            w, x, y, z = S.matrix_to_quat(b.rotation)
            uid = p.createMultiBody(b.mass, shapes[b.shape, b.size], -1, b.position,
                                    (x, y, z, w), useMaximalCoordinates=True,
                                    physicsClientId=cid)
            self.handles[i] = (uid, -1)
        with tempfile.TemporaryDirectory(prefix="bench-urdf-") as tmp:
            for k, group in enumerate(scene.groups):
                path = os.path.join(tmp, f"r{k}.urdf")
                with open(path, "w") as f:
                    f.write(self._urdf(scene, group))
                uid = p.loadURDF(path, scene.bodies[group[0]].position, physicsClientId=cid,
                                 flags=p.URDF_USE_SELF_COLLISION |
                                 p.URDF_USE_SELF_COLLISION_EXCLUDE_PARENT)
                self.handles[group[0]] = (uid, -1)
                for jj in range(p.getNumJoints(uid, physicsClientId=cid)):
                    info = p.getJointInfo(uid, jj, physicsClientId=cid)
                    self.handles[int(info[12].decode()[1:])] = (uid, jj)   # link "l<body>"
                    if info[2] == p.JOINT_SPHERICAL:
                        p.setJointMotorControlMultiDof(uid, jj, p.POSITION_CONTROL,
                                                       targetPosition=[0, 0, 0, 1],
                                                       positionGain=0, velocityGain=0,
                                                       force=[0, 0, 0], physicsClientId=cid)
                    else:
                        p.setJointMotorControl2(uid, jj, p.VELOCITY_CONTROL, force=0,
                                                physicsClientId=cid)
        for uid, link in self.handles:
            p.changeDynamics(uid, link, lateralFriction=math.sqrt(scene.mu), restitution=0.0,
                             linearDamping=0.0, angularDamping=0.0, physicsClientId=cid)

    @staticmethod
    def _urdf(scene, group):
        """One ragdoll as URDF: every link frame sits at its joint's anchor (the root's at its
        centre) with the world's orientation, so joint origins are plain differences."""
        origin = {group[0]: scene.bodies[group[0]].position}
        out = ['<robot name="ragdoll">']
        for i in group:
            b = scene.bodies[i]
            if i in scene.parent:
                origin[i] = scene.joints[scene.parent[i]].anchor
            at = f'<origin xyz="{_xyz(b.position - origin[i])}" rpy="{_xyz(_rpy(b.rotation))}"/>'
            geom = (f'<box size="{_xyz(2 * np.asarray(b.size))}"/>' if b.shape == "box" else
                    f'<capsule radius="{b.size[0]:.9g}" length="{2 * b.size[1]:.9g}"/>')
            out.append(f'<link name="l{i}"><inertial>{at}<mass value="{b.mass}"/><inertia '
                       'ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial>'
                       f'<collision>{at}<geometry>{geom}</geometry></collision></link>')
        for i in group[1:]:
            j = scene.joints[scene.parent[i]]
            kind = "revolute" if j.kind == "hinge" else "spherical"
            limit = (f'<limit lower="{j.limits[0]}" upper="{j.limits[1]}" effort="1e6" '
                     'velocity="100"/>' if j.kind == "hinge" else "")
            out.append(f'<joint name="j{i}" type="{kind}"><parent link="l{j.a}"/>'
                       f'<child link="l{i}"/><origin xyz="{_xyz(j.anchor - origin[j.a])}"/>'
                       f'<axis xyz="{_xyz(j.axis)}"/>{limit}</joint>')
        out.append("</robot>")
        return "\n".join(out)

    def step(self):
        self.p.stepSimulation(physicsClientId=self.cid)

    def poses(self):
        p, cid = self.p, self.cid
        pos, quat = [], []
        for uid, link in self.handles:
            if link < 0:
                x, q = p.getBasePositionAndOrientation(uid, physicsClientId=cid)
            else:
                x, q = p.getLinkState(uid, link, computeForwardKinematics=True,
                                      physicsClientId=cid)[:2]
            pos.append(x)
            quat.append((q[3], q[0], q[1], q[2]))
        return np.array(pos), S.quats_to_matrices(np.array(quat))


class MuJoCo:
    label = "MuJoCo"
    module = "mujoco"

    def __init__(self, scene, args):
        import mujoco
        self.mj = mujoco
        self.m = mujoco.MjModel.from_xml_string(self._mjcf(scene))
        self.d = mujoco.MjData(self.m)
        self.geoms = [mujoco.mj_name2id(self.m, mujoco.mjtObj.mjOBJ_GEOM, f"g{i}")
                      for i in range(len(scene.bodies))]
        mujoco.mj_forward(self.m, self.d)

    @staticmethod
    def _mjcf(scene):
        children = {}
        for i, j in scene.parent.items():
            children.setdefault(scene.joints[j].a, []).append(i)

        def body(i, parent_pos, out):
            b = scene.bodies[i]
            size = _xyz(b.size)
            q = _xyz(S.matrix_to_quat(b.rotation))
            if b.mass == 0:     # a static geom in the world body
                out.append(f'<geom name="g{i}" type="{b.shape}" size="{size}" quat="{q}" '
                           f'pos="{_xyz(b.position)}"/>')
                for c in children.get(i, []):
                    body(c, np.zeros(3), out)
                return
            geom = f'<geom name="g{i}" type="{b.shape}" size="{size}" quat="{q}" mass="{b.mass}"/>'
            out.append(f'<body pos="{_xyz(b.position - parent_pos)}">')
            if i in scene.parent:
                j = scene.joints[scene.parent[i]]
                at = _xyz(j.anchor - b.position)
                if j.kind == "hinge":
                    axes = [(j.axis, j.limits)]
                else:
                    s1, s2, lo, hi = j.limits
                    axes = [(j.swing_axis, (-s1, s1)),
                            (np.cross(j.axis, j.swing_axis), (-s2, s2)), (j.axis, (lo, hi))]
                for axis, (lo, hi) in axes:
                    out.append(f'<joint type="hinge" pos="{at}" axis="{_xyz(axis)}" '
                               f'range="{lo} {hi}"/>')
            else:
                out.append("<freejoint/>")
            out.append(geom)
            for c in children.get(i, []):
                body(c, b.position, out)
            out.append("</body>")

        out = [f'<mujoco><compiler angle="radian" autolimits="true"/>'
               f'<option timestep="{1.0 / (FPS * SUBSTEPS):.12g}" gravity="{_xyz(GRAVITY)}"/>'
               f'<size memory="512M"/><default><geom friction="{scene.mu} 0.005 0.0001"/>'
               '</default><worldbody>']
        for i in range(len(scene.bodies)):
            if i not in scene.parent:
                body(i, np.zeros(3), out)
        out.append("</worldbody></mujoco>")
        return "\n".join(out)

    def step(self):
        self.mj.mj_step(self.m, self.d, nstep=SUBSTEPS)

    def poses(self):
        return (self.d.geom_xpos[self.geoms].copy(),
                self.d.geom_xmat[self.geoms].reshape(-1, 3, 3).copy())


ENGINES = {"bullet": BlenderBullet, "ligament": Ligament, "pybullet": PyBullet,
           "mujoco": MuJoCo}


def missing(engine):
    """Why `engine` cannot run here, or None."""
    try:
        __import__(engine.module)
    except Exception as e:   # ImportError, or a wheel that loads but fails to initialise
        return f"{type(e).__name__}: {e}"
    return None


# --------------------------------------------------------------------------------------------
# Running and measuring

def run(engine, scene, args, budget):
    """Simulate `scene` for args.seconds, or until `budget` seconds of wall time have gone
    by; returns (ms per frame, simulated seconds, figures as in FIGURES)."""
    eng = engine(scene, args)
    gauge = S.JointGauge(scene) if scene.kind == "ragdolls" else None
    gap, low, times = 0.0, math.inf, []
    start, frames = time.perf_counter(), int(round(args.seconds * FPS))
    for f in range(frames):
        t0 = time.perf_counter()
        eng.step()
        t1 = time.perf_counter()
        if f >= WARMUP:
            times.append(t1 - t0)
        if gauge is not None:
            pos, rot = eng.poses()
            gap = max(gap, gauge.gap(pos, rot))
            low = min(low, S.lowest_point(scene, pos, rot))
        if budget and t1 - start > budget and f > 2 * WARMUP:
            frames = f + 1
            break
    ms = 1000.0 * statistics.median(times)
    pos, rot = eng.poses()
    if gauge is not None:
        return ms, frames / FPS, (gap, low, S.lowest_point(scene, pos, rot))
    return ms, frames / FPS, S.drift(scene, pos)


STARTUP = r"""
import json, sys, time
t0 = time.perf_counter()
sys.path[:0] = [{root!r}, {here!r}]
import solver
t1 = time.perf_counter()
import contacts, scenes
s = scenes.pyramid(3)
scenes.add_ragdoll(s, (10.0, 0.0, 0.2), scenes.axis_angle((1, 0, 0), 0.3))
class A: iterations, sleeping, contact_hertz, hertz_limit = {iterations}, False, {hertz}, {limit}
e = contacts.Ligament(s, A)
t2 = time.perf_counter()
from solver import warmup
warmup.prepare()
e.step()
t3 = time.perf_counter()
print(json.dumps({{"import": t1 - t0, "first_step": t3 - t2}}))
"""


def startup(iterations, hertz, limit, cache_dir=None):
    """Ligament's start-up in a fresh process: (import s, first step s, process wall s)."""
    env = dict(os.environ)
    if cache_dir:
        env["NUMBA_CACHE_DIR"] = cache_dir
    code = STARTUP.format(root=ROOT, here=HERE, iterations=iterations, hertz=hertz, limit=limit)
    t0 = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, check=True).stdout.splitlines()[-1]
    r = json.loads(out)
    return r["import"], r["first_step"], time.perf_counter() - t0


SCENES = {"pyramid20": lambda: S.pyramid(20), "pyramid40": lambda: S.pyramid(40),
          "ragdolls": lambda: S.ragdolls(20)}
BIG = {"big": lambda: S.pyramid(100)}
FIGURES = {"pyramid": ("top drift m", "max drift m"),
           "ragdolls": ("max gap m", "lowest z m", "rest z m")}


def _bullets():
    """50 balls of 1 cm shot from 3 m at 100 to 200 m/s at a static 1 cm wall (no gravity)."""
    import solver as lg
    w = lg.World(gravity=(0.0, 0.0, 0.0), substeps=SUBSTEPS, sleeping=False)
    w.add_body(lg.Box((0.005, 5.0, 5.0)), (0.0, 0.0, 0.0), kind="static")
    rng = np.random.default_rng(1)
    for k in range(50):
        y, z = rng.uniform(-4.0, 4.0, 2)
        w.add_body(lg.Sphere(0.005), (-3.0, y, z), linear_velocity=(100.0 + 2.0 * k, 0, 0))
    return w


def fast_bodies(args):
    """Lines of ms/frame (and balls through the wall) with the margin cap before and now."""
    from solver.contacts import SPECULATIVE_CAP
    print(line("scene", "margin cap", "ms/frame", "", "sim s", "passed"), flush=True)
    for name in ("pyramid20", "bullets"):
        for cap in (1.0, SPECULATIVE_CAP):
            if name == "bullets":
                w = _bullets()
            else:
                w = Ligament(SCENES[name](), args).w
            w._contacts.speculative_cap = cap
            frames = int(round(args.seconds * FPS))
            times = []
            for f in range(frames):
                t0 = time.perf_counter()
                w.step(1.0 / FPS)
                if f >= WARMUP:
                    times.append(time.perf_counter() - t0)
            passed = int((w.positions[1:, 0] > 0.0).sum()) if name == "bullets" else 0
            print(line(name, f"{cap:g} m", f"{1000.0 * statistics.median(times):.2f}", "",
                       f"{frames / FPS:.1f}", str(passed)), flush=True)


def line(scene, engine, ms, ratio, sim, *figures):
    if isinstance(ms, float):
        ms, figures = f"{ms:.2f}", [f"{x:.4f}" for x in figures]
    return (f"{scene:26}{engine:18}{ms:>10}{ratio:>11}{sim:>7}"
            + "".join(f"{x:>13}" for x in figures))


def main():
    from solver import warmup
    warmup.prepare()      # compile (or load) every kernel before timing
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="2 s per scene")
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--iterations", type=int, default=5, help="Ligament's sweeps per substep")
    ap.add_argument("--contact-hertz", type=float, default=120.0,
                    help="Ligament's contact stiffness (solver default 60)")
    ap.add_argument("--hertz-limit", type=float, default=0.5,
                    help="Ligament's contact hertz cap as a fraction of the substep rate "
                         "(solver default 0.25)")
    ap.add_argument("--sleeping", action="store_true",
                    help="let Ligament's bodies at rest sleep (off: Blender's Bullet does not)")
    ap.add_argument("--engines", default=",".join(ENGINES))
    ap.add_argument("--scenes", default=",".join(SCENES))
    ap.add_argument("--big", action="store_true", help="add the 5050-box pyramid (Ligament)")
    ap.add_argument("--budget", type=float, default=150.0,
                    help="wall seconds per engine and scene before it stops early")
    ap.add_argument("--cold", action="store_true",
                    help="also time a start-up that compiles every kernel (minutes)")
    ap.add_argument("--fast", action="store_true",
                    help="only the speculative margin's cost: 1 m cap against today's")
    args = ap.parse_args()
    if args.quick:
        args.seconds = min(args.seconds, 2.0)
    if args.fast:
        fast_bodies(args)
        return
    names = args.scenes.split(",") + (["big"] if args.big else [])
    engines = []
    print(f"60 Hz, {SUBSTEPS} substeps, {args.seconds:g} s per scene, {os.cpu_count()} cores; "
          f"Ligament iterations {args.iterations}, contacts {args.contact_hertz:g} Hz (limit "
          f"{args.hertz_limit:g} x substep rate); Bullet iterations {BULLET_ITERATIONS}")
    for key in args.engines.split(","):
        why = missing(ENGINES[key])
        if why:
            print(f"skipping {ENGINES[key].label}: {why}")
        else:
            engines.append(ENGINES[key])

    if Ligament in engines:
        runs = [("first (numba cache as found)", None), ("warm (cached)", None)]
        with tempfile.TemporaryDirectory(prefix="ligament-numba-") as cache:
            for label, cache_dir in runs + ([("cold (empty cache)", cache)] if args.cold else []):
                imp, first, wall = startup(args.iterations, args.contact_hertz,
                                           args.hertz_limit, cache_dir)
                print(f"Ligament start-up, {label:29}: import {imp:5.2f} s, first step "
                      f"{first:7.2f} s, process {wall:7.2f} s", flush=True)
    print()

    table = []
    for name in names:
        scene = {**SCENES, **BIG}[name]()
        header = line("scene", "engine", "ms/frame", "vs Bullet", "sim s", *FIGURES[scene.kind])
        print(header, flush=True)
        rows, base, results = [header], None, []
        for engine in engines:
            if name == "big" and engine is not Ligament:
                continue
            ms, sim, figures = run(engine, scene, args, None if name == "big" else args.budget)
            if engine is BlenderBullet:
                base = ms
            results.append((engine, ms, sim, figures))
        for engine, ms, sim, figures in results:     # the ratios need Bullet's time first
            ratio = f"{ms / base:.2f}x" if base else "-"
            rows.append(line(scene.name, engine.label, ms, ratio, f"{sim:.1f}", *figures))
            print(rows[-1], flush=True)
        table += rows
        print()
    print("Summary")
    print("\n".join(table))


if __name__ == "__main__":
    main()
