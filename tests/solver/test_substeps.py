"""Islands step at their own substep counts (islands.py): a small jointed island at
`World(jointed_substeps=...)`, or at `calm_substeps` in a frame it starts calm; stacks,
piles, lone bodies and springs at `substeps`."""

import os
import sys

import numpy as np
import pytest

import solver as lg
from probes import FRAME

BENCH = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "bench")
if BENCH not in sys.path:
    sys.path.insert(0, BENCH)

import scenes  # noqa: E402  (bench/scenes.py: the benchmarks' ragdoll)
from contacts import populate  # noqa: E402  (bench/contacts.py: a scene into a World)


def _pendulum_and_box(**settings):
    """A 1 kg ball on a hinge to the world, swinging, and a box dropped on the floor far
    from it: two islands, one jointed."""
    w = lg.World(sleeping=False, threads=1, **settings)
    w.add_body(lg.Box((10, 10, 0.5)), (0, 0, -0.5), kind="static")
    ball = w.add_body(lg.Sphere(0.1), (0.0, 1.0, 3.0), mass=1.0)
    w.add_hinge(None, ball, (0.0, 0.0, 3.0), (1, 0, 0))
    box = w.add_body(lg.Box((0.2, 0.2, 0.2)), (5.0, 5.0, 0.6), mass=2.0,
                     angular_velocity=(1.0, 2.0, 0.5))
    counts = set()
    for _ in range(90):
        w.step(FRAME)
        counts.add((int(w._bsub.view[ball]), int(w._bsub.view[box])))
    return w.positions[ball].copy(), w.positions[box].copy(), counts


def test_a_jointed_island_steps_at_jointed_substeps_and_a_lone_body_at_substeps():
    # (Not the same bits as a world of 4 substeps: an island stepped below the world's
    # count takes its joints' geometric stiffness, and the position projection's turn per
    # second, at the world's count; bodies.stiffen_world_inertia, direct.projection_turn.)
    ball, box, counts = _pendulum_and_box(jointed_substeps=4)     # 8, jointed 4
    ball8, box8, _ = _pendulum_and_box(jointed_substeps=8)        # every island at 8
    assert counts == {(4, 8)}, f"(pendulum, box) stepped at {counts} substeps"
    assert np.array_equal(box, box8), "the box did not step as at 8 substeps"
    assert not np.array_equal(ball, ball8)
    assert box[2] < 0.21, "the box did not land"


def test_jointed_substeps_default_and_validation():
    # half of substeps (rounded up), never under 4 nor over substeps
    assert lg.World().jointed_substeps == 4
    assert lg.World(substeps=16).jointed_substeps == 8
    assert lg.World(substeps=9).jointed_substeps == 5
    assert lg.World(substeps=6).jointed_substeps == 4
    assert lg.World(substeps=2).jointed_substeps == 2
    assert lg.World(jointed_substeps=8).jointed_substeps == 8
    assert lg.World(jointed_substeps=4).jointed_substeps == 4
    for bad in (0, -2, float("nan")):
        with pytest.raises(ValueError, match="jointed_substeps"):
            lg.World(jointed_substeps=bad)


@pytest.mark.parametrize("levels", [3, 4, 8])
def test_a_pile_of_hinged_planks_at_4_jointed_substeps_stays_still(levels):
    # Hinged plank pairs (20 kg) piled on each other: the contacts between them are swept,
    # not solved exactly, so a pile of more than three steps at the full substeps. At 4
    # substeps with the world's contact stiffness, four levels jitter at 0.14 m/s and eight
    # at 0.3 m/s; three keep still.
    w = lg.World(sleeping=False, threads=1, jointed_substeps=4)
    w.add_body(lg.Box((5, 5, 0.5)), (0, 0, -0.5), kind="static")
    planks = []
    for k in range(levels):
        z = 0.1 + 0.2 * k
        a = w.add_body(lg.Box((0.3, 0.15, 0.1)), (-0.3, 0, z), mass=10.0)
        b = w.add_body(lg.Box((0.3, 0.15, 0.1)), (0.3, 0, z), mass=10.0)
        w.add_hinge(a, b, (0, 0, z), (0, 1, 0), lower=-0.1, upper=0.1)
        planks += [a, b]
    for _ in range(180):
        w.step(FRAME)
    start = w.positions[planks].copy()
    fastest = 0.0
    for _ in range(300):
        w.step(FRAME)
        fastest = max(fastest, float(np.abs(w.linear_velocities[planks]).max()))
    moved = np.linalg.norm(w.positions[planks] - start, axis=1).max()
    assert fastest < 0.02, f"the pile jitters at {fastest:.3f} m/s"
    assert moved < 1e-3, f"a plank moved {moved * 1e3:.2f} mm in 5 s"


