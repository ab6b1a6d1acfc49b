"""test_controls_solve.py's scenario: the bake onto the controls' solve (addon/baking/
controls.py Retarget) on the rig Rigify generates from the human metarig, counted in rig
evaluations (the view layer's depsgraph updates) and checked against the bones Blender
shows."""

import math

import bpy
from mathutils import Euler

from .helpers import lig
from .rigs import metarig_and_generated_rig


def _addon(name):
    import sys
    return sys.modules[lig().__name__ + ".addon." + name]


def solve_twice(turn_degrees):
    """The metarig (face left out) and its generated rig; the metarig's ragdoll bones turned
    `turn_degrees` about X each (a bent pose), their world matrices solved onto the default
    control pairs twice in a row: per solve the rig evaluations, then the worst (mm, deg) of
    each pair's target against its source as Blender evaluates the rig (at rest both match
    exactly: Rigify's FK controls copy the metarig's bones), and whether the two solves gave
    the same channels."""
    arm, rig = metarig_and_generated_rig(location=(0, 0, 1.0))
    for o in bpy.context.view_layer.objects:
        o.select_set(False)
    bpy.context.view_layer.objects.active = arm
    arm.select_set(True)
    assert bpy.ops.ligament.ragdoll_from_armature() == {'FINISHED'}
    bpy.context.scene.ligament_world.enabled = False     # the pose set below, not simulated
    controls = _addon("authoring.controls")
    pairs = controls.default_pairs(arm, rig)
    controls.use_fk(rig)
    for s, _ in pairs:
        pb = arm.pose.bones[s]
        pb.rotation_mode = 'XYZ'
        pb.rotation_euler = Euler((math.radians(turn_degrees), 0, 0))
    bpy.context.view_layer.update()
    arm_world = arm.matrix_world.copy()
    sources = {s: arm_world @ arm.pose.bones[s].matrix for s, _ in pairs}
    retarget = _addon("baking.controls").Retarget(arm, arm_world, rig, pairs)
    counts, solved = [], []
    updates = []

    def count(scene, depsgraph):
        updates.append(1)

    bpy.app.handlers.depsgraph_update_post.append(count)
    try:
        for _ in range(2):
            updates.clear()
            solved.append(retarget.solve(sources))
            counts.append(len(updates))
    finally:
        bpy.app.handlers.depsgraph_update_post.remove(count)
    bpy.context.view_layer.update()
    worst = [0.0, 0.0]
    rest = {}
    for s, t in pairs:
        s0 = arm_world @ arm.data.bones[s].matrix_local
        t0 = rig.matrix_world @ rig.data.bones[t].matrix_local
        rest[t] = s0.inverted_safe() @ t0
        m = rig.matrix_world @ rig.pose.bones[t].matrix
        want = sources[s] @ rest[t]
        worst[0] = max(worst[0], (m.translation - want.translation).length * 1000)
        q, q0 = m.to_quaternion(), want.to_quaternion()
        worst[1] = max(worst[1], math.degrees(2 * math.acos(min(1.0, abs(q.dot(q0))))))
    same = all(solved[0][t] == solved[1][t] for t in solved[0])
    bent = max(abs(arm.pose.bones[s].matrix.to_quaternion().rotation_difference(
        arm.data.bones[s].matrix_local.to_quaternion()).angle) for s, _ in pairs)
    return {"pairs": len(pairs), "depths": len(retarget.depths), "updates": counts,
            "worst": worst, "same": same, "bent_degrees": math.degrees(bent)}
