"""The simulated pass on top of the physics fix (ligament.physics_simulate) on a metarig
ragdoll, measured on the bodies Blender evaluates from the baked action (the world off: the
bones play its keys). Scenarios: tests/addon/scenarios/physics_simulate.py."""

import numpy as np

from motion_reference import com as centre_of_mass, hull_distance

CONTACT = 0.01        # m: how far into the floor a body may sink (the solver's contact slop)
IMPACT = 0.025        # m: how far, for a frame, when it lands at 4 m/s (soft contacts)
SUPPORT = 0.06        # m: the physics check's Contact Distance (a metarig's heels touch)


def _points(bodies, shapes):
    """Per frame and body, the points that bound it: a box's 8 corners, a capsule's two end
    centres lowered by its radius along Z (its lowest points when they are lowest), in
    world space: (F, B, 8, 3)."""
    out = np.empty(bodies.shape[:2] + (8, 3))
    for j, s in enumerate(shapes):
        c = np.array(s["centre"])
        if s["kind"] == 'BOX':
            h = np.array(s["half"])
            local = np.array([(x, y, z) for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)]) * h
        else:
            local = np.array([(0, 0, -s["half_height"]), (0, 0, s["half_height"])] * 4)
        local = local + c
        world = np.einsum("fij,kj->fki", bodies[:, j, :3, :3], local) + bodies[:, j, None, :3, 3]
        if s["kind"] != 'BOX':
            world[..., 2] -= s["radius"]
        out[:, j] = world
    return out


def test_a_fixed_lean_simulated_with_the_balance_assist_ends_standing_and_without_it_falls(
        blender):
    out = blender.call("physics_simulate.lean", True)
    assert out["result"] == ["FINISHED"]
    masses, names = out["masses"], out["names"]
    fixed, sim = np.array(out["fixed"]), np.array(out["simulated"])
    points = _points(sim, out["shapes"])
    # the start is the keyed pose, whose toes the metarig sinks 1.6 cm into the floor; from
    # the first simulated frame on, no body is under it beyond the contact slop
    assert points[0, ..., 2].min() < -CONTACT
    assert points[1:, ..., 2].min() > -CONTACT
    # at the end it stands: the centre of mass over the support polygon as the physics
    # check has it (the feet's corners within its Contact Distance of the floor: a
    # metarig's foot box is tilted, its heel 5 cm above its toes), the pelvis as high as
    # the fixed action keeps it
    feet = [i for i, n in enumerate(names) if n.startswith("foot")]
    corners = points[-1, feet].reshape(-1, 3)
    assert corners[:, 2].min() < CONTACT                   # on the floor
    sole = corners[corners[:, 2] < SUPPORT]
    assert len(sole) >= 3
    com = centre_of_mass(sim, masses)
    assert hull_distance(com[-1, :2], sole[:, :2], decimals=9) == 0.0
    pelvis = names.index("pelvis")
    assert abs(sim[-1, pelvis, 2, 3] - fixed[-1, pelvis, 2, 3]) < 0.03
    # and still: the last 10 frames' centre of mass within 1 cm
    assert np.ptp(com[-10:], axis=0).max() < 0.01
    # the user's action is untouched; the fixed action too; the simulated one plays
    before, after = out["before"], out["after"]
    assert out["keyed_keys"] == out["keyed_keys_after"]
    assert after["keys"][before["fixed"]] == before["keys"][before["fixed"]]
    assert after["playing"] == after["simulated"] == before["keyed"] + "_PhysicsSim"
    assert after["keyed"] == before["keyed"] and after["fixed"] == before["fixed"]
    assert after["strength"] == before["strength"]        # the pass's strength was lent

    # the same pass without the assist falls: the pelvis ends near the floor
    out = blender.call("physics_simulate.lean", False)
    sim = np.array(out["simulated"])
    assert sim[-1, pelvis, 2, 3] < 0.6


