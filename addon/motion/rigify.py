"""The physics check and fix on a ragdoll made on a rig Rigify generated (its DEF bones, the
`rigify_deform` bone map). Those bones follow the rig's controls through constraints (Copy
Transforms from the tweaks, Stretch To, the limbs' IK), so their keys say nothing:

* the check reads the pose Blender evaluates from the animation of the controls, frame by
  frame (the scene's depsgraph at the frame, subframes too), with Ligament's own Copy
  Transforms muted meanwhile so that a simulated pose is not read back into the check. The
  bodies are placed on those matrices (Blender's, float32, made rigid in float64): the
  check's figures are of the pose as Blender shows it;
* the fix writes its keys on the controls: the flights and spins move the `root` control
  (every control and bone follows it, so the whole character moves rigidly as the fix's root
  matrices say: `rig.py` treats it as the ragdoll's root bone), balance shifts the `torso`
  control and holds the IK foot controls where they were keyed, the legs reaching them by the
  rig's own IK. Balance needs IK legs: a leg in FK (its `thigh_parent` bone's IK_FK property
  above 0) is refused with the property to set.
"""

import bpy
import numpy as np
from mathutils import Vector

from ..authoring import ragdoll
from ..scene.animation import action_fcurves, quaternion_to_rotation
from ..scene.errors import SceneError
from ..scene.frames import updates
from ..world.ragdolls import bone_path
from . import check, fix

ROOT, TORSO = "root", "torso"
IK_FK = "IK_FK"      # a Rigify limb's switch: 0 IK, 1 FK
# the shifted torso's balance passes (as rig.BALANCE_PASSES: the legs' IK bends them a little)
BALANCE_PASSES = 6


def is_generated(arm):
    """Whether `arm` is a rig Rigify generated (its `rig_id`, its root and torso controls)."""
    bones = arm.pose.bones
    return arm.data.get("rig_id") is not None and ROOT in bones and TORSO in bones


def legs(arm):
    """[(IK/FK switch bone, IK foot control, (DEF thigh, shin, foot))] of the sides the rig
    has."""
    bones = arm.pose.bones
    out = []
    for side in ("L", "R"):
        switch, foot = f"thigh_parent.{side}", f"foot_ik.{side}"
        deform = tuple(f"DEF-{n}.{side}" for n in ("thigh", "shin", "foot"))
        if switch in bones and foot in bones and all(n in bones for n in deform):
            out.append((switch, foot, deform))
    return out


def _np(m):
    return np.array(m, dtype=np.float64)


class Evaluated:
    """`with Evaluated(scene, arm) as ev:` `ev.at(frame)` is the armature evaluated at
    `frame` (fractional too), Ligament's constraints on its bones muted; the constraints and
    the scene's frame are put back after."""

    def __init__(self, scene, arm):
        self.scene, self.arm = scene, arm
        context = bpy.context
        self.view_layer = context.view_layer if getattr(context, "scene", None) == scene and \
            context.view_layer is not None else scene.view_layers[0]

    def __enter__(self):
        self.frame = self.scene.frame_float
        self.muted = [c for pb in self.arm.pose.bones for c in pb.constraints
                      if c.name.startswith(ragdoll.CONSTRAINT) and not c.mute]
        for c in self.muted:
            c.mute = True
        return self

    def at(self, frame):
        with updates:
            self.scene.frame_float = float(frame)
            self.view_layer.update()
        return self.arm.evaluated_get(self.view_layer.depsgraph)

    def update(self):
        with updates:
            self.view_layer.update()
        return self.arm.evaluated_get(self.view_layer.depsgraph)

    def __exit__(self, *exc):
        for c in self.muted:
            c.mute = False
        with updates:
            self.scene.frame_float = self.frame
            self.view_layer.update()


def body_matrices(scene, arm, parts, frames):
    """(F, B, 4, 4) world matrices of the ragdoll's bodies `parts` (world.ragdolls.Part) where
    the rig's evaluated pose puts their bones at `frames`."""
    to_body = [np.linalg.inv(_np(arm.data.bones[p.bone].matrix_local)) @ _np(p.frame)
               for p in parts]
    out = np.empty((len(frames), len(parts), 4, 4))
    with Evaluated(scene, arm) as ev:
        for i, f in enumerate(frames):
            out[i] = _bodies(ev.at(f), parts, to_body)
    return out


def bone_matrices(scene, arm, bone, frames):
    """(F, 4, 4) world matrices of `bone` in the rig's evaluated pose at `frames` (a generated
    rig plays drivers: its bones' keys are not its pose)."""
    with Evaluated(scene, arm) as ev:
        return np.array([_np(a.matrix_world) @ _np(a.pose.bones[bone].matrix)
                         for a in (ev.at(f) for f in frames)])


def _bodies(evaluated, parts, to_body):
    world = _np(evaluated.matrix_world)
    bones = evaluated.pose.bones
    return [fix.rigid64(world @ _np(bones[p.bone].matrix) @ t) for p, t in zip(parts, to_body)]


class _Held:
    """The location and rotation F-curves of `bones` muted (their pose bones then keep what
    is set on them), their curves' mute flags and the bones' channels put back after."""

    def __init__(self, arm, bones):
        self.arm, self.bones = arm, bones

    def __enter__(self):
        prefixes = tuple(bone_path(b) + "." for b in self.bones)
        self.curves = [fc for (path, _), fc in action_fcurves(self.arm).items()
                       if path.startswith(prefixes) and not path.endswith(".scale")]
        for fc in self.curves:
            fc.mute = True
        self.kept = {b: self.arm.pose.bones[b].matrix_basis.copy() for b in self.bones}
        return self

    def __exit__(self, *exc):
        for fc in self.curves:
            fc.mute = False
        for b, m in self.kept.items():
            self.arm.pose.bones[b].matrix_basis = m


