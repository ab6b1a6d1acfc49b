"""World: the one stateful object a user touches. Validates input, owns the arrays, steps.

Body ids and joint ids are ints in creation order; they index `positions`, `orientations`,
`linear_velocities` and `angular_velocities` (numpy views of the state, body centres of
mass, orientations as (w, x, y, z)). Units: metres, kilograms, seconds, radians; +Z up.
"""

import inspect
import math
import time

import numpy as np

from . import bodies as bodies_mod
from . import pool, validate, vectors
from .atomic import atomic_joint
from .bodies import ASLEEP, DYNAMIC, KIND_NAMES, KINEMATIC, POS, ROT, SPIN, STATE_WIDTH, VEL
from .joints import layout as L
from .custom import CustomConstraints
from .forces import Forces
from .mechanisms import Mechanisms
from .direct import KEEP_WIDTH
from .rows import new_rows
from .shapes import Box, Capsule, Compound, ConvexHull, Cylinder, Shape, Sphere, TriangleMesh
from .step import step_frame
from .tables import DERIVED, SETTING, Table
from .contacts import ROWS_PER_MANIFOLD, SPECULATIVE_DISTANCE, ContactState
from .joints.custom import CI_JOINT
from .islands import CALM_SPEED, CALM_SPIN, partition
from .sleep import end_frame, wake_disturbed, wake_marked
from .collision.colliders import collider_tables, new_states
from . import fields as fields_mod

DEFAULT_DENSITY = 1000.0

# Sleeping (see sleep.py): Box2D v3's defaults, checked by measurement. The threshold is on
# |v| + reach |w|, a body's fastest surface point. A box resting on the ground measures 0; a
# settled 20-row pyramid of unit boxes (4 substeps, 2 iterations) creeps at 6 mm/s (median)
# and 2.2 cm/s at most after its first second, so it falls asleep 0.7 s after being built.
# At 4 substeps and 1 iteration the same pyramid jitters at 4.6 cm/s (median) and mostly
# stays awake. A sphere rolling at 3 cm/s (surface speed 6 cm/s) stays awake, and a 1 m
# pendulum swinging by more than 3 cm is never below the threshold for 0.5 s at a time.
SLEEP_THRESHOLD = 0.05      # m/s
TIME_TO_SLEEP = 0.5         # s

# The longest frame `step` takes as one: a longer dt is stepped as that many equal frames.
# A frame collides once, so its length bounds how far a body moves between two looks at
# its contacts, and its substeps' length bounds the soft constraints' stability; 1/20 s
# keeps Blender's frame rates down to 20 fps whole (at 24 fps a frame is 1/24 s).
MAX_FRAME = 1.0 / 20.0      # s

# An orientation written from outside shorter than this is refused (it is normalised when
# stepped: a shorter one has lost its direction to rounding, a zero one has none).
MIN_QUATERNION_NORM = 1e-6

# a body's rows before its shape says otherwise: no centre of mass offset, no inertia, no mass
_NO_OFFSET = np.zeros(3)
_NO_INERTIA = np.zeros((3, 3))
_NO_MASS = np.zeros(19)


def _reach(shape, com):
    """Distance from the centre of mass to the shape's farthest point (inf for a plane)."""
    if isinstance(shape, Compound):
        # a bound: each part's reach about its origin plus that origin's distance
        return max(float(np.linalg.norm(position - com)) + _reach(part, np.zeros(3))
                   for part, position, _ in shape.parts)
    if isinstance(shape, (ConvexHull, TriangleMesh)):
        return float(np.linalg.norm(np.asarray(shape.vertices) - com, axis=1).max())
    if isinstance(shape, Sphere):
        return shape.radius
    if isinstance(shape, Capsule):
        return shape.radius + shape.half_height
    if isinstance(shape, Cylinder):
        return math.hypot(shape.radius, shape.half_height)
    if isinstance(shape, Box):
        he = shape.half_extents     # np.linalg.norm's arithmetic, without its overhead
        return math.sqrt(he.dot(he))
    return math.inf


def _of(name, i, one):
    """Argument `name` of row i as a message names it (`one`: a single add's, no row)."""
    return name if one else f"{name} of row {i}"


def _row(i, one):
    return "" if one else f"row {i}: "


def _pose_between(start, end, t):
    """Poses (n, 7: centre, quaternion) a fraction t of the way from `start` to `end`: the
    centres on a straight line, the orientations on the shortest arc (slerp)."""
    out = np.empty_like(start)
    out[:, :3] = start[:, :3] + t * (end[:, :3] - start[:, :3])
    q0, q1 = start[:, 3:], end[:, 3:].copy()
    dot = np.sum(q0 * q1, axis=1)
    q1[dot < 0.0] *= -1.0                  # the same turn, the short way round
    dot = np.clip(np.abs(dot), -1.0, 1.0)
    angle = np.arccos(dot)
    small = angle < 1e-9
    sin = np.where(small, 1.0, np.sin(angle))
    w0 = np.where(small, 1.0 - t, np.sin((1.0 - t) * angle) / sin)
    w1 = np.where(small, t, np.sin(t * angle) / sin)
    q = w0[:, None] * q0 + w1[:, None] * q1
    out[:, 3:] = q / np.linalg.norm(q, axis=1)[:, None]
    return out


# step_frame's parameters by name: where each sits in a batch's arguments (`_batches`)
_AT = {name: k for k, name in enumerate(inspect.signature(step_frame.py_func).parameters)}

_JOINT_BODY_PAIRS = ((L.BODY_A, L.BODY_B), (L.BODY_A, L.BODY_C), (L.BODY_A, L.BODY_D),
                     (L.BODY_B, L.BODY_C), (L.BODY_B, L.BODY_D), (L.BODY_C, L.BODY_D))


_kernels_checked = False
# What prepares the kernels: warmup.prepare, set by the package's __init__ (warmup builds
# Worlds, so this module does not import it)
prepare_kernels = None


def _prepare_kernels():
    """The first step in a process: when the kernel cache holds no complete set, compile
    every kernel at once on the free cores (warmup.prepare: a worker process compiles the
    collision and joint kernels meanwhile) instead of one by one on this core as the frame
    reaches them. Later steps, and processes whose cache is complete, skip it."""
    global _kernels_checked
    _kernels_checked = True
    if prepare_kernels is not None:
        prepare_kernels()


