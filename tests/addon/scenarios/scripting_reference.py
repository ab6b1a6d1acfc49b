"""test_scripting_reference.py's scenario: every operator the installed extension registers,
as Blender's RNA describes it (what a script can pass)."""

import math

import bpy


def _value(v):
    """An RNA default as plain JSON: floats rounded as Blender stores them (single precision),
    infinities as strings."""
    if isinstance(v, float):
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return float(f"{v:.6g}")
    if isinstance(v, (set, frozenset)):
        return sorted(v)
    return v


def _choices(cls, p):
    """An enum's identifiers, or for a dynamic enum (its items made by a function, from data
    that differs between installs) what the function's docstring says they are."""
    deferred = getattr(cls, "__annotations__", {}).get(p.identifier)
    callback = getattr(deferred, "keywords", {}).get("items")
    if callable(callback):
        return (callback.__doc__ or "").strip()
    return [i.identifier for i in p.enum_items]


def _prop(cls, p):
    entry = {"id": p.identifier, "type": p.type, "name": p.name,
             "description": p.description, "hidden": bool(p.is_hidden),
             "subtype": p.subtype, "unit": getattr(p, "unit", "NONE")}
    if p.type == 'ENUM':
        entry["items"] = _choices(cls, p)
        entry["default"] = _value(set(p.default_flag)) if p.is_enum_flag else p.default
    elif p.type in {'POINTER', 'COLLECTION'}:
        entry["default"] = None
        entry["fixed_type"] = p.fixed_type.identifier
    elif getattr(p, "array_length", 0):
        entry["default"] = [_value(x) for x in p.default_array]
    else:
        entry["default"] = _value(p.default)
    if p.type in {'INT', 'FLOAT'}:
        entry["min"], entry["max"] = _value(p.hard_min), _value(p.hard_max)
    return entry


def registered_operators():
    """Each `bpy.ops.ligament.*` operator: its identifier, the module that defines it, its
    label, description, flags and properties."""
    ops = []
    for name in sorted(dir(bpy.ops.ligament)):
        rna = getattr(bpy.ops.ligament, name).get_rna_type()
        cls = bpy.types.Operator.bl_rna_get_subclass_py(rna.identifier)
        props = [_prop(cls, p) for p in rna.properties if p.identifier != "rna_type"]
        ops.append({"name": name, "label": rna.name, "description": rna.description,
                    "module": cls.__module__.rpartition(".")[2],
                    "props": props})
    return ops
