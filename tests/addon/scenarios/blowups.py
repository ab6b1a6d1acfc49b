"""test_blowups.py's scenarios: a simulation that blows up, in playback, in the bake
operator and in the batch command."""

from importlib import import_module

import bpy

from .helpers import box, lig


def blow_up():
    """A light cube on a harmonic field of absurd strength: the spring's frequency times the
    substep is far past 2, so each substep multiplies the cube's speed (explicit integration
    of a force the solver does not solve for): it leaves float range by the third frame.
    (the cube, its start position)."""
    scene = bpy.context.scene
    cube = box("Cube", (0.2, 0.2, 0.2), (2, 0, 3), mass=0.001)
    bpy.ops.object.effector_add(type='HARMONIC', location=(0, 0, 3))
    bpy.context.active_object.field.strength = 1e30
    scene.ligament_world.frame_end = 20
    scene.frame_set(1)
    return cube, list(cube.matrix_world.translation)


def in_playback():
    """Frames 2-7: the error at each, where the cube started and where it is."""
    scene = bpy.context.scene
    cube, start = blow_up()
    errors = []
    for f in range(2, 8):
        scene.frame_set(f)
        errors.append(lig().addon.runtime.cache.error(scene))
    return {"errors": errors, "start": start, "now": list(cube.matrix_world.translation)}


def in_the_bake_operator():
    """The bake operator over frames 1-20: its error, what it baked, where the cube is."""
    scene = bpy.context.scene
    cube, start = blow_up()
    scene.frame_set(1)
    try:
        bpy.ops.ligament.bake(frame_start=1, frame_end=20)
        message = None
    except RuntimeError as exc:
        message = str(exc)
    return {"message": message, "baked": cube.ligament_body.baked,
            "action": cube.animation_data is not None and
            cube.animation_data.action is not None,
            "start": start, "now": list(cube.matrix_world.translation)}


def in_the_batch_command(shot, report):
    """The scene saved to `shot` and baked by the batch command with a report to `report`:
    the exit code."""
    cli = import_module(lig().__name__ + ".addon.cli")
    blow_up()
    bpy.ops.wm.save_as_mainfile(filepath=shot)
    code = cli.main(["bake", shot, "--report", report, "--no-save"])
    return {"code": code}
