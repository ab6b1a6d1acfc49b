"""Live simulation through the frame-change handler: bodies from objects, joints from empties,
and the per-frame cache."""

import math

import numpy as np
import pytest


def test_cube_dropped_on_static_ground_comes_to_rest_on_it(blender):
    out = blender.run("""
        box("Ground", (10, 10, 1), (0, 0, -0.5), kind='STATIC')
        cube = box("Cube", (1, 1, 1), (0, 0, 2), rotation=(0.2, 0.1, 0.3))
        zs = []
        for f in range(1, 121):
            scene.frame_set(f)
            zs.append(cube.matrix_world.translation.z)
        result({"z": zs, "error": lig.addon.runtime.cache.error(scene)})
    """)
    assert out["error"] is None
    z = np.array(out["z"])
    assert z[0] == 2.0
    assert z.min() > 0.45, "the cube went through the ground"
    # At rest on its face: centre half a metre above the ground, not moving in the last second.
    assert abs(z[-1] - 0.5) < 0.02
    assert np.ptp(z[-24:]) < 1e-3


DOOR = """
    frame = box("Frame", (0.2, 0.2, 0.2), (0, -0.2, 2), kind='STATIC')
    # A 2 m x 1 m door lying flat, hinged along its edge at y = 0 about the empty's local Z,
    # which the empty's rotation turns onto world X: gravity swings the door down about X.
    door = box("Door", (1.0, 2.0, 0.1), (0, 1.0, 2))
    hinge = joint("Hinge", 'HINGE', frame, door, (0, 0, 2), rotation=(0, math.pi / 2, 0))
"""


def test_hinged_door_swings_about_the_empty_z_axis_and_keeps_its_anchor(blender):
    out = blender.run(DOOR, """
        anchor_local = door.matrix_world.inverted() @ hinge.matrix_world.translation
        q0 = door.matrix_world.to_quaternion()
        drift, axes, angles = [], [], []
        for f in range(1, 61):
            scene.frame_set(f)
            m = door.matrix_world
            drift.append((m @ anchor_local - hinge.matrix_world.translation).length)
            rel = m.to_quaternion() @ q0.inverted()
            axis, angle = rel.to_axis_angle()
            angles.append(angle)
            axes.append(list(axis))
        result({"drift": drift, "axes": axes, "angles": angles,
                "error": lig.addon.runtime.cache.error(scene), "builds": lig.addon.runtime.simulation.stats["builds"]})
    """)
    assert out["builds"] == 1
    assert out["error"] is None
    assert max(out["drift"]) < 0.01
    angles = np.array(out["angles"])
    assert angles.max() > np.radians(60), "the door did not swing down"
    moving = angles > 1e-3
    axes = np.array(out["axes"])[moving]
    # Rotation only about world X, which is the empty's local Z.
    assert np.all(np.abs(axes[:, 0]) > 0.999)


def test_scrubbing_back_and_jumping_give_the_first_pass_transforms(blender):
    out = blender.run(DOOR, """
        tip = box("Tip", (0.3, 0.3, 0.3), (0, 2.4, 2))
        joint("Ball", 'BALL', door, tip, (0, 2.1, 2))
        bodies = [door, tip]
        first = {}
        for f in range(1, 41):
            scene.frame_set(f)
            first[f] = transforms(bodies)
        back = {f: (scene.frame_set(f), transforms(bodies))[1] for f in range(40, 0, -3)}
        jumps = {f: (scene.frame_set(f), transforms(bodies))[1] for f in (33, 2, 17, 40, 1)}
        # Dropping the cache and jumping straight to frame 30 simulates the missing frames.
        bpy.ops.ligament.reset()
        scene.frame_set(30)
        fresh = transforms(bodies)
        scene.frame_set(1)
        start = [list(door.location), list(door.rotation_euler)]
        result({"first": first, "back": back, "jumps": jumps, "fresh": fresh, "start": start})
    """)
    first = out["first"]
    for f, t in {**out["back"], **out["jumps"]}.items():
        assert t == first[f], f"frame {f} differs from the first pass"
    assert out["fresh"] == first["30"]
    assert first["1"] != first["40"]
    # Back at the start frame the door is where the user put it.
    assert np.allclose(out["start"][0], [0, 1.0, 2]) and np.allclose(out["start"][1], 0)


