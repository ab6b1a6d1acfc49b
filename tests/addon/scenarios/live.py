"""test_live.py's scenarios: Live Mode's session (live/session.py) driven verb by verb, a
free box and Rigify's metarig made a ragdoll, with the view's rays given as numbers."""

import math

import bpy
import numpy as np
from mathutils import Quaternion, Vector

from .helpers import box, lig


def session_module():
    return lig().addon.live.session


def free_box(name="Box", location=(0, 0, 2), mass=2.0):
    """A 0.4 m cube with no damping (its momentum is kept exactly without forces)."""
    return box(name, (0.4, 0.4, 0.4), location, mass=mass, linear_damping=0.0,
               angular_damping=0.0)


def metarig_ragdoll(location=(0, 0, 1.0), strength=0.0, held_root=False, stiffness=None):
    """Rigify's human metarig made a ragdoll over a floor; with `held_root` its root part
    (the one no joint hangs from another) follows the animation: the rest of the body hangs
    from it."""
    bpy.ops.preferences.addon_enable(module="rigify")
    scene = bpy.context.scene
    box("Ground", (30, 30, 1), (0, 0, -0.5), kind='STATIC')
    bpy.ops.object.armature_human_metarig_add()
    arm = bpy.context.active_object
    arm.location = location
    bpy.context.view_layer.update()
    assert bpy.ops.ligament.ragdoll_from_armature() == {'FINISHED'}
    arm.ligament_ragdoll.drive_strength = strength
    if stiffness is not None:
        arm.ligament_ragdoll.drive_stiffness = stiffness
    scene.ligament_world.frame_end = 60
    if held_root:
        sim = lig().addon.runtime.cache.ensure(scene)
        run = sim.ragdolls[0]
        hung = {j.b for j in run.joints}
        root = next(p for i, p in enumerate(run.parts) if i not in hung)
        arm.pose.bones[root.bone].ligament_ragdoll.simulated = False
    return arm


def ray_at(point, eye_offset=(0.0, -6.0, 0.0)):
    """(origin, direction) of a ray from 6 m in front of `point` through it."""
    p = Vector(point)
    origin = p + Vector(eye_offset)
    return tuple(origin), tuple((p - origin).normalized())


def degrees_between(q1, q2):
    """Degrees between two rotations, in float64 and by atan2 (mathutils' float32 dot, then
    acos, cannot tell rotations apart closer than 0.03 degrees)."""
    a, b = np.array(q1, dtype=np.float64), np.array(q2, dtype=np.float64)
    a, b = a / np.linalg.norm(a), b / np.linalg.norm(b)
    b = b if a @ b >= 0.0 else -b
    return math.degrees(4.0 * math.atan2(np.linalg.norm(a - b), np.linalg.norm(a + b)))


def scene_transforms():
    """Every object's world matrix as Blender evaluates it, and the file's actions."""
    bpy.context.view_layer.update()
    return ({o.name: [list(r) for r in o.matrix_world] for o in bpy.data.objects},
            sorted(a.name for a in bpy.data.actions))


def speeds(world, ids):
    return float(np.linalg.norm(world.linear_velocities[ids], axis=1).max())


def pull_acts_in_the_next_step(max_force):
    """A 2 kg box, gravity off, grabbed on its front face and pulled 10 m along x with the
    drag's force limit: its velocity before the move (one step) and after the very next
    step; and what the step time is."""
    scene = bpy.context.scene
    b = free_box()
    scene.frame_set(1)
    s = session_module().LiveSession(scene, hertz=3.0, max_force=max_force)
    s.start()
    s.gravity(False)
    grabbed = s.grab(*ray_at((0, 0, 2)))
    body = next(x for x in s.sim.dynamic if x.name == "Box")
    s.step()
    still = s.world.linear_velocities[body.id].tolist()
    target = s.move((10.0, -6.0, 2.0), (0.0, 1.0, 0.0))
    s.step()
    after = s.world.linear_velocities[body.id].tolist()
    dt = s.sim.dt
    s.stop()
    return {"grabbed": grabbed.name, "still": still, "after": after, "target": list(target),
            "dt": dt, "mass": b.ligament_body.mass}


