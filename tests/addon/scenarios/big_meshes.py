"""test_big_meshes.py's scenarios: the Convex Hull shape of a dense mesh, the scene check
over a Compound of hundreds of convex parts, Split into Convex Parts after a rename. Times
are CPU seconds of the Blender process (time.process_time)."""

import math
import sys
import time

import bpy
import numpy as np

from .helpers import box, lig


def _module(name):
    return sys.modules[lig().__name__ + name]


def warm():
    """The solver's kernels loaded by a small scene first, so no time below is theirs."""
    simulation = _module(".addon.runtime.simulation")
    b = box("Warm", (0.2, 0.2, 0.2), (50, 0, 0.5))
    sim = simulation.Simulation(bpy.context.scene)
    sim.world.collide(1e-6)
    bpy.data.objects.remove(b)


def hull_of_a_dense_sphere():
    """A UV sphere of 128 x 80 segments as a Convex Hull body over the ground: the hull's
    fit, the build and the first collide timed, and how the hull sits on the mesh."""
    scene = bpy.context.scene
    shapes = _module(".addon.scene.shapes")
    simulation = _module(".addon.runtime.simulation")
    warm()
    bpy.ops.mesh.primitive_uv_sphere_add(segments=128, ring_count=80, radius=0.5,
                                         location=(0, 0, 1))
    ball = bpy.context.active_object
    ball.name = "Ball"
    s = ball.ligament_body
    s.enabled, s.shape, s.density = True, 'CONVEX_HULL', 1000.0
    box("Ground", (10, 10, 1), (0, 0, -0.5), kind='STATIC')
    bpy.context.view_layer.update()
    dg = bpy.context.evaluated_depsgraph_get()
    t = time.process_time()
    hull, _ = shapes.fit_shape(ball, 'CONVEX_HULL', tuple(ball.scale), dg)
    hull_s = time.process_time() - t
    t = time.process_time()
    sim = simulation.Simulation(scene)
    build_s = time.process_time() - t
    t = time.process_time()
    sim.world.collide(1e-6)          # the collider's tables of the hull, made on first use
    collide_s = time.process_time() - t
    mesh = np.array([v.co[:] for v in ball.data.vertices])
    # each hull vertex is a vertex of the mesh
    gap = [float(np.min(np.linalg.norm(mesh - v, axis=1))) for v in hull.vertices]
    volume = hull.mass_properties()[0]
    # every mesh vertex within the hull's planes or outside them by how much
    v, f = hull.vertices, hull.triangles
    n = np.cross(v[f[:, 1]] - v[f[:, 0]], v[f[:, 2]] - v[f[:, 0]])
    n /= np.linalg.norm(n, axis=1)[:, None]
    out_of = (mesh @ n.T - np.einsum("ij,ij->i", n, v[f[:, 0]])).max(axis=1)
    return {"vertices": len(mesh), "hull_vertices": len(hull.vertices), "hull_s": hull_s,
            "build_s": build_s, "collide_s": collide_s, "gap": max(gap), "volume": volume,
            "outside": float(out_of.max()), "bodies": len(sim.bodies)}


def check_of_500_convex_parts():
    """A 50 kg Compound ring of 500 random convex parts reaching into the ground: the build,
    the overlap test and the whole check timed, the overlaps, the contacts, the codes."""
    scene = bpy.context.scene
    simulation = _module(".addon.runtime.simulation")
    doctor = _module(".addon.check.doctor")
    measured = _module(".addon.check.measured")
    start_poses = _module(".addon.check.start_poses")
    warm()
    rng = np.random.default_rng(3)
    box("Ground", (10, 10, 1), (0, 0, -0.5), kind='STATIC')
    ring = bpy.data.objects.new("Ring", bpy.data.meshes.new("Ring"))
    scene.collection.objects.link(ring)
    ring.location = (0, 0, 0.25)
    rs = ring.ligament_body
    rs.enabled, rs.shape, rs.mass = True, 'COMPOUND', 50.0
    count = 500
    for k in range(count):
        a = 2 * math.pi * k / count
        blob = rng.normal(size=(64, 3)) * (0.01, 0.03, 0.1)
        blob[:, 2] = np.clip(blob[:, 2], -0.3, 0.3)
        me = bpy.data.meshes.new(f"part{k}")
        me.from_pydata([tuple(p) for p in blob], [], [])
        part = bpy.data.objects.new(f"part{k}", me)
        scene.collection.objects.link(part)
        part.parent = ring
        part.location = (2 * math.cos(a), 2 * math.sin(a), 0.0)
        part.rotation_euler = (0, 0, a)
        part.ligament_body.shape = 'CONVEX_HULL'
    bpy.context.view_layer.update()
    t = time.process_time()
    sim = simulation.Simulation(scene)
    build_s = time.process_time() - t
    poses = start_poses.start_matrices(scene, [o for o in scene.objects
                                               if o.ligament_body.enabled], sim)
    t = time.process_time()
    found = measured.overlaps(sim, poses)
    overlap_s = time.process_time() - t
    contacts = sim.world.contact_count()
    sim.world.load_state(sim.states[sim.start])
    t = time.process_time()
    findings = doctor.check(scene, sim)
    check_s = time.process_time() - t
    lowest = min((p.matrix_world @ v.co).z for p in ring.children for v in p.data.vertices)
    return {"build_s": build_s, "overlap_s": overlap_s, "check_s": check_s,
            "overlaps": [f.objects for f in found], "lowest": lowest,
            "contacts": contacts,
            "codes": sorted({f.code for f in findings})}


def split_again_after_a_rename():
    """A torus split into convex parts, renamed with its mesh, split again: the parts'
    names each time, and the part meshes and objects left."""
    bpy.ops.mesh.primitive_torus_add(major_segments=24, minor_segments=8)
    torus = bpy.context.active_object
    torus.name = "Donut"
    bpy.ops.ligament.split_convex_parts(threshold=0.1)
    first = sorted(c.name for c in torus.children)
    torus.name = "Ring"
    torus.data.name = "Ring mesh"
    bpy.ops.ligament.split_convex_parts(threshold=0.1)
    second = sorted(c.name for c in torus.children)
    return {"first": first, "second": second,
            "meshes": len([m for m in bpy.data.meshes if ".part." in m.name]),
            "objects": len([o for o in bpy.data.objects if ".part." in o.name])}
