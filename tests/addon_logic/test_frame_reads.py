"""The change check's per-frame digests (addon/runtime/digests.py) against a stand-in world:
what a frame sends the World goes into its digest, a check (forward=False) and a step
(forward=True) that read the same values give the same digest, and a check reaches nothing
of the World but reads."""

import numpy as np
import pytest

from addon.runtime.digests import FrameReads


class StandInWorld:
    """Records every call; `time` stands for an attribute that only reads."""

    time = 1.25

    def __init__(self):
        self.calls = []

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)

        def call(*args, **kwargs):
            self.calls.append((name, args, kwargs))
            return ("done", name)
        return call


def frame(reads, target=(0.0, 0.0, 1.0), drive=0.5):
    """One frame's inputs, as world/inputs.py and runtime/simulation.py send them."""
    reads.set_kinematic_target(3, target, orientation=(1.0, 0.0, 0.0, 0.0))
    reads.set_drive(7, drive, 2.0, max_torque=10.0)
    reads.set_path_points(2, np.array([[0.0, 0, 0], [1, 0, 0], [1, 1, 0]]))
    reads.set_steering(4, 0.1)
    reads.note("ragdoll", 1)


def test_a_step_forwards_every_call_and_returns_the_worlds_answer():
    world = StandInWorld()
    reads = FrameReads(world, forward=True)
    frame(reads)
    assert [c[0] for c in world.calls] == ["set_kinematic_target", "set_drive",
                                          "set_path_points", "set_steering"]
    assert world.calls[0] == ("set_kinematic_target", (3, (0.0, 0.0, 1.0)),
                              {"orientation": (1.0, 0.0, 0.0, 0.0)})
    assert reads.set_motor(1, 2.0) == ("done", "set_motor")
    assert reads.set_kind(5, "dynamic") == ("done", "set_kind")


def test_a_check_reads_but_sends_nothing():
    world = StandInWorld()
    reads = FrameReads(world, forward=False)
    frame(reads)
    assert reads.set_kind(5, "dynamic") is None     # a kind switch is not made either
    assert reads.set_field(0, strength=2.0) is None
    assert world.calls == []
    assert reads.time == 1.25                       # reads pass through
    reads.body_pose(3)                              # and calls that are not inputs
    assert world.calls == [("body_pose", (3,), {})]


def digest(forward, **inputs):
    reads = FrameReads(StandInWorld(), forward=forward)
    frame(reads, **inputs)
    return reads.digest()


def test_a_check_and_a_step_of_the_same_inputs_give_the_same_digest():
    assert digest(False) == digest(True)
    assert len(digest(True)) == 16


@pytest.mark.parametrize("inputs", [{"target": (0.0, 0.0, 1.0 + 1e-12)}, {"drive": 0.4},
                                    {"target": (0.0, 1.0, 0.0)}])
def test_any_input_that_differs_changes_the_digest(inputs):
    assert digest(True, **inputs) != digest(True)


def test_the_same_values_as_a_list_a_tuple_or_an_array_digest_alike():
    a = FrameReads(StandInWorld(), forward=False)
    b = FrameReads(StandInWorld(), forward=False)
    a.set_kinematic_target(1, [0, 0, 2])              # ints and floats alike
    b.set_kinematic_target(1, np.array([0.0, 0.0, 2.0]))
    assert a.digest() == b.digest()


def test_keyword_order_does_not_matter_but_call_order_does():
    a = FrameReads(StandInWorld(), forward=False)
    b = FrameReads(StandInWorld(), forward=False)
    a.set_drive(1, 0.5, stiffness=1.0, max_torque=2.0)
    b.set_drive(1, 0.5, max_torque=2.0, stiffness=1.0)
    assert a.digest() == b.digest()
    c = FrameReads(StandInWorld(), forward=False)
    d = FrameReads(StandInWorld(), forward=False)
    c.set_steering(1, 0.1)
    c.set_steering(2, 0.2)
    d.set_steering(2, 0.2)
    d.set_steering(1, 0.1)
    assert c.digest() != d.digest()


def test_a_kind_switch_is_not_part_of_the_digest():
    a = FrameReads(StandInWorld(), forward=True)
    b = FrameReads(StandInWorld(), forward=True)
    frame(a)
    frame(b)
    b.set_kind(3, "kinematic")
    assert a.digest() == b.digest()


def test_values_that_are_not_numbers_are_digested_by_their_text():
    a = FrameReads(StandInWorld(), forward=False)
    b = FrameReads(StandInWorld(), forward=False)
    a.note("Armature", None)
    b.note("Armature", None)
    assert a.digest() == b.digest()
    b.note("x")
    assert a.digest() != b.digest()
