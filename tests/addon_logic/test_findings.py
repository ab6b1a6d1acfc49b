"""The scene check's findings (addon/check/findings.py) and the joint groups several checks
share (addon/check/joint_list.py), without Blender: stand-in objects and joint empties."""

import json
import math
import random
from types import SimpleNamespace

import pytest

from addon.check import findings, joint_list
from addon.check.findings import ERROR, Finding, Fix


@pytest.mark.parametrize("metres,text", [(0.004, "0.4 cm"), (0.1234, "12.3 cm"),
                                         (-0.5, "-50.0 cm"), (1.0, "1.00 m"),
                                         (12.345, "12.35 m")])
def test_lengths_read_in_centimetres_below_a_metre(metres, text):
    assert findings.length_text(metres) == text


@pytest.mark.parametrize("radians,text", [(math.pi / 2, "90\u00b0"), (math.radians(-30), "-30\u00b0"),
                                          (math.radians(179.6), "180\u00b0")])
def test_angles_read_in_whole_degrees(radians, text):
    assert findings.degrees_text(radians) == text


def test_a_finding_reads_as_one_line_and_as_json():
    fix = findings.select_fix([SimpleNamespace(name="Cube"), "Empty"], "Select Both")
    f = Finding(ERROR, 'limit-order', ("Hinge",), "Joint 'Hinge': swap them", fix,
                {"lower": 0.5, "upper": 0.1})
    assert f.line() == "ERROR: Joint 'Hinge': swap them"
    back = json.loads(json.dumps(f.as_dict()))
    assert back == {"severity": "ERROR", "code": "limit-order", "objects": ["Hinge"],
                    "message": "Joint 'Hinge': swap them", "data": {"lower": 0.5, "upper": 0.1},
                    "fix": {"operator": "ligament.select_objects",
                            "args": {"objects": "Cube\nEmpty"}, "label": "Select Both"}}
    assert Finding('INFO', 'x', (), "m").as_dict()["fix"] is None
    assert isinstance(fix, Fix)


def test_each_finding_has_its_own_figures():
    a, b = Finding(ERROR, 'x', (), "a"), Finding(ERROR, 'x', (), "b")
    a.data["depth"] = 1.0
    assert b.data == {}


def joint(name, a, b, type='HINGE'):
    settings = SimpleNamespace(type=type, object_a=a, object_b=b)
    return SimpleNamespace(name=name, ligament_joint=settings)


def components(names, edges):
    """Connected components by breadth-first search: {name: frozenset of its group}."""
    nbrs = {n: set() for n in names}
    for a, b in edges:
        nbrs[a].add(b)
        nbrs[b].add(a)
    out = {}
    for n in names:
        if n in out:
            continue
        group, todo = {n}, [n]
        while todo:
            for m in nbrs[todo.pop()]:
                if m not in group:
                    group.add(m)
                    todo.append(m)
        for m in group:
            out[m] = frozenset(group)
    return out


@pytest.mark.parametrize("seed", range(5))
def test_jointed_groups_are_the_bodies_that_joints_tie_together(seed):
    rng = random.Random(seed)
    objs = {f"B{i}": SimpleNamespace(name=f"B{i}") for i in range(30)}
    names = set(objs)
    joints, edges = [], []
    for k in range(25):
        a, b = rng.sample(sorted(objs), 2)
        joints.append(joint(f"J{k}", objs[a], objs[b]))
        edges.append((a, b))
    # joints that tie nothing: a missing object, the same object twice, a non-body
    outsider = SimpleNamespace(name="NotABody")
    joints += [joint("Ja", None, objs["B0"]), joint("Jb", objs["B1"], objs["B1"]),
               joint("Jc", outsider, objs["B2"])]
    groups = joint_list.jointed_groups(joint_list.JointList(joints), names)
    want = components(names, edges)
    for n in names:
        same_root = {m for m in names if groups[m] == groups[n]}
        assert same_root == want[n], n


def test_a_joint_list_reads_each_joints_pair_once():
    reads = []

    class Settings:
        type = 'HINGE'
        object_b = None

        @property
        def object_a(self):
            reads.append(1)
            return None
    jl = joint_list.JointList([SimpleNamespace(name="J", ligament_joint=Settings())])
    for _ in range(3):
        assert joint_list.joint_pairs(jl)[0][2] == 'HINGE'
    assert len(reads) == 1
    joint_list.joint_pairs(list(jl))                 # a plain list reads again
    assert len(reads) == 2
