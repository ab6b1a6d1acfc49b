"""The simulated pose baked onto another rig's bones: a visual-transform bake.

Each (source, target) pair of `ligament_ragdoll.controls` asks the target bone to move as the
simulated source bone moves, keeping the offset between the two at rest: in world space,
T(f) = S(f) S0^-1 T0, with S0 and T0 the bones' rest matrices (their armatures' world matrices
at the bake, times `Bone.matrix_local`). A target with the source's rest (Rigify's FK
controls copy the metarig's bones) then lands exactly on the source.

A target's pose bone channels depend on its parent's evaluated pose, and a rig's parents
move through constraints the hierarchy does not show (Rigify's mechanism bones follow other
controls), so each frame is solved by passes: every target set from its parent's evaluated
matrix (`PoseBone.matrix`, parents first, the rig evaluated after each depth whose channels
changed), until a pass moves none by more than `SETTLED`. The rig's own action is taken off
while the frames are solved (it would play over the set channels) and the keys then go into
a copy of it.
"""

import numpy as np

import bpy
from mathutils import Matrix

from ..scene.animation import quaternion_to_rotation

# A pass that moves no target by more than this (metres, and radians as the matrix entries
# change) ends a frame's solve.
SETTLED = 1e-7
MAX_PASSES = 8


def _depth(bone):
    d = 0
    while bone.parent is not None:
        bone, d = bone.parent, d + 1
    return d


def check_pairs(arm, rig, pairs):
    """(pairs whose bones both exist, ["source -> target" of the others])."""
    good, missing = [], []
    for s, t in pairs:
        if s in arm.pose.bones and t in rig.pose.bones:
            good.append((s, t))
        else:
            missing.append(f"{s} -> {t}")
    return good, missing


class Retarget:
    """Solves the target rig's pose bone channels for the source's world matrices."""

    def __init__(self, arm, arm_world, rig, pairs):
        self.rig = rig
        rig_world = rig.matrix_world.copy()
        self.rig_inv = rig_world.inverted_safe()
        self.pairs = sorted(pairs, key=lambda p: (_depth(rig.data.bones[p[1]]), p[1]))
        self.depths = sorted({_depth(rig.data.bones[t]) for _, t in self.pairs})
        # each depth's targets, parents first
        self.targets = [[t for _, t in self.pairs if _depth(rig.data.bones[t]) == depth]
                        for depth in self.depths]
        # S0^-1 T0 per pair (world space at rest)
        self.offset = {}
        for s, t in self.pairs:
            s0 = arm_world @ arm.data.bones[s].matrix_local
            t0 = rig_world @ rig.data.bones[t].matrix_local
            self.offset[(s, t)] = s0.inverted_safe() @ t0
        self.previous = {}

    def solve(self, sources):
        """Pose the targets for `sources` ({source bone: world matrix}); returns {target:
        matrix_basis}. The rig is left in that pose."""
        rig, view_layer = self.rig, bpy.context.view_layer
        wanted = {}
        for s, t in self.pairs:
            m = self.rig_inv @ sources[s] @ self.offset[(s, t)]
            loc, rot, _ = m.decompose()
            wanted.setdefault(t, Matrix.LocRotScale(loc, rot, None))
        fresh = False        # the rig evaluated since this solve began
        for _ in range(MAX_PASSES):
            moved = 0.0
            for targets in self.targets:
                changed = 0.0
                for t in targets:
                    pb = rig.pose.bones[t]
                    before = pb.matrix_basis.copy()
                    pb.matrix = wanted[t]
                    changed = max(changed, max(abs(a - b) for ra, rb in
                                               zip(before, pb.matrix_basis)
                                               for a, b in zip(ra, rb)))
                # the rig evaluated again only if a channel of this depth changed (or it was
                # not evaluated since the solve began): else what was evaluated after the
                # depths before holds. Each evaluation is the whole rig's, most of a bake
                # onto the controls' time.
                if changed > 0.0 or not fresh:
                    view_layer.update()
                    fresh = True
                moved = max(moved, changed)
            if moved < SETTLED:
                break
        return {t: rig.pose.bones[t].matrix_basis.copy() for _, t in self.pairs}

    def channels(self, basis):
        """{target: [location, rotation in its pose bone's rotation mode (4 values)]},
        continuous with the previous frame's."""
        out = {}
        for t, m in basis.items():
            loc, q, _ = m.decompose()
            mode = self.rig.pose.bones[t].rotation_mode
            self.previous[t] = quaternion_to_rotation(mode, q, self.previous.get(t))
            out[t] = [*loc, *self.previous[t]]
        return out


def solve_frames(arm, rig, pairs, arm_world, frames, sources_at):
    """{target: (frames, 7) values} for `frames`; `sources_at(i)` gives frame i's source world
    matrices. Takes the rig's action off while solving and gives it back."""
    ad = rig.animation_data
    action = ad.action if ad is not None else None
    slot = getattr(ad, "action_slot", None) if ad is not None else None
    if action is not None:
        ad.action = None
    keep = {pb.name: pb.matrix_basis.copy() for pb in rig.pose.bones}
    try:
        solver = Retarget(arm, arm_world, rig, pairs)
        rows = {}
        for i in range(len(frames)):
            for t, v in solver.channels(solver.solve(sources_at(i))).items():
                rows.setdefault(t, []).append(v)
    finally:
        for name, m in keep.items():
            rig.pose.bones[name].matrix_basis = m
        if action is not None:
            ad.action = action
            if slot is not None and getattr(ad, "action_slot", None) != slot:
                ad.action_slot = slot
    return {t: np.array(v, dtype=np.float64) for t, v in rows.items()}
