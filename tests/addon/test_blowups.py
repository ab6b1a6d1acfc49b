"""A simulation that blows up (the solver's FloatingPointError in World.step) reaches the
animator as a scene error that names the bodies and the fix, in playback, in the bake
operator and in the batch command; the scene is left as it was."""

import json

# A light cube on a harmonic field of absurd strength: the spring's frequency times the
# substep is far past 2, so each substep multiplies the cube's speed (explicit integration
# of a force the solver does not solve for): it leaves float range by the third frame.
BLOW_UP = """
    from importlib import import_module
    cli = import_module(lig.__name__ + ".addon.cli")
    cube = box("Cube", (0.2, 0.2, 0.2), (2, 0, 3), mass=0.001)
    bpy.ops.object.effector_add(type='HARMONIC', location=(0, 0, 3))
    bpy.context.active_object.field.strength = 1e30
    scene.ligament_world.frame_end = 20
    scene.frame_set(1)
    start = list(cube.matrix_world.translation)
"""


def _says_what_to_do(message):
    assert "blew up" in message and "'Cube'" in message, message
    assert "Substeps" in message and "mass" in message, message
    assert "internal error" not in message


def test_blow_up_in_playback_is_a_scene_error_and_the_body_goes_back(blender):
    out = blender.run(BLOW_UP, """
        errors = []
        for f in range(2, 8):
            scene.frame_set(f)
            errors.append(lig.addon.runtime.cache.error(scene))
        result({"errors": errors, "start": start, "now": list(cube.matrix_world.translation)})
    """)
    first = next(e for e in out["errors"] if e)
    _says_what_to_do(first)
    assert all(e == first for e in out["errors"][out["errors"].index(first):])
    assert out["now"] == out["start"], "the failed simulation left the cube at infinity"


def test_blow_up_in_the_bake_operator_is_reported_and_bakes_nothing(blender):
    out = blender.run(BLOW_UP, """
        scene.frame_set(1)
        try:
            bpy.ops.ligament.bake(frame_start=1, frame_end=20)
            message = None
        except RuntimeError as exc:
            message = str(exc)
        result({"message": message, "baked": cube.ligament_body.baked,
                "action": cube.animation_data is not None and
                          cube.animation_data.action is not None,
                "start": start, "now": list(cube.matrix_world.translation)})
    """)
    assert out["message"] is not None
    _says_what_to_do(out["message"])
    assert not out["baked"] and not out["action"]
    assert out["now"] == out["start"]


def test_blow_up_in_the_batch_command_exits_1_with_the_error_in_the_report(blender, tmp_path):
    shot, report = str(tmp_path / "shot.blend"), str(tmp_path / "report.json")
    out = blender.run(BLOW_UP, f"""
        bpy.ops.wm.save_as_mainfile(filepath={shot!r})
        code = cli.main(["bake", {shot!r}, "--report", {report!r}, "--no-save"])
        result({{"code": code}})
    """)
    assert out["code"] == 1
    rep = json.load(open(report))
    assert rep["ok"] is False
    _says_what_to_do(rep["error"])