def _refuse_fk(arm, evaluated, sides, frame):
    for switch, _, _ in sides:
        value = float(evaluated.pose.bones[switch].get(IK_FK, 0.0))
        if value > 1e-6:
            raise SceneError(
                f"Physics fix: the leg of '{arm.name}' under pose bone '{switch}' is FK at frame "
                f"{frame:g} ({IK_FK} = {value:g}): balance moves the torso and holds the IK feet "
                f"where they are keyed, so it needs IK legs. Set the property '{IK_FK}' of "
                f"'{switch}' to 0 (Rig Main Properties in the sidebar: IK-FK) over the "
                "frames checked, or fix with Balance off")


def balance(rig, frames, report, airborne):
    """Balance on a generated Rigify rig: the torso control shifted in the stance frames where
    the centre of mass is outside the support (`fix.balance_shifts`, not in the frames of
    `airborne`), lowered where the legs could not reach their feet, the IK foot controls held
    where they were keyed; each frame's shift corrected until the centre of mass of the pose
    Blender evaluates is over the support. Returns {control: (F, 7) channels} (keyed where
    nothing moved), {} when nothing needs balance."""
    arm, settings = rig.arm, rig.settings
    feet = [i for i, n in enumerate(rig.part_names) if n.startswith("foot")]
    shifts = fix.balance_shifts(report, settings,
                                standing=np.isin(rig.character.sample_body, feet))
    shifts[airborne] = 0.0
    moving = np.abs(shifts).any(axis=1)
    if not moving.any():
        return {}
    sides = legs(arm)
    if not sides:
        raise SceneError(f"Physics fix: '{arm.name}' has no Rigify IK legs (thigh_parent, "
                         "foot_ik and the DEF leg bones) to balance on; fix with Balance off")
    controls = [TORSO] + [foot for _, foot, _ in sides]
    rows = {b: [] for b in controls}
    previous = {}
    with Evaluated(rig.scene, arm) as ev:
        keyed = []
        for i, f in enumerate(frames):
            a = ev.at(f)
            if moving[i]:
                _refuse_fk(arm, a, sides, f)
            keyed.append(_Keyed(a, controls, sides))
        with _Held(arm, controls):
            for i, f in enumerate(frames):
                if moving[i]:
                    ev.at(f)
                    hull, _ = check.support_polygon(report, i, settings.gravity)
                    basis = _balanced(ev, rig, keyed[i], shifts[i], hull, sides)
                else:
                    basis = keyed[i].basis
                for b in controls:
                    loc, q, _ = basis[b].decompose()
                    mode = arm.pose.bones[b].rotation_mode
                    previous[b] = quaternion_to_rotation(mode, q, previous.get(b))
                    rows[b].append([*loc, *previous[b]])
    return {b: np.array(v, dtype=np.float64) for b, v in rows.items()}


class _Keyed:
    """What the keys make of a frame: the controls' matrix_basis (`basis`) and armature-space
    matrices (`pose`), the legs' hip, knee and ankle (`hips`, `knees`, `ankles`: (sides, 3),
    armature space), the armature's world matrix (`world`)."""

    def __init__(self, evaluated, controls, sides):
        bones = evaluated.pose.bones
        self.basis = {b: bones[b].matrix_basis.copy() for b in controls}
        self.pose = {b: bones[b].matrix.copy() for b in controls}
        self.hips, self.knees, self.ankles = (
            np.array([_np(bones[deform[j]].matrix)[:3, 3] for _, _, deform in sides])
            for j in range(3))
        self.world = _np(evaluated.matrix_world)


def _balanced(ev, rig, keyed, shift, hull, sides):
    """{control: matrix_basis} of a frame balanced by the torso moved by the world `shift`
    (and down where the legs could not reach), corrected by passes until the centre of mass
    of the evaluated pose is over the support polygon `hull`, the IK feet held where keyed."""
    settings, pbs = rig.settings, rig.arm.pose.bones
    controls = list(keyed.basis)
    for b in controls:
        pbs[b].matrix_basis = keyed.basis[b]
    to_body = [np.linalg.inv(_np(rig.arm.data.bones[p.bone].matrix_local)) @ _np(p.frame)
               for p in rig.parts]
    masses = rig.character.masses
    _, u, w = check.ground_axes(settings.gravity)
    to_arm = np.linalg.inv(keyed.world[:3, :3])
    up = to_arm @ (-np.asarray(settings.gravity))
    up /= np.linalg.norm(up)
    total = to_arm @ shift
    for _ in range(BALANCE_PASSES):
        move = total - fix.reach_drop(keyed.hips, keyed.knees, keyed.ankles, total, up) * up
        torso = keyed.pose[TORSO].copy()
        torso.translation = torso.translation + Vector(tuple(float(x) for x in move))
        pbs[TORSO].matrix = torso
        ev.update()
        for _, foot, _ in sides:      # held where keyed, whatever they follow
            pbs[foot].matrix = keyed.pose[foot]
        bodies = np.array(_bodies(ev.update(), rig.parts, to_body))
        centres = np.einsum("bij,bj->bi", bodies[:, :3, :3], rig.character.centres) + \
            bodies[:, :3, 3]
        com = (masses[:, None] * centres).sum(axis=0) / masses.sum()
        dist, nearest = check.nearest_in_polygon((com @ u, com @ w), hull)
        if dist <= 0.0:
            break
        step = (nearest - (com @ u, com @ w)) * (1.0 + 0.005 / dist)
        total = total + to_arm @ (step[0] * u + step[1] * w)
    return {b: pbs[b].matrix_basis.copy() for b in controls}
