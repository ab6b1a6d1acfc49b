"""test_compound.py's scenarios: Compound bodies (a parent whose children are its parts),
a concave mesh split into convex parts, and an L beside Blender's own Compound Parent."""

import math
import time

import bpy
import numpy as np
from mathutils import Euler, Vector

from .helpers import box, lig


def ball(name, location, radius=0.1):
    bpy.ops.mesh.primitive_uv_sphere_add(radius=radius, location=location)
    obj = bpy.context.active_object
    obj.name = name
    s = obj.ligament_body
    s.enabled, s.shape, s.mass, s.restitution = True, 'SPHERE', 0.5, 0.3
    return obj


def play(objs, frames=96):
    track = {o.name: [] for o in objs}
    for f in range(1, frames + 1):
        bpy.context.scene.frame_set(f)
        for o in objs:
            track[o.name].append(list(o.matrix_world.translation))
    return track


def u_mesh(name, location):
    """A U extruded along Y: 1 m wide, 0.7 m tall, walls and floor 0.1 m thick, a Convex
    Hull body."""
    poly = [(-0.5, 0), (0.5, 0), (0.5, 0.7), (0.4, 0.7), (0.4, 0.1), (-0.4, 0.1),
            (-0.4, 0.7), (-0.5, 0.7)]
    n = len(poly)
    verts = [(x, -0.3, z) for x, z in poly] + [(x, 0.3, z) for x, z in poly]
    faces = [(i, (i + 1) % n, n + (i + 1) % n, n + i) for i in range(n)]
    faces += [(0, 5, 4, 1), (1, 4, 3, 2), (0, 7, 6, 5)]
    faces += [(n + a, n + b, n + c, n + d) for a, b, c, d in
              [(0, 1, 4, 5), (1, 2, 3, 4), (0, 5, 6, 7)]]
    mesh = bpy.data.meshes.new(name)
    mesh.from_pydata(verts, [], faces)
    mesh.validate()
    mesh.update()
    obj = bpy.data.objects.new(name, mesh)
    bpy.context.scene.collection.objects.link(obj)
    obj.location = location
    s = obj.ligament_body
    s.enabled, s.shape, s.mass, s.friction = True, 'CONVEX_HULL', 5.0, 0.8
    return obj


def brackets_holding_balls():
    """Two U brackets of three child cubes under Compound parents (an empty and a small
    mesh), a ball thrown into each, 96 frames; then a part moved."""
    scene = bpy.context.scene
    addon = lig().addon
    box("Ground", (12, 12, 1), (0, 0, -0.5), kind='STATIC')
    parents = []
    for x, kind in ((0.0, 'EMPTY'), (3.0, 'MESH')):
        if kind == 'EMPTY':
            parent = bpy.data.objects.new(f"Bracket{kind}", None)
            scene.collection.objects.link(parent)
            parent.location = (x, 0, 0.3)
        else:
            parent = box(f"Bracket{kind}", (0.05, 0.05, 0.05), (x, 0, 0.3))
        s = parent.ligament_body
        s.enabled, s.shape, s.mass = True, 'COMPOUND', 5.0
        bpy.context.view_layer.update()
        # the parts: base 1 x 0.6 x 0.1 and two uprights 0.1 x 0.6 x 0.6 at its ends
        # (made bodies by `box`: as parts of a Compound they are not bodies of their own)
        for name, size, loc in (("Base", (1.0, 0.6, 0.1), (x, 0, 0.05)),
                                ("Left", (0.1, 0.6, 0.6), (x - 0.45, 0, 0.4)),
                                ("Right", (0.1, 0.6, 0.6), (x + 0.45, 0, 0.4))):
            part = box(name + kind, size, loc, shape='BOX')
            part.parent = parent
            part.matrix_parent_inverse = parent.matrix_world.inverted()
        parents.append(parent)
    balls = [ball("Ball0", (0.1, 0, 0.6)), ball("Ball3", (3.1, 0, 0.6))]
    for b in balls:
        b.ligament_body.linear_damping = 0.0
    bpy.context.view_layer.update()
    track = play(parents + balls)
    sim = addon.runtime.cache.get(scene)
    stats = addon.runtime.simulation.stats
    builds = stats["builds"]
    # moving a part changes the body: the next frame builds the world again
    scene.frame_set(1)
    bpy.data.objects["RightEMPTY"].location.x += 0.2
    scene.frame_set(2)
    return {"track": track, "error": addon.runtime.cache.error(scene),
            "bodies": sorted(b.name for b in sim.bodies), "builds": builds,
            "rebuilt": stats["builds"] - builds}


