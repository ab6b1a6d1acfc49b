"""test_convex_split.py's scenarios: Split into Convex Parts as a job in a process of its own
(`convex_parts.SplitJob`, what the operator's modal loop runs), watched, cancelled and
finished."""

import os
import time

import bpy

from .helpers import lig


def _torus(name, major, minor):
    bpy.ops.mesh.primitive_torus_add(major_segments=major, minor_segments=minor)
    torus = bpy.context.active_object
    torus.name = name
    return torus


def _scene_state():
    """What a split could change: every object and mesh, the parts' vertices, the shapes."""
    return {"objects": sorted(o.name for o in bpy.data.objects),
            "meshes": sorted(m.name for m in bpy.data.meshes),
            "parents": sorted((o.name, o.parent.name if o.parent else None)
                              for o in bpy.data.objects),
            "shapes": sorted((o.name, o.ligament_body.enabled, o.ligament_body.shape)
                             for o in bpy.data.objects),
            "vertices": sorted((m.name, [round(c, 6) for v in m.vertices for c in v.co])
                               for m in bpy.data.meshes)}


def cancel_a_long_split(major, minor, watch_seconds):
    """A torus split coarsely once (its parts and Compound shape are what the user has), then
    split again finely as a job, watched for `watch_seconds` and cancelled: the scene before
    and after, what the job reported while it ran, how long `start` and each `poll` held the
    caller, and whether the process and its files are gone."""
    convex_parts = lig().addon.authoring.convex_parts
    torus = _torus("Donut", major, minor)
    depsgraph = bpy.context.evaluated_depsgraph_get()
    convex_parts.split_into_parts(torus, depsgraph, threshold=0.3, max_parts=3)
    before = _scene_state()
    t = time.perf_counter()
    job = convex_parts.SplitJob(torus, depsgraph, threshold=0.01).start()
    start_s = time.perf_counter() - t
    seen, polls, longest_poll = [], 0, 0.0
    end = time.perf_counter() + watch_seconds
    state = 'RUNNING'
    while time.perf_counter() < end and state == 'RUNNING':
        t = time.perf_counter()
        state = job.poll()
        longest_poll = max(longest_poll, time.perf_counter() - t)
        polls += 1
        seen.append((job.round, job.fraction, job.status()))
        time.sleep(0.05)
    folder = job._dir
    job.cancel()
    return {"before": before, "after": _scene_state(), "state": state, "start_s": start_s,
            "longest_poll_s": longest_poll, "polls": polls, "seen": seen,
            "exit": job.process.returncode, "folder_left": folder is not None and
            os.path.exists(folder)}


def job_and_blocking_split(major, minor, threshold):
    """The same torus split by a job (waited for) and by the blocking call: the parts of
    each (names, vertex counts, bounds) and the job's progress as it went."""
    convex_parts = lig().addon.authoring.convex_parts
    torus = _torus("Ring", major, minor)
    depsgraph = bpy.context.evaluated_depsgraph_get()

    def parts():
        out = []
        for c in sorted(convex_parts.made_parts(torus), key=lambda c: c.name):
            co = [tuple(v.co) for v in c.data.vertices]
            out.append([c.name, c.parent.name, c.ligament_body.shape, len(co),
                        [round(min(p[k] for p in co), 4) for k in range(3)],
                        [round(max(p[k] for p in co), 4) for k in range(3)]])
        return out

    job = convex_parts.SplitJob(torus, depsgraph, threshold=threshold).start()
    rounds = set()
    while job.poll() == 'RUNNING':
        rounds.add(job.round)
        time.sleep(0.02)
    made, seconds = job.finish()
    by_job = parts()
    shape = torus.ligament_body.shape
    convex_parts.split_into_parts(torus, depsgraph, threshold=threshold)
    return {"job": by_job, "blocking": parts(), "made": len(made), "seconds": seconds,
            "shape": shape, "rounds": sorted(rounds), "status": job.status()}


def job_on_a_deleted_object():
    """The object deleted while its split runs: what `finish` says."""
    convex_parts = lig().addon.authoring.convex_parts
    torus = _torus("Gone", 24, 8)
    job = convex_parts.SplitJob(torus, bpy.context.evaluated_depsgraph_get(), 0.1).start()
    bpy.data.objects.remove(torus)
    job.wait(300)
    try:
        job.finish()
    except lig().addon.scene.errors.SceneError as exc:
        return str(exc)
    return None
