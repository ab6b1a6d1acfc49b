"""Hit reactions: an Animated body with a Hit Impulse follows its keys until a contact pushes
it harder than that in one frame, then simulates as a Dynamic body, starting with the
velocity its keys had. With Blend Back it is pulled back onto its keys over that many frames
and follows them again from there until the next hit.

The pull is a drive, not a blend of poses: a ghost body that follows the keys (kinematic, it
collides with nothing) holds the body by six distance springs, three at its centre along its
axes (position) and three at points off the centre (orientation). The springs' frequency
ramps up as (t / N)^2 over the N frames of the blend, to `BLEND_HERTZ_PER_FPS` times the
scene's fps / N at the end, critically damped: the first frames after the hit are free, the
last ones pull hard. On frame hit + N the body is kinematic again, on its keys exactly.

What a hit is: an impulse from one body over the frame beyond what the contact with that
body carries steadily. A body resting on a keyed platform pushes it every frame with its
weight times the frame's length (and more while the platform speeds up): that is a load,
not a hit, and it depends on the frame rate. So the impulse J that body B gave the armed
body A in the step counts as a hit by how far it is from the nearer of two steady
references: the impulse the frame before (a contact that goes on as it was is no hit,
however heavy the load above B), and the impulse that carries B along with A over the frame,
-m_B (dv_A - g dt) (B moving with the platform: what a load resting from the start takes).
A body striking A starts from no contact, and B's own weight over a frame is small beside
its momentum: J counts almost whole. The impulses of the step before are part of the
solver's saved state (`Hits.remember` reads them before the step), so a replay takes the
same hits.

Per frame (`Hits.before_step`) each armed body is kinematic on its keys or dynamic, its ghost
is sent to its keys, the springs get the frame's strength. After the step `Hits.hit_by`
lists the bodies that followed their keys and took more than their Hit Impulse from one
body; the Simulation then steps the frame again from the frame before with those dynamic:
the contact that hit an immovable body now hits one that gives way, and the momentum the
hitter loses is the momentum the body gains. Which bodies are off their keys, and since which
frame, is saved with each frame's solver state, so a replay from any cached frame is the
same.

A ragdoll part (a helper body of a ragdoll whose parts follow the animation) with a Hit
Impulse is hit the same way; its RagdollRun turns it, the parts jointed to it and those
beyond them limp and blends them back with its joints' pose-matching drives, ramped up to
the ragdoll's Pose Matching Stiffness (world/ragdolls.py)."""

import numpy as np

from ..kernels import solver as lg
from ..scene.animation import axis_angle_played_elsewhere, is_moving
from .poses import shape_pose

SPRING_LENGTH = 10.0    # m: long springs pull along a nearly fixed direction
SPRING_ARM = 0.5        # m: the orientation springs' points from the centre
BLEND_HERTZ_PER_FPS = 3.0   # the springs' last frequency is this x fps / (blend frames)
MIN_HERTZ = 1e-6        # the springs at the hit frame: free (a spring needs some frequency)


def is_armed(obj):
    """An Animated body that reacts to hits (baked bodies replay their keys): one that moves,
    by its keys or anything else that moves it in Blender (a parent, NLA, a constraint). Not
    one in Axis Angle rotation mode whose rotation something other than its action plays
    (`axis_angle_unarmed`)."""
    s = obj.ligament_body
    return s.kind == 'ANIMATED' and s.hit_impulse > 0.0 and not s.baked and \
        is_moving(obj) and not axis_angle_played_elsewhere(obj)


def axis_angle_unarmed(obj):
    """A moving Animated body with a Hit Impulse in Axis Angle rotation mode whose rotation an
    NLA strip or a driver plays: a hit body leaves its keys through its delta rotation, which
    Blender does not expose for Axis Angle, so the simulation writes an Axis Angle body's
    rotation itself with its action's rotation curves muted (`poses.apply_delta`); a strip or
    a driver would write over it. So it follows its animation and takes no hits (the scene
    check says so), and the rest of the scene simulates."""
    s = obj.ligament_body
    return s.kind == 'ANIMATED' and s.hit_impulse > 0.0 and not s.baked and \
        is_moving(obj) and axis_angle_played_elsewhere(obj)


def blend_hertz(frame, hit, blend, top):
    """The pull back onto the keys at `frame` of a blend of `blend` frames from a hit at
    `hit`: (t / N)^2 of `top`, the frequency it reaches at the end."""
    t = (frame - hit) / blend
    return max(MIN_HERTZ, top * t * t)


class HitBody:
    """One armed body: its solver id, threshold (N s), blend frames; for a blend its ghost
    body's id and springs' joint ids; for a ragdoll part its RagdollRun (which moves it) and
    the ragdoll's body ids (parts touching each other are no hit)."""
    __slots__ = ("body", "threshold", "blend", "ghost", "springs", "ragdoll", "own")

    def __init__(self, body, threshold, blend, ragdoll=None):
        self.body, self.threshold, self.blend = body, threshold, blend
        self.ghost, self.springs = None, ()
        self.ragdoll = ragdoll
        self.own = () if ragdoll is None else ragdoll.ids


