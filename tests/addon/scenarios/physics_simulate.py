"""test_physics_simulate.py's scenarios: the simulated pass on top of the physics fix
(ligament.physics_simulate, addon/motion/simulate.py) on a metarig ragdoll."""

import sys

import bpy
import numpy as np
from mathutils import Vector

from .helpers import lig
from .physics_check import Rig, _key_lean


def _simulate_module():
    return sys.modules[lig().__name__ + ".addon.motion.simulate"]


def _shapes(rig):
    """Per helper body: its shape in its frame as the test measures it: ('BOX', half
    extents) or ('CAPSULE', radius, half height along Z), and the shape's centre (the bound
    box's)."""
    out = []
    for o in rig.helpers:
        corners = np.array([tuple(c) for c in o.bound_box])
        lo, hi = corners.min(axis=0), corners.max(axis=0)
        centre = (lo + hi) / 2
        half = (hi - lo) / 2 * np.array(o.scale)
        if o.ligament_body.shape == 'BOX':
            out.append({"kind": "BOX", "half": half.tolist(), "centre": centre.tolist()})
        else:
            r = float(max(half[0], half[1]))
            out.append({"kind": "CAPSULE", "radius": r, "half_height": float(half[2] - r),
                        "centre": centre.tolist()})
    return out


def _keys(action):
    """Every key of `action` (all its slots' F-curves): (path, index, frame, value)."""
    from bpy_extras import anim_utils
    curves = []
    if hasattr(action, "slots") and len(action.slots):
        for slot in action.slots:
            bag = anim_utils.action_get_channelbag_for_slot(action, slot)
            if bag is not None:
                curves += list(bag.fcurves)
    else:
        curves = list(action.fcurves)
    return sorted((fc.data_path, fc.array_index, k.co[0], k.co[1])
                  for fc in curves for k in fc.keyframe_points)


def _state(rig):
    """What a pass may change: the actions, which one plays, the motion's and the ragdoll's
    settings, every action's keys."""
    arm = rig.arm
    motion, rd = arm.ligament_motion, arm.ligament_ragdoll
    return {"actions": sorted(a.name for a in bpy.data.actions),
            "playing": arm.animation_data.action.name,
            "keyed": motion.keyed_action.name if motion.keyed_action else None,
            "fixed": motion.fixed_action.name if motion.fixed_action else None,
            "simulated": motion.simulated_action.name if motion.simulated_action else None,
            "baked": rd.baked, "strength": rd.drive_strength,
            "keys": {a.name: _keys(a) for a in bpy.data.actions}}


def _run(rig, assist, **kw):
    """The pass through the operator; returns its result."""
    bpy.context.view_layer.objects.active = rig.arm
    return list(bpy.ops.ligament.physics_simulate(assist=assist, **kw))


def lean(assist=True):
    """The fix's own lean (the spine keyed to lean 0.9 rad, the centre of mass about 10 cm
    outside the feet) fixed, then simulated (with or without the assist): the bodies of the
    keyed, fixed and simulated actions as Blender evaluates them, the masses, the shapes,
    the pelvis body's index, the keys before and after."""
    rig = Rig()
    scene, arm = rig.scene, rig.arm
    rig.scene.ligament_world.frame_start, rig.scene.ligament_world.frame_end = 1, 40
    _key_lean(rig, -0.9)
    frames = np.arange(1, 41, dtype=float)
    keyed = rig.bodies_at(frames)
    keyed_keys = _keys(arm.animation_data.action)
    bpy.context.view_layer.objects.active = arm
    scene.ligament_world.enabled = True
    assert bpy.ops.ligament.physics_fix() == {'FINISHED'}
    fixed = rig.bodies_at(frames)
    scene.ligament_world.enabled = True
    before = _state(rig)
    result = _run(rig, assist)
    after = _state(rig)
    simulated = rig.bodies_at(frames)
    names = [o.ligament_ragdoll_part.part for o in rig.helpers]
    return {"result": result, "keyed": keyed.tolist(), "fixed": fixed.tolist(),
            "simulated": simulated.tolist(), "masses": rig.masses(), "names": names,
            "shapes": _shapes(rig), "keyed_keys": keyed_keys,
            "keyed_keys_after": _keys(bpy.data.actions[before["keyed"]]),
            "before": before, "after": after}


