"""test_simulation.py's scenarios: live simulation through the frame-change handler. `door()`
is the hinged door other scenario modules share."""

import math

import bpy
import numpy as np
from mathutils import Vector

from .helpers import Layout, box, joint, lig, transforms


def door():
    """A 2 m x 1 m door lying flat, hinged along its edge at y = 0 about the empty's local Z,
    which the empty's rotation turns onto world X: gravity swings the door down about X.
    (frame, door, hinge)."""
    frame = box("Frame", (0.2, 0.2, 0.2), (0, -0.2, 2), kind='STATIC')
    door = box("Door", (1.0, 2.0, 0.1), (0, 1.0, 2))
    hinge = joint("Hinge", 'HINGE', frame, door, (0, 0, 2), rotation=(0, math.pi / 2, 0))
    return frame, door, hinge


def cube_dropped_on_ground():
    scene = bpy.context.scene
    box("Ground", (10, 10, 1), (0, 0, -0.5), kind='STATIC')
    cube = box("Cube", (1, 1, 1), (0, 0, 2), rotation=(0.2, 0.1, 0.3))
    zs = []
    for f in range(1, 121):
        scene.frame_set(f)
        zs.append(cube.matrix_world.translation.z)
    return {"z": zs, "error": lig().addon.runtime.cache.error(scene)}


def door_swings():
    """The door over 60 frames: its anchor's drift from the hinge, its rotation's axis and
    angle from the start, and the builds."""
    scene = bpy.context.scene
    addon = lig().addon
    frame, door_, hinge = door()
    anchor_local = door_.matrix_world.inverted() @ hinge.matrix_world.translation
    q0 = door_.matrix_world.to_quaternion()
    drift, axes, angles = [], [], []
    for f in range(1, 61):
        scene.frame_set(f)
        m = door_.matrix_world
        drift.append((m @ anchor_local - hinge.matrix_world.translation).length)
        rel = m.to_quaternion() @ q0.inverted()
        axis, angle = rel.to_axis_angle()
        angles.append(angle)
        axes.append(list(axis))
    return {"drift": drift, "axes": axes, "angles": angles,
            "error": addon.runtime.cache.error(scene),
            "builds": addon.runtime.simulation.stats["builds"]}


def scrub_and_jump():
    """The door with a ball on a ball joint at its tip: the first pass, scrubbing back,
    jumps, a jump to frame 30 after a reset, and the start frame's pose."""
    scene = bpy.context.scene
    frame, door_, hinge = door()
    tip = box("Tip", (0.3, 0.3, 0.3), (0, 2.4, 2))
    joint("Ball", 'BALL', door_, tip, (0, 2.1, 2))
    bodies = [door_, tip]
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
    start = [list(door_.location), list(door_.rotation_euler)]
    return {"first": first, "back": back, "jumps": jumps, "fresh": fresh, "start": start}


def joint_edited():
    """The door played to frame 30, then its hinge limited to +-0.3 rad."""
    scene = bpy.context.scene
    frame, door_, hinge = door()
    for f in range(1, 31):
        scene.frame_set(f)
    before = transforms([door_])
    hinge.ligament_joint.use_limit_ang = True
    hinge.ligament_joint.limit_ang_lower = -0.3
    hinge.ligament_joint.limit_ang_upper = 0.3
    cached_after_edit = lig().addon.runtime.cache.frame_info(scene)
    scene.frame_set(30)
    after = transforms([door_])
    angle = door_.matrix_world.to_quaternion().angle
    return {"before": before, "after": after, "angle": angle,
            "cached_after_edit": cached_after_edit}


def door_counts(scene, frames):
    """`scene` played from frame 1 to `frames`: the substeps its Door and Crate stepped at
    in frames 2 on, as sorted [door, crate] pairs."""
    counts = set()
    for f in range(1, frames + 1):
        scene.frame_set(f)
        if f > 1:
            sim = lig().addon.runtime.cache.get(scene)
            ids = {b.name: b.id for b in sim.bodies}
            counts.add(tuple(int(sim.world._bsub.view[ids[n]]) for n in ("Door", "Crate")))
    return sorted(list(c) for c in counts)


