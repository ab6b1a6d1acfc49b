"""test_chain_overlap.py's scenarios: a bone chain whose capsules start inside the ragdoll
parts it hangs from, falling freely."""

import bpy

from .chain_and_ragdoll import _module, make_ragdoll, metarig_with
from .helpers import lig
from .rigs import enable_rigify


def falling_chain_on_the_chest(frames, radius):
    """Rigify's metarig with two strand bones under its chest (spine.003), a ragdoll made
    over it and a HAIR chain of capsules of `radius` on the strands, started at rest 10 m
    up with nothing below it: it falls freely for `frames` frames. Returns, per frame, the
    largest distance (m) a chain body moved from where it started in the chest's frame,
    and every contact point of a step that pushed (impulse > 0) a chain body and a part of
    the ragdoll overlapping (separation < 0): [frame, chain body, part, separation (m),
    impulse (N s)]."""
    scene = bpy.context.scene
    enable_rigify()
    chain_mod = _module(".addon.authoring.chain")
    ragdolls_mod = _module(".addon.scene.ragdolls")
    arm = metarig_with("spine.003", location=(0, 0, 10.0))
    res, message = make_ragdoll()
    assert res == ["FINISHED"], message
    chain_mod.create(scene, arm, ["spine.003", "spine.003.strand.1", "spine.003.strand.2"],
                     'HAIR', radius=radius)
    bodies = ragdolls_mod.bodies(arm)
    chest = next(o for o in bodies if o.ligament_ragdoll_part.part == "chest")
    strands = [o for o in bodies if o.ligament_ragdoll_part.chain]
    scene.frame_set(scene.frame_start)

    def in_chest():
        inv = chest.matrix_world.inverted()
        return [inv @ o.matrix_world.translation for o in strands]

    start = in_chest()
    sim = lig().addon.runtime.cache.get(scene)
    names = {b.id: b.name for b in sim.bodies}
    chain = {o.name for o in strands}
    parts = {o.name for o in bodies} - chain
    moved, fought = [], []
    for f in range(scene.frame_start + 1, scene.frame_start + frames + 1):
        scene.frame_set(f)          # steps the world: its contacts are this frame's
        moved.append(max((p - q).length for p, q in zip(in_chest(), start)))
        found = sim.world.contacts()
        for (a, b), sep, imp in zip(found["bodies"].tolist(), found["separations"].tolist(),
                                    found["impulses"].tolist()):
            a, b = names.get(a), names.get(b)
            if b in chain:
                a, b = b, a
            if a in chain and b in parts and sep < 0.0 and imp > 0.0:
                fought.append([f, a, b, sep, imp])
    return {"strands": len(strands), "moved": moved, "fought": fought}
