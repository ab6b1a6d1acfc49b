"""The scene's force fields as the solver's `add_field` settings, at any frame.

Blender's rigid body world gathers its fields from `rigidbody_world.effector_weights`: the
fields of its collection (or of the whole view layer) with Affect Location on, each scaled by
the weights' All and its kind's weight. Ligament reads its own weights the same way
(`scene.ligament_world.effector_weights`). A field's settings and transform are read at every
frame, from its keys when they are keyed, so keyed fields push as they move."""

from .animation import action_fcurves, matrix_world_at

# Blender's field types the solver has, and their name there
KINDS = {'FORCE': "force", 'WIND': "wind", 'VORTEX': "vortex", 'TURBULENCE': "turbulence",
         'DRAG': "drag", 'HARMONIC': "harmonic"}
SHAPES = {'POINT': "point", 'PLANE': "plane", 'LINE': "line"}

# Blender settings read as they are (keyable), by the solver's name
_NUMBERS = (("strength", "strength"), ("flow", "flow"), ("falloff_power", "falloff_power"),
            ("radial_falloff", "radial_falloff"), ("noise", "noise"))


def field_objects(scene):
    """The force-field objects that push Ligament bodies, by name."""
    weights = scene.ligament_world.effector_weights
    objs = weights.collection.all_objects if weights.collection is not None else scene.objects
    out = [o for o in objs if o.field is not None and o.field.type in KINDS
           and o.field.shape in SHAPES and o.field.apply_to_location]
    return sorted(out, key=lambda o: o.name)


def field_settings(scene, obj, frame, known, evaluated=False):
    """`World.add_field` keyword settings of field object `obj` at `frame` (its keyed
    settings evaluated there), as Blender's rigid body world applies them: at the scene's
    frame rate (`blender_fps`, Blender's `pd_point_from_loc` takes frs_sec, not fps_base).
    `evaluated`: the scene was just evaluated at `frame` for this field (NLA strips or
    drivers animate it): its settings are read as Blender shows them, not from F-curves."""
    fs = obj.field
    fcurves = {} if evaluated else action_fcurves(obj)

    def value(name):
        fc = fcurves.get(("field." + name, 0))
        return fc.evaluate(frame) if fc is not None else getattr(fs, name)

    weights = scene.ligament_world.effector_weights
    kind = KINDS[fs.type]
    m = matrix_world_at(obj, frame, known)
    axis = m.col[2].xyz
    out = {name: float(value(rna)) for name, rna in _NUMBERS}
    out.update(
        position=tuple(m.translation), axis=tuple(axis) if axis.length > 0 else (0, 0, 1),
        shape=SHAPES[fs.shape], falloff_type=fs.falloff_type.lower(),
        z_direction=fs.z_direction.lower(),
        distance_min=float(value("distance_min")) if fs.use_min_distance else None,
        distance_max=float(value("distance_max")) if fs.use_max_distance else None,
        radial_min=float(value("radial_min")) if fs.use_radial_min else None,
        radial_max=float(value("radial_max")) if fs.use_radial_max else None,
        seed=int(fs.seed), use_gravity_falloff=bool(fs.use_gravity_falloff),
        use_global_coords=bool(fs.use_global_coords),
        weight=weights.all * getattr(weights, kind), blender_fps=scene.render.fps)
    if kind == "drag":
        out["damping"] = float(value("quadratic_drag"))
    elif kind == "harmonic":
        out["damping"] = float(value("harmonic_damping"))
        out["size"] = float(value("rest_length"))
    elif kind == "turbulence":
        out["size"] = float(value("size"))
    return out
