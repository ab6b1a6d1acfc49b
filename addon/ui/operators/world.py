"""Cache operators."""

import bpy
from bpy.props import EnumProperty

from ... import kernels
from ...authoring import presets
from ...runtime import cache
from ...runtime.building import BuildSession
from ...runtime.state import state
from ...scene.errors import SceneError
from ...scene.objects import jointed_substeps
from .modal import SessionModal


def _quality_items(self, context):
    """The quality levels of presets/quality.toml."""
    _quality_items.cache = presets.enum_items(  # Blender needs the strings kept alive
        presets.quality_levels, lambda level: f"{level.get('description', '')} ("
        f"{level['substeps']} substeps, "
        f"{jointed_substeps(level['jointed_substeps'], level['substeps'])} for ragdolls, "
        f"{level['iterations']} iterations)")
    return _quality_items.cache


class LIGAMENT_OT_reset(bpy.types.Operator):
    """Drop the simulation cache; the next frame change simulates again from the start frame"""
    bl_idname = "ligament.reset"
    bl_label = "Reset Cache"
    bl_options = {'REGISTER', 'UNDO'}

    @classmethod
    def poll(cls, context):
        return context.scene is not None

    def execute(self, context):
        scene = context.scene
        cache.invalidate(scene)
        if scene.frame_current <= scene.ligament_world.frame_start:
            cache.restore_rest(scene)
        scene.frame_set(scene.frame_current)
        return {'FINISHED'}


class LIGAMENT_OT_quality_preset(bpy.types.Operator):
    """Set the solver substeps, jointed substeps and iterations from a quality level
    (presets/quality.toml)"""
    bl_idname = "ligament.quality_preset"
    bl_label = "Quality Preset"
    bl_options = {'REGISTER', 'UNDO'}

    level: EnumProperty(name="Quality", items=_quality_items)

    @classmethod
    def poll(cls, context):
        return context.scene is not None

    def execute(self, context):
        try:
            level = presets.quality_levels()[self.level]
        except (OSError, ValueError, KeyError) as exc:
            self.report({'ERROR'}, f"Quality preset '{self.level}': {exc}")
            return {'CANCELLED'}
        ws = context.scene.ligament_world
        ws.substeps = level["substeps"]
        ws.jointed_substeps = level["jointed_substeps"]
        ws.iterations = level["iterations"]
        return {'FINISHED'}


class LIGAMENT_OT_prepare_solver(bpy.types.Operator):
    """Compile the solver's kernels now, in a background process (needed once per solver
    version where the extension ships none: Windows, macOS). Esc stops it"""
    bl_idname = "ligament.prepare_solver"
    bl_label = "Prepare Solver"

    def invoke(self, context, event):
        if kernels.ready():
            self.report({'INFO'}, "The solver is ready")
            return {'FINISHED'}
        kernels.ensure_started(retry=True)
        self._timer = context.window_manager.event_timer_add(0.5, window=context.window)
        context.window_manager.modal_handler_add(self)
        return {'RUNNING_MODAL'}

    def execute(self, context):
        kernels.prepare_blocking(report=lambda line: print(line, flush=True))
        return {'FINISHED'}

    def modal(self, context, event):
        if event.type == 'ESC':
            kernels.stop()
            return self._end(context, {'CANCELLED'}, "Solver preparation stopped")
        if event.type == 'TIMER' and not kernels.running():
            if kernels.ready():
                return self._end(context, {'FINISHED'}, "The solver is ready")
            return self._end(context, {'CANCELLED'}, kernels.status() or "stopped")
        return {'PASS_THROUGH'}

    def _end(self, context, result, message):
        context.window_manager.event_timer_remove(self._timer)
        self.report({'INFO'} if result == {'FINISHED'} else {'WARNING'}, message)
        return result


