"""Reduced keys of a ragdoll bounded where the bones are.

Each baked bone's channels are reduced to the tolerance on their own (`reduce`), but a bone
sits at the end of a chain of them: the pelvis's error moves the spine, the spine's the
shoulder, and so on to the fingertips, which are off by the sum (and by each rotation error
times the distance to the joint: a hand 0.5 degrees off moves its fingertips 1.7 mm). So
after the channels are written, `WorldCheck` poses every bone at or below a baked one as the
written F-curves play (`FCurve.evaluate`) and as the simulation had it (a key on every
frame), and compares their heads and tails in world space. Where one is further off than
the location tolerance, the bake reduces the baked bones above it again with half their
share of both tolerances, and checks again, until none is: the tolerance is split down each
chain as far as its motion needs, and the keys stay Bezier keys placed along the motion."""

import numpy as np
from mathutils import Matrix, Vector

from ..scene.animation import compose, matrix_world_at, rotation_to_quaternion
from ..world.ragdolls import Skeleton, bone_path
from .reduce import evaluated

# the bones' own poses in Blender are float32: checked to this share of the tolerance
MARGIN = 0.95
# halvings of a bone's share of the tolerances at most (2^-20: a key on every frame)
MAX_ROUNDS = 20


class WorldCheck:
    """Heads and tails in world space of the bones at and below `baked` (bone names of `arm`)
    at `frames`, simulated (`full`: one {bone: matrix_basis} per frame, the baked bones')
    and as written."""

    def __init__(self, arm, baked, frames, full, tolerance):
        bones = arm.data.bones
        below = set(baked)
        for n in baked:
            below.update(c.name for c in bones[n].children_recursive)
        self.arm = arm
        self.skeleton = sk = Skeleton(arm, sorted(below))
        self.baked = list(baked)
        self.frames = list(frames)
        self.limit = MARGIN * tolerance
        self.arm_world = [matrix_world_at(arm, f, {}) for f in self.frames]
        # the bones the bake does not key play their own channels, the same in both
        self.still = {n: [sk.basis(n, f) for f in self.frames]
                      for n in sk.order if n not in set(baked)}
        self.length = {n: bones[n].length for n in sk.order}
        self.modes = {n: arm.pose.bones[n].rotation_mode for n in baked}
        self.scales = {n: [full[i][n].to_scale() for i in range(len(self.frames))]
                       for n in baked}
        self.full = [self._points(i, full[i]) for i in range(len(self.frames))]
        keyed = set(baked)
        self.keyed_above = []
        for n in sk.order:
            chain, p = [], n
            while p is not None:
                if p in keyed:
                    chain.append(p)
                p = sk.parent[p]
            self.keyed_above.append(chain)

    def _points(self, i, basis):
        """(bones, 6): head and tail of each bone of the skeleton in world space at frame
        index `i`, the baked bones posed by `basis` ({bone: matrix_basis})."""
        sk = self.skeleton
        pose = {}
        out = np.empty((len(sk.order), 6))
        world = self.arm_world[i]
        for k, n in enumerate(sk.order):
            parent = pose[sk.parent[n]] if sk.parent[n] else Matrix.Identity(4)
            b = basis[n] if n in basis else self.still[n][i]
            m = pose[n] = parent @ sk.link[n] @ b
            out[k, :3] = world @ m.translation
            out[k, 3:] = world @ (m @ Vector((0.0, self.length[n], 0.0)))
        return out

    def _played(self, bag):
        """[{bone: matrix_basis}] per frame of the baked bones as their written F-curves
        play."""
        by_path = {(fc.data_path, fc.array_index): fc for fc in bag.fcurves}
        out = [{} for _ in self.frames]
        for n in self.baked:
            prefix = bone_path(n) + "."
            mode = self.modes[n]
            rot_path = {'QUATERNION': "rotation_quaternion",
                        'AXIS_ANGLE': "rotation_axis_angle"}.get(mode, "rotation_euler")
            rot_n = 3 if rot_path == "rotation_euler" else 4
            loc = evaluated([by_path[(prefix + "location", i)] for i in range(3)], self.frames)
            rot = evaluated([by_path[(prefix + rot_path, i)] for i in range(rot_n)],
                            self.frames)
            for i in range(len(self.frames)):
                q = rotation_to_quaternion(mode, tuple(rot[i]))
                out[i][n] = compose(Vector(loc[i]), q, self.scales[n][i])
        return out

    def off(self, bag):
        """The baked bones above (and including) any bone whose head or tail is further than
        the tolerance from the simulated one at some frame."""
        played = self._played(bag)
        out = set()
        for i in range(len(self.frames)):
            pts, full = self._points(i, played[i]), self.full[i]
            err = np.maximum(np.linalg.norm(pts[:, :3] - full[:, :3], axis=1),
                             np.linalg.norm(pts[:, 3:] - full[:, 3:], axis=1))
            for k in np.flatnonzero(err > self.limit):
                out.update(self.keyed_above[k])
        return sorted(out)
