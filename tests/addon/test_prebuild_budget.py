"""The idle-time build after an edit holds Blender's main thread only while that is short:
the add-on records how long each build took (its scene check included), and a scene whose
last build took longer than 0.2 s is built when the animation plays, not after every edit.
The scenarios: tests/addon/scenarios/prebuild_budget.py (four crates, two hinged, on a
floor)."""


def test_a_build_records_how_long_it_held_the_caller(blender):
    out = blender.call("prebuild_budget.measured_build")
    assert out["built"]
    # the build is part of the timer's call (a slow one is measured whole: the next test)
    assert 0.0 < out["recorded"] <= out["wall"]


def test_a_scene_slow_to_build_is_built_at_play_not_after_each_edit(blender):
    out = blender.call("prebuild_budget.slow_build", 0.5, 20)
    plain = blender.call("prebuild_budget.plain_play", 20)
    assert out["first"]["built"] and out["first"]["recorded"] > 0.5
    assert out["dropped"]                       # the edit dropped that build ...
    # ... and the timer did not build it again: it came back at once, nothing built
    assert out["again"] is None and not out["built_idle"]
    assert out["held"] < 0.2
    assert out["reported"] and "0.5 s" in out["reported"][0]
    # the start frame built it, and it plays as a scene built at play
    assert out["frames"] == plain
