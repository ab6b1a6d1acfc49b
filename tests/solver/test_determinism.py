"""Same inputs give bit-identical results; save_state/load_state replays bit-identically."""

import math

import numpy as np

import solver as lg
from probes import FRAME


def _scene():
    w = lg.World(gravity=(0, 0, -9.81))
    base = w.add_body(lg.Box((0.2, 0.2, 0.05)), (0, 0, 2), kind="kinematic")
    arm = w.add_body(lg.Capsule(0.05, 0.2), (0, 0, 1.7), mass=1.0)
    fore = w.add_body(lg.Box((0.05, 0.05, 0.2)), (0, 0, 1.25), mass=0.8)
    hand = w.add_body(lg.Sphere(0.08), (0.1, 0, 1.0), mass=0.5, angular_velocity=(1, 2, 3))
    w.add_ragdoll(base, arm, (0, 0, 1.95), (0, 0, -1))
    w.add_hinge(arm, fore, (0, 0, 1.45), (0, 1, 0), lower=-1.0, upper=1.5, motor_speed=2.0,
                max_motor_torque=3.0)
    w.add_distance(fore, hand, (0, 0, 1.05), (0.1, 0, 1.0), spring_hz=3.0, spring_damping=0.2,
                   min_length=0.05, max_length=0.3)
    w.add_rope(None, hand, (1, 0, 2), (0.1, 0, 1.0), 1.5)
    return w, base


def _run(w, base, frames):
    for _ in range(frames):
        t = w.time + FRAME
        w.set_kinematic_target(base, (0.3 * math.sin(t), 0, 2), (1, 0, 0, 0))
        w.step(FRAME)
    return w.save_state()


def _same(s1, s2):
    """Bit-identical, through nested dicts, tuples and arrays (NaN equals NaN)."""
    if isinstance(s1, dict):
        return isinstance(s2, dict) and s1.keys() == s2.keys() and \
            all(_same(s1[k], s2[k]) for k in s1)
    if isinstance(s1, (tuple, list)):
        return type(s1) is type(s2) and len(s1) == len(s2) and \
            all(_same(a, b) for a, b in zip(s1, s2))
    if isinstance(s1, np.ndarray):
        return isinstance(s2, np.ndarray) and s1.dtype == s2.dtype and s1.shape == s2.shape \
            and s1.tobytes() == s2.tobytes()
    return s1 == s2


def test_same_inputs_give_bit_identical_results():
    w1, b1 = _scene()
    w2, b2 = _scene()
    s1 = _run(w1, b1, 60)
    s2 = _run(w2, b2, 60)
    assert not np.array_equal(s1["bodies"], _scene()[0].save_state()["bodies"])
    assert _same(s1, s2)


def test_load_state_replays_bit_identically():
    w, base = _scene()
    _run(w, base, 30)
    saved = w.save_state()
    first = _run(w, base, 30)
    w.load_state(saved)
    again = _run(w, base, 30)
    assert _same(first, again)
    # ...also in a fresh world built the same way.
    fresh, fresh_base = _scene()
    fresh.load_state(saved)
    assert _same(first, _run(fresh, fresh_base, 30))


def test_every_table_the_step_changes_is_in_the_snapshot():
    """A table `step` writes is either kept by save_state or recomputed before it is read
    (world._Table's `state`): a new table forgotten by the snapshot fails here, instead of
    breaking replay silently. Stepped: every shape and joint kind, a drive, a kinematic
    target and contacts, long enough for something to fall asleep; and the replay of that
    world from a snapshot is bit-identical."""
    from solver.warmup import every_feature_world
    from solver.tables import DERIVED, SETTING
    w = every_feature_world()
    tables = w._tables()
    kinds = {t.state for t in tables.values()}
    assert len([k for k in kinds if k not in (SETTING, DERIVED)]) == \
        len([t for t in tables.values() if t.state not in (SETTING, DERIVED)]), \
        "two tables share a snapshot key"
    changed = set()
    for _ in range(90):
        before = {name: t.view.copy() for name, t in tables.items()}
        w.step(FRAME)
        changed |= {name for name, t in tables.items()
                    if before[name].tobytes() != t.view.tobytes()}
    assert {"_bs", "_jacc", "_btimer"} <= changed, "the scene did not move"
    forgotten = [name for name in changed if tables[name].state == SETTING]
    assert not forgotten, f"step changed {forgotten}, which save_state leaves out"
    saved = w.save_state()
    first = [w.step(FRAME) or w.save_state() for _ in range(20)]
    w.load_state(saved)
    assert _same(first, [w.step(FRAME) or w.save_state() for _ in range(20)])