def released_body_keeps_its_momentum(steps):
    """Gravity off: the box pulled for 6 steps, released, then `steps` steps: its linear and
    angular velocity and centre right after the release and at the end, and where its
    object was written."""
    scene = bpy.context.scene
    b = free_box()
    scene.frame_set(1)
    s = session_module().LiveSession(scene, hertz=3.0, max_force=50.0)
    s.start()
    s.gravity(False)
    s.grab(*ray_at((0.1, 0, 2.1)))
    body = next(x for x in s.sim.dynamic if x.name == "Box")
    for k in range(6):
        s.move((0.3 * (k + 1), -6.0, 2.1), (0.0, 1.0, 0.0))
        s.step()
    s.release()
    w = s.world
    v0, w0, p0 = (w.linear_velocities[body.id].tolist(), w.angular_velocities[body.id].tolist(),
                  w.positions[body.id].tolist())
    for _ in range(steps):
        s.step()
    v1, w1, p1 = (w.linear_velocities[body.id].tolist(), w.angular_velocities[body.id].tolist(),
                  w.positions[body.id].tolist())
    bpy.context.view_layer.update()
    shown = list(b.matrix_world.translation)
    dt = s.sim.dt
    s.stop()
    return {"v0": v0, "w0": w0, "p0": p0, "v1": v1, "w1": w1, "p1": p1, "dt": dt,
            "shown": shown}


def dropped_ragdoll_comes_to_rest_on_the_floor(steps):
    """A metarig ragdoll 1 m up with its drives at full strength, in Live Mode at frame 1,
    dropped: its parts' lowest and highest centres and fastest speed at the end, the
    floor's depth into any part (from the contacts' bodies' shapes: the lowest point of any
    helper's mesh), and how far the pelvis came down."""
    scene = bpy.context.scene
    arm = metarig_ragdoll(strength=1.0)
    scene.frame_set(1)
    s = session_module().LiveSession(scene)
    s.start()
    run = s.sim.ragdolls[0]
    ids = run.ids
    start_z = s.world.positions[ids][:, 2].copy()
    s.drop()
    for _ in range(steps):
        s.step()
    end_z = s.world.positions[ids][:, 2]
    fastest = speeds(s.world, ids)
    bpy.context.view_layer.update()
    lowest_vertex = min((p.matrix_world @ v.co).z for p in (s.sim.objects[x.name]
                        for x in run.parts) for v in p.data.vertices)
    s.stop()
    return {"start_top": float(start_z.max()), "end_top": float(end_z.max()),
            "end_low": float(end_z.min()), "fastest": fastest, "lowest_vertex": lowest_vertex,
            "arm": arm.name}


def _joint_errors(s, run):
    """Per ragdoll joint: the angle (degrees) between its bodies' relative orientation and
    the one its drive pulls toward (the animated pose at the frame)."""
    known = s.sim.frame_matrices(s.scene, s.frame)
    poses = run.animated_poses(s.frame, known)
    ori = s.world.orientations
    out = []
    for j in run.ragdoll_joints:
        a, b = run.parts[j.a].body.id, run.parts[j.b].body.id
        rel = Quaternion(ori[a]).inverted() @ Quaternion(ori[b])
        want = poses[j.a].to_quaternion().inverted() @ poses[j.b].to_quaternion()
        d = abs(rel.normalized().dot(want.normalized()))
        out.append(math.degrees(2.0 * math.acos(min(1.0, d))))
    return out


def _drive_hertz(world, joints):
    """The drive frequency each joint row holds in the World's joint table."""
    layout = __import__(type(world).__module__, fromlist=["L"]).L
    return [float(world._jf.data[j.id, layout.DRIVE_HZ]) for j in joints]