def test_a_spring_keeps_its_island_at_the_full_substeps():
    # A 2 kg ball on an undamped 400 N/m custom spring: its island steps at `substeps`
    # whatever jointed_substeps says (the implicit step's numerical damping grows with the
    # substep: at 4 its swing fell to 6 % of its sag in 4 s, at 8 to 25 %).
    def swing(**settings):
        w = lg.World(sleeping=False, threads=1, **settings)
        ball = w.add_body(lg.Sphere(0.05), (0, 0, 4), mass=2.0)
        w.add_custom([None, ball], "length(pA - pB) - 1", stiffness=400.0,
                     anchors=[(0, 0, 5), None])
        for _ in range(120):
            w.step(FRAME)
        return w.positions[ball].copy()
    assert np.array_equal(swing(jointed_substeps=4), swing(jointed_substeps=8))
    assert not np.array_equal(swing(substeps=4), swing(jointed_substeps=8))


def test_a_drive_keeps_its_island_at_the_full_substeps():
    # A rod on a ball-socket driven toward a turned pose (pose matching): at 4 substeps a
    # metarig's drives missed their pose by 40 degrees, so a driven island steps at `substeps`.
    def turn(**settings):
        w = lg.World(sleeping=False, threads=1, **settings)
        rod = w.add_body(lg.Capsule(0.05, 0.3), (0, 0, 2.6), mass=1.0)
        j = w.add_ball_socket(None, rod, (0, 0, 3))
        w.set_drive(j, (0.9239, 0.3827, 0.0, 0.0), hertz=4.0, damping_ratio=1.0)
        for _ in range(60):
            w.step(FRAME)
        return w.orientations[rod].copy()
    assert np.array_equal(turn(jointed_substeps=4), turn(jointed_substeps=8))
    assert not np.array_equal(turn(substeps=4), turn(jointed_substeps=8))


# --- calm islands ---------------------------------------------------------------------------

def test_calm_substeps_default_and_validation():
    # half the jointed islands' count, never under 4 (at 2 a pile of three hinged plank
    # pairs crept 2.8 mm in 5 s) nor over jointed_substeps
    assert lg.World().calm_substeps == 4
    assert lg.World(substeps=16, jointed_substeps=16).calm_substeps == 8
    assert lg.World(substeps=32).calm_substeps == 8     # jointed 16
    assert lg.World(substeps=4).calm_substeps == 4
    assert lg.World(substeps=2).calm_substeps == 2
    assert lg.World(jointed_substeps=6).calm_substeps == 4
    assert lg.World(calm_substeps=2).calm_substeps == 2
    for bad in (0, -2, float("nan")):
        with pytest.raises(ValueError, match="calm_substeps"):
            lg.World(calm_substeps=bad)


def _hinged(spin, gravity, **settings):
    """A 1 kg ball on a hinge to the world (about x, 1 m below it), turning at `spin`
    rad/s about the hinge, for 90 frames: its positions, and the substeps of each frame
    (jointed islands at 8 unless `settings` say otherwise)."""
    w = lg.World(gravity=gravity, sleeping=False, threads=1,
                 **{"jointed_substeps": 8, **settings})
    ball = w.add_body(lg.Sphere(0.1), (0.0, 0.0, 2.0), mass=1.0)
    w.add_hinge(None, ball, (0.0, 0.0, 3.0), (1, 0, 0))
    w.linear_velocities[ball] = (0.0, spin, 0.0)        # 1 m from the axis
    w.angular_velocities[ball] = (spin, 0.0, 0.0)
    path, counts = [], []
    for _ in range(90):
        w.step(FRAME)
        path.append(w.positions[ball].copy())
        counts.append(int(w._bsub.view[ball]))
    return np.array(path), counts


