"""test_scene_scale.py's scenario: a metarig ragdoll dropped in a scene built at a unit
scale."""

import bpy

from .helpers import box, lig
from .rigs import enable_rigify, metarig, ragdoll_bodies


def ragdoll_drop(s, lift=0.0):
    """Unit Scale 1/s, every length x s, gravity -9.81 s: a metarig (70 kg) dropped from
    1 m + lift turned onto a side, 97 frames; the bodies' track divided by s, the world's
    length unit, the masses, and per frame the contact points with the ground (speculative
    ones too: a pair within its margin)."""
    scene = bpy.context.scene
    addon = lig().addon
    enable_rigify()
    scene.unit_settings.scale_length = 1.0 / s
    scene.gravity = (0.0, 0.0, -9.81 * s)
    box("Ground", (30 * s, 30 * s, 1 * s), (0, 0, -0.5 * s), kind='STATIC')
    arm = metarig(location=(0, 0, (1.0 + lift) * s))
    arm.rotation_euler = (0.3, 0.0, 0.2)               # lands on a side, not on its feet
    bpy.ops.object.transform_apply(location=False, rotation=False, scale=False)
    arm.scale = (s, s, s)
    bpy.context.view_layer.objects.active = arm
    arm.select_set(True)
    bpy.ops.object.transform_apply(location=False, rotation=False, scale=True)
    assert bpy.ops.ligament.ragdoll_from_armature(total_mass=70.0) == {'FINISHED'}
    scene.ligament_world.frame_end = 97
    bodies = ragdoll_bodies(arm)
    track = []
    contacts = []
    for f in range(1, 98):
        scene.frame_set(f)
        track.append([[c / s for c in o.matrix_world.translation] for o in bodies])
        world = addon.runtime.cache.get(scene).world
        pairs = world.contacts()["bodies"]
        contacts.append(sum(1 for a, b in pairs
                            if "static" in (world.kind(int(a)), world.kind(int(b)))))
    sim = addon.runtime.cache.get(scene)
    return {"error": addon.runtime.cache.error(scene), "track": track,
            "names": [o.name for o in bodies], "unit": sim.world.length_unit,
            "contacts": contacts,
            "masses": sorted(float(o.ligament_body.mass) for o in bodies)}
