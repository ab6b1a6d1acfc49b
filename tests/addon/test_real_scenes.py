"""What an animator's real scene does: keyed dynamic bodies, joints that lose an object or
break, reported once and shown, while the rest of the scene simulates."""

import numpy as np

KEYED_CUBE = """
    box("Ground", (10, 10, 1), (0, 0, -0.5), kind='STATIC')
    cube = box("Cube", (1, 1, 1), (0, 0, 3))
    cube.keyframe_insert("location", frame=1)
    cube.location = (2, 0, 3)
    cube.keyframe_insert("location", frame=60)
    scene.frame_set(1)
    scene.ligament_world.frame_end = 60

    def play():
        out = []
        for f in range(1, 61):
            scene.frame_set(f)
            out.append(list(cube.matrix_world.translation))
        return out

    def keys():
        from bpy_extras import anim_utils
        ad = cube.animation_data
        if hasattr(ad, "action_slot"):
            bag = anim_utils.action_get_channelbag_for_slot(ad.action, ad.action_slot)
            fcurves = bag.fcurves
        else:
            fcurves = ad.action.fcurves
        return sorted([fc.data_path, fc.array_index, [list(k.co) for k in fc.keyframe_points]]
                      for fc in fcurves)
"""


def test_keyed_dynamic_body_falls_in_live_playback_as_in_the_bake(blender):
    out = blender.run(KEYED_CUBE, """
        keys_before = keys()
        live = play()
        keys_after_live = keys()
        delta_owned = cube.ligament_body.sim_delta
        lig.addon.baking.bake.bake(scene)
        baked = play()
        lig.addon.baking.bake.clear_bake(scene)
        scene.ligament_world.enabled = False
        scene.frame_set(30)
        keyed_again = list(cube.matrix_world.translation)
        result({"live": live, "baked": baked, "keys_before": keys_before,
                "keys_after_live": keys_after_live, "delta_owned": delta_owned,
                "keyed_again": keyed_again, "keys_end": keys(),
                "delta_end": list(cube.delta_location),
                "error": lig.addon.runtime.cache.error(scene)})
    """)
    assert out["error"] is None
    live, baked = np.array(out["live"]), np.array(out["baked"])
    # The keys give the start pose; the simulation owns the body after it: it falls straight
    # down onto the ground (no velocity from the keys, as Blender's rigid bodies), and comes
    # to rest on its face, half a metre up.
    assert np.allclose(live[0], (0, 0, 3))
    assert abs(live[-1, 2] - 0.5) < 0.02
    assert np.abs(live[:, 0]).max() < 1e-3, "the keys' sideways motion leaked into the run"
    # Live playback and the bake show the same motion.
    assert np.abs(live - baked).max() < 1e-4
    # The user's keys were never touched, and come back once the simulation stops.
    assert out["keys_after_live"] == out["keys_before"] == out["keys_end"]
    assert out["delta_owned"] is True
    assert out["delta_end"] == [0.0, 0.0, 0.0]
    # Keys at frame 30: x = 2 * 29 / 59 with Bezier easing; anything but the simulated pose.
    assert 0.3 < out["keyed_again"][0] < 1.7 and abs(out["keyed_again"][2] - 3) < 1e-6


def test_keyed_dynamic_body_in_euler_mode_turns_with_the_simulation(blender):
    """The delta rotation carries the simulated rotation whatever the keys' rotation: a
    tilted keyed box falls and settles flat on the ground."""
    out = blender.run("""
        box("Ground", (10, 10, 1), (0, 0, -0.5), kind='STATIC')
        cube = box("Tilted", (1, 1, 1), (0, 0, 2), rotation=(0.5, 0.3, 0.0))
        cube.keyframe_insert("rotation_euler", frame=1)
        cube.rotation_euler = (2.0, 1.0, 0.5)
        cube.keyframe_insert("rotation_euler", frame=100)
        zs, ups = [], []
        for f in range(1, 121):
            scene.frame_set(f)
            m = cube.matrix_world
            zs.append(m.translation.z)
            # how far the most vertical of the box's axes is from vertical
            ups.append(max(abs(m.col[i].xyz.normalized().z) for i in range(3)))
        result({"z": zs, "up": ups, "error": lig.addon.runtime.cache.error(scene)})
    """)
    assert out["error"] is None
    assert abs(out["z"][-1] - 0.5) < 0.02
    assert out["up"][-1] > 0.999, "the box did not settle flat"


