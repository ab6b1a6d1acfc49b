"""The Custom joint on empties: an expression over the joint's bodies (World.add_custom)
behaves as the built-in joint it spells, holds a bound or a spring as asked, and a wrong
expression is named with its column in the panel's check, the skipped joint's message and the
scene check. 24 fps, World defaults of the add-on.
The scenarios: tests/addon/scenarios/mechanisms_custom.py."""

import numpy as np

G = 9.81


def test_custom_rod_moves_as_the_distance_joint(blender):
    out = blender.call("mechanisms_custom.custom_rod_and_distance_joint")
    assert out["skipped"] == {} and out["problem"] is None
    custom = np.array(out["path"]["CUSTOM"])
    distance = np.array(out["path"]["DISTANCE"]) - (0, 3, 0)
    assert custom[:, 2].min() < 1.2, "the bar did not swing down"
    gap = np.abs(custom - distance).max()
    assert gap < 1e-6, f"the custom rod and the distance joint differ by {gap:.3g} m"
    length = np.linalg.norm(custom - (0, 0, 2), axis=1)
    assert np.abs(length - 1.0).max() < 1e-4
    # The overlay: the anchor (the empty) to A's and B's origins.
    assert np.allclose(out["lines"][:2], [[0, 0, 2], [0, 0, 2]]) and out["bad"] == 0
    assert np.allclose(out["lines"][1], [0, 0, 2]) and len(out["lines"]) == 4


def test_custom_lower_bound_is_a_floor_and_a_stiffness_a_spring(blender):
    k, m, c = 100.0, 1.0, 14.0
    out = blender.call("mechanisms_custom.floor_and_spring", k, m, c)
    assert out["skipped"] == {}
    z = np.array(out["z"])
    t = np.arange(len(z)) / out["fps"]
    fall = t < 0.4                       # free fall takes sqrt(2 / g) = 0.45 s to z = 1
    # semi-implicit Euler's fall from rest in substeps of h: g t (t + h) / 2 (1/2 g t h past
    # the parabola: 19 mm at t = 0.4 s and 4 substeps at 24 fps)
    h = 1.0 / (out["fps"] * out["substeps"])
    drop = 0.5 * G * t[fall] * (t[fall] + h)
    assert np.abs(z[fall, 0] - (2.0 - drop)).max() < 1e-3
    assert z[:, 0].min() > 1.0 - 1e-3, "the box went through the expression's floor"
    assert abs(z[-1, 0] - 1.0) < 1e-3, f"the box rests at z = {z[-1, 0]:.4f}, not on z = 1"
    # The spring: it sags by m g / k and settles there (damping ratio 0.7).
    sag = 1.0 - z[-1, 1]
    assert abs(sag - m * G / k) < 0.01 * m * G / k, f"sag {sag:.5f}, m g / k = {m * G / k:.5f}"
    assert out["lines"] == 2 and out["bad"] == 0


def test_a_wrong_expression_is_named_with_its_column_and_the_joint_skipped(blender):
    out = blender.call("mechanisms_custom.wrong_expressions")
    assert "unknown symbol 'qB'" in out["problem"] and "column 13" in out["problem"], out
    assert out["error"] is None                 # the rest of the scene runs
    assert list(out["skipped"]) == ["Custom"]
    message = out["skipped"]["Custom"]
    assert message.startswith("Joint 'Custom': expression 'length(pA - qB) - 1'")
    assert "unknown symbol 'qB'" in message and "fix the Expression" in message
    assert len(out["findings"]) == 1 and out["findings"][0]["severity"] == 'ERROR'
    assert out["findings"][0]["objects"] == ["Custom"]
    assert "column 13" in out["findings"][0]["message"]
    assert out["bad"] == 2 and out["ok"] == 0   # drawn as a problem
    assert "is a vector" in out["vector"]
    assert "letter C" in out["letter"]
    assert out["fixed"] is None
