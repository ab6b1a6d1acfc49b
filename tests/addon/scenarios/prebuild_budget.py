"""test_prebuild_budget.py's scenarios: the idle-time build after an edit and how long it
holds Blender's main thread."""

import time

import bpy

from .helpers import box, joint, lig


def _crates():
    box("Floor", (10, 10, 1), (0, 0, -0.5), kind='STATIC')
    crates = [box(f"Crate{i}", (1, 1, 1), (0.3 * i, 0, 1 + 1.1 * i)) for i in range(4)]
    joint("Hinge", 'HINGE', crates[0], crates[1], (0, 0, 1.55))
    bpy.context.scene.ligament_world.enabled = True
    return crates


def _edit(crate, dx=None, friction=None):
    """Move `crate` by `dx`, or set its friction, as in the UI; the edits then pause."""
    handlers = lig().addon.ui.handlers
    if dx is not None:
        crate.location.x += dx
    if friction is not None:
        crate.ligament_body.friction = friction
    bpy.context.view_layer.update()
    handlers.on_depsgraph_update_post(bpy.context.scene, None)
    handlers._last_edit[0] -= 10.0      # the edits have paused


def _play(crates, frames):
    out = []
    for f in range(1, frames + 1):
        bpy.context.scene.frame_set(f)
        out.append([list(c.matrix_world.translation) for c in crates])
    return out


def measured_build():
    """An edit, then the idle-time build: how long the timer's call held the caller, and
    what the add-on recorded as the build's seconds."""
    scene = bpy.context.scene
    crates = _crates()
    handlers = lig().addon.ui.handlers
    state = lig().addon.runtime.state.state
    _edit(crates[3], 0.1)
    t = time.perf_counter()
    handlers.prebuild()
    wall = time.perf_counter() - t
    return {"built": lig().addon.runtime.cache.get(scene) is not None, "wall": wall,
            "recorded": state(scene).build_seconds}


def slow_build(extra_seconds, frames):
    """A scene whose build (its scene check) takes `extra_seconds` more, as a big one does:
    built once, then edited; whether the idle-time build runs again, how long the timer's
    call held the caller, and the frames played after (the start frame builds it)."""
    scene = bpy.context.scene
    crates = _crates()
    cache = lig().addon.runtime.cache
    handlers = lig().addon.ui.handlers
    state = lig().addon.runtime.state.state

    def slow_check(scene, sim):
        time.sleep(extra_seconds)
        return []
    cache.build_checks.append(slow_check)
    try:
        _edit(crates[3], 0.1)
        handlers.prebuild()
        first = {"built": cache.get(scene) is not None,
                 "recorded": state(scene).build_seconds}
        _edit(crates[2], friction=0.3)
        dropped = cache.get(scene) is None
        t = time.perf_counter()
        again = handlers.prebuild()
        held = time.perf_counter() - t
        built_idle = cache.get(scene) is not None
        frames_played = _play(crates, frames)
    finally:
        cache.build_checks.remove(slow_check)
    return {"first": first, "dropped": dropped, "again": again, "held": held,
            "built_idle": built_idle, "frames": frames_played,
            "reported": sorted(m for m in state(scene).reported if "built when you play" in m)}


def plain_play(frames):
    """The same scene and edits, played with no idle-time build."""
    crates = _crates()
    crates[3].location.x += 0.1
    crates[2].ligament_body.friction = 0.3
    bpy.context.view_layer.update()
    return _play(crates, frames)