def tense_and_relax(steps, stiffness):
    """A metarig ragdoll hanging from its held root with its drives at full strength of
    `stiffness` Hz, in Live Mode: each joint's drive frequency and pose error after `steps`
    steps as it is, tensed (x2) and relaxed back."""
    scene = bpy.context.scene
    metarig_ragdoll(location=(0, 0, 1.5), strength=1.0, held_root=True, stiffness=stiffness)
    scene.frame_set(1)
    s = session_module().LiveSession(scene)
    s.start()
    run = s.sim.ragdolls[0]
    out = {}
    for label, verb in (("normal", None), ("tense", s.tense), ("relaxed", s.relax)):
        if verb is not None:
            verb()
        for _ in range(steps):
            s.step()
        out[label] = {"hertz": _drive_hertz(s.world, run.ragdoll_joints),
                      "errors": _joint_errors(s, run)}
    out["strength"] = [run.value(run.parts[j.b].bone, "drive_strength", 1) *
                       run.value(None, "drive_stiffness", 1) for j in run.ragdoll_joints]
    s.stop()
    return out


def _state(s):
    """The live World's exact state and the scene's transforms."""
    st = s.world.save_state()
    arrays = {k: v.tolist() for k, v in st.items() if isinstance(v, np.ndarray)}
    return {"arrays": arrays, "gravity": list(s.world.gravity),
            "objects": scene_transforms()[0]}


def undo_restores_bit_for_bit():
    """A box on the floor and a metarig ragdoll: the state before each of three changes
    (gravity off, a drag, a click pin) and after each undo; and the pin's hold after the
    undo of the gravity change (gravity back: the box falls)."""
    scene = bpy.context.scene
    metarig_ragdoll(location=(2, 0, 1.0), strength=0.5)
    free_box(location=(0, 0, 2))
    scene.frame_set(1)
    s = session_module().LiveSession(scene)
    s.start()
    for _ in range(3):
        s.step()
    before = []
    before.append(_state(s))
    s.gravity(False)
    for _ in range(4):
        s.step()
    before.append(_state(s))
    s.grab(*ray_at(s.matrix(bpy.data.objects["Box"]).translation))
    for k in range(5):
        s.move((0.2 * (k + 1), -6.0, 2.0), (0.0, 1.0, 0.0))
        s.step()
    s.release()
    for _ in range(3):
        s.step()
    before.append(_state(s))
    pinned = s.pin(*ray_at(s.matrix(bpy.data.objects["Box"]).translation))
    for _ in range(5):
        s.step()
    after = []
    labels = []
    for _ in range(3):
        labels.append(s.undo())
        after.append(_state(s))
    more = s.undo()
    s.stop()
    return {"before": before[::-1], "after": after, "labels": labels, "more": more,
            "pinned": None if pinned is None else pinned[0]}


def transfer_keys_the_live_pose(frame, steps):
    """A metarig ragdoll simulated to `frame`, in Live Mode there, dropped and stepped:
    Transfer; then the bones' world matrices as the live pose has them (the bones follow
    the helpers) and as the keys pose them with the simulation off, and the keyed frames."""
    scene = bpy.context.scene
    arm = metarig_ragdoll(strength=1.0)
    for f in range(1, frame + 1):
        scene.frame_set(f)
    s = session_module().LiveSession(scene)
    s.start()
    s.drop()
    for _ in range(steps):
        s.step()
    bpy.context.view_layer.update()
    anim = lig().addon.scene.animation
    mod = lig().addon.scene.ragdolls
    moved = sorted({t.ligament_ragdoll_part.bone for t in mod.members(arm, 'TARGET')})
    live = {n: arm.matrix_world @ arm.pose.bones[n].matrix for n in moved}
    keyed = s.transfer()
    s.stop()
    frames = sorted({k.co.x for fc in anim.action_fcurves(arm).values()
                     for k in fc.keyframe_points})
    scene.ligament_world.enabled = False
    scene.frame_set(frame)
    shown = {n: arm.matrix_world @ arm.pose.bones[n].matrix for n in moved}
    dist = max((live[n].translation - shown[n].translation).length for n in moved)
    turn = max(degrees_between(live[n].to_quaternion(), shown[n].to_quaternion())
               for n in moved)
    rest = {n: arm.matrix_world @ arm.data.bones[n].matrix_local for n in moved}
    moved_from_rest = max((live[n].translation - rest[n].translation).length for n in moved)
    return {"keyed": sorted(keyed[arm.name]), "moved": moved, "frames": frames, "dist": dist,
            "turn": turn, "from_rest": moved_from_rest}