class LIGAMENT_OT_build_simulation(SessionModal, bpy.types.Operator):
    """Build the scene's simulation now, a slice at a time (the status bar shows how far it
    is; Esc stops it and leaves the scene as it was). Playing a scene whose simulation is not
    built starts the same build"""
    bl_idname = "ligament.build_simulation"
    bl_label = "Build Simulation"

    running = False    # a modal run watches the scene's build (one at a time)
    timer_interval = 0.01
    # every event passes on (the animation plays, the view turns; an edit stops the build: it
    # read the scene as it was); Esc stops the playback too
    pass_events = True
    _scene = None

    @classmethod
    def poll(cls, context):
        scene = context.scene
        if scene is None or not scene.ligament_world.enabled:
            cls.poll_message_set("The Ligament simulation is off (Scene > Ligament World)")
            return False
        return True

    def execute(self, context):
        """In one piece (scripts, background mode)."""
        scene = context.scene
        state(scene).stopped = False
        try:
            cache.ensure(scene)
        except SceneError as exc:
            self.report({'ERROR'}, str(exc))
            return {'CANCELLED'}
        self.report({'INFO'}, built_line(scene))
        return {'FINISHED'}

    def invoke(self, context, event):
        if bpy.app.background:
            return self.execute(context)
        scene = context.scene
        state(scene).stopped = False
        if cache.get(scene) is None and cache.building(scene) is None:
            if not kernels.ready():
                kernels.ensure_started()
                self.report({'WARNING'}, kernels.status() or "The solver is not ready")
                return {'CANCELLED'}
            BuildSession(scene)
        if cache.building(scene) is None or type(self).running:
            return {'FINISHED'}       # built already, or watched by the modal run under way
        self._scene = scene
        context.window_manager.progress_begin(0, 100)
        result = self._start(context)
        type(self).running = True
        return result

    def _session_now(self, context):
        """The scene's build under way: the frames advance it too, an edit ends it."""
        return cache.building(self._scene)

    def _advance(self, context, session):
        if context.mode in {'OBJECT', 'POSE'}:      # (edit modes: the mesh is not synced)
            if session.advance() == 'FAILED':
                state(self._scene).report(session.error)
                cache.restore_rest(self._scene)

    def _running(self, context, session):
        context.window_manager.progress_update(int(100 * session.fraction))
        context.workspace.status_text_set(session.status() + "  (Esc to stop)")
        return {'PASS_THROUGH'}

    def _finish(self, context, session):
        scene = self._scene
        if session is not None and session.state == 'CANCELLED':
            state(scene).stopped = True
            self.report({'WARNING'}, "Simulation build stopped, nothing was changed: the "
                                     "frames play the animation until you play again, edit "
                                     "the scene or press Build Simulation")
            return {'CANCELLED', 'PASS_THROUGH'}
        if cache.get(scene) is not None:
            self.report({'INFO'}, built_line(scene))
            return {'FINISHED', 'PASS_THROUGH'}
        if cache.error(scene) is not None:
            self.report({'ERROR'}, cache.error(scene))
        return {'CANCELLED', 'PASS_THROUGH'}     # stopped by an edit: built again after it

    def cancel(self, context):
        """Blender ends the modal run (a file loaded, Blender quits)."""
        self._end(context)

    def _end(self, context: bpy.types.Context) -> None:
        type(self).running = False
        SessionModal._end(self, context)
        context.window_manager.progress_end()
        workspace = getattr(context, "workspace", None)
        if workspace is not None:
            workspace.status_text_set(None)
        for area in context.screen.areas if context.screen is not None else ():
            if area.type in {'VIEW_3D', 'PROPERTIES', 'DOPESHEET_EDITOR'}:
                area.tag_redraw()


def built_line(scene: bpy.types.Scene) -> str:
    """What the user is told once a build ended."""
    seconds = state(scene).build_seconds or 0.0
    return f"Simulation built in {seconds:.1f} s"


def watch_build() -> None:
    """The scene's build was begun outside the operator (the first frame played, the
    idle-time build): the Build Simulation modal run shows its progress and takes Esc.
    Started from a timer, with a window (handlers have none), unless one runs already."""
    if bpy.app.background or LIGAMENT_OT_build_simulation.running or \
            bpy.app.timers.is_registered(_invoke_watch):
        return
    bpy.app.timers.register(_invoke_watch, first_interval=0.0)


def _invoke_watch() -> None:
    context = bpy.context
    wm = context.window_manager
    window = context.window or (wm.windows[0] if wm is not None and len(wm.windows) else None)
    if window is None or LIGAMENT_OT_build_simulation.running:
        return None
    try:
        # the add-on's own operators are not in the stubs: looked up by name
        build = getattr(bpy.ops, "ligament").build_simulation
        with context.temp_override(window=window, screen=window.screen):
            build('INVOKE_DEFAULT')
    except RuntimeError:      # no window to run in: the frames build it a slice at a time
        pass
    return None


class LigamentPreferences(bpy.types.AddonPreferences):
    bl_idname = __package__.rpartition(".addon.")[0]   # the extension's package

    def draw(self, context):
        layout = self.layout
        status = kernels.status()
        layout.label(text=status or "Solver ready: its kernels are compiled for this "
                                    "version", icon='TIME' if status else 'CHECKMARK')
        layout.operator("ligament.prepare_solver", icon='PLAY')


classes = (LIGAMENT_OT_reset, LIGAMENT_OT_quality_preset, LIGAMENT_OT_prepare_solver,
           LIGAMENT_OT_build_simulation, LigamentPreferences)
register, unregister = bpy.utils.register_classes_factory(classes)