def test_a_fixed_jump_simulated_flies_as_fixed_and_lands_on_its_feet(blender):
    out = blender.call("physics_simulate.jump", True)
    assert out["result"] == ["FINISHED"]
    assert [(p["kind"], p["first"], p["last"]) for p in out["phases"]] == \
        [("STANCE", 1, 10), ("FLIGHT", 11, 29), ("STANCE", 30, 40)]
    masses, names = out["masses"], out["names"]
    fixed, sim = np.array(out["fixed"]), np.array(out["simulated"])
    com_fixed, com = centre_of_mass(fixed, masses), centre_of_mass(sim, masses)
    # in flight (frames 11-29) the centre of mass within 8 cm of the fixed action's: the
    # take-off's launch gives the parabola's velocity, the rest is gravity (the launch's
    # step still touches the floor)
    flight = slice(10, 29)
    assert np.linalg.norm(com[flight] - com_fixed[flight], axis=1).max() < 0.08
    assert com[19, 2] - com[0, 2] > 0.7                    # it did jump (the apex 0.84 m up)
    points = _points(sim, out["shapes"])
    assert points[1:, ..., 2].min() > -IMPACT              # never through the floor
    feet = [i for i, n in enumerate(names) if n.startswith("foot")]
    lowest_foot = points[:, feet][..., 2].min(axis=(1, 2))
    assert lowest_foot[12:28].min() > 0.1                  # in the air
    assert lowest_foot[29:32].min() < CONTACT              # lands on its feet: frames 30-32
    others = [i for i in range(len(names)) if i not in feet]
    # nothing else touches the floor (a shin's ankle end stands 5 cm over it)
    assert points[29:32][:, others][..., 2].min() > 2 * CONTACT

    # and it stands at the end, the pelvis as high as the fixed action's
    pelvis = names.index("pelvis")
    assert abs(sim[-1, pelvis, 2, 3] - fixed[-1, pelvis, 2, 3]) < 0.03

    # without the assist the drives alone do not leave the floor
    out = blender.call("physics_simulate.jump", False)
    com = centre_of_mass(np.array(out["simulated"]), masses)
    assert com[:, 2].max() - com[0, 2] < 0.1


def test_a_cancelled_or_failed_pass_leaves_the_scene_as_it_was(blender):
    out = blender.call("physics_simulate.cancelled_and_failed")
    assert "run Physics Fix" in out["unfixed"]
    before = out["before"]
    cancelled = out["cancelled"]
    assert cancelled["states"] == ['RUNNING'] * 5 + ['CANCELLED']
    assert cancelled["updates"] == [[i, 40] for i in range(1, 6)]   # one frame per slice
    assert cancelled["ended"] == 1
    assert cancelled["after"] == before
    assert out["strength_during"] == 1.0                   # lent for the pass, then back
    failed = out["failed"]
    assert failed["state"] == 'FAILED' and "blew up at frame 6" in failed["error"]
    assert failed["updates"][-1] == [5, 40] and failed["ended"] == 1
    assert failed["after"] == before
    finished = out["finished"]
    assert finished["state"] == 'FINISHED' and finished["updates"] == [40, 40]
    assert finished["count"] == 40 and finished["ended"] == 1
    after = finished["after"]
    sim = before["keyed"] + "_PhysicsSim"
    assert after["actions"] == sorted(before["actions"] + [sim])
    assert {k: v for k, v in after["keys"].items() if k != sim} == before["keys"]
    assert after["baked"] and after["playing"] == sim
    # the one-click switch plays each of the three; Clear Bake gives the fixed one back
    assert out["plays"] == [before["keyed"], before["fixed"], sim, before["fixed"]]
    cleared = out["cleared"]
    assert not cleared["baked"] and cleared["simulated"] == sim     # kept for later
    refixed = out["refixed"]
    assert refixed["keyed"] == before["keyed"]
    assert refixed["keys"][before["keyed"]] == before["keys"][before["keyed"]]
    assert refixed["playing"] == refixed["fixed"] != sim