def test_editing_a_joint_invalidates_the_cache_and_changes_the_motion(blender):
    out = blender.run(DOOR, """
        for f in range(1, 31):
            scene.frame_set(f)
        before = transforms([door])
        hinge.ligament_joint.use_limit_ang = True
        hinge.ligament_joint.limit_ang_lower = -0.3
        hinge.ligament_joint.limit_ang_upper = 0.3
        cached_after_edit = lig.addon.runtime.cache.frame_info(scene)
        scene.frame_set(30)
        after = transforms([door])
        angle = door.matrix_world.to_quaternion().angle
        result({"before": before, "after": after, "angle": angle,
                "cached_after_edit": cached_after_edit})
    """)
    assert out["cached_after_edit"] is None
    assert out["before"] != out["after"]
    assert out["angle"] < 0.3 + 0.05


def test_jointed_substeps_step_the_hinged_door_at_their_own_count(blender):
    # The door is a small jointed island: with Jointed Substeps 4 (Substeps 8) it swings as
    # with Substeps 4 everywhere, and differently from Substeps 8 everywhere; a free box
    # beside it keeps Substeps (it falls as at 8 everywhere).
    out = blender.run(DOOR, """
        crate = box("Crate", (0.3, 0.3, 0.3), (4, 0, 3))
        ws = scene.ligament_world
        def swing(substeps, jointed):
            ws.substeps, ws.jointed_substeps = substeps, jointed
            for f in range(1, 31):
                scene.frame_set(f)
            return transforms([door]), transforms([crate])
        result({"mixed": swing(8, 4), "four": swing(4, 0), "eight": swing(8, 0),
                "error": lig.addon.runtime.cache.error(scene)})
    """)
    assert out["error"] is None
    (door_mixed, crate_mixed), (door_4, _), (door_8, crate_8) = \
        out["mixed"], out["four"], out["eight"]
    assert np.allclose(door_mixed, door_4, rtol=0, atol=1e-9)
    assert np.allclose(crate_mixed, crate_8, rtol=0, atol=1e-9)
    assert not np.allclose(door_mixed, door_8, rtol=0, atol=1e-6)


def test_calm_substeps_reach_the_world_and_default_to_half_the_jointed_count(blender):
    # A hinged pair of planks lying on the floor is a calm island after its first step:
    # with Calm Substeps 0 (automatic: half of Substeps 8) and 4 it steps at 4 substeps and
    # the two play alike, with 8 (calm stepping off) at 8 every frame.
    out = blender.run("""
        box("Ground", (4, 4, 0.2), (0, 0, -0.1), kind='STATIC')
        left = box("Left", (0.4, 0.2, 0.1), (-0.2, 0, 0.05))
        right = box("Right", (0.4, 0.2, 0.1), (0.2, 0, 0.05))
        joint("Pair", 'HINGE', left, right, (0, 0, 0.05), rotation=(math.pi / 2, 0, 0))
        ws = scene.ligament_world
        def play(calm):
            ws.substeps, ws.jointed_substeps, ws.calm_substeps = 8, 0, calm
            counts = []
            for f in range(1, 31):
                scene.frame_set(f)
                sim = lig.addon.runtime.cache.get(scene)
                ids = {b.name: b.id for b in sim.bodies}
                counts.append(int(sim.world._bsub.view[ids["Left"]]))
            return {"counts": counts, "calm": sim.world.calm_substeps,
                    "poses": transforms([left, right])}
        result({"auto": play(0), "four": play(4), "off": play(8),
                "error": lig.addon.runtime.cache.error(scene)})
    """)
    assert out["error"] is None
    auto, four, off = out["auto"], out["four"], out["off"]
    assert (auto["calm"], four["calm"], off["calm"]) == (4, 4, 8)
    # frame 1 is the start frame (nothing stepped), frame 2 a body's first step
    assert auto["counts"][1] == 8 and set(auto["counts"][5:]) == {4}, auto["counts"]
    assert set(off["counts"][1:]) == {8}
    assert auto["poses"] == four["poses"]


