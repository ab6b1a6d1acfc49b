"""Which bones make which ragdoll part: bone maps (presets/ragdoll/maps/*.toml) matched against
an armature's bone names. Pure Python, no bpy: it sees the bones as {name: parent name}.

Exact maps match names with or without a namespace ("mixamorig:Hips" matches "Hips"),
ignoring case. Keyword maps take the side off a name (".L", "_r", "Left...", "...Right") and
compare what is left, lowercased and without separators, to the part's keywords.
"""

import re

from . import presets


_SIDE_PATTERNS = (
    re.compile(r"^(?P<core>.+?)[._\- ](?P<side>l|r|left|right)$", re.IGNORECASE),
    re.compile(r"^(?P<side>l|r|left|right)[._\- ](?P<core>.+)$", re.IGNORECASE),
    re.compile(r"^(?P<core>.+?)(?P<side>Left|Right|LEFT|RIGHT)$"),
    re.compile(r"^(?P<side>left|right)(?P<core>.+)$", re.IGNORECASE),
)
_NUMBERED = re.compile(r"[._\- ]\d+$")


class Mapping:
    """The result of matching a bone map: `parts` {part: [bone names, parent first]} in the
    body plan's order, `missing` parts the map names but the armature lacks, `riders` bones
    in no part (they follow their parent bone)."""

    def __init__(self, key, label, parts, missing, riders):
        self.key, self.label = key, label
        self.parts, self.missing, self.riders = parts, missing, riders

    def summary(self):
        text = f"{self.label}: {len(self.parts)} bodies"
        if self.missing:
            text += f"; no bones for {', '.join(self.missing)}"
        return text


def strip_namespace(name):
    return name.rpartition(":")[2]


def split_side(name):
    """(side 'L' | 'R' | None, core) of a bone name; the core is lowercase alphanumerics."""
    name = _NUMBERED.sub("", strip_namespace(name))
    side, core = None, name
    for pattern in _SIDE_PATTERNS:
        m = pattern.match(name)
        if m:
            side = m.group("side")[0].upper()
            core = m.group("core")
            break
    return side, re.sub(r"[^a-z0-9]", "", core.lower())


def part_names(plan):
    """Every part of the plan, sided ones as `part.L` and `part.R`, parents first."""
    names = []
    for key, p in plan.items():
        names += [key + ".L", key + ".R"] if p.get("sided") else [key]
    return names


def part_base(part):
    return part[:-2] if part.endswith(presets.SIDES) else part


def parent_part(plan, part):
    """The part a part hangs from (the same side for sided parents), or None."""
    parent = plan[part_base(part)].get("parent")
    if parent is None:
        return None
    return parent + part[-2:] if plan[parent].get("sided") else parent


def _chain(bones, found):
    """The found bones (None where a slot matched nothing), cut where one is not a descendant
    of the one before: a part's bones must hang one from the other."""
    chain = []
    for name in found:
        if name is None:
            continue
        if chain and not _descends(bones, name, chain[-1]):
            break
        chain.append(name)
    return chain


def _descends(bones, name, ancestor):
    parent = bones.get(name)
    while parent is not None:
        if parent == ancestor:
            return True
        parent = bones.get(parent)
    return False


def _exact_lookup(bones):
    table = {}
    for name in bones:
        table.setdefault(strip_namespace(name).lower(), name)
    return table


def _keyword_lookup(bones):
    table = {}
    for name in bones:
        table.setdefault(split_side(name), name)
    return table


def match(bones, key, bone_map, plan):
    """Match one map against `bones` ({name: parent or None}). Returns a Mapping."""
    keywords = bone_map["match"] == "keywords"
    lookup = _keyword_lookup(bones) if keywords else _exact_lookup(bones)
    parts, missing = {}, []
    for part in part_names(plan):
        side = part[-1] if part.endswith(presets.SIDES) else None
        slots = bone_map["bones"].get(part_base(part) if keywords else part)
        if slots is None:
            continue
        if keywords:
            found = [next((lookup[(side, a)] for a in alts if (side, a) in lookup), None)
                     for alts in slots]
        else:
            found = [next((lookup[a.lower()] for a in alts if a.lower() in lookup), None)
                     for alts in slots]
        chain = _chain(bones, found)
        if chain:
            parts[part] = chain
        else:
            missing.append(part)
    used = {b for chain in parts.values() for b in chain}
    riders = [b for b in bones if b not in used]
    return Mapping(key, bone_map["label"], parts, missing, riders)


def choose(bones, preset='AUTO'):
    """The Mapping of map `preset` (a file name in presets/ragdoll/maps), or for 'AUTO' the
    map that finds the most parts (exact maps before keyword ones on a tie).
    Raises ValueError when no map finds a pelvis and one more part."""
    plan = presets.body_plan()
    maps = presets.bone_maps()
    if preset != 'AUTO':
        if preset not in maps:
            raise ValueError(f"no bone map '{preset}' in presets/ragdoll/maps "
                             f"(there are: {', '.join(maps)})")
        candidates = [match(bones, preset, maps[preset], plan)]
    else:
        candidates = [match(bones, key, m, plan) for key, m in maps.items()]
        candidates.sort(key=lambda c: (-len(c.parts), maps[c.key]["match"] == "keywords"))
    best = candidates[0]
    if "pelvis" not in best.parts or len(best.parts) < 2:
        tried = ", ".join(maps[c.key]["label"] for c in candidates)
        raise ValueError(f"no bones mapped: no pelvis/hips bone and limbs found with {tried}; "
                         "rename the bones (e.g. hips, spine, upper_arm.L) or add a bone map "
                         "in presets/ragdoll/maps")
    return best
