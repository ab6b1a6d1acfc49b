"""Joints closing many loops hold as exactly as trees (issue 44, item 5): a hanging grid of
ball sockets, a welded slab and a welded truss at `World()` defaults, their gaps measured
from each body's own anchor (loop_scenes.py), and their supports' forces against statics."""

import pytest

from loop_scenes import joint_grid, run, welded_slab, welded_truss
from probes import FRAME, G, note

GAP = 1e-3          # m: every joint within 1 mm after 2 s, over every frame


@pytest.mark.parametrize("n", [10, 20])
def test_hanging_joint_grid_stays_joined(n):
    worst, end, _ = run(joint_grid(n))
    note(f"{n}x{n} joint grid: largest gap (m)", worst, f"< {GAP}")
    assert worst < GAP, f"{n}x{n} grid of ball sockets opened {1000 * worst:.2f} mm (allowed 1)"


@pytest.mark.slow
def test_hanging_50x50_joint_grid_stays_joined():
    worst, end, _ = run(joint_grid(50))
    note("50x50 joint grid: largest gap (m)", worst, f"< {GAP}")
    assert worst < GAP, f"50x50 grid of ball sockets opened {1000 * worst:.2f} mm (allowed 1)"


def test_welded_slab_stays_rigid():
    # Rigid welds: the slab hangs as built, its bottom row neither opens nor sags.
    worst, end, sag = run(welded_slab(10))
    note("10x10 welded slab: largest gap, sag (m)", (worst, sag), f"< {GAP} each")
    assert worst < GAP, f"welded slab opened {1000 * worst:.2f} mm (allowed 1)"
    assert abs(sag) < GAP, f"welded slab sagged {1000 * sag:.2f} mm (allowed 1)"


def test_welded_truss_sags_only_by_its_welds_error():
    worst, end, sag = run(welded_truss())
    note("10-bay welded truss: largest gap, sag (m)", (worst, sag), f"< {GAP} each")
    assert worst < GAP, f"welded truss opened {1000 * worst:.2f} mm (allowed 1)"
    assert abs(sag) < GAP, f"welded truss sagged {1000 * sag:.2f} mm (allowed 1)"


def _support_forces(w, joints):
    return [w.joint_impulse(j)[0] / FRAME for j in joints]


def test_slab_supports_carry_its_weight():
    # Hung still from two pins at the same height, the slab's weight splits evenly between
    # them (symmetry), whatever its redundant welds inside carry.
    n, mass = 10, 10.0
    w, pairs, probe = welded_slab(n, mass=mass)
    pins = [w.joint_count - 2, w.joint_count - 1]
    run((w, pairs, probe), seconds=2.0)
    up = [f[2] for f in _support_forces(w, pins)]
    weight = n * n * mass * G
    note("slab supports' vertical forces (N)", up, f"{weight / 2:.1f} each within 1 %")
    for f in up:
        assert abs(f - weight / 2) < 0.01 * weight / 2, \
            f"a support carries {f:.1f} N of the slab's {weight:.1f} N (half: {weight / 2:.1f})"


@pytest.mark.parametrize("factor, breaks", [(0.8, True), (1.25, False)])
def test_breakable_pin_under_a_welded_slab_reads_its_weight(factor, breaks):
    # A 9 x 9 welded slab hung from one pin above its centre of mass: however its redundant
    # welds share the load inside, the pin carries the whole weight (statics). Rated below
    # it the pin breaks, rated above it the pin holds and reads the weight.
    n, mass = 9, 10.0
    weight = n * n * mass * G
    w, pairs, probe = welded_slab(n, mass=mass, hangers=(n // 2,),
                                  break_force=factor * weight)
    pin = w.joint_count - 1
    broken = False
    for _ in range(60):
        w.step(FRAME)
        broken = broken or w.joint_broken(pin)
    if breaks:
        assert broken, f"a pin rated {factor} x the weight ({factor * weight:.0f} N) held"
        return
    assert not broken, f"a pin rated {factor} x the slab's weight broke"
    force = _support_forces(w, [pin])[0]
    note("the pin's force (N)", force, f"(0, 0, {weight:.1f}) within 1 %")
    assert abs(force[2] - weight) < 0.01 * weight and abs(force[0]) < 0.01 * weight, \
        f"the pin carries {force} N of the slab's {weight:.1f} N"
