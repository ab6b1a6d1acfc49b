"""test_sliced_build.py's scenarios: the simulation built a slice at a time
(addon/runtime/building.py's BuildSession, the Build Simulation operator's modal run, the
frames played while it builds), against the build in one piece that scripts, background mode
and the batch command run."""

import sys

import bpy
import numpy as np

from .animation_sources import slide, to_nla
from .helpers import box, lig
from .rigs import enable_rigify, metarig


def _module(name):
    return sys.modules[lig().__name__ + name]


def building():
    return _module(".addon.runtime.building")


def cache():
    return _module(".addon.runtime.cache")


def big_scene(hulls, ragdolls, frame_end=40, parts=0):
    """`hulls` convex-hull bodies (random blobs of 24 points) on a grid over the ground,
    `ragdolls` metarig ragdolls riding an empty moved by an NLA strip (so the build reads the
    depsgraph at the start frame and the one after), an Animated paddle moved by a driver,
    a keyed Animated box and, with `parts`, a Compound ring of that many convex parts. The
    simulation is left off: the caller turns it on."""
    scene = bpy.context.scene
    ws = scene.ligament_world
    ws.enabled = False
    ws.frame_start, ws.frame_end = 1, frame_end
    box("Ground", (20, 20, 1), (0, 0, -0.5), kind='STATIC')
    rng = np.random.default_rng(7)
    for k in range(hulls):
        blob = rng.normal(size=(24, 3)) * 0.08
        me = bpy.data.meshes.new(f"Hull{k:03d}")
        me.from_pydata([tuple(p) for p in blob], [], [])
        o = bpy.data.objects.new(f"Hull{k:03d}", me)
        scene.collection.objects.link(o)
        o.location = (-6 + (k % 20) * 0.6, -6 + (k // 20) * 0.6, 0.5 + 0.1 * (k % 3))
        o.ligament_body.enabled = True
        o.ligament_body.shape = 'CONVEX_HULL'
    if parts:
        ring = bpy.data.objects.new("Ring", None)
        scene.collection.objects.link(ring)
        ring.location = (0, -9, 1.0)
        rs = ring.ligament_body
        rs.enabled, rs.shape, rs.mass = True, 'COMPOUND', 20.0
        for k in range(parts):
            a = 2 * np.pi * k / parts
            blob = rng.normal(size=(16, 3)) * (0.01, 0.02, 0.05)
            me = bpy.data.meshes.new(f"Part{k:03d}")
            me.from_pydata([tuple(p) for p in blob], [], [])
            part = bpy.data.objects.new(f"Part{k:03d}", me)
            scene.collection.objects.link(part)
            part.parent = ring
            part.location = (1.5 * np.cos(a), 1.5 * np.sin(a), 0.0)
            part.rotation_euler = (0, 0, a)
            part.ligament_body.shape = 'CONVEX_HULL'
    paddle = box("Paddle", (0.2, 1, 1), (8, 0, 1), kind='ANIMATED')
    paddle.driver_add("location", 0).driver.expression = "8 - frame / 6"
    keyed = box("Keyed", (0.5, 0.5, 0.5), (-8, 0, 1), kind='ANIMATED')
    slide(keyed, [(1, -8.0), (frame_end, -4.0)])
    if ragdolls:
        enable_rigify()
        car = bpy.data.objects.new("Car", None)
        scene.collection.objects.link(car)
        car.location = (0, 8, 1)
        slide(car, [(1, 0.0), (25, 3.0)])
        to_nla(car)
        for r in range(ragdolls):
            arm = metarig(f"Rig{r}", location=(2.0 * r, 0, 0))
            arm.parent = car
            assert bpy.ops.ligament.ragdoll_from_armature() == {'FINISHED'}
    for o in bpy.context.view_layer.objects:
        o.select_set(o.name.startswith("Hull00"))
    bpy.context.view_layer.objects.active = scene.objects["Paddle"]
    bpy.context.view_layer.update()
    return scene


def scene_state(scene):
    """What a stopped build must leave as it was: the frame, every object's world matrix
    (as the depsgraph shows the frame) and channels, the rest poses and flags the add-on
    keeps on bodies, the selection and the active object, and the scene's cache."""
    objs = sorted(scene.objects, key=lambda o: o.name)
    st = _module(".addon.runtime.state").state(scene)
    active = bpy.context.view_layer.objects.active
    return {
        "frame": scene.frame_current,
        "matrices": [[list(row) for row in o.matrix_world] for o in objs],
        "channels": [[*o.location, *o.rotation_quaternion, *o.rotation_euler, *o.scale,
                      *o.delta_location, *o.delta_rotation_quaternion] for o in objs],
        "rest": [[o.ligament_body.rest_valid, *o.ligament_body.rest_location,
                  *o.ligament_body.rest_rotation, o.ligament_body.rest_rotation_mode,
                  o.ligament_body.sim_pose, o.ligament_body.sim_delta] for o in objs],
        "selected": sorted(o.name for o in objs if o.select_get()),
        "active": None if active is None else active.name,
        "sim": st.sim is not None, "error": st.error, "building": st.building is not None,
        "stopped": st.stopped,
    }


def _world_after(scene, frames):
    """The scene's Simulation stepped `frames` frames from its start: the solver's state
    (positions, orientations, velocities) and the scene check's findings."""
    sim = cache().get(scene)
    w = sim.world
    start = w.positions.copy()
    sim.simulate_to(scene, sim.start + frames)
    return {"moved": float(np.abs(w.positions - start).max()),
            "positions": w.positions.tolist(), "orientations": w.orientations.tolist(),
            "linear": w.linear_velocities.tolist(), "angular": w.angular_velocities.tolist(),
            "findings": [f.line() for f in sim.findings], "bodies": len(sim.bodies)}


def sliced_and_whole(hulls, ragdolls, frames, user_frame, parts=0):
    """The scene built in one piece (`cache.ensure`, what background mode and scripts run)
    and again a unit of work per `advance` (slice budget 0), the user on `user_frame`: each
    world after `frames` frames, and per advance the units it did, the progress, the frame
    the scene was left on and where the depsgraph shows the driven paddle then."""
    scene = big_scene(hulls, ragdolls, parts=parts)
    scene.frame_set(user_frame)
    scene.ligament_world.enabled = True
    paddle = scene.objects["Paddle"]
    shown = paddle.matrix_world.translation.x
    stats = _module(".addon.runtime.simulation").stats
    builds = stats["builds"]
    cache().ensure(scene)
    whole_frame = scene.frame_current
    whole = _world_after(scene, frames)
    cache().invalidate(scene)
    session = building().BuildSession(scene)
    session.budget = 0.0
    advances = []
    while session.state == 'RUNNING':
        t = session.seconds
        session.advance()
        advances.append({"units": session.slices[-1], "fraction": session.fraction,
                         "seconds": session.seconds - t,
                         "frame": scene.frame_current,
                         "paddle": paddle.matrix_world.translation.x})
        assert len(advances) < 5000
    sliced = _world_after(scene, frames)
    return {"whole": whole, "sliced": sliced, "advances": advances, "state": session.state,
            "whole_frame": whole_frame, "shown": shown, "builds": stats["builds"] - builds,
            "error": cache().error(scene)}


def cancel_after(hulls, ragdolls, user_frame, stops):
    """For each count in `stops`: a build begun a unit at a time, `advance`d that many
    times and cancelled: the scene's state before, in the middle (before the cancel) and
    after, and the units done."""
    scene = big_scene(hulls, ragdolls)
    scene.frame_set(user_frame)
    scene.ligament_world.enabled = True
    out = []
    for stop in stops:
        before = scene_state(scene)
        session = building().BuildSession(scene)
        session.budget = 0.0
        for _ in range(stop):
            session.advance()
        middle = scene_state(scene)
        units = sum(session.slices)
        session.cancel()
        out.append({"stop": stop, "units": units, "state": session.state, "before": before,
                    "middle": middle, "after": scene_state(scene)})
    # and built to its end after all that: as a build in one piece
    session = building().BuildSession(scene)
    session.budget = 0.0
    while session.advance() == 'RUNNING':
        pass
    sliced = _world_after(scene, 10)
    cache().invalidate(scene)
    cache().ensure(scene)
    return {"stops": out, "sliced": sliced, "whole": _world_after(scene, 10)}


class Recorder:
    """Stands in for the window manager and the workspace: records the calls made on it."""

    def __init__(self, calls, owner):
        self.calls, self.owner = calls, owner

    def __getattr__(self, name):
        return lambda *args, **_kw: self.calls.append([self.owner, name, *map(repr, args)])


def modal_build(hulls, events):
    """The Build Simulation operator's modal run over a build begun a unit per timer event,
    given `events` ("TIMER", "ESC" or "MOUSEMOVE", the last repeated until it ends): what it
    returned at each event and reported, the calls on the window manager and workspace,
    the scene's state before and after, and whether a frame change builds it after."""
    scene = big_scene(hulls, 0)
    scene.frame_set(3)
    scene.ligament_world.enabled = True
    ops = _module(".addon.ui.operators.world")
    before = scene_state(scene)
    session = building().BuildSession(scene)
    session.budget = 0.0
    calls, reports = [], []
    context = type("Context", (), {"scene": scene, "mode": 'OBJECT', "screen": None,
                                   "window_manager": Recorder(calls, "wm"),
                                   "workspace": Recorder(calls, "workspace")})()
    build = ops.LIGAMENT_OT_build_simulation
    op = type("Build", (ops.SessionModal,), {"report": lambda _self, kind, text: reports.append(
        [sorted(kind), text]), "_timer": "the timer", "_scene": scene,
        "timer_interval": build.timer_interval, "pass_events": build.pass_events,
        **{verb: getattr(build, verb)
           for verb in ("_session_now", "_advance", "_running", "_finish", "_end")}})()
    returned = []
    n = 0
    while n < 5000:
        kind = events[min(n, len(events) - 1)]
        event = type("Event", (), {"type": kind, "value": 'PRESS'})()
        r = ops.LIGAMENT_OT_build_simulation.modal(op, context, event)
        returned.append(sorted(r))
        n += 1
        if 'RUNNING_MODAL' not in r and 'PASS_THROUGH' in r and len(r) == 1:
            continue
        break
    after = scene_state(scene)
    # a frame change now, as with a UI: built (the modal finished it) or not (stopped)
    kernels = _module(".addon.kernels")
    blocking = kernels.blocking
    kernels.blocking = lambda: False
    try:
        scene.frame_set(4)
    finally:
        kernels.blocking = blocking
    return {"returned": returned, "reports": reports, "calls": calls, "before": before,
            "after": after, "built_after_frame": cache().get(scene) is not None,
            "stopped_after_frame": cache().stopped(scene), "state": session.state,
            "units": sum(session.slices)}


def play_while_building(hulls, frames):
    """Frames played (frame_set 1, 2, ...) with a UI to keep responsive (`kernels.blocking`
    False) and a slice of one unit a frame: per frame whether the simulation is ready, the
    status, a hull's, the driven paddle's and the keyed box's places; then the same frames
    played with the build in one piece (background mode)."""
    kernels = _module(".addon.kernels")
    scene = big_scene(hulls, 0, frame_end=frames)
    scene.frame_set(1)
    scene.ligament_world.enabled = True
    hull, paddle, keyed = (scene.objects[n] for n in ("Hull000", "Paddle", "Keyed"))
    slice_before, blocking = building().SLICE, kernels.blocking
    building().SLICE = 0.0
    kernels.blocking = lambda: False
    played = []
    try:
        for f in range(1, frames + 1):
            scene.frame_set(f)
            session = cache().building(scene)
            played.append({"frame": f, "ready": cache().get(scene) is not None,
                           "status": None if session is None else session.status(),
                           "hull": list(hull.matrix_world.translation),
                           "paddle": paddle.matrix_world.translation.x,
                           "keyed": keyed.matrix_world.translation.x})
    finally:
        building().SLICE = slice_before
        kernels.blocking = blocking
    cache().invalidate(scene)
    cache().restore_rest(scene)
    whole = []
    for f in range(1, frames + 1):
        scene.frame_set(f)
        whole.append(list(hull.matrix_world.translation))
    return {"played": played, "whole": whole, "error": cache().error(scene)}


def idle_build_after_load(path, hulls):
    """The scene saved and opened again (the add-on's load handler asks for the idle-time
    build), then the idle-time build's timer called as the interface calls it: how long it
    held the caller, whether it built or began a build a slice at a time; then that build
    advanced to its end."""
    big_scene(hulls, 0)
    bpy.context.scene.ligament_world.enabled = True
    bpy.ops.wm.save_as_mainfile(filepath=path)
    bpy.ops.wm.open_mainfile(filepath=path)
    scene = bpy.context.scene
    kernels = _module(".addon.kernels")
    handlers = _module(".addon.ui.handlers")
    blocking = kernels.blocking
    kernels.blocking = lambda: False
    try:
        handlers._last_edit[0] -= 10.0        # the pause after the load
        again = handlers.prebuild()
        session = cache().building(scene)
        begun = {"again": again, "built": cache().get(scene) is not None,
                 "session": session is not None,
                 "units": None if session is None else sum(session.slices)}
        advances = 0
        while session is not None and session.advance(0.0) == 'RUNNING':
            advances += 1
    finally:
        kernels.blocking = blocking
    return {"begun": begun, "advances": advances, "built": cache().get(scene) is not None,
            "bodies": len(cache().get(scene).bodies) if cache().get(scene) else 0}


def edit_while_building(hulls):
    """A build begun a unit at a time, advanced half way, then a Ligament setting edited
    (its update callback drops what was built): the build's state, the scene's rest poses
    before the build and after the edit, and what a frame change then builds."""
    scene = big_scene(hulls, 0)
    scene.frame_set(2)
    scene.ligament_world.enabled = True
    before = scene_state(scene)
    session = building().BuildSession(scene)
    session.budget = 0.0
    for _ in range(hulls // 2):
        session.advance()
    middle = scene_state(scene)
    scene.objects["Hull001"].ligament_body.friction = 0.3
    after = scene_state(scene)
    return {"state": session.state, "before": before["rest"], "middle": middle["rest"],
            "after": after["rest"], "building": after["building"], "sim": after["sim"]}


def select_then_move_while_building(hulls):
    """A build begun a unit at a time; objects selected (Blender evaluates the depsgraph, its
    update handlers run), then one moved: the build's state after each."""
    scene = big_scene(hulls, 0)
    scene.frame_set(2)
    scene.ligament_world.enabled = True
    session = building().BuildSession(scene)
    session.budget = 0.0
    for _ in range(5):
        session.advance()
    for o in scene.objects:
        o.select_set(o.name.startswith("Hull01"))
    bpy.context.view_layer.objects.active = scene.objects["Hull010"]
    bpy.context.view_layer.update()
    selected = session.state
    for _ in range(5):
        session.advance()
    scene.objects["Hull020"].location.x += 0.5
    bpy.context.view_layer.update()
    return {"selected": selected, "moved": session.state,
            "building": cache().building(scene) is not None, "sim": cache().get(scene) is not None}