def jointed_substeps():
    """The door and a free crate for 30 frames at (Substeps, Jointed Substeps) (8, 4), (4, 4)
    and (8, 8): their poses, and the substeps each stepped at in frames 2-30."""
    scene = bpy.context.scene
    frame, door_, hinge = door()
    crate = box("Crate", (0.3, 0.3, 0.3), (4, 0, 3))
    ws = scene.ligament_world

    def swing(substeps, jointed):
        ws.substeps, ws.jointed_substeps = substeps, jointed
        counts = door_counts(scene, 30)
        return transforms([door_]), transforms([crate]), counts
    return {"mixed": swing(8, 4), "four": swing(4, 4), "eight": swing(8, 8),
            "error": lig().addon.runtime.cache.error(scene)}


def calm_substeps():
    """A hinged pair of planks on the floor played with Calm Substeps 0, 4 and 8: the
    substeps of each frame, the world's calm count and the final poses."""
    scene = bpy.context.scene
    box("Ground", (4, 4, 0.2), (0, 0, -0.1), kind='STATIC')
    left = box("Left", (0.4, 0.2, 0.1), (-0.2, 0, 0.05))
    right = box("Right", (0.4, 0.2, 0.1), (0.2, 0, 0.05))
    joint("Pair", 'HINGE', left, right, (0, 0, 0.05), rotation=(math.pi / 2, 0, 0))
    ws = scene.ligament_world

    def play(calm):
        ws.substeps, ws.jointed_substeps, ws.calm_substeps = 8, 8, calm
        counts = []
        for f in range(1, 31):
            scene.frame_set(f)
            sim = lig().addon.runtime.cache.get(scene)
            ids = {b.name: b.id for b in sim.bodies}
            counts.append(int(sim.world._bsub.view[ids["Left"]]))
        return {"counts": counts, "calm": sim.world.calm_substeps,
                "poses": transforms([left, right])}
    return {"auto": play(0), "four": play(4), "off": play(8),
            "error": lig().addon.runtime.cache.error(scene)}


def shapes_fit_geometry_and_scale():
    """A tower of three cubes by an Array modifier and a 2 x 2 x 0.4 m slab, 72 frames."""
    scene = bpy.context.scene
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
    return {"tower": tower.matrix_world.translation.z, "slab": slab.matrix_world.translation.z,
            "tilt": [tower.matrix_world.to_quaternion().angle,
                     slab.matrix_world.to_quaternion().angle]}


def body_disabled_in_viewports_grown():
    """A crate evaluated once at 1 m, hidden in viewports, its mesh grown to 2 m: its
    height after 60 frames."""
    scene = bpy.context.scene
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
    return {"z": crate.location.z}


def parented_door():
    """The door and a copy of it 10 m further along Y, parented to a rotated, scaled empty
    and in rotation mode YZX: both doors' matrices over 40 frames."""
    scene = bpy.context.scene
    frame, door_, hinge = door()
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
        pairs.append([transforms([door_])[0], transforms([door2])[0]])
    return {"pairs": pairs, "parent": door2.parent.name}


def animated_lift_and_welded_load():
    """An Animated lift keyed from z 2 to 4 over frames 1-25 with a load welded below it."""
    scene = bpy.context.scene
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
    return {"lift": lift_z, "load": load_z,
            "builds": lig().addon.runtime.simulation.stats["builds"]}


