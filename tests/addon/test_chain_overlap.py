"""A bone chain whose capsules start inside the ragdoll parts it hangs from (the chest and
neck of a metarig) does not fight its joints: the add-on keeps a chain's bodies from
colliding with the parts of its ragdoll they overlap at the start
(world/ragdolls.py `clear_chain_overlaps`). The scenarios: tests/addon/scenarios/chain_overlap.py."""


def test_a_chain_started_inside_the_chest_does_not_push_against_it(blender):
    # Capsules of 5 cm radius on two strand bones under the chest (a JIGGLE chain's radius
    # on these bones) start about a centimetre inside the chest and the neck; their joints
    # hold them there. Before, every step's contacts pushed them out against the joints
    # (the fight that threw the rig, docs/performance.md's rest44 subsection).
    out = blender.call("chain_overlap.falling_chain_on_the_chest", 10, 0.05)
    assert out["strands"] == 2
    assert out["fought"] == []
