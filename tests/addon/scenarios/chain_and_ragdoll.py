"""test_chain_and_ragdoll.py's scenarios: a ragdoll made over bones a bone chain holds, a
bone chain removed from a rig whose switches the user set, a body two scenes share."""

import sys

import bpy
from mathutils import Vector

from .helpers import box, lig
from .rigs import enable_rigify


def _module(name):
    return sys.modules[lig().__name__ + name]


def metarig_with(extra, name="Rig", location=(0, 0, 0)):
    """Rigify's human metarig with two more bones in a line under the bone `extra`."""
    bpy.ops.object.armature_human_metarig_add()
    arm = bpy.context.active_object
    arm.name = name
    arm.location = location
    bpy.ops.object.mode_set(mode='EDIT')
    eb = arm.data.edit_bones
    parent = eb[extra]
    head = parent.tail.copy()
    for i in (1, 2):
        b = eb.new(f"{extra}.strand.{i}")
        b.head, b.tail = head, head + Vector((0, 0.1, -0.1))
        b.parent = parent
        b.use_connect = i == 2
        parent, head = b, b.tail.copy()
    bpy.ops.object.mode_set(mode='OBJECT')
    bpy.context.view_layer.update()
    return arm


def ligament_constraints(arm):
    return {pb.name: sum(c.name.startswith("Ligament Ragdoll") for c in pb.constraints)
            for pb in arm.pose.bones}


def make_ragdoll():
    try:
        return list(bpy.ops.ligament.ragdoll_from_armature()), ""
    except RuntimeError as exc:      # an operator's error report, in background mode
        return ["CANCELLED"], str(exc)


def ragdoll_over_a_chain():
    """A ragdoll made over a JIGGLE chain on spine.003 (refused), then made as the message
    says (chain removed, ragdoll, chain again) and dropped from 1 m for 30 frames."""
    scene = bpy.context.scene
    enable_rigify()
    chain_mod = _module(".addon.authoring.chain")
    ragdolls_mod = _module(".addon.scene.ragdolls")
    arm = metarig_with("spine.003", location=(0, 0, 1.0))
    chain_mod.create(scene, arm, ["spine.003", "spine.003.strand.1", "spine.003.strand.2"],
                     'JIGGLE')
    before = (len(bpy.data.objects), ligament_constraints(arm))
    res, message = make_ragdoll()
    after = (len(bpy.data.objects), ligament_constraints(arm))
    refused = {"res": res, "message": message, "same": before == after,
               "bodies": len([o for o in ragdolls_mod.bodies(arm)
                              if not o.ligament_ragdoll_part.chain]),
               "doubled": [b for b, n in after[1].items() if n > 1],
               "chest_simulated": arm.pose.bones["spine.003"].ligament_ragdoll.simulated}
    # what the message says to do: remove the chain, make the ragdoll, add the chain again
    chain_mod.remove(scene, arm, "spine.003")
    res2, message2 = make_ragdoll()
    chain_mod.create(scene, arm, ["spine.003", "spine.003.strand.1", "spine.003.strand.2"],
                     'JIGGLE')
    box("Ground", (20, 20, 1), (0, 0, -0.5), kind='STATIC')
    chest = next(o for o in ragdolls_mod.bodies(arm)
                 if o.ligament_ragdoll_part.part == "chest")
    scene.frame_set(1)
    z0 = chest.matrix_world.translation.z
    for f in range(2, 31):
        scene.frame_set(f)
    return {"refused": refused, "res2": res2, "message2": message2,
            "doubled2": [b for b, n in ligament_constraints(arm).items() if n > 1],
            "own_root": [o.name for o in ragdolls_mod.bodies(arm)
                         if o.ligament_ragdoll_part.part == "spine.003"],
            "chest_simulated": arm.pose.bones["spine.003"].ligament_ragdoll.simulated,
            "fell": z0 - chest.matrix_world.translation.z}


def chain_removed_keeps_the_switch():
    """A chain added and removed on a ragdoll's head switched off by the user, and on a
    plain rig's hand switched off: the switches after each, keys left, chains left."""
    scene = bpy.context.scene
    enable_rigify()
    chain_mod = _module(".addon.authoring.chain")
    arm = metarig_with("spine.006")
    res, message = make_ragdoll()
    head = arm.pose.bones["spine.006"]
    head.ligament_ragdoll.simulated = False          # the head follows the animation
    chain_mod.create(scene, arm, ["spine.006", "spine.006.strand.1", "spine.006.strand.2"])
    with_chain = head.ligament_ragdoll.simulated
    chain_mod.remove(scene, arm, "spine.006")
    ragdoll_head = head.ligament_ragdoll.simulated
    # a chain with a root of its own (no ragdoll part above it) on a bone the user had
    # switched off, and one on a bone left on
    plain = metarig_with("hand.L", name="Plain")
    hand = plain.pose.bones["hand.L"]
    hand.ligament_ragdoll.simulated = False
    chain_mod.create(scene, plain, ["hand.L", "hand.L.strand.1", "hand.L.strand.2"])
    chain_mod.remove(scene, plain, "hand.L")
    off = hand.ligament_ragdoll.simulated
    return {"res": res, "with_chain": with_chain, "ragdoll_head": ragdoll_head,
            "plain_off": off, "keys": [k for b in (head, hand) for k in b.keys()
                                       if k.endswith("root_simulated")],
            "chains": chain_mod.chain_roots(arm) + chain_mod.chain_roots(plain)}


def body_in_two_scenes():
    """A crate linked into a second scene "Shot B", both simulated: the shared-body findings
    of each scene, and with Shot B's world off."""
    scene = bpy.context.scene
    doctor = _module(".addon.check.doctor")
    box("Ground", (10, 10, 1), (0, 0, -0.5), kind='STATIC')
    crate = box("Crate", (1, 1, 1), (0, 0, 2))
    box("Alone", (1, 1, 1), (3, 0, 2))
    other = bpy.data.scenes.new("Shot B")
    other.collection.objects.link(crate)
    scene.ligament_world.enabled = True
    other.ligament_world.enabled = True

    def shared(s):
        return [(f.severity, list(f.objects), f.data, f.message, f.fix.operator)
                for f in doctor.check(s) if f.code == 'shared-body']
    both = shared(scene)
    from_b = shared(other)
    other.ligament_world.enabled = False
    b_off = shared(scene)
    return {"both": both, "from_b": from_b, "b_off": b_off}
