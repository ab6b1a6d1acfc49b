"""Piles a user builds come to rest at `World()` defaults (issue 31, "Stacks creep").

Boxes resting on boxes under static friction must not move: from the pose they settle into
(1 s in) no box may move more than 2 mm sideways (along the floor) in the next 10 s, and
the pile must fall asleep within 5 s. The drift is measured with sleeping off, so the solve
itself holds the pile (asleep it would stand still by decree); the sleeping run checks the
sleep. bench/piles.py prints the same layouts' figures beside Blender's Bullet, over 60 s.
"""

import os
import sys

import numpy as np
import pytest

import solver as lg

BENCH = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "bench")
if BENCH not in sys.path:
    sys.path.insert(0, BENCH)

import piles  # noqa: E402  (bench/piles.py: the layouts, the same scenes it runs with Bullet)

FRAME = 1.0 / 60.0
SETTLE = 60          # frames: the drift is measured from the poses 1 s in


class Drift:
    """A pile stepped from its pose 1 s in, measuring the largest sideways (along the floor)
    move of any box from that pose every half second, sleeping off (or on); stepped further
    when asked for a longer time than it has run."""

    def __init__(self, scene, sleeping=False):
        self.w, self.ids = piles.Ligament(scene, sleeping=sleeping).w, scene.dynamic
        self.R = piles.floor_frame(scene)
        for _ in range(SETTLE):
            self.w.step(FRAME)
        self.ref = self.w.positions[self.ids].copy()
        self.frames = 0
        self.worst = 0.0

    def until(self, seconds):
        """The largest sideways move over the first `seconds` after the pose 1 s in."""
        frames = int(round(seconds / FRAME))
        assert frames >= self.frames, "a drift already measured past that time"
        while self.frames < frames:
            self.w.step(FRAME)
            if self.frames % 30 == 29:
                d = (self.w.positions[self.ids] - self.ref) @ self.R
                self.worst = max(self.worst, float(np.linalg.norm(d[:, :2], axis=1).max()))
            self.frames += 1
        return self.worst


def sideways(scene, seconds, sleeping=False):
    """The largest sideways (along the floor) move of any box from its pose 1 s in, over
    the next `seconds`, sleeping off (or on)."""
    return Drift(scene, sleeping).until(seconds)


# The 20-row gapped pyramid's drift over 10 s and over 60 s, sleeping off: one run, the
# 60 s check continuing the 10 s one's world (the same steps a fresh world would take)
_gapped = {}


def gapped_pyramid_drift(seconds):
    if "run" not in _gapped:
        _gapped["run"] = Drift(piles.pyramid(20, 0.05))
    return _gapped["run"].until(seconds)


def asleep_at(scene, limit=5.0):
    """When every box of the pile is asleep, at the defaults (None: not within `limit`)."""
    w, ids = piles.Ligament(scene, sleeping=True).w, scene.dynamic
    for f in range(int(round(limit / FRAME))):
        w.step(FRAME)
        if all(w.is_sleeping(int(i)) for i in ids):
            return (f + 1) * FRAME
    return None


LAYOUTS = {
    # 20 rows, neighbours 5 cm apart: crept ~1 mm/s, ringing at 4-6 cm/s, never slept
    "gapped pyramid": lambda: piles.pyramid(20, 0.05),
    "touching pyramid": lambda: piles.pyramid(20, 0.0),
    "brick wall": lambda: piles.brick_wall(12, 10),
    "mixed sizes and masses 1:10": lambda: piles.mixed(8),
    # 2 degrees, well under the friction angle (31 degrees)
    "tilted floor": lambda: piles.pyramid(10, 0.05, degrees=2.0),
    "1 kg courses on 10 kg ones": lambda: piles.courses(False),
}


@pytest.mark.xfail(strict=True, reason="10 kg boxes resting on 1 kg ones ring and walk "
                   "(28 mm in 10 s before the extra relax sweeps, 35 mm with them, 6.0 mm "
                   "with a face's points in four orders): the mass ratio needs more")
@pytest.mark.slow
def test_heavy_courses_on_light_ones_hold_still_awake():
    drift = sideways(piles.courses(True), 10.0)
    assert drift < 0.002, f"{drift * 1000:.2f} mm"


