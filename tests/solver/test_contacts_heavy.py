"""Heavy bodies resting on light ones: piles up to 10 000:1 in mass keep their order and sink
less than 5 mm at World() defaults (islands.py `_stiffen` steps such an island finer with
stiffer contacts), and the floor still carries the whole weight.
"""

import numpy as np
import pytest

import solver as lg

FRAME = 1.0 / 60.0
G = 9.81
SINK = 0.005             # m


@pytest.mark.parametrize("ratio", [1e3, 1e4])
def test_heavy_box_on_light_box_keeps_the_order_and_sinks_under_5_mm(ratio):
    w = lg.World()
    floor = w.add_body(lg.Plane(), (0, 0, 0), kind="static")
    light = w.add_body(lg.Box((0.5, 0.5, 0.5)), (0, 0, 0.5), mass=1.0)
    heavy = w.add_body(lg.Box((0.5, 0.5, 0.5)), (0, 0, 1.5), mass=ratio)
    for _ in range(180):
        w.step(FRAME)
        pl, ph = w.positions[light], w.positions[heavy]
        assert ph[2] - pl[2] > 1.0 - SINK, (pl, ph)       # stacked, face on face
    assert abs(pl[2] - 0.5) < SINK and abs(ph[2] - 1.5) < SINK, (pl, ph)
    # in place: squeezed out, the light box left by the box's half width (0.5 m); the pair
    # still creeps a few mm sideways in 3 s at 10 000:1 (the walking of tests/solver/
    # test_piles.py's heavy courses)
    assert np.linalg.norm(pl[:2]) < 0.01 and np.linalg.norm(ph[:2]) < 0.01, (pl, ph)


@pytest.mark.parametrize("ratio", [1e3, 1e4])
def test_floor_under_the_light_box_carries_both_weights(ratio):
    # Stepped finer, the pile still passes the heavy box's whole weight down: over a second
    # of rest the floor pushes the light box up with (M + m) g. Sleeping off, so the
    # contacts keep working for the whole second.
    w = lg.World(sleeping=False)
    floor = w.add_body(lg.Plane(), (0, 0, 0), kind="static")
    light = w.add_body(lg.Box((0.5, 0.5, 0.5)), (0, 0, 0.5), mass=1.0)
    w.add_body(lg.Box((0.5, 0.5, 0.5)), (0, 0, 1.5), mass=ratio)
    pushed = []
    for f in range(180):
        w.step(FRAME)
        if f >= 120:
            others, imp = w.contact_impulses(light)
            pushed.append(imp[list(others).index(floor), 2])
    expected = (ratio + 1.0) * G * FRAME
    assert abs(np.mean(pushed) - expected) < 0.01 * expected, (np.mean(pushed), expected)


@pytest.mark.parametrize("ratio", [1e3, 1e4])
def test_heavy_slab_on_four_light_legs_sinks_under_5_mm(ratio):
    w = lg.World()
    w.add_body(lg.Plane(), (0, 0, 0), kind="static")
    feet = [(-0.9, -0.9), (-0.9, 0.9), (0.9, -0.9), (0.9, 0.9)]
    legs = [w.add_body(lg.Box((0.1, 0.1, 0.25)), (x, y, 0.25), mass=1.0) for x, y in feet]
    slab = w.add_body(lg.Box((1.0, 1.0, 0.1)), (0, 0, 0.6), mass=4 * ratio)
    for _ in range(180):
        w.step(FRAME)
    assert abs(w.positions[slab, 2] - 0.6) < SINK, w.positions[slab]
    for leg, foot in zip(legs, feet):
        p = w.positions[leg]
        assert abs(p[2] - 0.25) < SINK and np.linalg.norm(p[:2] - foot) < SINK, p


@pytest.mark.parametrize("ratio, finer", [(50.0, 1), (100.0, 1), (1e3, 4), (1e4, 10),
                                           (1e6, 16)])
def test_only_touching_bodies_over_100_to_1_step_finer(ratio, finer):
    # The depth a soft row settles at grows with the ratio and falls with the square of the
    # contact hertz: ceil(sqrt(ratio / 100)) times the substeps (and hertz) keeps it at the
    # 100:1 pair's 3 mm, up to 16 times. A box alone beside the pile steps as the world.
    w = lg.World()
    w.add_body(lg.Plane(), (0, 0, 0), kind="static")
    light = w.add_body(lg.Box((0.5, 0.5, 0.5)), (0, 0, 0.5), mass=1.0)
    heavy = w.add_body(lg.Box((0.5, 0.5, 0.5)), (0, 0, 1.5), mass=ratio)
    alone = w.add_body(lg.Box((0.5, 0.5, 0.5)), (5, 0, 0.5), mass=ratio)
    w.step(FRAME)
    counts = w._bsub.view
    assert counts[light] == counts[heavy] == finer * w.substeps
    assert counts[alone] == w.substeps
