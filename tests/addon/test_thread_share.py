"""The World measures how fast each thread count steps a big island (solver/pool.py Spread)
and keeps the faster; the runtime sets the thread count from the scene only when it changes,
so playback gets past measuring. The scenario:
tests/addon/scenarios/thread_share.py."""


def test_thread_share_is_measured_after_a_few_frames_of_playback(blender):
    out = blender.call("thread_share.big_island_played")
    assert out["error"] is None and out["threads"] == 2
    assert out["spreads"] == 1, "the thread share was started anew during playback"
    # both counts were timed (a count's first frame is not: it starts the threads)
    assert out["measured"] == [1, 2], out["runs"]
