"""What the scene check reads off the characters: a ragdolled armature and its helpers
(authoring/ragdoll.py) found apart, or an armature following another one's ragdoll. These are
read before any body is, so a character linked or appended without its ragdoll is found
even when the scene has no bodies at all."""

from ..scene import ragdolls
from .findings import ERROR, WARNING, Finding, Fix, select_fix


CONSTRAINT = "Ligament Ragdoll"    # authoring/ragdoll.py's, read here by name


def _own_fix(arm):
    return Fix("ligament.own_ragdoll", {"armature": arm.name}, "Make Its Own Ragdoll")


def borrowed(scene):
    """An armature whose bones follow another armature's ragdoll helpers: a copy duplicated
    without the ragdoll (Shift+D, Alt+D on the armature alone) moves with the original."""
    out = []
    for arm in (o for o in scene.objects if o.type == 'ARMATURE'):
        owners = sorted({con.target.ligament_ragdoll_part.armature.name
                         for pb in arm.pose.bones for con in pb.constraints
                         if con.name.startswith(CONSTRAINT) and
                         getattr(con, "target", None) is not None and
                         con.target.ligament_ragdoll_part.armature is not None and
                         con.target.ligament_ragdoll_part.armature != arm})
        if owners:
            out.append(Finding(
                ERROR, 'ragdoll-borrowed', (arm.name, *owners),
                f"Armature '{arm.name}' follows the ragdoll of '{owners[0]}': its bones are "
                "constrained to that ragdoll's bodies (a copy made without its ragdoll), so "
                "it moves with the other character, not where it was put. Make Its Own "
                "Ragdoll gives it a copy of that ragdoll",
                _own_fix(arm), {"borrows": owners}))
    return out


def missing_bodies(scene, taken):
    """A ragdolled armature without any body (linked or appended without its ragdoll's
    collection, or the bodies deleted): it would not fall. `taken`: armatures reported as
    borrowing already."""
    out = []
    here = set(scene.objects)
    for arm in ragdolls.armatures(scene):
        if arm.name in taken or arm.ligament_ragdoll.bone_map == "":
            continue
        # its bodies may exist and not be in the scene: a collection appended or linked
        # brings the ragdoll collection its armature points to, unlinked
        if any(b in here for b in ragdolls.bodies(arm)):
            continue
        coll = arm.ligament_ragdoll.collection
        where = f"collection '{coll.name}', not in the scene" if coll is not None else \
            "no collection"
        out.append(Finding(
            ERROR, 'ragdoll-missing', (arm.name,),
            f"Armature '{arm.name}' has a ragdoll but none of its bodies is here ({where}): "
            "it will not fall. Link or append the character's whole collection (its ragdoll "
            "lives inside it), or let Make Its Own Ragdoll bring it in or make it again",
            _own_fix(arm)))
    return out


def orphans(scene):
    """Ragdoll bodies and joints whose armature is gone (deleted, or left out when the
    character was linked), or that left their ragdoll's collection (moved in the Outliner, or
    a copy half relinked): they simulate on their own, driving nothing."""
    lost, outside = {}, {}
    first = {}     # the scene's objects by name, as scene.objects[name] finds them (a walk)
    for o in scene.objects:
        first.setdefault(o.name, o)
    for o in scene.objects:
        p = o.ligament_ragdoll_part
        if p.role == 'NONE' or p.role == 'TARGET':
            continue
        arm = p.armature
        if arm is None or first.get(arm.name) != arm:
            key = arm.name if arm is not None else ""
            lost.setdefault(key, []).append(o)
        elif arm.ligament_ragdoll.enabled:
            coll = arm.ligament_ragdoll.collection
            if coll is None or coll.all_objects.get(o.name) != o:
                outside.setdefault(arm.name, []).append(o)
    out = []
    for found, whose in ((lost, lambda name: f"armature '{name}', not in this scene" if name
                          else "an armature that is gone"),
                         (outside, lambda name: f"the ragdoll of '{name}' but are outside its "
                          "collection")):
        for name, objs in sorted(found.items()):
            names = sorted(o.name for o in objs)
            out.append(Finding(
                WARNING, 'ragdoll-orphan', tuple(names),
                f"{len(names)} ragdoll bodies and joints ('{names[0]}', ...) belong to "
                f"{whose(name)}: they fall on their own and move no bones. "
                + ("Bring the armature back or delete them" if found is lost else
                   "Move them back into its ragdoll's collection or delete them"),
                select_fix(objs), {"armature": name}))
    return out


