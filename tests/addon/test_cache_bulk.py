"""The per-frame bulk path of the cache (addon/runtime/): quaternion-mode bodies written for
every object of the file at once, the frame's bulk reads shared by the change checks, linked
(library) bodies, and the solver's thread count following Blender's own setting."""

import numpy as np

QUAT_SCENE = """
    ground = box("Ground", (20, 20, 1), (0, 0, -0.5), kind='STATIC')
    cubes = []
    for i in range(3):
        c = box(f"Cube{i}", (1, 1, 1), (3.0 * i, 0, 2 + i), rotation=(0.2 * i, 0.1, 0.0))
        c.rotation_mode = 'QUATERNION'       # unparented quaternion bodies: the bulk path
        cubes.append(c)
    # Objects the simulation does not move: a keyed empty and a still one in quaternion
    # mode (the bulk write gives every other object back what it read)
    keyed = bpy.data.objects.new("Keyed", None)
    scene.collection.objects.link(keyed)
    keyed.location = (0, 5, 0)
    keyed.keyframe_insert("location", frame=1)
    keyed.location = (0, 5, 10)
    keyed.keyframe_insert("location", frame=41)
    still = bpy.data.objects.new("Still", None)
    scene.collection.objects.link(still)
    still.rotation_mode = 'QUATERNION'
    still.location = (1, 2, 3)
    still.rotation_quaternion = (0.5, 0.5, 0.5, 0.5)
"""


def test_bulk_bodies_fall_replay_and_leave_other_objects_alone(blender):
    out = blender.run(QUAT_SCENE, """
        sim_bulk = []
        first, keyed_z = {}, {}
        for f in range(1, 41):
            scene.frame_set(f)
            first[f] = transforms(cubes)
            keyed_z[f] = keyed.location.z
            if f == 2:
                sim_bulk = [b.name for b in lig.addon.runtime.cache.get(scene).bulk]
        back = {f: (scene.frame_set(f), transforms(cubes))[1] for f in (39, 20, 3, 1, 40)}
        result({"bulk": sim_bulk, "first": first, "back": back, "keyed_z": keyed_z,
                "still": [list(still.location), list(still.rotation_quaternion)],
                "builds": lig.addon.runtime.simulation.stats["builds"],
                "error": lig.addon.runtime.cache.error(scene)})
    """)
    assert out["error"] is None
    assert sorted(out["bulk"]) == ["Cube0", "Cube1", "Cube2"]
    assert out["builds"] == 1
    first = {int(f): np.array(m) for f, m in out["first"].items()}
    # they fell and landed: centres half a metre above the ground (z of column 3)
    for i in range(3):
        assert first[1][i][2][3] == 2 + i
        assert abs(first[40][i][2][3] - 0.5) < 0.05
    for f, m in out["back"].items():
        assert np.array_equal(np.array(m), first[int(f)]), f"frame {f} replayed differently"
    # the keyed empty follows its keys (linear-ish from 0 to 10 over frames 1..41)
    z = out["keyed_z"]
    assert z["1"] == 0.0 and 4.0 < z["21"] < 6.0 and z["40"] > 9.0
    assert np.allclose(out["still"][0], [1, 2, 3]) and \
        np.allclose(out["still"][1], [0.5, 0.5, 0.5, 0.5])


def test_moving_a_bulk_body_by_hand_makes_that_its_new_start_pose(blender):
    out = blender.run(QUAT_SCENE, """
        for f in range(1, 21):
            scene.frame_set(f)
        others = transforms(cubes[1:])
        builds = lig.addon.runtime.simulation.stats["builds"]
        cubes[0].location = (5, -4, 4)         # the user drags a cube at frame 20
        cubes[0].rotation_quaternion = (1, 0, 0, 0)
        scene.frame_set(21)
        after = list(cubes[0].location)
        rebuilt = lig.addon.runtime.simulation.stats["builds"] - builds
        scene.frame_set(20)
        others_again = transforms(cubes[1:])
        scene.frame_set(1)
        start = [list(cubes[0].location), list(cubes[0].rotation_quaternion)]
        result({"after": after, "start": start, "rebuilt": rebuilt, "others": others,
                "others_again": others_again, "error": lig.addon.runtime.cache.error(scene)})
    """)
    assert out["error"] is None
    assert out["rebuilt"] == 1
    # frame 21 shows the cube 20 frames after a start at (5, -4, 4): landed at x = 5, y = -4
    assert abs(out["after"][0] - 5) < 1e-3 and abs(out["after"][1] + 4) < 1e-3
    assert abs(out["after"][2] - 0.5) < 0.15
    assert np.allclose(out["start"][0], [5, -4, 4]) and np.allclose(out["start"][1], [1, 0, 0, 0])
    # the other cubes kept their own start poses: the same path
    assert np.allclose(out["others"], out["others_again"], atol=1e-6)