def test_shapes_fit_the_evaluated_geometry_and_the_object_scale(blender):
    out = blender.run("""
        box("Ground", (10, 10, 1), (0, 0, -0.5), kind='STATIC')
        # Three cubes stacked downwards by an Array modifier: the body is 3 m tall and its
        # origin sits in the top cube, so it rests with the origin 2.5 m above the ground.
        tower = box("Tower", (1, 1, 1), (0, 0, 3))
        mod = tower.modifiers.new("Array", 'ARRAY')
        mod.relative_offset_displace = (0, 0, -1)
        mod.count = 3
        # A scaled cube: 2 m x 2 m x 0.4 m slab resting on its face.
        slab = box("Slab", (2, 2, 0.4), (4, 0, 1))
        for f in range(1, 73):
            scene.frame_set(f)
        result({"tower": tower.matrix_world.translation.z, "slab": slab.matrix_world.translation.z,
                "tilt": [tower.matrix_world.to_quaternion().angle, slab.matrix_world.to_quaternion().angle]})
    """)
    assert abs(out["tower"] - 2.5) < 0.03
    assert abs(out["slab"] - 0.2) < 0.02
    assert max(out["tilt"]) < 0.05


def test_a_body_disabled_in_viewports_is_fitted_to_its_mesh_as_it_is_now(blender):
    """A body the depsgraph does not evaluate (disabled in viewports) keeps the bounds of its
    last evaluation; its mesh grown to 2 m afterwards must still give a 2 m box, which rests
    with its origin 1 m above the ground (a stale 1 m box would rest at 0.5 m)."""
    out = blender.run("""
        import numpy as np
        box("Ground", (10, 10, 1), (0, 0, -0.5), kind='STATIC')
        crate = box("Crate", (1, 1, 1), (0, 0, 1.5), shape='BOX')
        bpy.context.view_layer.update()        # evaluated once: its 1 m bounds are cached
        crate.hide_viewport = True
        co = np.empty(3 * len(crate.data.vertices))
        crate.data.vertices.foreach_get("co", co)
        crate.data.vertices.foreach_set("co", 2.0 * co)   # a 2 m cube now
        crate.data.update()
        for f in range(1, 61):
            scene.frame_set(f)
        result({"z": crate.location.z})
    """)
    assert abs(out["z"] - 1.0) < 0.02, out


def test_parented_bodies_and_rotation_modes_move_like_unparented_ones(blender):
    out = blender.run(DOOR, """
        # The same door 10 m further along Y, parented to a rotated, scaled empty and using
        # another rotation mode: its world motion must be the same, shifted by 10 m.
        rig = bpy.data.objects.new("Rig", None)
        scene.collection.objects.link(rig)
        rig.location, rig.rotation_euler, rig.scale = (3, 12, 1), (0.3, 0, 0.7), (2, 2, 2)
        frame2 = box("Frame2", (0.2, 0.2, 0.2), (0, 9.8, 2), kind='STATIC')
        door2 = box("Door2", (1.0, 2.0, 0.1), (0, 11.0, 2))
        door2.rotation_mode = 'YZX'
        bpy.context.view_layer.update()
        for child in (door2, frame2):
            world = child.matrix_world.copy()
            child.parent = rig
            child.matrix_world = world
        joint("Hinge2", 'HINGE', frame2, door2, (0, 10, 2), rotation=(0, math.pi / 2, 0))
        pairs = []
        for f in range(1, 41):
            scene.frame_set(f)
            pairs.append([transforms([door])[0], transforms([door2])[0]])
        result({"pairs": pairs, "parent": door2.parent.name})
    """)
    assert out["parent"] == "Rig"
    for f, (a, b) in enumerate(out["pairs"], start=1):
        a, b = np.array(a), np.array(b)
        b[1, 3] -= 10.0
        assert np.abs(a - b).max() < 1e-4, f"frame {f}"
    assert not np.allclose(out["pairs"][0][0], out["pairs"][-1][0])