def jump(assist=True):
    """The fix's tent jump (the root rises 0.5 m and falls in straight lines, frames 10-30)
    fixed with its timing kept, then simulated: the bodies of the fixed and simulated
    actions, the masses, the shapes, the fixed motion's phases, the launches given."""
    rig = Rig()
    scene, arm = rig.scene, rig.arm
    scene.ligament_world.frame_start, scene.ligament_world.frame_end = 1, 40
    rig.key_tent_jump()
    frames = np.arange(1, 41, dtype=float)
    bpy.context.view_layer.objects.active = arm
    scene.ligament_world.enabled = True
    assert bpy.ops.ligament.physics_fix() == {'FINISHED'}
    phases = rig.report()
    fixed = rig.bodies_at(frames)
    scene.ligament_world.enabled = True
    result = _run(rig, assist)
    simulated = rig.bodies_at(frames)
    return {"result": result, "fixed": fixed.tolist(), "simulated": simulated.tolist(),
            "masses": rig.masses(), "names": [o.ligament_ragdoll_part.part for o in rig.helpers],
            "shapes": _shapes(rig), "phases": phases, "fps": scene.render.fps}


class Progress:
    """A progress display that remembers what it was told."""

    def __init__(self):
        self.updates, self.ended = [], 0

    def update(self, done, total):
        self.updates.append((done, total))

    def end(self):
        self.ended += 1


def cancelled_and_failed():
    """The lean fixed, then: a pass refused before any fix is playing (the keyed action
    played), a pass cancelled after a few frames, a pass that fails at frame 6 (a push that
    raises the simulation's SceneError), and a whole pass: the scene's state before and
    after each, the progress each reported, the errors."""
    rig = Rig()
    scene, arm = rig.scene, rig.arm
    scene.ligament_world.frame_start, scene.ligament_world.frame_end = 1, 40
    _key_lean(rig, -0.9)
    bpy.context.view_layer.objects.active = arm
    scene.ligament_world.enabled = True
    sim_mod = _simulate_module()
    errors = lig().addon.scene.errors
    out = {}
    # before any fix: refused, with a message
    try:
        bpy.ops.ligament.physics_simulate()
        out["unfixed"] = "ran"
    except RuntimeError as exc:
        out["unfixed"] = str(exc)
    assert bpy.ops.ligament.physics_fix() == {'FINISHED'}
    scene.ligament_world.enabled = True
    arm.ligament_ragdoll.drive_strength = 0.0
    out["before"] = _state(rig)

    progress = Progress()
    sp = sim_mod.SimulatedPass(scene, arm, progress)
    states = [sp.advance(budget=0.0) for _ in range(5)]
    out["strength_during"] = arm.ligament_ragdoll.drive_strength
    sp.cancel()
    out["cancelled"] = {"states": states + [sp.state], "updates": progress.updates,
                        "ended": progress.ended, "after": _state(rig)}

    def boom(world, frame):
        if frame == 6:
            raise errors.SceneError("the simulation blew up at frame 6")
    progress = Progress()
    sp = sim_mod.SimulatedPass(scene, arm, progress)
    sp.sim.pushes.append(boom)
    state = sp.run()
    out["failed"] = {"state": state, "error": sp.error, "updates": progress.updates,
                     "ended": progress.ended, "after": _state(rig)}

    progress = Progress()
    sp = sim_mod.SimulatedPass(scene, arm, progress)
    while sp.advance(budget=0.01) == 'RUNNING':
        pass
    out["finished"] = {"state": sp.state, "updates": progress.updates[-1],
                       "count": len(progress.updates), "ended": progress.ended,
                       "after": _state(rig)}
    # the switch between the three actions, and Clear Bake back to the fixed one
    plays = []
    for to in ('KEYED', 'FIXED', 'SIMULATED'):
        bpy.ops.ligament.physics_switch(to=to)
        plays.append(arm.animation_data.action.name)
    bpy.ops.ligament.clear_bake()
    plays.append(arm.animation_data.action.name)
    out["plays"] = plays
    out["cleared"] = _state(rig)
    # a fix run again while the simulated action plays starts from the keyed one
    bpy.ops.ligament.physics_switch(to='SIMULATED')
    assert bpy.ops.ligament.physics_fix() == {'FINISHED'}
    out["refixed"] = _state(rig)
    return out
