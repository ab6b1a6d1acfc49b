"""test_prebuild.py's scenarios: the simulation built ahead of play by the add-on's idle
timer (timers do not fire in background mode: the timer's function is called here)."""

import bpy

from .helpers import box, joint, lig


class Crates:
    """Four crates over a floor, the lower two hinged."""

    def __init__(self):
        self.scene = bpy.context.scene
        box("Floor", (10, 10, 1), (0, 0, -0.5), kind='STATIC')
        self.crates = [box(f"Crate{i}", (1, 1, 1), (0.3 * i, 0, 1 + 1.1 * i))
                       for i in range(4)]
        joint("Hinge", 'HINGE', self.crates[0], self.crates[1], (0, 0, 1.55))
        self.scene.ligament_world.enabled = True

    def play(self, frames):
        out = []
        for f in range(1, frames + 1):
            self.scene.frame_set(f)
            out.append([list(c.matrix_world.translation) for c in self.crates])
        return out


def edit_schedules_a_build():
    """An edit with nothing built, the prebuild timer called too soon and then after the
    edits paused, 30 frames played, and another edit."""
    s = Crates()
    scene, crates = s.scene, s.crates
    handlers, cache = lig().addon.ui.handlers, lig().addon.runtime.cache
    # an edit with no simulation built schedules one (the depsgraph handler)
    crates[3].location.x += 0.1
    bpy.context.view_layer.update()
    handlers.on_depsgraph_update_post(scene, None)
    scheduled = bpy.app.timers.is_registered(handlers.prebuild)
    # too soon after the edit: the timer waits for the edits to pause
    again_in = handlers.prebuild()
    waited = cache.get(scene) is None
    handlers._last_edit[0] -= 10.0
    done = handlers.prebuild()
    built = cache.get(scene)
    scene.frame_set(1)
    same = cache.get(scene) is built
    frames = s.play(30)
    # an edit after it drops that build and schedules the next
    crates[2].location.y += 0.2
    bpy.context.view_layer.update()
    handlers.on_depsgraph_update_post(scene, None)
    dropped = cache.get(scene) is None or cache.get(scene) is not built
    return {"scheduled": scheduled, "again_in": again_in, "waited": waited,
            "done": done, "built": built is not None, "same": same, "frames": frames,
            "dropped": dropped,
            "rescheduled": bpy.app.timers.is_registered(handlers.prebuild)}


def same_edit_played():
    """The same edit, built at play: 30 frames."""
    s = Crates()
    s.crates[3].location.x += 0.1
    bpy.context.view_layer.update()
    return s.play(30)


def prebuild_off_and_failing():
    """The prebuild with the world off, then with a crate given a Mesh shape: what it
    returns, whether anything was built, the error."""
    s = Crates()
    scene = s.scene
    handlers, cache = lig().addon.ui.handlers, lig().addon.runtime.cache
    scene.ligament_world.enabled = False
    handlers._last_edit[0] = 0.0
    off = [handlers.prebuild(), cache.get(scene) is None]
    scene.ligament_world.enabled = True
    s.crates[2].ligament_body.shape = 'MESH'     # a moving body cannot be a triangle mesh
    handlers._last_edit[0] = 0.0
    failed = [handlers.prebuild(), cache.get(scene) is None, cache.error(scene)]
    return {"off": off, "failed": failed}


def _keyed_pusher_played_and_edited():
    """A keyed pusher and three crates played to frame 40, a crate's friction edited there:
    (scene, crates)."""
    scene = bpy.context.scene
    box("Floor", (10, 10, 1), (0, 0, -0.5), kind='STATIC')
    pusher = box("Pusher", (0.5, 2, 0.5), (-3, 0, 0.25), kind='ANIMATED')
    pusher.keyframe_insert("location", frame=1)
    pusher.location.x = 2
    pusher.keyframe_insert("location", frame=60)
    crates = [box(f"Crate{i}", (0.5, 0.5, 0.5), (-1 + 0.6 * i, 0, 0.25)) for i in range(3)]
    scene.ligament_world.enabled = True
    for f in range(1, 41):
        scene.frame_set(f)
    crates[2].ligament_body.friction = 0.2
    return scene, crates


def _frames_41_to_60(scene, crates):
    poses = []
    for f in range(41, 61):
        scene.frame_set(f)
        poses.append([list(c.matrix_world.translation) for c in crates])
    return poses


def build_ahead_after_a_key_edit():
    """The idle-time build while the scene stands on frame 40 after the edit, then frames
    41-60."""
    scene, crates = _keyed_pusher_played_and_edited()
    handlers, cache = lig().addon.ui.handlers, lig().addon.runtime.cache
    handlers._last_edit[0] = 0.0
    handlers.prebuild()
    built = cache.get(scene)
    frame_after = scene.frame_current
    poses = _frames_41_to_60(scene, crates)
    return {"built": built is not None, "same": cache.get(scene) is built,
            "frame": frame_after, "poses": poses}


def played_on_after_a_key_edit():
    """Frames 41-60 after the edit, built at play."""
    scene, crates = _keyed_pusher_played_and_edited()
    return _frames_41_to_60(scene, crates)