def test_animated_body_follows_its_keys_and_drags_a_welded_body(blender):
    out = blender.run("""
        lift = box("Lift", (0.5, 0.5, 0.5), (0, 0, 2), kind='ANIMATED')
        lift.keyframe_insert("location", frame=1)
        lift.location = (0, 0, 4)
        lift.keyframe_insert("location", frame=25)
        load = box("Load", (0.5, 0.5, 0.5), (0, 0, 1.5))
        joint("Weld", 'FIXED', lift, load, (0, 0, 1.75))
        lift_z, load_z = [], []
        for f in range(1, 41):
            scene.frame_set(f)
            lift_z.append(lift.matrix_world.translation.z)
            load_z.append(load.matrix_world.translation.z)
        result({"lift": lift_z, "load": load_z, "builds": lig.addon.runtime.simulation.stats["builds"]})
    """)
    assert out["builds"] == 1, "the animation must not invalidate the cache every frame"
    lift, load = np.array(out["lift"]), np.array(out["load"])
    assert lift[0] == 2.0 and abs(lift[24] - 4.0) < 1e-6  # Blender's animation, untouched
    assert np.abs((lift - load) - 0.5).max() < 0.02
    assert abs(load[-1] - 3.5) < 0.02


def test_collision_groups_let_bodies_of_different_groups_pass_through_each_other(blender):
    out = blender.run("""
        box("Ground", (10, 10, 1), (0, 0, -0.5), kind='STATIC')
        # Two static shelves at 1 m, in group 1; a group 1 cube lands on its shelf, a group 2
        # cube falls through its shelf to the ground (group 0 collides with everything).
        box("Shelf1", (1, 1, 0.2), (0, 0, 1), kind='STATIC', collision_group=1)
        box("Shelf2", (1, 1, 0.2), (3, 0, 1), kind='STATIC', collision_group=1)
        same = box("Same", (0.5, 0.5, 0.5), (0, 0, 2), collision_group=1)
        other = box("Other", (0.5, 0.5, 0.5), (3, 0, 2), collision_group=2)
        for f in range(1, 61):
            scene.frame_set(f)
        result([same.matrix_world.translation.z, other.matrix_world.translation.z])
    """)
    same, other = out
    assert abs(same - (1.1 + 0.25)) < 0.02
    assert abs(other - 0.25) < 0.02


def test_moving_a_body_mid_simulation_makes_that_its_new_start_pose(blender):
    out = blender.run("""
        box("Ground", (20, 20, 1), (0, 0, -0.5), kind='STATIC')
        cube = box("Cube", (1, 1, 1), (0, 0, 3))
        for f in range(1, 21):
            scene.frame_set(f)
        landed = list(cube.location)
        cube.location = (5, 0, 4)          # the user drags the cube at frame 20
        scene.frame_set(21)
        after_move = list(cube.location)
        scene.frame_set(1)
        start = list(cube.location)
        result({"landed": landed, "after_move": after_move, "start": start})
    """)
    assert abs(out["landed"][2] - 0.5) < 0.05
    # Like Blender's rigid bodies: where the user puts a body is where the simulation starts
    # from, so frame 21 shows the cube 20 frames after a start at (5, 0, 4): landed at x = 5...
    assert abs(out["after_move"][0] - 5) < 1e-3 and abs(out["after_move"][2] - 0.5) < 0.15
    # ...and at the start frame it is where the user put it.
    assert np.allclose(out["start"], [5, 0, 4])