def collision_groups():
    """Two shelves of group 1 at 1 m; cubes of groups 1 and 2 dropped on them: their
    heights after 60 frames."""
    scene = bpy.context.scene
    box("Ground", (10, 10, 1), (0, 0, -0.5), kind='STATIC')
    box("Shelf1", (1, 1, 0.2), (0, 0, 1), kind='STATIC', collision_group=1)
    box("Shelf2", (1, 1, 0.2), (3, 0, 1), kind='STATIC', collision_group=1)
    same = box("Same", (0.5, 0.5, 0.5), (0, 0, 2), collision_group=1)
    other = box("Other", (0.5, 0.5, 0.5), (3, 0, 2), collision_group=2)
    for f in range(1, 61):
        scene.frame_set(f)
    return [same.matrix_world.translation.z, other.matrix_world.translation.z]


def body_moved_mid_simulation():
    """A cube landed by frame 20, dragged to (5, 0, 4): where it is at frame 21 and at the
    start frame."""
    scene = bpy.context.scene
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
    return {"landed": landed, "after_move": after_move, "start": start}


def ragdoll_swing_limits(swings):
    """Rods on ragdoll joints with swing_1 `swings` (degrees) hanging for 72 frames: each
    rod's tilt below the horizontal (degrees)."""
    scene = bpy.context.scene
    tilts = []
    for i, swing in enumerate(swings):
        y = 3.0 * i
        base = box(f"Base{i}", (0.2, 0.2, 0.2), (0, y, 2), kind='STATIC')
        rod = box(f"Rod{i}", (1.0, 0.1, 0.1), (0.6, y, 2))
        # Twist axis (local Y) along the rod, world +X; local X is then world -Y, so
        # gravity swings the rod about local X, which swing_1 limits.
        joint(f"Shoulder{i}", 'RAGDOLL', base, rod, (0.1, y, 2), rotation=(0, 0, -math.pi / 2),
              swing_1=math.radians(swing), swing_2=math.radians(5.0))
    for f in range(1, 73):
        scene.frame_set(f)
    for i in range(len(swings)):
        d = bpy.data.objects[f"Rod{i}"].matrix_world.col[0].xyz.normalized()
        tilts.append(math.degrees(math.asin(-d.z)))
    return {"tilts": tilts, "error": lig().addon.runtime.cache.error(scene)}


def auto_shapes_on_a_slope():
    """A UV sphere and a cube made bodies by Add Body (shape AUTO) on a 15-degree ramp: how
    far each moved in 48 frames."""
    scene = bpy.context.scene
    slope = math.radians(15)
    box("Ramp", (12, 4, 0.2), (0, 0, 0), rotation=(0, slope, 0), kind='STATIC')
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
    ball.select_set(True)
    cube.select_set(True)
    bpy.context.view_layer.objects.active = cube
    assert bpy.ops.ligament.add_body() == {'FINISHED'}
    start = [ball.matrix_world.translation.copy(), cube.matrix_world.translation.copy()]
    for f in range(1, 49):
        scene.frame_set(f)
    moved = [(o.matrix_world.translation - s).length for o, s in zip((ball, cube), start)]
    return {"moved": moved, "shapes": [ball.ligament_body.shape, cube.ligament_body.shape]}


def what_drops_the_cache():
    """Builds after moving an unrelated empty, the ground, and parenting the cube."""
    scene = bpy.context.scene
    ground = box("Ground", (10, 10, 1), (0, 0, -0.5), kind='STATIC')
    cube = box("Cube", (1, 1, 1), (0, 0, 2))
    prop = bpy.data.objects.new("Prop", None)
    scene.collection.objects.link(prop)
    builds = lig().addon.runtime.simulation.stats
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
    return {"prop": after_prop, "ground": after_ground, "parent": after_parent,
            "error": lig().addon.runtime.cache.error(scene)}


def edits_between_frames():
    """Builds per stretch of frames with a field, a name and a pose edited between frames,
    and frame handlers of the user's that move the ground or change the wind."""
    scene = bpy.context.scene
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
    builds = lig().addon.runtime.simulation.stats
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
    return {"counts": counts, "error": lig().addon.runtime.cache.error(scene),
            "ragdoll": arm.ligament_ragdoll.enabled}


