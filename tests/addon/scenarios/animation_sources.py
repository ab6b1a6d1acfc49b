"""test_animation_sources.py's scenarios: what moves an animated object in Blender (an NLA
strip, a driver, a Child Of constraint, a parent, delta transforms) moves it in the
simulation. `slide()` and `to_nla()` are shared with other scenario modules."""

import math

import bpy
from mathutils import Matrix, Quaternion, Vector

from .bone_chain import chain_armature
from .helpers import box, lig
from .rigs import enable_rigify, key_pose, metarig, ragdoll_bodies


def linear(obj):
    for fc in lig().addon.scene.animation.action_fcurves(obj).values():
        for k in fc.keyframe_points:
            k.interpolation = 'LINEAR'


def slide(obj, frames_values, index=0, path="location"):
    """Keys of one channel, linear between them."""
    for f, v in frames_values:
        getattr(obj, path)[index] = v
        obj.keyframe_insert(path, index=index, frame=f)
    linear(obj)


def to_nla(obj):
    """The action onto an NLA strip, none active: only the NLA moves it."""
    ad = obj.animation_data
    action = ad.action
    track = ad.nla_tracks.new()
    track.strips.new(action.name, int(action.frame_range[0]), action)
    ad.action = None


def solver_origin(name, f):
    """Where the solver has the body's object origin at frame f (cached state)."""
    sim = lig().addon.runtime.cache.get(bpy.context.scene)
    b = next(b for b in sim.bodies if b.name == name)
    sim.world.load_state(sim.states[f])
    sim.world_frame = None
    q = Quaternion(sim.world.orientations[b.id].tolist())
    return list(Vector(sim.world.positions[b.id].tolist()) - q @ b.offset)


def _no_gravity(frame_end):
    scene = bpy.context.scene
    scene.use_gravity = False
    ws = scene.ligament_world
    ws.enabled = True
    ws.frame_start, ws.frame_end = 1, frame_end
    return scene


def paddles_moved_every_way():
    """Paddles moved by an NLA strip, a driver, a Child Of constraint and a parent on an NLA
    strip, no gravity, 30 frames, a box in the first one's way: where Blender shows each and
    where the solver has it, per frame, and the box's x."""
    scene = _no_gravity(30)
    cache = lig().addon.runtime.cache
    nla = box("NLA", (0.2, 1, 1), (0, 0, 1), kind='ANIMATED')
    slide(nla, [(1, 0.0), (25, 4.0)])
    for fc in lig().addon.scene.animation.action_fcurves(nla).values():
        for k in fc.keyframe_points:
            k.interpolation = 'BEZIER'    # eased: 3.55 at frame 20
    to_nla(nla)
    nla.location.x = 4.0          # what the channel holds is not what Blender shows
    driven = box("Driver", (0.2, 1, 1), (0, 3, 1), kind='ANIMATED')
    d = driven.driver_add("location", 0).driver
    d.expression = "frame / 6"
    driven.location.x = 6.33
    child = box("ChildOf", (0.2, 1, 1), (0, 6, 1), kind='ANIMATED')
    c = child.constraints.new('CHILD_OF')
    c.target = nla
    c.use_location_y = c.use_location_z = False
    c.set_inverse_pending = False
    c.inverse_matrix = Matrix.Identity(4)
    carrier = bpy.data.objects.new("Carrier", None)
    scene.collection.objects.link(carrier)
    slide(carrier, [(1, 0.0), (25, 3.0)])
    to_nla(carrier)
    carried = box("Carried", (0.2, 1, 1), (0, 9, 1), kind='ANIMATED')
    carried.parent = carrier
    # a dynamic box in the first paddle's way: pushed, not passed through
    ball = box("Box", (0.5, 0.5, 0.5), (2.0, 0, 1), mass=1.0, friction=0.0)
    names = ("NLA", "Driver", "ChildOf", "Carried")
    shown, solved = {n: [] for n in names}, {n: [] for n in names}
    box_x = []
    for f in range(1, 31):
        scene.frame_set(f)
        for n in names:
            shown[n].append(list(bpy.data.objects[n].matrix_world.translation))
        box_x.append(ball.matrix_world.translation.x)
    for f in range(1, 31):
        for n in names:
            solved[n].append(solver_origin(n, f))
    return {"shown": shown, "solved": solved, "box": box_x, "error": cache.error(scene)}


def wind_on_an_nla_strip():
    """A wind stepping from 0 to 200 at frame 11 on a free box, no gravity: the box's x over
    20 frames with the keys active, then played by an NLA strip."""
    scene = _no_gravity(30)
    cache = lig().addon.runtime.cache
    bpy.ops.object.effector_add(type='WIND', location=(0, 0, 0),
                                rotation=(0, math.pi / 2, 0))   # blows along world X
    field = bpy.context.active_object
    field.field.strength = 0.0
    field.field.keyframe_insert("strength", frame=1)
    field.field.keyframe_insert("strength", frame=10)
    field.field.strength = 200.0
    field.field.keyframe_insert("strength", frame=11)
    body = box("Body", (0.5, 0.5, 0.5), (0, 0, 5), mass=1.0, linear_damping=0.0,
               angular_damping=0.0)

    def run():
        bpy.ops.ligament.reset()
        xs = []
        for f in range(1, 21):
            scene.frame_set(f)
            xs.append(body.matrix_world.translation.x)
        return xs
    keyed = run()
    to_nla(field)
    field.field.strength = 0.0
    nla = run()
    return {"keyed": keyed, "nla": nla, "error": cache.error(scene)}