def test_ragdoll_swing_limits_follow_the_empty_axes(blender):
    out = blender.run("""
        tilts = []
        for i, swing in enumerate((20.0, 70.0)):
            y = 3.0 * i
            base = box(f"Base{i}", (0.2, 0.2, 0.2), (0, y, 2), kind='STATIC')
            rod = box(f"Rod{i}", (1.0, 0.1, 0.1), (0.6, y, 2))
            # Twist axis (local Y) along the rod, world +X; local X is then world -Y, so
            # gravity swings the rod about local X, which swing_1 limits.
            joint(f"Shoulder{i}", 'RAGDOLL', base, rod, (0.1, y, 2), rotation=(0, 0, -math.pi / 2),
                  swing_1=math.radians(swing), swing_2=math.radians(5.0))
        for f in range(1, 73):
            scene.frame_set(f)
        for i in range(2):
            d = bpy.data.objects[f"Rod{i}"].matrix_world.col[0].xyz.normalized()
            tilts.append(math.degrees(math.asin(-d.z)))
        result({"tilts": tilts, "error": lig.addon.runtime.cache.error(scene)})
    """)
    assert out["error"] is None
    narrow, wide = out["tilts"]
    assert abs(narrow - 20.0) < 4.0
    assert abs(wide - 70.0) < 6.0


def test_add_body_with_auto_shape_makes_a_uv_sphere_roll_and_a_cube_stick_on_a_slope(blender):
    out = blender.run("""
        slope = math.radians(15)
        ramp = box("Ramp", (12, 4, 0.2), (0, 0, 0), rotation=(0, slope, 0), kind='STATIC')
        bpy.ops.mesh.primitive_uv_sphere_add(radius=0.3, location=(0, -1, 0))
        ball = bpy.context.active_object
        bpy.ops.mesh.primitive_cube_add(size=0.6, location=(0, 1, 0))
        cube = bpy.context.active_object
        # Sit both on the ramp's surface (friction 0.5 > tan 15 degrees: a box must not slide).
        normal = Vector((math.sin(slope), 0, math.cos(slope)))
        for obj in (ball, cube):
            obj.location = obj.location + normal * (0.1 + 0.3)
            obj.rotation_euler = (0, slope, 0)
        bpy.ops.object.select_all(action='DESELECT')
        ball.select_set(True); cube.select_set(True)
        bpy.context.view_layer.objects.active = cube
        assert bpy.ops.ligament.add_body() == {'FINISHED'}
        start = [ball.matrix_world.translation.copy(), cube.matrix_world.translation.copy()]
        for f in range(1, 49):
            scene.frame_set(f)
        moved = [(o.matrix_world.translation - s).length for o, s in zip((ball, cube), start)]
        result({"moved": moved, "shapes": [ball.ligament_body.shape, cube.ligament_body.shape]})
    """)
    assert out["shapes"] == ["AUTO", "AUTO"]
    ball, cube = out["moved"]
    assert ball > 1.0, "a sphere fitted to the UV sphere rolls down the slope"
    assert cube < 0.05, "a box fitted to the cube stays put"
    assert "Sphere (Sphere)" in blender.stdout and "Cube (Box)" in blender.stdout  # the report


def test_only_what_the_simulation_reads_drops_the_cache(blender):
    """Moving an object no body or joint depends on keeps the cached frames; moving the
    static ground they stand on, renaming a body or parenting one drops them."""
    out = blender.run("""
        ground = box("Ground", (10, 10, 1), (0, 0, -0.5), kind='STATIC')
        cube = box("Cube", (1, 1, 1), (0, 0, 2))
        prop = bpy.data.objects.new("Prop", None)
        scene.collection.objects.link(prop)
        builds = lig.addon.runtime.simulation.stats
        for f in range(1, 11):
            scene.frame_set(f)
        b0 = builds["builds"]
        prop.location = (5, 5, 5)            # not read by the simulation
        scene.frame_set(11)
        after_prop = builds["builds"] - b0
        ground.location.z = -1.0             # a body the cube lands on
        scene.frame_set(12)
        after_ground = builds["builds"] - b0
        cube.parent = prop                   # parenting a body
        scene.frame_set(13)
        after_parent = builds["builds"] - b0
        result({"prop": after_prop, "ground": after_ground, "parent": after_parent,
                "error": lig.addon.runtime.cache.error(scene)})
    """)
    assert out["error"] is None
    assert out["prop"] == 0
    assert out["ground"] == 1
    assert out["parent"] == 2


