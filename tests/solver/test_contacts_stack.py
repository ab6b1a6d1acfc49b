"""Stacking: a 20-row pyramid of unit boxes (210 boxes) standing for 10 s at 60 Hz, 4 substeps."""

import numpy as np
import pytest

import solver as lg

FRAME = 1.0 / 60.0


def pyramid(w, rows):
    start = []
    for i in range(rows):
        n = rows - i
        for j in range(n):
            start.append(((j - (n - 1) / 2.0), 0.0, 0.5 + i))
    start = np.array(start)
    ids = [w.add_body(lg.Box((0.5, 0.5, 0.5)), p, friction=0.5) for p in start]
    return ids, start


@pytest.mark.slow
def test_pyramid_of_20_rows_stands_for_10_s():
    # Two solve/relax sweeps per substep: with one, the soft contacts' load-dependent sink
    # over 20 levels reaches about 1.2 cm at the top. Sleeping off: the solver itself must
    # hold the pyramid for 10 s (asleep it would stand still by decree).
    w = lg.World(gravity=(0, 0, -9.81), substeps=4, iterations=2, sleeping=False)
    w.add_body(lg.Box((25.0, 5.0, 0.5)), (0, 0, -0.5), kind="static")
    ids, start = pyramid(w, 20)
    for _ in range(600):
        w.step(FRAME)
    drift = np.linalg.norm(w.positions[ids] - start, axis=1)
    assert drift[-1] < 0.01, drift[-1]          # the top box
    assert drift.max() < 0.05, drift.max()


def test_box_stack_of_10_stands():
    # One sweep per substep lets the column walk sideways by ~3 cm in 5 s; two hold it.
    w = lg.World(gravity=(0, 0, -9.81), substeps=4, iterations=2, sleeping=False)
    w.add_body(lg.Plane(), (0, 0, 0), kind="static")
    ids = [w.add_body(lg.Box((0.5, 0.5, 0.5)), (0, 0, 0.5 + i)) for i in range(10)]
    for _ in range(300):
        w.step(FRAME)
    top = w.positions[ids[-1]]
    assert abs(top[0]) < 0.01 and abs(top[1]) < 0.01 and abs(top[2] - 9.5) < 0.02, top


def test_boxes_resting_half_on_two_others_come_to_rest():
    # In a pyramid each box rests half on each of two below it. Those patches are clipped
    # anew every frame and their clipped points come back under new feature ids; a point
    # re-found within 5 mm is the old point and keeps its warm-start impulse. Clamped like
    # fresh points instead, the patches lost most of their impulse every frame and the boxes
    # kept rocking, up to 2 mm/s in the fifth second and 0.1 mm sideways (now 1e-6 m/s).
    # Resting pairs now keep their manifold whole (contacts._keep_manifold); the boxes settle
    # 0.06 mm sideways as the rows take their load (under 0.05 mm with the static friction
    # anchors, which were dropped: they ratcheted loaded stacks sideways; 0.08 mm since a
    # face's points are swept in four orders in turn).
    w = lg.World(gravity=(0, 0, -9.81), substeps=4, iterations=2, sleeping=False)
    w.add_body(lg.Box((25.0, 5.0, 0.5)), (0, 0, -0.5), kind="static")
    ids, start = pyramid(w, 6)
    speed = spin = 0.0
    for frame in range(300):
        w.step(FRAME)
        if frame >= 240:                          # the fifth second
            speed = max(speed, np.abs(w.linear_velocities[ids]).max())
            spin = max(spin, np.abs(w.angular_velocities[ids]).max())
    assert speed < 1e-5 and spin < 1e-5, (speed, spin)
    sideways = np.abs(w.positions[ids][:, :2] - start[:, :2]).max()
    assert sideways < 1e-4, sideways


@pytest.mark.slow
def test_pyramid_kept_awake_at_defaults_does_not_creep_sideways():
    # World() defaults (8 substeps, two relax sweeps). With the static friction anchors
    # (since dropped) and one relax sweep a stack kept awake slid row on row: this pyramid's
    # top moved 4.2 cm sideways in 15 s (14.5 cm in 30 s); without the anchors one sweep
    # leaves it wandering 1-2.3 mm, two hold it within 0.3 mm. What is left is the soft
    # contacts' sink under load, straight down.
    w = lg.World(gravity=(0, 0, -9.81), sleeping=False)
    w.add_body(lg.Box((25.0, 5.0, 0.5)), (0, 0, -0.5), kind="static")
    ids, start = pyramid(w, 20)
    for _ in range(900):
        w.step(FRAME)
    d = w.positions[ids] - start
    sideways = np.linalg.norm(d[:, :2], axis=1)
    assert sideways.max() < 1e-3, f"a box slid {1000 * sideways.max():.2f} mm sideways in 15 s"
    assert -d[:, 2].min() < 2.5e-3, f"the pyramid sank {-1000 * d[:, 2].min():.2f} mm"
