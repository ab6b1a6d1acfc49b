"""World's external forces: apply_force, apply_impulse, apply_torque and force fields.

A mixin of `World` (world.py), kept in its own file like mechanisms.py: the methods validate
their input (a ValueError names the bad argument and leaves the world unchanged) and write
the tables the step's `apply_external` stage reads (fields.py, which has the formulas).
"""

import numpy as np

from . import fields as F
from . import validate, vectors
from .bodies import STATIC

# add_field's settings and their defaults; the names are Blender's field settings (RNA)
# where Blender has one.
FIELD_DEFAULTS = {
    "position": (0.0, 0.0, 0.0),
    "axis": (0.0, 0.0, 1.0),
    "strength": 0.0,
    "flow": 0.0,
    "shape": "point",
    "falloff_type": "sphere",
    "falloff_power": 0.0,
    "distance_min": None,
    "distance_max": None,
    "radial_falloff": 0.0,
    "radial_min": None,
    "radial_max": None,
    "z_direction": "both",
    "damping": 0.0,
    "size": 0.0,
    "noise": 0.0,
    "seed": 0,
    "weight": 1.0,
    "use_gravity_falloff": False,
    "use_global_coords": False,
    "blender_fps": None,
}
# Blender's names of the same settings for one kind
# (Blender's Drag: Linear Drag is the strength, which its formula multiplies by |v|^2, and
# Quadratic Drag the damping, multiplied by |v|: the names are Blender's, swapped against it)
ALIASES = {"linear_drag": "strength", "quadratic_drag": "damping",
           "harmonic_damping": "damping", "rest_length": "size"}
_NAMED = (("shape", F.SHAPES, F.SHAPE), ("falloff_type", F.FALLOFFS, F.FALLOFF),
          ("z_direction", F.Z_DIRECTIONS, F.ZDIR))
_NUMBERS = (("strength", F.STRENGTH, None), ("flow", F.FLOW, None),
            ("falloff_power", F.POWER, 0.0), ("radial_falloff", F.POWER_R, 0.0),
            ("damping", F.DAMPING, None), ("size", F.SIZE, 0.0), ("noise", F.NOISE, 0.0),
            ("weight", F.WEIGHT, None))
_RANGES = (("distance_min", F.USE_MIN, F.MIN), ("distance_max", F.USE_MAX, F.MAX),
           ("radial_min", F.USE_MIN_R, F.MIN_R), ("radial_max", F.USE_MAX_R, F.MAX_R))


def _field_row(kind, settings, row=None):
    """The fields-table row of `settings` (validated) over `row` (a field's current row, for
    set_field) or the defaults."""
    out = np.zeros(F.FIELD_WIDTH) if row is None else row.copy()
    if row is None:
        out[F.KIND] = kind
        out[F.ENABLED] = 1.0
        settings = {**FIELD_DEFAULTS, **settings}
    for name, table, col in _NAMED:
        if name in settings:
            value = settings[name]
            if value not in table:
                raise ValueError(f"{name} must be one of {sorted(table)}, got {value!r}")
            out[col] = table[value]
    if "position" in settings:
        out[F.LOC:F.LOC + 3] = validate.vector("position", settings["position"])
    if "axis" in settings:
        out[F.AXIS:F.AXIS + 3] = validate.direction("axis", settings["axis"])
    for name, col, minimum in _NUMBERS:
        if name in settings:
            out[col] = validate.number(name, settings[name], minimum=minimum)
    for name, use_col, col in _RANGES:
        if name in settings:
            value = validate.optional_number(name, settings[name], minimum=0.0)
            out[use_col] = 0.0 if value is None else 1.0
            out[col] = 0.0 if value is None else value
    if "seed" in settings:
        seed = settings["seed"]
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or \
                not 0 <= int(seed) < 2 ** 31:
            raise ValueError(f"seed must be an int from 0 to 2**31 - 1, got {seed!r}")
        out[F.SEED] = int(seed)
    for name, col in (("use_gravity_falloff", F.GRAVITATION), ("use_global_coords", F.GLOBAL)):
        if name in settings:
            out[col] = 1.0 if settings[name] else 0.0
    if "blender_fps" in settings:
        fps = settings["blender_fps"]
        out[F.RATE] = 1.0 if fps is None else \
            validate.number("blender_fps", fps, minimum=0.0, strict=True)
    return out


def _settings(kwargs):
    """kwargs with Blender's per-kind names folded onto add_field's; unknown names refused."""
    out = {}
    for name, value in kwargs.items():
        key = ALIASES.get(name, name)
        if key not in FIELD_DEFAULTS:
            known = sorted(set(FIELD_DEFAULTS) | set(ALIASES))
            raise ValueError(f"{name!r} is not a field setting; known: {', '.join(known)}")
        if key in out:
            raise ValueError(f"{name!r} and another name of the same setting were both given")
        out[key] = value
    return out


