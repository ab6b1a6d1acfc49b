"""test_frame_writes.py's scenarios: the bulk calls the add-on's frame makes on the file's
objects (`bpy.data.objects.foreach_get` / `foreach_set`, recorded by a stand-in for the
runtime's `bpy`), against what Blender shows: every body's evaluated world matrix and the
solver's state at the frame."""

import bpy
import numpy as np
from mathutils import Matrix, Quaternion, Vector

from .frame_path import _crowd, _shown
from .helpers import box, lig

# the buffer type a property's own storage reads into (float and int properties are 32-bit,
# enums read as their int32 values)
_OWN_TYPE = {'FLOAT': "<f4", 'INT': "<i4", 'ENUM': "<i4", 'BOOLEAN': "|b1"}


class _Recorded:
    """`bpy.data.objects` with its `foreach_get` / `foreach_set` calls recorded as
    (call, property, buffer dtype), and its lengths asked as ("len", None, None)."""

    def __init__(self, objects, calls):
        self._objects, self._calls = objects, calls

    def foreach_get(self, name, seq):
        self._calls.append(("get", name, np.asarray(seq).dtype.str))
        return self._objects.foreach_get(name, seq)

    def foreach_set(self, name, seq):
        self._calls.append(("set", name, np.asarray(seq).dtype.str))
        return self._objects.foreach_set(name, seq)

    def __len__(self):
        self._calls.append(("len", None, None))
        return len(self._objects)

    def __iter__(self):
        return iter(self._objects)

    def __getitem__(self, key):
        return self._objects[key]

    def __getattr__(self, name):
        return getattr(self._objects, name)


class _Data:
    def __init__(self, calls):
        self._calls = calls

    @property
    def objects(self):
        return _Recorded(bpy.data.objects, self._calls)

    def __getattr__(self, name):
        return getattr(bpy.data, name)


class _Bpy:
    """The runtime's `bpy` with its file's objects recorded."""

    def __init__(self, calls):
        self.data = _Data(calls)

    def __getattr__(self, name):
        return getattr(bpy, name)


class recording:
    """with recording() as calls: the runtime's bulk calls on the file's objects, listed."""

    def __enter__(self):
        self.module = lig().addon.runtime.state
        self.calls = []
        self.module.bpy = _Bpy(self.calls)
        return self.calls

    def __exit__(self, *exc):
        self.module.bpy = bpy


def bulk_call_types(count, frames):
    """`count` tilted ragdolls dropped from 0.4 m and played to `frames`, the runtime's bulk
    calls on the file's objects recorded: each distinct (call, property, buffer dtype), the
    dtype of the property's own storage (from its RNA definition), how many times each
    frame after the first two asked how many objects the file holds, and what Blender shows
    at the last frame against the solver's state (`frame_path._shown`)."""
    scene = bpy.context.scene
    addon = lig().addon
    arms = _crowd(count, 0.4)
    scene.frame_start, scene.frame_end = 1, frames
    scene.ligament_world.frame_end = frames
    lengths = []     # the lengths asked in each frame after the build's
    with recording() as calls:
        for f in range(1, frames + 1):
            start = len(calls)
            scene.frame_set(f)
            if f > 2:
                lengths.append(sum(1 for c in calls[start:] if c[0] == "len"))
    props = bpy.types.Object.bl_rna.properties
    seen = sorted(set(c for c in calls if c[0] != "len"))
    return {"calls": seen, "lengths": lengths,
            "own": {name: _OWN_TYPE[props[name].type] for _, name, _ in seen},
            "shown": _shown(arms, addon.runtime.cache.get(scene)),
            "error": addon.runtime.cache.error(scene)}


def _boxes(resting, height):
    """`resting` quaternion-mode crates lying on the ground in a row and one more dropped
    from `height` m beside them; the crates, the dropped one last."""
    box("Ground", (60, 60, 1), (0, 0, -0.5), kind='STATIC')
    crates = []
    for k in range(resting + 1):
        z = height if k == resting else 0.5
        obj = box(f"Crate{k:03d}", (1, 1, 1), ((k % 8) * 3.0, (k // 8) * 3.0, z))
        obj.rotation_mode = 'QUATERNION'
        crates.append(obj)
    bpy.context.view_layer.update()
    return crates


def _crate_errors(crates, sim):
    """(largest translation error m, largest rotation matrix entry error) of the crates'
    evaluated world matrices against the solver's state (origin = centre of mass - q offset)."""
    depsgraph = bpy.context.evaluated_depsgraph_get()
    world = sim.world
    by_name = {b.name: b for b in sim.bodies}
    move = turn = 0.0
    for obj in crates:
        b = by_name[obj.name]
        q = Quaternion([float(x) for x in world.orientations[b.id]])
        origin = Vector([float(x) for x in world.positions[b.id]]) - \
            q @ Vector([float(x) for x in b.offset])
        shown = obj.evaluated_get(depsgraph).matrix_world
        move = max(move, (shown.translation - origin).length)
        turn = max(turn, float(np.abs(np.array(shown.to_3x3().normalized())
                                      - np.array(q.to_matrix())).max()))
    return move, turn


def few_bodies_moving(resting, height, frames):
    """`resting` crates on the ground and one dropped from `height` m (`_boxes`), played to
    `frames` then scrubbed back to frame 2 and forward to the last: at each frame, how many
    crates Blender shows moved since the frame before (their evaluated world matrices
    compared), the runtime's `foreach_set` calls on the file's objects in the frame, and the
    crates' largest errors against the solver's state (`_crate_errors`); the file's object
    count and how many crates the bulk path writes."""
    scene = bpy.context.scene
    addon = lig().addon
    crates = _boxes(resting, height)
    scene.frame_start, scene.frame_end = 1, frames
    scene.ligament_world.frame_end = frames
    depsgraph = bpy.context.evaluated_depsgraph_get()

    def shown():
        return [Matrix(o.evaluated_get(depsgraph).matrix_world) for o in crates]
    scene.frame_set(1)
    before = shown()
    out = {"frames": []}
    with recording() as calls:
        for f in list(range(2, frames + 1)) + [2, frames]:
            del calls[:]
            scene.frame_set(f)
            sim = addon.runtime.cache.get(scene)
            sim.world.load_state(sim.states[f])     # the solver's state at the frame shown
            now = shown()
            moved = sum(1 for a, b in zip(before, now) if a != b)
            before = now
            out["frames"].append((f, moved, sum(1 for c in calls if c[0] == "set"),
                                  *_crate_errors(crates, sim)))
    sim = addon.runtime.cache.get(scene)
    out.update(objects=len(bpy.data.objects), bulk=len(sim.bulk),
               builds=addon.runtime.simulation.stats["builds"],
               error=addon.runtime.cache.error(scene))
    return out
