"""Piles a user builds come to rest at `World()` defaults (issue 31, "Stacks creep").

Boxes resting on boxes under static friction must not move: from the pose they settle into
(1 s in) no box may move more than 2 mm sideways (along the floor) in the next 10 s, and
the pile must fall asleep within 5 s. The drift is measured with sleeping off, so the solve
itself holds the pile (asleep it would stand still by decree); the sleeping run checks the
sleep. bench/piles.py prints the same layouts' figures beside Blender's Bullet, over 60 s.
"""

import math

import numpy as np
import pytest

import solver as lg

FRAME = 1.0 / 60.0
MU = 0.6
SETTLE = 60          # frames: the drift is measured from the poses 1 s in


def tilt(degrees):
    a = math.radians(degrees)
    return np.array([[math.cos(a), 0.0, math.sin(a)], [0.0, 1.0, 0.0],
                     [-math.sin(a), 0.0, math.cos(a)]])


def quat(R):
    """The rotation about Y that R is, as (w, x, y, z)."""
    a = math.atan2(R[0, 2], R[0, 0])
    return (math.cos(a / 2.0), 0.0, math.sin(a / 2.0), 0.0)


def pyramid(rows, gap, degrees=0.0):
    """(half extents, centre, mass) of `rows` rows of 1 m, 1 kg boxes whose neighbours stand
    `gap` apart (each box rests on two below), and the floor's rotation."""
    R = tilt(degrees)
    boxes = []
    for i in range(rows):
        k = rows - i
        for j in range(k):
            boxes.append(((0.5, 0.5, 0.5), R @ ((j - (k - 1) / 2.0) * (1.0 + gap), 0.0, 0.5 + i),
                          1.0))
    return boxes, R


def brick_wall(courses, bricks, joint=0.01):
    """A running-bond wall of 1 x 0.5 x 0.5 m bricks of 250 kg, each course shifted half a
    brick, `joint` apart."""
    boxes = []
    pitch = 1.0 + joint
    for c in range(courses):
        shift = 0.5 * pitch if c % 2 else 0.0
        for j in range(bricks - (c % 2)):
            boxes.append(((0.5, 0.25, 0.25),
                          np.array(((j - (bricks - 1) / 2.0) * pitch + shift, 0.0, 0.25 + 0.5 * c)),
                          250.0))
    return boxes, np.eye(3)


def mixed(courses, seed=7):
    """Courses of boxes 0.6-1.2 m wide, 0.4-0.8 m tall, 1-10 kg, 2 cm apart, each course
    narrower than the one under it (every box rests on boxes below)."""
    rng = np.random.default_rng(seed)
    boxes, z, span = [], 0.0, 7.0
    for _ in range(courses):
        widths = []
        while sum(widths) + 0.02 * len(widths) < span - 0.6:
            widths.append(rng.uniform(0.6, 1.2))
        total = sum(widths) + 0.02 * (len(widths) - 1)
        h = rng.uniform(0.4, 0.8)
        x = -0.5 * total + rng.uniform(-0.1, 0.1)
        for wdt in widths:
            boxes.append(((0.5 * wdt, 0.5, 0.5 * h), np.array((x + 0.5 * wdt, 0.0, z + 0.5 * h)),
                          float(rng.uniform(1.0, 10.0))))
            x += wdt + 0.02
        z += h
        span = total - 0.8
    return boxes, np.eye(3)


def build(layout, sleeping):
    boxes, R = layout
    w = lg.World(sleeping=sleeping)
    q = quat(R)
    w.add_body(lg.Box((40.0, 5.0, 0.5)), R @ (0.0, 0.0, -0.5), q, kind="static", friction=MU)
    ids = [w.add_body(lg.Box(h), c, q, mass=m, friction=MU) for h, c, m in boxes]
    return w, np.array(ids)


def sideways(layout, seconds):
    """The largest sideways (along the floor) move of any box from its pose 1 s in, over
    the next `seconds`, sleeping off."""
    w, ids = build(layout, sleeping=False)
    R = layout[1]
    for _ in range(SETTLE):
        w.step(FRAME)
    ref = w.positions[ids].copy()
    worst = 0.0
    for f in range(int(round(seconds / FRAME))):
        w.step(FRAME)
        if f % 30 == 29:
            d = (w.positions[ids] - ref) @ R
            worst = max(worst, float(np.linalg.norm(d[:, :2], axis=1).max()))
    return worst


