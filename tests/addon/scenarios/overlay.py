"""test_overlay.py's scenario: the overlay's segments on real scene data (background Blender
draws nothing, so the functions the draw callback calls are run directly)."""

import math
import sys

import bpy

from .helpers import box, joint, lig


def segments():
    """A hinge with limits -30..60 degrees (then 90), a box's wireframe, and a box dropped on
    the ground for 30 frames: the segments of each, and what the draw callback would get
    with every toggle on, by colour."""
    scene = bpy.context.scene
    overlay = sys.modules[lig().__name__ + ".addon.ui.overlay"]
    box("Ground", (4, 4, 1), (0, 0, -0.5), kind='STATIC')
    a = box("A", (0.2, 0.2, 0.2), (0, 0, 2), kind='STATIC')
    b = box("B", (0.5, 0.2, 0.3), (1, 0, 2))
    e = joint("Hinge", 'HINGE', a, b, (0, 0, 2), rotation=(0, 0, math.pi / 2),
              use_limit_ang=True, limit_ang_lower=math.radians(-30),
              limit_ang_upper=math.radians(60))
    e.empty_display_size = 0.5
    limits, marks = overlay.limit_segments(e, size=2.0)
    e.ligament_joint.limit_ang_upper = math.radians(90)      # an edit shows at once
    limits2, _ = overlay.limit_segments(e, size=2.0)
    shape = overlay.shape_segments(b, bpy.context.evaluated_depsgraph_get())
    scene.ligament_world.frame_end = 30
    bpy.ops.object.select_all(action='DESELECT')
    box("Drop", (0.4, 0.4, 0.4), (-1, -1, 0.3))
    for f in range(1, 31):
        scene.frame_set(f)
    contacts = overlay.contact_segments(scene, 0.1)
    o = scene.ligament_overlay
    o.show_limits = o.show_shapes = o.show_contacts = True
    drawn = {str(k): sum(len(a) for a in v)
             for k, v in overlay._extras(bpy.context, scene).items()}
    return {"limits": [x.tolist() for x in limits], "marks": [x.tolist() for x in marks],
            "limits2": [x.tolist() for x in limits2], "shape": shape.tolist(),
            "contacts": contacts.tolist(), "drawn": drawn,
            "colors": [str(c) for c in (overlay.LIMIT_COLOR, overlay.MARKER_COLOR,
                                        overlay.SHAPE_COLOR, overlay.CONTACT_COLOR)]}
