"""Undo removes the last drag: the Drag tool pushes an undo step when a drag is released, and
Blender's own Undo (which works in background through the bpy wheel) takes the drag's Pin and
its keys away; the simulation then plays as if there had been no drag, bit for bit, and Redo
brings the drag back. The scenario: tests/addon/scenarios/drag_undo.py."""


def test_blender_undo_removes_the_last_drag_and_redo_brings_it_back(blender):
    out = blender.call("drag_undo.undo_and_redo_a_drag", 40)
    assert out["error"] is None and out["grabbed"] == "Box"
    assert out["undo"] == ["FINISHED"] and out["redo"] == ["FINISHED"]
    assert out["pins"] == [["Drag Box"], [], ["Drag Box"]]
    assert out["moved"] > 0.2                       # the drag pulled the box along x
    assert _frames_differing(out["undone"], out["plain"]) == []   # as if never dragged
    assert _frames_differing(out["redone"], out["dragged"]) == []


def _frames_differing(a, b):
    return [f + 1 for f, (x, y) in enumerate(zip(a, b)) if x != y]
