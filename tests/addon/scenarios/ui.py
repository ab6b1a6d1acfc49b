"""test_ui.py's scenario: every panel drawn into a recording layout."""

import types

import bpy

from .helpers import box, joint, lig


def every_panel_drawn():
    """A cube hinged to the ground; every Ligament panel drawn for the cube and the hinge,
    with the hinge of each joint type and ratio mode: properties or operators named that do
    not exist, the panels, and what was drawn."""
    scene = bpy.context.scene
    problems, drawn = [], []

    class Layout:
        def __init__(self):
            self.__dict__.update(use_property_split=False, use_property_decorate=True,
                                 active=True, alert=False, enabled=True)

        def _sub(self, *a, **k):
            return Layout()
        row = column = box = split = _sub

        def label(self, text="", **k):
            drawn.append(("label", text))

        def separator(self, **k):
            pass

        def prop(self, data, name, **k):
            drawn.append(("prop", name))
            if name not in data.bl_rna.properties:
                problems.append(f"{type(data).__name__} has no property {name}")

        def prop_enum(self, data, name, value, **k):
            self.prop(data, name)
            if value not in data.bl_rna.properties[name].enum_items:
                problems.append(f"{name} has no item {value}")

        def operator(self, idname, **k):
            drawn.append(("operator", idname))
            mod, op = idname.split(".")
            if not hasattr(getattr(bpy.ops, mod), op):
                problems.append(f"no operator {idname}")
            return types.SimpleNamespace()

        def operator_menu_enum(self, idname, prop, **k):
            self.operator(idname)
            mod, op = idname.split(".")
            rna = getattr(getattr(bpy.ops, mod), op).get_rna_type()
            if prop not in rna.properties:
                problems.append(f"{idname} has no property {prop}")

    ground = box("Ground", (4, 4, 1), (0, 0, -0.5), kind='STATIC')
    cube = box("Cube", (1, 1, 1), (0, 0, 1))
    hinge = joint("Hinge", 'HINGE', ground, cube, (0, 0, 0.5))
    scene.frame_set(2)
    panels = [c for name in dir(bpy.types) if "ligament" in name.lower()
              and isinstance(c := getattr(bpy.types, name), type)
              and issubclass(c, bpy.types.Panel)]
    cases = [(t, m) for t, *_ in lig().addon.ui.properties.JOINT_TYPES
             for m in ('VALUE', 'TEETH', 'RADII')]
    for jtype, mode in cases:
        hinge.ligament_joint.type, hinge.ligament_joint.ratio_mode = jtype, mode
        for obj in (cube, hinge):
            ctx = types.SimpleNamespace(object=obj, active_object=obj, scene=scene)
            for cls in panels:
                if hasattr(cls, "poll") and not cls.poll(ctx):
                    continue
                me = types.SimpleNamespace(layout=Layout())
                if hasattr(cls, "draw_header"):
                    cls.draw_header(me, ctx)
                cls.draw(me, ctx)
    return {"problems": problems, "panels": sorted(c.__name__ for c in panels),
            "drawn": sorted(set(n for kind, n in drawn if kind != "label"))}
