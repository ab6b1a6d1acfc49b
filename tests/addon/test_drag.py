"""Drag while it plays, through the session the 3D View's Drag tool drives
(authoring/drag.py): the view's rays checked against Blender's own camera projection, and a
drag of a box recorded as a Pin's keys that replay, re-simulate and bake to exactly what was
seen. The scenarios: tests/addon/scenarios/drag.py."""


def test_view_rays_pass_through_the_points_the_camera_shows_at_those_pixels(blender):
    out = blender.call("drag.view_rays")
    # the camera's matrices are float32: 1e-6 of the 7 m to the points
    assert out["worst"] < 1e-4, out
    assert out["eye"] < 1e-5 and out["parallel"] < 1e-6, out


def test_drag_is_recorded_as_pin_keys_that_replay_and_bake_bit_for_bit(blender):
    out = blender.call("drag.drag_recorded")
    assert out["error"] is None
    assert out["removed"] == ["FINISHED"] and out["gone"]
    assert out["grabbed"] == "Box"
    # grabbed on its front face (local y = -0.5 of the unit cube scaled 0.4)
    assert abs(out["grab_local"][1] + 0.5) < 1e-4
    assert out["keys"] == {"ligament_joint.enabled": 3, "location": 25}
    assert out["enabled"] == {"5": False, "6": True, "30": True, "31": False}
    assert out["moved"] > 0.5                 # pulled along x
    assert out["reach"] < 0.2                 # a soft pull: near the cursor, not on it
    seen = {int(f): v for f, v in out["seen"].items()}
    for other in ("replay", "again"):
        got = {int(f): v for f, v in out[other].items()}
        for f, pose in seen.items():
            assert got[f] == pose, (other, f)
    import numpy as np
    for f, loc in out["baked"].items():
        assert np.float32(loc).tolist() == np.float32(seen[int(f)][0]).tolist(), f
