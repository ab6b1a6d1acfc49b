"""The physics check reads each part's keyed contact rule in bulk (addon/motion/rig.py
`sample_fcurve`): the same values as Blender's own evaluation of the F-curves. The scenario:
tests/addon/scenarios/physics_curves.py."""

import numpy as np


def test_the_contact_rule_read_in_bulk_is_what_blender_evaluates(blender):
    out = blender.call("physics_curves.contact_rule_curves")
    assert "BEZIER" in out["contact_distance"]["interpolations"]
    assert {"LINEAR", "CONSTANT"} <= set(out["contact_distance"]["interpolations"])
    for key, curve in out.items():
        bulk, blender_values = np.array(curve["bulk"]), np.array(curve["blender"])
        print(key, np.abs(bulk - blender_values).max())
        # Blender evaluates in float32
        assert np.abs(bulk - blender_values).max() < 1e-5, key
    on = np.array(out["contact_override"]["bulk"])
    assert on.min() == 0.0 and on.max() == 1.0