def test_edits_between_frames_of_every_kind_drop_the_cache_and_plain_frames_keep_it(blender):
    """While it plays, the frame handler compares what only an edit through Blender's API
    changes (names, fields, posed armatures) when the depsgraph has seen such an edit since
    the last frame: each kind of edit made by a script between two frames builds again, and
    so do edits made by the user's own frame handlers (one that runs after the add-on's and
    moves the ground, one that changes the wind once a frame is evaluated) on the next frame;
    frames with no edit build nothing."""
    out = blender.run("""
        import math
        ground = box("Ground", (10, 10, 1), (0, 0, -0.5), kind='STATIC')
        cube = box("Cube", (1, 1, 1), (0, 0, 2))
        bpy.ops.object.effector_add(type='WIND', location=(0, 0, 0),
                                    rotation=(0, math.pi / 2, 0))
        wind = bpy.context.active_object
        wind.field.strength = 0.0
        bpy.ops.preferences.addon_enable(module="rigify")
        bpy.ops.object.armature_human_metarig_add()
        arm = bpy.context.active_object
        arm.location = (5, 0, 1)
        bpy.context.view_layer.update()
        bpy.ops.ligament.ragdoll_from_armature()
        builds = lig.addon.runtime.simulation.stats
        counts = {}

        def played(label, frames):
            b0 = builds["builds"]
            for f in frames:
                scene.frame_set(f)
            counts[label] = builds["builds"] - b0
        played("plain", range(1, 11))
        wind.field.strength = 50.0               # a field's setting (not keyed)
        played("field", [11])
        cube.name = "Crate"                      # a body renamed
        played("rename", [12])
        arm.pose.bones["spine"].rotation_quaternion = (0.99, 0.14, 0, 0)   # its start pose
        played("pose", [13])
        played("plain after", range(14, 20))

        def late(scene, *_):                     # after the add-on's own handler
            if scene.frame_current == 21:
                ground.location.z = -0.25
        bpy.app.handlers.frame_change_pre.append(late)
        played("late handler", [20, 21, 22])
        bpy.app.handlers.frame_change_pre.remove(late)

        def after(scene, *_):                    # once the frame is evaluated
            if scene.frame_current == 24:
                wind.field.strength = 80.0
        bpy.app.handlers.frame_change_post.append(after)
        played("post handler", [23, 24, 25])
        bpy.app.handlers.frame_change_post.remove(after)
        result({"counts": counts, "error": lig.addon.runtime.cache.error(scene),
                "ragdoll": arm.ligament_ragdoll.enabled})
    """)
    assert out["error"] is None and out["ragdoll"]
    c = out["counts"]
    assert c["plain"] == 1 and c["plain after"] == 0   # the build at frame 1 only
    assert c["field"] == 1 and c["rename"] == 1 and c["pose"] == 1
    assert c["late handler"] == 1                      # frame 22 builds again
    assert c["post handler"] == 1                      # frame 25 does


SPRUNG_DOOR = """
    scene.gravity = (0, 0, 0)
    # An animated post turns through 0.3 rad about Z over frames 1-3 and stays; a 1 m wide,
    # 2 m tall, 10 kg door hangs on it by its edge (x = 0, 0.55 m from its centre) on a hinge
    # about the empty's Z (world Z) with a spring. The spring pulls the door after the post
    # and the door swings about its edge around the post's new angle, undamped.
    post = box("Post", (0.1, 0.1, 2.0), (0, 0, 1), kind='ANIMATED')
    post.keyframe_insert("rotation_euler", frame=1)
    post.rotation_euler.z = 0.3
    post.keyframe_insert("rotation_euler", frame=3)
    door = box("Door", (1.0, 0.05, 2.0), (0.55, 0, 1), mass=10.0, linear_damping=0.0,
               angular_damping=0.0)
    hinge = joint("Hinge", 'HINGE', post, door, (0, 0, 1), use_spring=True, **SPRING)
    angles = []
    for f in range(1, 6 * 24 + 2):
        scene.frame_set(f)
        angles.append(door.matrix_world.to_euler().z - 0.3)
    result({"angles": angles, "error": lig.addon.runtime.cache.error(scene)})
"""

