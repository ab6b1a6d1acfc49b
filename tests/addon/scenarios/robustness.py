"""test_robustness.py's scenarios: a body of zero scale, Empties as bodies, a frame rate
changed while a simulation is cached."""

import bpy

from .helpers import box, joint, lig


def zero_scale_body():
    """A crate hinged to a box flattened to zero scale: 12 frames, a bake and its clearing,
    then the box given a scale again."""
    scene = bpy.context.scene
    addon = lig().addon
    box("Floor", (10, 10, 1), (0, 0, -0.5), kind='STATIC')
    crate = box("Crate", (1, 1, 1), (0, 0, 5))
    flat = box("Flat", (1, 1, 1), (3, 0, 5))
    flat.scale = (1, 0, 1)
    joint("Hinge", 'HINGE', crate, flat, (1.5, 0, 5))
    scene.ligament_world.enabled = True
    for f in range(1, 13):
        scene.frame_set(f)
    sim = addon.runtime.cache.get(scene)
    findings = addon.check.doctor.check(scene)
    reported = sorted(addon.runtime.state.state(scene).reported)
    crate_z, flat_z = crate.matrix_world.translation.z, flat.matrix_world.translation.z
    assert bpy.ops.ligament.bake(frame_start=1, frame_end=12) == {'FINISHED'}
    baked = sorted(o.name for o in scene.objects if o.ligament_body.baked)
    assert bpy.ops.ligament.clear_bake() == {'FINISHED'}
    # the fix: a scale again, and it simulates (the change is seen without a setting edit)
    flat.scale = (1, 1, 1)
    scene.frame_set(1)
    scene.frame_set(12)
    return {"error": addon.runtime.cache.error(scene), "skipped": sim.skipped_bodies,
            "joints": sim.skipped, "crate_z": crate_z, "flat_z": flat_z,
            "reported": reported, "baked": baked,
            "findings": [(f.severity, f.code, list(f.objects)) for f in findings],
            "fixed_z": flat.matrix_world.translation.z,
            "fixed_skipped": addon.runtime.cache.get(scene).skipped_bodies}


def empty_bodies():
    """Three Empties as bodies (a cube, a sphere and plain axes shown, Z scaled 0.6) dropped
    on a floor for 72 frames; then the axes given a convex hull shape."""
    scene = bpy.context.scene
    addon = lig().addon
    box("Floor", (10, 10, 1), (0, 0, -0.5), kind='STATIC')
    shown = {}
    for name, display, x in (("Cube", 'CUBE', 0), ("Ball", 'SPHERE', 3),
                             ("Axes", 'PLAIN_AXES', -3)):
        e = bpy.data.objects.new(name, None)
        scene.collection.objects.link(e)
        e.location = (x, 0, 2)
        e.empty_display_type = display
        e.empty_display_size = 0.5
        e.scale = (1, 1, 0.6)
        e.ligament_body.enabled = True
        shown[name] = e
    scene.ligament_world.enabled = True
    for f in range(1, 73):
        scene.frame_set(f)
    z = {n: e.matrix_world.translation.z for n, e in shown.items()}
    findings = addon.check.doctor.check(scene)
    hull = shown["Axes"]
    hull.ligament_body.shape = 'CONVEX_HULL'
    scene.frame_set(1)
    return {"z": z,
            "warnings": sorted(list(f.objects)[0] for f in findings if f.code == 'empty-body'),
            "hull": addon.runtime.cache.error(scene)}


def _falling_crate():
    box("Crate", (1, 1, 1), (0, 0, 50))
    bpy.context.scene.ligament_world.enabled = True
    return bpy.data.objects["Crate"]


def frame_rate_changed_after_frame_20():
    """A crate falling from 50 m played to frame 20 at 24 fps, the rate set to 30, frames
    21-24: its height before, right after the edit, and at each frame after."""
    scene = bpy.context.scene
    crate = _falling_crate()
    for f in range(1, 21):
        scene.frame_set(f)
    before = crate.matrix_world.translation.z
    scene.render.fps = 30
    bpy.context.view_layer.update()
    edited = crate.matrix_world.translation.z
    after = []
    for f in range(21, 25):
        scene.frame_set(f)
        after.append(crate.matrix_world.translation.z)
    return {"before": before, "edited": edited, "after": after}


def frame_rate_30_from_the_start():
    """The same crate played at 30 fps from frame 1: [frame, height] at frames 21-24."""
    scene = bpy.context.scene
    crate = _falling_crate()
    scene.render.fps = 30
    for f in range(1, 21):
        scene.frame_set(f)
    out = []
    for f in range(21, 25):
        scene.frame_set(f)
        out.append([f, crate.matrix_world.translation.z])
    return out
