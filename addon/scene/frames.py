"""The scene's depsgraph evaluated at another frame, for what only the depsgraph knows there
(an evaluated spline, a driver): the frame handler runs before Blender evaluates the new
frame, and a bake or a jump ahead simulates frames the scene is not on."""

import bpy


_evaluating = []     # non-empty while depsgraph_at updates the scene (handlers ignore it)


_evaluations = [0]   # how many times depsgraph_at has updated a scene (`evaluations`)


def evaluations():
    """A count of the scene updates depsgraph_at has made: while it stays the same, nothing
    here moved an animated object (an update at another frame writes its animated values)."""
    return _evaluations[0]


def evaluating():
    """Whether the depsgraph is being updated by depsgraph_at (not by the user)."""
    return bool(_evaluating)


class keep_frame:
    """with keep_frame(scene): ... puts the scene back on its frame (and its depsgraph) if
    depsgraph_at moved it."""

    def __init__(self, scene):
        self.scene = scene

    def __enter__(self):
        self.frame = self.scene.frame_current

    def __exit__(self, *exc):
        if self.scene.frame_current != self.frame:
            depsgraph_at(self.scene, self.frame)


def depsgraph_at(scene, frame):
    """The scene's depsgraph evaluated at `frame`. The frame handler runs before Blender
    evaluates the new frame, and a bake or a jump ahead simulates frames the scene is not
    on: the scene is set to `frame` (without the frame handlers) and its view layer updated;
    whoever simulates puts the frame back (runtime.simulation.Simulation.poses_at)."""
    context = bpy.context
    view_layer = context.view_layer if getattr(context, "scene", None) == scene and \
        context.view_layer is not None else scene.view_layers[0]
    _evaluating.append(frame)
    _evaluations[0] += 1
    try:
        if scene.frame_current != frame:
            scene.frame_current = frame
        view_layer.update()
    finally:
        _evaluating.pop()
    return view_layer.depsgraph
