"""Before Simulation Start, and outside a baked range, the user's animation plays as keyed: a
ragdoll's bones play their keys until the simulation starts, and a bake writes its keys over
the baked frames only, keeping the user's keys before and after them.
The scenarios: tests/addon/scenarios/keys_before_start.py."""

import pytest

pytestmark = pytest.mark.usefixtures("blender")


def test_a_ragdolls_bones_play_their_keys_before_the_start_and_its_bake_keeps_them(blender):
    """A metarig whose arm rises over frames 1-60, ragdolled with the simulation starting at
    frame 20: on frames 1-19 its bones are where the keys put them (measured before the
    ragdoll was made), not pinned to the frame-20 pose; a bake of frames 20-30 keeps the
    bones' keys before frame 20, so the baked rig still plays them there."""
    out = blender.call("keys_before_start.ragdoll_keys_before_the_start")
    assert out["error"] is None

    def worst(a, b):
        return max(abs(x - y) for f in a for bone in a[f]
                   for ra, rb in zip(a[f][bone], b[f][bone]) for x, y in zip(ra, rb))
    assert worst(out["keyed"], out["live"]) < 1e-4
    # the user's keys are all there (with one on frame 19, where the bake's keys take over)
    after = {(p, i): keys for p, i, keys in out["after"]}   # the bake adds location curves
    for p, i, keys in out["before"]:
        assert [k for k in after[p, i] if k[0] < 19] == keys, (p, i, keys, after[p, i])
    assert worst(out["keyed"], out["baked"]) < 1e-4


def test_a_bake_keeps_a_keyed_bodys_keys_before_the_start(blender):
    """A box keyed to be thrown in over frames 1-10 (x from -5 to 0, high up), simulated from
    frame 10: after a bake of frames 10-40 it still comes in on frames 1-9 as keyed (it sat
    at its frame-10 pose on every frame before the start)."""
    out = blender.call("keys_before_start.thrown_body_baked_from_frame_10")
    assert out["error"] is None
    assert out["landed"] < 0.3                     # the bake holds the fall
    for f in out["keyed"]:
        assert max(abs(a - b) for a, b in zip(out["keyed"][f], out["baked"][f])) < 1e-5, \
            (f, out["keyed"][f], out["baked"][f])


def test_baking_part_of_an_armed_animated_bodys_shot_keeps_its_keys_outside_it(blender):
    """An Animated box with a Hit Impulse keyed over frames 1-60, baked over frames 20-30
    only: outside 20-30 it plays its own keys as before (its motion was frozen there)."""
    out = blender.call("keys_before_start.armed_body_baked_over_part_of_its_shot")
    assert out["error"] is None
    for f in out["keyed"]:
        assert max(abs(a - b) for a, b in zip(out["keyed"][f], out["baked"][f])) < 1e-5, \
            (f, out["keyed"][f], out["baked"][f])
