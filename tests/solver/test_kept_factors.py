"""An island's plan and factor kept from one frame to the next (issue 44 item 1,
direct.py `keep_islands`): a limb lying still stops refactoring, what it keeps changes its
result only within the reuse tolerance, a snapshot carries it (a replay is bit-identical),
and a joint changed between frames is planned and factored afresh."""

import numpy as np
import solver as lg
from limbs import limb_chain
from probes import FRAME, G, Anchor, note, separation

Z, Y = (0.0, 0.0, 1.0), (0.0, 1.0, 0.0)


def _limb(w):
    """Five box bars of a limb (limbs.py) lying on the ground."""
    w.add_body(lg.Box((8, 8, 0.5)), (0, 0, -0.5), kind="static")
    return limb_chain(w, links=5, bars="box")


def _state(w):
    return np.concatenate([w.positions.ravel(), w.orientations.ravel(),
                           w.linear_velocities.ravel(), w.angular_velocities.ravel()])


def _fresh(w, state):
    """The world put back to `state` as a snapshot without kept factors (one from before
    they were kept): its next frame plans and factors every island afresh."""
    w.load_state({k: v for k, v in state.items() if k != "kept_factors"})


def test_a_limb_lying_still_keeps_its_factor_across_frames():
    w = lg.World(gravity=(0, 0, -G), sleeping=False)
    bodies, ends = _limb(w)
    for f in range(180):
        w.step(FRAME)
    # the poses each body's island was last factored at (fpose) stay as they are while
    # the limb lies still: nothing refactors, frame after frame
    poses = w._kept[0][bodies].copy()
    rest = 0.0
    for f in range(60):
        w.step(FRAME)
        rest = max(rest, max(separation(a, b) for a, b in ends))
    speed = float(np.abs(w.linear_velocities[bodies]).max())
    note("limb at rest: largest joint gap over 1 s (m)", rest, "< 1e-7")
    assert speed < 0.01, f"the limb still moves at {speed:.4f} m/s"
    assert np.array_equal(w._kept[0][bodies], poses), "the limb was factored again at rest"
    assert rest < 1e-7, f"a joint opened {1e3 * rest:.6f} mm at rest"


def _swinging_chain(w):
    """A hub held on the world by a wheel joint (hanging on its suspension's lower stop,
    free to spin about its axle) and two links hanging from it by a ball socket and a
    hinge, swinging by about 1e-5 rad: every frame moves them, by less than the reuse
    tolerances, so the factor is kept over many frames. Returns the wheel joint and the
    anchor pairs."""
    hub = w.add_body(lg.Sphere(0.1), (0, 0, 2.0), mass=2.0)
    j = w.add_wheel(None, hub, (0, 0, 2.0), Z, Y, lower=-0.01, upper=0.01)
    a = w.add_body(lg.Box((0.03, 0.03, 0.2)), (0, 0, 1.8), mass=1.0)
    b = w.add_body(lg.Box((0.03, 0.03, 0.2)), (0, 0, 1.4), mass=3.0)
    w.add_ball_socket(hub, a, (0, 0, 2.0))
    w.add_hinge(a, b, (0, 0, 1.6), (1, 0, 0))
    w.apply_impulse(b, (2e-5, 3e-5, 0))
    return j, [(Anchor(w, hub, (0, 0, 2.0)), Anchor(w, a, (0, 0, 2.0))),
               (Anchor(w, a, (0, 0, 1.6)), Anchor(w, b, (0, 0, 1.6)))]


def test_the_kept_factor_moves_results_only_within_the_reuse_tolerance():
    # the same second of a chain swinging slightly from one snapshot, once with the factor
    # kept from the frame before it and once factored afresh: not the same bits (so the
    # kept factor was used), but the same motion to well within the joints' hold
    w = lg.World(gravity=(0, 0, -G), sleeping=False)
    j, ends = _swinging_chain(w)
    for f in range(120):
        w.step(FRAME)
    start = w.save_state()
    for f in range(60):
        w.step(FRAME)
    kept, gap_kept = w.positions.copy(), max(separation(a, b) for a, b in ends)
    _fresh(w, start)
    for f in range(60):
        w.step(FRAME)
    fresh, gap_fresh = w.positions.copy(), max(separation(a, b) for a, b in ends)
    moved = float(np.abs(kept - fresh).max())
    note("kept against fresh factors: largest position difference after 1 s (m)", moved,
         "< 1e-9")
    note("swinging chain: largest joint gap (m)", max(gap_kept, gap_fresh), "< 1e-7")
    assert not np.array_equal(kept, fresh), "no factor was kept across frames"
    assert moved < 1e-9, f"the kept factor moved the chain {1e3 * moved:.9f} mm"
    assert max(gap_kept, gap_fresh) < 1e-7


def test_a_replay_from_a_snapshot_keeps_the_same_factors():
    w = lg.World(gravity=(0, 0, -G), sleeping=False)
    bodies, ends = _limb(w)
    for f in range(150):
        w.step(FRAME)
    start = w.save_state()
    for f in range(30):
        w.step(FRAME)
    first = _state(w)
    w.load_state(start)
    for f in range(30):
        w.step(FRAME)
    assert np.array_equal(_state(w), first)


def test_steering_a_wheel_between_frames_factors_its_island_afresh():
    # the wheel joint's axle is part of K: steered, K changes before any body moves
    w = lg.World(gravity=(0, 0, -G), sleeping=False)
    j, ends = _swinging_chain(w)
    for f in range(120):
        w.step(FRAME)
    start = w.save_state()
    # steered between frames, the world that kept its factor runs as one that never kept
    # one: the steering made it forget
    w.set_steering(j, 0.3)
    for f in range(30):
        w.step(FRAME)
    steered = _state(w)
    _fresh(w, start)
    w.set_steering(j, 0.3)
    for f in range(30):
        w.step(FRAME)
    assert np.array_equal(_state(w), steered)
    # ... while unsteered the kept factor is what it runs on (so the check above would fail
    # if steering left it kept)
    w.load_state(start)
    for f in range(30):
        w.step(FRAME)
    kept = _state(w)
    _fresh(w, start)
    for f in range(30):
        w.step(FRAME)
    assert not np.array_equal(_state(w), kept), "the wheel's island kept no factor"
