"""solver/poses.py: the bodies' poses in bulk the Blender add-on writes every frame, against
the same poses computed one body at a time with rotation matrices (probes.qmat)."""

import numpy as np

from probes import qmat
from solver.poses import shape_origins, store_float32


def _random_quats(rng, n):
    q = rng.normal(size=(n, 4))
    return q / np.linalg.norm(q, axis=1)[:, None]


def test_shape_origins_are_the_centres_of_mass_minus_the_rotated_offsets():
    rng = np.random.default_rng(3)
    state = np.zeros((9, 13))
    state[:, 0:3] = rng.normal(size=(9, 3))
    state[:, 3:7] = _random_quats(rng, 9)
    ids = np.array([7, 2, 5, 0], dtype=np.int64)
    offsets = rng.normal(size=(4, 3))
    reference = state[ids, 3:7].copy()
    loc, q = shape_origins(state[:, 0:3], state[:, 3:7], ids, offsets, reference)
    for k, i in enumerate(ids):
        expected = state[i, 0:3] - qmat(state[i, 3:7]) @ offsets[k]
        assert np.allclose(loc[k], expected, rtol=0, atol=1e-14)
        assert np.array_equal(q[k], state[i, 3:7])


def test_shape_origins_keep_each_quaternion_on_its_references_side():
    rng = np.random.default_rng(4)
    state = np.zeros((6, 13))
    state[:, 3:7] = _random_quats(rng, 6)
    ids = np.arange(6, dtype=np.int64)
    offsets = rng.normal(size=(6, 3))
    flipped = np.array([True, False, True, False, False, True])
    # references a little off each orientation, on the other side for the flipped ones
    reference = state[:, 3:7] + 0.05 * rng.normal(size=(6, 4))
    reference[flipped] *= -1.0
    loc, q = shape_origins(state[:, 0:3], state[:, 3:7], ids, offsets, reference)
    assert np.array_equal(q[flipped], -state[flipped, 3:7])
    assert np.array_equal(q[~flipped], state[~flipped, 3:7])
    assert (np.einsum("ij,ij->i", q, reference) > 0).all()
    for k in range(6):    # the same rotation either way: the same origin
        assert np.allclose(loc[k], -qmat(state[k, 3:7]) @ offsets[k], rtol=0, atol=1e-14)


def test_store_float32_writes_rounded_poses_and_names_the_rows_that_changed():
    rng = np.random.default_rng(5)
    locations = rng.normal(size=(7, 3)).astype(np.float32)
    rotations = rng.normal(size=(7, 4)).astype(np.float32)
    rows = np.array([5, 1, 3], dtype=np.int64)
    loc = locations[rows].astype(np.float64)
    rot = rotations[rows].astype(np.float64)
    loc[1, 2] += 1e-3                  # the second body moved
    rot[2, 0] += 1e-12                 # the third by less than float32 holds: the same
    kept_loc, kept_rot = np.zeros((4, 3)), np.zeros((4, 4))
    kept_rows = np.array([3, 0, 2], dtype=np.int64)
    before = locations.copy(), rotations.copy()
    changed = store_float32(locations, rotations, rows, loc, rot, kept_loc, kept_rot,
                            kept_rows)
    assert changed.tolist() == [1]
    assert np.array_equal(locations[rows], loc.astype(np.float32))
    assert np.array_equal(rotations[rows], rot.astype(np.float32))
    others = np.setdiff1d(np.arange(7), rows)
    assert np.array_equal(locations[others], before[0][others])
    assert np.array_equal(rotations[others], before[1][others])
    assert np.array_equal(kept_loc[kept_rows], loc.astype(np.float32).astype(np.float64))
    assert np.array_equal(kept_rot[kept_rows], rot.astype(np.float32).astype(np.float64))
    assert not kept_loc[1].any() and not kept_rot[1].any()    # row 1 is none of theirs
    again = store_float32(locations, rotations, rows, loc, rot, kept_loc, kept_rot, kept_rows)
    assert len(again) == 0


def test_rows_out_of_range_raise_before_anything_is_written():
    locations, rotations = np.zeros((3, 3), np.float32), np.zeros((3, 4), np.float32)
    loc, rot = np.ones((2, 3)), np.ones((2, 4))
    kept_loc, kept_rot = np.zeros((2, 3)), np.zeros((2, 4))
    fine = np.array([0, 1], dtype=np.int64)
    for rows, kept in ((np.array([0, 3], dtype=np.int64), fine),
                       (np.array([0, -1], dtype=np.int64), fine),
                       (fine, np.array([1, 2], dtype=np.int64))):
        try:
            store_float32(locations, rotations, rows, loc, rot, kept_loc, kept_rot, kept)
        except IndexError:
            pass
        else:
            raise AssertionError(f"rows {rows}, kept rows {kept}: no IndexError")
        assert not locations.any() and not kept_loc.any()
    state = np.zeros((2, 13))
    try:
        shape_origins(state[:, 0:3], state[:, 3:7], np.array([0, 2], dtype=np.int64),
                      np.zeros((2, 3)), np.ones((2, 4)))
    except IndexError:
        pass
    else:
        raise AssertionError("body id 2 of 2 bodies: no IndexError")
