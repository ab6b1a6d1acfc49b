"""test_simulate_modal.py's scenarios: the Simulate Fixed operator's modal run (the shell
addon/ui/operators/modal.py SessionModal over motion.simulate.SimulatedPass) driven without a
window, its timer and Esc events given by hand, the window's progress bar and status bar
recorded."""

import sys

import bpy

from .helpers import lig
from .physics_check import Rig, _key_lean
from .physics_simulate import _simulate_module, _state


class Recorder:
    """Stands in for the window manager and the workspace: records the calls made on it."""

    def __init__(self, calls, owner):
        self.calls, self.owner = calls, owner

    def __getattr__(self, name):
        return lambda *args, **_kw: self.calls.append([self.owner, name, *map(repr, args)])


def modal_pass(events):
    """The lean fixed, then the Simulate Fixed modal run over frames 1 to 40, given `events`
    ("TIMER" or "ESC", the last repeated until it ends): what it returned and reported, the
    calls on the window manager and workspace, the pass's state and frames, the scene's
    state before and after."""
    rig = Rig()
    scene, arm = rig.scene, rig.arm
    scene.ligament_world.frame_start, scene.ligament_world.frame_end = 1, 40
    _key_lean(rig, -0.9)
    bpy.context.view_layer.objects.active = arm
    assert bpy.ops.ligament.physics_fix() == {'FINISHED'}
    scene.ligament_world.enabled = True
    before = _state(rig)
    ops = sys.modules[lig().__name__ + ".addon.ui.operators.motion"]
    calls, reports = [], []
    context = type("Context", (), {"scene": scene, "active_object": arm,
                                   "window_manager": Recorder(calls, "wm"),
                                   "workspace": Recorder(calls, "workspace")})()
    # the operator's class cannot be made outside an operator call: a stand-in with its verbs
    simulate = ops.LIGAMENT_OT_physics_simulate
    op = type("Simulate", (ops.SessionModal,), {
        "report": lambda _self, kind, text: reports.append([sorted(kind), text]),
        "_timer": "the timer", "_finish": simulate._finish})()
    session = _simulate_module().SimulatedPass(scene, arm,
                                               ops.WindowProgress(context, "simulated pass, frame"))
    session.budget = 0.0           # one frame per timer event, however fast the machine
    op._session = session
    returned, n = None, 0
    while n < 1000:
        event = type("Event", (), {"type": events[min(n, len(events) - 1)], "value": 'PRESS'})()
        returned = simulate.modal(op, context, event)
        n += 1
        if returned != {'RUNNING_MODAL'}:
            break
    return {"returned": sorted(returned), "events": n, "reports": reports, "calls": calls,
            "state": session.state, "frames": len(session.frames),
            "before": before, "after": _state(rig)}
