"""test_hits.py's scenarios: hit reactions of an Animated box sliding into a floating ball
(no gravity, no friction), and of a gliding ragdoll's chest."""

import bpy

from .helpers import box, lig
from .rigs import enable_rigify, metarig, ragdoll_bodies


class BoxAndBall:
    """No gravity; a 2 kg frictionless box keyed to slide 2 m along X in a second and back
    (linear keys), and a 20 kg frictionless ball floating in its way."""

    def __init__(self):
        self.scene = scene = bpy.context.scene
        self.addon = addon = lig().addon
        scene.use_gravity = False
        ws = scene.ligament_world
        ws.enabled = True
        ws.frame_start, ws.frame_end = 1, 60
        target = box("Target", (0.5, 0.5, 0.5), (0, 0, 2), kind='ANIMATED', mass=2.0,
                     friction=0.0, linear_damping=0.0, angular_damping=0.0)
        target.rotation_mode = 'QUATERNION'
        for f, x in ((1, 0.0), (25, 2.0), (49, 0.0)):
            target.location.x = x
            target.keyframe_insert("location", frame=f)
        for fc in addon.scene.animation.transform_fcurves(target).values():
            for k in fc.keyframe_points:
                k.interpolation = 'LINEAR'
        bpy.ops.mesh.primitive_uv_sphere_add(radius=0.25, location=(2.3, 0.05, 2))
        ball = bpy.context.active_object
        ball.name = "Ball"
        ball.ligament_body.enabled = True
        ball.ligament_body.shape = 'SPHERE'
        ball.ligament_body.mass = 20.0
        ball.ligament_body.friction = 0.0
        ball.ligament_body.linear_damping = 0.0
        ball.ligament_body.angular_damping = 0.0
        self.target, self.ball = target, ball
        self.cache = addon.runtime.cache

    def play(self, hit, blend, last=60):
        """Played from a reset with the box's Hit Impulse `hit` and Blend Back `blend`: per
        frame the box's world translation, rotation and keyed location, the ball's
        translation, both bodies' velocities from the cached states; the builds after frame
        1, the hits and the frames shown as hits."""
        scene, target, ball = self.scene, self.target, self.ball
        stats = self.addon.runtime.simulation.stats
        target.ligament_body.hit_impulse = hit
        target.ligament_body.blend_back = blend
        bpy.ops.ligament.reset()
        out = {"world": [], "keys": [], "ball": [], "rot": []}
        for f in range(1, last + 1):
            scene.frame_set(f)
            if f == 1:
                builds = stats["builds"]
            out["world"].append(list(target.matrix_world.translation))
            out["rot"].append(list(target.matrix_world.to_quaternion()))
            out["keys"].append(list(target.location))     # the keyed channel itself
            out["ball"].append(list(ball.matrix_world.translation))
        out["builds"] = stats["builds"] - builds
        sim = self.cache.get(scene)
        ids = {b.name: b.id for b in sim.bodies}
        vel = {"Target": [], "Ball": []}
        for f in range(1, last + 1):
            sim.world.load_state(sim.states[f])
            for name in vel:
                vel[name].append(sim.world.linear_velocities[ids[name]].tolist())
        sim.world_frame = None      # the world no longer holds the last frame's state
        out["vel"] = vel
        out["hits"] = sim.hit_list()
        out["shown"] = self.cache.hit_frames(scene, "Target")
        return out


def four_plays():
    """The box and ball played with hits off, 10 N s without and with a 6-frame blend back,
    and 1000 N s."""
    s = BoxAndBall()
    return {"off": s.play(0.0, 0), "stay": s.play(10.0, 0), "blend": s.play(10.0, 6),
            "above": s.play(1000.0, 6)}


def replayed_and_baked():
    """A play with a hit (10 N s, blend back 6), replayed from 3 frames before the hit and
    baked: the box's translation in each."""
    s = BoxAndBall()
    scene, cache, target = s.scene, s.cache, s.target
    live = s.play(10.0, 6)
    hit = live["hits"][0][0]
    sim = cache.get(scene)
    # scrub back before the hit and simulate again from there: the same frames
    for f in [f for f in sim.states if f > hit - 3]:
        del sim.states[f], sim.poses[f], sim.bulk_poses[f]
    sim.world_frame = None
    replay = []
    for f in range(1, 61):
        scene.frame_set(f)
        replay.append(list(target.matrix_world.translation))
    bpy.ops.ligament.bake()
    baked = []
    for f in range(1, 61):
        scene.frame_set(f)
        baked.append(list(target.matrix_world.translation))
    return {"live": live["world"], "replay": replay, "baked": baked,
            "hits": live["hits"], "replay_hits": cache.get(scene).hit_list()
            if cache.get(scene) else None}


def batch_report(src, report):
    """A play with a hit, the scene saved to `src` and baked by the batch command with a
    report to `report`: the code, the live hits, the report."""
    import json
    s = BoxAndBall()
    live = s.play(10.0, 6)
    bpy.ops.wm.save_as_mainfile(filepath=src)
    code = lig().addon.cli.main(["bake", src, "--report", report, "--no-save"])
    with open(report) as f:
        written = json.load(f)
    return {"code": code, "live": live["hits"], "report": written}


def ragdoll_chest_hit():
    """A metarig gliding 4 m along -Y in 48 frames, following its animation with no gravity,
    into a 5 kg ball at chest height; the chest reacts to hits of 5 N s, blend back 8: each
    part's distance from its animated pose per frame, the hits."""
    scene = bpy.context.scene
    addon = lig().addon
    enable_rigify()
    scene.use_gravity = False
    arm = metarig(location=(0, 1.0, 0))
    arm.keyframe_insert("location", frame=1)
    arm.location.y = -3.0
    arm.keyframe_insert("location", frame=49)
    for fc in addon.scene.animation.transform_fcurves(arm).values():
        for k in fc.keyframe_points:
            k.interpolation = 'LINEAR'
    bpy.ops.ligament.ragdoll_from_armature()
    arm.ligament_ragdoll.simulated = False
    scene.ligament_world.frame_end = 40
    parts = {o.ligament_ragdoll_part.part: o for o in ragdoll_bodies(arm)}
    chest = parts["chest"]
    chest.ligament_body.hit_impulse = 5.0
    chest.ligament_body.blend_back = 8
    bpy.context.view_layer.update()
    at = chest.matrix_world.translation
    bpy.ops.mesh.primitive_uv_sphere_add(radius=0.12, location=(at.x, at.y - 0.6, at.z))
    ball = bpy.context.active_object
    ball.ligament_body.enabled = True
    ball.ligament_body.shape = 'SPHERE'
    ball.ligament_body.mass = 5.0
    ball.ligament_body.restitution = 0.8     # it bounces off, faster than the rig walks
    names = {o.name: part for part, o in parts.items()}
    off = {part: [] for part in parts}
    for f in range(1, 41):
        scene.frame_set(f)
        sim = addon.runtime.cache.get(scene)
        animated = sim.ragdolls[0].animated_poses(f, {})
        for p, m in zip(sim.ragdolls[0].parts, animated):
            off[names[p.name]].append(
                (parts[names[p.name]].matrix_world.translation - m.translation).length)
    return {"off": off, "hits": sim.hit_list(),
            "shown": addon.runtime.cache.hit_frames(scene, chest.name),
            "chest": chest.name, "error": addon.runtime.cache.error(scene)}
