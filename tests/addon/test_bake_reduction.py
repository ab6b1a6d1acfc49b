"""Key reduction in the bake: as few keys as the motion needs, the curves as Blender evaluates
them within the tolerance of the simulated motion at every frame, rotations continuous."""

import math

import numpy as np

from test_ragdoll import GROUND, RIGIFY


# tools/demo.py's scene: a stack and a pyramid that stand, a hinged door and a chain that swing
# and settle, 96 frames.
DEMO = """
    scene.frame_start, scene.frame_end = 1, 96
    box("Ground", (12, 12, 1), (0, 0, -0.5), kind='STATIC')
    for i in range(5):
        box(f"Crate.{i}", (0.5, 0.5, 0.5), (0.0, 0.0, 0.25 + 0.5 * i))
    for r in range(5):
        for i in range(5 - r):
            box(f"Block.{r}.{i}", (0.5, 0.5, 0.5), (0.5 * (i - (5 - r - 1) / 2), -2.0, 0.25 + 0.5 * r))
    post = box("DoorPost", (0.1, 0.1, 2.0), (2.0, 0.0, 1.0), kind='STATIC')
    door = box("Door", (0.8, 0.05, 1.8), (2.45, 0.0, 1.0), rotation=(0, 0, 0.3))
    joint("DoorHinge", 'HINGE', post, door, (2.0, 0.0, 1.0))
    prev = box("Beam", (0.2, 0.2, 0.2), (-2.0, 2.0, 3.0), kind='STATIC')
    for i in range(6):
        link = box(f"Link.{i}", (0.4, 0.08, 0.08), (-2.0 + 0.4 * (i + 0.5), 2.0, 3.0))
        joint(f"Pin.{i}", 'BALL', prev, link, (-2.0 + 0.4 * i, 2.0, 3.0))
        prev = link
    scene.ligament_world.frame_start, scene.ligament_world.frame_end = 1, 96
"""

CHANNELS = """
    def channels(obj, frames, prefix=""):
        # {(path, index): [value at each frame]} of the object's transform F-curves (or of one
        # pose bone's, `prefix` 'pose.bones["x"].'), as Blender evaluates them; their key counts
        out, keys = {}, {}
        for fc in lig.addon.scene.animation.action_fcurves(obj).values():
            path = fc.data_path
            if not path.startswith(prefix) or path[len(prefix):] not in (
                    "location", "rotation_euler", "rotation_quaternion"):
                continue
            name = f"{path[len(prefix):]}[{fc.array_index}]"
            out[name] = [fc.evaluate(f) for f in frames]
            keys[name] = [list(k.co) for k in fc.keyframe_points]
        return out, keys
"""


def _errors(full, reduced, mode):
    """(largest location distance in m, largest rotation angle in degrees) between the channel
    values `full` (a key on every frame: the simulated values) and `reduced` (evaluated),
    rotations read with Blender's own Euler and Quaternion."""
    from_euler = mode != "QUATERNION"
    loc = np.array([full[f"location[{i}]"] for i in range(3)]).T
    loc_r = np.array([reduced[f"location[{i}]"] for i in range(3)]).T
    path, n = ("rotation_euler", 3) if from_euler else ("rotation_quaternion", 4)
    rot = np.array([full[f"{path}[{i}]"] for i in range(n)]).T
    rot_r = np.array([reduced[f"{path}[{i}]"] for i in range(n)]).T
    if from_euler:   # XYZ: q = qZ qY qX, the order Blender applies them
        rot, rot_r = _euler_xyz(rot), _euler_xyz(rot_r)
    rot = rot / np.linalg.norm(rot, axis=1, keepdims=True)
    rot_r = rot_r / np.linalg.norm(rot_r, axis=1, keepdims=True)
    dot = np.abs((rot * rot_r).sum(axis=1)).clip(0, 1)
    return (float(np.linalg.norm(loc - loc_r, axis=1).max()),
            float(np.degrees(2 * np.arccos(dot)).max()))


def _euler_xyz(e):
    def axis(k, a):
        q = np.zeros((len(a), 4))
        q[:, 0], q[:, 1 + k] = np.cos(a / 2), np.sin(a / 2)
        return q

    def mul(a, b):
        aw, ax, ay, az = a.T
        bw, bx, by, bz = b.T
        return np.column_stack((aw * bw - ax * bx - ay * by - az * bz,
                                aw * bx + ax * bw + ay * bz - az * by,
                                aw * by - ax * bz + ay * bw + az * bx,
                                aw * bz + ax * by - ay * bx + az * bw))
    return mul(axis(2, e[:, 2]), mul(axis(1, e[:, 1]), axis(0, e[:, 0])))


