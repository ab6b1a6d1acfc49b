"""Issue 44, item 5: the 30 x 30 joint grid no slower than Blender's Bullet at 4 substeps and
10 iterations in the same run, its joints held within 1 mm (tests/solver/test_loops.py holds
the smaller and larger grids to that). The scenario: tests/addon/scenarios/loop_cost.py."""


def test_30x30_joint_grid_costs_no_more_than_bullet(blender):
    out = blender.call("loop_cost.joint_grid_beside_bullet", 30, 120)
    ratio = out["ligament"] / out["bullet"]
    print(f"30x30 joint grid, CPU ms a frame: Ligament {1000 * out['ligament']:.2f}, "
          f"Bullet {1000 * out['bullet']:.2f} ({ratio:.2f}x); Ligament's gap "
          f"{out['gap']:.1e} m")
    assert out["gap"] < 1e-3, f"a joint opened {1000 * out['gap']:.2f} mm (allowed 1)"
    assert ratio <= 1.0, f"Ligament's grid took {ratio:.2f}x Bullet's CPU time a frame"
