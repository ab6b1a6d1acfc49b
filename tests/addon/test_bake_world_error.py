"""Reduced keys of a ragdoll bound where the bones are, not only each bone's own channels: the
errors of the channels add up down a chain (spine, shoulder, arm, forearm, hand, fingers), so
the bake checks every bone's head and tail in world space, as Blender poses them, against the
bake with a key on every frame, and keys the bones above one that is off until none is.
The scenario: tests/addon/scenarios/bake_world_error.py."""

import numpy as np


def test_every_bone_of_a_reduced_ragdoll_bake_stays_within_the_location_tolerance(blender):
    out = blender.call("bake_world_error.reduced_ragdoll_bake_in_world_space")
    full, reduced = np.array(out["full"]), np.array(out["reduced"])
    # the ragdoll fell: the hands moved far, so the check is not of a still pose
    moved = np.linalg.norm(full[-1, :, :3] - full[0, :, :3], axis=1)
    assert moved.max() > 0.5
    err = np.maximum(np.linalg.norm(full[:, :, :3] - reduced[:, :, :3], axis=2),
                     np.linalg.norm(full[:, :, 3:] - reduced[:, :, 3:], axis=2))
    worst = err.max(axis=0)
    k = int(np.argmax(worst))
    print(f"worst bone {out['names'][k]}: {worst[k] * 1000:.3f} mm; keys {out['count']}")
    assert worst.max() <= 0.001 + 1e-6, \
        f"'{out['names'][k]}' is {worst[k] * 1000:.2f} mm off in world space"
    # still a reduction worth having
    assert out["count"][1] > 2 * out["count"][0]
