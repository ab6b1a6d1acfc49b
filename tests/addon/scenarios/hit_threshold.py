"""test_hit_threshold.py's scenario: two keyed platforms with a Hit Impulse, one lifting a
crate, one a block is dropped on, at two frame rates."""

import bpy

from .helpers import box, lig


def _play(fps):
    scene = bpy.context.scene
    addon = lig().addon
    for o in list(bpy.data.objects):
        bpy.data.objects.remove(o)
    scene.render.fps = fps
    last = 1 + 2 * fps
    ws = scene.ligament_world
    ws.frame_start, ws.frame_end = 1, last
    box("Ground", (30, 30, 1), (0, 0, -0.5), kind='STATIC')
    # heights exact in binary: a crate a few 1e-8 m above a box falls for the first
    # frame (the solver finds that contact a step late) and lands, a hit of its own
    lift = box("Lift", (2, 2, 0.25), (0, 0, 0.375), kind='ANIMATED', hit_impulse=5.0)
    lift.keyframe_insert("location", frame=1)
    lift.location.z = 0.875
    lift.keyframe_insert("location", frame=last)
    crate = box("Crate", (0.5, 0.5, 0.5), (0, 0, 0.75), mass=20.0)
    anvil = box("Anvil", (2, 2, 0.25), (6, 0, 0.375), kind='ANIMATED', hit_impulse=5.0)
    anvil.keyframe_insert("location", frame=1)
    anvil.keyframe_insert("location", frame=last)
    box("Block", (0.25, 0.25, 0.25), (6, 0, 0.5 + 0.125 + 2.0), mass=2.0)
    bpy.ops.ligament.reset()
    lift_z, crate_z = [], []
    for f in range(1, last + 1):
        scene.frame_set(f)
        lift_z.append(lift.matrix_world.translation.z)
        crate_z.append(crate.matrix_world.translation.z)
    sim = addon.runtime.cache.get(scene)
    return {"hits": sim.hit_list(), "lift_z": lift_z, "crate_z": crate_z,
            "keys_z": [lift.animation_data.action and
                       addon.scene.animation.basis_at(lift, f)[0].z
                       for f in range(1, last + 1)]}


def platforms_at(rates):
    """The platforms played at each frame rate of `rates` in turn (the scene made anew),
    keyed by the rate as text: the hits, the lift's and crate's heights, the lift's keyed
    height per frame."""
    return {str(fps): _play(fps) for fps in rates}
