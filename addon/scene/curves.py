"""Curve objects as paths: their Bezier and Poly splines as world-space polylines, whether and
how they move over time, and the keyed or driven steering of wheel joints."""

import bpy
import numpy as np
from mathutils.geometry import interpolate_bezier

from .errors import SceneError
from .animation import action_fcurves, has_transform_animation, matrix_world_at
from .frames import depsgraph_at


BEZIER_SAMPLES = 64      # points a Bezier segment: a Bezier circle of radius r is off the
                         # true curve by under 1e-4 r between samples


def spline_polylines(curve, matrix, data=None):
    """[(points n x 3 in the world for the object matrix `matrix`, closed)] of the Curve
    object's Bezier and Poly splines (NURBS are left out), consecutive repeats removed.
    `data`: the Curve datablock to read (default the object's own; an evaluated copy for an
    animated spline)."""
    out = []
    mat = np.array(matrix)
    for spline in (curve.data if data is None else data).splines:
        closed = spline.use_cyclic_u
        if spline.type == 'BEZIER':
            bp = spline.bezier_points
            n = len(bp)
            pts = []
            for i in range(n if closed else n - 1):
                p0, p1 = bp[i], bp[(i + 1) % n]
                pts += interpolate_bezier(p0.co, p0.handle_right, p1.handle_left, p1.co,
                                          BEZIER_SAMPLES + 1)[:-1]
            if not closed and n:
                pts.append(bp[n - 1].co)
            local = np.array([tuple(p) for p in pts], dtype=np.float64).reshape(-1, 3)
        elif spline.type == 'POLY':
            local = np.array([tuple(p.co)[:3] for p in spline.points],
                             dtype=np.float64).reshape(-1, 3)
        else:
            continue
        world = local @ mat[:3, :3].T + mat[:3, 3]
        if len(world):
            step = np.linalg.norm(np.diff(world, axis=0), axis=1)
            world = world[np.concatenate(([True], step > 1e-9))]
            if closed and len(world) > 1 and np.linalg.norm(world[-1] - world[0]) <= 1e-9:
                world = world[:-1]
        if len(world) >= (3 if closed else 2):
            out.append((world, closed))
    return out


def path_points(empty, curve, start, known, anchor):
    """(points, closed, index in spline_polylines) of the spline of `curve` nearest to
    `anchor`, at the start frame (an animated spline: as the depsgraph shows it now)."""
    if curve is None:
        raise SceneError(f"Joint '{empty.name}': the path's Curve is not set (or was deleted); "
                         "pick a Curve object")
    if curve.type != 'CURVE':
        raise SceneError(f"Joint '{empty.name}': the path's Curve '{curve.name}' is a "
                         f"{curve.type.lower()}, not a Curve object; pick a Curve")
    matrix = matrix_world_at(curve, start, known)
    if curve_motion(curve) == 'SPLINE':     # the caller puts the frame back (keep_frame)
        scene = bpy.context.scene if empty.name in bpy.context.scene.objects else \
            empty.users_scene[0]
        lines = evaluated_polylines(curve, matrix, depsgraph_at(scene, start))
    else:
        lines = spline_polylines(curve, matrix)
    if not lines:
        raise SceneError(f"Joint '{empty.name}': Curve '{curve.name}' has no Bezier or Poly "
                         "spline with two points or more; add one (NURBS splines: set the "
                         "spline type to Bezier or Poly)")
    p = np.asarray(anchor)
    index = min(range(len(lines)),
                key=lambda i: np.min(np.linalg.norm(lines[i][0] - p, axis=1)))
    return (*lines[index], index)


def _animated(idb):
    ad = getattr(idb, "animation_data", None)
    return ad is not None and (ad.action is not None or len(ad.drivers) > 0)


def curve_motion(curve):
    """How a path's curve changes over time: None (it does not), 'TRANSFORM' (its object
    or a parent has transform keys: the spline moves rigidly) or 'SPLINE' (the evaluated
    spline changes: keyed or driven curve data or shape keys, or modifiers such as hooks,
    which may follow other objects)."""
    data = curve.data
    if _animated(data) or (data.shape_keys is not None and _animated(data.shape_keys)) or \
            len(curve.modifiers) > 0:
        return 'SPLINE'
    obj = curve
    while obj is not None:
        if has_transform_animation(obj):
            return 'TRANSFORM'
        obj = obj.parent
    return None


def curve_is_animated(curve):
    """Whether the curve moves or changes over time (the path follows it every frame)."""
    return curve_motion(curve) is not None


def evaluated_polylines(curve, matrix, depsgraph):
    """spline_polylines of the curve as `depsgraph` evaluates it (shape keys and deforming
    modifiers applied; default: the context's)."""
    if depsgraph is None:
        depsgraph = bpy.context.evaluated_depsgraph_get()
    ev = curve.evaluated_get(depsgraph)
    data = ev.to_curve(depsgraph, apply_modifiers=True)
    try:
        return spline_polylines(curve, matrix, data)
    finally:
        ev.to_curve_clear()


def steering_fcurve(empty):
    """The F-curve keying the wheel empty's Steering, or None."""
    return action_fcurves(empty).get(("ligament_joint.steering", 0))


def steering_driven(empty):
    ad = empty.animation_data
    return ad is not None and any(d.data_path == "ligament_joint.steering" for d in ad.drivers)


def steering_at(empty, frame):
    """The wheel's steering angle at `frame` from its keys (else its value now)."""
    fc = steering_fcurve(empty)
    return fc.evaluate(frame) if fc is not None else empty.ligament_joint.steering
