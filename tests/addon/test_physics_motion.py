"""The physics fix's options on a metarig ragdoll (addon/motion; scenarios in
tests/addon/scenarios/physics_motion.py): flights fixed with their height kept, measured on
the bodies Blender evaluates."""

import numpy as np
import pytest

G = 9.81


def _com(bodies, masses):
    masses = np.asarray(masses)
    return np.einsum("b,fbi->fi", masses, np.asarray(bodies)[:, :, :3, 3]) / masses.sum()


def _parabola_distance(t, points, g):
    """Largest distance of `points` from their least-squares parabola of curvature g (down
    Z): a line fitted to points + g t^2 / 2 with numpy's polyfit."""
    lifted = points + 0.5 * g * np.outer(t * t, [0, 0, 1])
    fitted = np.column_stack([np.polyval(np.polyfit(t, lifted[:, k], 1), t) for k in range(3)])
    return float(np.linalg.norm(lifted - fitted, axis=1).max())


def test_a_jump_fixed_with_its_height_kept_keeps_the_apex_and_its_length_follows(blender):
    out = blender.call("physics_motion.height_kept_jump")
    fps = out["fps"]
    keyed, fixed = np.array(out["keyed"]), np.array(out["fixed"])
    com_keyed, com = _com(keyed, out["masses"]), _com(fixed, out["masses"])
    assert [(p["kind"], p["first"], p["last"]) for p in out["phases"]] == \
        [("STANCE", 1, 10), ("FLIGHT", 11, 29), ("STANCE", 30, 40)]
    # the flight a parabola of g takes from the take-off's centre of mass (frame 10) up to
    # the keyed apex and down to the landing's (frame 30), in frames
    apex = com_keyed[10:29, 2].max()
    up, down = apex - com_keyed[9, 2], apex - com_keyed[29, 2]
    length = (np.sqrt(2 * up / G) + np.sqrt(2 * down / G)) * fps
    landing = 10 + length
    assert 12 < length < 19                   # shorter than the 20 frames keyed
    flight = [p for p in out["fixed_phases"] if p["kind"] == "FLIGHT"]
    assert len(flight) == 1 and flight[0]["first"] == 11
    # its last frame in the air by the check's contacts (a foot within 6 cm touches once it
    # slows down) before the landing
    assert landing - 2 <= flight[0]["last"] <= landing
    span = np.arange(11, int(np.floor(landing)) + 1)         # frames in the air
    t = span / fps
    fixed_air = com[span - 1]
    # the apex height kept within 5 mm (sampled at frames: below it by at most g (1/48 s)^2/2)
    assert abs(fixed_air[:, 2].max() - apex) < 0.005
    assert _parabola_distance(t, fixed_air, G) < 0.005
    curvature = 2 * np.polyfit(t, fixed_air[:, 2], 2)[0]
    assert curvature == pytest.approx(-G, rel=0.02)
    # take-off as keyed; the keys after it shift: the thighs' keys at 15, 25 and 30 are
    # stretched with the flight, the landing pose is held from the new landing on
    assert np.abs(fixed[:10] - keyed[:10]).max() < 1e-5
    scale = length / 20.0
    expected = [10.0, 10 + 5 * scale, 10 + 15 * scale, 10 + 20 * scale]
    assert out["thighs"] == [10.0, 15.0, 25.0, 30.0]
    assert out["fixed_thighs"] == pytest.approx(expected, abs=1e-4)
    after = int(np.ceil(landing)) + 1
    assert np.abs(fixed[after - 1:] - keyed[29]).max() < 1e-4
