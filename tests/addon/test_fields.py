"""Blender's force fields push Ligament bodies as they push Blender's own rigid bodies: the same
body dropped through the same field in Blender's Bullet world and in Ligament, in the same
Blender process, takes the same path; a keyed field is read every frame; and a scene in
centimetres (Unit Scale 0.01) moves as the same scene in metres."""

import pytest

# A field at the origin turned so that its local Z is world X, Blender's rigid body cube and
# Ligament's at the same place (the two worlds do not see each other). Returns both paths
# over one second at 24 fps.
SIDE_BY_SIDE = """
    import math
    field_type, strength, keyed = {field_type!r}, {strength!r}, {keyed!r}
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
    result({{"rb": rb_path, "lg": lg_path, "error": lig.addon.runtime.cache.error(scene)}})
"""


@pytest.mark.parametrize("field_type, strength, keyed", [
    ("FORCE", 480.0, False), ("WIND", 240.0, False), ("WIND", 240.0, True),
    ("VORTEX", 100.0, False), ("DRAG", 1.0, False), ("HARMONIC", 30.0, False)])
def test_field_pushes_as_blenders_rigid_bodies(blender, field_type, strength, keyed):
    out = blender.run(SIDE_BY_SIDE.format(field_type=field_type, strength=strength,
                                          keyed=keyed))
    assert not out["error"]
    rb, lg = out["rb"], out["lg"]
    start = rb[0]
    moved = [abs(a - b) for a, b in zip(rb[-1], start)]
    # the field moved the body off a free fall (which keeps x and y)
    assert max(moved[0], moved[1]) > 0.5 or abs(moved[2] - 4.905) > 0.2
    travel = sum((a - b) ** 2 for a, b in zip(rb[-1], start)) ** 0.5
    gap = sum((a - b) ** 2 for a, b in zip(rb[-1], lg[-1])) ** 0.5
    print(f"{field_type} keyed={keyed}: travel {travel:.3f} m, Ligament {gap * 1000:.1f} mm "
          f"from Bullet ({gap / travel:.2%})")          # pytest -rP shows it
    assert gap <= 0.05 * travel, (rb[-1], lg[-1])


# A wind along X keyed (constant interpolation) at strength 0 at frame 1, 480 at 20 and 240 at
# 30 (20 N and 10 N: Blender's rigid bodies feel a field's strength over the fps, 24), a crate
# on the ground it pushes; 60 frames.
KEYED = """
    box("Ground", (20, 20, 1), (0, 0, -0.5), kind='STATIC')
    crate = box("Crate", (0.5, 0.5, 0.5), (0, 0, 0.25), mass=2.0, friction=0.2)
    bpy.ops.object.effector_add(type='WIND', location=(-5, 0, 0.25), rotation=(0, 1.5708, 0))
    wind = bpy.context.active_object
    for f, s in ((1, 0.0), (20, 480.0), (30, 240.0)):
        wind.field.strength = s
        wind.field.keyframe_insert("strength", frame=f)
    for fc in lig.addon.scene.animation.action_fcurves(wind).values():
        for k in fc.keyframe_points:
            k.interpolation = 'CONSTANT'
    scene.ligament_world.frame_end = 60
    stats = lig.addon.runtime.simulation.stats

    def play():
        for f in range(1, 61):
            scene.frame_set(f)
        return transforms([crate])

    def edit_key(frame, strength):
        wind.field.strength = strength
        wind.field.keyframe_insert("strength", frame=frame)
"""


def test_a_keyed_field_edited_at_frame_30_re_simulates_from_there_exactly(blender):
    out = blender.run(KEYED, """
        first = play()
        builds, steps = stats["builds"], stats["steps"]
        edit_key(30, 360.0)
        bpy.context.view_layer.update()
        cached = lig.addon.runtime.cache.frame_info(scene)
        replay = play()
        resimulated, rebuilt = stats["steps"] - steps, stats["builds"] - builds
        bpy.ops.ligament.reset()
        scratch = play()
        result({"first": first, "cached": cached, "resimulated": resimulated,
                "rebuilt": rebuilt, "replay": replay, "scratch": scratch})
    """)
    # the wind pushed the crate along X at frame 20 on
    assert out["first"][0][0][3] > 0.05
    assert out["cached"] == [1, 29]
    assert out["rebuilt"] == 0 and out["resimulated"] == 31
    assert out["replay"] != out["first"]
    assert out["replay"] == out["scratch"]        # bit for bit


def test_field_settings_and_weights_decide_what_pushes(blender):
    out = blender.run(KEYED, """
        pushed = play()[0][0][3]
        wind.field.flow = 0.5                          # an edit that is not keyed
        rebuilds = stats["builds"]
        flowed = play()[0][0][3]
        rebuilt = stats["builds"] - rebuilds
        scene.ligament_world.effector_weights.wind = 0.0
        unweighted = play()[0][0][3]
        scene.ligament_world.effector_weights.wind = 1.0
        other = bpy.data.collections.new("Other Fields")
        scene.ligament_world.effector_weights.collection = other
        outside = play()[0][0][3]
        result({"pushed": pushed, "flowed": flowed, "rebuilt": rebuilt,
                "unweighted": unweighted, "outside": outside})
    """)
    assert out["pushed"] > 0.05
    assert out["rebuilt"] == 1 and out["flowed"] != out["pushed"]
    assert abs(out["unweighted"]) < 1e-6 and abs(out["outside"]) < 1e-6