def asleep_at(layout, limit=5.0):
    """When every box of the pile is asleep, at the defaults (None: not within `limit`)."""
    w, ids = build(layout, sleeping=True)
    for f in range(int(round(limit / FRAME))):
        w.step(FRAME)
        if all(w.is_sleeping(int(i)) for i in ids):
            return (f + 1) * FRAME
    return None


def courses(heavy_on_light, count=12):
    """Staggered courses of 1 m wide boxes, 3 cm apart, alternating 0.6 m and 0.3 m tall
    ones, one kind 10 kg and the other 1 kg (bench/piles.py's `courses`)."""
    boxes, z = [], 0.0
    for c in range(count):
        n, h = 12 - c, (0.3 if c % 2 else 0.6)
        mass = 10.0 if (c % 2 == 0) == heavy_on_light else 1.0
        for j in range(n):
            boxes.append(((0.5, 0.5, 0.5 * h),
                          np.array(((j - (n - 1) / 2.0) * 1.03, 0.0, z + 0.5 * h)), mass))
        z += h
    return boxes, np.eye(3)


LAYOUTS = {
    # 20 rows, neighbours 5 cm apart: crept ~1 mm/s, ringing at 4-6 cm/s, never slept
    "gapped pyramid": lambda: pyramid(20, 0.05),
    "touching pyramid": lambda: pyramid(20, 0.0),
    "brick wall": lambda: brick_wall(12, 10),
    "mixed sizes and masses 1:10": lambda: mixed(8),
    # 2 degrees, well under the friction angle (31 degrees)
    "tilted floor": lambda: pyramid(10, 0.05, degrees=2.0),
    "1 kg courses on 10 kg ones": lambda: courses(False),
}


@pytest.mark.xfail(strict=True, reason="10 kg boxes resting on 1 kg ones ring and walk "
                   "(28 mm in 10 s before the extra relax sweeps, 35 mm with them): the mass "
                   "ratio needs the contact solve's own fix")
def test_heavy_courses_on_light_ones_hold_still():
    layout = courses(True)
    drift = sideways(layout, 10.0)
    assert drift < 0.002 and asleep_at(layout) is not None, f"{drift * 1000:.2f} mm"


@pytest.mark.parametrize("name", list(LAYOUTS))
def test_pile_holds_still_for_10_s(name):
    drift = sideways(LAYOUTS[name](), 10.0)
    assert drift < 0.002, f"{name}: {drift * 1000:.2f} mm sideways in 10 s"


@pytest.mark.parametrize("name", list(LAYOUTS))
def test_pile_falls_asleep_within_5_s(name):
    t = asleep_at(LAYOUTS[name]())
    assert t is not None, f"{name}: still awake after 5 s"


def test_gapped_pyramid_holds_for_60_s():
    drift = sideways(pyramid(20, 0.05), 60.0)
    assert drift < 0.003, f"{drift * 1000:.2f} mm sideways in 60 s"


def test_taller_gapped_pyramid_holds_and_sleeps():
    # 30 rows (465 boxes), neighbours 5 cm apart: with only the two relax sweeps it rang at
    # 10-16 cm/s and walked 16 cm in 10 s; the relax pass's further sweeps over the contacts
    # still unsolved hold it
    layout = pyramid(30, 0.05)
    drift = sideways(layout, 10.0)
    assert drift < 0.002, f"{drift * 1000:.2f} mm sideways in 10 s"
    assert asleep_at(layout) is not None


def test_extra_relax_sweeps_do_not_depend_on_the_thread_count():
    # The relax pass's further sweeps take the manifolds their own rows left unsolved: two
    # ringing piles and a falling box step the same on one thread as on two (where the
    # islands run in different batches)
    def run(threads):
        w = lg.World(sleeping=False, threads=threads)
        w.add_body(lg.Box((60.0, 5.0, 0.5)), (0.0, 0.0, -0.5), kind="static", friction=MU)
        for x in (-15.0, 15.0):
            for h, c, m in pyramid(20, 0.05)[0]:
                w.add_body(lg.Box(h), c + (x, 0.0, 0.0), mass=m, friction=MU)
        w.add_body(lg.Box((0.3, 0.3, 0.3)), (0.0, 0.0, 3.0), mass=2.0, friction=MU)
        for _ in range(90):
            w.step(FRAME)
        return w.positions.copy(), w.orientations.copy()

    one, two = run(1), run(2)
    assert np.array_equal(one[0], two[0]) and np.array_equal(one[1], two[1])
