"""test_drag_undo.py's scenario: a drag made with the Drag tool's session, its undo step
pushed as the tool pushes it on release, then Blender's own Undo and Redo."""

import bpy
from .helpers import box, lig, transforms


def _play(last):
    """The box's world matrix at each frame from 1 to `last`."""
    scene = bpy.context.scene
    out = []
    for f in range(1, last + 1):
        scene.frame_set(f)
        out.append(transforms([bpy.data.objects["Box"]])[0])
    return out


def _pins():
    return sorted(o.name for o in bpy.data.objects
                  if o.type == 'EMPTY' and o.ligament_joint.type == 'PIN')


def undo_and_redo_a_drag(last):
    """The box's transforms at frames 1 to `last` played without a drag, with one (the box dropped
    from 1 m, grabbed at frame 16 on the floor and pulled along x to frame 25), after Undo
    and after Redo; the pins each time. The undo step before the drag is pushed at frame 5,
    the box in mid-air."""
    drag = lig().addon.authoring.drag
    scene = bpy.context.scene
    box("Ground", (10, 10, 1), (0, 0, -0.5), kind='STATIC')
    box("Box", (0.4, 0.4, 0.4), (0, 0, 1.2), mass=2.0)
    scene.ligament_world.frame_end = last
    plain = _play(last)
    scene.frame_set(5)
    bpy.ops.ed.undo_push(message="Before the drag")      # the step of the last operation
    for f in range(6, 16):
        scene.frame_set(f)
    session = drag.DragSession(scene, hertz=4.0, max_force=200.0)
    grabbed = session.grab((0.0, -6.0, 0.2), (0.0, 1.0, 0.0), 16).name
    for f in range(16, 26):
        session.move((0.05 * (f - 15), -6.0, 0.3), (0.0, 1.0, 0.0), f)
        scene.frame_set(f)
    session.release(26)
    bpy.ops.ed.undo_push(message=f"Ligament Drag {grabbed}")   # as the tool's release
    dragged_pins = _pins()
    dragged = _play(last)
    undo = list(bpy.ops.ed.undo())
    undone_pins = _pins()
    undone = _play(last)
    redo = list(bpy.ops.ed.redo())
    redone_pins = _pins()
    redone = _play(last)
    return {"grabbed": grabbed, "plain": plain, "dragged": dragged, "undone": undone,
            "redone": redone, "undo": undo, "redo": redo, "pins": [dragged_pins, undone_pins,
                                                                  redone_pins],
            "error": lig().addon.runtime.cache.error(bpy.context.scene),
            "moved": dragged[-1][0][3] - plain[-1][0][3]}
