"""Transfer Pose: the simulated pose at one frame written as keys at that frame, onto a
ragdoll's armature bones, or onto its control rig's bones where the bake-onto-controls pairs
are set up (baking/controls.py). What an animator keeps of a simulation without baking it all:
pose the character by the physics, key the pose, animate on from it.

The bones' channels are what a bake of that frame writes (`bone_poses`, the control rig's
`solve_frames`); each key goes into the armature's (or rig's) own action through
`keyframe_insert`, its other keys kept."""

from ..authoring import controls
from ..runtime import cache
from ..runtime.changes import drop_if_changed
from ..scene.animation import matrix_world_at, quaternion_to_rotation, rotation_values
from ..scene.errors import SceneError
from ..scene.ragdolls import library_of
from ..world.ragdolls import Skeleton, bone_poses
from . import controls as retarget
from .bake import control_pairs, world_pose

ROTATION_PATHS = {'QUATERNION': "rotation_quaternion", 'AXIS_ANGLE': "rotation_axis_angle"}


def transfer_pose(scene, armatures=None, bones=None, frame=None):
    """Key the simulated pose at `frame` (the current frame) onto the ragdolls of
    `armatures` (all of the scene's): with `bones` ({armature name: bone names}), only the
    parts those bones belong to. Returns {armature or rig name: [bones keyed]}. Raises
    SceneError when there is nothing to key or the frame is outside the simulation."""
    frame = scene.frame_current if frame is None else frame
    drop_if_changed(scene)
    sim = cache.ensure(scene)
    if not sim.start <= frame <= sim.end:
        raise SceneError(f"Transfer Pose: frame {frame} is outside the simulation "
                         f"({sim.start}-{sim.end}); go to a simulated frame")
    return key_pose(scene, chosen_runs(sim, armatures), sim.poses_at(scene, frame), frame,
                    bones)


def chosen_runs(sim, armatures=None):
    """The RagdollRuns of `sim` whose armature is in `armatures` (all: None). Raises
    SceneError when there is none or one is baked."""
    runs = [run for run in sim.ragdolls if armatures is None or run.arm in armatures]
    if not runs:
        raise SceneError("Transfer Pose: no simulated ragdoll to key; select a ragdolled "
                         "armature (Ligament > Ragdoll from Armature)")
    for run in runs:
        if run.arm.ligament_ragdoll.baked:
            raise SceneError(f"Transfer Pose: the ragdoll of '{run.arm.name}' is baked; clear "
                             "its bake first (its keys would go into the bake's action)")
    return runs


def key_pose(scene, runs, poses, frame, bones=None):
    """Key the ragdolls of `runs` at `frame` in the pose `poses` ({helper name: (location,
    quaternion)}, a simulated frame's or Live Mode's): with `bones` ({armature name: bone
    names}), only the parts those bones belong to. Returns {armature or rig name: [bones
    keyed]}."""
    keyed = {}
    for run in runs:
        chosen = None if bones is None else set(bones.get(run.arm.name, ()))
        parts = [p for p in run.parts if chosen is None or chosen & set(p.targets)]
        moved = [b for p in parts for b in p.targets]
        if not moved:
            continue
        controls.fill_defaults(run.arm)
        rig, pairs = control_pairs(run.arm)
        pairs = [(s, t) for s, t in pairs if s in moved]
        every = [b for p in run.parts for b in p.targets]
        skeleton = Skeleton(run.arm, every + [s for s, _ in pairs])
        every_basis = bone_poses(run, skeleton, frame, poses)
        basis = {b: m for b, m in every_basis.items() if b in moved}
        if pairs:   # the sources where the simulation has them, their parents simulated too
            sources = world_pose(skeleton, every_basis, frame, {s for s, _ in pairs})
            arm_world = matrix_world_at(run.arm, frame, {})
            values = retarget.solve_frames(run.arm, rig, pairs, arm_world, [frame],
                                           lambda i: sources)
            own_action(rig)          # before anything is written on it
            controls.use_fk(rig)
            keyed[rig.name] = _key(rig, {t: v[0] for t, v in values.items()}, frame)
        else:
            keyed[run.arm.name] = _key(run.arm, {
                b: _channels(run.arm.pose.bones[b], m) for b, m in basis.items()}, frame)
    # the armatures' keys are inputs of the simulation: it reads them again
    cache.invalidate(scene)
    return keyed


def _channels(pose_bone, m):
    """[location, rotation (4 values in the bone's rotation mode)] of a matrix_basis, the
    rotation continuous with the bone's current one."""
    loc, q, _ = m.decompose()
    mode = pose_bone.rotation_mode
    return [*loc, *quaternion_to_rotation(mode, q, rotation_values(pose_bone))]


def own_action(obj):
    """Make the keys inserted on `obj` land in this file. A linked object is refused (its
    pose is the library's); a library override playing an action linked with it (the
    character file's) gets a copy of that action in this file to play, the override keeping
    it through a save: keys inserted into the linked action itself would be lost without a
    word. Returns the copy, or None when there was nothing to copy."""
    library = library_of(obj)
    if obj.library is not None:
        raise SceneError(f"'{obj.name}' is linked from '{library}' and cannot be keyed in "
                         "this file; make a library override of it (Object > Library "
                         "Override > Make)")
    ad = obj.animation_data
    action = ad.action if ad is not None else None
    if action is None or action.library is None:
        return None
    slot = getattr(ad, "action_slot", None)
    identifier = slot.identifier if slot is not None else ""
    copy = action.copy()
    copy.name = f"{action.name} {obj.name}"
    ad.action = copy
    slots = getattr(copy, "slots", None)
    if slots is not None and identifier and slots.get(identifier) is not None:
        ad.action_slot = slots.get(identifier)
    return copy


def _key(arm, channels, frame):
    """Set and key each bone's location and rotation at `frame`; returns the bones."""
    own_action(arm)
    for bone, values in channels.items():
        pb = arm.pose.bones[bone]
        pb.location = values[:3]
        path = ROTATION_PATHS.get(pb.rotation_mode, "rotation_euler")
        if path == "rotation_euler":
            pb.rotation_euler = values[3:6]
        else:
            setattr(pb, path, values[3:7])
        pb.keyframe_insert("location", frame=frame, group=bone)
        pb.keyframe_insert(path, frame=frame, group=bone)
    arm.update_tag()
    return sorted(channels)
