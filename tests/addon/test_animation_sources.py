"""What moves an animated object in Blender moves it in the simulation: an NLA strip, a driver, a
constraint (Child Of), a parent moved by any of these, delta transforms. The simulation takes
what Blender shows for that object at that frame (the evaluated depsgraph), so each test
compares the solver's body with the object's evaluated `matrix_world` at the same frame, or
runs the same motion made two ways (keyed on the object itself, and by the other source) and
asks for the same physics."""

import pytest

from test_bone_chain import CHAIN
from test_ragdoll import POSE, RIGIFY

pytestmark = pytest.mark.usefixtures("blender")

HELPERS = """
    cache = lig.addon.runtime.cache
    stats = lig.addon.runtime.simulation.stats

    def linear(obj):
        for fc in lig.addon.scene.animation.action_fcurves(obj).values():
            for k in fc.keyframe_points:
                k.interpolation = 'LINEAR'

    def slide(obj, frames_values, index=0, path="location"):
        # keys of one channel, linear between them
        for f, v in frames_values:
            getattr(obj, path)[index] = v
            obj.keyframe_insert(path, index=index, frame=f)
        linear(obj)

    def to_nla(obj):
        # the action onto an NLA strip, none active: only the NLA moves it
        ad = obj.animation_data
        action = ad.action
        track = ad.nla_tracks.new()
        track.strips.new(action.name, int(action.frame_range[0]), action)
        ad.action = None

    def solver_origin(name, f):
        # where the solver has the body's object origin at frame f (cached state)
        sim = cache.get(scene)
        b = next(b for b in sim.bodies if b.name == name)
        sim.world.load_state(sim.states[f])
        sim.world_frame = None
        q = Quaternion(sim.world.orientations[b.id].tolist())
        return list(Vector(sim.world.positions[b.id].tolist()) - q @ b.offset)
"""


def test_animated_bodies_are_where_blender_shows_them_whatever_moves_them(blender):
    """A paddle on an NLA strip, one on a driver, one under a Child Of constraint, one carried
    by a parent on an NLA strip: at every frame the solver's body is where Blender shows the
    object (the issue's figures: NLA 3.55 at frame 20 where the solver had 4.0, the driver
    3.17 where it had 6.33, Child Of 3.55 where it had 0.0)."""
    out = blender.run(HELPERS, """
        scene.use_gravity = False
        ws = scene.ligament_world
        ws.enabled = True
        ws.frame_start, ws.frame_end = 1, 30
        nla = box("NLA", (0.2, 1, 1), (0, 0, 1), kind='ANIMATED')
        slide(nla, [(1, 0.0), (25, 4.0)])
        for fc in lig.addon.scene.animation.action_fcurves(nla).values():
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
        result({"shown": shown, "solved": solved, "box": box_x, "error": cache.error(scene)})
    """)
    assert out["error"] is None
    off = {}
    for name in ("NLA", "Driver", "ChildOf", "Carried"):
        worst = max(max(abs(a - b) for a, b in zip(s, v))
                    for s, v in zip(out["shown"][name], out["solved"][name]))
        if worst >= 1e-4:   # frame 20: what Blender shows, where the solver had it
            off[name] = (out["shown"][name][19][0], out["solved"][name][19][0])
    assert not off, off
    # the paddle on the NLA strip reaches the box (front at 2.0 - 0.25) and pushes it ahead
    # of its own front face (x + 0.1) from then on
    nla_x = [p[0] for p in out["shown"]["NLA"]]
    assert out["box"][-1] > 2.3
    for x, b in zip(nla_x, out["box"]):
        assert b - 0.25 >= x + 0.1 - 0.01, (x, b)


