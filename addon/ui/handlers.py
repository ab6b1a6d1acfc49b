"""Application handlers: live simulation on frame change, cache invalidation on edits, a
clean slate when a file is loaded, and the simulation built ahead of play in idle time."""

import time
import traceback

import bpy
from bpy.app.handlers import persistent

from .. import kernels
from ..authoring import ragdoll
from ..runtime import cache
from ..runtime.building import BuildSession, edits
from ..runtime.changes import drop_if_changed
from ..runtime.state import state
from ..scene import animation, ragdolls, versioning
from ..scene.errors import SceneError
from ..scene.frames import evaluating
from .operators import world


@persistent
def on_frame_change_pre(scene, depsgraph=None):
    """Step (or replay) the simulation for the new frame before the depsgraph evaluates it."""
    st = state(scene)
    if not scene.ligament_world.enabled or st.live is not None:
        cache.forget_reads(scene)   # the tags this evaluation clears are not looked at
        return
    # a simulation has bodies (disabling the last one drops it through its update callback)
    if st.sim is None and not any(o.ligament_body.enabled for o in scene.objects):
        cache.forget_reads(scene)
        return
    if not kernels.ready():
        if kernels.blocking():
            kernels.prepare_blocking()
        else:               # never compile in the UI: prepare in another process meanwhile
            kernels.ensure_started()
            st.report(kernels.status())
            cache.forget_reads(scene)
            return
    try:
        full = _others_edit_in_frames()
        # with a UI to keep responsive the simulation is built a slice at a time, one slice
        # a frame (and on the Build Simulation modal's timer): meanwhile the frames play
        # the animation, as Blender shows it without the simulation
        sliced = not kernels.blocking()
        if cache.apply_frame(scene, scene.frame_current, depsgraph, full_check=full,
                             sliced=sliced) is None and build_slice(scene, depsgraph):
            cache.apply_frame(scene, scene.frame_current, depsgraph, full_check=full)
    except SceneError as exc:
        st.fail(str(exc))
        st.report(str(exc))
        cache.restore_rest(scene)     # a blow-up must not leave bodies at infinity
    except ReferenceError:
        st.invalidate()
    except Exception:  # a bug: never let it break playback or rendering
        traceback.print_exc()
        st.fail("internal error, see the system console")
        st.report(st.error)


def build_slice(scene: bpy.types.Scene, depsgraph: bpy.types.Depsgraph | None = None) -> bool:
    """A slice of the scene's build (`BuildSession`, begun here unless one is under way or
    the user stopped the last one with Esc; the Build Simulation modal then shows its
    progress and takes Esc). Whether the Simulation is ready; raises SceneError when the
    build failed."""
    st = state(scene)
    session = st.building
    if session is None:
        if st.stopped:
            return False
        session = BuildSession(scene, depsgraph)
        world.watch_build()
    outcome = session.advance()
    if outcome == 'FAILED':
        raise SceneError(session.error)
    return outcome == 'FINISHED'


def _others_edit_in_frames():
    """Whether a frame handler of another script may edit the scene after the change check
    and before Blender's evaluation clears its update tags (one after ours in
    frame_change_pre, any in frame_change_post, where the add-on has none): then each frame
    checks everything, not only what the tags point at."""
    if len(bpy.app.handlers.frame_change_post):
        return True
    pre = bpy.app.handlers.frame_change_pre
    last = pre[-1] if len(pre) else None     # ours is the last one, or another may edit
    return getattr(last, "__name__", "") != "on_frame_change_pre" or \
        getattr(last, "__module__", "") != __name__


@persistent
def on_depsgraph_update_post(scene, depsgraph=None):
    """Edits made in the UI (moving a body, editing its mesh) drop the cache right away so the
    panels show the right state; frame changes check again anyway. Edited keys go through the
    change check like any other edit: it keeps the frames before the first one whose reads
    differ."""
    cache.forget_reads(scene)   # this update cleared the tags the next frame would look at
    if evaluating() or state(scene).live is not None:   # our own frame reads, or Live Mode's
        return
    st = state(scene)
    if st.stopped and edits(depsgraph):   # the build stopped with Esc: an edit builds again
        st.stopped = False
    session = cache.building(scene)
    if session is not None:
        # the build reads the scene as it was: an edit stops it, the next pause builds again
        if session.edited(depsgraph):
            session.cancel()
            schedule_prebuild()
        return
    if cache.get(scene) is None:
        schedule_prebuild()
        return
    if depsgraph is not None:
        for update in depsgraph.updates:
            idb = update.id
            if isinstance(idb, bpy.types.Object) and update.is_updated_geometry \
                    and idb.ligament_body.enabled and not idb.ligament_body.baked:
                cache.invalidate(scene)
                schedule_prebuild()
                return
    drop_if_changed(scene)
    if cache.get(scene) is None:
        schedule_prebuild()


# The simulation is built ahead of play: PREBUILD_DELAY seconds after the last edit, in a
# timer (the UI's idle time; timers do not run in background mode, where the batch command
# builds before its first frame anyway), so pressing Play finds it built. A build runs on
# Blender's main thread, so nothing edits the scene while it runs; an edit after it drops
# it like any other simulation, and the timer builds again once the edits pause. A scene whose
# last build took longer than PREBUILD_MAX holds the interface too long to do it after every
# edit: it is built when the animation plays (the frame asks for it) and not ahead.
PREBUILD_DELAY = 0.5     # s
PREBUILD_MAX = 0.2       # s
PREBUILD_RETRY = 1.0     # s: while the kernels are being prepared
_last_edit = [0.0]