def test_demo_scene_bakes_five_times_fewer_keys_within_1_mm_and_half_a_degree(blender, tmp_path):
    src, full, reduced = (str(tmp_path / n) for n in ("demo.blend", "full.blend", "reduced.blend"))
    report = str(tmp_path / "report.json")
    out = blender.run(DEMO, CHANNELS, f"""
        from importlib import import_module
        cli = import_module(lig.__name__ + ".addon.cli")
        bpy.ops.wm.save_as_mainfile(filepath={src!r})
        frames = list(range(1, 97))
        codes = [cli.main(["bake", {src!r}, "--output", {full!r}])]
        bpy.ops.wm.open_mainfile(filepath={full!r})
        bodies = sorted(o.name for o in bpy.data.objects if o.ligament_body.baked)
        simulated = {{n: channels(bpy.data.objects[n], frames)[0] for n in bodies}}
        codes.append(cli.main(["bake", {src!r}, "--tolerance", "0.001,0.5", "--output",
                               {reduced!r}, "--report", {report!r}]))
        bpy.ops.wm.open_mainfile(filepath={reduced!r})
        played, keys = {{}}, {{}}
        for n in bodies:
            played[n], keys[n] = channels(bpy.data.objects[n], frames)
        result({{"codes": codes, "simulated": simulated, "played": played, "keys": keys,
                 "report": json.load(open({report!r}))}})
    """)
    assert out["codes"] == [0, 0]
    written = sum(len(k) for obj in out["keys"].values() for k in obj.values())
    full_count = 96 * 6 * len(out["keys"])
    assert out["report"]["keys"] == {"written": written, "full": full_count, "tolerance": {
        "location_m": 0.001, "rotation_deg": 0.5}}
    assert full_count / written >= 5.0, f"{written} of {full_count} keys"
    for name in out["keys"]:
        loc, rot = _errors(out["simulated"][name], out["played"][name], "XYZ")
        assert loc <= 0.001 and rot <= 0.5, f"{name}: {loc * 1000:.3f} mm, {rot:.3f} deg"
        # Euler keys continuous: no 360-degree jump from one key to the next
        for i in range(3):
            values = np.array(out["keys"][name][f"rotation_euler[{i}]"])[:, 1]
            assert np.abs(np.diff(values)).max(initial=0.0) < math.pi, name
    print(f"demo scene: {written} of {full_count} keys, "
          f"{full_count / written:.1f}x fewer at 1 mm, 0.5 deg")


def test_ragdoll_pose_bones_bake_reduced_within_the_tolerance(blender):
    out = blender.run(RIGIFY, GROUND, CHANNELS, """
        arm = metarig(location=(0, 0, 1.0))
        bpy.ops.ligament.ragdoll_from_armature()
        scene.ligament_world.frame_start, scene.ligament_world.frame_end = 1, 96
        frames = list(range(1, 97))

        def bones():
            names = sorted({path.split('"')[1] for path, _ in
                            lig.addon.scene.animation.action_fcurves(arm) if '"' in path})
            return {b: channels(arm, frames, f'pose.bones["{b}"].') for b in names}
        assert bpy.ops.ligament.bake(frame_start=1, frame_end=96) == {'FINISHED'}
        full = bones()
        bpy.ops.ligament.clear_bake()
        assert bpy.ops.ligament.bake(frame_start=1, frame_end=96, reduce_keys=True,
                                     tolerance_location=0.001,
                                     tolerance_rotation=math.radians(0.5)) == {'FINISHED'}
        reduced = bones()
        modes = {b: arm.pose.bones[b].rotation_mode for b in reduced}
        count = lig.addon.baking.bake.last_key_count(scene)
        result({"full": {b: v[0] for b, v in full.items()},
                "played": {b: v[0] for b, v in reduced.items()},
                "keys": {b: v[1] for b, v in reduced.items()}, "modes": modes,
                "count": [count.written, count.full]})
    """)
    assert out["full"].keys() == out["played"].keys() and out["full"]
    written = sum(len(k) for b in out["keys"].values() for k in b.values())
    assert out["count"][0] == written and out["count"][1] > 2 * written
    assert f"{written} of {out['count'][1]} keys" in blender.stdout   # the operator's report
    for bone, mode in out["modes"].items():
        loc, rot = _errors(out["full"][bone], out["played"][bone], mode)
        assert loc <= 0.001 and rot <= 0.5, f"{bone}: {loc * 1000:.3f} mm, {rot:.3f} deg"
        if mode == "QUATERNION":   # no sign flip from one key to the next
            q = np.array([np.array(out["keys"][bone][f"rotation_quaternion[{i}]"])[:, 1]
                          for i in range(4)]).T
            assert ((q[1:] * q[:-1]).sum(axis=1) > 0).all(), bone
