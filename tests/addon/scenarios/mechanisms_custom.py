"""test_mechanisms_custom.py's scenarios: the Custom joint (an expression over the joint's
bodies) on empties."""

import bpy

from .helpers import box, joint, lig


def pendulums():
    """Two identical pendulums, 3 m apart: a Custom rod ("length(pA - xB) - 1") and a
    Distance joint. {kind: bar}."""
    scene = bpy.context.scene
    rods = {}
    for y, kind in ((0, 'CUSTOM'), (3, 'DISTANCE')):
        post = box(f"Post {kind}", (0.2, 0.2, 0.2), (0, y, 2), kind='STATIC')
        bar = box(f"Bar {kind}", (0.2, 0.2, 0.2), (1, y, 2), linear_damping=0.0,
                  angular_damping=0.0)
        joint(kind.title(), kind, post, bar, (0, y, 2))
        rods[kind] = bar
    scene.objects["Custom"].ligament_joint.expression = "length(pA - xB) - 1"
    return rods


def custom_rod_and_distance_joint():
    """Both pendulums over 2 s: each bar's solver position per frame, what the build skips,
    the expression's problem, the Custom joint's overlay lines."""
    scene = bpy.context.scene
    addon = lig().addon
    rods = pendulums()
    sim = None
    path = {"CUSTOM": [], "DISTANCE": []}
    for f in range(1, 49):
        scene.frame_set(f)
        sim = addon.runtime.cache.get(scene)
        ids = {b.name: b.id for b in sim.bodies}
        for kind, bar in rods.items():
            path[kind].append(list(sim.world.positions[ids[bar.name]]))
    lines, bad = addon.ui.overlay.overlay_lines(scene.objects["Custom"])
    return {"path": path, "skipped": sim.skipped,
            "problem": addon.world.mechanisms.expression_problem(
                scene.objects["Custom"].ligament_joint),
            "lines": [list(v) for v in lines], "bad": len(bad)}


def floor_and_spring(k, m, c):
    """A box falling onto the plane z = 1 that only a Custom expression makes (A unset: the
    world, a lower bound 0), and a box of mass `m` hanging on a Custom spring of stiffness
    `k` and damping `c` from the same height: both heights over 4 s."""
    scene = bpy.context.scene
    addon = lig().addon
    faller = box("Faller", (0.2, 0.2, 0.2), (0, 0, 2), linear_damping=0.0)
    floor = joint("Floor", 'CUSTOM', None, faller, (0, 0, 2), expression="xB.z - 1",
                  custom_use_lower=True, custom_lower=0.0)
    hung = box("Hung", (0.2, 0.2, 0.2), (3, 0, 1), mass=m, linear_damping=0.0)
    joint("Spring", 'CUSTOM', None, hung, (3, 0, 1), expression="xB.z - 1",
          custom_stiffness=k, custom_damping=c)
    zs = []
    for f in range(1, 97):
        scene.frame_set(f)
        zs.append([faller.matrix_world.translation.z, hung.matrix_world.translation.z])
    lines, bad = addon.ui.overlay.overlay_lines(floor)
    sim = addon.runtime.cache.get(scene)
    return {"z": zs, "skipped": sim.skipped, "lines": len(lines), "bad": len(bad),
            # the substeps a frame the jointed faller stepped at
            "substeps": sim.world.jointed_substeps, "fps": scene.render.fps}


def wrong_expressions():
    """The Custom rod's expression given an unknown symbol, a vector, a letter without its
    point, then the point: the problem named each time, what the build skips, the check's
    finding, the overlay."""
    scene = bpy.context.scene
    addon = lig().addon
    pendulums()
    js = scene.objects["Custom"].ligament_joint
    js.expression = "length(pA - qB) - 1"
    problem = addon.world.mechanisms.expression_problem(js)
    scene.frame_set(1)
    scene.frame_set(2)
    skipped = dict(addon.runtime.cache.get(scene).skipped)
    findings = [f.as_dict() for f in addon.check.doctor.check(scene)
                if f.code == 'custom-expression']
    lines, bad = addon.ui.overlay.overlay_lines(scene.objects["Custom"])
    js.expression = "pA - pB"
    vector = addon.world.mechanisms.expression_problem(js)
    js.expression = "length(pA - pC)"     # letter C without a Point C
    letter = addon.world.mechanisms.expression_problem(js)
    js.point_c = scene.objects["Post DISTANCE"]
    fixed = addon.world.mechanisms.expression_problem(js)
    return {"problem": problem, "skipped": skipped, "findings": findings,
            "bad": len(bad), "ok": len(lines), "vector": vector, "letter": letter,
            "fixed": fixed, "error": addon.runtime.cache.error(scene)}
