"""The bulk calls the add-on's frame makes on the file's objects (addon/runtime/: the change
check's reads, the bulk write), counted, and what Blender shows after them: the buffers the
reads fill are of the properties' own types (another type reads several times slower), the
file's object count is not asked while it stays the same (`len` walks every object), and a
frame in which a few bodies of many moved sets those bodies one by one instead of writing
every object of the file, with every body where the solver has it, live and scrubbed back.
The scenarios: tests/addon/scenarios/frame_writes.py."""


def test_the_bulk_reads_and_writes_use_the_properties_own_types_and_ask_no_length(blender):
    out = blender.call("frame_writes.bulk_call_types", 2, 8)
    assert out["error"] is None
    calls = [tuple(c) for c in out["calls"]]
    # the frame reads which objects the file holds and the channels the checks compare
    assert {name for kind, name, _ in calls if kind == "get"} >= \
        {"session_uid", "location", "rotation_quaternion"}
    for kind, name, dtype in calls:
        assert dtype == out["own"][name], f"{kind} {name} into {dtype}, stored as " \
            f"{out['own'][name]}"
    # nor is the file's object count asked while it stays the same (`len` walks every
    # object; the uids' read tells it)
    assert out["lengths"] == [0] * 6, out["lengths"]
    move, turn, bones, compared = out["shown"]
    assert compared >= 32
    assert move < 2e-6 and turn < 2e-6 and bones < 1e-4, out["shown"]


def test_a_few_bodies_moving_among_many_are_set_one_by_one(blender):
    out = blender.call("frame_writes.few_bodies_moving", 40, 6.0, 40)
    assert out["error"] is None
    assert out["bulk"] == 41                 # every crate on the bulk path
    objects = out["objects"]
    few = [row for row in out["frames"] if 0 < row[1] and row[1] * 8 < objects]
    many = [row for row in out["frames"] if row[1] * 8 >= objects]
    assert few and many, out["frames"]       # both kinds of frame were played
    for f, moved, sets, move, turn in out["frames"]:
        assert move < 2e-6 and turn < 2e-6, (f, moved, move, turn)
    # a few moved: no write of every object of the file; many: the bulk write
    assert all(sets == 0 for _, _, sets, _, _ in few), few
    assert all(sets == 2 for _, _, sets, _, _ in many), many
