"""test_ragdoll_home.py's scenarios: the collection that holds a ragdolled armature (where
its ragdoll's collection belongs) among collections that hold other objects of the same
name, linked from a library."""

import os
import tempfile

import bpy

from .helpers import lig


def _listed(scene, arm):
    """The home as Blender lists the armature's collections: the first of
    `Object.users_collection` that is not a scene's own, else the scene's collection."""
    masters = {sc.collection.as_pointer() for sc in bpy.data.scenes}
    for c in arm.users_collection:
        if c.as_pointer() not in masters:
            return c.name
    return scene.collection.name


def _linked_rig(name):
    """An armature object `name` linked from a library file written here."""
    arm = bpy.data.objects.new(name, bpy.data.armatures.new(name))
    path = os.path.join(tempfile.mkdtemp(), "rigs.blend")
    bpy.data.libraries.write(path, {arm})
    bpy.data.objects.remove(arm)
    with bpy.data.libraries.load(path, link=True) as (_, into):
        into.objects = [name]
    return into.objects[0]


def homes_among_same_names():
    """A local armature "Rig" and a linked one of the same name in collections A (the linked
    one only), B (both) and C (the local one), "Solo" in the scene's collection only; each
    one's home found by the add-on and as Blender lists it, and whether a ragdoll collection
    sits at home as a child, a grandchild or elsewhere (by the add-on, and as Blender lists
    the home's collections)."""
    scene = bpy.context.scene
    linked = _linked_rig("Rig")
    local = bpy.data.objects.new("Rig", bpy.data.armatures.new("Rig.local"))
    solo = bpy.data.objects.new("Solo", bpy.data.armatures.new("Solo"))
    scene.collection.objects.link(solo)
    coll = {}
    for name, objs in (("A", [linked]), ("B", [linked, local]), ("C", [local])):
        coll[name] = bpy.data.collections.new(name)
        scene.collection.children.link(coll[name])
        for o in objs:
            coll[name].objects.link(o)
    ragdolls = lig().addon.scene.ragdolls
    arms = {"local": local, "linked": linked, "solo": solo}
    out = {"names": [local.name, linked.name, str(linked.library is not None)],
           "home": {k: ragdolls.home(scene, a).name for k, a in arms.items()},
           "listed": {k: _listed(scene, a) for k, a in arms.items()}, "at_home": {}}
    child = bpy.data.collections.new("Child")
    coll["B"].children.link(child)
    grandchild = bpy.data.collections.new("Grandchild")
    child.children.link(grandchild)
    elsewhere = bpy.data.collections.new("Elsewhere")
    coll["C"].children.link(elsewhere)
    for label, place in (("child", child), ("grandchild", grandchild),
                         ("elsewhere", elsewhere)):
        local.ligament_ragdoll.collection = place
        out["at_home"][label] = [ragdolls.at_home(scene, local),
                                 place in ragdolls.home(scene, local).children_recursive]
    return out
