"""Joints closing many loops hold in Blender as they do headless (tests/solver/test_loops.py):
a wall of bricks welded with Fixed joints, hung from two corners, neither opens nor sags.
The scenario: tests/addon/scenarios/loops.py."""


def test_hanging_welded_wall_stays_rigid(blender):
    out = blender.call("loops.hanging_welded_wall", 10, 120)
    # rigid welds: the wall hangs as built (solved by the sweep alone, a weld opened 12.4 mm)
    assert out["gap"] < 1e-3, f"a weld opened {1000 * out['gap']:.2f} mm (allowed 1)"
    assert abs(out["drop"]) < 1e-3, f"the wall sagged {1000 * out['drop']:.2f} mm (allowed 1)"
