"""The scene's depsgraph evaluated at another frame, for what only the depsgraph knows there
(an evaluated spline, a driver): the frame handler runs before Blender evaluates the new
frame, and a bake or a jump ahead simulates frames the scene is not on."""

import bpy


class SceneUpdates:
    """The scene updates `depsgraph_at` makes: how many so far (`count`), and whether one is
    running (`running`).

    One per process, on purpose: the readers hold nothing that could carry it. Blender calls
    the depsgraph handlers (ui/handlers.py) for every update in the process, ours included,
    and they have to tell ours from the user's; the runtime's bulk reads compare the count at
    which they were taken with the count now, and an update of any scene may move objects
    they read (a collection linked into two scenes)."""

    def __init__(self):
        self.count = 0
        self.running = 0     # nesting depth of the updates under way

    def __enter__(self):
        self.running += 1
        self.count += 1

    def __exit__(self, *exc):
        self.running -= 1


updates = SceneUpdates()


def evaluations():
    """A count of the scene updates depsgraph_at has made: while it stays the same, nothing
    here moved an animated object (an update at another frame writes its animated values)."""
    return updates.count


def evaluating():
    """Whether the depsgraph is being updated by depsgraph_at (not by the user)."""
    return updates.running > 0


class keep_frame:
    """with keep_frame(scene): ... puts the scene back on its frame (and its depsgraph) if
    depsgraph_at moved it."""

    def __init__(self, scene):
        self.scene = scene

    def __enter__(self):
        self.frame = self.scene.frame_current
        return self

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
    with updates:
        if scene.frame_current != frame:
            scene.frame_current = frame
        view_layer.update()
    return view_layer.depsgraph


# The kinds of data-block the depsgraph keeps update tags for (`Depsgraph.id_type_updated`),
# but the UI's own (windows, screens, workspaces, paint tools), which the UI tags as it is used
_UI_TYPES = {"WINDOWMANAGER", "SCREEN", "WORKSPACE", "BRUSH", "PALETTE", "PAINTCURVE"}
_DEPSGRAPH: bpy.types.Struct = bpy.types.Depsgraph.bl_rna
_ID_TYPE: bpy.types.EnumProperty = _DEPSGRAPH.functions["id_type_updated"].parameters["id_type"]
_ID_TYPES = tuple(k for k in _ID_TYPE.enum_items.keys() if k not in _UI_TYPES)


def tagged_since_evaluation(scene):
    """Whether a data-block was tagged for an update since the scene's depsgraph last
    evaluated (or whether that cannot be told: then True).

    Setting a property through Blender's API (a script, the UI, an operator) tags the
    data-block that owns it; an evaluation (a frame change, `view_layer.update`) clears the
    tags after the depsgraph handlers ran. Values written without an update (`foreach_set`)
    and edits made after the frame handler, in the same frame, are not seen here.

    The depsgraph looked at is the one the window shows when it shows this scene (playback
    evaluates that one), else every view layer's (`Scene.frame_set` evaluates them all): a
    depsgraph left unevaluated keeps its tags, so that the answer is True."""
    context = bpy.context
    if getattr(context, "scene", None) == scene and context.view_layer is not None:
        layers = [context.view_layer]
    else:
        layers = scene.view_layers
    graphs = [g for g in (vl.depsgraph for vl in layers) if g is not None]
    if not graphs:
        return True
    return any(any(map(graph.id_type_updated, _ID_TYPES)) for graph in graphs)