def hit_on_a_carried_body():
    """A 2 kg box (Hit Impulse 10) slid 2 m along X in a second into a floating 20 kg box,
    keyed itself and then carried by a keyed parent: the hits of each play."""
    scene = _no_gravity(40)
    cache = lig().addon.runtime.cache
    target = box("Target", (0.5, 0.5, 0.5), (0, 0, 2), kind='ANIMATED', mass=2.0,
                 friction=0.0, hit_impulse=10.0)
    target.rotation_mode = 'QUATERNION'
    box("Ball", (0.5, 0.5, 0.5), (2.3, 0, 2), mass=20.0, friction=0.0,
        linear_damping=0.0, angular_damping=0.0)

    def run():
        bpy.ops.ligament.reset()
        for f in range(1, 41):
            scene.frame_set(f)
        return cache.get(scene).hit_list(), cache.error(scene)
    slide(target, [(1, 0.0), (25, 2.0)])
    own = run()
    target.animation_data_clear()
    target.location = (0, 0, 0)
    carrier = bpy.data.objects.new("Carrier", None)
    scene.collection.objects.link(carrier)
    carrier.location = (0, 0, 2)
    slide(carrier, [(1, 0.0), (25, 2.0)])
    target.parent = carrier
    carried = run()
    return {"own": own, "carried": carried}


def paddle_starting_at_speed():
    """A paddle keyed at 2 m/s from the start frame, 1 cm from a floating box: how deep its
    front is in the box at each of the first 10 frames."""
    scene = _no_gravity(20)
    cache = lig().addon.runtime.cache
    paddle = box("Paddle", (0.2, 1, 1), (0, 0, 1), kind='ANIMATED')
    slide(paddle, [(1, 0.0), (25, 2.0)])
    ball = box("Ball", (0.5, 0.5, 0.5), (0.1 + 0.01 + 0.25, 0, 1), mass=1.0,
               friction=0.0, linear_damping=0.0, angular_damping=0.0)
    depth = []
    for f in range(1, 11):
        scene.frame_set(f)
        front = paddle.matrix_world.translation.x + 0.1
        depth.append(front - (ball.matrix_world.translation.x - 0.25))
    return {"depth": depth, "error": cache.error(scene)}


def delta_transforms():
    """Boxes with a delta location, rotation and scale and their twins without, dropped on
    the floor for 48 frames: their world matrices."""
    scene = bpy.context.scene
    cache = lig().addon.runtime.cache
    ws = scene.ligament_world
    ws.enabled = True
    ws.frame_start, ws.frame_end = 1, 48
    box("Ground", (30, 30, 1), (0, 0, -0.5), kind='STATIC')
    a = box("DeltaLoc", (0.5, 0.5, 0.5), (0, 0, 0.5))
    a.delta_location = (0, 0, 1.0)
    box("TwinLoc", (0.5, 0.5, 0.5), (0, 2, 1.5))
    b = box("DeltaRot", (0.4, 0.4, 1.2), (3, 0, 1.5))
    b.delta_rotation_euler = (math.radians(90), 0, 0)
    box("TwinRot", (0.4, 0.4, 1.2), (3, 2, 1.5), rotation=(math.radians(90), 0, 0))
    c = box("DeltaScale", (0.5, 0.5, 0.5), (6, 0, 1.5))
    c.delta_scale = (2, 2, 2)
    box("TwinScale", (1, 1, 1), (6, 3, 1.5))
    names = ("DeltaLoc", "TwinLoc", "DeltaRot", "TwinRot", "DeltaScale", "TwinScale")
    for f in range(1, 49):
        scene.frame_set(f)
    return {"m": {n: [list(r) for r in bpy.data.objects[n].matrix_world] for n in names},
            "error": cache.error(scene)}


