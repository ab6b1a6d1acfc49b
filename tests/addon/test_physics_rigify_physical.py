"""Issue 43 item 3 on a rig Rigify generated: a motion that is already physical (a jump made
by simulating the ragdoll, baked onto the rig's controls) is changed by less than 5 mm by the
physics fix, as tests/addon/test_physics_check.py shows on the metarig. The scenario:
tests/addon/scenarios/physics_rigify_physical.py."""

import numpy as np

G = 9.81
DROP = 0.6      # metres: the scenario's drop (scenarios.physics_rigify_physical.DROP)


def test_a_simulated_fall_baked_onto_the_controls_is_physical_and_the_fix_moves_it_under_5_mm(
        blender):
    out = blender.call("physics_rigify_physical.simulated_fall_baked")
    # the bake went onto the generated rig's controls
    assert out["baked_onto"]["control_rig"] == out["rig"] and out["baked_onto"]["pairs"] > 0
    keyed, fixed = np.array(out["keyed"]), np.array(out["fixed"])
    masses = np.array(out["masses"])
    com = (keyed[:, :, :3, 3] * masses[None, :, None]).sum(1) / masses.sum()
    flights = [ph for ph in out["phases"] if ph["kind"] == "FLIGHT"]
    print("phases", out["phases"])
    assert flights and flights[0]["first"] == 1 and flights[0]["last"] >= 8   # the drop
    # the rig's bodies, as Blender shows them from the keyed controls, fell freely from rest
    # through the flight: the drop reached the controls
    last = flights[0]["last"]
    t = (last - 1) / out["fps"]
    # semi-implicit Euler's fall from rest over n substeps of h (velocity first, then
    # position): g h^2 n (n + 1) / 2 = g t (t + h) / 2, 1/2 g t h past the parabola (8.7 mm
    # here at 8 substeps, 17 at 4)
    h = 1.0 / (out["fps"] * out["substeps"])
    print("centre of mass fell", com[0, 2] - com[last - 1, 2], "m in", t, "s")
    assert abs((com[0, 2] - com[last - 1, 2]) - 0.5 * G * t * (t + h)) < 0.01
    assert 0.5 * G * t * t < DROP
    assert flights[0]["parabola_cm"] < 0.5
    # the same computed here: the bodies' centre of mass in the flight against the best
    # parabola of curvature g (its start and velocity fitted, least squares)
    times = np.arange(last) / out["fps"]
    rows = np.column_stack((np.ones(last), times))
    off = []
    for axis, gravity in ((0, 0.0), (1, 0.0), (2, -G)):
        y = com[:last, axis] - 0.5 * gravity * times ** 2
        fit = rows @ np.linalg.lstsq(rows, y, rcond=None)[0]
        off.append(y - fit)
    off = np.linalg.norm(np.array(off), axis=0).max()
    print("centre of mass off the parabola of g", off * 1000, "mm; |L| in the flight",
          np.linalg.norm(np.array(out["L"])[:last], axis=1))
    assert off < 0.005
    moved = np.linalg.norm(fixed[:, :, :3, 3] - keyed[:, :, :3, 3], axis=2)
    f, b = np.unravel_index(moved.argmax(), moved.shape)
    print("fix moved bodies at most", moved.max() * 1000, "mm:", out["names"][b], "frame",
          f + 1, "; bones keyed by the fix", out["fixed_bones"])
    assert moved.max() < 0.005
