"""test_loops.py's scenarios: a wall of boxes welded to their neighbours with Fixed joints,
hung from its two top corners, played in Blender."""

import bpy
import numpy as np

from .helpers import box, joint


def hanging_welded_wall(n, frames):
    """An n x n wall of 0.5 m boxes (2 % gaps) in the x-z plane, each welded to its right
    and lower neighbour by a Fixed joint at their faces' midpoint, hung from its two top
    corners by Ball joints to a Static post. Played `frames` frames; returns the largest gap
    of any joint over them (the joint empty's point carried by each of its two objects as
    Blender shows them, from where it sat at the first frame, m) and the drop of the bottom
    row's middle box (m)."""
    scene = bpy.context.scene
    scene.ligament_world.frame_end = frames
    size = 0.5
    post = box("Post", (0.1, 0.1, 0.1), (0.5 * (n - 1) * size, 0.0, 3.0), kind='STATIC')
    wall = [[box(f"Brick.{i}.{k}", (0.49 * size,) * 3, (k * size, 0.0, 1.0 - i * size),
                 mass=10.0)
             for k in range(n)] for i in range(n)]
    welds = []
    for i in range(n):
        for k in range(n):
            if k + 1 < n:
                welds.append(joint(f"Weld.{i}.{k}.r", 'FIXED', wall[i][k], wall[i][k + 1],
                                   ((k + 0.5) * size, 0.0, 1.0 - i * size)))
            if i + 1 < n:
                welds.append(joint(f"Weld.{i}.{k}.d", 'FIXED', wall[i][k], wall[i + 1][k],
                                   (k * size, 0.0, 1.0 - (i + 0.5) * size)))
    for k in (0, n - 1):
        welds.append(joint(f"Hang.{k}", 'BALL', post, wall[0][k], (k * size, 0.0, 1.0)))
    scene.frame_set(1)

    def matrix(obj):
        return np.array(obj.evaluated_get(bpy.context.evaluated_depsgraph_get()).matrix_world)

    local = []
    for e in welds:
        p = np.append(np.array(e.matrix_world.translation), 1.0)
        j = e.ligament_joint
        local.append((j.object_a, j.object_b, np.linalg.solve(matrix(j.object_a), p),
                      np.linalg.solve(matrix(j.object_b), p)))
    probe = wall[n - 1][n // 2]
    z0 = matrix(probe)[2, 3]
    worst = 0.0
    for f in range(2, frames + 1):
        scene.frame_set(f)
        for a, b, pa, pb in local:
            worst = max(worst, float(np.linalg.norm((matrix(a) @ pa - matrix(b) @ pb)[:3])))
    return {"gap": worst, "drop": float(z0 - matrix(probe)[2, 3])}
