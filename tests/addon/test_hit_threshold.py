"""What a hit is (addon/world/hits.py): an Animated body with a Hit Impulse is hit by an impulse
above what carrying its load over the frame takes, so the same threshold means the same at
any frame rate, and a platform lifting a crate is not hit by the crate's weight.

Two keyed platforms with a Hit Impulse of 5 N s, at 24 and at 60 fps:
* Lift rises 0.5 m in two seconds (eased keys) carrying a 20 kg crate resting on it from the
  start. The crate's weight alone is 20 * 9.81 / fps N s a frame: 8.2 at 24 fps, 3.3 at 60,
  one side and the other of the threshold; carrying it is no hit at either rate.
* Anvil stands still and a 2 kg block dropped from 2 m above lands on it at about 6.3 m/s: a
  real hit of about 2 * 6.3 = 12.5 N s (independent of the frame rate) at both.

The scenario: tests/addon/scenarios/hit_threshold.py."""

import math

import pytest


@pytest.fixture(scope="module")
def runs(blender):
    return blender.call("hit_threshold.platforms_at", [24, 60])


@pytest.mark.parametrize("fps", [24, 60])
def test_carrying_a_crate_is_no_hit_and_the_lift_follows_its_keys(runs, fps):
    run = runs[str(fps)]
    assert [h for h in run["hits"] if h[1] == "Lift"] == []
    # the lift stayed on its keys, the crate rode on it (its centre 0.1 + 0.25 m above)
    assert run["lift_z"] == pytest.approx(run["keys_z"], abs=1e-6)
    assert run["lift_z"][-1] == pytest.approx(0.875, abs=1e-6)
    assert run["crate_z"][-1] == pytest.approx(0.875 + 0.125 + 0.25, abs=0.01)


@pytest.mark.parametrize("fps", [24, 60])
def test_a_block_dropped_on_the_anvil_is_a_hit_at_any_frame_rate(runs, fps):
    run = runs[str(fps)]
    hits = [h for h in run["hits"] if h[1] == "Anvil"]
    assert hits, "the dropped block's hit went unnoticed"
    frame, _, impulse = hits[0]
    # it lands after falling 2 m: sqrt(2 h / g) = 0.64 s
    assert abs((frame - 1) / fps - math.sqrt(2 * 2.0 / 9.81)) <= 2.0 / fps
    # most of its momentum sqrt(2 g h) * 2 kg, whatever the frame rate
    assert 0.7 * 2 * math.sqrt(2 * 9.81 * 2.0) <= impulse <= 1.3 * 2 * math.sqrt(2 * 9.81 * 2.0)
