"""Colliders: the convex pieces the collision stage pairs up, one or more per body.

A body of any shape but Compound is one collider, of the same index as the body when no
compound comes before it; a Compound body is one collider per part. The broadphase and the
narrowphase work on colliders; a manifold is stored against the two bodies (whose frames
hold its anchors and whose rows the solver fills) and keyed for warm starting by its two
colliders, so each part keeps its own contacts from frame to frame.

Tables (built in numpy when bodies are added, `collider_tables`):
    ckind (nc,)    shape kind of each collider
    cparam (nc,4)  its params (collision/geometry.py)
    G              geometry tables over the colliders' shapes (collision/geometry.py)
    cbody (nc,)    the body it belongs to
    corig (nc,8)   its origin in the body's frame, from the centre of mass (0:3), its
                   rotation in the body's frame (3:7), 1 for a compound's part (7)

Per frame `collider_states` poses them: cs (nc, 13) has the columns of the bodies' state
(bodies.py) with the collider's origin and rotation in the world, and the velocity of its
origin. A body that is not a compound has its own rotation and its centre of mass's
velocity there, exactly as its shape was posed before compounds existed.
"""

import numpy as np

from ..bodies import POS, ROT, SPIN, STATE_WIDTH, VEL
from ..jit import helper
from ..mathx import add, cross, qmul, qrotate, quat_at, store3, store4, vec3_at
from ..shapes import COMPOUND
from .geometry import geometry_tables

CORIG_WIDTH = 8


def collider_tables(shapes, body_origins):
    """(ckind, cparam, G, cbody, corig) for bodies of these shapes whose shape origins sit at
    `body_origins` (n, 3) in their frames (from the centre of mass)."""
    pieces, cbody, corig = [], [], []
    for b, shape in enumerate(shapes):
        origin = np.asarray(body_origins[b], dtype=np.float64)
        if shape.kind == COMPOUND:
            for part, position, orientation in shape.parts:
                pieces.append(part)
                cbody.append(b)
                corig.append((*(origin + position), *orientation, 1.0))
        else:
            pieces.append(shape)
            cbody.append(b)
            corig.append((*origin, 1.0, 0.0, 0.0, 0.0, 0.0))
    kinds, params, G = geometry_tables(pieces)
    return (kinds, params, G, np.array(cbody, dtype=np.int64),
            np.array(corig, dtype=np.float64).reshape(-1, CORIG_WIDTH))


@helper
def collider_states(bs, cbody, corig, cs):
    """cs[c]: collider c's world origin and rotation and its origin's velocity (see above)."""
    for c in range(cbody.shape[0]):
        b = cbody[c]
        q = quat_at(bs, b, ROT)
        o = qrotate(q, (corig[c, 0], corig[c, 1], corig[c, 2]))
        store3(cs, c, POS, add(vec3_at(bs, b, POS), o))
        v = vec3_at(bs, b, VEL)
        w = vec3_at(bs, b, SPIN)
        if corig[c, 7] != 0.0:
            q = qmul(q, (corig[c, 3], corig[c, 4], corig[c, 5], corig[c, 6]))
            v = add(v, cross(w, o))
        store4(cs, c, ROT, q)
        store3(cs, c, VEL, v)
        store3(cs, c, SPIN, w)


def new_states(count):
    return np.zeros((count, STATE_WIDTH))
