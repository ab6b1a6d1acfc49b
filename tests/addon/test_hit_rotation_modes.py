"""An Animated body with a Hit Impulse in each rotation mode (addon/world/hits.py): Euler and
Quaternion bodies are hit and leave their keys (Axis Angle ones too: test_hit_axis_angle.py),
and the rest of the scene simulates."""

import math

import pytest

SCENE = """
    def play(mode):
        for o in list(bpy.data.objects):
            bpy.data.objects.remove(o)
        ws = scene.ligament_world
        ws.frame_start, ws.frame_end = 1, 30
        box("Ground", (30, 30, 1), (0, 0, -0.5), kind='STATIC')
        # a keyed board turning slowly about Z, and a 2 kg block dropped 2 m onto it
        board = box("Board", (2, 2, 0.25), (0, 0, 0.375), kind='ANIMATED', hit_impulse=5.0)
        board.rotation_mode = mode
        board.keyframe_insert("location", frame=1)
        board.keyframe_insert("location", frame=30)
        path = {'QUATERNION': "rotation_quaternion",
                'AXIS_ANGLE': "rotation_axis_angle"}.get(mode, "rotation_euler")
        board.keyframe_insert(path, frame=1)
        if mode == 'QUATERNION':
            board.rotation_quaternion = Euler((0, 0, 0.3)).to_quaternion()
        elif mode == 'AXIS_ANGLE':
            board.rotation_axis_angle = (0.3, 0, 0, 1)
        else:
            board.rotation_euler = (0, 0, 0.3)
        board.keyframe_insert(path, frame=30)
        block = box("Block", (0.25, 0.25, 0.25), (0, 0, 0.5 + 0.125 + 2.0), mass=2.0)
        bpy.ops.ligament.reset()
        cache = lig.addon.runtime.cache
        board_z, block_z = [], []
        for f in range(1, 31):
            scene.frame_set(f)
            board_z.append(board.matrix_world.translation.z)
            block_z.append(block.matrix_world.translation.z)
        sim = cache.get(scene)
        doctor = sys.modules[lig.__name__ + ".addon.check.doctor"]
        return {"error": cache.error(scene), "board_z": board_z, "block_z": block_z,
                "hits": sim.hit_list() if sim is not None else None,
                "findings": [f.line() for f in doctor.check(scene)]}

    result({m: play(m) for m in ('XYZ', 'ZXY', 'QUATERNION', 'AXIS_ANGLE')})
"""


@pytest.fixture(scope="module")
def runs(blender):
    return blender.run(SCENE)


@pytest.mark.parametrize("mode", ['XYZ', 'ZXY', 'QUATERNION', 'AXIS_ANGLE'])
def test_the_scene_simulates_and_the_block_lands_in_every_rotation_mode(runs, mode):
    run = runs[mode]
    assert run["error"] is None
    # the block fell and came to rest on the board or, once the board was knocked off its
    # keys, with it lower down: never still up in the air or through the ground
    assert run["block_z"][0] == pytest.approx(2.625, abs=1e-6)
    assert 0.1 < run["block_z"][-1] < 0.8


@pytest.mark.parametrize("mode", ['XYZ', 'ZXY', 'QUATERNION'])
def test_euler_and_quaternion_boards_are_hit_and_leave_their_keys(runs, mode):
    run = runs[mode]
    hits = [h for h in run["hits"] if h[1] == "Board"]
    assert hits and hits[0][2] > 5.0
    frame = hits[0][0]
    assert abs((frame - 1) / 24 - math.sqrt(2 * 2.0 / 9.81)) <= 2.0 / 24
    # knocked off its keys (which hold it at 0.375 m): it sinks into its new rest on the ground
    assert min(run["board_z"][frame:]) < 0.375 - 1e-3
    assert not any("Board" in f and "Axis Angle" in f for f in run["findings"])
