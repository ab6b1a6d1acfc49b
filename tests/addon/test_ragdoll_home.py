"""The collection that holds a ragdolled armature, where its ragdoll's collection belongs
(`scene.ragdolls.home`, `at_home`), is the one Blender lists first in the armature's
`users_collection`, also among collections holding a library's object of the same name.
The scenarios: tests/addon/scenarios/ragdoll_home.py."""


def test_an_armatures_home_is_the_collection_blender_lists_first(blender):
    out = blender.call("ragdoll_home.homes_among_same_names")
    assert out["names"] == ["Rig", "Rig", "True"]      # two objects named Rig, one linked
    assert out["home"] == out["listed"]
    assert out["home"] == {"local": "B", "linked": "A", "solo": "Scene Collection"}


def test_a_ragdoll_collection_is_at_home_as_a_child_or_deeper(blender):
    out = blender.call("ragdoll_home.homes_among_same_names")
    assert out["at_home"] == {"child": [True, True], "grandchild": [True, True],
                              "elsewhere": [False, False]}
