"""Presets shipped as data files in presets/ (editable by users, not Python).

Each loader reads its file(s) fresh, checks the fields the add-on relies on and raises
ValueError naming the file, the entry and the field when one is wrong.
"""

import glob
import os
import tomllib

PRESETS_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "presets")
RAGDOLL_DIR = os.path.join(PRESETS_DIR, "ragdoll")
SIDES = (".L", ".R")


def _load(path):
    try:
        with open(path, "rb") as f:
            return tomllib.load(f)
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"{_short(path)}: {exc}") from None


def _short(path):
    return os.path.relpath(path, os.path.dirname(PRESETS_DIR))


def _check(path, key, entry, field, kind, minimum=None, size=None):
    """entry[field] must be a `kind` (or a list of `size` of them) at least `minimum`."""
    value = entry.get(field)
    values = value if size is not None else [value]
    ok = isinstance(values, list) and (size is None or len(values) in size) and all(
        isinstance(v, kind) and not isinstance(v, bool) and (minimum is None or v >= minimum)
        for v in values)
    if not ok:
        what = f"a list of {'/'.join(map(str, size))} numbers" if size else kind.__name__
        limit = f" >= {minimum}" if minimum is not None else ""
        raise ValueError(f"{_short(path)}: [{key}] needs '{field}' as {what}{limit}, "
                         f"got {value!r}")
    return value


def enum_items(load, describe, first=None, head=()):
    """Blender enum items (key, label, description, index) of the presets `load()` returns:
    `describe(entry)` is an entry's description, `first` puts one key first, `head` items go
    before all. A broken file gives one 'ERROR' item that says what is wrong."""
    items = list(head)
    try:
        table = load()
        for key in sorted(table, key=lambda k: k != first):
            items.append((key, table[key].get("label", key.title()), describe(table[key]),
                          len(items)))
    except (OSError, ValueError) as exc:
        items.append(('ERROR', "No presets", str(exc), len(items)))
    return items


def quality_levels():
    """{key: {"label", "description", "substeps", "iterations", "jointed_substeps"}} from
    presets/quality.toml; a level without jointed_substeps gets 0 (Auto)."""
    path = os.path.join(PRESETS_DIR, "quality.toml")
    levels = _load(path)
    for key, level in levels.items():
        for field in ("substeps", "iterations"):
            _check(path, key, level, field, int, minimum=1)
        level.setdefault("jointed_substeps", 0)
        _check(path, key, level, "jointed_substeps", int, minimum=0)
    return levels


def materials():
    """{key: {"label", "friction", "bounciness", "density"}} from presets/materials.toml."""
    path = os.path.join(PRESETS_DIR, "materials.toml")
    table = _load(path)
    for key, m in table.items():
        _check(path, key, m, "friction", (int, float), minimum=0.0)
        _check(path, key, m, "bounciness", (int, float), minimum=0.0)
        _check(path, key, m, "density", (int, float), minimum=1e-6)
        if m["bounciness"] > 1.0:
            raise ValueError(f"{_short(path)}: [{key}] 'bounciness' must be at most 1")
    return table


def body_plan():
    """The humanoid parts from presets/ragdoll/humanoid.toml: {part: fields}, parents
    before children (the file's order is not trusted)."""
    path = os.path.join(RAGDOLL_DIR, "humanoid.toml")
    plan = _load(path)
    for key, p in plan.items():
        _check(path, key, p, "mass", (int, float), minimum=0.0)
        if p.get("shape") not in ("capsule", "box"):
            raise ValueError(f"{_short(path)}: [{key}] 'shape' must be \"capsule\" or \"box\"")
        _check(path, key, p, "size", (int, float), minimum=0.0,
               size=(1,) if p["shape"] == "capsule" else (2,))
        parent = p.get("parent")
        if parent is None:
            continue
        if parent not in plan:
            raise ValueError(f"{_short(path)}: [{key}] parent '{parent}' is not a part")
        joint = p.get("joint")
        if joint == "ragdoll":
            _check(path, key, p, "swing_bend", (int, float), minimum=0.5)
            _check(path, key, p, "swing_side", (int, float), minimum=0.5)
            _check(path, key, p, "twist", (int, float), size=(2,))
        elif joint == "hinge":
            _check(path, key, p, "flexion", (int, float), size=(2,))
            if p.get("bend") not in ("forward", "back"):
                raise ValueError(f"{_short(path)}: [{key}] 'bend' must be \"forward\" or "
                                 "\"back\"")
        else:
            raise ValueError(f"{_short(path)}: [{key}] 'joint' must be \"ragdoll\" or \"hinge\"")
    order, seen = [], set()

    def visit(key, trail=()):
        if key in seen:
            return
        if key in trail:
            raise ValueError(f"{_short(path)}: parent loop through [{key}]")
        parent = plan[key].get("parent")
        if parent is not None:
            visit(parent, trail + (key,))
        seen.add(key)
        order.append(key)
    for key in plan:
        visit(key)
    return {key: plan[key] for key in order}


def bone_maps():
    """{key: {"label", "description", "match", "bones": {part: [alternatives, ...]}}} from
    presets/ragdoll/maps/*.toml (the key is the file name), each chain entry split into its
    "a|b" alternatives."""
    plan = body_plan()
    maps = {}
    for path in sorted(glob.glob(os.path.join(RAGDOLL_DIR, "maps", "*.toml"))):
        key = os.path.splitext(os.path.basename(path))[0]
        m = _load(path)
        if m.get("match") not in ("exact", "keywords"):
            raise ValueError(f"{_short(path)}: 'match' must be \"exact\" or \"keywords\"")
        bones = m.get("bones")
        if not isinstance(bones, dict) or not bones:
            raise ValueError(f"{_short(path)}: needs a [bones] table")
        chains = {}
        for part, chain in bones.items():
            base = part[:-2] if part.endswith(SIDES) else part
            if base not in plan:
                raise ValueError(f"{_short(path)}: [bones] '{part}' is not a part of "
                                 f"humanoid.toml ({', '.join(plan)})")
            if not isinstance(chain, list) or not chain or \
                    not all(isinstance(c, str) and c for c in chain):
                raise ValueError(f"{_short(path)}: [bones] '{part}' needs a list of bone names")
            chains[part] = [c.split("|") for c in chain]
        maps[key] = {"label": m.get("label", key), "description": m.get("description", ""),
                     "match": m["match"], "bones": chains}
    if not maps:
        raise ValueError(f"no bone maps in {_short(os.path.join(RAGDOLL_DIR, 'maps'))}")
    return maps
