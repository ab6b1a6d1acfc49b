"""test_bake_session.py's scenarios: the Bake operator's modal run driven without a window,
its timer and Esc events given by hand, the window's progress bar and status bar recorded."""

import sys

import bpy

from .helpers import box, lig


def operators():
    return sys.modules[lig().__name__ + ".addon.ui.operators.bake"]


class Recorder:
    """Stands in for the window manager and the workspace: records the calls made on it."""

    def __init__(self, calls, owner):
        self.calls, self.owner = calls, owner

    def __getattr__(self, name):
        return lambda *args, **_kw: self.calls.append([self.owner, name, *map(repr, args)])


def blow_up_scene():
    """A light cube on a harmonic field of absurd strength: the spring's frequency times the
    substep is far past 2, so each substep multiplies the cube's speed (explicit integration
    of a force the solver does not solve for): it leaves float range by the third frame."""
    cube = box("Cube", (0.2, 0.2, 0.2), (2, 0, 3), mass=0.001)
    bpy.ops.object.effector_add(type='HARMONIC', location=(0, 0, 3))
    bpy.context.active_object.field.strength = 1e30
    return cube


def falling_scene():
    box("Ground", (10, 10, 1), (0, 0, -0.5), kind='STATIC')
    return box("Cube", (0.2, 0.2, 0.2), (0, 0, 1))


def modal_bake(scene_kind, events, frame_end=20):
    """The Bake operator's modal run over frames 1 to `frame_end` of a scene (`blow_up` or
    `falling`), given `events` ("TIMER" or "ESC", the last repeated until it ends): what
    it returned and reported, the calls on the window manager and workspace, the scene's
    error, and the cube's bake, action and place before and after."""
    scene = bpy.context.scene
    cube = blow_up_scene() if scene_kind == "blow_up" else falling_scene()
    scene.ligament_world.frame_end = frame_end
    scene.frame_set(1)
    start = list(cube.matrix_world.translation)
    ops, calls, reports = operators(), [], []
    context = type("Context", (), {"scene": scene,
                                   "window_manager": Recorder(calls, "wm"),
                                   "workspace": Recorder(calls, "workspace")})()
    # the operator's class cannot be made outside an operator call: a stand-in with its verbs
    op = type("Bake", (ops.SessionModal,), {"report": lambda _self, kind, text: reports.append(
        [sorted(kind), text]), "_timer": "the timer",
        "_finish": ops.LIGAMENT_OT_bake._finish})()
    op._session = ops.BakeSession(scene, ops.WindowProgress(context, "baking frame"), 1,
                                  frame_end)
    op._session.budget = 0.0     # one frame per timer event, however fast the machine
    returned, n = None, 0
    while n < 10000:
        kind = events[min(n, len(events) - 1)]
        event = type("Event", (), {"type": kind, "value": 'PRESS'})()
        returned = ops.LIGAMENT_OT_bake.modal(op, context, event)
        n += 1
        if returned != {'RUNNING_MODAL'}:
            break
    return {"returned": sorted(returned), "events": n, "reports": reports, "calls": calls,
            "state": op._session.state, "done": [op._session.done, op._session.total],
            "scene_error": lig().addon.runtime.cache.error(scene),
            "baked": cube.ligament_body.baked,
            "action": cube.animation_data is not None and cube.animation_data.action is not None,
            "start": start, "now": list(cube.matrix_world.translation)}


def executed_bake(frame_end=20):
    """The falling cube baked by the operator's execute (what scripts and background mode
    run): its place at each frame."""
    scene = bpy.context.scene
    cube = falling_scene()
    scene.ligament_world.frame_end = frame_end
    assert bpy.ops.ligament.bake(frame_start=1, frame_end=frame_end) == {'FINISHED'}
    out = []
    for f in range(1, frame_end + 1):
        scene.frame_set(f)
        out.append(list(cube.matrix_world.translation))
    return out


def modal_bake_played(frame_end=20):
    """The falling cube baked by the modal run: its place at each frame."""
    modal_bake("falling", ["TIMER"], frame_end)
    scene, cube = bpy.context.scene, bpy.data.objects["Cube"]
    out = []
    for f in range(1, frame_end + 1):
        scene.frame_set(f)
        out.append(list(cube.matrix_world.translation))
    return out
