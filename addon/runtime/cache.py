"""The per-scene simulation cache, as the UI, the bake and the batch command use it: the scene's
Simulation (built when needed, dropped when the scene changes) and the frame written to the
objects. Scrubbing back or jumping to a cached frame writes the stored transforms; going past
the last cached frame steps forward from the nearest earlier state. The cache is runtime data,
never saved."""

from ..world.poses import apply_delta, apply_pose, clear_delta
from ..scene.animation import has_transform_animation, quaternion_to_rotation, rotation_to_quaternion
from ..scene.objects import scene_bodies
# build_checks: where the scene check adds itself (check/doctor.py)
from .building import BuildSession, build_checks  # noqa: F401
from .changes import drop_if_changed
from .simulation import stats
from .state import Reads, Written, every_state, forget_all, state


def invalidate(scene):
    state(scene).invalidate()


def drop_simulations():
    """Every scene simulates again from its start frame (undo, redo). What the bodies show
    then is the undo step's: poses written then, or moves of the user's already taken as
    rest poses, which the step's rest poses hold. The record of what was written goes too:
    kept, it would take the step's simulated pose for a move of the user's and make it the
    rest pose."""
    for st in every_state():
        st.invalidate()
        st.written = Written()


def clear_all():
    """Forget everything (a file was loaded, the add-on is unregistered), the counts of
    builds and steps too."""
    forget_all()
    stats.update(builds=0, steps=0)


def forget_reads(scene):
    """The scene is evaluated (its update tags cleared) with no change check before: the
    next check reads which objects the scene holds again (`state.Reads`)."""
    state(scene).lookup.forget()


def get(scene):
    return state(scene).sim


def error(scene):
    return state(scene).error


def ensure(scene, depsgraph=None):
    """The scene's Simulation, built if needed (in one piece: a build under way a slice at a
    time is finished). Raises SceneError for bad input (and keeps its message as the scene's
    error). Joints that cannot be built are skipped: the first build reports each once, and
    so are bodies that have no shape (zero scale)."""
    st = state(scene)
    if st.sim is None:
        session = st.building if st.building is not None else BuildSession(scene, depsgraph)
        session.build()
    return st.sim


def building(scene) -> "BuildSession | None":
    """The build under way a slice at a time (`BuildSession`), or None."""
    return state(scene).building


def stopped(scene) -> bool:
    """Whether the user stopped the scene's last build (Esc) and nothing built it since."""
    return state(scene).stopped


def apply_frame(scene, frame, depsgraph=None, full_check=False, sliced=False):
    """Put every dynamic body where the simulation has it at `frame`. The change check
    compares what only an edit changes when the depsgraph saw one (`drop_if_changed`), or
    always with `full_check`. `sliced`: a scene without its Simulation is not built here
    (the caller builds it a slice at a time, `BuildSession`): None then, nothing written."""
    reads = drop_if_changed(scene, playing=not full_check)
    before = state(scene).sim
    if before is None and sliced:
        return None
    sim = ensure(scene, depsgraph)
    if sim is not before:   # a build: read the file's objects again (rows for the write)
        reads = Reads(scene, state(scene).lookup)
    poses = sim.single_poses(scene, frame)
    # before the start the animation plays: the ragdolls' bones their keys
    early = sim.before_start(scene, frame) if frame < sim.start else None
    frame = min(max(frame, sim.start), sim.end)
    simulated = frame > sim.start
    written = state(scene).written
    sim.write_bulk(frame, written, reads, early)
    for b in sim.single:
        obj = sim.objects[b.name]
        loc, rot = poses[b.name]
        if b.name in sim.keyed:   # its keys keep playing: the delta transform moves it
            if simulated:
                apply_delta(obj, frame, loc, rot)
            else:
                clear_delta(obj)
            continue
        apply_pose(obj, loc, rot)
        written.record(obj)
    if sim.hits:   # hit bodies: their keys play, the delta transform moves them while off them
        off = sim.off_keys(frame)
        for name in sim.hits.keyed:
            obj = sim.objects[name]
            if name in off:
                apply_delta(obj, frame, *poses[name])
            else:
                clear_delta(obj)
    if sim.shown_simulated != simulated:
        for b in sim.dynamic:
            s = sim.objects[b.name].ligament_body
            if b.name not in sim.keyed and s.sim_pose != simulated:
                s.sim_pose = simulated
        sim.shown_simulated = simulated
    for name, broke in sim.broken.items():
        if broke <= frame:
            state(scene).report(f"joint '{name}' broke at frame {broke}")
    return sim


def restore_rest(scene, objects=None):
    """Put dynamic bodies back to their rest pose (simulation disabled, body removed)."""
    written = state(scene).written
    for obj in objects if objects is not None else scene_bodies(scene):
        s = obj.ligament_body
        if s.sim_delta:
            clear_delta(obj)
        if not s.rest_valid or s.baked or has_transform_animation(obj):
            continue
        q = rotation_to_quaternion(s.rest_rotation_mode, tuple(s.rest_rotation))
        if s.rest_rotation_mode == obj.rotation_mode:
            rot = tuple(s.rest_rotation)
        else:
            rot = quaternion_to_rotation(obj.rotation_mode, q)
        apply_pose(obj, tuple(s.rest_location), rot)
        if s.sim_pose:
            s.sim_pose = False
        written.record(obj)


def joint_status(scene, name):
    """Why the joint `name` does not act at the current frame, or None."""
    sim = get(scene)
    return None if sim is None else sim.joints_not_acting(scene.frame_current).get(name)


def hit_frames(scene, name):
    """The frames the body `name` was hit at in the cached frames, or None (no simulation or
    the body does not react to hits)."""
    sim = get(scene)
    if sim is None or name not in sim.hits.names:
        return None
    return [f for f, n, _ in sim.hit_list() if n == name]


def frame_info(scene):
    """(first, last) cached frame or None, for the UI."""
    sim = get(scene)
    if sim is None:
        return None
    return sim.start, sim.last_frame
