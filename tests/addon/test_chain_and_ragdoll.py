"""Features meeting each other: a ragdoll made over bones a bone chain holds, a bone chain
removed from a rig whose switches the user set, and a body two simulated scenes share.
The scenarios: tests/addon/scenarios/chain_and_ragdoll.py."""


def test_ragdoll_over_a_bone_chain_is_refused_naming_the_chain(blender):
    out = blender.call("chain_and_ragdoll.ragdoll_over_a_chain")
    r = out["refused"]
    assert r["res"] == ["CANCELLED"]
    assert "spine.003" in r["message"] and "Nothing was made" in r["message"]
    assert "Remove Bone Chain" in r["message"]
    assert r["same"] and r["bodies"] == 0 and r["doubled"] == []
    # made in the order the message gives, the chain hangs from the ragdoll's chest, which
    # stays simulated: the rig raised 1 m falls to the ground
    assert out["res2"] == ["FINISHED"], out["message2"]
    assert out["doubled2"] == [] and out["own_root"] == []
    assert out["chest_simulated"]
    assert out["fell"] > 0.5


def test_removing_a_bone_chain_keeps_the_simulated_switch_the_user_set(blender):
    out = blender.call("chain_and_ragdoll.chain_removed_keeps_the_switch")
    assert out["res"] == ["FINISHED"]
    assert out["with_chain"] is False
    assert out["ragdoll_head"] is False          # still following the animation
    assert out["plain_off"] is False
    assert out["keys"] == [] and out["chains"] == []


def test_a_body_in_two_simulated_scenes_is_a_finding_naming_both(blender):
    out = blender.call("chain_and_ragdoll.body_in_two_scenes")
    assert len(out["both"]) == 1
    severity, objects, data, message, fix = out["both"][0]
    assert severity == "WARNING" and objects == ["Crate"] and data == {"scenes": ["Shot B"]}
    assert "'Shot B'" in message and "'Scene'" in message and "Make Single User" in message
    assert fix == "ligament.select_objects"
    assert [f[1] for f in out["from_b"]] == [["Crate"]]
    assert out["from_b"][0][2] == {"scenes": ["Scene"]}
    assert out["b_off"] == []                    # a scene whose world is off simulates nothing
