"""The settings that change over time, sent to the world before each step: mechanism inputs
and force fields."""


from ..scene.animation import matrix_world_at
from ..scene.curves import curve_motion, evaluated_polylines, path_points, spline_polylines, steering_driven, steering_fcurve
from ..scene.errors import SceneError
from ..scene.fields import KINDS, field_objects, field_settings
from ..scene.frames import depsgraph_at


class FrameInputs:
    """The mechanism settings that change over time, sent to the world before each step:
    the points of paths whose curve is animated and the steering of wheels whose Steering is
    keyed or driven. Keys are evaluated at the frame from their F-curves; what only the
    depsgraph knows (an evaluated spline, a driver) from the depsgraph evaluated at the
    frame (`depsgraph_at`), once a frame and only when one of these needs it.
    The scene's force fields (scene/fields.py) are added to `world` at their start-frame
    settings and sent their settings at every frame (keyed fields move and change)."""

    def __init__(self, scene, joints, start, world=None, known=None, evaluated=()):
        """`known`: the `matrix_world_at` memo of the start frame; `evaluated`: the names of
        the objects the depsgraph is evaluated for at each frame (a field among them has its
        settings read from there, not from its F-curves)."""
        objs = {o.name: o for o in scene.objects}
        known = {} if known is None else known
        self.fields = []      # (field id, field object, read from the depsgraph)
        if world is not None:
            for o in field_objects(scene):
                evaluated_field = o.name in evaluated
                settings = field_settings(scene, o, start, known, evaluated_field)
                self.fields.append((world.add_field(KINDS[o.field.type], **settings), o,
                                    evaluated_field))
        self.paths = []       # (joint id, empty, curve, spline index, mode, closed, count)
        self.wheels = []      # (joint id, empty, F-curve or None for a driver)
        for name, j in joints:
            e = objs[name]
            js = e.ligament_joint
            if js.type == 'PATH':
                mode = curve_motion(js.curve)
                if mode is not None:
                    anchor = matrix_world_at(e, start, known).translation
                    pts, closed, index = path_points(e, js.curve, start, {}, anchor)
                    self.paths.append((j, e, js.curve, index, mode, closed, len(pts)))
            elif js.type == 'WHEEL':
                fc = steering_fcurve(e)
                if fc is not None or steering_driven(e):
                    self.wheels.append((j, e, fc))
        self.needs_depsgraph = any(p[4] == 'SPLINE' for p in self.paths) or \
            any(fc is None for _, _, fc in self.wheels)

    def __bool__(self):
        return bool(self.paths or self.wheels or self.fields)

    def before_step(self, world, scene, frame, known):
        """Send the frame's path points, steering angles and fields to `world`."""
        for k, o, evaluated in self.fields:
            world.set_field(k, **field_settings(scene, o, frame, known, evaluated))
        depsgraph = depsgraph_at(scene, frame) if self.needs_depsgraph else None
        for j, e, curve, index, mode, closed, count in self.paths:
            matrix = matrix_world_at(curve, frame, known)
            lines = evaluated_polylines(curve, matrix, depsgraph) if mode == 'SPLINE' \
                else spline_polylines(curve, matrix)
            if index >= len(lines) or len(lines[index][0]) != count or \
                    lines[index][1] != closed:
                raise SceneError(f"Joint '{e.name}': Curve '{curve.name}' changed its splines at "
                             f"frame {frame} (a path keeps its spline's number of points); "
                             "animate the points, not how many there are")
            try:
                world.set_path_points(j, lines[index][0])
            except ValueError as exc:
                raise SceneError(f"Joint '{e.name}': Curve '{curve.name}' at frame {frame}: "
                             f"{exc}") from None
        for j, e, fc in self.wheels:
            if fc is not None:
                angle = fc.evaluate(frame)
            else:
                angle = e.evaluated_get(depsgraph).ligament_joint.steering
            world.set_steering(j, angle)