TWO_JOINED_AND_A_FREE_ONE = """
    box("Ground", (10, 10, 1), (0, 0, -0.5), kind='STATIC')
    post = box("Post", (0.2, 0.2, 0.2), (0, 0, 3), kind='STATIC')
    bob = box("Bob", (0.3, 0.3, 0.3), (1, 0, 3))
    free = box("Free", (0.5, 0.5, 0.5), (4, 0, 3))
    ball = joint("Ball", 'BALL', post, bob, (0, 0, 3))
"""


def test_a_joint_whose_object_was_deleted_is_skipped_and_the_rest_simulates(blender):
    out = blender.run(TWO_JOINED_AND_A_FREE_ONE, """
        for f in range(1, 11):
            scene.frame_set(f)
        bpy.data.objects.remove(post)
        scene.frame_set(1)
        zs = {"Bob": [], "Free": []}
        for f in range(1, 49):
            scene.frame_set(f)
            for name in zs:
                zs[name].append(scene.objects[name].matrix_world.translation.z)
        result({"z": zs, "error": lig.addon.runtime.cache.error(scene),
                "status": lig.addon.runtime.cache.joint_status(scene, "Ball"),
                "problems": lig.addon.ui.panels.view3d_sidebar.joint_problems(scene)})
    """)
    assert out["error"] is None
    # Both bodies fall freely: the free one, and the one the deleted post held.
    for name in ("Bob", "Free"):
        z = np.array(out["z"][name])
        t = 0.5  # frame 13 at 24 fps: still in the air, z = 3 - g t^2 / 2
        assert abs(z[12] - (3 - 9.81 * t * t / 2)) < 0.05, name
    assert "object A is not set" in out["status"]
    assert [p[0] for p in out["problems"]] == ["Ball"]
    printed = [l for l in blender.stdout.splitlines() if "joint 'Ball' skipped" in l]
    assert len(printed) == 1, blender.stdout[-2000:]


def test_a_joint_that_breaks_is_shown_broken_from_that_frame(blender):
    out = blender.run("""
        box("Ground", (10, 10, 1), (0, 0, -0.5), kind='STATIC')
        post = box("Post", (0.2, 0.2, 0.2), (0, 0, 3), kind='STATIC')
        load = box("Load", (0.5, 0.5, 0.5), (0, 0, 2.5), mass=50.0)
        joint("Weak", 'FIXED', post, load, (0, 0, 2.75), breakable=True, break_threshold=100.0)
        statuses = []
        for f in range(1, 25):
            scene.frame_set(f)
            statuses.append(lig.addon.runtime.cache.joint_status(scene, "Weak"))
        sim = lig.addon.runtime.cache.get(scene)
        scene.frame_set(1)
        result({"statuses": statuses, "broken": sim.broken,
                "at_start": lig.addon.runtime.cache.joint_status(scene, "Weak"),
                "z": load.matrix_world.translation.z})
    """)
    # 50 kg hanging from a joint that holds 100 N: it breaks in the first step.
    assert out["broken"] == {"Weak": 2}
    assert out["statuses"][0] is None
    assert out["statuses"][1:] == ["broke at frame 2"] * 23
    assert out["at_start"] is None
    printed = [l for l in blender.stdout.splitlines() if "joint 'Weak' broke at frame 2" in l]
    assert len(printed) == 1
