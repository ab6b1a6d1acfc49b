"""A scene built in centimetres (Unit Scale 0.01, every length x100, gravity -981) moves as the
same scene built in metres: a metarig ragdoll dropped onto the ground falls the same and settles
the same. The scenario:
tests/addon/scenarios/scene_scale.py."""


def test_ragdoll_in_centimetres_falls_and_settles_as_in_metres(blender):
    metres = blender.call("scene_scale.ragdoll_drop", 1.0)
    centi = blender.call("scene_scale.ragdoll_drop", 100.0)
    assert metres["error"] is None and centi["error"] is None
    assert abs(centi["unit"] - 0.01) < 1e-9 and metres["unit"] == 1.0   # float32 in Blender
    assert centi["names"] == metres["names"]
    for a, b in zip(centi["masses"], metres["masses"]):
        assert abs(a - b) <= 1e-4 * b
    def gap(frame):
        return max(abs(x - y) for pc, pm in zip(centi["track"][frame], metres["track"][frame])
                   for x, y in zip(pc, pm))
    # The same fall to the ground, to 1 mm (the character lands at about frame 19). Blender
    # keeps the bones in float32, so the two rigs start apart by its rounding (1e-6 m); the
    # landing, a chaotic impact, grows that to centimetres over the next second, as it
    # would between two runs of the metre scene with a bone moved by a micrometre.
    assert max(gap(f) for f in range(24)) <= 1e-3
    # and the same settling: the bodies' mean height at the end within 2 cm, on the ground
    def mean_height(out):
        return sum(p[2] for p in out["track"][-1]) / len(out["track"][-1])
    assert abs(mean_height(centi) - mean_height(metres)) <= 0.02
    assert mean_height(metres) < 0.3
