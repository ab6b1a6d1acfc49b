"""test_fields.py's scenarios: Blender's force fields on Ligament bodies beside Blender's own
rigid bodies, and a keyed wind."""

import math

import bpy

from .helpers import box, lig, transforms


def side_by_side(field_type, strength, keyed):
    """A field at the origin turned so that its local Z is world X (its strength keyed to
    flip at frame 13 if `keyed`), Blender's rigid body cube and Ligament's at the same place
    (the two worlds do not see each other): both paths over one second at 24 fps."""
    scene = bpy.context.scene
    bpy.ops.object.effector_add(type=field_type, location=(0, 0, 0),
                                rotation=(0, math.pi / 2, 0))   # local Z along world X
    field = bpy.context.active_object
    field.field.strength = strength
    if keyed:
        field.field.keyframe_insert("strength", frame=1)
        field.field.strength = -strength
        field.field.keyframe_insert("strength", frame=13)
    bpy.ops.rigidbody.world_add()
    rbw = scene.rigidbody_world
    rbw.point_cache.frame_start, rbw.point_cache.frame_end = 1, 250
    rbw.substeps_per_frame, rbw.solver_iterations = 20, 20
    bpy.ops.mesh.primitive_cube_add(size=0.5, location=(0, 5, 10))
    rb = bpy.context.active_object
    bpy.ops.rigidbody.object_add()
    rb.rigid_body.mass = 2.0
    rb.rigid_body.linear_damping = rb.rigid_body.angular_damping = 0.0
    lg_body = box("Body", (0.5, 0.5, 0.5), (0, 5, 10), mass=2.0, linear_damping=0.0,
                  angular_damping=0.0)
    rb_path, lg_path = [], []
    for f in range(1, 26):
        scene.frame_set(f)
        rb_path.append(list(rb.matrix_world.translation))
        lg_path.append(list(lg_body.matrix_world.translation))
    return {"rb": rb_path, "lg": lg_path, "error": lig().addon.runtime.cache.error(scene)}


class KeyedWind:
    """A wind along X keyed (constant interpolation) at strength 0 at frame 1, 480 at 20 and
    240 at 30 (20 N and 10 N: Blender's rigid bodies feel a field's strength over the fps,
    24), a crate on the ground it pushes; 60 frames."""

    def __init__(self):
        self.scene = scene = bpy.context.scene
        addon = lig().addon
        box("Ground", (20, 20, 1), (0, 0, -0.5), kind='STATIC')
        self.crate = box("Crate", (0.5, 0.5, 0.5), (0, 0, 0.25), mass=2.0, friction=0.2)
        bpy.ops.object.effector_add(type='WIND', location=(-5, 0, 0.25),
                                    rotation=(0, 1.5708, 0))
        self.wind = wind = bpy.context.active_object
        for f, s in ((1, 0.0), (20, 480.0), (30, 240.0)):
            wind.field.strength = s
            wind.field.keyframe_insert("strength", frame=f)
        for fc in addon.scene.animation.action_fcurves(wind).values():
            for k in fc.keyframe_points:
                k.interpolation = 'CONSTANT'
        scene.ligament_world.frame_end = 60
        self.stats = addon.runtime.simulation.stats

    def play(self):
        for f in range(1, 61):
            self.scene.frame_set(f)
        return transforms([self.crate])

    def edit_key(self, frame, strength):
        self.wind.field.strength = strength
        self.wind.field.keyframe_insert("strength", frame=frame)


def keyed_wind_edited_at_frame_30():
    """The keyed wind's key at frame 30 set to 360 after a play: the frames still cached, the
    steps and builds of the replay, and a play from scratch."""
    k = KeyedWind()
    scene, stats = k.scene, k.stats
    first = k.play()
    builds, steps = stats["builds"], stats["steps"]
    k.edit_key(30, 360.0)
    bpy.context.view_layer.update()
    cached = lig().addon.runtime.cache.frame_info(scene)
    replay = k.play()
    resimulated, rebuilt = stats["steps"] - steps, stats["builds"] - builds
    bpy.ops.ligament.reset()
    scratch = k.play()
    return {"first": first, "cached": cached, "resimulated": resimulated,
            "rebuilt": rebuilt, "replay": replay, "scratch": scratch}


def field_settings_and_weights():
    """The crate's x after a play with the keyed wind, with its flow set, with the world's
    wind weight 0, and with the world's field collection one the wind is not in."""
    k = KeyedWind()
    scene, stats, wind = k.scene, k.stats, k.wind
    pushed = k.play()[0][0][3]
    wind.field.flow = 0.5                          # an edit that is not keyed
    rebuilds = stats["builds"]
    flowed = k.play()[0][0][3]
    rebuilt = stats["builds"] - rebuilds
    scene.ligament_world.effector_weights.wind = 0.0
    unweighted = k.play()[0][0][3]
    scene.ligament_world.effector_weights.wind = 1.0
    other = bpy.data.collections.new("Other Fields")
    scene.ligament_world.effector_weights.collection = other
    outside = k.play()[0][0][3]
    return {"pushed": pushed, "flowed": flowed, "rebuilt": rebuilt,
            "unweighted": unweighted, "outside": outside}
