"""test_cache_bulk.py's scenarios: quaternion-mode bodies on the cache's bulk path, linked
library bodies, the solver's thread count, a driven ragdoll switch."""

import bpy

from .helpers import box, lig, transforms
from .rigs import enable_rigify, ground, metarig, ragdoll_bodies


def quaternion_scene():
    """Three unparented quaternion-mode cubes over the ground (the bulk path), and objects
    the simulation does not move: a keyed empty and a still one in quaternion mode (the bulk
    write gives every other object back what it read). (cubes, keyed, still)."""
    scene = bpy.context.scene
    box("Ground", (20, 20, 1), (0, 0, -0.5), kind='STATIC')
    cubes = []
    for i in range(3):
        c = box(f"Cube{i}", (1, 1, 1), (3.0 * i, 0, 2 + i), rotation=(0.2 * i, 0.1, 0.0))
        c.rotation_mode = 'QUATERNION'
        cubes.append(c)
    keyed = bpy.data.objects.new("Keyed", None)
    scene.collection.objects.link(keyed)
    keyed.location = (0, 5, 0)
    keyed.keyframe_insert("location", frame=1)
    keyed.location = (0, 5, 10)
    keyed.keyframe_insert("location", frame=41)
    still = bpy.data.objects.new("Still", None)
    scene.collection.objects.link(still)
    still.rotation_mode = 'QUATERNION'
    still.location = (1, 2, 3)
    still.rotation_quaternion = (0.5, 0.5, 0.5, 0.5)
    return cubes, keyed, still


def bulk_fall_and_replay():
    """The quaternion scene over 40 frames and replayed at a few frames: the bulk bodies,
    the cubes' matrices, the keyed empty's height, the still one's pose, the builds."""
    scene = bpy.context.scene
    addon = lig().addon
    cubes, keyed, still = quaternion_scene()
    sim_bulk = []
    first, keyed_z = {}, {}
    for f in range(1, 41):
        scene.frame_set(f)
        first[f] = transforms(cubes)
        keyed_z[f] = keyed.location.z
        if f == 2:
            sim_bulk = [b.name for b in addon.runtime.cache.get(scene).bulk]
    back = {f: (scene.frame_set(f), transforms(cubes))[1] for f in (39, 20, 3, 1, 40)}
    return {"bulk": sim_bulk, "first": first, "back": back, "keyed_z": keyed_z,
            "still": [list(still.location), list(still.rotation_quaternion)],
            "builds": addon.runtime.simulation.stats["builds"],
            "error": addon.runtime.cache.error(scene)}


def bulk_body_moved_by_hand():
    """The quaternion scene played to frame 20, the first cube dragged to (5, -4, 4) and
    unrotated: where it is at frame 21 and at the start, the builds, the other cubes."""
    scene = bpy.context.scene
    addon = lig().addon
    cubes, _, _ = quaternion_scene()
    for f in range(1, 21):
        scene.frame_set(f)
    others = transforms(cubes[1:])
    builds = addon.runtime.simulation.stats["builds"]
    cubes[0].location = (5, -4, 4)         # the user drags a cube at frame 20
    cubes[0].rotation_quaternion = (1, 0, 0, 0)
    scene.frame_set(21)
    after = list(cubes[0].location)
    rebuilt = addon.runtime.simulation.stats["builds"] - builds
    scene.frame_set(20)
    others_again = transforms(cubes[1:])
    scene.frame_set(1)
    start = [list(cubes[0].location), list(cubes[0].rotation_quaternion)]
    return {"after": after, "start": start, "rebuilt": rebuilt, "others": others,
            "others_again": others_again, "error": addon.runtime.cache.error(scene)}


def library_saved_and_played(library):
    """The ground and two quaternion cubes saved as `library`, then played for 30 frames:
    the cubes' matrices."""
    scene = bpy.context.scene
    box("Ground", (20, 20, 1), (0, 0, -0.5), kind='STATIC')
    for i in range(2):
        c = box(f"Cube{i}", (1, 1, 1), (3.0 * i, 0, 2), rotation=(0.3, 0.2 * i, 0))
        c.rotation_mode = 'QUATERNION'
    bpy.ops.wm.save_as_mainfile(filepath=library)
    cubes = [bpy.data.objects["Cube0"], bpy.data.objects["Cube1"]]
    path = []
    for f in range(1, 31):
        scene.frame_set(f)
        path.append(transforms(cubes))
    return {"path": path, "error": lig().addon.runtime.cache.error(scene)}


