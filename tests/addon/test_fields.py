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
    assert gap <= 0.05 * travel, (rb[-1], lg[-1])
