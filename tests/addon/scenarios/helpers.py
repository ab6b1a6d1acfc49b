"""What scenarios build with: bodies from unit cubes, joints from empties, transforms as
plain lists. tests/addon/conftest.py's PRELUDE imports box(), joint() and transforms() from
here for the scenarios still in strings (blender.run, blender.run_fresh)."""

import sys

import bpy

MODULE = "bl_ext.user_default.ligament"


def lig():
    """The installed extension's package."""
    return sys.modules[MODULE]


def box(name, size, location, rotation=(0, 0, 0), kind='DYNAMIC', **settings):
    """A unit cube scaled to `size`: the shape must come from the object's scale."""
    bpy.ops.mesh.primitive_cube_add(size=1, location=location, rotation=rotation)
    obj = bpy.context.active_object
    obj.name = name
    obj.scale = size
    s = obj.ligament_body
    s.enabled = True
    s.kind = kind
    for key, value in settings.items():
        setattr(s, key, value)
    return obj


def joint(name, type, a, b, location, rotation=(0, 0, 0), **settings):
    """An empty at `location` made a joint of `type` between `a` and `b` (either may be
    None), with the joint settings given."""
    empty = bpy.data.objects.new(name, None)
    bpy.context.scene.collection.objects.link(empty)
    empty.location = location
    empty.rotation_euler = rotation
    j = empty.ligament_joint
    j.enabled, j.type, j.object_a, j.object_b = True, type, a, b
    for key, value in settings.items():
        setattr(j, key, value)
    bpy.context.view_layer.update()
    return empty


def transforms(objs):
    """The objects' world matrices as lists of rows."""
    return [[list(v) for v in o.matrix_world] for o in objs]


class Layout:
    """A stand-in for a panel's layout (panels draw only in a window): it records the labels
    drawn, for each property drawn its owner's type, its name and whether Blender lets the
    user edit it (an override's properties that are not overridable are read-only), and the
    text a property is drawn with when the panel names one ({name: text})."""

    def __init__(self, record=None):
        self.record = record if record is not None else {"labels": [], "props": [],
                                                         "texts": {}}
        self.use_property_split = self.use_property_decorate = False
        self.active = self.enabled = True
        self.alert = False

    def _sub(self, *_args, **_kw):
        return Layout(self.record)

    row = column = box = split = _sub

    def label(self, text="", **_kw):
        self.record["labels"].append(text)

    def separator(self, **_kw):
        pass

    def prop(self, data, name, text=None, **_kw):
        self.record["props"].append([type(data).__name__, name,
                                     data.is_property_readonly(name)])
        if text is not None:
            self.record["texts"][name] = text

    def operator(self, *_args, **_kw):
        return type("OperatorProperties", (), {})()

    def operator_menu_enum(self, *_args, **_kw):
        pass
