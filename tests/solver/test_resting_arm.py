"""A ragdoll's arm lying still stays still: the finding behind "lying still is not still"
(docs/performance.md, "Why ragdolls lying still keep moving").

The arm of the sixth ragdoll of bench/scenes.py's crowd as it lay 4.5 s after the drop: the
chest (static here) on its side, the upper arm held at the shoulder by a ragdoll joint, the
forearm straight on from it (the elbow at its lower limit) with the tip of its capsule on
the floor. Released from rest it is a passive system at rest: nothing may set it moving.
Its forearm rolled on its tip, faster and faster, while its height did not change: a
manifold kept across frames (contacts._keep_manifold) put the capsule's impulses midway
between its surface and the floor's point where the points were found, behind the contact
as it rolled, until a new collide put them back (a ratchet). The micrometre wobble left
after that (0.37 mJ above the start at the highest) went with the island factored twice a
substep: the joints' geometric stiffness moved the solve inertia 1-4e-3 a substep, past the
factor's reuse tolerance, so the solve and relax passes of a substep saw two metrics; with
direct.REUSE_INERTIA at 1e-2 they see one (docs/performance.md, "A metarig lying on the
floor, solve by solve").
"""

import os
import sys

import numpy as np
import solver as lg
from probes import FRAME, G, note

BENCH = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "bench")
if BENCH not in sys.path:
    sys.path.insert(0, BENCH)

import scenes  # noqa: E402  (bench/scenes.py: the benchmarks' ragdolls)

# where the crowd's sixth ragdoll's chest, left upper arm and left forearm lay at frame 270
# (main f32db6f, one thread): position, orientation (w, x, y, z)
POSES = {"chest": ((-1.56138, 2.33948, 0.09998), (0.46406, 0.46407, -0.53353, -0.53351)),
         "upper_armL": ((-1.56012, 2.03104, 0.08463), (0.67001, 0.62238, 0.39721, 0.07719)),
         "forearmL": ((-1.35276, 1.77606, 0.05485), (0.67001, 0.62238, 0.39721, 0.07719))}


def _arm(friction):
    """The arm on the floor, its bodies and joints built as bench/scenes.py builds the
    ragdoll, then put at POSES. Returns the world and the upper arm's and forearm's ids."""
    scene = scenes.ragdolls(20)
    names = [n for n, *_ in scenes.RAGDOLL_BODIES]
    group = scene.groups[5]
    w = lg.World(gravity=(0, 0, -G), sleeping=False)
    w.add_body(lg.Box((30, 30, 0.5)), (0, 0, -0.5), kind="static")
    ids = {}
    for name in POSES:
        b = scene.bodies[group[names.index(name)]]
        shape = lg.Box(b.size) if b.shape == "box" else lg.Capsule(*b.size)
        kind = {"kind": "static"} if name == "chest" else {"mass": b.mass}
        ids[group[names.index(name)]] = w.add_body(
            shape, b.position, scenes.matrix_to_quat(b.rotation), friction=friction, **kind)
    for j in scene.joints:
        if j.a in ids and j.b in ids:
            if j.kind == "hinge":
                w.add_hinge(ids[j.a], ids[j.b], j.anchor, j.axis, lower=j.limits[0],
                            upper=j.limits[1])
            else:
                w.add_ragdoll(ids[j.a], ids[j.b], j.anchor, j.axis, *j.limits,
                              swing_axis=j.swing_axis)
    for name, (p, q) in POSES.items():
        i = ids[group[names.index(name)]]
        w.positions[i] = p
        w.orientations[i] = np.asarray(q) / np.linalg.norm(q)
    arm = [ids[group[names.index(n)]] for n in ("upper_armL", "forearmL")]
    return w, arm


def _energy(w, bodies):
    """Kinetic plus potential energy of `bodies` (J), from their public state."""
    m = w.masses
    v, om, x = w.linear_velocities, w.angular_velocities, w.positions
    return sum(0.5 * m[i] * v[i] @ v[i] + 0.5 * om[i] @ w.inertia(i) @ om[i]
               + m[i] * G * x[i, 2] for i in bodies)


def _run(friction, seconds=3.0):
    w, arm = _arm(friction)
    for _ in range(30):                  # the contact and the joints take up the load
        w.step(FRAME)
    e0, z0 = _energy(w, arm), w.positions[arm, 2].copy()
    fastest, gain = 0.0, 0.0
    for _ in range(int(seconds / FRAME)):
        w.step(FRAME)
        fastest = max(fastest, float(np.linalg.norm(w.linear_velocities[arm], axis=1).max()))
        gain = max(gain, _energy(w, arm) - e0)
    sink = float(np.abs(w.positions[arm, 2] - z0).max())
    return fastest, gain, sink


def test_without_friction_the_arm_lies_still():
    # the control: with the contact frictionless nothing moves the arm either (its tip
    # rests on the floor, its shoulder on the static chest)
    fastest, gain, sink = _run(0.0)
    note("frictionless arm: fastest body over 3 s (m/s)", fastest, "< 1e-3")
    assert fastest < 1e-3, f"the frictionless arm moves at {1e3 * fastest:.2f} mm/s"


def test_an_arm_resting_its_hand_on_the_floor_stays_at_rest():
    # released from rest, a passive arm may settle but not set itself rolling; before the
    # kept manifold put a capsule's impulses under its core (contacts._keep_manifold) its
    # forearm rolled on its tip at 25-28 mm/s after 2-3 s, 1-3 mJ more than it started
    # with while no body's height changed by more than a few micrometres
    fastest, gain, sink = _run(0.5)
    note("resting arm: fastest body over 3 s (m/s)", fastest, "< 1e-3")
    note("resting arm: largest change of a body's height (m)", sink, "")
    assert fastest < 1e-3, f"the arm moves at {1e3 * fastest:.2f} mm/s"


def test_a_resting_arm_gains_no_energy():
    # released from rest, a passive arm may settle but never gain energy
    fastest, gain, sink = _run(0.5)
    note("resting arm: largest energy gain (J)", gain, "< 1e-4")
    assert gain < 1e-4, f"the arm gained {1e3 * gain:.3f} mJ from rest"
