"""Crowds: copies of a ragdolled character (its armature, the meshes it deforms, a ragdoll of
each copy's own, authoring/ragdoll.copy_ragdoll) on a grid or along a curve, each copy's
animation optionally started a random number of frames later."""

import math
import random

import bpy
from mathutils import Matrix, Vector

from . import ragdoll
from ..scene import ragdolls
from ..scene.animation import action_fcurves


LAYOUTS = ('GRID', 'CURVE')


def grid_offsets(count, spacing, columns=0):
    """Offsets of `count` copies on a grid beside the original (which holds the first
    place): rows along X, `columns` per row (0: a square)."""
    columns = columns or math.ceil(math.sqrt(count + 1))
    return [Vector(((k % columns) * spacing, (k // columns) * spacing, 0.0))
            for k in range(1, count + 1)]


def curve_points(scene, curve, count):
    """`count` points evenly spaced (by length) along `curve`'s evaluated shape, in world
    space, its first point first."""
    depsgraph = bpy.context.evaluated_depsgraph_get()
    ev = curve.evaluated_get(depsgraph)
    mesh = ev.to_mesh()
    try:
        pts = [curve.matrix_world @ v.co for v in mesh.vertices]
        edges = [tuple(e.vertices) for e in mesh.edges]
    finally:
        ev.to_mesh_clear()
    if len(pts) < 2 or not edges:
        raise ValueError(f"Curve '{curve.name}' has no length to place copies along")
    # the polyline in edge order (the evaluated mesh of one spline is a chain)
    order = [edges[0][0]]
    nxt = {}
    for a, b in edges:
        nxt.setdefault(a, b)
    while order[-1] in nxt and len(order) <= len(pts):
        order.append(nxt[order[-1]])
    line = [pts[i] for i in order]
    lengths = [0.0]
    for a, b in zip(line, line[1:]):
        lengths.append(lengths[-1] + (b - a).length)
    total = lengths[-1]
    out = []
    for k in range(count):
        s = total * k / max(count - 1, 1)
        i = next((i for i in range(1, len(lengths)) if lengths[i] >= s), len(lengths) - 1)
        seg = lengths[i] - lengths[i - 1]
        t = (s - lengths[i - 1]) / seg if seg > 0 else 0.0
        out.append(line[i - 1].lerp(line[i], t))
    return out


def shift_animation(obj, frames):
    """Give `obj` a copy of its action with every key `frames` later."""
    ad = obj.animation_data
    if ad is None or ad.action is None or frames == 0:
        return
    slot = getattr(ad, "action_slot", None)
    ad.action = ad.action.copy()
    if slot is not None and ad.action_slot is None:
        ad.action_slot = ad.action.slots[slot.identifier]
    for fc in action_fcurves(obj).values():
        for kp in fc.keyframe_points:
            kp.co.x += frames
            kp.handle_left.x += frames
            kp.handle_right.x += frames
        fc.update()


def make_crowd(scene, arm, count, layout='GRID', spacing=2.0, columns=0, curve=None,
               start_offset=0, seed=0):
    """`count` copies of the ragdolled `arm` in a new collection "Crowd <name>", each with
    the meshes `arm` deforms and a ragdoll of its own; returns the copies' armatures.
    GRID: beside the original, `spacing` apart; CURVE: along `curve` (the first copy at its
    start). `start_offset`: each copy's animation starts 0 to that many frames later
    (random, repeatable with `seed`)."""
    if count < 1:
        raise ValueError("A crowd needs at least one copy")
    if not ragdolls.bodies(arm):
        raise ValueError(f"Armature '{arm.name}' has no ragdoll bodies to copy")
    if layout == 'CURVE':
        if curve is None or curve.type != 'CURVE':
            raise ValueError("Pick a curve object to place the crowd along")
        start = arm.matrix_world.translation
        offsets = [p - start for p in curve_points(scene, curve, count)]
    else:
        offsets = grid_offsets(count, spacing, columns)
    crowd = bpy.data.collections.new(f"Crowd {arm.name}")
    scene.collection.children.link(crowd)
    rng = random.Random(seed)
    copies = []
    meshes = character_meshes(scene, arm)
    for offset in offsets:
        c = copy_character(scene, arm, Matrix.Translation(offset), crowd, meshes)
        if start_offset > 0:
            shift_animation(c, rng.randint(0, start_offset))
        copies.append(c)
    return copies


def character_meshes(scene, arm):
    """The meshes that go with `arm` when it is copied: those it deforms and its mesh
    children (not its ragdoll's helpers)."""
    meshes = ragdoll.deformed_meshes(scene, arm) + \
        [o for o in arm.children if o.type == 'MESH' and not o.ligament_ragdoll_part.armature]
    return list(dict.fromkeys(meshes))


def copy_character(scene, arm, transform, collection, meshes=None):
    """A copy of the ragdolled `arm` moved by the world matrix `transform`, in `collection`:
    the armature (its armature data and action shared, as Alt+D does), the meshes that go
    with it, a ragdoll of its own. Returns the copy's armature."""
    if meshes is None:
        meshes = character_meshes(scene, arm)
    c = arm.copy()
    collection.objects.link(c)
    c.matrix_world = transform @ arm.matrix_world
    for m in meshes:
        mc = m.copy()
        collection.objects.link(mc)
        if m.parent == arm:
            mc.parent = c
        else:
            mc.matrix_world = transform @ m.matrix_world
        for mod in mc.modifiers:
            if mod.type == 'ARMATURE' and mod.object == arm:
                mod.object = c
    bpy.context.view_layer.update()
    ragdoll.copy_ragdoll(scene, arm, c)
    return c


def instanced_characters(inst):
    """The ragdolled armatures a collection instance empty shows."""
    coll = inst.instance_collection if inst.instance_type == 'COLLECTION' else None
    if coll is None:
        return []
    return [o for o in coll.all_objects if o.type == 'ARMATURE' and o.ligament_ragdoll.enabled
            and o.ligament_ragdoll.bone_map]


def make_instance_real(scene, inst):
    """Replace a collection instance of local ragdolled characters by copies of them where the
    instance shows them, each with a ragdoll of its own, and the instance's other objects
    (not the ragdolls' helpers) copied likewise. Returns the copies' armatures."""
    coll = inst.instance_collection
    arms = instanced_characters(inst)
    if not arms or coll.library is not None:
        raise ValueError(f"'{inst.name}' does not show a character of this file")
    transform = inst.matrix_world @ Matrix.Translation(-Vector(coll.instance_offset))
    target = bpy.data.collections.new(f"{coll.name} {inst.name}")
    for c in inst.users_collection:
        c.children.link(target)
        break
    else:
        scene.collection.children.link(target)
    taken = set()
    copies = []
    for arm in arms:
        meshes = character_meshes(scene, arm)
        taken.update(meshes)
        copies.append(copy_character(scene, arm, transform, target, meshes))
    for o in coll.all_objects:
        if o in taken or o in arms or o.ligament_ragdoll_part.armature is not None or \
                o.parent is not None:
            continue
        oc = o.copy()
        target.objects.link(oc)
        oc.matrix_world = transform @ o.matrix_world
    bpy.data.objects.remove(inst)
    return copies
