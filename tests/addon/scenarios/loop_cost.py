"""test_loop_cost.py's scenario: Box3D's "joint grid" (issue 44, item 5), an n x n grid of
1 kg spheres (radius 0.4 m, 1 m apart) in the x-z plane, each joined to its right and lower
neighbour by a ball socket at their midpoint, hung from its two top corners, stepped at 60 Hz
by Ligament's solver (the installed extension's, `World()` defaults, bodies kept awake) and by
Blender's rigid body world (Bullet, 4 substeps and 10 iterations, as bench/loops.py) in this
Blender process. Times are CPU seconds of the process (time.process_time), after warm-up
frames: a ratio within one process, as the benchmark prints it."""

import sys
import time

import bmesh
import bpy
import numpy as np

from .helpers import lig

FPS = 60
WARMUP = 10


def _grid(n):
    """Centres and joints (a, b, anchor; a None: the world) of the n x n grid."""
    centres = [(k * 1.0, 0.0, -i * 1.0) for i in range(n) for k in range(n)]
    joints = []
    for i in range(n):
        for k in range(n):
            if k + 1 < n:
                joints.append((i * n + k, i * n + k + 1, (k + 0.5, 0.0, -i * 1.0)))
            if i + 1 < n:
                joints.append((i * n + k, (i + 1) * n + k, (k * 1.0, 0.0, -(i + 0.5))))
    for k in (0, n - 1):
        joints.append((None, k, (k * 1.0, 0.0, 0.0)))
    return centres, joints


def _cpu_per_frame(step, frames):
    spent = []
    for f in range(frames):
        t = time.process_time()
        step()
        if f >= WARMUP:
            spent.append(time.process_time() - t)
    return float(np.mean(spent))


def _ligament(n, frames):
    solver = sys.modules[lig().__name__ + ".addon.kernels"].solver
    w = solver.World(gravity=(0.0, 0.0, -9.81), sleeping=False)
    centres, joints = _grid(n)
    ids = [w.add_body(solver.Sphere(0.4), c, mass=1.0) for c in centres]
    for a, b, p in joints:
        w.add_ball_socket(None if a is None else ids[a], ids[b], p)
    cpu = _cpu_per_frame(lambda: w.step(1.0 / FPS), frames)

    def end(body, p):
        # the anchor carried by its body from where it was built (unturned, at its centre)
        if body is None:
            return np.array(p)
        w_, x, y, z = w.orientations[ids[body]]
        u, v = np.array([x, y, z]), np.array(p) - np.array(centres[body])
        return w.positions[ids[body]] + v + 2.0 * np.cross(u, np.cross(u, v) + w_ * v)

    gap = max(float(np.linalg.norm(end(a, p) - end(b, p))) for a, b, p in joints)
    return cpu, gap


def _bullet(n, frames):
    scene = bpy.context.scene
    scene.render.fps, scene.render.fps_base = FPS, 1.0
    bpy.ops.rigidbody.world_add()
    rbw = scene.rigidbody_world
    rbw.substeps_per_frame = 4
    rbw.solver_iterations = 10
    rbw.point_cache.frame_start = 1
    rbw.point_cache.frame_end = frames + 2
    bm = bmesh.new()
    bmesh.ops.create_uvsphere(bm, u_segments=32, v_segments=16, radius=0.4)
    mesh = bpy.data.meshes.new("Sphere")
    bm.to_mesh(mesh)
    bm.free()
    centres, joints = _grid(n)
    objs = []
    for c in centres:
        o = bpy.data.objects.new("Ball", mesh)
        o.location = c
        scene.collection.objects.link(o)
        objs.append(o)
    anchor = bpy.data.objects.new("Anchor", mesh)
    anchor.location = (0.0, 0.0, 50.0)
    scene.collection.objects.link(anchor)
    for kind, chosen in (('ACTIVE', objs), ('PASSIVE', [anchor])):
        with bpy.context.temp_override(selected_objects=chosen, object=chosen[0],
                                       active_object=chosen[0]):
            bpy.ops.rigidbody.objects_add(type=kind)
    for o in objs + [anchor]:
        rb = o.rigid_body
        rb.collision_shape = 'SPHERE'
        rb.mass = 1.0
        rb.linear_damping = rb.angular_damping = 0.0
        rb.use_deactivation = False
    # the first constraint by Blender's operator, the others copies of it (the operator
    # evaluates the scene around each call: 1 742 of them take most of an hour)
    template = None
    for a, b, p in joints:
        if template is None:
            e = template = bpy.data.objects.new("Joint", None)
            scene.collection.objects.link(e)
            bpy.context.view_layer.objects.active = e
            bpy.ops.rigidbody.constraint_add(type='POINT')
            e.rigid_body_constraint.disable_collisions = True
        else:
            e = template.copy()
            scene.collection.objects.link(e)
            if e.name not in rbw.constraints.objects:
                rbw.constraints.objects.link(e)
        e.location = p
        c = e.rigid_body_constraint
        c.object1, c.object2 = anchor if a is None else objs[a], objs[b]
    scene.frame_set(1)
    frame = [1]

    def step():
        frame[0] += 1
        scene.frame_set(frame[0])

    return _cpu_per_frame(step, frames)


def joint_grid_beside_bullet(n, frames):
    """CPU seconds a frame of each engine, and Ligament's largest joint gap at the end (m)."""
    ligament, gap = _ligament(n, frames)
    bullet = _bullet(n, frames)
    return {"ligament": ligament, "bullet": bullet, "gap": gap}
