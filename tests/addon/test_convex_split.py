"""Split into Convex Parts on a big mesh neither blocks Blender nor leaves it half done: the
decomposition runs in a process of its own (`convex_parts.SplitJob`, behind the operator's
modal loop) that reports how far it is, can be cancelled with the scene left as it was, and
makes the same parts as the blocking call scripts use. The scenarios:
tests/addon/scenarios/convex_split.py."""


def test_a_cancelled_split_leaves_the_scene_as_it_was_and_stops_its_process(blender):
    # a 96 x 32 torus (6144 triangles) at a fine concavity: CoACD takes far longer than the
    # two seconds watched
    out = blender.call("convex_split.cancel_a_long_split", 96, 32, 2.0)
    assert out["state"] == 'RUNNING'
    assert out["after"] == out["before"]          # the earlier parts and shape untouched
    assert out["exit"] is not None and out["folder_left"] is False
    # the caller (Blender's main thread) is held only to write the mesh and start the
    # process, and for a glance at each poll
    assert out["start_s"] < 1.0 and out["longest_poll_s"] < 0.05
    assert out["polls"] >= 10
    # progress: CoACD's rounds of cuts were seen as they went, and said in the status line
    assert max(r for r, _, _ in out["seen"]) >= 1
    assert any("round" in s and "Esc to cancel" in s and "'Donut'" in s
               for _, _, s in out["seen"])


def test_a_finished_split_makes_the_parts_the_blocking_split_makes(blender):
    out = blender.call("convex_split.job_and_blocking_split", 32, 12, 0.1)
    assert out["made"] >= 2 and out["shape"] == 'COMPOUND'
    assert out["job"] == out["blocking"]          # same seed, same CoACD: the same parts
    assert all(p[1] == "Ring" and p[2] == 'CONVEX_HULL' for p in out["job"])
    assert max(out["rounds"]) >= 1


def test_an_object_deleted_during_its_split_is_said_by_name(blender):
    message = blender.call("convex_split.job_on_a_deleted_object")
    assert message is not None and "'Gone'" in message and "split it again" in message
