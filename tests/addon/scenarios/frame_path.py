"""test_frame_path.py's scenarios: what Blender shows after the add-on's per-frame path (the
change check's bulk reads, the bulk write and its tags) against the solver's own state, and
edits made while the animation plays: objects added, removed and renamed (the rows of the
file's objects move), still and simulated objects moved by a script without an update tag."""

import bpy
import numpy as np
from mathutils import Matrix, Quaternion, Vector

from .helpers import box, lig
from .rigs import enable_rigify, ground, metarig, ragdoll_bodies

RAGDOLL_CONSTRAINT = "Ligament Ragdoll"   # the Copy Transforms a ragdoll puts on each bone


def _crowd(count, height):
    """`count` human metarig ragdolls (one from Rigify's operator, the others copies of it),
    tilted so their bodies start turned, `height` m over the ground. The armatures."""
    enable_rigify()
    ground()
    first = metarig("Rig0", (0, 0, height))
    arms = [first]
    for k in range(1, count):
        arm = first.copy()
        arm.data = first.data.copy()
        for coll in first.users_collection:
            coll.objects.link(arm)
        arm.name = f"Rig{k}"
        arms.append(arm)
    for k, arm in enumerate(arms):
        arm.location = ((k % 3) * 2.5, (k // 3) * 2.5, height)
        arm.rotation_euler = (0.4 + 0.1 * k, -0.3, 0.7 * k)
    bpy.context.view_layer.update()
    with bpy.context.temp_override(active_object=first, object=first, selected_objects=arms):
        assert bpy.ops.ligament.ragdoll_from_armature(use_selected=True) == {'FINISHED'}
    return arms


def _shown(arms, sim):
    """The largest differences between what Blender shows (the evaluated depsgraph) and what
    the solver's state at this frame makes of it, computed here with mathutils: each body's
    world matrix (its origin = centre of mass - q offset, its rotation q) and each bone's
    (its target empty's local matrix under that pose: the bone copies the target's
    transform). (bodies' translation m, bodies' rotation, bones' matrix entries, bones
    compared)."""
    depsgraph = bpy.context.evaluated_depsgraph_get()
    world = sim.world
    by_name = {b.name: b for b in sim.bodies}
    posed = {}
    worst = [0.0, 0.0, 0.0, 0]
    for arm in arms:
        for obj in ragdoll_bodies(arm):
            b = by_name[obj.name]
            q = Quaternion([float(x) for x in world.orientations[b.id]])
            origin = Vector([float(x) for x in world.positions[b.id]]) - \
                q @ Vector([float(x) for x in b.offset])
            expected = Matrix.LocRotScale(origin, q, obj.scale)
            posed[obj.name] = expected
            shown = obj.evaluated_get(depsgraph).matrix_world
            worst[0] = max(worst[0], (shown.translation - origin).length)
            worst[1] = max(worst[1], float(np.abs(np.array(shown.to_3x3().normalized())
                                                  - np.array(q.to_matrix())).max()))
        arm_eval = arm.evaluated_get(depsgraph)
        for pb in arm_eval.pose.bones:
            con = pb.constraints.get(RAGDOLL_CONSTRAINT)
            target = None if con is None else con.target
            if target is None or target.parent is None or target.parent.name not in posed:
                continue
            expected = posed[target.parent.name] @ target.matrix_basis
            shown = arm_eval.matrix_world @ pb.matrix
            worst[2] = max(worst[2], float(np.abs(np.array(shown) - np.array(expected)).max()))
            worst[3] += 1
    return worst


def bodies_and_bones_shown(count, frames):
    """`count` tilted ragdolls dropped from 0.4 m, played to `frames`, then scrubbed back
    to a few frames: at each, what Blender shows against the solver's state at the frame
    (`_shown`); the bulk bodies, the frames' builds and the frame's bones that follow."""
    scene = bpy.context.scene
    addon = lig().addon
    arms = _crowd(count, 0.4)
    scene.frame_start, scene.frame_end = 1, frames
    scene.ligament_world.frame_end = frames
    builds = addon.runtime.simulation.stats["builds"]
    out = {"live": {}, "back": {}}
    for f in range(1, frames + 1):
        scene.frame_set(f)
        if f in (2, frames // 2, frames):
            out["live"][f] = _shown(arms, addon.runtime.cache.get(scene))
    sim = addon.runtime.cache.get(scene)
    for f in (frames // 2, 3):
        scene.frame_set(f)
        sim.world.load_state(sim.states[f])     # the solver's state at the frame shown
        out["back"][f] = _shown(arms, sim)
    out.update(bulk=len(sim.bulk), dynamic=len(sim.dynamic),
               builds=addon.runtime.simulation.stats["builds"] - builds,
               bones=sum(1 for arm in arms for pb in arm.pose.bones
                         if pb.constraints.get(RAGDOLL_CONSTRAINT) is not None),
               error=addon.runtime.cache.error(scene))
    return out


def _move_by_script(obj, location):
    """`obj` moved to `location` the way a script writing every object at once does: one
    foreach_set over the file's objects, which tags nothing for an update."""
    objects = bpy.data.objects
    values = np.empty(3 * len(objects), dtype=np.float32)
    objects.foreach_get("location", values)
    k = list(objects).index(obj)
    values[3 * k:3 * k + 3] = location
    objects.foreach_set("location", values)


def edits_while_playing():
    """One ragdoll and a quaternion-mode crate over the ground, with an empty no body depends
    on ("Zed"), played frame by frame while a script edits the file between frames: at 8 an
    empty is added whose name sorts first (every object's row in bpy.data.objects moves), at
    12 "Zed" is removed, at 16 the added empty is renamed to sort last, at 20 the ground is
    moved by a bulk write that tags nothing, at 26 the crate likewise. The builds at each
    frame, what Blender shows against the solver's state at a few (`_shown`), the crate's
    world matrix error there, the added empty's location; at the end the ground's location
    and the crate's rest location and start location."""
    scene = bpy.context.scene
    addon = lig().addon
    stats = addon.runtime.simulation.stats
    arms = _crowd(1, 0.3)
    crate = box("Crate", (0.4, 0.4, 0.4), (3, 0, 1), rotation=(0.3, 0.2, 0.1))
    crate.rotation_mode = 'QUATERNION'
    zed = bpy.data.objects.new("Zed", None)
    scene.collection.objects.link(zed)
    zed.location = (3, 3, 3)
    frames = 32
    scene.frame_start, scene.frame_end = 1, frames
    scene.ligament_world.frame_end = frames
    ground_obj = bpy.data.objects["Ground"]
    out = {"builds": {}, "shown": {}, "crate": {}}
    added = None
    builds = stats["builds"]
    for f in range(1, frames + 1):
        if f == 8:
            added = bpy.data.objects.new("Aaa added", None)
            scene.collection.objects.link(added)
            added.rotation_mode = 'QUATERNION'
            added.location = (7, 7, 7)
        elif f == 12:
            bpy.data.objects.remove(zed)
        elif f == 16:
            added.name = "Zzz added"
        elif f == 20:
            _move_by_script(ground_obj, (0.0, 0.0, -0.7))
        elif f == 26:
            _move_by_script(crate, (0.5, -2.5, 1.5))
        scene.frame_set(f)
        out["builds"][f] = stats["builds"] - builds
        if f in (7, 11, 15, 19, 25, 32):
            sim = addon.runtime.cache.get(scene)
            out["shown"][f] = _shown(arms, sim)
            b = next(b for b in sim.bodies if b.name == "Crate")
            q = Quaternion([float(x) for x in sim.world.orientations[b.id]])
            origin = Vector([float(x) for x in sim.world.positions[b.id]]) - \
                q @ Vector([float(x) for x in b.offset])
            shown = crate.evaluated_get(bpy.context.evaluated_depsgraph_get()).matrix_world
            out["crate"][f] = (shown.translation - origin).length
    out["added"] = list(added.location)
    out["ground"] = list(ground_obj.location)
    s = crate.ligament_body
    out["rest"] = list(s.rest_location) if s.rest_valid else None
    scene.frame_set(1)
    out["start"] = list(crate.location)
    out["error"] = addon.runtime.cache.error(scene)
    return out
