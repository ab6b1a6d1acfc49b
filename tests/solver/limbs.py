"""A limb for the solver tests: bars along x joined alternately by ball sockets, limited
hinges and ragdoll joints, the joints a ragdoll's arm or leg is made of."""

import math

import solver as lg
from probes import Anchor


def limb_chain(w, links=6, bars="capsule"):
    """`links` bars ("capsule" or "box", 4 cm thick, 32 cm apart, 0.3 m up, each 1 kg
    heavier than the one before) lying along x; returns the bodies and, per joint, the
    pair of anchors it holds together (each carried by its own body)."""
    radius, half = 0.04, 0.12
    step = 2 * (radius + half)
    shape = lg.Capsule(radius, half) if bars == "capsule" else lg.Box((radius, radius, half + radius))
    bodies = [w.add_body(shape, (k * step, 0, 0.3),
                         (math.cos(math.pi / 4), 0, math.sin(math.pi / 4), 0), mass=1.0 + k)
              for k in range(links)]
    ends = []
    for k in range(links - 1):
        a, b = bodies[k], bodies[k + 1]
        anchor = ((k + 0.5) * step, 0, 0.3)
        if k % 3 == 0:
            w.add_ball_socket(a, b, anchor)
        elif k % 3 == 1:
            w.add_hinge(a, b, anchor, (0, 1, 0), lower=-0.6, upper=0.6)
        else:
            w.add_ragdoll(a, b, anchor, (1, 0, 0), swing1=0.5, swing2=0.3, twist_lower=-0.2,
                          twist_upper=0.2)
        ends.append((Anchor(w, a, anchor), Anchor(w, b, anchor)))
    return bodies, ends