def test_a_calm_jointed_island_steps_at_calm_substeps_a_turning_one_at_the_full_count():
    # A pendulum swinging 0.064 rad (at most 0.2 m/s and 0.2 rad/s, under CALM_SPEED and
    # CALM_SPIN) is calm from its second frame on (the first of a body is never calm): it
    # steps as a world of 4 substeps after a first frame at 8; turning at 3 rad/s (no
    # gravity) it never is calm, and steps at 8.
    g = (0.0, 0.0, -9.81)
    slow, counts = _hinged(0.2, g)
    assert counts == [8] + [4] * 89, f"the slow pendulum stepped at {counts}"
    first, _ = _hinged(0.2, g, calm_substeps=8)
    assert np.array_equal(slow[0], first[0]) and not np.array_equal(slow, first)
    swing = np.degrees(np.abs(np.arctan2(slow[:, 1], 3.0 - slow[:, 2]))).max()
    assert 3.0 < swing < 4.3, f"the pendulum swung {swing:.2f} degrees (0.2 m/s at 1 m: 3.7)"
    fast, counts = _hinged(3.0, (0.0, 0.0, 0.0))
    assert counts == [8] * 90
    assert np.array_equal(fast, _hinged(3.0, (0.0, 0.0, 0.0), calm_substeps=8)[0])
    assert not np.array_equal(fast, _hinged(3.0, (0.0, 0.0, 0.0), substeps=4,
                                            jointed_substeps=4)[0])


def test_a_ragdoll_lands_at_the_full_count_rests_calm_and_a_hit_steps_it_full_again():
    # One 13-body ragdoll of the benchmarks dropped on the floor: its landing steps at 8
    # substeps (its contacts close), lying still it steps at 4 without jitter, and a ball
    # thrown at it makes the frames of the hit full again; its joints hold within 0.1 mm
    # throughout and it sinks into the floor no deeper than the landing test allows.
    # (Jointed substeps 8: the default 4 is the calm count too.)
    scene = scenes.ragdolls(1)
    w = lg.World(gravity=(0.0, 0.0, -9.81), sleeping=False, threads=1, jointed_substeps=8)
    populate(w, scene)
    gauge = scenes.JointGauge(scene)
    body = scene.dynamic[0]
    counts, gap, low = [], 0.0, np.inf

    def frame():
        nonlocal gap, low
        w.step(FRAME)
        counts.append(int(w._bsub.view[body]))
        rot = scenes.quats_to_matrices(w.orientations)
        gap = max(gap, gauge.gap(w.positions, rot))
        low = min(low, scenes.lowest_point(scene, w.positions, rot))
    for _ in range(240):
        frame()
    landing, resting = counts[:60], counts[180:]
    assert 8 in landing, "the landing was not stepped at the full count"
    assert resting.count(4) >= 50, f"lying still, it stepped at {set(resting)} substeps"
    fastest = 0.0
    for _ in range(60):
        frame()
        fastest = max(fastest, float(np.linalg.norm(w.linear_velocities[scene.dynamic],
                                                    axis=1).max()))
    # awake (sleeping off) it creeps a few mm a second at either count (6 mm/s at 4, 4 at
    # 8 on 2026-11-26): slow, no jitter
    assert fastest < 0.02, f"lying at calm substeps, a body moves at {fastest:.3f} m/s"
    pelvis = w.positions[body].copy()
    ball = w.add_body(lg.Sphere(0.1), pelvis + (0.0, -1.0, 0.3), mass=5.0,
                      linear_velocity=(0.0, 6.0, 0.0))
    hit = []
    for _ in range(30):
        frame()
        hit.append(counts[-1])
    assert 8 in hit, "the frames of the hit were not stepped at the full count"
    assert np.linalg.norm(w.positions[ball] - pelvis) < 1.5, "the ball missed"
    assert gap < 1e-4, f"a joint opened {1e3 * gap:.3f} mm"
    assert low > -0.02, f"the ragdoll sank {-100 * low:.1f} cm into the floor"
