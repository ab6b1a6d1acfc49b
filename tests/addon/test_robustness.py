"""Bad scenes in Blender that used to go silently wrong or stop everything: a body flattened
to zero scale (left out and named, the rest simulates), an Empty marked as a body (it
collides as the shape it shows, with a warning), the frame rate changed while a
simulation is cached (the frames after it are the new rate's, never a stale or start
pose). The scenarios: tests/addon/scenarios/robustness.py."""

G = 9.81


def test_a_zero_scale_body_is_left_out_and_named_and_the_rest_simulates(blender):
    out = blender.call("robustness.zero_scale_body")
    t = 11 / 24
    assert out["error"] is None
    assert list(out["skipped"]) == ["Flat"] and "zero scale" in out["skipped"]["Flat"]
    assert list(out["joints"]) == ["Hinge"], "the joint on the left-out body is skipped too"
    # the crate fell freely (its hinge partner gone), the flat box stayed where it is
    assert abs(out["crate_z"] - (5 - G * t * (t + 1 / 24 / 8) / 2)) < 0.02, out["crate_z"]
    assert out["flat_z"] == 5.0
    assert any("body 'Flat' skipped" in line for line in out["reported"]), out["reported"]
    assert ["ERROR", "body-skipped", ["Flat"]] in [list(f) for f in out["findings"]]
    assert out["baked"] == ["Crate"]
    assert out["fixed_skipped"] == {} and out["fixed_z"] < 4.5


def test_an_empty_body_collides_as_the_shape_it_shows_with_a_warning(blender):
    out = blender.call("robustness.empty_bodies")
    # resting on the floor at half their height: the display size times the Z scale
    assert abs(out["z"]["Cube"] - 0.5 * 0.6) < 0.005, out["z"]
    assert abs(out["z"]["Axes"] - 0.5 * 0.6) < 0.005, out["z"]
    assert abs(out["z"]["Ball"] - 0.5) < 0.005, out["z"]   # a sphere takes the largest axis
    assert out["warnings"] == ["Axes", "Ball", "Cube"]
    # a mesh shape on an Empty: an error naming it, saying why
    assert "'Axes'" in out["hull"] and "Empty" in out["hull"], out["hull"]


def test_a_frame_rate_change_simulates_again_at_the_new_rate(blender):
    out = blender.call("robustness.frame_rate_changed_after_frame_20")
    fresh = blender.call("robustness.frame_rate_30_from_the_start")
    # each frame after the change is where a scene made at 30 fps has it, and that is a free
    # fall at 30 fps (the substeps' sum, within 2 cm), not the 24 fps frame nor the start
    assert out["after"] == [z for _, z in fresh]
    for f, z in zip(range(21, 25), out["after"]):
        t = (f - 1) / 30
        assert abs(z - (50 - G * t * t / 2)) < 0.02, (f, z)
    assert abs(out["before"] - (50 - G * (19 / 24) ** 2 / 2)) < 0.02
    assert out["edited"] == out["before"], "the edit itself moves nothing"