def half_count(substeps):
    """The default of a reduced substep count (jointed_substeps of substeps, calm_substeps
    of jointed_substeps): half of it rounded up, at least 4 and at most the count itself.
    (The Blender add-on's Jointed Substeps 0, Auto, is this of its Substeps.)"""
    return min(substeps, max(4, -(-substeps // 2)))


class World(Mechanisms, CustomConstraints, Forces):
    """A rigid-body world: bodies, joints, and the soft-step solver that moves them.

    gravity     (3,) in units/s^2; None: (0, 0, -9.81) m/s^2 in the world's length unit
    length_unit metres per unit of length (1: metres; 0.01: a scene built in centimetres).
                Positions, shapes, velocities, gravity and every length or speed the API
                takes are in these units; the solver's own tolerances and thresholds
                (contact slop and speculative margin, warm-start matching distances, the
                narrowphase's tolerances, contact push and restitution speeds, sleep speed)
                are kept in metres and scaled by it, and densities are kg/m^3, so a scene
                built in centimetres moves as the same scene in metres, times 100.
    substeps    substeps per `step` (the soft step's main quality knob)
    jointed_substeps
                substeps per `step` for a small jointed island: a ragdoll or a mechanism on
                the ground, with at most two other jointed or free bodies on it, no spring
                and no drive (islands.py). None: half of `substeps` (rounded up), at least
                4 and at most `substeps`: 4 at the default 8. The direct solver (direct.py)
                holds such an island's joints and pressed contacts exactly, so fewer
                substeps keep its joints together at less cost; a landing's contacts join
                that solve and the position projection catches up with limits bent by an
                impact as fast a second as at `substeps`, so ragdolls land and lie as deep
                and keep their limits as at 8 (docs/decisions/jointed-substeps.md). Set it
                to `substeps` to step every island alike. Bigger piles take
                `substeps` whatever this says: their contacts are swept, and jitter at fewer
                substeps. Contacts keep the stiffness of `substeps`, and warm-start impulses
                are rescaled when an island's count changes.
    calm_substeps
                substeps per `step` for such a small jointed island in a frame it starts
                calm: its bodies moving slower than 0.25 m/s and turning slower than 1
                rad/s, none of its contacts closing faster than 0.25 m/s, none of its
                joints' bodies turning relative to each other faster than 1 rad/s, no
                kinematic body in it moving, none of its bodies in its first frame
                (islands.py `_calm`): a ragdoll lying still. A fall (fewer substeps lag it
                further behind the parabola), a landing, a limb swinging to its limit, a
                body hitting it make the frame's island not calm, and it steps at
                `jointed_substeps`.
                None: half of `jointed_substeps` (rounded up), at least 4 and at most
                `jointed_substeps` (docs/decisions/calm-substeps.md); set it to
                `jointed_substeps` to step every frame alike.
    iterations  solve sweeps per substep
    relax_iterations
                relax sweeps per substep (velocity only, no position bias); None: as many
                as `iterations`, and at least two: one sweep leaves a loaded stack's
                friction short of the bias it removes, and the boxes wander sideways
                (docs/performance.md, "Relax sweeps").
    joint_hertz, joint_damping_ratio
                stiffness of the rigid joint rows' position correction (Box2D v3 style);
                higher is stiffer, keep joint_hertz below a quarter of the substep rate.
    contact_hertz, contact_damping_ratio, contact_hertz_limit
                stiffness of the soft contacts: a resting contact sinks by its load over
                (effective mass x (2 pi hertz)^2), so a stack's sink adds up level by level
                and falls with hertz squared. The hertz used is at most contact_hertz_limit x
                the substep rate of `substeps` (in islands at `jointed_substeps` too): a
                contact stiffer than about a quarter of the rate it is solved at overshoots
                and a loaded stack walks. The default 0.27, a little over Box2D v3's 0.25,
                is the stiffest that holds a pile at one iteration; stiffer needs more
                iterations (docs/decisions/contact-stiffness-limit.md). The default 130 Hz
                is just over the cap at 8 substeps (129.6 Hz), so the cap sets it.
    sleeping    let islands of touching or jointed bodies at rest fall asleep (sleep.py):
                they cost almost nothing until touched, hit, moved by a joint, or woken.
    sleep_threshold, time_to_sleep
                a body is still while |v| + reach |w| (its fastest surface point) stays
                under sleep_threshold (m/s, whatever the length unit); an island sleeps
                once all its bodies have been still for time_to_sleep (s).
    max_frame   the longest frame `step` takes in one go (s); a longer dt is split into
                equal frames no longer than this (kinematic targets are reached along the
                way, in a straight line and a shortest-arc turn), so any dt gives what that
                many ordinary frames give.
    threads     how many threads `step` uses: independent islands (bodies linked by
                joints or touching, solver/islands.py) are stepped in parallel, up to this
                many batches at once, and the narrowphase's pairs are shared out among
                them; one big island of contacts (a pile, a wall: solver/colours.py)
                is solved colour by colour on up to this many threads, as many as
                measured faster. None: every core this process may use. Results are
                bit-identical whatever the count. Settable (`w.threads = 1`); Blender's
                add-on passes the scene's own thread setting.

    Writing to `positions`, `orientations` or the velocity views wakes a sleeping body's
    island at the next step (its frozen pose no longer matches); call `wake` to be explicit.
    """

    def __init__(self, gravity=None, substeps=8, iterations=1,
                 relax_iterations=None, jointed_substeps=None, calm_substeps=None,
                 joint_hertz=60.0, joint_damping_ratio=5.0,
                 contact_hertz=130.0, contact_damping_ratio=5.0, contact_push_velocity=3.0,
                 restitution_threshold=1.0, contact_hertz_limit=0.27, sleeping=True,
                 sleep_threshold=SLEEP_THRESHOLD,
                 time_to_sleep=TIME_TO_SLEEP, threads=None, max_frame=MAX_FRAME,
                 length_unit=1.0):
        self.length_unit = validate.number("length_unit", length_unit, minimum=0.0,
                                           strict=True)
        self._unit = 1.0 / self.length_unit        # units per metre: scales the tolerances
        self._gravity = validate.vector("gravity", (0.0, 0.0, -9.81 * self._unit)
                                        if gravity is None else gravity)
        self.threads = threads
        self._sleeping = bool(sleeping)
        self.sleep_threshold = validate.number("sleep_threshold", sleep_threshold, minimum=0.0)
        self.time_to_sleep = validate.number("time_to_sleep", time_to_sleep, minimum=0.0, strict=True)
        self.substeps = int(validate.number("substeps", substeps, minimum=1))
        self.max_frame = validate.number("max_frame", max_frame, minimum=0.0, strict=True)
        self.jointed_substeps = half_count(self.substeps) if jointed_substeps is None \
            else int(validate.number("jointed_substeps", jointed_substeps, minimum=1))
        self.calm_substeps = half_count(self.jointed_substeps) if calm_substeps is None \
            else int(validate.number("calm_substeps", calm_substeps, minimum=1))
        self.iterations = int(validate.number("iterations", iterations, minimum=1))
        self.relax_iterations = max(2, self.iterations) if relax_iterations is None else \
            int(validate.number("relax_iterations", relax_iterations, minimum=1))
        self.joint_hertz = validate.number("joint_hertz", joint_hertz, minimum=0.0)
        self.joint_damping_ratio = validate.number("joint_damping_ratio", joint_damping_ratio, minimum=0.0)
        self.time = 0.0
        self._shapes = []
        self._body_origin = Table(3, np.float64, state=SETTING)  # shape origin, body frame
        self._bs = Table(STATE_WIDTH, np.float64, state="bodies")   # bodies.py: columns
        self._binv = Table(None, np.float64, state=SETTING)  # 0 unless dynamic (set_kind)
        self._bil = Table(9, np.float64, state=SETTING)
        self._bib = Table(9, np.float64, state=SETTING)
        self._bI = Table(9, np.float64, state=DERIVED)
        self._bdamp = Table(2, np.float64, state=SETTING)
        self._bkind = Table(None, np.int64, state="kinds")   # restored through set_kind
        self._bmotion = Table(None, np.int64, state="motion")  # kind as the step sees it
        self._breach = Table(None, np.float64, state=SETTING)  # farthest surface point
        self._btimer = Table(None, np.float64, state="sleep_timers")  # seconds still
        self._bisland = Table(None, np.int64, fill=-1, state="sleep_islands")  # label, or -1
        self._bfrozen = Table(7, np.float64, state="frozen_poses")  # where it fell asleep
        self._bsub = Table(None, np.int64, state="substep_counts")  # its island's, last step
        self._bforce = Table(6, np.float64, state="forces")  # apply_force/torque, next step
        self._fields = Table(fields_mod.FIELD_WIDTH, np.float64, state=SETTING)  # add_field
        self._field_frame = 0                              # numbers the field noise's draws
        self._mark = np.zeros(0, dtype=np.bool_)
        self._bdyn = Table(19, np.float64, state=SETTING)  # dynamic mass: 1/m, I^-1 (9), I (9)
        self._bmat = Table(3, np.float64, state=SETTING)   # friction, restitution, rolling
        self._ktarget = Table(7, np.float64, state="kinematic_target")
        self._khas = Table(None, np.bool_, state="kinematic_has")
        self._jt = Table(L.JT_WIDTH, np.int64, state="joints")      # flags: broken, enabled
        self._jf = Table(L.JF_WIDTH, np.float64, state="joint_params")   # drives, steering
        self._jacc = Table(L.MAX_ROWS, np.float64, state="impulses")
        self._jimp = Table(L.JIMP_WIDTH, np.float64, state="joint_impulses")
        self._jpts = Table(3, np.float64, state="path_points")  # set_path_points moves them
        self._many_body_joints = 0                         # joints with a body C or D
        self._breakable = 0                                # joints with a break force or torque
        self._broken = 0                                   # joints broken, at the last look
        self._pins = np.zeros(0, dtype=np.int64)           # add_pin's joints
        self._joint_pairs_key = None                       # `_joint_pairs`' last answer
        self._ignored = np.zeros((0, 2), dtype=np.int64)   # `ignore_collisions`' pairs
        self._init_custom()                                # add_custom's tables (custom.py)
        self._rows = None
        self._row_views = None            # `_row_storage`'s views of the joint count
        self._kept = None                 # islands' plans and factors across frames (`_keep`)
        self._kept_plan = None            # where `_save_kept` finds the kept entries
        self._state_tables = None         # (key, table) of each table a snapshot keeps
        self._bfilter = Table(2, np.int64, state=SETTING)    # collision group, mask
        self._shape_tables = None       # the colliders' tables (collision/colliders.py)
        self._cstates = new_states(0)   # the colliders' poses, this frame
        self._contacts = ContactState(
            validate.number("contact_hertz", contact_hertz, minimum=0.0),
            validate.number("contact_damping_ratio", contact_damping_ratio, minimum=0.0),
            validate.number("contact_push_velocity", contact_push_velocity, minimum=0.0),
            validate.number("restitution_threshold", restitution_threshold, minimum=0.0),
            validate.number("contact_hertz_limit", contact_hertz_limit, minimum=0.0, strict=True),
            self._unit)

    @property
    def gravity(self):
        return self._gravity

    @property
    def threads(self):
        """Threads `step` runs independent islands on (see the class docstring)."""
        return self._threads

    @threads.setter
    def threads(self, value):
        if value is None:
            value = pool.cores()
        elif isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
            raise ValueError(f"threads must be a whole number >= 1 or None (every core), "
                             f"got {value!r}")
        self._threads = int(value)
        self._spread = pool.Spread()

    @gravity.setter
    def gravity(self, value):
        """Setting gravity wakes every sleeping body (it would not feel the change)."""
        self._gravity = validate.vector("gravity", value)
        self._wake_all()

    # --- sleeping -----------------------------------------------------------------------

    @property
    def sleeping(self):
        """Whether islands at rest may fall asleep; turning it off wakes them all."""
        return self._sleeping

    @sleeping.setter
    def sleeping(self, value):
        self._sleeping = bool(value)
        if not self._sleeping:
            self._wake_all()

    def is_sleeping(self, body):
        return bool(self._bmotion.view[self._body("body", body)] == ASLEEP)

    def wake(self, body):
        """Wake the body's island (and restart the body's sleep timer if it is awake).
        Needed after changing anything the solver cannot see, such as a body's mass."""
        b = self._body("body", body)
        self._wake_bodies([b])

    def _wake_bodies(self, bodies):
        """Wake the islands of these body ids (-1, the world, is ignored)."""
        motion, timers = self._bmotion.view, self._btimer.view
        mark = None   # allocated when a body is asleep (not for each joint a build adds)
        for b in bodies:
            if b >= 0:
                timers[b] = 0.0
                if motion[b] == ASLEEP:
                    if mark is None:
                        mark = np.zeros(max(self._bs.n, 1), dtype=np.bool_)
                    mark[self._bisland.view[b]] = True
        if mark is not None:
            wake_marked(mark, motion, self._bisland.view, timers)

    def _wake_all(self):
        self._wake_bodies(np.nonzero(self._bmotion.view == ASLEEP)[0])

    def _marks(self):
        """A reused scratch of island marks for the wake kernels."""
        if len(self._mark) < self._bs.n:
            self._mark = np.zeros(2 * self._bs.n, dtype=np.bool_)
        return self._mark

    def _wake_near(self, b):
        """A new body wakes the sleeping bodies whose bounding spheres it reaches."""
        asleep = np.nonzero(self._bmotion.view == ASLEEP)[0]
        if len(asleep) == 0:
            return
        gap = np.linalg.norm(self._bs.view[asleep, 0:3] - self._bs.view[b, 0:3], axis=1)
        reach = self._breach.view[asleep] + self._breach.view[b] + \
            SPECULATIVE_DISTANCE * self._unit
        self._wake_bodies(asleep[gap <= reach])

    # --- bodies -------------------------------------------------------------------------

    @property
    def body_count(self):
        return self._bs.n

    @property
    def joint_count(self):
        return self._jt.n

    @property
    def positions(self):
        """(n, 3) centres of mass (for symmetric shapes, the shape origins)."""
        return self._bs.view[:, POS:POS + 3]

    @property
    def orientations(self):
        return self._bs.view[:, ROT:ROT + 4]

    @property
    def linear_velocities(self):
        return self._bs.view[:, VEL:VEL + 3]

    @property
    def angular_velocities(self):
        return self._bs.view[:, SPIN:SPIN + 3]

    @property
    def masses(self):
        inv = self._binv.view
        return np.where(inv > 0.0, 1.0 / np.where(inv > 0.0, inv, 1.0), np.inf)

    def inertia(self, body):
        """The body's inertia tensor in the world frame (3, 3)."""
        b = self._body("body", body)
        r = vectors.qmat(self._bs.view[b, 3:7])
        return r @ self._bib.view[b].reshape(3, 3) @ r.T

    def add_body(self, shape, position, orientation=(1.0, 0.0, 0.0, 0.0), mass=None,
                 density=None, kind="dynamic", friction=0.5, restitution=0.0,
                 linear_velocity=(0.0, 0.0, 0.0), angular_velocity=(0.0, 0.0, 0.0),
                 linear_damping=0.0, angular_damping=0.0, rolling_friction=0.0,
                 collision_group=1, collision_mask=0xFFFFFFFF):
        """Add a body and return its id.

        `position` places the shape's local origin; the body's centre of mass (what
        `positions` reports) is where the shape's is. Mass comes from `mass` (inertia scaled
        to it) or from `density` (kg/m^3 whatever the world's length_unit, default 1000);
        static and kinematic bodies have infinite mass. Friction and restitution mix per contact as sqrt(mu_a mu_b) and
        max(e_a, e_b).
        """
        return self._add_bodies(
            (shape,), position, orientation, mass, density, kind, friction, restitution,
            linear_velocity, angular_velocity, linear_damping, angular_damping,
            rolling_friction, collision_group, collision_mask, one=True)

    def add_bodies(self, shapes, positions, orientations=(1.0, 0.0, 0.0, 0.0), mass=None,
                   density=None, kind="dynamic", friction=0.5, restitution=0.0,
                   linear_velocity=(0.0, 0.0, 0.0), angular_velocity=(0.0, 0.0, 0.0),
                   linear_damping=0.0, angular_damping=0.0, rolling_friction=0.0,
                   collision_group=1, collision_mask=0xFFFFFFFF):
        """Add many bodies at once; returns their ids (an int64 array, consecutive).

        The same as `add_body` called for each row in turn (the same tables to the bit), in
        a few numpy operations instead of tens of small ones a body: for scenes of thousands
        of bodies (the Blender add-on builds its worlds with it). `shapes` is a sequence of
        n shapes, `positions` (n, 3); every other argument is one value for all or one per
        body: `orientations` (4,) or (n, 4), `linear_velocity` (3,) or (n, 3), `kind`,
        `friction` ... a value or n of them. `mass` and `density` may mix per body: give one
        of them as a sequence with None where the other (or the default density) applies.
        A bad row raises ValueError naming the argument and the row; nothing is added then.
        """
        return self._add_bodies(list(shapes), positions, orientations, mass, density, kind,
                                friction, restitution, linear_velocity, angular_velocity,
                                linear_damping, angular_damping, rolling_friction,
                                collision_group, collision_mask)

    def _add_bodies(self, shapes, positions, orientations, mass, density, kind, friction,
                    restitution, linear_velocity, angular_velocity, linear_damping,
                    angular_damping, rolling_friction, collision_group, collision_mask,
                    one=False):
        """add_body and add_bodies: validate the rows, work out their mass properties and
        append them to the tables; returns their ids. `one`: add_body's single body, whose
        arguments are its values (not one per row), whose messages name no row and which
        returns its id; it takes the checks of one value (validate.vector, number ...) and
        appends plain rows (a tuple, a 1-d array) where a batch takes (n, k) arrays: a numpy
        operation on one row costs about what it costs on a thousand, and a single add paid
        four times its cost in them."""
        n = len(shapes)
        for i, shape in enumerate(shapes):
            if not isinstance(shape, Shape):
                raise ValueError(f"{'shape' if one else f'shapes[{i}]'} must be a Sphere, "
                                 f"Capsule, Cylinder, Box, ConvexHull, Compound, TriangleMesh "
                                 f"or Plane, got {shape!r}")
        kind_ids = [0] * n
        for i, k in enumerate([kind] if one else validate.row_list("kind", kind, n)):
            if k not in KIND_NAMES:
                raise ValueError(f"{_of('kind', i, one)} must be one of {sorted(KIND_NAMES)}, "
                                 f"got {k!r}")
            kind_ids[i] = KIND_NAMES[k]
            if kind_ids[i] != bodies_mod.STATIC and not shapes[i].dynamic_ok:
                raise ValueError(f"{_row(i, one)}{shapes[i]!r} can only be static: use "
                                 f"kind='static'")
        if one:
            pos = validate.vector("position", positions)
            q = validate.quaternion("orientation", orientations)
            v = validate.vector("linear_velocity", linear_velocity)
            w = validate.vector("angular_velocity", angular_velocity)
            e = validate.number("restitution", restitution, minimum=0.0)
            if e > 1.0:
                raise ValueError(f"restitution must be between 0 and 1, got {restitution!r}")
            mat = (validate.number("friction", friction, minimum=0.0), e,
                   validate.number("rolling_friction", rolling_friction, minimum=0.0))
            damp = (validate.number("linear_damping", linear_damping, minimum=0.0),
                    validate.number("angular_damping", angular_damping, minimum=0.0))
        else:
            pos = validate.rows("positions", positions, n, 3)
            q = validate.row_units("orientations", orientations, n, 4)
            v = validate.rows("linear_velocity", linear_velocity, n, 3)
            w = validate.rows("angular_velocity", angular_velocity, n, 3)
            mu = validate.rows_at_least("friction", friction, n, 0.0)
            e = validate.rows_at_least("restitution", restitution, n, 0.0)
            if (e > 1.0).any():
                i = int(np.argmax(e > 1.0))
                raise ValueError(f"restitution of row {i} must be between 0 and 1, got "
                                 f"{e[i]:g}")
            mat = np.stack([mu, e, validate.rows_at_least("rolling_friction", rolling_friction,
                                                          n, 0.0)], axis=1)
            damp = np.stack([validate.rows_at_least("linear_damping", linear_damping, n, 0.0),
                             validate.rows_at_least("angular_damping", angular_damping, n,
                                                    0.0)], axis=1)
        bits = [[0, 0]] if one else [[0, 0] for _ in range(n)]
        for column, (name, value) in enumerate((("collision_group", collision_group),
                                                ("collision_mask", collision_mask))):
            for i, x in enumerate([value] if one else validate.row_list(name, value, n)):
                if isinstance(x, bool) or not isinstance(x, (int, np.integer)) \
                        or not 0 <= int(x) < 2 ** 32:
                    raise ValueError(f"{_of(name, i, one)} must be an int of 32 bits "
                                     f"(0..0xFFFFFFFF), got {x!r}")
                bits[i][column] = int(x)
        masses = [mass] if one else validate.row_list("mass", mass, n)
        densities = [density] if one else validate.row_list("density", density, n)

        # mass properties, shape by shape (a few us each); kinematic bodies keep the mass
        # they would have, for set_kind(b, "dynamic")
        coms = [_NO_OFFSET] * n
        inertias = [_NO_INERTIA] * n
        inv_mass = [0.0] * n
        for i, shape in enumerate(shapes):
            m, rho = masses[i], densities[i]
            if m is not None and rho is not None:
                raise ValueError(f"{_row(i, one)}give either mass or density, not both")
            if not shape.dynamic_ok:
                continue
            volume, coms[i], unit_inertia = shape.mass_properties()
            if m is not None:
                m = validate.number(_of("mass", i, one), m, minimum=0.0, strict=True)
            else:
                m = (DEFAULT_DENSITY if rho is None else validate.number(
                    _of("density", i, one), rho, minimum=0.0, strict=True)) * volume * \
                    self.length_unit ** 3
            inertias[i] = unit_inertia * (m / volume)
            inv_mass[i] = 1.0 / m
        reach = _reach(shapes[0], coms[0]) if one else \
            [_reach(s, c) for s, c in zip(shapes, coms)]
        if one:             # inverse3, qmat: the arithmetic of inverses3, qmats on one row
            com, inertia = coms[0], inertias[0]
            dyn = np.concatenate([inv_mass[:1], vectors.inverse3(inertia).reshape(9)
                                  if inv_mass[0] else _NO_INERTIA.reshape(9),
                                  inertia.reshape(9)])
            centre = pos + np.einsum("ij,j->i", vectors.qmat(q), com) if com.any() else pos
            static = kind_ids[0] == bodies_mod.STATIC
            state = np.concatenate([centre, q, _NO_OFFSET if static else v,
                                    _NO_OFFSET if static else w])
            moved = dyn if kind_ids[0] == DYNAMIC else _NO_MASS
            kind_ids, bits = kind_ids[0], bits[0]
            com = -com
        else:
            com, inertia = np.array(coms).reshape(n, 3), np.array(inertias).reshape(n, 3, 3)
            dyn = np.zeros((n, 19))
            dyn[:, 0] = inv_mass
            movable = dyn[:, 0] != 0.0
            if movable.any():
                dyn[movable, 1:10] = vectors.inverses3(inertia[movable]).reshape(-1, 9)
            dyn[:, 10:19] = inertia.reshape(n, 9)
            kind_ids = np.array(kind_ids, dtype=np.int64)
            state = np.concatenate([pos, q, v, w], axis=1)
            state[kind_ids == bodies_mod.STATIC, VEL:] = 0.0
            shifted = com.any(axis=1)
            if shifted.any():
                state[shifted, POS:POS + 3] += np.einsum(
                    "nij,nj->ni", vectors.qmats(q[shifted]), com[shifted])
            moved = np.where((kind_ids == DYNAMIC)[:, None], dyn, 0.0)
            com = -com

        # a single add appends its row to each table, a batch its rows
        add = Table.append if one else Table.extend
        first = add(self._bs, state)
        if one:
            add(self._binv, moved[0])
            add(self._bil, moved[1:10])
            add(self._bib, moved[10:19])
        else:
            add(self._binv, moved[:, 0])
            add(self._bil, moved[:, 1:10])
            add(self._bib, moved[:, 10:19])
        add(self._bdyn, dyn)
        add(self._bdamp, damp)
        add(self._bkind, kind_ids)
        add(self._bmotion, kind_ids)
        add(self._breach, reach)
        for table in (self._bI, self._btimer, self._bisland, self._bfrozen, self._bsub,
                      self._ktarget, self._khas, self._bforce):
            table.extend_fill(n)
        add(self._bmat, mat)
        add(self._body_origin, com)
        add(self._bfilter, bits)
        self._shapes.extend(shapes)
        if (self._bmotion.view == ASLEEP).any():
            for b in range(first, first + n):
                self._wake_near(b)
        return first if one else np.arange(first, first + n, dtype=np.int64)

    def _body(self, name, value, allow_world=False):
        if value is None and allow_world:
            return -1
        n = self._bs.n
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) \
                or not 0 <= int(value) < n:
            valid = f"a body id from add_body (0..{n - 1})" if n else "a body id (no bodies yet)"
            if allow_world:
                valid += " or None for the static world"
            raise ValueError(f"{name} must be {valid}, got {value!r}")
        return int(value)

    def set_kinematic_target(self, body, position, orientation=(1.0, 0.0, 0.0, 0.0)):
        """Move a kinematic body to this pose (of its shape origin) over the next step."""
        b = self._body("body", body)
        if self._bkind.view[b] != KINEMATIC:
            raise ValueError(f"body {b} is not kinematic: create it with kind='kinematic'")
        q = validate.quaternion("orientation", orientation)
        pos = validate.vector("position", position)
        centre = pos - vectors.qmat(q) @ self._body_origin.view[b]
        self._ktarget.view[b] = np.concatenate([centre, q])
        self._khas.view[b] = True

    def set_kind(self, body, kind):
        """Switch a body between "dynamic" and "kinematic" between steps.

        Its velocities carry over, so a kinematic body that followed animated targets turns
        dynamic moving as the animation did. Turning dynamic uses the mass the body was
        created with (`mass` or `density`, default density 1000 kg/m^3, also for bodies
        created kinematic). Static bodies and static-only shapes cannot switch. Wakes the
        body's island.
        """
        b = self._body("body", body)
        if kind not in ("dynamic", "kinematic"):
            raise ValueError(f"kind must be 'dynamic' or 'kinematic', got {kind!r}")
        if self._bkind.view[b] == bodies_mod.STATIC:
            raise ValueError(f"body {b} is static and stays static: create it with "
                             f"kind='kinematic' to switch it later")
        kind_id = KIND_NAMES[kind]
        if self._bkind.view[b] == kind_id:
            return
        self._wake_bodies([b])          # its island loses or gains a body
        self._forget_factors()
        self._bkind.view[b] = kind_id
        self._bmotion.view[b] = kind_id
        dyn = self._bdyn.view[b]
        on = kind_id == DYNAMIC
        self._binv.view[b] = dyn[0] if on else 0.0
        self._bil.view[b] = dyn[1:10] if on else 0.0
        self._bib.view[b] = dyn[10:19] if on else 0.0
        self._bI.view[b] = 0.0
        self._khas.view[b] = False

    def kind(self, body):
        """"dynamic", "static" or "kinematic"."""
        return self.kind_name(self._bkind.view[self._body("body", body)])

    @staticmethod
    def kind_name(kind_id):
        return next(name for name, value in KIND_NAMES.items() if value == kind_id)

    def shape_origin(self, body):
        """World position of the body's shape origin (equals its position for symmetric shapes)."""
        b = self._body("body", body)
        s = self._bs.view[b]
        return s[0:3] + vectors.qmat(s[3:7]) @ self._body_origin.view[b]

    # --- joints -------------------------------------------------------------------------

    def _joint(self, value):
        n = self._jt.n
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) \
                or not 0 <= int(value) < n:
            raise ValueError(f"joint must be a joint id from an add_* call (0..{n - 1}), "
                             f"got {value!r}")
        return int(value)

    def _new_joint(self, kind, a, b, anchor_a, anchor_b, frame, collide_connected,
                   break_force, break_torque, more=(-1, -1)):
        """The joint's row in the tables (`_add_joints` of one); `more`: its bodies C and D
        (checked ids, -1 for none), for joints over three or four bodies."""
        ia = self._body("a", a, allow_world=True)
        ib = self._body("b", b, allow_world=True)
        return self._add_joints(kind, ia, ib, anchor_a, anchor_b, frame, collide_connected,
                                break_force, break_torque, more=more, one=True)

    def _body_ids(self, name, values, n):
        """Checked body ids of a batch (None: the static world, -1)."""
        count = self._bs.n
        ids = np.empty(n, dtype=np.int64)
        for i, value in enumerate(validate.row_list(name, values, n)):
            if value is None:
                ids[i] = -1
            elif isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) \
                    or not 0 <= int(value) < count:
                raise ValueError(f"{name} of row {i} must be a body id from add_body "
                                 f"(0..{count - 1}) or None for the static world, got {value!r}")
            else:
                ids[i] = value
        return ids

    def _new_joints(self, kind, a, b, anchors, frames, collide_connected, break_force,
                    break_torque, params=()):
        """`_add_joints` for a batch of n joints of one kind whose anchors coincide."""
        return self._add_joints(kind, a, b, anchors, anchors, frames, collide_connected,
                                break_force, break_torque, params)

    def _add_joints(self, kind, a, b, anchor_a, anchor_b, frame, collide_connected,
                    break_force, break_torque, params=(), more=(-1, -1), one=False):
        """Every add_* of joints: n joints of one kind into the tables, their anchors and
        frames taken into their bodies' frames; returns their ids. Checked body ids `a`,
        `b` ((n,) int64, -1 the world); anchors on A and on B (n, 3), frames (n, 4);
        `params`: (column, (n,) values) to set. `one`: a single add's joint (ints, a point,
        a quaternion; `more` its bodies C and D), whose messages name no row and whose
        arithmetic runs on plain floats (numpy costs microseconds an operation on three
        numbers; `_new_joints`' numpy does the same arithmetic row by row); returns its
        id."""
        n = 1 if one else len(a)
        if a == b if one else (a == b).any():
            i = 0 if one else int(np.argmax(a == b))
            body = a if one else a[i]
            what = "the static world" if body < 0 else f"body {body}"
            raise ValueError(f"{'' if one else f'row {i}: '}a joint needs two different "
                             f"bodies, but a and b are both {what}")
        if one:
            bf = validate.optional_number("break_force", break_force, minimum=0.0,
                                          strict=True) or 0.0
            bt = validate.optional_number("break_torque", break_torque, minimum=0.0,
                                          strict=True) or 0.0
            jf = np.zeros(L.JF_WIDTH)
            for col_anchor, col_frame, body, anchor in ((L.ANCHOR_A, L.FRAME_A, a, anchor_a),
                                                         (L.ANCHOR_B, L.FRAME_B, b, anchor_b)):
                if body < 0:
                    x, q = (0.0, 0.0, 0.0), (1.0, 0.0, 0.0, 0.0)
                else:
                    pose = self._bs.data[body, 0:7].tolist()
                    x, q = pose[0:3], pose[3:7]
                # the anchor in the body's frame, R(q)^T (anchor - x), and the frame q* frame
                r = vectors.qmat_rows(q)
                d = [p - c for p, c in zip(vectors.floats(anchor), x)]
                jf[col_anchor:col_anchor + 3] = [r[0][k] * d[0] + r[1][k] * d[1] +
                                                 r[2][k] * d[2] for k in range(3)]
                jf[col_frame:col_frame + 4] = vectors.qmul((q[0], -q[1], -q[2], -q[3]), frame)
            jf[L.BREAK_FORCE] = bf
            jf[L.BREAK_TORQUE] = bt
            flags = L.ENABLED | (L.COLLIDE_CONNECTED if collide_connected else 0)
            jt = [(kind, a, b, flags, more[0], more[1])]
            jf = [jf]
            breakable = int(bool(bf or bt))
            many = int(more[0] >= 0 or more[1] >= 0)
            ends = (a, b) + tuple(more)
        else:
            breaks = []
            for name, value in (("break_force", break_force), ("break_torque", break_torque)):
                values = [0.0 if x is None else x for x in validate.row_list(name, value, n)]
                breaks.append(validate.rows_at_least(name, values, n, 0.0))
            collide = np.asarray(validate.row_list("collide_connected", collide_connected, n),
                                 dtype=bool)
            jf = np.zeros((n, L.JF_WIDTH))
            pose = np.zeros((n, 7))
            for col_anchor, col_frame, body, anchors in ((L.ANCHOR_A, L.FRAME_A, a, anchor_a),
                                                          (L.ANCHOR_B, L.FRAME_B, b, anchor_b)):
                real = body >= 0
                pose[:] = (0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0)
                pose[real] = self._bs.data[body[real], 0:7]
                r = vectors.qmats(pose[:, 3:7])
                d = anchors - pose[:, 0:3]
                for k in range(3):
                    jf[:, col_anchor + k] = r[:, 0, k] * d[:, 0] + r[:, 1, k] * d[:, 1] + \
                        r[:, 2, k] * d[:, 2]
                conj = pose[:, 3:7] * (1.0, -1.0, -1.0, -1.0)
                jf[:, col_frame:col_frame + 4] = vectors.qmuls(conj, frame)
            jf[:, L.BREAK_FORCE], jf[:, L.BREAK_TORQUE] = breaks
            for col, values in params:
                jf[:, col] = values
            flags = np.where(collide, L.ENABLED | L.COLLIDE_CONNECTED, L.ENABLED)
            jt = np.stack([np.full(n, kind), a, b, flags, np.full(n, -1), np.full(n, -1)],
                          axis=1)
            breakable = int(np.count_nonzero((breaks[0] > 0.0) | (breaks[1] > 0.0)))
            many = 0
            ends = np.concatenate([a, b])
            ends = ends[ends >= 0]
        first = self._jt.extend(jt)
        self._jf.extend(jf)
        self._jacc.extend_fill(n)
        self._jimp.extend_fill(n)
        self._breakable += breakable
        self._many_body_joints += many
        if one:
            self._wake_bodies(ends)
        else:
            self._btimer.view[ends] = 0.0
            if (self._bmotion.view[ends] == ASLEEP).any():
                self._wake_bodies(ends)
        return first if one else np.arange(first, first + n, dtype=np.int64)

    def _batch_range(self, lower, upper, n, lo_name, hi_name):
        """(lower, upper, flags) of a batch of ranges: None or inf is no limit on that side."""
        bounds, flags = [], np.zeros(n, dtype=np.int64)
        for name, value, flag in ((lo_name, lower, L.HAS_LOWER), (hi_name, upper, L.HAS_UPPER)):
            values = validate.row_list(name, value, n)
            given = np.array([x is not None for x in values], dtype=bool)
            arr = np.array([0.0 if x is None else x for x in values], dtype=np.float64)
            if np.isnan(arr).any():
                raise ValueError(f"{name} of row {int(np.argmax(np.isnan(arr)))} must be a "
                                 f"number or None")
            has = given & np.isfinite(arr)
            flags |= np.where(has, flag, 0)
            bounds.append(np.where(has, arr, 0.0))
        lo, hi = bounds
        crossed = (flags & L.HAS_LOWER).astype(bool) & (flags & L.HAS_UPPER).astype(bool) & \
            (lo > hi)
        if crossed.any():
            i = int(np.argmax(crossed))
            raise ValueError(f"{lo_name} of row {i} ({lo[i]:g}) must not be greater than "
                             f"{hi_name} ({hi[i]:g})")
        return lo, hi, flags

    def add_ball_sockets(self, a, b, anchors, collide_connected=False, break_force=None,
                         break_torque=None):
        """`add_ball_socket` for many joints at once; returns their ids (consecutive). `a`
        and `b` are n body ids (None for the world), `anchors` (n, 3); the other arguments
        one value for all or one per joint (None for no break). What `add_ball_socket`
        row by row builds, to the bit; a bad row adds nothing."""
        n = validate.count(a)
        ia, ib = self._body_ids("a", a, n), self._body_ids("b", b, n)
        p = validate.rows("anchors", anchors, n, 3)
        frames = np.tile((1.0, 0.0, 0.0, 0.0), (n, 1))
        return self._new_joints(L.BALL, ia, ib, p, frames, collide_connected, break_force,
                                break_torque)

    def add_hinges(self, a, b, anchors, axes, lower=None, upper=None, collide_connected=False,
                   break_force=None, break_torque=None):
        """`add_hinge` (without motor or spring) for many joints at once; returns their ids.
        `a`, `b`: n body ids (None for the world); `anchors`, `axes` (n, 3) or one for all;
        `lower`, `upper`: one value or one per joint, None for no limit on that side. What
        `add_hinge` row by row builds, to the bit; a bad row adds nothing."""
        n = validate.count(a)
        ia, ib = self._body_ids("a", a, n), self._body_ids("b", b, n)
        p = validate.rows("anchors", anchors, n, 3)
        frames = vectors.frames_from_axes("axes", validate.row_units("axes", axes, n, 3))
        lo, hi, flags = self._batch_range(lower, upper, n, "lower", "upper")
        ids = self._new_joints(L.HINGE, ia, ib, p, frames, collide_connected, break_force,
                               break_torque, ((L.LOWER, lo), (L.UPPER, hi)))
        self._set_flags(ids, on=flags)
        return ids

    def add_ragdolls(self, a, b, anchors, twist_axes, swing1=math.radians(45.0),
                     swing2=math.radians(45.0), twist_lower=math.radians(-20.0),
                     twist_upper=math.radians(20.0), swing_axes=None, collide_connected=False,
                     break_force=None, break_torque=None):
        """`add_ragdoll` for many joints at once; returns their ids (consecutive). `a`, `b`:
        n body ids (None for the world); `anchors`, `twist_axes`, `swing_axes` (n, 3) or one
        for all (swing_axes None: a direction perpendicular to each twist axis); the angles
        one value for all or one per joint. What `add_ragdoll` row by row builds, to the
        bit; a bad row adds nothing."""
        n = validate.count(a)
        ia, ib = self._body_ids("a", a, n), self._body_ids("b", b, n)
        p = validate.rows("anchors", anchors, n, 3)
        t = validate.row_units("twist_axes", twist_axes, n, 3)
        second = None if swing_axes is None else validate.row_units("swing_axes", swing_axes, n, 3)
        frames = vectors.frames_from_axes("twist_axes", t, second, "swing_axes")
        swings = []
        for name, value in (("swing1", swing1), ("swing2", swing2)):
            arr = validate.rows_at_least(name, value, n, 0.0, strict=True)
            if (arr >= math.pi).any():
                i = int(np.argmax(arr >= math.pi))
                raise ValueError(f"{name} of row {i} must be below pi (180 degrees), got "
                                 f"{arr[i]:g}")
            swings.append(arr)
        lo = validate.rows("twist_lower", twist_lower, n)
        hi = validate.rows("twist_upper", twist_upper, n)
        if (lo > hi).any():
            i = int(np.argmax(lo > hi))
            raise ValueError(f"twist_lower of row {i} ({lo[i]:g}) must not be greater than "
                             f"twist_upper ({hi[i]:g})")
        return self._new_joints(L.RAGDOLL, ia, ib, p, frames, collide_connected, break_force,
                                break_torque, ((L.SWING1, swings[0]), (L.SWING2, swings[1]),
                                               (L.TWIST_LOWER, lo), (L.TWIST_UPPER, hi)))

    def _set_range(self, j, lower, upper, lo_name, hi_name, lo_col=L.LOWER, hi_col=L.UPPER):
        lo = validate.optional_number(lo_name, lower, allow_inf=True)
        hi = validate.optional_number(hi_name, upper, allow_inf=True)
        if lo is not None and hi is not None and lo > hi:
            raise ValueError(f"{lo_name} ({lo:g}) must not be greater than {hi_name} ({hi:g})")
        flags = self._jt.data[j, L.FLAGS]
        if lo is not None and math.isfinite(lo):
            self._jf.data[j, lo_col] = lo
            flags |= L.HAS_LOWER
        if hi is not None and math.isfinite(hi):
            self._jf.data[j, hi_col] = hi
            flags |= L.HAS_UPPER
        self._set_flags(j, on=flags)

    def _set_motor(self, j, speed, max_value, max_name):
        if speed is None:
            return
        self._jf.data[j, L.MOTOR_SPEED] = validate.number("motor_speed", speed)
        self._jf.data[j, L.MOTOR_MAX] = validate.number(max_name, max_value, minimum=0.0)
        self._set_flags(j, on=L.HAS_MOTOR)

    def _set_spring(self, j, hertz, damping, stiffness, damper, rest=0.0):
        """A spring as (spring_hz, spring_damping) or as (spring_stiffness, spring_damper),
        never both. Either way its mass is the joint's free coordinate's with the joint's
        other rows held (primitives/spring.py), so hertz is what the rig does as hung."""
        hz = validate.number("spring_hz", hertz, minimum=0.0)
        zeta = validate.number("spring_damping", damping, minimum=0.0)
        if stiffness is None and damper is None:
            if hz > 0.0:
                self._jf.data[j, [L.SPRING_HZ, L.SPRING_DAMPING, L.REST]] = (hz, zeta, rest)
                self._set_flags(j, on=L.HAS_SPRING)
            return
        if hz != 0.0 or zeta != 0.0:
            raise ValueError("give a spring either as spring_hz and spring_damping (frequency "
                             "and damping ratio) or as spring_stiffness and spring_damper, "
                             "not both")
        k = validate.number("spring_stiffness", 0.0 if stiffness is None else stiffness, minimum=0.0)
        c = validate.number("spring_damper", 0.0 if damper is None else damper, minimum=0.0)
        if k > 0.0 or c > 0.0:
            self._jf.data[j, [L.SPRING_HZ, L.SPRING_DAMPING, L.REST]] = (k, c, rest)
            self._set_flags(j, on=L.HAS_SPRING | L.SPRING_STIFFNESS)

    def add_ball_socket(self, a, b, anchor, collide_connected=False, break_force=None,
                        break_torque=None):
        """Anchors coincide; all three rotations free."""
        p = validate.vector("anchor", anchor)
        return self._new_joint(L.BALL, a, b, p, p, np.array([1.0, 0, 0, 0]), collide_connected,
                               break_force, break_torque)

    @atomic_joint
    def add_hinge(self, a, b, anchor, axis, lower=None, upper=None, motor_speed=None,
                  max_motor_torque=0.0, spring_hz=0.0, spring_damping=0.0,
                  collide_connected=False, break_force=None, break_torque=None,
                  spring_stiffness=None, spring_damper=None):
        """One rotation about `axis` through `anchor`. Angles (radians) are B relative to A,
        right-handed about `axis`, 0 at creation; the spring pulls toward 0.

        The spring is (spring_hz, spring_damping): the frequency the hinge swings at as hung
        (a door hinged at its edge included) and the damping ratio; or (spring_stiffness,
        spring_damper) in N m/rad and N m s/rad, as in Blender's rigid body constraints."""
        p = validate.vector("anchor", anchor)
        frame = vectors.frame_from_axis(validate.direction("axis", axis))
        j = self._new_joint(L.HINGE, a, b, p, p, frame, collide_connected, break_force,
                            break_torque)
        self._set_range(j, lower, upper, "lower", "upper")
        self._set_motor(j, motor_speed, max_motor_torque, "max_motor_torque")
        self._set_spring(j, spring_hz, spring_damping, spring_stiffness, spring_damper)
        return j

    @atomic_joint
    def add_prismatic(self, a, b, anchor, axis, lower=None, upper=None, motor_speed=None,
                      max_motor_force=0.0, spring_hz=0.0, spring_damping=0.0,
                      collide_connected=False, break_force=None, break_torque=None,
                      spring_stiffness=None, spring_damper=None):
        """One translation along `axis`; displacement (m) of B's anchor from A's, 0 at creation.
        The spring pulls toward 0: (spring_hz, spring_damping) as for add_hinge, or
        (spring_stiffness, spring_damper) in N/m and N s/m."""
        p = validate.vector("anchor", anchor)
        frame = vectors.frame_from_axis(validate.direction("axis", axis))
        j = self._new_joint(L.PRISMATIC, a, b, p, p, frame, collide_connected, break_force,
                            break_torque)
        self._set_range(j, lower, upper, "lower", "upper")
        self._set_motor(j, motor_speed, max_motor_force, "max_motor_force")
        self._set_spring(j, spring_hz, spring_damping, spring_stiffness, spring_damper)
        return j

    def add_fixed(self, a, b, anchor, collide_connected=False, break_force=None,
                  break_torque=None):
        """Weld: no relative motion."""
        p = validate.vector("anchor", anchor)
        return self._new_joint(L.FIXED, a, b, p, p, np.array([1.0, 0, 0, 0]), collide_connected,
                               break_force, break_torque)

    @atomic_joint
    def add_distance(self, a, b, anchor_a, anchor_b, min_length=None, max_length=None,
                     spring_hz=0.0, spring_damping=0.0, rest_length=None,
                     collide_connected=False, break_force=None, break_torque=None,
                     spring_stiffness=None, spring_damper=None):
        """A rigid rod at the current distance when both lengths are None, a [min, max]
        range otherwise; a spring (spring_hz > 0, or spring_stiffness / spring_damper in N/m
        and N s/m) pulls toward `rest_length` (default: the distance at creation)."""
        pa = validate.vector("anchor_a", anchor_a)
        pb = validate.vector("anchor_b", anchor_b)
        d = float(np.linalg.norm(pb - pa))
        j = self._new_joint(L.DISTANCE, a, b, pa, pb, np.array([1.0, 0, 0, 0]),
                            collide_connected, break_force, break_torque)
        for name, value in (("min_length", min_length), ("max_length", max_length)):
            validate.optional_number(name, value, minimum=0.0)
        self._set_range(j, min_length, max_length, "min_length", "max_length")
        self._jf.data[j, L.LENGTH] = d
        rest = d if rest_length is None else validate.number("rest_length", rest_length, minimum=0.0)
        self._set_spring(j, spring_hz, spring_damping, spring_stiffness, spring_damper, rest)
        if not self._jt.data[j, L.FLAGS] & (L.HAS_LOWER | L.HAS_UPPER | L.HAS_SPRING) \
                and d < 1e-9:
            raise ValueError("a rigid distance joint needs anchor_a and anchor_b apart: "
                             "use add_ball_socket for coincident anchors")
        return j

    def add_rope(self, a, b, anchor_a, anchor_b, length, collide_connected=False,
                 break_force=None, break_torque=None):
        """Anchors at most `length` apart; slack below."""
        pa = validate.vector("anchor_a", anchor_a)
        pb = validate.vector("anchor_b", anchor_b)
        n = validate.number("length", length, minimum=0.0, strict=True)
        j = self._new_joint(L.ROPE, a, b, pa, pb, np.array([1.0, 0, 0, 0]), collide_connected,
                            break_force, break_torque)
        self._jf.data[j, L.LENGTH] = n
        return j

    def add_ragdoll(self, a, b, anchor, twist_axis, swing1=math.radians(45.0),
                    swing2=math.radians(45.0), twist_lower=math.radians(-20.0),
                    twist_upper=math.radians(20.0), swing_axis=None, collide_connected=False,
                    break_force=None, break_torque=None):
        """Ball-socket with an elliptical swing cone about `twist_axis` and a twist range.

        swing1 is the cone's half-angle for swinging about `swing_axis` (default: any
        direction perpendicular to twist_axis), swing2 about the third axis
        twist_axis x swing_axis. Twist is B's spin about the bone relative to A.
        """
        p = validate.vector("anchor", anchor)
        t = validate.direction("twist_axis", twist_axis)
        second = None if swing_axis is None else validate.direction("swing_axis", swing_axis)
        frame = vectors.frame_from_axis(t, second)
        s1 = validate.number("swing1", swing1, minimum=0.0, strict=True)
        s2 = validate.number("swing2", swing2, minimum=0.0, strict=True)
        for name, s in (("swing1", s1), ("swing2", s2)):
            if s >= math.pi:
                raise ValueError(f"{name} must be below pi (180 degrees), got {s:g}")
        lo = validate.number("twist_lower", twist_lower)
        hi = validate.number("twist_upper", twist_upper)
        if lo > hi:
            raise ValueError(f"twist_lower ({lo:g}) must not be greater than twist_upper ({hi:g})")
        j = self._new_joint(L.RAGDOLL, a, b, p, p, frame, collide_connected, break_force,
                            break_torque)
        self._jf.data[j, [L.SWING1, L.SWING2, L.TWIST_LOWER, L.TWIST_UPPER]] = (s1, s2, lo, hi)
        return j

    @atomic_joint
    def add_angular_motor(self, a, b, axis, speed, max_torque, ratio=None,
                          collide_connected=False, break_force=None, break_torque=None):
        """Drive (wB - ratio wA) . axis toward `speed` (rad/s) with at most `max_torque`
        (N m); ratio None is 1, the relative spin (Nape's MotorJoint)."""
        rho = 1.0 if ratio is None else self._ratio(ratio)
        frame = vectors.frame_from_axis(validate.direction("axis", axis))
        ia = self._body("a", a, allow_world=True)
        anchor = self._bs.view[ia, 0:3] if ia >= 0 else np.zeros(3)
        j = self._new_joint(L.ANGULAR_MOTOR, a, b, anchor, anchor, frame, collide_connected,
                            break_force, break_torque)
        self._set_motor(j, speed, max_torque, "max_torque")
        self._jf.data[j, L.RATIO] = rho
        return j

    def add_pin(self, body, point, orientation=None, hertz=0.0, damping_ratio=1.0,
                max_force=None, max_torque=None):
        """Pin the body's point now at `point` (world) to a target that starts there and
        moves where `set_pin_target` puts it; returns a joint id (joints/pin.py).

        orientation  None: the point only, the body turns freely about it. A quaternion
                     (w, x, y, z): the target's orientation now; the body then keeps its
                     orientation relative to the target's, turning as the target turns.
        hertz        0: rigid (the pinned point stays on the target). Above 0: the point is
                     pulled by a spring-damper of that frequency and `damping_ratio` (1:
                     critical) over the point's effective mass: a body pinned at its centre
                     of mass follows the target as a mass on such a spring.
        max_force    the most force (N) the pin pulls with, in any direction (None or 0:
                     no limit); `max_torque` (N m) the same for the orientation.

        Between the frames the target moves in a straight line (and on the shortest arc)
        from where it was to where it is set, so a target set every frame is followed
        smoothly. `joint_impulse` reads the pull back (linear: on the body)."""
        b = self._body("body", body)
        p = validate.vector("point", point)
        frame = np.array([1.0, 0.0, 0.0, 0.0]) if orientation is None else \
            validate.quaternion("orientation", orientation)
        settings = self._pin_settings(hertz, damping_ratio, max_force, max_torque)
        j = self._new_joint(L.PIN, None, b, p, p, frame, False, None, None)
        jf = self._jf.data[j]
        jf[L.PIN_START:L.PIN_START + 7] = jf[L.PIN_END:L.PIN_END + 7] = \
            jf[L.ANCHOR_A:L.ANCHOR_A + 7]
        jf[[L.PIN_HZ, L.PIN_DAMPING, L.PIN_MAX_FORCE, L.PIN_MAX_TORQUE]] = settings
        if orientation is not None:
            self._set_flags(j, on=L.PIN_ORIENTATION)
        self._pins = np.append(self._pins, j)
        return j

    @staticmethod
    def _pin_settings(hertz, damping_ratio, max_force, max_torque):
        return (validate.number("hertz", hertz, minimum=0.0),
                validate.number("damping_ratio", damping_ratio, minimum=0.0),
                validate.number("max_force", max_force or 0.0, minimum=0.0),
                validate.number("max_torque", max_torque or 0.0, minimum=0.0))

    def _pin(self, pin):
        j = self._joint(pin)
        if self._jt.data[j, L.TYPE] != L.PIN:
            raise ValueError(f"joint {j} is a {L.TYPE_NAMES[self._jt.data[j, L.TYPE]]}, not a "
                             "pin: give a joint id from add_pin")
        return j

    def set_pin_target(self, pin, point, orientation=None):
        """Where the pin's target is at the end of the next `step`: `point` (world) and, for
        a pin made with an orientation, `orientation` (w, x, y, z; None keeps the last).
        During the step the target moves there from where it was in a straight line (the
        orientation on the shortest arc), and the pinned body with it. A change wakes the
        body."""
        j = self._pin(pin)
        p = validate.vector("point", point)
        before = self._joint_settings(j)
        jf = self._jf.data[j]
        jf[L.PIN_END:L.PIN_END + 3] = p
        if orientation is not None:
            if not self._jt.data[j, L.FLAGS] & L.PIN_ORIENTATION:
                raise ValueError(f"pin {j} holds no orientation: give add_pin an orientation "
                                 "to pin one")
            jf[L.PIN_END + 3:L.PIN_END + 7] = validate.quaternion("orientation", orientation)
        self._wake_if_changed(j, before)

    def set_pin(self, pin, enabled=None, hertz=None, damping_ratio=None, max_force=None,
                max_torque=None):
        """Change a pin between steps: switch it off (`enabled=False`: the body is free) and
        on again, or change its spring and limits (None keeps a setting; as in `add_pin`, 0
        force or torque is no limit). A pin switched on holds the target where it was last
        set. A change wakes the body."""
        j = self._pin(pin)
        jf = self._jf.data[j]
        now = jf[[L.PIN_HZ, L.PIN_DAMPING, L.PIN_MAX_FORCE, L.PIN_MAX_TORQUE]]
        settings = self._pin_settings(*(now[k] if x is None else x for k, x in enumerate(
            (hertz, damping_ratio, max_force, max_torque))))
        before = self._joint_settings(j)
        jf[[L.PIN_HZ, L.PIN_DAMPING, L.PIN_MAX_FORCE, L.PIN_MAX_TORQUE]] = settings
        if enabled is not None:
            flags = self._jt.data[j, L.FLAGS]
            if bool(enabled) != bool(flags & L.ENABLED):
                self._set_flags(j, on=L.ENABLED if enabled else 0,
                                off=0 if enabled else L.ENABLED)
                self._jacc.data[j] = 0.0
                if enabled:     # from the target as last set, not from where it was let go
                    jf[L.ANCHOR_A:L.ANCHOR_A + 7] = jf[L.PIN_END:L.PIN_END + 7]
        self._wake_if_changed(j, before)

    def set_motor(self, joint, speed, max_value=None):
        """Change a joint's motor speed (and cap) between steps; a change wakes the joint's
        bodies."""
        j = self._joint(joint)
        before = self._joint_settings(j)
        self._jf.data[j, L.MOTOR_SPEED] = validate.number("speed", speed)
        if max_value is not None:
            self._jf.data[j, L.MOTOR_MAX] = validate.number("max_value", max_value, minimum=0.0)
        self._set_flags(j, on=L.HAS_MOTOR)
        self._wake_if_changed(j, before)

    def set_drive(self, joint, target, hertz, damping_ratio=1.0, max_torque=None):
        """Pull a ball-socket or ragdoll joint toward a relative orientation (pose matching),
        or a hinge toward an angle.

        Ball-socket and ragdoll: `target` is the wanted orientation of body B in body A's
        frame, qA^-1 qB, as a quaternion (w, x, y, z) (for a joint to the world, the world
        orientation of the body). Three soft angular rows pull toward it like a
        spring-damper of `hertz` and `damping_ratio` (0 Hz switches the drive off), each
        capped at `max_torque` N m (None: no cap) about its world axis.

        Hinge: `target` is the wanted hinge angle in radians (as the hinge counts it: B
        relative to A, right-handed about the axis, 0 at creation); one soft row pulls the
        angle toward it the short way round, its torque about the axis capped at
        `max_torque`. It is a second spring beside the hinge's own (which pulls toward 0).

        `hertz` is the frequency the joint swings at as hung (its mass is the inertia about
        the anchor, not about the centre of mass). The joint's limits still apply. Call it
        every frame to follow an animation. A change wakes the joint's bodies.
        """
        j = self._joint(joint)
        kind = self._jt.data[j, L.TYPE]
        if kind not in (L.BALL, L.RAGDOLL, L.HINGE):
            raise ValueError(f"joint {j} is a {L.TYPE_NAMES[kind]}: drives work on "
                             f"ball_socket, ragdoll and hinge joints")
        if kind == L.HINGE:
            if np.ndim(target) != 0:
                raise ValueError(f"target of a hinge drive must be an angle in radians, got "
                                 f"{target!r}")
            t = validate.number("target", target)
        else:
            t = validate.quaternion("target", target)
        hz = validate.number("hertz", hertz, minimum=0.0)
        zeta = validate.number("damping_ratio", damping_ratio, minimum=0.0)
        cap = math.inf if max_torque is None else \
            validate.number("max_torque", max_torque, minimum=0.0, allow_inf=True)
        before = self._joint_settings(j)
        if hz == 0.0:
            self._set_flags(j, off=L.HAS_DRIVE)
        else:
            jf = self._jf.data[j]
            if kind == L.HINGE:
                jf[L.DRIVE_TARGET] = t
            else:
                frame_a, frame_b = jf[L.FRAME_A:L.FRAME_A + 4], jf[L.FRAME_B:L.FRAME_B + 4]
                # at the target qB = qA t, so B's frame qB FB = (qA FA) (FA^-1 t FB)
                jf[L.DRIVE_TARGET:L.DRIVE_TARGET + 4] = vectors.qmul(vectors.qmul(vectors.qconj(frame_a), t),
                                                              frame_b)
            jf[L.DRIVE_HZ] = hz
            jf[L.DRIVE_DAMPING] = zeta
            jf[L.DRIVE_MAX] = cap
            self._set_flags(j, on=L.HAS_DRIVE)
        self._wake_if_changed(j, before)

    def set_spring(self, joint, hertz, damping_ratio=1.0):
        """Change the spring of a hinge, prismatic or distance joint made with one (its
        `spring_hz`, `spring_damping`), between steps: a drive whose strength changes over
        time. A change wakes the joint's bodies."""
        j = self._joint(joint)
        if not self._jt.data[j, L.FLAGS] & L.HAS_SPRING or \
                self._jt.data[j, L.FLAGS] & L.SPRING_STIFFNESS:
            raise ValueError(f"joint {j} has no spring given as spring_hz: create it with "
                             "spring_hz > 0")
        hz = validate.number("hertz", hertz, minimum=0.0, strict=True)
        zeta = validate.number("damping_ratio", damping_ratio, minimum=0.0)
        before = self._joint_settings(j)
        self._jf.data[j, [L.SPRING_HZ, L.SPRING_DAMPING]] = (hz, zeta)
        self._wake_if_changed(j, before)

    def remove_joint(self, joint):
        """Disable the joint for good (its id stays valid; queries report it removed).
        Wakes the joint's bodies."""
        j = self._joint(joint)
        self._wake_joint(j)
        self._set_flags(j, off=L.ENABLED)
        self._jacc.data[j] = 0.0

    def ignore_collisions(self, a, b):
        """Bodies a and b never collide with each other (each still collides with the rest,
        as its group and mask say): a pair no group bits can single out, such as a bone
        chain's capsules and the ragdoll part the chain hangs from. For good; wakes both."""
        ia, ib = self._body("a", a), self._body("b", b)
        if ia == ib:
            raise ValueError(f"ignore_collisions needs two bodies, got body {ia} twice")
        self._ignored = np.concatenate([self._ignored, [[min(ia, ib), max(ia, ib)]]])
        self._joint_pairs_key = None
        self._wake_bodies(np.array([ia, ib]))

    def _set_flags(self, j, on=0, off=0):
        """Set the flags `on` and clear the flags `off` of joint j (or an array of joints)."""
        jt = self._jt
        jt.data[j, L.FLAGS] = (jt.data[j, L.FLAGS] | on) & ~off
        jt.touch()

    def _wake_joint(self, j):
        self._forget_factors()
        self._wake_bodies(self._jt.data[j, [L.BODY_A, L.BODY_B, L.BODY_C, L.BODY_D]])

    def _joint_settings(self, j):
        return self._jt.data[j, L.FLAGS], self._jf.data[j].copy()

    def _wake_if_changed(self, j, before):
        """Setting a motor or drive every frame to the same value lets its bodies sleep."""
        flags, params = before
        if self._jt.data[j, L.FLAGS] != flags or not np.array_equal(self._jf.data[j], params):
            self._wake_joint(j)

    def joint_anchors(self):
        """(n, 2, 3): where each joint's anchors on body A and on body B are in the world at
        the current poses (an anchor on the world, body None, is where it was given). The
        two coincide for a joint that holds, unless its anchors were given apart (distance,
        rope, pulley)."""
        jt, jf, bs = self._jt.view, self._jf.view, self._bs.view
        out = np.empty((len(jt), 2, 3))
        for side, (body_col, col) in enumerate(((L.BODY_A, L.ANCHOR_A),
                                                (L.BODY_B, L.ANCHOR_B))):
            ids = jt[:, body_col]
            local = jf[:, col:col + 3]
            real = ids >= 0
            out[:, side] = local
            if real.any():
                pose = bs[ids[real]]
                out[real, side] = pose[:, 0:3] + np.einsum(
                    "nij,nj->ni", vectors.qmats(pose[:, 3:7]), local[real])
        return out

    def joint_broken(self, joint):
        return bool(self._jt.data[self._joint(joint), L.FLAGS] & L.BROKEN)

    def joint_impulse(self, joint):
        """(linear (3,), angular (3,)) constraint impulse the joint applied to body B during
        the last step (angular about the anchor); divide by the step's dt for force/torque."""
        row = self._jimp.data[self._joint(joint)]
        return row[0:3].copy(), row[3:6].copy()

    # --- stepping and state -----------------------------------------------------------

    def _row_storage(self):
        """The joints' rows (rows.py), grown with the joints; the same views while the joint
        count is."""
        count = max(self._jt.n, 1) * L.MAX_ROWS
        if self._rows is None or len(self._rows[0]) < count:
            cap = max(count, 2 * (0 if self._rows is None else len(self._rows[0])))
            self._rows = new_rows(cap)
            self._row_views = None
        if self._row_views is None or len(self._row_views[0]) != count:
            self._row_views = tuple(r[:count] for r in self._rows)
        return self._row_views

    def _keep(self):
        """(fpose, fkey, fpat, ffac): what each island keeps of its plan and factor from one
        frame to the next (direct.py `keep_islands`; per body its pose at the factoring, per
        joint row the island's key, the row's place and pattern, its row of the factor).
        Grown with the bodies and joints, keeping what was kept."""
        nb, nr = self._bs.n, max(self._jt.n, 1) * L.MAX_ROWS
        kept = self._kept
        if kept is None or len(kept[0]) != nb or len(kept[1]) != nr:
            new = (np.zeros((nb, 16)), np.zeros(nr, dtype=np.int64),
                   np.zeros((nr, KEEP_WIDTH + 5), dtype=np.int32),
                   np.zeros((nr, KEEP_WIDTH + 1)))
            if kept is not None:
                for a, b in zip(new, kept):
                    k = min(len(a), len(b))
                    a[:k] = b[:k]
            self._kept = kept = new
        return kept

    def _forget_factors(self):
        """A joint's settings or a body's kind changed between steps: K may have changed
        without the bodies moving, so every island plans and factors afresh."""
        if self._kept is not None:
            self._kept[1][:] = 0

    def _kernel_args(self):
        B = (self._bs.view, self._binv.view, self._bil.view, self._bib.view, self._bI.view,
             self._bdamp.view, self._bmotion.view)
        acc = self._jacc.view.reshape(-1)
        if acc.size == 0:
            acc = np.zeros(L.MAX_ROWS)
        J = (self._jt.view, self._jf.view, acc, self._jimp.view, self._jpts.view)
        K = (self._ktarget.view, self._khas.view)
        return B, J, self._row_storage(), K

    def _wake_disturbed(self):
        wake_disturbed(self._bs.view, self._bmotion.view, self._bisland.view,
                       self._btimer.view, self._bfrozen.view, self._khas.view,
                       self._jt.view, self._marks())

    def _fall_asleep(self, dt, C):
        """sleep.fall_asleep when the world sleeps; then refuse a state the step made
        non-finite (one kernel call, sleep.end_frame)."""
        bs = self._bs.view
        if end_frame(self._sleeping, bs, self._bmotion.view, self._breach.view,
                     self._bisland.view, self._btimer.view, self._bfrozen.view,
                     self._khas.view, C[0], self._jt.view, dt,
                     self.sleep_threshold * self._unit, self.time_to_sleep):
            return
        bad = np.nonzero(~np.all(np.isfinite(bs), axis=1))[0]
        raise FloatingPointError(f"the simulation blew up: bodies {bad[:10].tolist()} have "
                                 f"non-finite state; reduce dt or raise substeps")

    def _batches(self, dt, C, threads):
        """step_frame's arguments for each batch of whole islands, and the thread of each
        (islands.py cuts the awake world into at most `threads` + 1 of them, each at one
        substep count, reordering this frame's manifolds by island)."""
        B, J, R, K = self._kernel_args()
        mi, mf, acc, rows, params = C
        (bodies, bstart, joints, jstart, mstart, jbatch, bsubsteps, bcut, bstiff, bcolour,
         bcalm) = self._partition(B, J, K, C, threads)
        ci, cf = self._custom_args()
        E = (self._bforce.view, self._fields.view, self._field_frame)
        g = self.gravity
        bsub = self._bsub.view
        n = len(mstart) - 1
        batches = []
        keep = self._keep()
        for k in range(n):
            if n == 1:          # the whole world: every manifold, joint and custom row
                Ck, X, G = C, (ci, cf), (bodies, joints, bsub, keep)
            else:
                m0, m1 = mstart[k], mstart[k + 1]
                r0, r1 = m0 * ROWS_PER_MANIFOLD, m1 * ROWS_PER_MANIFOLD
                Ck = (mi[m0:m1], mf[m0:m1], acc[r0:r1], tuple(r[r0:r1] for r in rows), params)
                X = (ci, cf)
                if len(ci):
                    mine = jbatch[ci[:, CI_JOINT]] == k
                    X = (ci[mine], cf[mine])
                G = (bodies[bstart[k]:bstart[k + 1]], joints[jstart[k]:jstart[k + 1]], bsub,
                     keep)
            batches.append((B, J, R, K, dt, int(bsubsteps[k]), self.substeps,
                            int(bstiff[k]), bool(bcalm[k]), self.iterations,
                            self.relax_iterations,
                            (g[0], g[1], g[2]), self.joint_hertz, self.joint_damping_ratio,
                            Ck, X, G, E, int(bcolour[k])))
        return batches, bcut

    def _partition(self, B, J, K, C, threads):
        """islands.partition of the awake world (reorders C's manifolds by island)."""
        return partition(B[6], B[1], J[0], C[0], C[1], C[2], ROWS_PER_MANIFOLD, threads,
                         self.substeps, self.jointed_substeps, self.calm_substeps, B[0], K[1],
                         self._bsub.view, CALM_SPEED * self._unit, CALM_SPIN)

    def _step_args(self, dt, C):
        """step_frame's arguments for the world as one batch (warmup.prepare compiles it for
        their types; every batch has the same types)."""
        return self._batches(dt, C, 1)[0][0]

    def step(self, dt=1.0 / 60.0):
        """Advance one frame of `dt` seconds (substeps happen inside). A dt longer than
        `max_frame` is stepped as ceil(dt / max_frame) equal frames, kinematic bodies
        moving to their targets along the way."""
        dt = validate.number("dt", dt, minimum=0.0, strict=True)
        if self._bs.n == 0:
            self.time += dt
            return
        if not _kernels_checked:
            _prepare_kernels()
        self._check_state()
        frames = math.ceil(dt / self.max_frame - 1e-9)
        if frames <= 1:
            self._step_frame(dt)
            self._bforce.view[:] = 0.0
            return
        moving = np.nonzero(self._khas.view)[0]
        start = self._bs.view[moving, POS:ROT + 4].copy()
        end = self._ktarget.view[moving].copy()
        pins = self._pins
        jf = self._jf.data
        pin_start = jf[pins, L.ANCHOR_A:L.ANCHOR_A + 7].copy()
        pin_end = jf[pins, L.PIN_END:L.PIN_END + 7].copy()
        for k in range(1, frames + 1):
            if len(moving):
                self._ktarget.view[moving] = _pose_between(start, end, k / frames)
                self._khas.view[moving] = True
            if len(pins):
                jf[pins, L.PIN_END:L.PIN_END + 7] = _pose_between(pin_start, pin_end, k / frames)
            self._step_frame(dt / frames)
        self._bforce.view[:] = 0.0

    def _check_state(self):
        """Refuse, before anything moves, a state written from outside that no step can
        take: non-finite numbers, or an orientation too short to be a rotation."""
        bs = self._bs.view
        if bodies_mod.state_fault(bs, MIN_QUATERNION_NORM ** 2) == 0:
            return
        finite = np.all(np.isfinite(bs), axis=1)
        if not finite.all():
            bad = np.nonzero(~finite)[0]
            raise ValueError(f"bodies {bad[:10].tolist()} have non-finite positions, "
                             "orientations or velocities: write finite values before stepping")
        q = bs[:, ROT:ROT + 4]
        short = np.einsum("ij,ij->i", q, q) < MIN_QUATERNION_NORM ** 2
        if short.any():
            bad = np.nonzero(short)[0]
            raise ValueError(f"bodies {bad[:10].tolist()} have orientations of length "
                             f"{np.linalg.norm(q[bad[0]]):.3g} (under {MIN_QUATERNION_NORM:g}), "
                             "which are no rotation: write unit quaternions (w, x, y, z)")

    def _step_frame(self, dt):
        if len(self._pins):     # each pin's target starts the frame where the last left it
            jf = self._jf.data
            jf[self._pins, L.PIN_START:L.PIN_START + 7] = jf[self._pins, L.ANCHOR_A:L.ANCHOR_A + 7]
        if self._sleeping:
            self._wake_disturbed()
        C = self._collide(dt)
        self._step_islands(dt, C)
        if self._breakable:
            self._count_broken()
        self.time += dt
        self._field_frame += 1
        self._fall_asleep(dt, C)

    def _count_broken(self):
        """A joint the step broke changed the joint table (its flags): count the change.
        Joints only break in a step, so the count of broken joints goes up by them."""
        broken = int(np.count_nonzero(self._jt.view[:, L.FLAGS] & L.BROKEN))
        if broken != self._broken:
            self._broken = broken
            self._jt.touch()

    def _step_islands(self, dt, C):
        """step_frame on each batch of islands: a coloured island's (one big island, its
        stages on numba's threads, colours.py) here first, one at a time; then the batches
        of the first thread's share here and the others' in worker threads (the kernel
        releases the GIL)."""
        batches, thread = self._batches(dt, C, self._threads)
        if len(batches) == 1 and not batches[0][_AT["colour"]]:
            step_frame(*batches[0])         # a world of one batch (every small world)
            return
        big = [args for args in batches if args[_AT["colour"]]]
        if big:
            spread = self._spread.choose(self._threads)
            work = sum(len(args[_AT["C"]][0]) * args[_AT["substeps"]] for args in big)
            start = time.perf_counter()
            with pool.numba_threads(spread):
                for args in big:
                    step_frame(*args[:-1], spread)
            self._spread.record(spread, (time.perf_counter() - start) / max(work, 1))
        shares = [[args for args, t in zip(batches, thread)
                   if t == k and not args[_AT["colour"]]] for k in range(int(thread.max()) + 1)]

        def run(share):
            for args in share:
                step_frame(*args)

        futures = [pool.pool(len(shares) - 1).submit(run, share) for share in shares[1:]]
        run(shares[0])
        for f in futures:
            f.result()

    # --- contacts ---------------------------------------------------------------------

    def _collide(self, dt):
        """Collide once per frame: this frame's manifolds, warm started from the last's."""
        n = self._bs.n
        if self._shape_tables is None or self._shape_tables[0] != n:
            self._shape_tables = (n,) + collider_tables(self._shapes, self._body_origin.view)
        _, kinds, params, hverts, cbody, corig = self._shape_tables
        if len(self._cstates) != len(cbody):
            self._cstates = new_states(len(cbody))
        excl = self._joint_pairs(n)
        motion = self._bmotion.view
        sleep = (self._bisland.view, self._btimer.view, self._marks()) if self._sleeping \
            else None
        # bodies whose island last stepped at fewer substeps than the world's (Jointed or
        # Calm Substeps): their pairs' margin takes the pivot term (contacts._pair_margin)
        bsub = self._bsub.view
        coarse = (bsub > 0) & (bsub < self.substeps)
        if self._contacts.collide(self._bs.view, self._cstates, cbody, corig, kinds, params,
                                  hverts, motion, self._khas.view, self._bmat.view,
                                  self._bfilter.view, excl, dt, coarse,
                                  pool.pool(self._threads - 1) if self._threads > 1 else None,
                                  self._threads, sleep):
            self._contacts.sort_awake(motion)
        return self._contacts.kernel_args()

    def _joint_pairs(self, n):
        """The pairs of bodies that joints keep from colliding (every pair of an acting
        joint's bodies: A and B, and C, D of joints over more bodies; not the joints that
        let their bodies collide) and `ignore_collisions`' pairs, as sorted codes
        min * n + max. Kept while the joint
        table's version (every write to it counts, a joint breaking in a step too) and the
        body count are as they were."""
        jt = self._jt.view
        key = self._joint_pairs_key
        if key is not None and key[0] == n and key[1] == self._jt.version:
            return key[2]
        acting = ((jt[:, L.FLAGS] & L.ENABLED) != 0) & ((jt[:, L.FLAGS] & L.BROKEN) == 0) & \
            ((jt[:, L.FLAGS] & L.COLLIDE_CONNECTED) == 0)
        pairs = _JOINT_BODY_PAIRS if self._many_body_joints else _JOINT_BODY_PAIRS[:1]
        codes = []
        for ca, cb in pairs:
            keep = acting & (jt[:, ca] >= 0) & (jt[:, cb] >= 0) & (jt[:, ca] != jt[:, cb])
            a, b = jt[keep, ca], jt[keep, cb]
            codes.append(np.minimum(a, b) * n + np.maximum(a, b))
        codes.append(self._ignored[:, 0] * n + self._ignored[:, 1])
        excl = np.unique(np.concatenate(codes)).astype(np.int64)
        self._joint_pairs_key = (n, self._jt.version, excl)
        return excl

    def collide(self, dt=1.0 / 60.0):
        """Find the contacts at the bodies' current poses without stepping: what
        `contacts()` and `contact_count()` report until the next step (overlaps show as
        negative separations; impulses are the warm-start ones carried over from the last
        step, zero for new contacts). `dt` sets the speculative margin as in `step`. Poses
        and velocities stay as they are; a sleeping body touched by an awake one wakes, as
        in a step. The next step collides again; save and load a state around it to leave
        the world exactly as it was (contacts and sleep are part of the state)."""
        dt = validate.number("dt", dt, minimum=0.0, strict=True)
        if self._bs.n:
            self._collide(dt)

    def contact_count(self):
        """Contact points found in the last step (speculative ones and sleeping bodies'
        included)."""
        return self._contacts.point_count()

    def contacts(self):
        """The last step's contact points for debugging and drawing, as a dict of arrays:
        points (k,3) (midway between the surfaces), normals (k,3) (from bodies[:,0] into
        bodies[:,1]), separations (k,) (negative = overlap), impulses (k,) (normal impulse
        of its island's last substep, N s) and bodies (k,2)."""
        pts, nrm, sep, imp, pair = self._contacts.report(self._bs.view)
        return {"points": pts, "normals": nrm, "separations": sep, "impulses": imp,
                "bodies": pair}

    def contact_impulses(self, body):
        """How hard each body touching `body` pushed it over the last step: (others (k,)
        int, impulses (k, 3) N s), the normal impulse on `body` summed over the pair's
        contact points, the step's substeps and restitution (friction not included). A
        kinematic body takes impulses without moving: this is what a contact asked of it.
        Sleeping pairs pushed nothing."""
        return self._contacts.frame_impulses(self._body("body", body))

    def _tables(self):
        """This world's tables by attribute name."""
        return {name: t for name, t in vars(self).items() if isinstance(t, Table)}

    def save_state(self):
        """An exact snapshot: every table whose `state` names a key (body state, kinds, sleep,
        kinematic targets, joints with their flags, drive and steering settings, path points
        and warm-start impulses), the contacts, the islands' kept factors and the time.
        Replaying from it is bit-identical (tests/solver/test_determinism.py)."""
        state = {"time": self.time, "contacts": self._contacts.save(),
                 "field_frame": self._field_frame, "kept_factors": self._save_kept()}
        tables = self._state_tables
        if tables is None:      # tables are made with the world and never replaced
            tables = self._state_tables = [(t.state, t) for t in self._tables().values()
                                           if t.state not in (SETTING, DERIVED)]
        for key, table in tables:
            state[key] = table.data[:table.n].copy()
        return state

    def _save_kept(self):
        """The kept factors (`_keep`) of a snapshot, only the rows kept and their entries: the
        next step reads them, so a replay needs them to be bit-identical. Where the entries
        lie (which rows are kept, how many entries each) is worked out again only when the
        rows' keys or entry counts changed since the last snapshot: otherwise three `take`s
        of precomputed places, instead of masks over every kept row (this runs every frame
        of a cached simulation)."""
        if self._kept is None:
            return None
        fpose, fkey, fpat, ffac = self._kept
        counts = fpat[:, 1]
        keys, lengths = fkey.tobytes(), counts.tobytes()
        plan = self._kept_plan
        if plan is None or plan[0] != keys or plan[1] != lengths or plan[2] is not fpat:
            rows = np.flatnonzero(fkey)
            wide = np.arange(KEEP_WIDTH + 1)
            used = wide <= counts[rows, None]           # diagonal, then c entries
            pat = (rows * fpat.shape[1])[:, None]
            fac = (rows * ffac.shape[1])[:, None]
            plan = self._kept_plan = (keys, lengths, fpat, rows, fkey[rows], pat + wide[:5],
                                      (pat + 5 + wide[:-1])[used[:, 1:]], (fac + wide)[used])
        rows, row_keys, head, cols, values = plan[3:]
        return (fpose.copy(), rows, row_keys, fpat.take(head), fpat.take(cols),
                ffac.take(values))

    def _load_kept(self, saved):
        self._kept = None
        if saved is None:
            return
        fpose, fkey, fpat, ffac = self._keep()
        pose, rows, keys, head, cols, values = saved
        fpose[:] = pose
        used = np.arange(KEEP_WIDTH + 1) <= head[:, 1:2]
        fkey[rows] = keys
        fpat[rows, :5] = head
        part = fpat[rows, 5:]
        part[used[:, 1:]] = cols
        fpat[rows, 5:] = part
        part = ffac[rows]
        part[used] = values
        ffac[rows] = part

    def load_state(self, state):
        """Restore a snapshot from `save_state` of this world (same bodies and joints)."""
        wanted = {"time", "contacts", "bodies", "impulses", "kinds"}
        if not isinstance(state, dict) or not wanted <= state.keys():
            raise ValueError("state must be a dict from save_state() of this world, got "
                             f"{type(state).__name__}"
                             + (f" without {sorted(wanted - state.keys())}"
                                if isinstance(state, dict) else ""))
        if state["bodies"].shape != self._bs.view.shape or \
                state["impulses"].shape != self._jacc.view.shape:
            raise ValueError(f"state has {len(state['bodies'])} bodies and "
                             f"{len(state['impulses'])} joints but this world has "
                             f"{self._bs.n} and {self._jt.n}: load a state saved from this world")
        self.time = state["time"]
        self._field_frame = state.get("field_frame", 0)
        kinds = state["kinds"]
        for b in np.flatnonzero(kinds != self._bkind.view):
            self.set_kind(int(b), self.kind_name(kinds[b]))
        for table in self._tables().values():
            if table.state not in (SETTING, DERIVED, "kinds"):
                # a snapshot from before forces existed has none pending
                table.view[:] = state[table.state] if table.state in state or \
                    table.state != "forces" else 0.0
                table.touch()
        self._broken = int(np.count_nonzero(self._jt.view[:, L.FLAGS] & L.BROKEN))
        self._contacts.load(state["contacts"])
        self._load_kept(state.get("kept_factors"))