def collections(scene):
    """A ragdoll collection outside the collection that holds its armature (files made when
    ragdolls lived in a collection of their own): linking or duplicating the character's
    collection would leave the ragdoll behind."""
    out = []
    for arm in ragdolls.armatures(scene):
        coll = arm.ligament_ragdoll.collection
        if coll is None or ragdolls.at_home(scene, arm) or arm.library is not None or \
                coll.library is not None or coll.override_library is not None:
            continue
        home = ragdolls.home(scene, arm)
        where = "the scene's collection" if home == scene.collection else f"'{home.name}'"
        out.append(Finding(
            WARNING, 'ragdoll-collection', (arm.name,),
            f"The ragdoll of '{arm.name}' (collection '{coll.name}') is not inside {where}, "
            "the collection that holds the armature: linking, appending or duplicating the "
            "character's collection would leave the ragdoll behind. Move it there",
            Fix("ligament.move_ragdoll_home", {"armature": arm.name}, f"Move into {where}")))
    return out


def instances(scene):
    """A collection instance showing a ragdolled character: a local one replays the
    original's motion where the instance stands (a rig driven by another rig's bodies); a
    linked one (File > Link makes one) does not simulate at all until it is overridden."""
    out = []
    for inst in scene.objects:
        coll = inst.instance_collection if inst.instance_type == 'COLLECTION' else None
        if coll is None:
            continue
        arms = sorted(o.name for o in coll.all_objects if o.type == 'ARMATURE' and
                      o.ligament_ragdoll.enabled and o.ligament_ragdoll.bone_map)
        if not arms:
            continue
        if coll.library is not None:
            out.append(Finding(
                WARNING, 'character-linked', (inst.name, *arms),
                f"'{inst.name}' shows the linked character '{arms[0]}' of collection "
                f"'{coll.name}': a linked character does not simulate. Make a library override "
                "of it (Object > Library Override > Make)",
                Fix("ligament.override_character", {"instance": inst.name},
                    "Make Library Override")))
        else:
            out.append(Finding(
                ERROR, 'character-instance', (inst.name, *arms),
                f"'{inst.name}' is an instance of collection '{coll.name}': it shows "
                f"'{arms[0]}' moving with the ragdoll of the original, not a ragdoll of its "
                "own. Make it a real copy with a ragdoll of its own",
                Fix("ligament.instance_character", {"instance": inst.name},
                    "Make a Real Copy")))
    return out


def old_switches(scene):
    """A character linked from a file an older Ligament saved, which kept its bones' switches
    and its bone chains' settings in property groups: they are read from there
    (`ragdolls.bone_setting`), but a library override stores only what differs from the
    library's own properties, so a setting set back to its default in the shot would not be
    kept."""
    out = []
    for arm in ragdolls.armatures(scene):
        ov = arm.override_library
        source = arm if arm.library is not None else \
            ov.reference if ov is not None and ov.reference is not None else None
        if source is None or source.library is None:
            continue
        bones = sorted(pb.name for pb in source.pose.bones if ragdolls.stored_before(pb))
        if bones:
            lib = source.library.filepath
            out.append(Finding(
                WARNING, 'ragdoll-old-switches', (arm.name,),
                f"'{arm.name}' comes from '{lib}', saved by an older Ligament: the "
                f"Simulated and Drive Strength switches or bone chain settings of {len(bones)} "
                f"bones ('{bones[0]}', ...) are read from there, but one set back to its "
                f"default in this file would not be kept by the override. Open '{lib}' and "
                "save it once to update it",
                None, {"library": lib, "bones": bones}))
    return out


def character_findings(scene):
    found = borrowed(scene)
    found += missing_bodies(scene, {f.objects[0] for f in found})
    taken = {f.objects[0] for f in found}
    return found + instances(scene) + orphans(scene) + \
        [f for f in collections(scene) if f.objects[0] not in taken] + old_switches(scene)
