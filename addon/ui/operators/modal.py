"""The modal shell the long operators share (Bake, Simulate Fixed, Build Simulation): a timer
event works a slice of a session, Esc cancels it, and the run ends once the session stops.

The session does the work and is what the tests drive (background Blender has no events or
timers): `advance()` works a slice, `cancel()` stops it leaving the scene as it was, and
`state` is 'RUNNING' until it ends ('FINISHED', 'FAILED' or 'CANCELLED')."""

import traceback
from typing import TYPE_CHECKING


class SessionModal:
    """The modal run of an operator over a session (see the module). The operator says what
    the user is told in `_finish(context, session)`; Build Simulation, whose session is the
    scene's build under way (begun by a frame, ended by an edit), lets every event pass on and
    shows its own progress by overriding the other verbs."""

    if TYPE_CHECKING:       # the operator's own (bpy.types.Operator, after this in its bases)
        def report(self, type: set[str], message: str) -> None: ...

    timer_interval = 0.001     # seconds between timer events: a slice each
    pass_events = False        # every event goes on to Blender too (the animation plays)
    _timer = None
    _session = None

    def _start(self, context, session=None):
        """Begin the modal run over `session` (the operator's invoke returns this)."""
        self._session = session
        wm = context.window_manager
        self._timer = wm.event_timer_add(self.timer_interval, window=context.window)
        wm.modal_handler_add(self)
        return {'RUNNING_MODAL'}

    def modal(self, context, event):
        try:
            session = self._session_now(context)
            if event.type == 'ESC' and event.value == 'PRESS' and session is not None:
                session.cancel()
            elif event.type != 'TIMER':
                return {'PASS_THROUGH'} if self.pass_events else {'RUNNING_MODAL'}
            elif session is not None and session.state == 'RUNNING':
                self._advance(context, session)
            if session is not None and session.state == 'RUNNING':
                return self._running(context, session)
            self._end(context)
            return self._finish(context, session)
        except Exception:        # a bug, or the scene is gone: the timer and progress go too
            self._end(context)
            traceback.print_exc()
            return {'CANCELLED', 'PASS_THROUGH'} if self.pass_events else {'CANCELLED'}

    def _session_now(self, context):
        """The session the run works on (None: there is none any more)."""
        return self._session

    def _advance(self, context, session):
        session.advance()      # a slice, to keep the UI responsive

    def _running(self, context, session):
        """What a timer or Esc event returns while the session runs on."""
        return {'PASS_THROUGH'} if self.pass_events else {'RUNNING_MODAL'}

    def _end(self, context):
        """The modal run ends: its timer goes."""
        if self._timer is not None:
            context.window_manager.event_timer_remove(self._timer)
            self._timer = None

    def _finish(self, context, session):
        """What the user is told once the session stopped; the operator's return value."""
        raise NotImplementedError

    def _report_stopped(self, session, what):
        """{'CANCELLED'}, the user told why, when `session` was cancelled ("<what> cancelled;
        nothing was changed") or failed (its error); None when it finished."""
        if session.state == 'CANCELLED':
            self.report({'WARNING'}, f"{what} cancelled; nothing was changed")
            return {'CANCELLED'}
        if session.state == 'FAILED':
            self.report({'ERROR'}, session.error)
            return {'CANCELLED'}
        return None


class WindowProgress:
    """The window's progress bar and the status bar's text, for a session's progress (its
    `update(done, total)` and `end()`): "Ligament: <what> <done>/<total>  (Esc to cancel)"."""

    def __init__(self, context, what):
        self.wm, self.workspace, self.what = context.window_manager, context.workspace, what
        self.wm.progress_begin(0, 100)

    def update(self, done, total):
        self.wm.progress_update(int(100 * done / total))
        self.workspace.status_text_set(f"Ligament: {self.what} {done}/{total}  (Esc to cancel)")

    def end(self):
        self.wm.progress_end()
        self.workspace.status_text_set(None)
