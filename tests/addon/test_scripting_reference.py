"""docs/scripting.md, the operators a script can call, is what the installed extension
registers: every `bpy.ops.ligament.*` operator with its properties, types, defaults and ranges
as Blender's RNA gives them (scenario: tests/addon/scenarios/scripting_reference.py). After an
operator changes, write the page again:

    LIGAMENT_UPDATE_DOCS=1 bash tools/test.sh tests/addon/test_scripting_reference.py
"""

import os

DOC = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                   "docs", "scripting.md")

# The operator modules (addon/ui/operators/) in the order of the user guide's sections.
SECTIONS = {
    "bodies": "Bodies",
    "joints": "Joints",
    "ragdoll": "Ragdolls and characters",
    "chain": "Bone chains",
    "motion": "Physics check and fix",
    "pins": "Pins and Transfer Pose",
    "drag": "Dragging",
    "live": "Live Mode",
    "doctor": "The scene check",
    "bake": "Baking",
    "world": "The simulation cache",
}

HEAD = """\
# Scripting Ligament: the operators

Every button of Ligament's panels is an operator that a script, a batch job or a studio's
pipeline tool can call as `bpy.ops.ligament.NAME(...)`. Their names and properties are a
contract (scripts rely on them); this page is written from what the installed extension
registers (`LIGAMENT_UPDATE_DOCS=1 bash tools/test.sh tests/addon/test_scripting_reference.py`
writes it again, and the test fails when it differs from the code). What each one does and
when to use it is in the [user guide](guide.md); the headless solver's Python API, without
Blender, is in [api.md](api.md).

Operators act on the context as the buttons do: most need the objects selected and one active
(in a script, `obj.select_set(True)` and `bpy.context.view_layer.objects.active = obj`), the
bone operators an armature in Pose Mode with the bones selected. Each returns `{'FINISHED'}`,
or `{'CANCELLED'}` with its reason reported (in a script, the reason is raised as a
`RuntimeError` whose text names the object and the fix). Modal operators (Bake with progress,
Drag, Live Mode) need a window: in `blender --background` use `bpy.ops.ligament.bake()`
(it bakes in one piece there) or the `ligament bake` command ([guide](guide.md#baking-and-batch)).
Angles are in radians, lengths in metres, as everywhere in Blender's Python API.
"""


def _fmt(v):
    if v is None:
        return ""
    if isinstance(v, bool):
        return "True" if v else "False"
    if isinstance(v, str):
        return f"'{v}'"
    if isinstance(v, list):
        return "(" + ", ".join(_fmt(x) for x in v) + ("," if len(v) == 1 else "") + ")"
    if isinstance(v, float):
        return repr(v)
    return str(v)


def _kind(p):
    kind = {"BOOLEAN": "bool", "INT": "int", "FLOAT": "float", "STRING": "str",
            "ENUM": "enum", "POINTER": "pointer", "COLLECTION": "collection"}[p["type"]]
    if p["type"] == "ENUM":
        return "enum set" if isinstance(p["default"], list) else "enum"
    if p["type"] in ("POINTER", "COLLECTION"):
        return f"{kind} of {p['fixed_type']}"
    if isinstance(p["default"], list):
        kind += f"[{len(p['default'])}]"
    unit = p.get("unit", "NONE")
    if unit not in ("NONE", None):
        kind += f", {unit.lower()}"
    elif p["subtype"] not in ("NONE", "UNSIGNED", "FACTOR", "PERCENTAGE"):
        kind += f", {p['subtype'].lower()}"
    return kind


def _range(p):
    if p["type"] not in ("INT", "FLOAT"):
        return ""
    lo, hi = p["min"], p["max"]
    open_lo = lo in ("-inf",) or (isinstance(lo, (int, float)) and lo <= -1e30) or lo == -2 ** 31
    open_hi = hi in ("inf",) or (isinstance(hi, (int, float)) and hi >= 1e30) or hi == 2 ** 31 - 1
    if open_lo and open_hi:
        return ""
    return f"{'…' if open_lo else _fmt(lo)} to {'…' if open_hi else _fmt(hi)}"


def _cell(text):
    return " ".join(text.replace("|", "\\|").split())


def _sentence(text):
    text = _cell(text)
    return text if text.endswith((".", "!", "?")) else text + "."


def markdown(ops):
    """The page for the operators the scenario read."""
    out = [HEAD]
    by_module = {}
    for op in ops:
        by_module.setdefault(op["module"], []).append(op)
    order = [m for m in SECTIONS if m in by_module] + sorted(set(by_module) - set(SECTIONS))
    for module in order:
        out.append(f"## {SECTIONS.get(module, module.replace('_', ' ').capitalize())}\n")
        for op in by_module[module]:
            out.append(f"### `bpy.ops.ligament.{op['name']}()`: {op['label']}\n")
            out.append(_sentence(op["description"]) + "\n")
            props = op["props"]
            if not props:
                out.append("No properties.\n")
                continue
            out.append("| property | type | default | range | description |")
            out.append("| --- | --- | --- | --- | --- |")
            for p in props:
                text = _sentence(p["description"] or p["name"])
                if p["type"] == "ENUM" and isinstance(p["items"], str):
                    text += " Choices: " + _sentence(p["items"][:1].lower() + p["items"][1:])
                elif p["type"] == "ENUM":
                    text += " One of " + ", ".join(f"`{i}`" for i in p["items"]) + "."
                if p["hidden"]:
                    text += " (Not shown in the UI.)"
                out.append(f"| `{p['id']}` | {_kind(p)} | {_cell(_fmt(p['default']))} | "
                           f"{_range(p)} | {text} |")
            out.append("")
    return "\n".join(out).rstrip() + "\n"


def test_the_scripting_page_lists_every_registered_operator_as_blender_describes_it(blender):
    ops = blender.call("scripting_reference.registered_operators")
    # the scenario's reading is itself checked against what a script sees: every operator
    # callable through bpy.ops.ligament, its properties the ones the operator accepts
    assert len(ops) >= 40, [op["name"] for op in ops]
    assert all(op["description"] for op in ops), \
        [op["name"] for op in ops if not op["description"]]
    undocumented = [f"{op['name']}.{p['id']}" for op in ops for p in op["props"]
                    if p["type"] == "ENUM" and not p["items"]]
    assert not undocumented, f"dynamic enums whose items function has no docstring: {undocumented}"
    page = markdown(ops)
    if os.environ.get("LIGAMENT_UPDATE_DOCS"):
        with open(DOC, "w") as f:
            f.write(page)
    with open(DOC) as f:
        written = f.read()
    assert written == page, ("docs/scripting.md differs from the registered operators: "
                             "LIGAMENT_UPDATE_DOCS=1 bash tools/test.sh "
                             "tests/addon/test_scripting_reference.py writes it again")
    for op in ops:
        assert f"### `bpy.ops.ligament.{op['name']}()`" in written