def u_split_and_its_hull():
    """A concave U split into convex parts (twice) beside the same U as one hull, a ball
    dropped into each, 72 frames."""
    scene = bpy.context.scene
    box("Ground", (12, 12, 1), (0, 0, -0.5), kind='STATIC')
    split = u_mesh("SplitU", (0, 0, 0))
    hull = u_mesh("HullU", (3, 0, 0))          # the same U as one convex hull
    bpy.context.view_layer.update()
    for o in bpy.context.selected_objects:
        o.select_set(False)
    bpy.context.view_layer.objects.active = split
    t0 = time.perf_counter()
    status = bpy.ops.ligament.split_convex_parts()
    seconds = time.perf_counter() - t0
    parts = [c for c in split.children]
    again = bpy.ops.ligament.split_convex_parts()      # replaces, does not add
    parts_again = [c.name for c in split.children]
    balls = [ball("BallSplit", (0.1, 0, 1.0)), ball("BallHull", (3.1, 0, 1.0))]
    track = play([split, hull] + balls, frames=72)
    return {"status": list(status), "again": list(again), "seconds": seconds,
            "parts": len(parts), "parts_again": parts_again,
            "shape": split.ligament_body.shape,
            "part_shapes": sorted({c.ligament_body.shape for c in split.children}),
            "wire": all(c.display_type == 'WIRE' and c.hide_render for c in split.children),
            "track": track, "error": lig().addon.runtime.cache.error(scene)}


def l_shapes_beside_bullet():
    """Ls of two child boxes set down on their outer corner, arms at 45 degrees: Ligament's
    Compound body and Blender's rigid body (Compound Parent, origin at the centre of mass),
    a long arm along X and one along Z, 120 frames: each body's local Z in the world."""
    scene = bpy.context.scene
    ground = box("Ground", (20, 20, 1), (0, 0, -0.5), kind='STATIC')
    bpy.ops.rigidbody.world_add()
    with bpy.context.temp_override(object=ground, active_object=ground,
                                   selected_objects=[ground]):
        bpy.ops.rigidbody.object_add(type='PASSIVE')
    turn = Euler((0, -math.pi / 4, 0))                 # both arms at 45 degrees

    def arms(long_x, long_z, t=0.2):
        # (size, centre) of the two boxes, outer corner at the origin
        return [((long_x, t, t), (long_x / 2, 0, t / 2)),
                ((t, t, long_z), (t / 2, 0, t + long_z / 2))]

    def centre(parts):
        vol = [s[0] * s[1] * s[2] for s, _ in parts]
        return Vector(np.average([c for _, c in parts], axis=0, weights=vol))

    def make(name, parts, x, engine):
        com = centre(parts)
        corner = Vector((x, 0, 0.01))
        if engine == 'LIGAMENT':
            parent = bpy.data.objects.new(name, None)
            scene.collection.objects.link(parent)
            origin = Vector()
        else:      # Bullet's compound turns about its parent's origin: put it at the COM
            bpy.ops.mesh.primitive_cube_add(size=0.01)
            parent = bpy.context.active_object
            parent.name = name
            origin = com
        parent.rotation_euler = turn
        parent.location = corner + turn.to_matrix() @ origin
        bpy.context.view_layer.update()
        for k, (size, c) in enumerate(parts):
            bpy.ops.mesh.primitive_cube_add(size=1)
            child = bpy.context.active_object
            child.name = f"{name}.arm{k}"
            child.scale = size
            bpy.ops.object.transform_apply(location=False, rotation=False, scale=True)
            child.parent = parent
            child.location = Vector(c) - origin
            if engine == 'LIGAMENT':
                child.ligament_body.shape = 'BOX'
            else:
                bpy.ops.rigidbody.object_add(type='ACTIVE')
                child.rigid_body.collision_shape = 'BOX'
        if engine == 'LIGAMENT':
            s = parent.ligament_body
            s.enabled, s.shape, s.mass, s.friction = True, 'COMPOUND', 2.0, 0.8
        else:
            with bpy.context.temp_override(object=parent, active_object=parent,
                                           selected_objects=[parent]):
                bpy.ops.rigidbody.object_add(type='ACTIVE')
            parent.rigid_body.collision_shape = 'COMPOUND'
            parent.rigid_body.mass, parent.rigid_body.friction = 2.0, 0.8
        return parent

    cases = {"x": arms(1.0, 0.6), "z": arms(0.6, 1.0)}
    made = {}
    for i, (key, parts) in enumerate(cases.items()):
        made[key] = (make(f"Lig{key}", parts, 4.0 * i, 'LIGAMENT'),
                     make(f"Bul{key}", parts, 4.0 * i + 2.0, 'BULLET'))
    bpy.context.view_layer.update()
    for f in range(1, 121):
        scene.frame_set(f)
    out = {}
    for key, objs in made.items():
        out[key] = [list(o.matrix_world.to_3x3().col[2]) for o in objs]
    return {"up_z": out, "error": lig().addon.runtime.cache.error(scene)}
