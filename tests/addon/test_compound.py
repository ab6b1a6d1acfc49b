"""Compound bodies in Blender: a parent whose children are its parts (as Bullet's Compound
Parent), and a concave mesh split into convex parts by the bundled CoACD."""

import numpy as np
import pytest

BALL = """
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
            scene.frame_set(f)
            for o in objs:
                track[o.name].append(list(o.matrix_world.translation))
        return track
"""


def test_bracket_of_three_child_cubes_under_a_compound_parent_holds_a_ball(blender):
    """Two U brackets, each three cubes parented to a Compound body (an empty, and a small
    mesh whose own geometry is not a part); a ball thrown into each stays between the
    uprights and comes to rest on the base."""
    out = blender.run(BALL, """
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
        sim = lig.addon.runtime.cache.get(scene)
        stats = lig.addon.runtime.simulation.stats
        builds = stats["builds"]
        # moving a part changes the body: the next frame builds the world again
        scene.frame_set(1)
        bpy.data.objects["RightEMPTY"].location.x += 0.2
        scene.frame_set(2)
        result({"track": track, "error": lig.addon.runtime.cache.error(scene),
                "bodies": sorted(b.name for b in sim.bodies), "builds": builds,
                "rebuilt": stats["builds"] - builds})
    """)
    assert out["error"] is None
    assert out["builds"] == 1 and out["rebuilt"] == 1
    # the parts are no bodies of their own: two brackets, two balls, the ground
    assert out["bodies"] == ["Ball0", "Ball3", "BracketEMPTY", "BracketMESH", "Ground"]
    for name, x in (("Ball0", 0.0), ("Ball3", 3.0)):
        path = np.array(out["track"][name])
        assert np.all(np.abs(path[:, 0] - x) < 0.3 + 0.01), (name, path[:, 0].min(),
                                                             path[:, 0].max())
        assert path[-1, 2] == pytest.approx(0.2, abs=0.02), (name, path[-1])
    for name, x in (("BracketEMPTY", 0.0), ("BracketMESH", 3.0)):
        path = np.array(out["track"][name])
        assert np.allclose(path[-1], (x, 0, 0.3), atol=0.02), (name, path[-1])


U_MESH = """
    def u_mesh(name, location):
        # a U extruded along Y: 1 m wide, 0.7 m tall, walls and floor 0.1 m thick
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
        scene.collection.objects.link(obj)
        obj.location = location
        s = obj.ligament_body
        s.enabled, s.shape, s.mass, s.friction = True, 'CONVEX_HULL', 5.0, 0.8
        return obj
"""


def test_concave_u_split_into_convex_parts_holds_a_ball_its_hull_does_not(blender):
    out = blender.run(BALL, U_MESH, """
        import time
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
        result({"status": list(status), "again": list(again), "seconds": seconds,
                "parts": len(parts), "parts_again": parts_again,
                "shape": split.ligament_body.shape,
                "part_shapes": sorted({c.ligament_body.shape for c in split.children}),
                "wire": all(c.display_type == 'WIRE' and c.hide_render for c in split.children),
                "track": track, "error": lig.addon.runtime.cache.error(scene)})
    """)
    assert out["error"] is None
    assert out["status"] == ["FINISHED"] and out["again"] == ["FINISHED"]
    assert out["shape"] == 'COMPOUND'
    assert 3 <= out["parts"] <= 8, out["parts"]         # a floor and two walls, or a few more
    assert len(out["parts_again"]) == out["parts"]
    assert out["part_shapes"] == ['CONVEX_HULL'] and out["wire"]
    print(f"split a 16-vertex U into {out['parts']} convex parts in {out['seconds']:.2f} s")
    ball = np.array(out["track"]["BallSplit"])
    # inside the split U: between the walls (inner faces at |x| = 0.4), on its floor (0.1)
    assert np.all(np.abs(ball[:, 0]) < 0.3 + 0.01)
    assert abs(ball[-1, 2] - 0.2) < 0.02, ball[-1]
    # on the hull the ball lies on the lid the hull puts over the U (z = 0.7)
    assert abs(out["track"]["BallHull"][-1][2] - 0.8) < 0.02
    u = np.array(out["track"]["SplitU"])
    assert np.allclose(u[-1], (0, 0, 0), atol=0.02)


def test_l_shape_tips_onto_the_same_arm_as_bullets_compound_parent(blender):
    """An L of two child boxes set down on its outer corner, arms at 45 degrees, falls onto the
    arm its centre of mass lies over: Ligament's Compound body and Blender's own rigid body
    (Compound Parent, its origin put at the L's centre of mass, which is where Bullet puts a
    compound's) side by side in the same scene, for a long arm along X and one along Z."""
    out = blender.run("""
        import numpy as np
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
        result({"up_z": out, "error": lig.addon.runtime.cache.error(scene)})
    """)
    assert out["error"] is None
    print("L's local Z in the world after 5 s (Ligament, Bullet):", out["up_z"])
    for key, (ligament, bullet) in out["up_z"].items():
        # the body's local Z axis in the world: up when it lies on the X arm, level when on
        # the Z arm
        on_x = ligament[2] > 0.99
        assert on_x == (key == "x"), (key, ligament)
        assert (bullet[2] > 0.99) == on_x, (key, bullet)
        if not on_x:
            assert abs(ligament[2]) < 0.05 and abs(bullet[2]) < 0.05, (key, ligament, bullet)
