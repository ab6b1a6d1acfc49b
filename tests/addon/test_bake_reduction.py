"""Key reduction in the bake: as few keys as the motion needs, the curves as Blender evaluates
them within the tolerance of the simulated motion at every frame, rotations continuous.
The scenarios: tests/addon/scenarios/bake_reduction.py (tools/demo.py's scene, a ragdoll)."""

import math

import numpy as np


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
    out = blender.call("bake_reduction.demo_baked_full_and_reduced", src, full, reduced, report)
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
    out = blender.call("bake_reduction.ragdoll_baked_full_and_reduced")
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