class Forces:
    """apply_force, apply_impulse, apply_torque, add_field, set_field, remove_field,
    field_forces."""

    def _pushed_body(self, body):
        b = self._body("body", body)
        if self._bkind.view[b] == STATIC:
            raise ValueError(f"body {b} is static and no force moves it: create it "
                             "dynamic (or kinematic, to switch it later)")
        return b

    def _arm(self, b, point):
        """From body b's centre of mass to `point` (world), or zero for None."""
        if point is None:
            return np.zeros(3)
        return validate.vector("point", point) - self._bs.view[b, 0:3]

    def apply_force(self, body, force, point=None):
        """Push `body` with the world force `force` (N: kg unit/s^2) at its centre of mass, or
        at the world point `point` (which adds the torque (point - centre) x force), for the
        whole of the next `step` (every substep), after which it is cleared: call it before
        each step for a lasting force. Forces add up. A kinematic body ignores them. Wakes
        the body."""
        b = self._pushed_body(body)
        f = validate.vector("force", force)
        arm = self._arm(b, point)
        self._bforce.view[b, 0:3] += f
        self._bforce.view[b, 3:6] += np.cross(arm, f)
        self._wake_bodies([b])

    def apply_torque(self, body, torque):
        """Turn `body` with the world torque `torque` (N m) over the next `step`, as
        apply_force. Wakes the body."""
        b = self._pushed_body(body)
        self._bforce.view[b, 3:6] += validate.vector("torque", torque)
        self._wake_bodies([b])

    def apply_impulse(self, body, impulse, point=None):
        """Change `body`'s momentum now by the world impulse `impulse` (N s) at its centre of
        mass or at the world point `point`: v += impulse / m, w += I^-1 (arm x impulse).
        A kinematic body ignores it. Wakes the body."""
        b = self._pushed_body(body)
        j = validate.vector("impulse", impulse)
        arm = self._arm(b, point)
        inv = self._binv.view[b]
        if inv == 0.0:
            return
        r = vectors.qmat(self._bs.view[b, 3:7])
        inv_inertia = r @ self._bil.view[b].reshape(3, 3) @ r.T
        self._bs.view[b, 7:10] += j * inv
        self._bs.view[b, 10:13] += inv_inertia @ np.cross(arm, j)
        self._wake_bodies([b])

    # --- force fields -----------------------------------------------------------------

    def add_field(self, kind, **settings):
        """Add a force field of Blender's kind "force", "wind", "vortex", "turbulence",
        "drag" or "harmonic" and return its id (an int). It pushes every dynamic body, at its
        centre of mass, every substep, with Blender's formulas (solver/fields.py):

        position, axis      the field object's location and local Z (world)
        strength, flow      Blender's Strength and Flow (flow: -flow x velocity, N s/unit)
        shape               "point", "plane" or "line"
        falloff_type        "sphere", "tube" or "cone"; falloff_power; distance_min and
                            distance_max (None: not used); radial_falloff, radial_min,
                            radial_max (tube and cone; the cone's in degrees)
        z_direction         "both", "positive", "negative"
        damping             Harmonic's damping, Drag's |v| coefficient (aliases
                            harmonic_damping, and quadratic_drag as Blender names it; Drag's
                            |v|^2 coefficient is its strength, Blender's linear_drag)
        size                Turbulence's size, Harmonic's rest length (alias rest_length)
        noise, seed         Blender's random noise on the strength (and damping)
        weight              effector weight (Blender: weights' All x the kind's)
        use_gravity_falloff, use_global_coords    Force's and Turbulence's options
        blender_fps         None: forces as a particle feels them (strength in newtons at
                            falloff 1); a frame rate: as Blender's rigid body world applies
                            them at that fps (strength / fps, Drag and Harmonic reading the
                            velocity x fps; the flow term unchanged)

        Wakes every sleeping body."""
        if kind not in F.KINDS:
            raise ValueError(f"kind must be one of {sorted(F.KINDS)}, got {kind!r}")
        row = _field_row(F.KINDS[kind], _settings(settings))
        k = self._fields.append(row)
        self._wake_all()
        return k

    def _field(self, field):
        n = self._fields.n
        if isinstance(field, (bool, np.bool_)) or not isinstance(field, (int, np.integer)) \
                or not 0 <= int(field) < n:
            raise ValueError(f"field must be a field id from add_field (0..{n - 1}), got "
                             f"{field!r}" if n else f"field must be a field id, but this "
                             f"world has no fields (add_field), got {field!r}")
        k = int(field)
        if self._fields.view[k, F.ENABLED] == 0.0:
            raise ValueError(f"field {k} was removed")
        return k

    def set_field(self, field, **settings):
        """Change some settings of a field between steps (a field keyed over time: its
        position and axis, strength ...), with add_field's names. Wakes every sleeping body
        when something changed."""
        k = self._field(field)
        row = _field_row(None, _settings(settings), self._fields.view[k])
        if not np.array_equal(row, self._fields.view[k]):
            self._fields.view[k] = row
            self._wake_all()

    def remove_field(self, field):
        """Switch the field off for good (its id stays taken). Wakes every sleeping body."""
        k = self._field(field)
        self._fields.view[k, F.ENABLED] = 0.0
        self._wake_all()

    @property
    def field_count(self):
        """Fields added (removed ones included)."""
        return self._fields.n

    def field_forces(self):
        """(n, 3): the force the fields put on each body's centre of mass at its current
        velocity (what the next substep applies to a dynamic body)."""
        n = self._bs.n
        out = np.zeros((n, 3))
        if n and self._fields.n:
            F.field_forces_at(self._fields.view, np.ascontiguousarray(self.positions),
                              np.ascontiguousarray(self.linear_velocities),
                              np.arange(n, dtype=np.int64), self._field_frame, out)
        return out