def test_a_field_on_an_nla_strip_pushes_on_the_frame_its_keys_say(blender):
    """A wind whose strength steps from 0 to 200 at frame 11: played by an NLA strip it pushes
    exactly as when the same keys are the active action (it pushed a frame late)."""
    out = blender.run(HELPERS, """
        scene.use_gravity = False
        ws = scene.ligament_world
        ws.enabled = True
        ws.frame_start, ws.frame_end = 1, 30
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
        result({"keyed": keyed, "nla": nla, "error": cache.error(scene)})
    """)
    assert out["error"] is None
    assert out["keyed"][-1] > 0.1             # the wind blew
    for f, (a, b) in enumerate(zip(out["keyed"], out["nla"]), start=1):
        assert abs(a - b) < 1e-6, (f, a, b)


def test_an_animated_body_carried_by_its_parent_takes_hits(blender):
    """A 2 kg box slid 2 m along X in a second into a floating 20 kg ball, with a Hit Impulse
    of 10 N s: carried by a keyed parent it is hit on the same frame and as hard as when the
    keys are its own (the parent's motion did not arm it: the hit went unnoticed)."""
    out = blender.run(HELPERS, """
        scene.use_gravity = False
        ws = scene.ligament_world
        ws.enabled = True
        ws.frame_start, ws.frame_end = 1, 40
        target = box("Target", (0.5, 0.5, 0.5), (0, 0, 2), kind='ANIMATED', mass=2.0,
                     friction=0.0, hit_impulse=10.0)
        target.rotation_mode = 'QUATERNION'
        ball = box("Ball", (0.5, 0.5, 0.5), (2.3, 0, 2), mass=20.0, friction=0.0,
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
        result({"own": own, "carried": carried})
    """)
    own, error = out["own"]
    assert error is None and own, own          # hit when the keys are its own
    carried, error = out["carried"]
    assert error is None
    assert [h[:2] for h in carried] == [h[:2] for h in own], (own, carried)
    for (_, _, a), (_, _, b) in zip(own, carried):
        assert abs(a - b) <= 0.02 * a, (own, carried)


def test_an_animated_body_starts_with_its_animations_velocity(blender):
    """A paddle keyed to move at 2 m/s from the start frame, 1 cm from a floating box: the
    first step sees it coming and pushes the box (it went 7.3 cm into it, taken as standing
    still on the first frame)."""
    out = blender.run(HELPERS, """
        scene.use_gravity = False
        ws = scene.ligament_world
        ws.enabled = True
        ws.frame_start, ws.frame_end = 1, 20
        paddle = box("Paddle", (0.2, 1, 1), (0, 0, 1), kind='ANIMATED')
        slide(paddle, [(1, 0.0), (25, 2.0)])
        ball = box("Ball", (0.5, 0.5, 0.5), (0.1 + 0.01 + 0.25, 0, 1), mass=1.0,
                   friction=0.0, linear_damping=0.0, angular_damping=0.0)
        depth = []
        for f in range(1, 11):
            scene.frame_set(f)
            front = paddle.matrix_world.translation.x + 0.1
            depth.append(front - (ball.matrix_world.translation.x - 0.25))
        result({"depth": depth, "error": cache.error(scene)})
    """)
    assert out["error"] is None
    assert max(out["depth"]) < 0.005, out["depth"]


def test_delta_transforms_of_a_dynamic_body_are_part_of_its_pose(blender):
    """Boxes dropped on the floor with a delta location, a delta rotation and a delta scale,
    each beside a twin with the same world transform made without deltas: each comes to rest
    exactly as its twin, on the floor (delta location 1 m floated a box 1 m above it, delta
    rotation sank one 9.8 cm, delta scale 2 sank one 25 cm)."""
    out = blender.run(HELPERS, """
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
        result({"m": {n: [list(r) for r in bpy.data.objects[n].matrix_world] for n in names},
                "error": cache.error(scene)})
    """)
    assert out["error"] is None
    m = out["m"]
    for delta, twin, half in (("DeltaLoc", "TwinLoc", 0.25), ("DeltaRot", "TwinRot", 0.6),
                              ("DeltaScale", "TwinScale", 0.5)):
        z = m[delta][2][3]
        # on the floor: the centre half the box's height above it (the long axis lies flat)
        lowest = 0.2 if delta == "DeltaRot" else half
        assert abs(z - lowest) < 0.005, (delta, z)
        assert abs(z - m[twin][2][3]) < 0.002, (delta, z, m[twin][2][3])
        for i in range(3):   # turned and sized as its twin
            for j in range(3):
                assert abs(m[delta][i][j] - m[twin][i][j]) < 0.002, (delta, m[delta], m[twin])