def leaving_restores_the_scene(frame):
    """A metarig ragdoll and a box simulated to `frame`, then Live Mode there: dropped, the
    box dragged and pinned, 20 steps; the scene's transforms and actions before, during and
    after, and whether the cache kept its simulation."""
    scene = bpy.context.scene
    metarig_ragdoll(location=(2, 0, 1.0), strength=1.0)
    free_box(location=(0, 0, 2))
    for f in range(1, frame + 1):
        scene.frame_set(f)
    cache = lig().addon.runtime.cache
    sim = cache.get(scene)
    before = scene_transforms()
    s = session_module().LiveSession(scene)
    s.start()
    s.drop()
    s.grab(*ray_at(s.matrix(bpy.data.objects["Box"]).translation))
    for k in range(10):
        s.move((0.1 * k, -6.0, 1.0), (0.0, 1.0, 0.0))
        s.step()
    s.release(pin=True)
    for _ in range(10):
        s.step()
    during = scene_transforms()
    s.stop()
    after = scene_transforms()
    scene.frame_set(frame)
    again = scene_transforms()
    return {"before": before, "during": during, "after": after, "again": again,
            "kept": cache.get(scene) is sim, "frame": scene.frame_current}


def header_status(step_seconds):
    """What Live Mode's header says of its speed after steps that each take
    `step_seconds` by a stand-in clock, at the scene's 24 fps."""
    scene = bpy.context.scene
    scene.render.fps, scene.render.fps_base = 24, 1.0
    free_box()
    scene.frame_set(1)
    now = [0.0]
    calls = []

    def clock():
        calls.append(now[0])
        value = now[0]
        now[0] += step_seconds          # a step reads it at its start and at its end
        return value
    s = session_module().LiveSession(scene, clock=clock)
    s.start()
    first = s.status()
    for _ in range(15):
        s.step()
    out = {"first": first, "status": s.status(), "step_time": s.step_time()}
    s.stop()
    return out


def refusals():
    """What starting Live Mode says with the simulation off, and a second time while it
    runs; and the operator's poll outside a 3D View."""
    scene = bpy.context.scene
    free_box()
    scene.frame_set(1)
    session = session_module()
    out = {}
    scene.ligament_world.enabled = False
    try:
        session.LiveSession(scene).start()
    except lig().addon.scene.errors.SceneError as exc:
        out["off"] = str(exc)
    scene.ligament_world.enabled = True
    first = session.LiveSession(scene)
    first.start()
    try:
        session.LiveSession(scene).start()
    except lig().addon.scene.errors.SceneError as exc:
        out["twice"] = str(exc)
    first.stop()
    again = session.LiveSession(scene)
    again.start()
    out["after_stop"] = again.running
    again.stop()
    out["poll"] = bpy.ops.ligament.live_mode.poll()
    return out


def pin_and_unpin(steps):
    """A box in mid-air, gravity on, clicked with Ctrl (pinned where the click meets it):
    how far the clicked point strays over `steps` steps; clicked again (unpinned): its
    velocity after `steps` more."""
    scene = bpy.context.scene
    b = free_box(location=(0, 0, 2))
    scene.frame_set(1)
    s = session_module().LiveSession(scene)
    s.start()
    body = next(x for x in s.sim.dynamic if x.name == "Box")
    origin, direction = ray_at((0.1, 0, 2.05))
    done = s.pin(origin, direction)
    point = Vector((0.1, -0.2, 2.05))          # the front face, where the ray meets it
    local = s.matrix(b).inverted() @ point
    stray = 0.0
    for _ in range(steps):
        s.step()
        stray = max(stray, (s.matrix(b) @ local - point).length)
    undone = s.pin(*ray_at(s.matrix(b) @ local))
    v0 = s.world.linear_velocities[body.id].tolist()
    for _ in range(steps):
        s.step()
    v1 = s.world.linear_velocities[body.id].tolist()
    dt = s.sim.dt
    s.stop()
    return {"done": [done[0], done[1].name], "undone": [undone[0], undone[1].name],
            "stray": stray, "v0": v0, "v1": v1, "dt": dt}