def library_linked(library):
    """The ground and Cube0 linked from `library`, Cube1 made here, 30 frames: the cubes'
    matrices, which are linked, the bulk bodies."""
    scene = bpy.context.scene
    with bpy.data.libraries.load(library, link=True) as (src, dst):
        dst.objects = ["Ground", "Cube0"]
    for o in dst.objects:
        scene.collection.objects.link(o)
    c1 = box("Cube1", (1, 1, 1), (3.0, 0, 2), rotation=(0.3, 0.2, 0))
    c1.rotation_mode = 'QUATERNION'
    cubes = [bpy.data.objects["Cube0", library], c1]
    path = []
    for f in range(1, 31):
        scene.frame_set(f)
        path.append(transforms(cubes))
    sim = lig().addon.runtime.cache.get(scene)
    return {"path": path, "error": lig().addon.runtime.cache.error(scene),
            "linked": [o.library is not None for o in cubes],
            "bulk": sorted(b.name for b in sim.bulk)}


def thread_setting_changed():
    """Two stacks of three cubes played 40 frames with Blender's threads fixed at 1, at 2
    from frame 15, automatic from frame 30, then again from a reset at one thread: the
    solver's thread count per frame, both paths, the builds."""
    scene = bpy.context.scene
    addon = lig().addon
    box("Ground", (20, 20, 1), (0, 0, -0.5), kind='STATIC')
    # two independent stacks: two islands the solver may step in parallel
    cubes = [box(f"C{i}{k}", (1, 1, 1), (4.0 * i, 0, 0.5 + 1.05 * k),
                 rotation=(0, 0, 0.1 * k)) for i in range(2) for k in range(3)]
    r = scene.render
    r.threads_mode = 'FIXED'
    r.threads = 1
    seen, path = [], []
    for f in range(1, 41):
        if f == 15:
            r.threads = 2
        if f == 30:
            r.threads_mode = 'AUTO'
        scene.frame_set(f)
        seen.append(addon.runtime.cache.get(scene).world.threads)
        path.append(transforms(cubes))
    auto = r.threads
    builds = addon.runtime.simulation.stats["builds"]
    # the same frames again at one thread from a fresh build
    bpy.ops.ligament.reset()
    r.threads_mode = 'FIXED'
    r.threads = 1
    again = []
    for f in range(1, 41):
        scene.frame_set(f)
        again.append(transforms(cubes))
    return {"seen": seen, "auto": auto, "builds": builds, "path": path, "again": again,
            "error": addon.runtime.cache.error(scene)}


def driven_simulated_switch():
    """Two metarig ragdolls 1 m up, the first's Simulated switch driven by "frame < 10":
    each rig's highest body per frame over 30 frames, and which ragdolls the cache keeps
    idle."""
    scene = bpy.context.scene
    addon = lig().addon
    enable_rigify()
    ground()
    rigs = []
    for i in range(2):
        arm = metarig(name=f"Rig{i}", location=(3.0 * i, 0, 1.0))
        bpy.ops.ligament.ragdoll_from_armature()
        rigs.append(arm)
    fc = rigs[0].driver_add("ligament_ragdoll.simulated")
    fc.driver.type = 'SCRIPTED'
    fc.driver.expression = "frame < 10"
    scene.ligament_world.frame_end = 30
    top = {}
    for f in range(1, 31):
        scene.frame_set(f)
        top[f] = [max(o.matrix_world.translation.z for o in ragdoll_bodies(a))
                  for a in rigs]
    sim = addon.runtime.cache.get(scene)
    return {"top": top, "idle": [r.idle for r in sim.ragdolls],
            "names": [r.name for r in sim.ragdolls], "error": addon.runtime.cache.error(scene)}
