"""Live Mode in the 3D View: a thin modal shell over `live.session.LiveSession`. A timer steps
it at the scene's frame rate (a tick that comes late, when the machine cannot keep up, is one
step: the motion slows down, and the header says so); mouse and keys become its verbs, the
view's rays from `view_ray`.

Press on a part and pull (wheel: depth), release to let go, Ctrl+release leaves it pinned;
Ctrl+click pins or unpins a part where it is; D drops the character (drives off) or picks it
up, T tenses, R relaxes, G switches gravity, Ctrl+Z steps back, Enter keys the pose at the
frame (Transfer Pose); Esc or right-click leaves, the scene as it was but for the
transferred keys."""

import bpy

from ...live.session import LiveSession
from ...scene.errors import SceneError
from .drag import ViewPull, view_3d_poll

KEYS = ("drag a part, Ctrl+click pin/unpin, D drop, T tense, R relax, G gravity, "
        "Ctrl+Z back, Enter transfer pose, Esc leave")


class LIGAMENT_OT_live_mode(ViewPull, bpy.types.Operator):
    """Run the simulation in place at the current frame from the character's pose, the
    timeline standing still: drag and pin parts, drop, tense or relax the character, switch
    gravity, step back, and key the pose you like at this frame (Transfer Pose)"""
    bl_idname = "ligament.live_mode"
    bl_label = "Live Mode"
    bl_options = {'REGISTER'}

    @classmethod
    def poll(cls, context):
        if not view_3d_poll(cls, context):
            return False
        screen = context.screen
        if screen is not None and screen.is_animation_playing:
            cls.poll_message_set("Stop playback first: Live Mode holds the frame")
            return False
        return True

    def invoke(self, context, event):
        self.session = LiveSession(context.scene, hertz=self.hertz, max_force=self.max_force)
        try:
            self.session.start()
        except SceneError as exc:
            self.report({'ERROR'}, str(exc))
            return {'CANCELLED'}
        wm = context.window_manager
        self.timer = wm.event_timer_add(self.session.sim.dt, window=context.window)
        self.transferred = False
        self._header(context)
        wm.modal_handler_add(self)
        return {'RUNNING_MODAL'}

    def _header(self, context, note=None):
        text = f"{self.session.status()}: {KEYS}"
        context.area.header_text_set(f"{note}. {text}" if note else text)

    def _finish(self, context):
        context.window_manager.event_timer_remove(self.timer)
        try:
            self.session.stop()
        except ReferenceError:      # another file was loaded: nothing of the scene to restore
            pass
        context.area.header_text_set(None)
        context.area.tag_redraw()
        return {'FINISHED'} if self.transferred else {'CANCELLED'}

    def cancel(self, context):
        self._finish(context)

    def modal(self, context, event):
        s = self.session
        if not s.running or context.region_data is None:
            return {'PASS_THROUGH'}
        try:
            return self._event(context, event)
        except (SceneError, ReferenceError) as exc:   # a blow-up, or the scene went away
            self.report({'ERROR'}, str(exc))
            return self._finish(context)

    def _event(self, context, event):
        s = self.session
        kind, press = event.type, event.value == 'PRESS'
        if kind == 'TIMER':
            s.step()
            self._header(context)
            context.area.tag_redraw()
            return {'PASS_THROUGH'}
        if kind in {'ESC', 'RIGHTMOUSE'} and press and s.drag is None:
            return self._finish(context)
        if kind == 'LEFTMOUSE' and press:
            origin, direction = self.ray(context, event)
            if event.ctrl:
                done = s.pin(origin, direction)
                if done is not None:
                    self._header(context, f"{done[0].title()} {done[1].name}")
                return {'RUNNING_MODAL'} if done else {'PASS_THROUGH'}
            return {'RUNNING_MODAL'} if s.grab(origin, direction, self.forward(context)) \
                else {'PASS_THROUGH'}
        if s.drag is not None:
            if kind == 'MOUSEMOVE':
                s.move(*self.ray(context, event))
            elif self.wheel_step(event):
                origin, direction = self.ray(context, event)
                s.wheel(self.wheel_step(event), origin)
                s.move(origin, direction)
            elif kind == 'LEFTMOUSE' and event.value == 'RELEASE':
                s.release(pin=event.ctrl)
            elif kind in {'ESC', 'RIGHTMOUSE'} and press:
                s.release()
            return {'RUNNING_MODAL'}
        if not press:
            return {'PASS_THROUGH'}
        if kind == 'D':
            s.drop(not s.dropped)
            self._header(context, "Dropped" if s.dropped else "Picked up")
        elif kind == 'T':
            s.tense()
            self._header(context, f"Drives x{s.scale:g}")
        elif kind == 'R':
            s.relax()
            self._header(context, f"Drives x{s.scale:g}")
        elif kind == 'G':
            s.gravity(not s.gravity_on)
            self._header(context, "Gravity on" if s.gravity_on else "Gravity off")
        elif kind == 'Z' and event.ctrl:
            label = s.undo()
            self._header(context, f"Undid {label}" if label else "Nothing to step back")
        elif kind in {'RET', 'NUMPAD_ENTER'}:
            keyed = s.transfer()
            self.transferred = True
            bpy.ops.ed.undo_push(message="Ligament Transfer Pose")
            self._header(context, f"Keyed {sum(len(b) for b in keyed.values())} bones at "
                                  f"frame {s.frame}")
        else:
            return {'PASS_THROUGH'}
        return {'RUNNING_MODAL'}


classes = (LIGAMENT_OT_live_mode,)
register, unregister = bpy.utils.register_classes_factory(classes)
