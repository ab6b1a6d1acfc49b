"""Hit reactions: an Animated body with a Hit Impulse follows its keys until a contact pushes it
harder than that in one frame, then simulates, and with Blend Back returns onto its keys.

The scene: no gravity, a 2 kg frictionless box keyed to slide 2 m along X in a second and back,
and a 20 kg frictionless ball floating in its way. Without gravity and friction the ball's
momentum change over a frame is the contact's impulse, an independent measure of the hit.
The scenarios: tests/addon/scenarios/hits.py."""

import numpy as np
import pytest


pytestmark = pytest.mark.usefixtures("blender")


@pytest.fixture(scope="module")
def runs(blender):
    return blender.call("hits.four_plays")


def _hit_impulses(run):
    """The contact impulse on the box per frame as the ball measures it (its momentum change,
    N s), frames 1..: index i is the step that ends at frame i + 1."""
    v = np.array(run["vel"]["Ball"])
    return 20.0 * np.linalg.norm(np.diff(v, axis=0), axis=1)


def test_hit_body_follows_its_keys_exactly_until_the_first_frame_it_is_pushed_harder(runs):
    pushes = _hit_impulses(runs["off"])
    expected = int(np.argmax(pushes > 10.0)) + 2            # frame of the first step past it
    assert pushes.max() > 10.0
    for name in ("stay", "blend"):
        run = runs[name]
        (frame, body, impulse), = [h for h in run["hits"] if h[0] == expected] or [(None,) * 3]
        assert (frame, body) == (expected, "Target"), run["hits"]
        assert run["hits"][0][0] == expected
        # the impulse it reacted to is what the ball took from the keyed box in that frame
        assert impulse == pytest.approx(pushes[expected - 2], rel=1e-6)
        world, keys = np.array(run["world"]), np.array(run["keys"])
        # frames 1 .. hit - 1 on the keys; the hit frame is simulated (see the next test)
        assert np.abs(world[:expected - 1] - keys[:expected - 1]).max() < 1e-6
        assert run["shown"][0] == expected


def test_right_after_the_hit_the_body_moves_as_its_keys_did_plus_what_the_hit_gave_it(runs):
    run = runs["stay"]
    hit = run["hits"][0][0]
    keys = np.array(run["keys"])
    keyed_velocity = (keys[hit - 1] - keys[hit - 2]) * 24.0
    v_box = np.array(run["vel"]["Target"][hit - 1])
    v_ball = np.array(run["vel"]["Ball"])
    ball_gain = 20.0 * (v_ball[hit - 1] - v_ball[hit - 2])
    # the box gives way: what the ball gained the box lost, from the velocity of its keys
    assert 2.0 * (v_box - keyed_velocity) == pytest.approx(-ball_gain, abs=1e-6)
    assert np.linalg.norm(ball_gain) > 1.0
    # a 2 kg box hitting a 20 kg ball: it does not push it as its keys would have
    assert np.linalg.norm(ball_gain) < 0.5 * runs["stay"]["hits"][0][2]


def test_moving_a_hit_body_off_its_keys_is_not_taken_for_an_edit(runs):
    assert [runs[name]["builds"] for name in ("off", "stay", "blend", "above")] == [0] * 4


def test_without_blend_back_the_hit_body_stays_simulated(runs):
    run = runs["stay"]
    hit = run["hits"][0][0]
    world, keys = np.array(run["world"]), np.array(run["keys"])
    assert np.linalg.norm(world[hit - 1:] - keys[hit - 1:], axis=1).min() > 1e-3
    assert len(run["hits"]) == 1


def test_blend_back_lands_exactly_on_the_keys_after_that_many_frames_without_a_jump(runs):
    run = runs["blend"]
    hit = run["hits"][0][0]
    world, keys = np.array(run["world"]), np.array(run["keys"])
    rot = np.array(run["rot"])
    off = np.linalg.norm(world - keys, axis=1)
    assert off[hit - 1:hit + 5].max() > 0.02                  # knocked off its keys
    assert off[hit + 5:].max() < 1e-6                         # frame hit + 6 on: its keys
    assert np.abs(np.abs(rot[hit + 5:, 0]) - 1.0).max() < 1e-6
    # pulled back by a drive: the last simulated frame is already near the keys, and no
    # step of the way back is a jump
    step = np.linalg.norm(np.diff(world[hit - 1:hit + 7], axis=0), axis=1)
    keyed_step = np.linalg.norm(np.diff(keys[hit - 1:hit + 7], axis=0), axis=1)
    assert off[hit + 4] < 0.25 * off[hit - 1:hit + 5].max(), off[hit - 1:hit + 6]
    assert (step - keyed_step).max() < 0.06, step


def test_a_threshold_above_the_hit_changes_nothing(runs):
    off, above = runs["off"], runs["above"]
    assert above["hits"] == [] and above["shown"] == []
    assert np.array_equal(np.array(above["world"]), np.array(off["world"]))
    assert np.array_equal(np.array(above["ball"]), np.array(off["ball"]))


def test_replaying_from_a_cached_frame_and_baking_give_the_live_hit(blender):
    out = blender.call("hits.replayed_and_baked")
    live = np.array(out["live"])
    assert np.array_equal(np.array(out["replay"]), live)
    assert np.abs(np.array(out["baked"]) - live).max() < 1e-5


def test_batch_report_lists_each_hit_with_its_frame_and_impulse(blender, tmp_path):
    src, report = tmp_path / "shot.blend", tmp_path / "shot.json"
    out = blender.call("hits.batch_report", str(src), str(report))
    assert out["code"] == 0
    (frame, body, impulse), = out["live"]
    assert out["report"]["hits"] == [{"body": body, "frame": frame,
                                      "impulse": round(impulse, 6)}]
    assert "Target" in out["report"]["baked_objects"]


def test_ragdoll_hit_in_the_chest_goes_limp_there_and_blends_back(blender):
    """A metarig glides forward at 2 m/s following its animation (every part animated, no
    gravity) into a floating 5 kg ball at chest height. The chest reacts to hits: from the
    hit it, the parts jointed to it and those beyond them (spine, head, arms, hands) simulate;
    the pelvis and legs follow the animation throughout; eight frames later every part is on
    the animation again."""
    out = blender.call("hits.ragdoll_chest_hit")
    assert out["error"] is None
    assert len(out["hits"]) >= 1
    hit, body, impulse = out["hits"][0]
    assert body == out["chest"] and impulse > 5.0 and out["shown"][0] == hit
    off = {part: np.array(v) for part, v in out["off"].items()}
    limp = {"chest", "spine", "head"} | {f"{p}.{side}" for p in ("upper_arm", "forearm", "hand")
                                        for side in "LR"}
    # before the hit every part is on the animation
    assert max(v[:hit - 1].max() for v in off.values()) < 1e-4
    # the chest and what is jointed to it go limp; the pelvis and legs follow the animation
    for part in limp:
        assert part in off, sorted(off)
    assert off["chest"][hit - 1:hit + 7].max() > 0.01
    assert max(v.max() for part, v in off.items() if part not in limp) < 1e-4, \
        {part: v.max() for part, v in off.items() if part not in limp}
    # blended back: on the animation again from hit + 8 on, pulled closer on the way
    assert len(out["hits"]) == 1, out["hits"]
    assert max(v[hit + 7:].max() for v in off.values()) < 1e-4
    assert off["chest"][hit + 6] < 0.5 * off["chest"][hit - 1:hit + 7].max(), \
        off["chest"][hit - 1:hit + 8]
