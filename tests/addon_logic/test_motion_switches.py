"""Per-part contact rules (a part's keyed contact switches) in the physics check
(addon/motion/check.py), headless: Contact Distance and Speed per frame and sample."""

import numpy as np

from test_motion_check import DT, FLOOR, G, character, check, posed


def test_a_sample_whose_own_distance_is_larger_touches_where_the_armatures_would_not():
    # one body hovering 0.5 m above the floor, still, with two samples at its origin
    ch = character([10.0], [(0.1, 0.1, 0.1)], samples=[(0, (0, 0, 0)), (0, (0, 0, 0))])
    mats = posed([np.zeros(3)], [np.array([0, 0, 0.5])] * 6)
    frames = np.arange(6, dtype=float)
    one = check.Settings(gravity=G, dt=DT, contact_distance=0.02, contact_speed=0.3)
    touching, _ = check.contacts(ch, FLOOR, one, mats)
    assert not touching.any()
    # the second sample's own rule from frame 3: within 1 m
    distance = np.full((6, 2), 0.02)
    distance[3:, 1] = 1.0
    own = check.Settings(gravity=G, dt=DT, contact_distance=distance, contact_speed=0.3)
    touching, _ = check.contacts(ch, FLOOR, own, mats)
    assert touching[:, 0].tolist() == [False] * 6
    assert touching[:, 1].tolist() == [False] * 3 + [True] * 3
    report = check.check(ch, FLOOR, own, mats, frames)
    assert [(p.kind, p.first, p.last) for p in report.phases] == \
        [("FLIGHT", 0, 2), ("STANCE", 3, 5)]
    # a speed of 0 keeps a moving sample from touching even within its distance
    rising = posed([np.zeros(3)], [np.array([0, 0, 0.5 + 0.1 * i]) for i in range(6)])
    slow = check.Settings(gravity=G, dt=DT, contact_distance=distance,
                          contact_speed=np.zeros((6, 2)))
    assert not check.contacts(ch, FLOOR, slow, rising)[0].any()
