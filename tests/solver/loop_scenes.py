"""Structures whose joints close many loops (issue 44, item 5), built at `World()` defaults.

Each builder returns (world, pairs, probe): pairs of `probes.Anchor`s, one per joint, each
glued to its own body where the joint was made (a joint's gap is their distance), and probe
a body whose drop from where it was built measures the structure's sag (None: not measured).
bench/loops.py builds the same scenes for Bullet beside Ligament.
"""

import numpy as np

import solver as lg
from probes import G, Anchor, Separations


def joint_grid(n, spacing=1.0, radius=0.4, mass=1.0, **world):
    """An n x n grid of spheres in the x-z plane, each joined to its right and lower
    neighbour by a ball socket at their midpoint, hung from its two top corners (ball
    sockets to the world at their centres): Box3D's "joint grid"."""
    w = lg.World(gravity=(0, 0, -G), **world)
    ids = np.empty((n, n), dtype=int)
    for i in range(n):          # row i from the top
        for k in range(n):
            ids[i, k] = w.add_body(lg.Sphere(radius), (k * spacing, 0.0, -i * spacing),
                                   mass=mass)
    pairs = []

    def join(a, b, p):
        w.add_ball_socket(a, b, p)
        pairs.append((Anchor(w, a, p), Anchor(w, b, p)))

    for i in range(n):
        for k in range(n):
            if k + 1 < n:
                join(ids[i, k], ids[i, k + 1], ((k + 0.5) * spacing, 0.0, -i * spacing))
            if i + 1 < n:
                join(ids[i, k], ids[i + 1, k], (k * spacing, 0.0, -(i + 0.5) * spacing))
    for k in (0, n - 1):
        join(None, ids[0, k], (k * spacing, 0.0, 0.0))
    return w, pairs, None


def welded_slab(n, size=0.5, mass=10.0, hangers=None, break_force=None, **world):
    """An n x n slab of boxes (10 kg, `size` apart, a 2 % gap between faces) in the x-z
    plane, each welded to its right and lower neighbour at their faces' midpoint, hung by
    ball sockets to the world at the centres of the top row's boxes `hangers` (default: the
    two corners; the hangers' joints come last, breaking above `break_force`). Rigid welds
    leave it where it was built: the probe is the middle of the bottom row."""
    w = lg.World(gravity=(0, 0, -G), **world)
    half = 0.49 * size
    ids = np.empty((n, n), dtype=int)
    for i in range(n):
        for k in range(n):
            ids[i, k] = w.add_body(lg.Box((half, half, half)), (k * size, 0.0, -i * size),
                                   mass=mass)
    pairs = []

    def join(a, b, p, weld=True):
        if weld:
            w.add_fixed(a, b, p)
        else:
            w.add_ball_socket(a, b, p, break_force=break_force)
        pairs.append((Anchor(w, a, p), Anchor(w, b, p)))

    for i in range(n):
        for k in range(n):
            if k + 1 < n:
                join(ids[i, k], ids[i, k + 1], ((k + 0.5) * size, 0.0, -i * size))
            if i + 1 < n:
                join(ids[i, k], ids[i + 1, k], (k * size, 0.0, -(i + 0.5) * size))
    for k in (0, n - 1) if hangers is None else hangers:
        join(None, ids[0, k], (k * size, 0.0, 0.0), weld=False)
    return w, pairs, ids[n - 1, n // 2]


def truss_members(bays, bay=1.0, height=1.0):
    """A Pratt truss's nodes (bottom 0..bays, top bays+1..2 bays+1, in the x-z plane) and its
    members as node pairs: chords, verticals, and diagonals sloping down to the middle."""
    nodes = [(k * bay, 0.0) for k in range(bays + 1)] + \
        [(k * bay, height) for k in range(bays + 1)]
    top = bays + 1
    members = [(k, k + 1) for k in range(bays)] + [(top + k, top + k + 1) for k in range(bays)]
    members += [(k, top + k) for k in range(bays + 1)]
    for k in range(bays):
        members.append((top + k, k + 1) if k < bays // 2 else (k, top + k + 1))
    return nodes, members


def welded_truss(bays=10, bay=1.0, height=1.0, mass=10.0, pier_break_force=None, **world):
    """A `bays`-bay Pratt truss of box beams (10 kg each, 8 cm square, stopping 15 cm short
    of each node so beams meeting there do not touch) welded at every node (the beams
    meeting at a node in a chain of fixed joints), its two bottom end nodes welded to two
    static piers (those two welds last, breaking above `pier_break_force`). The probe is
    the bottom chord's middle beam."""
    w = lg.World(gravity=(0, 0, -G), **world)
    nodes, members = truss_members(bays, bay, height)
    pier = [w.add_body(lg.Box((0.2, 0.2, 1.0)), (x, 0.0, -1.0), kind="static")
            for x in (0.0, bays * bay)]
    beams = []
    at = [[] for _ in nodes]
    for a, b in members:
        pa, pb = np.array(nodes[a]), np.array(nodes[b])
        d = pb - pa
        length = float(np.linalg.norm(d))
        angle = np.arctan2(d[1], d[0])       # about -y turns +x toward +z
        q = (np.cos(angle / 2), 0.0, -np.sin(angle / 2), 0.0)
        mid = 0.5 * (pa + pb)
        body = w.add_body(lg.Box((0.5 * length - 0.15, 0.04, 0.04)),
                          (mid[0], 0.0, mid[1]), q, mass=mass)
        beams.append(body)
        at[a].append(body)
        at[b].append(body)
    pairs = []

    def weld(a, b, p, break_force=None):
        w.add_fixed(a, b, p, break_force=break_force)
        pairs.append((Anchor(w, a, p), Anchor(w, b, p)))

    for node, (x, z) in enumerate(nodes):
        p = (x, 0.0, z)
        for a, b in zip(at[node], at[node][1:]):
            weld(a, b, p)
    weld(pier[0], at[0][0], (nodes[0][0], 0.0, nodes[0][1]), pier_break_force)
    weld(pier[1], at[bays][0], (nodes[bays][0], 0.0, nodes[bays][1]), pier_break_force)
    return w, pairs, beams[bays // 2]


def run(built, seconds=2.0, frame=1.0 / 60.0):
    """Step `seconds`; returns (largest gap over every frame, gap at the end, probe's drop)."""
    w, pairs, probe = built
    z0 = None if probe is None else float(w.positions[probe, 2])
    separations = Separations(pairs)
    worst = 0.0
    gaps = np.zeros(1)
    for _ in range(int(round(seconds / frame))):
        w.step(frame)
        gaps = separations()
        worst = max(worst, float(gaps.max()))
    drop = 0.0 if probe is None else z0 - float(w.positions[probe, 2])
    return worst, float(gaps.max()), drop