def sprung_door(spring):
    """No gravity; an animated post turns through 0.3 rad about Z over frames 1-3 and stays;
    a 1 m wide, 2 m tall, 10 kg door hangs on it by its edge (x = 0, 0.55 m from its centre)
    on a hinge about the empty's Z (world Z) with a spring of settings `spring`. The spring
    pulls the door after the post and the door swings about its edge around the post's new
    angle, undamped: the door's angle off the post's over 6 s."""
    scene = bpy.context.scene
    scene.gravity = (0, 0, 0)
    post = box("Post", (0.1, 0.1, 2.0), (0, 0, 1), kind='ANIMATED')
    post.keyframe_insert("rotation_euler", frame=1)
    post.rotation_euler.z = 0.3
    post.keyframe_insert("rotation_euler", frame=3)
    door_ = box("Door", (1.0, 0.05, 2.0), (0.55, 0, 1), mass=10.0, linear_damping=0.0,
                angular_damping=0.0)
    joint("Hinge", 'HINGE', post, door_, (0, 0, 1), use_spring=True, **spring)
    angles = []
    for f in range(1, 6 * 24 + 2):
        scene.frame_set(f)
        angles.append(door_.matrix_world.to_euler().z - 0.3)
    return {"angles": angles, "error": lig().addon.runtime.cache.error(scene)}


def _flipped_floor(name, x, one_sided):
    """A 4 m plane turned over (rotation X 180 degrees): its face normal points down."""
    bpy.ops.mesh.primitive_plane_add(size=4, location=(x, 0, 0), rotation=(math.pi, 0, 0))
    obj = bpy.context.active_object
    obj.name = name
    s = obj.ligament_body
    s.enabled, s.kind, s.shape, s.one_sided = True, 'STATIC', 'MESH', one_sided
    return obj


def crates_on_flipped_floors():
    """Crates dropped from 2 m on a turned-over floor plane, two-sided and one-sided: both
    heights over 72 frames."""
    scene = bpy.context.scene
    _flipped_floor("Floor", 0, False)
    _flipped_floor("OneSided", 10, True)
    crate = box("Crate", (1, 1, 1), (0, 0, 2))
    through = box("Through", (1, 1, 1), (10, 0, 2))
    zs = []
    for f in range(1, 73):
        scene.frame_set(f)
        zs.append((crate.matrix_world.translation.z, through.matrix_world.translation.z))
    return {"z": zs, "error": lig().addon.runtime.cache.error(scene)}


def _world_labels(scene):
    """{property: its label} of what Scene > Ligament World draws with a label of its own."""
    layout = Layout()
    lig().addon.ui.panels.scene_world.draw_world(layout, scene)
    return layout.record["texts"]


def jointed_substeps_follow_substeps():
    """The door and a free crate stepped for frames 1-6 at each (Substeps, Jointed Substeps)
    of a new scene's: the World's jointed and calm counts, the substeps the door and the
    crate stepped at in frames 2-6 (the door swinging: never calm), and the labels Scene >
    Ligament World gives the two settings."""
    scene = bpy.context.scene
    door()
    box("Crate", (0.3, 0.3, 0.3), (4, 0, 3))
    ws = scene.ligament_world
    out = {"default": ws.jointed_substeps, "runs": []}
    for substeps, jointed in ((8, 0), (16, 0), (10, 0), (4, 0), (2, 0), (16, 6), (16, 20)):
        ws.substeps, ws.jointed_substeps = substeps, jointed
        counts = door_counts(scene, 6)
        world = lig().addon.runtime.cache.get(scene).world
        out["runs"].append([substeps, jointed, world.jointed_substeps, counts,
                            world.calm_substeps, _world_labels(scene)])
    out["error"] = lig().addon.runtime.cache.error(scene)
    return out
