"""test_real_scenes.py's scenarios: keyed dynamic bodies, joints that lose an object or
break."""

import bpy

from .helpers import box, joint, lig


def keyed_dynamic_body():
    """A dynamic cube keyed from x 0 to 2 over 60 frames: its keys and its path live, after
    a bake and after clearing it, its keyed pose at frame 30 with the world off."""
    scene = bpy.context.scene
    addon = lig().addon
    box("Ground", (10, 10, 1), (0, 0, -0.5), kind='STATIC')
    cube = box("Cube", (1, 1, 1), (0, 0, 3))
    cube.keyframe_insert("location", frame=1)
    cube.location = (2, 0, 3)
    cube.keyframe_insert("location", frame=60)
    scene.frame_set(1)
    scene.ligament_world.frame_end = 60

    def play():
        out = []
        for f in range(1, 61):
            scene.frame_set(f)
            out.append(list(cube.matrix_world.translation))
        return out

    def keys():
        from bpy_extras import anim_utils
        ad = cube.animation_data
        if hasattr(ad, "action_slot"):
            bag = anim_utils.action_get_channelbag_for_slot(ad.action, ad.action_slot)
            fcurves = bag.fcurves
        else:
            fcurves = ad.action.fcurves
        return sorted([fc.data_path, fc.array_index, [list(k.co) for k in fc.keyframe_points]]
                      for fc in fcurves)

    keys_before = keys()
    live = play()
    keys_after_live = keys()
    delta_owned = cube.ligament_body.sim_delta
    addon.baking.bake.bake(scene)
    baked = play()
    addon.baking.bake.clear_bake(scene)
    scene.ligament_world.enabled = False
    scene.frame_set(30)
    keyed_again = list(cube.matrix_world.translation)
    return {"live": live, "baked": baked, "keys_before": keys_before,
            "keys_after_live": keys_after_live, "delta_owned": delta_owned,
            "keyed_again": keyed_again, "keys_end": keys(),
            "delta_end": list(cube.delta_location),
            "error": addon.runtime.cache.error(scene)}


def keyed_tilted_box():
    """A box whose Euler rotation is keyed from a tilt to another, dropped for 120 frames:
    its height and how vertical its most vertical axis is per frame."""
    scene = bpy.context.scene
    box("Ground", (10, 10, 1), (0, 0, -0.5), kind='STATIC')
    cube = box("Tilted", (1, 1, 1), (0, 0, 2), rotation=(0.5, 0.3, 0.0))
    cube.keyframe_insert("rotation_euler", frame=1)
    cube.rotation_euler = (2.0, 1.0, 0.5)
    cube.keyframe_insert("rotation_euler", frame=100)
    zs, ups = [], []
    for f in range(1, 121):
        scene.frame_set(f)
        m = cube.matrix_world
        zs.append(m.translation.z)
        # how far the most vertical of the box's axes is from vertical
        ups.append(max(abs(m.col[i].xyz.normalized().z) for i in range(3)))
    return {"z": zs, "up": ups, "error": lig().addon.runtime.cache.error(scene)}


def joint_object_deleted():
    """A bob on a ball joint to a static post and a free box: 10 frames, the post deleted,
    48 frames from the start: both heights, the joint's status, the sidebar's problems."""
    scene = bpy.context.scene
    addon = lig().addon
    box("Ground", (10, 10, 1), (0, 0, -0.5), kind='STATIC')
    post = box("Post", (0.2, 0.2, 0.2), (0, 0, 3), kind='STATIC')
    bob = box("Bob", (0.3, 0.3, 0.3), (1, 0, 3))
    box("Free", (0.5, 0.5, 0.5), (4, 0, 3))
    joint("Ball", 'BALL', post, bob, (0, 0, 3))
    for f in range(1, 11):
        scene.frame_set(f)
    bpy.data.objects.remove(post)
    scene.frame_set(1)
    zs = {"Bob": [], "Free": []}
    for f in range(1, 49):
        scene.frame_set(f)
        for name in zs:
            zs[name].append(scene.objects[name].matrix_world.translation.z)
    return {"z": zs, "error": addon.runtime.cache.error(scene),
            "status": addon.runtime.cache.joint_status(scene, "Ball"),
            "problems": addon.ui.panels.view3d_sidebar.joint_problems(scene)}


def joint_that_breaks():
    """A 50 kg load on a fixed joint that holds 100 N: the joint's status per frame, the
    broken joints, its status back at the start."""
    scene = bpy.context.scene
    cache = lig().addon.runtime.cache
    box("Ground", (10, 10, 1), (0, 0, -0.5), kind='STATIC')
    post = box("Post", (0.2, 0.2, 0.2), (0, 0, 3), kind='STATIC')
    load = box("Load", (0.5, 0.5, 0.5), (0, 0, 2.5), mass=50.0)
    joint("Weak", 'FIXED', post, load, (0, 0, 2.75), breakable=True, break_threshold=100.0)
    statuses = []
    for f in range(1, 25):
        scene.frame_set(f)
        statuses.append(cache.joint_status(scene, "Weak"))
    sim = cache.get(scene)
    scene.frame_set(1)
    return {"statuses": statuses, "broken": sim.broken,
            "at_start": cache.joint_status(scene, "Weak"),
            "z": load.matrix_world.translation.z}
