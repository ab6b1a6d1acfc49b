"""test_cache_edits.py's scenarios: a pusher's keys edited after a play."""

import bpy

from .helpers import box, lig, transforms


class Push:
    """An Animated pusher keyed at frames `keys` (four of them) at x = 0, 0, 1.4 and 2.7: it
    waits at x = 0, then crosses to a pile of three crates, which it pushes over at the end
    of a 250-frame shot."""

    def __init__(self, keys):
        self.scene = bpy.context.scene
        box("Ground", (20, 20, 1), (0, 0, -0.5), kind='STATIC')
        self.pusher = box("Pusher", (0.6, 0.6, 0.6), (0, 0, 0.3), kind='ANIMATED')
        self.pile = [box(f"Crate.{i}", (0.5, 0.5, 0.5), (3.0, 0, 0.25 + 0.5 * i))
                     for i in range(3)]
        self.scene.ligament_world.frame_end = 250
        for f, x in zip(keys, (0.0, 0.0, 1.4, 2.7)):
            self.pusher.location.x = x
            self.pusher.keyframe_insert("location", frame=f)
        self.stats = lig().addon.runtime.simulation.stats

    def play(self):
        for f in range(1, 251):
            self.scene.frame_set(f)
        return transforms(self.pile + [self.pusher])

    def edit_key(self, frame, dy):
        self.scene.frame_set(frame)
        self.pusher.location.y += dy
        self.pusher.keyframe_insert("location", frame=frame)


def replay_after_a_scripted_edit(keys, frame, dy):
    """The play before and after moving the key at `frame` by `dy` in y, and a play from
    scratch (the cache reset) after it."""
    push = Push(keys)
    first = push.play()
    push.edit_key(frame, dy)
    replay = push.play()
    bpy.ops.ligament.reset()
    scratch = push.play()
    return {"first": first, "replay": replay, "scratch": scratch}


def replay_after_an_edit_in_the_ui(keys, frame, dy):
    """The same edit with the depsgraph update the UI sends: which frames stayed cached,
    how many builds and steps the replay took, and the play from scratch."""
    push = Push(keys)
    push.play()
    builds, steps = push.stats["builds"], push.stats["steps"]
    push.edit_key(frame, dy)
    bpy.context.view_layer.update()      # what an edit in the UI sends the handlers
    cached = lig().addon.runtime.cache.frame_info(bpy.context.scene)
    replay = push.play()
    resimulated = push.stats["steps"] - steps
    rebuilt = push.stats["builds"] - builds
    bpy.ops.ligament.reset()
    scratch = push.play()
    return {"cached": cached, "resimulated": resimulated, "rebuilt": rebuilt,
            "replay": replay, "scratch": scratch}


def steps_after_an_edit(keys, frame, dy):
    """Builds and steps of the replay after the key at `frame` moved."""
    push = Push(keys)
    push.play()
    builds, steps = push.stats["builds"], push.stats["steps"]
    push.edit_key(frame, dy)
    push.play()
    return {"resimulated": push.stats["steps"] - steps, "rebuilt": push.stats["builds"] - builds}