def test_keyed_scale_on_a_dynamic_body_builds_once_and_its_bake_keeps_it(blender):
    """A dynamic box whose scale is keyed (it grows over the shot) falls onto the floor: the
    world is built once for 48 frames (it was built again on every frame, 25 builds) and
    the bake keeps the scale keys, so the baked box shows the scale the keys give."""
    out = blender.run(HELPERS, """
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
        result({"builds": builds, "shown": shown, "baked": baked,
                "error": cache.error(scene)})
    """)
    assert out["error"] is None
    assert out["builds"] == 0, out["builds"]
    for f, (loc, scale) in out["baked"].items():
        want_loc, want_scale = out["shown"][f]
        assert max(abs(a - b) for a, b in zip(scale, want_scale)) < 1e-5, (f, scale, want_scale)
        assert max(abs(a - b) for a, b in zip(loc, want_loc)) < 1e-4, (f, loc, want_loc)


def test_a_ragdoll_carried_by_a_moving_parent_starts_with_its_velocity(blender):
    """A character in a car moving at 5 m/s: its armature parented to a keyed empty. Its
    ragdoll, simulated from the start without gravity, carries on as the same motion keyed on
    the armature itself does (its pelvis stayed at x 1.875 where the keyed one went on to
    6.75)."""
    out = blender.run(RIGIFY, HELPERS, """
        scene.use_gravity = False
        ws = scene.ligament_world
        ws.enabled = True
        ws.frame_start, ws.frame_end = 1, 30
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
        result({"x": xs, "error": cache.error(scene)})
    """)
    assert out["error"] is None
    own, carried = out["x"]["Own"], out["x"]["Carried"]
    assert own[-1] - own[0] > 4.0                 # carried on at about 5 m/s
    for f, (a, b) in enumerate(zip(own, carried), start=1):
        assert abs(a - b) < 0.01, (f, a, b)


def test_a_ragdoll_following_bones_played_by_an_nla_strip_holds_their_pose(blender):
    """A metarig whose pose is played by an NLA strip (no active action), ragdolled with its
    parts following the animation (Simulated off): its bones are where the same strip puts an
    unragdolled twin's, and the world is built once (it was built again on every frame)."""
    out = blender.run(RIGIFY, POSE, HELPERS, """
        scene.use_gravity = False
        ws = scene.ligament_world
        ws.enabled = True
        ws.frame_start, ws.frame_end = 1, 30
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
        result({"worst": worst, "builds": stats["builds"] - first,
                "error": cache.error(scene)})
    """)
    assert out["error"] is None
    assert out["builds"] == 0, out["builds"]
    assert out["worst"] < 1e-4, out["worst"]


def test_a_bone_chain_carried_by_a_moving_parent_swings_as_when_keyed_itself(blender):
    """A hanging bone chain moving at 5 m/s from the start, stopping at frame 13: its armature
    keyed, or carried by a keyed empty. The chain swings the same either way (carried, it
    started at rest and its tip was off by centimetres)."""
    out = blender.run(CHAIN, HELPERS, """
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
        result({"tips": tips, "error": cache.error(scene)})
    """)
    assert out["error"] is None
    own, carried = out["tips"]["Own"], out["tips"]["Carried"]
    assert max(abs(p[1]) for p in own) > 0.05        # the chain swings on when it stops
    for f, (a, b) in enumerate(zip(own, carried), start=1):
        assert max(abs(x - y) for x, y in zip(a, b)) < 0.002, (f, a, b)
