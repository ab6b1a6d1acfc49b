"""test_physics_curves.py's scenario: the keyed per-part contact rule read in bulk
(addon/motion/rig.py `sample_fcurve`) against Blender's own F-curve evaluation."""

import bpy
import numpy as np

from .physics_check import Rig


def contact_rule_curves():
    """A metarig ragdoll's hand bone with its contact rule keyed: Own Contact Rule switched
    on and off, Contact Distance with Bezier keys (automatic handles, a key's handles dragged
    longer than its segments), then linear and constant keys, Contact Speed
    with a modifier. Each curve read by `sample_fcurve` and by `FCurve.evaluate` at whole and
    fractional frames, before, inside and after the keys."""
    rig = Rig()
    pb = rig.arm.pose.bones["hand.L"]
    for f, on in ((1, False), (12, True), (25, False), (31, True)):
        pb.ligament_contact_override = on
        pb.keyframe_insert("ligament_contact_override", frame=f)
    for f, d in ((3, 0.05), (9, 0.4), (16, 0.1), (22, 0.3), (30, 0.2), (36, 0.6)):
        pb.ligament_contact_distance = d
        pb.keyframe_insert("ligament_contact_distance", frame=f)
    for f, v in ((1, 0.2), (20, 1.0), (40, 0.5)):
        pb.ligament_contact_speed = v
        pb.keyframe_insert("ligament_contact_speed", frame=f)
    curves = rig.fcurves()
    prefix = 'pose.bones["hand.L"].ligament_'
    distance = curves[(prefix + "contact_distance", 0)]
    k = distance.keyframe_points
    k[2].handle_left_type = k[2].handle_right_type = 'FREE'
    k[2].handle_left = (k[2].co.x - 9.0, k[2].co.y + 0.3)       # past the key before
    k[2].handle_right = (k[2].co.x + 8.0, k[2].co.y - 0.2)
    k[3].interpolation = 'LINEAR'
    k[4].interpolation = 'CONSTANT'
    distance.update()
    curves[(prefix + "contact_speed", 0)].modifiers.new('NOISE')
    sample = rig.rig_mod.sample_fcurve
    frames = np.concatenate((np.arange(-3.0, 45.0), np.arange(0.0, 42.0, 0.37)))
    out = {}
    for key in ("contact_override", "contact_distance", "contact_speed"):
        fc = curves[(prefix + key, 0)]
        out[key] = {"bulk": sample(fc, frames).tolist(),
                    "blender": [fc.evaluate(f) for f in frames],
                    "interpolations": sorted({p.interpolation for p in fc.keyframe_points})}
    return out