def test_linked_library_bodies_fall_as_local_ones_do(blender, tmp_path):
    """A dynamic body and the ground linked from a library file move as the same bodies made
    in the file itself (linked objects are skipped by foreach_set: they are written one by
    one)."""
    library = str(tmp_path / "library.blend")
    build = f"""
        box("Ground", (20, 20, 1), (0, 0, -0.5), kind='STATIC')
        for i in range(2):
            c = box(f"Cube{{i}}", (1, 1, 1), (3.0 * i, 0, 2), rotation=(0.3, 0.2 * i, 0))
            c.rotation_mode = 'QUATERNION'
        bpy.ops.wm.save_as_mainfile(filepath={library!r})
    """
    local = blender.run(build, """
        cubes = [bpy.data.objects["Cube0"], bpy.data.objects["Cube1"]]
        path = []
        for f in range(1, 31):
            scene.frame_set(f)
            path.append(transforms(cubes))
        result({"path": path, "error": lig.addon.runtime.cache.error(scene)})
    """)
    linked = blender.run(f"""
        with bpy.data.libraries.load({library!r}, link=True) as (src, dst):
            dst.objects = ["Ground", "Cube0"]
        for o in dst.objects:
            scene.collection.objects.link(o)
        c1 = box("Cube1", (1, 1, 1), (3.0, 0, 2), rotation=(0.3, 0.2, 0))
        c1.rotation_mode = 'QUATERNION'
        cubes = [bpy.data.objects["Cube0", {library!r}], c1]
        path = []
        for f in range(1, 31):
            scene.frame_set(f)
            path.append(transforms(cubes))
        sim = lig.addon.runtime.cache.get(scene)
        result({{"path": path, "error": lig.addon.runtime.cache.error(scene),
                 "linked": [o.library is not None for o in cubes],
                 "bulk": sorted(b.name for b in sim.bulk)}})
    """)
    assert local["error"] is None and linked["error"] is None
    assert linked["linked"] == [True, False]
    assert linked["bulk"] == ["Cube1"]      # the linked body is written one by one
    a, b = np.array(local["path"]), np.array(linked["path"])
    assert a[-1, 0, 2, 3] < 0.6, "the cube did not land"
    assert np.allclose(a, b, atol=1e-5)


def test_solver_threads_follow_blenders_thread_setting_and_keep_the_cache(blender):
    out = blender.run("""
        box("Ground", (20, 20, 1), (0, 0, -0.5), kind='STATIC')
        # two independent stacks: two islands the solver may step in parallel
        cubes = [box(f"C{i}{k}", (1, 1, 1), (4.0 * i, 0, 0.5 + 1.05 * k),
                     rotation=(0, 0, 0.1 * k)) for i in range(2) for k in range(3)]
        r = scene.render
        r.threads_mode = 'FIXED'
        r.threads = 1
        seen, path = [], []
        for f in range(1, 41):
            if f == 15:
                r.threads = 2
            if f == 30:
                r.threads_mode = 'AUTO'
            scene.frame_set(f)
            seen.append(lig.addon.runtime.cache.get(scene).world.threads)
            path.append(transforms(cubes))
        auto = r.threads
        builds = lig.addon.runtime.simulation.stats["builds"]
        # the same frames again at one thread from a fresh build
        bpy.ops.ligament.reset()
        r.threads_mode = 'FIXED'
        r.threads = 1
        again = []
        for f in range(1, 41):
            scene.frame_set(f)
            again.append(transforms(cubes))
        result({"seen": seen, "auto": auto, "builds": builds, "path": path, "again": again,
                "error": lig.addon.runtime.cache.error(scene)})
    """)
    assert out["error"] is None
    assert out["builds"] == 1, "changing the thread count dropped the cache"
    seen = out["seen"]
    assert seen[:14] == [1] * 14 and seen[14:29] == [2] * 15
    assert seen[29:] == [out["auto"]] * 11 and out["auto"] >= 1
    assert np.array_equal(np.array(out["path"]), np.array(out["again"])), \
        "results depend on the thread count"


def test_a_driven_simulated_switch_is_read_every_step(blender):
    """A ragdoll with nothing keyed or driven skips its per-step work; a driver on its
    Simulated switch must still be followed: on until frame 10 (it falls), then off (its
    bodies follow the animation again, kinematic: back at the rest pose they started from),
    next to an undriven one that keeps falling."""
    from test_ragdoll import GROUND, RIGIFY
    out = blender.run(RIGIFY, GROUND, """
        rigs = []
        for i in range(2):
            arm = metarig(name=f"Rig{i}", location=(3.0 * i, 0, 1.0))
            bpy.ops.ligament.ragdoll_from_armature()
            rigs.append(arm)
        fc = rigs[0].driver_add("ligament_ragdoll.simulated")
        fc.driver.type = 'SCRIPTED'
        fc.driver.expression = "frame < 10"
        scene.ligament_world.frame_end = 30
        top = {}
        for f in range(1, 31):
            scene.frame_set(f)
            top[f] = [max(o.matrix_world.translation.z for o in ragdoll_bodies(a))
                      for a in rigs]
        sim = lig.addon.runtime.cache.get(scene)
        result({"top": top, "idle": [r.idle for r in sim.ragdolls],
                "names": [r.name for r in sim.ragdolls], "error": lig.addon.runtime.cache.error(scene)})
    """)
    assert out["error"] is None
    idle = dict(zip(out["names"], out["idle"]))
    assert idle == {"Rig0": False, "Rig1": True}
    top = {int(f): v for f, v in out["top"].items()}
    for rig in range(2):      # both fall while simulated
        assert top[8][rig] < top[1][rig] - 0.05
    # switched off, the driven one follows its (still) animation: where it started
    assert abs(top[20][0] - top[1][0]) < 1e-3 and abs(top[30][0] - top[1][0]) < 1e-3
    assert top[30][1] < top[1][1] - 0.3      # the other one kept falling
