"""The Drag tool of the 3D View: a thin modal shell over `authoring.drag.DragSession` (mouse
events to its verbs, the view's rays from `view_ray`); works while the timeline plays.

Press on a body to grab it, move to pull, wheel to change the depth, release to let go (Ctrl
held: leave a Pin where it is); Esc or right-click ends the tool. Each drag is an undo step of
its own."""

import bpy
from bpy.props import FloatProperty

from ...authoring.drag import DragSession, view_ray

HEADER = ("Drag: press on a body and pull (wheel: depth), release to let go, Ctrl+release "
          "leaves a Pin; Esc or right-click ends")

_keymaps = []


def view_3d_poll(cls, context):
    """The Drag tool and Live Mode run in a 3D View."""
    if context.area is None or context.area.type != 'VIEW_3D':
        cls.poll_message_set("Use it in a 3D View")
        return False
    return True


class ViewPull:
    """What the Drag tool and Live Mode share: the pull's settings, the cursor's ray and the
    view's forward direction, the wheel's steps."""
    max_force: FloatProperty(name="Max Force", default=500.0, min=0.0, soft_max=10000.0,
                             description="The most force (N) a drag pulls with (0: no "
                                         "limit)")
    hertz: FloatProperty(name="Stiffness", default=3.0, min=0.1, soft_max=20.0,
                         description="Frequency (Hz) of the spring that pulls what is "
                                     "dragged to the cursor")

    @staticmethod
    def ray(context, event):
        """(origin, direction) of the ray through the cursor."""
        region, rv3d = context.region, context.region_data
        return view_ray(rv3d.perspective_matrix, (region.width, region.height),
                        (event.mouse_region_x, event.mouse_region_y))

    @staticmethod
    def forward(context):
        """The direction the view looks in (a drag's plane faces it)."""
        return -context.region_data.view_matrix.inverted().col[2].xyz

    @staticmethod
    def wheel_step(event):
        """1 or -1 for a wheel event (nearer or farther), else 0."""
        return {'WHEELUPMOUSE': 1, 'WHEELDOWNMOUSE': -1}.get(event.type, 0)


class LIGAMENT_OT_drag(ViewPull, bpy.types.Operator):
    """Grab Ligament bodies and ragdoll parts under the cursor and pull them, also while the
    timeline plays; each drag is recorded as the keys of a Pin"""
    bl_idname = "ligament.drag"
    bl_label = "Drag Bodies"
    bl_options = {'REGISTER'}

    @classmethod
    def poll(cls, context):
        return view_3d_poll(cls, context)

    def invoke(self, context, event):
        self.session = DragSession(context.scene, hertz=self.hertz, max_force=self.max_force)
        context.area.header_text_set(HEADER)
        context.window_manager.modal_handler_add(self)
        return {'RUNNING_MODAL'}

    @staticmethod
    def _frame(context):
        """Playing: the frame about to be simulated reads the drag; paused: this one."""
        playing = context.screen is not None and context.screen.is_animation_playing
        return context.scene.frame_current + (1 if playing else 0)

    def modal(self, context, event):
        s = self.session
        if context.region_data is None:
            return {'PASS_THROUGH'}
        if event.type in {'ESC', 'RIGHTMOUSE'} and event.value == 'PRESS':
            if s.pin is not None:
                s.release(self._frame(context))
            context.area.header_text_set(None)
            return {'FINISHED'} if s.pins else {'CANCELLED'}
        if event.type == 'LEFTMOUSE' and event.value == 'PRESS':
            origin, direction = self.ray(context, event)
            if s.grab(origin, direction, self._frame(context), self.forward(context)) is None:
                return {'PASS_THROUGH'}
            return {'RUNNING_MODAL'}
        if s.pin is None:
            return {'PASS_THROUGH'}
        if event.type == 'MOUSEMOVE':
            s.move(*self.ray(context, event), self._frame(context))
        elif self.wheel_step(event):
            origin, direction = self.ray(context, event)
            s.wheel(self.wheel_step(event), origin)
            s.move(origin, direction, self._frame(context))
        elif event.type == 'LEFTMOUSE' and event.value == 'RELEASE':
            name = s.body.name
            s.release(self._frame(context), pin=event.ctrl)
            bpy.ops.ed.undo_push(message=f"Ligament Drag {name}")
        else:
            return {'PASS_THROUGH'}
        return {'RUNNING_MODAL'}


def register():
    bpy.utils.register_class(LIGAMENT_OT_drag)
    kc = bpy.context.window_manager.keyconfigs.addon
    if kc is not None:             # none in background
        km = kc.keymaps.new(name="3D View", space_type='VIEW_3D')
        _keymaps.append((km, km.keymap_items.new("ligament.drag", 'D', 'PRESS', shift=True,
                                                 alt=True)))


def unregister():
    for km, item in _keymaps:
        km.keymap_items.remove(item)
    _keymaps.clear()
    bpy.utils.unregister_class(LIGAMENT_OT_drag)