def test_heavy_courses_on_light_ones_rest_at_the_defaults():
    # sleeping on, as World() has it: the courses settle and sleep before they walk
    layout = piles.courses(True)
    drift = sideways(layout, 10.0, sleeping=True)
    assert drift < 0.002, f"{drift * 1000:.2f} mm sideways in 10 s"
    assert asleep_at(layout) is not None


@pytest.mark.slow
@pytest.mark.parametrize("name", list(LAYOUTS))
def test_pile_holds_still_for_10_s(name):
    if name == "gapped pyramid":
        drift = gapped_pyramid_drift(10.0)
    else:
        drift = sideways(LAYOUTS[name](), 10.0)
    assert drift < 0.002, f"{name}: {drift * 1000:.2f} mm sideways in 10 s"


@pytest.mark.parametrize("name", list(LAYOUTS))
def test_pile_falls_asleep_within_5_s(name):
    t = asleep_at(LAYOUTS[name]())
    assert t is not None, f"{name}: still awake after 5 s"


@pytest.mark.slow
def test_gapped_pyramid_holds_for_60_s():
    drift = gapped_pyramid_drift(60.0)
    assert drift < 0.003, f"{drift * 1000:.2f} mm sideways in 60 s"


@pytest.mark.slow
def test_taller_gapped_pyramid_holds_and_sleeps():
    # 30 rows (465 boxes), neighbours 5 cm apart: with only the two relax sweeps it rang at
    # 10-16 cm/s and walked 16 cm in 10 s; the relax pass's further sweeps over the contacts
    # still unsolved hold it
    layout = piles.pyramid(30, 0.05)
    drift = sideways(layout, 10.0)
    assert drift < 0.002, f"{drift * 1000:.2f} mm sideways in 10 s"
    assert asleep_at(layout) is not None


@pytest.mark.slow
def test_wall_solved_on_every_thread_holds_and_sleeps():
    # 20 courses of 30 bricks (590): one island of some 2000 manifolds, swept block by block
    # and colour by colour on the threads there are (solver/colours.py); colouring every
    # contact instead let the 20-row gapped pyramid creep 9 mm in 10 s
    layout = piles.brick_wall(20, 30)
    drift = sideways(layout, 10.0)
    assert drift < 0.002, f"{drift * 1000:.2f} mm sideways in 10 s"
    assert asleep_at(layout) is not None


@pytest.mark.slow
def test_forty_row_gapped_pyramid_holds():
    # 820 boxes: crept 54 mm in 10 s while every sweep took a face's contact points in the
    # same order (the relax pass's extra sweeps held 30 rows, not 40); four orders in turn
    # (contacts.solve_manifold) hold it
    drift = sideways(piles.pyramid(40, 0.05), 10.0)
    assert drift < 0.002, f"{drift * 1000:.2f} mm sideways in 10 s"


def test_column_kept_awake_does_not_rock():
    # 30 boxes of 1 m stacked straight up, sleeping off. With a face's points swept in one
    # order every sweep the top rocked 42 mm (23 along X, 35 along Y) between 1 s and 11 s;
    # reversing every other sweep mirrors a face along one axis only (28 mm along X); four
    # orders, its mirror images and its half turn, hold it within a fraction of a millimetre
    drift = sideways(piles.column(30), 10.0)
    assert drift < 0.001, f"{drift * 1000:.2f} mm sideways in 10 s"


@pytest.mark.slow
def test_extra_relax_sweeps_do_not_depend_on_the_thread_count():
    # The relax pass's further sweeps take the manifolds their own rows left unsolved: two
    # ringing piles and a falling box step the same on one thread as on two (where the
    # islands run in different batches)
    def run(threads):
        w = lg.World(sleeping=False, threads=threads)
        w.add_body(lg.Box((60.0, 5.0, 0.5)), (0.0, 0.0, -0.5), kind="static",
                   friction=piles.MU)
        boxes = piles.pyramid(20, 0.05).bodies[1:]            # without its floor
        for x in (-15.0, 15.0):
            for b in boxes:
                w.add_body(lg.Box(b.size), np.add(b.position, (x, 0.0, 0.0)), mass=b.mass,
                           friction=piles.MU)
        w.add_body(lg.Box((0.3, 0.3, 0.3)), (0.0, 0.0, 3.0), mass=2.0, friction=piles.MU)
        for _ in range(90):
            w.step(FRAME)
        return w.positions.copy(), w.orientations.copy()

    one, two = run(1), run(2)
    assert np.array_equal(one[0], two[0]) and np.array_equal(one[1], two[1])