def schedule_prebuild():
    """Build the window's scene's simulation once edits pause (`prebuild`)."""
    _last_edit[0] = time.monotonic()
    if not bpy.app.timers.is_registered(prebuild):
        bpy.app.timers.register(prebuild, first_interval=PREBUILD_DELAY)


def prebuild():
    """Timer: build the simulation of the scene in the window if it has none, unless the
    edits have not paused yet (then again later), the animation plays (the frame handler
    builds it), an object is being edited, its last build was too slow to hold the
    interface for (`PREBUILD_MAX`: the frame handler builds it), or the kernels are still
    being prepared (then again once they are). Returns the seconds to the next try, or None
    when done."""
    context = bpy.context
    scene = getattr(context, "scene", None)
    if scene is None or not scene.ligament_world.enabled or cache.get(scene) is not None \
            or cache.error(scene) is not None or cache.building(scene) is not None \
            or state(scene).stopped:
        return None
    wait = _last_edit[0] + PREBUILD_DELAY - time.monotonic()
    if wait > 0.0:
        return wait
    screen = getattr(context, "screen", None)
    if (screen is not None and screen.is_animation_playing) or \
            context.mode not in {'OBJECT', 'POSE'}:
        return None
    if not any(o.ligament_body.enabled for o in scene.objects):
        return None
    last = state(scene).build_seconds
    if last is not None and last > PREBUILD_MAX:
        state(scene).report(f"the simulation is built when you play: its last build took "
                            f"{last:.1f} s, too long to hold the interface after every edit")
        return None
    if not kernels.ready():
        if kernels.failed():
            return None
        kernels.ensure_started()
        return PREBUILD_RETRY
    try:
        if kernels.blocking():
            cache.ensure(scene)
        else:                # a slice at a time on the Build Simulation modal's timer
            BuildSession(scene)
            world.watch_build()
    except SceneError:
        pass                 # kept as the scene's error: the panels show it before Play
    except Exception:        # a bug: never in the user's way
        traceback.print_exc()
    return None


@persistent
def on_load_post(*_args):
    cache.clear_all()
    # settings saved with an older meaning; a new file (File > New, the startup file) has
    # no path and its settings mean what they say
    bring = versioning.upgrade if bpy.data.filepath else versioning.stamp
    for scene in bpy.data.scenes:
        bring(scene)
    for obj in bpy.data.objects:       # bone switches a file made before kept in a group
        if obj.type == 'ARMATURE' and obj.library is None and obj.ligament_ragdoll.enabled:
            ragdoll.adopt_stored_switches(obj)
    schedule_prebuild()


_released_for_save = {}    # {object: Axis Angle rotation shown} between save_pre and save_post


@persistent
def on_save_pre(*_args):
    """The user's Axis Angle curves go into the file unmuted (world/poses.py mutes them while
    a hit body is off its keys), shown again once it is written; a ragdolled armature's
    settings groups go in even when unset, so that a library override can keep changes;
    every scene's settings go in stamped with the meaning they have (scene/versioning.py)."""
    try:
        for scene in bpy.data.scenes:  # what its settings mean, for the file's next opening
            versioning.stamp(scene)
        _released_for_save.update(animation.release_all_axis_angles(bpy.data.objects))
        for obj in bpy.data.objects:    # a character file: what its overrides may change
            if obj.type == 'ARMATURE' and obj.library is None and \
                    obj.override_library is None and obj.ligament_ragdoll.enabled:
                ragdolls.keep_groups(obj)
    except Exception:        # a bug: never in the way of a save
        traceback.print_exc()


@persistent
def on_save_post(*_args):
    try:
        animation.hold_all_axis_angles(_released_for_save)
    except Exception:
        traceback.print_exc()
    finally:
        _released_for_save.clear()


@persistent
def on_playback_pre(scene: bpy.types.Scene, *_args) -> None:
    """Play pressed: a build the user stopped with Esc (`SceneState.stopped`) starts again."""
    state(scene).stopped = False


@persistent
def on_undo_redo(*_args):
    """Undo brings back older settings without running their update callbacks."""
    cache.drop_simulations()


def register():
    bpy.app.handlers.frame_change_pre.append(on_frame_change_pre)
    bpy.app.handlers.depsgraph_update_post.append(on_depsgraph_update_post)
    bpy.app.handlers.load_post.append(on_load_post)
    bpy.app.handlers.save_pre.append(on_save_pre)
    bpy.app.handlers.save_post.append(on_save_post)
    bpy.app.handlers.undo_post.append(on_undo_redo)
    bpy.app.handlers.animation_playback_pre.append(on_playback_pre)
    bpy.app.handlers.redo_post.append(on_undo_redo)


def unregister():
    for handlers, fn in ((bpy.app.handlers.frame_change_pre, on_frame_change_pre),
                         (bpy.app.handlers.depsgraph_update_post, on_depsgraph_update_post),
                         (bpy.app.handlers.load_post, on_load_post),
                         (bpy.app.handlers.save_pre, on_save_pre),
                         (bpy.app.handlers.save_post, on_save_post),
                         (bpy.app.handlers.undo_post, on_undo_redo),
                         (bpy.app.handlers.animation_playback_pre, on_playback_pre),
                         (bpy.app.handlers.redo_post, on_undo_redo)):
        while fn in handlers:
            handlers.remove(fn)
    if bpy.app.timers.is_registered(prebuild):
        bpy.app.timers.unregister(prebuild)
    try:                     # the extension disabled: the user's Axis Angle curves unmuted
        animation.release_all_axis_angles(bpy.data.objects)
    except Exception:        # (bpy.data is out of reach while Blender quits)
        pass
    cache.clear_all()