class Hits:
    """The armed bodies of a Simulation (`bodies`: {name: HitBody}): Animated bodies with
    keys (`keyed`, moved through their delta transform while off them) and ragdoll parts
    (their RagdollRun turns them and the parts around them limp)."""

    def __init__(self, world, bodies, objs, fps, ragdolls=()):
        self.bodies = {}
        self.fps = fps
        for b in bodies:
            obj = objs[b.name]
            if b.kind == 'ANIMATED' and is_armed(obj):
                s = obj.ligament_body
                hb = HitBody(b, s.hit_impulse, s.blend_back)
                if hb.blend > 0:
                    _add_ghost(world, hb)
                self.bodies[b.name] = hb
        self.keyed = tuple(self.bodies)
        for run in ragdolls:
            for part in run.parts:
                s = objs[part.name].ligament_body
                if s.hit_impulse > 0.0:
                    self.bodies[part.name] = HitBody(part.body, s.hit_impulse, s.blend_back,
                                                     run)
        self.names = frozenset(self.bodies)
        self._before = {}

    def __bool__(self):
        return bool(self.bodies)

    def before_step(self, world, frame, poses, off):
        """Kinds, targets and springs for the step that ends at `frame`. `poses`: {name: world
        matrix of the keys at `frame`}, `off`: {name: hit frame} of the bodies off their
        keys (after the hits found in this frame's first step)."""
        for name in self.keyed:
            hb = self.bodies[name]
            b = hb.body
            target = shape_pose(b, poses[name])
            hit = off.get(name)
            if hit is None:
                if world.kind(b.id) != "kinematic":
                    world.set_kind(b.id, "kinematic")
                world.set_kinematic_target(b.id, *target)
            elif world.kind(b.id) != "dynamic":
                world.set_kind(b.id, "dynamic")
            if hb.ghost is not None:
                world.set_kinematic_target(hb.ghost, *target)
                if hit is not None:
                    hz = blend_hertz(frame, hit, hb.blend,
                                     BLEND_HERTZ_PER_FPS * self.fps / hb.blend)
                    for j in hb.springs:
                        world.set_spring(j, hz, 1.0)

    def remember(self, world):
        """Before a step: each armed body's contact impulses ({other id: impulse}) and
        velocity over the step before it, the steady references `hit_by` measures from."""
        self._before = {}
        for name, hb in self.bodies.items():
            b = hb.body.id
            others, impulses = world.contact_impulses(b)
            self._before[name] = (dict(zip(others.tolist(), impulses)),
                                  world.linear_velocities[b].copy())

    def hit_by(self, world, off):
        """{name: (impulse N s, other body id)} of the bodies that followed their keys in the
        last step and took more than their Hit Impulse from one body (a ragdoll's parts
        touching each other are no hit): the impulse beyond the steady contact, see the
        module's docstring."""
        out = {}
        g_dt = np.asarray(world.gravity, dtype=np.float64) / self.fps
        masses = world.masses
        for name, hb in self.bodies.items():
            b = hb.body.id
            if name in off or world.kind(b) != "kinematic":
                continue   # only what follows its keys or animation takes a hit
            others, impulses = world.contact_impulses(b)
            if len(hb.own):
                keep = ~np.isin(others, hb.own)
                others, impulses = others[keep], impulses[keep]
            if not len(others):
                continue
            size = self._beyond_steady(name, b, world, others, impulses, masses, g_dt)
            k = int(np.argmax(size))
            if size[k] > hb.threshold:
                out[name] = (float(size[k]), int(others[k]))
        return out

    def _beyond_steady(self, name, body, world, others, impulses, masses, g_dt):
        """Per other body, how far its impulse on `body` is from the nearer steady reference:
        the step before's impulse, or what carries the other body along with `body`."""
        before, v0 = self._before.get(name, ({}, world.linear_velocities[body]))
        dv = world.linear_velocities[body] - v0
        m = masses[others]
        m = np.where(np.isfinite(m), m, 0.0)      # a kinematic or static partner: no load
        carried = -m[:, None] * (dv - g_dt)[None, :]
        prev = np.array([before.get(int(o), np.zeros(3)) for o in others]).reshape(-1, 3)
        return np.minimum(np.linalg.norm(impulses - carried, axis=1),
                          np.linalg.norm(impulses - prev, axis=1))

    def next_off(self, frame, off):
        """The bodies off their keys in the step after `frame` (`off`: those off them in the
        step of `frame`): a blend of N frames from a hit at H has its body on its keys
        again at H + N."""
        return {name: hit for name, hit in off.items()
                if not (self.bodies[name].blend > 0 and frame + 1 - hit >= self.bodies[name].blend)}


def _add_ghost(world, hb):
    """The ghost that follows the keys and the six springs that hold the body to it, made
    where the body is now (on its keys at the start frame)."""
    b = hb.body.id
    centre = world.positions[b].copy()
    q = world.orientations[b].copy()
    hb.ghost = world.add_body(lg.Sphere(0.01), position=tuple(centre), orientation=tuple(q),
                              kind="kinematic", collision_group=0, collision_mask=0)
    x, y, z = _axes(q)
    points_and_pulls = ((centre, x), (centre, y), (centre, z),
                        (centre + SPRING_ARM * x, y), (centre + SPRING_ARM * x, z),
                        (centre + SPRING_ARM * y, z))
    hb.springs = tuple(
        world.add_distance(hb.ghost, b, tuple(p + SPRING_LENGTH * d), tuple(p),
                           spring_hz=MIN_HERTZ, spring_damping=1.0)
        for p, d in points_and_pulls)


def _axes(q):
    """The rotation's X, Y, Z axes (rows) for a quaternion (w, x, y, z)."""
    w, x, y, z = q
    return np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y + w * z), 2 * (x * z - w * y)],
        [2 * (x * y - w * z), 1 - 2 * (x * x + z * z), 2 * (y * z + w * x)],
        [2 * (x * z + w * y), 2 * (y * z - w * x), 1 - 2 * (x * x + y * y)]])
