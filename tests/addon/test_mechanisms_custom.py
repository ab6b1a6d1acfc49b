"""The Custom joint on empties: an expression over the joint's bodies (World.add_custom)
behaves as the built-in joint it spells, holds a bound or a spring as asked, and a wrong
expression is named with its column in the panel's check, the skipped joint's message and the
scene check. 24 fps, World defaults of the add-on."""

import numpy as np

G = 9.81

PENDULUMS = """
    # Two identical pendulums, 3 m apart: a Custom rod and a Distance joint.
    rods = {}
    for y, kind in ((0, 'CUSTOM'), (3, 'DISTANCE')):
        post = box(f"Post {kind}", (0.2, 0.2, 0.2), (0, y, 2), kind='STATIC')
        bar = box(f"Bar {kind}", (0.2, 0.2, 0.2), (1, y, 2), linear_damping=0.0,
                  angular_damping=0.0)
        j = joint(kind.title(), kind, post, bar, (0, y, 2))
        rods[kind] = bar
    scene.objects["Custom"].ligament_joint.expression = "length(pA - xB) - 1"
"""


def test_custom_rod_moves_as_the_distance_joint(blender):
    out = blender.run(PENDULUMS, """
        sim = None
        path = {"CUSTOM": [], "DISTANCE": []}
        for f in range(1, 49):
            scene.frame_set(f)
            sim = lig.addon.runtime.cache.get(scene)
            ids = {b.name: b.id for b in sim.bodies}
            for kind, bar in rods.items():
                path[kind].append(list(sim.world.positions[ids[bar.name]]))
        lines, bad = lig.addon.ui.overlay.overlay_lines(scene.objects["Custom"])
        result({"path": path, "skipped": sim.skipped,
                "problem": lig.addon.world.mechanisms.expression_problem(
                    scene.objects["Custom"].ligament_joint),
                "lines": [list(v) for v in lines], "bad": len(bad)})
    """)
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
    out = blender.run(f"""
        # A box falling onto the plane z = 1 that only the expression makes (A unset: the
        # world), and a box hanging on a spring of stiffness k from the same height.
        faller = box("Faller", (0.2, 0.2, 0.2), (0, 0, 2), linear_damping=0.0)
        floor = joint("Floor", 'CUSTOM', None, faller, (0, 0, 2), expression="xB.z - 1",
                      custom_use_lower=True, custom_lower=0.0)
        hung = box("Hung", (0.2, 0.2, 0.2), (3, 0, 1), mass={m}, linear_damping=0.0)
        joint("Spring", 'CUSTOM', None, hung, (3, 0, 1), expression="xB.z - 1",
              custom_stiffness={k}, custom_damping={c})
        zs = []
        for f in range(1, 97):
            scene.frame_set(f)
            zs.append([faller.matrix_world.translation.z, hung.matrix_world.translation.z])
        lines, bad = lig.addon.ui.overlay.overlay_lines(floor)
        result({{"z": zs, "skipped": lig.addon.runtime.cache.get(scene).skipped,
                 "lines": len(lines), "bad": len(bad)}})
    """)
    assert out["skipped"] == {}
    z = np.array(out["z"])
    t = np.arange(len(z)) / 24.0
    fall = t < 0.4                       # free fall takes sqrt(2 / g) = 0.45 s to z = 1
    assert np.abs(z[fall, 0] - (2.0 - 0.5 * G * t[fall] ** 2)).max() < 0.01
    assert z[:, 0].min() > 1.0 - 1e-3, "the box went through the expression's floor"
    assert abs(z[-1, 0] - 1.0) < 1e-3, f"the box rests at z = {z[-1, 0]:.4f}, not on z = 1"
    # The spring: it sags by m g / k and settles there (damping ratio 0.7).
    sag = 1.0 - z[-1, 1]
    assert abs(sag - m * G / k) < 0.01 * m * G / k, f"sag {sag:.5f}, m g / k = {m * G / k:.5f}"
    assert out["lines"] == 2 and out["bad"] == 0


def test_a_wrong_expression_is_named_with_its_column_and_the_joint_skipped(blender):
    out = blender.run(PENDULUMS, """
        js = scene.objects["Custom"].ligament_joint
        js.expression = "length(pA - qB) - 1"
        problem = lig.addon.world.mechanisms.expression_problem(js)
        scene.frame_set(1)
        scene.frame_set(2)
        skipped = dict(lig.addon.runtime.cache.get(scene).skipped)
        findings = [f.as_dict() for f in lig.addon.check.doctor.check(scene)
                    if f.code == 'custom-expression']
        lines, bad = lig.addon.ui.overlay.overlay_lines(scene.objects["Custom"])
        js.expression = "pA - pB"
        vector = lig.addon.world.mechanisms.expression_problem(js)
        js.expression = "length(pA - pC)"     # letter C without a Point C
        letter = lig.addon.world.mechanisms.expression_problem(js)
        js.point_c = scene.objects["Post DISTANCE"]
        fixed = lig.addon.world.mechanisms.expression_problem(js)
        result({"problem": problem, "skipped": skipped, "findings": findings,
                "bad": len(bad), "ok": len(lines), "vector": vector, "letter": letter,
                "fixed": fixed, "error": lig.addon.runtime.cache.error(scene)})
    """)
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