def keyed_scale_grows():
    """A dynamic box whose scale is keyed from 0.5 to 1 over 48 frames, dropped on the
    floor: the builds after frame 1, its translation and scale per frame live and at frames
    1, 24 and 48 baked."""
    scene = bpy.context.scene
    cache = lig().addon.runtime.cache
    stats = lig().addon.runtime.simulation.stats
    ws = scene.ligament_world
    ws.enabled = True
    ws.frame_start, ws.frame_end = 1, 48
    box("Ground", (30, 30, 1), (0, 0, -0.5), kind='STATIC')
    body = box("Grow", (0.5, 0.5, 0.5), (0, 0, 1.0))
    body.keyframe_insert("scale", frame=1)
    body.scale = (1.0, 1.0, 1.0)
    body.keyframe_insert("scale", frame=48)
    scene.frame_set(1)
    first = stats["builds"]
    shown = {}
    for f in range(1, 49):
        scene.frame_set(f)
        shown[f] = (list(body.matrix_world.translation), list(body.matrix_world.to_scale()))
    builds = stats["builds"] - first
    bpy.ops.ligament.bake(frame_start=1, frame_end=48)
    baked = {}
    for f in (1, 24, 48):
        scene.frame_set(f)
        baked[f] = (list(body.matrix_world.translation), list(body.matrix_world.to_scale()))
    return {"builds": builds, "shown": shown, "baked": baked, "error": cache.error(scene)}


def ragdoll_in_a_car():
    """Two metarig ragdolls, no gravity: one keyed at 5 m/s itself, one parented to an empty
    keyed the same: both pelvises' x over 24 frames."""
    enable_rigify()
    scene = _no_gravity(30)
    cache = lig().addon.runtime.cache
    own = metarig("Own", location=(0, 0, 1.0))
    slide(own, [(1, 0.0), (25, 5.0)])
    bpy.ops.ligament.ragdoll_from_armature()
    car = bpy.data.objects.new("Car", None)
    scene.collection.objects.link(car)
    car.location = (0, 4, 1.0)
    slide(car, [(1, 0.0), (25, 5.0)])
    carried = metarig("Carried", location=(0, 0, 0))
    carried.parent = car
    bpy.ops.ligament.ragdoll_from_armature()
    pelvis = {arm.name: next(o for o in ragdoll_bodies(arm)
                             if o.ligament_ragdoll_part.part == "pelvis")
              for arm in (own, carried)}
    xs = {name: [] for name in pelvis}
    for f in range(1, 25):
        scene.frame_set(f)
        for name, o in pelvis.items():
            xs[name].append(o.matrix_world.translation.x)
    return {"x": xs, "error": cache.error(scene)}


def ragdoll_following_an_nla_pose():
    """A metarig posed by an NLA strip, ragdolled with Simulated off, beside an unragdolled
    twin on the same strip, no gravity: the worst difference of four bones' matrices over 30
    frames, and the builds after frame 1."""
    enable_rigify()
    scene = _no_gravity(30)
    cache = lig().addon.runtime.cache
    stats = lig().addon.runtime.simulation.stats
    twin = metarig("Twin", location=(0, 3, 1.0))
    key_pose(twin)
    to_nla(twin)
    arm = metarig("Rig", location=(0, 0, 1.0))
    key_pose(arm)
    to_nla(arm)
    bpy.ops.ligament.ragdoll_from_armature()
    arm.ligament_ragdoll.simulated = False
    bones = ("upper_arm.L", "forearm.L", "shin.R", "spine.004")
    scene.frame_set(1)
    first = stats["builds"]
    worst = 0.0
    for f in range(1, 31):
        scene.frame_set(f)
        for b in bones:
            m = arm.pose.bones[b].matrix      # armature space: the twin stands elsewhere
            t = twin.pose.bones[b].matrix
            worst = max(worst, max(abs(x - y) for r1, r2 in zip(m, t)
                                   for x, y in zip(r1, r2)))
    return {"worst": worst, "builds": stats["builds"] - first, "error": cache.error(scene)}


def bone_chain_in_a_car():
    """Two hanging TAIL chains moving at 5 m/s and stopping at frame 13: one's armature
    keyed, the other's carried by a keyed empty; each tip relative to its armature over 24
    frames."""
    scene = bpy.context.scene
    cache = lig().addon.runtime.cache
    ws = scene.ligament_world
    ws.enabled = True
    ws.frame_start, ws.frame_end = 1, 30
    own, names = chain_armature(name="Own", location=(0, 0, 2))
    bpy.ops.ligament.add_bone_chain(preset='TAIL')
    bpy.ops.object.mode_set(mode='OBJECT')
    slide(own, [(1, 0.0), (13, 2.5), (25, 2.5)], index=1)   # 5 m/s, then it stops
    for o in bpy.context.selected_objects:
        o.select_set(False)
    carried, _ = chain_armature(name="Carried", location=(0, 0, 0))
    bpy.ops.ligament.add_bone_chain(preset='TAIL')
    bpy.ops.object.mode_set(mode='OBJECT')
    car = bpy.data.objects.new("Car", None)
    scene.collection.objects.link(car)
    car.location = (2, 0, 2)
    slide(car, [(1, 0.0), (13, 2.5), (25, 2.5)], index=1)
    carried.parent = car
    tips = {"Own": [], "Carried": []}
    for f in range(1, 25):
        scene.frame_set(f)
        for arm in (own, carried):
            tip = arm.matrix_world @ arm.pose.bones[names[-1]].tail
            tips[arm.name].append(list(tip - arm.matrix_world.translation))
    return {"tips": tips, "error": cache.error(scene)}
