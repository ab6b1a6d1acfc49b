"""The bake onto the controls' solve evaluates the rig only after a depth whose channels it
changed: a frame solved again for the same sources evaluates it once (to start from what
Blender shows), where it evaluated it once per depth and pass; the pose it leaves is the
sources' as Blender evaluates the rig. The scenario: tests/addon/scenarios/controls_solve.py."""


def test_a_frame_solved_again_evaluates_the_rig_once_and_lands_on_the_sources(blender):
    out = blender.call("controls_solve.solve_twice", 20.0)
    assert out["pairs"] >= 16 and out["depths"] >= 5, out
    assert out["bent_degrees"] > 30, out          # the sources are off the rig's rest
    first, again = out["updates"]
    # the first solve: a pass that moves every depth (one evaluation each) and one that finds
    # them settled
    assert first >= out["depths"], out
    assert again == 1, out
    assert out["same"], out
    mm, deg = out["worst"]
    assert mm < 0.1 and deg < 0.05, out
