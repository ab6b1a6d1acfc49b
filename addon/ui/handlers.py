"""Application handlers: live simulation on frame change, cache invalidation on edits, and
a clean slate when a file is loaded."""

import traceback

import bpy
from bpy.app.handlers import persistent

from .. import kernels
from ..runtime import cache
from ..runtime.changes import drop_if_changed
from ..runtime.state import state
from ..scene.errors import SceneError
from ..scene.frames import evaluating


@persistent
def on_frame_change_pre(scene, depsgraph=None):
    """Step (or replay) the simulation for the new frame before the depsgraph evaluates it."""
    if not scene.ligament_world.enabled:
        return
    if not any(o.ligament_body.enabled for o in scene.objects):
        return
    st = state(scene)
    if not kernels.ready():
        if kernels.blocking():
            kernels.prepare_blocking()
        else:               # never compile in the UI: prepare in another process meanwhile
            kernels.ensure_started()
            st.report(kernels.status())
            return
    try:
        cache.apply_frame(scene, scene.frame_current, depsgraph)
    except SceneError as exc:
        st.fail(str(exc))
        st.report(str(exc))
    except ReferenceError:
        st.invalidate()
    except Exception:  # a bug: never let it break playback or rendering
        traceback.print_exc()
        st.fail("internal error, see the system console")
        st.report(st.error)


@persistent
def on_depsgraph_update_post(scene, depsgraph=None):
    """Edits made in the UI (moving a body, editing its mesh) drop the cache right away so the
    panels show the right state; frame changes check again anyway. Edited keys go through the
    change check like any other edit: it keeps the frames before the first one whose reads
    differ."""
    if cache.get(scene) is None or evaluating():   # not our own frame reads
        return
    if depsgraph is not None:
        for update in depsgraph.updates:
            idb = update.id
            if isinstance(idb, bpy.types.Object) and update.is_updated_geometry \
                    and idb.ligament_body.enabled and not idb.ligament_body.baked:
                cache.invalidate(scene)
                return
    drop_if_changed(scene)


@persistent
def on_load_post(*_args):
    cache.clear_all()


@persistent
def on_undo_redo(*_args):
    """Undo brings back older settings without running their update callbacks."""
    cache.drop_simulations()


def register():
    bpy.app.handlers.frame_change_pre.append(on_frame_change_pre)
    bpy.app.handlers.depsgraph_update_post.append(on_depsgraph_update_post)
    bpy.app.handlers.load_post.append(on_load_post)
    bpy.app.handlers.undo_post.append(on_undo_redo)
    bpy.app.handlers.redo_post.append(on_undo_redo)


def unregister():
    for handlers, fn in ((bpy.app.handlers.frame_change_pre, on_frame_change_pre),
                         (bpy.app.handlers.depsgraph_update_post, on_depsgraph_update_post),
                         (bpy.app.handlers.load_post, on_load_post),
                         (bpy.app.handlers.undo_post, on_undo_redo),
                         (bpy.app.handlers.redo_post, on_undo_redo)):
        while fn in handlers:
            handlers.remove(fn)
    cache.clear_all()