# the door's inertia about its centre (a 1 x 0.05 x 2 m box, about the 2 m edge) and about
# the hinge line 0.55 m away
DOOR_I_EDGE = 10.0 * (1.0 ** 2 + 0.05 ** 2) / 12 + 10.0 * 0.55 ** 2


def _frequency(angles, fps=24, first_frame=4):
    """Mean frequency from the zero crossings of angles[first_frame - 1:] (frame 1 = index 0)."""
    a = np.array(angles[first_frame - 1:])
    t = np.arange(len(a)) / fps
    i = np.nonzero(np.sign(a[:-1]) * np.sign(a[1:]) < 0)[0]
    crossings = t[i] + a[i] / (a[i] - a[i + 1]) * (t[i + 1] - t[i])
    assert len(crossings) >= 4, f"only {len(crossings)} zero crossings"
    return (len(crossings) - 1) / (2.0 * (crossings[-1] - crossings[0]))


def test_door_hung_at_its_edge_swings_at_its_hinge_spring_frequency(blender):
    # About its edge the door is 4.6x as heavy as about its centre: a spring sized from the
    # centre's inertia swung it at 0.47 of the frequency asked.
    out = blender.run("SPRING = dict(spring_frequency=1.5, spring_damping=0.0)", SPRUNG_DOOR)
    assert out["error"] is None
    freq = _frequency(out["angles"])
    print(f"door on a 1.5 Hz hinge spring: {freq:.4f} Hz")
    assert np.abs(out["angles"][3:]).max() > 0.2
    assert abs(freq - 1.5) / 1.5 < 0.03


def test_hinge_spring_in_stiffness_mode_swings_at_sqrt_k_over_the_inertia_about_the_hinge(
        blender):
    k = 60.0                                                      # N m / rad
    out = blender.run(f"SPRING = dict(spring_mode='STIFFNESS', spring_stiffness={k}, "
                      f"spring_damper=0.0)", SPRUNG_DOOR)
    assert out["error"] is None
    expected = math.sqrt(k / DOOR_I_EDGE) / (2 * math.pi)
    freq = _frequency(out["angles"])
    print(f"door on a {k} N m/rad hinge spring: {freq:.4f} Hz, expected {expected:.4f}")
    assert abs(freq - expected) / expected < 0.03


FLIPPED_FLOOR = """
    import math

    def floor(name, x, one_sided):
        # a 4 m plane turned over (rotation X 180 degrees): its face normal points down
        bpy.ops.mesh.primitive_plane_add(size=4, location=(x, 0, 0), rotation=(math.pi, 0, 0))
        obj = bpy.context.active_object
        obj.name = name
        s = obj.ligament_body
        s.enabled, s.kind, s.shape, s.one_sided = True, 'STATIC', 'MESH', one_sided
        return obj
"""


def test_a_crate_dropped_on_a_floor_plane_turned_over_rests_on_it(blender):
    # The Mesh shape is two-sided: a floor whose normal points down holds a crate dropped
    # from 2 m as a floor facing up does; with One-Sided on, the crate falls through.
    out = blender.run(FLIPPED_FLOOR, """
        floor("Floor", 0, False)
        floor("OneSided", 10, True)
        crate = box("Crate", (1, 1, 1), (0, 0, 2))
        through = box("Through", (1, 1, 1), (10, 0, 2))
        zs = []
        for f in range(1, 73):
            scene.frame_set(f)
            zs.append((crate.matrix_world.translation.z, through.matrix_world.translation.z))
        result({"z": zs, "error": lig.addon.runtime.cache.error(scene)})
    """)
    assert out["error"] is None
    z = np.array(out["z"])
    assert z[:, 0].min() > 0.45, "the crate went through the floor"
    assert abs(z[-1, 0] - 0.5) < 0.02
    assert np.ptp(z[-12:, 0]) < 1e-3
    # one-sided, met from behind: it falls on, at least 90 % of free fall's drop over the 71
    # frames at 24 fps (the default linear damping takes about 3 %)
    t = 71 / 24
    assert z[-1, 1] < 2.0 - 0.9 * 0.5 * 9.81 * t * t, z[-1, 1]
