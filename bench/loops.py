"""Joints closing many loops: Ligament at `World()` defaults against Blender's Bullet, in one
process (issue 44, item 5).

    .venv/bench/bin/python bench/loops.py                          # the 30 x 30 joint grid
    .venv/bench/bin/python bench/loops.py --scenes grid10,grid20,slab10,truss10
    .venv/bench/bin/python bench/loops.py --engines ligament --scenes grid50

The scenes (tests/solver/loop_scenes.py builds the same ones for the tests):

* gridN: an N x N grid of 1 kg spheres (radius 0.4 m, 1 m apart) in a vertical plane, each
  joined to its right and lower neighbour by a ball socket at their midpoint, hung from its
  two top corners (ball sockets to a static body at their centres): Box3D's "joint grid".
* slabN: an N x N slab of 10 kg boxes (0.5 m apart, 2 % gaps) welded to their neighbours by
  fixed joints at their faces' midpoints, hung from its two top corners likewise; rigid welds
  leave it as built.
* truss10: a 10-bay Pratt truss (1 m bays, 1 m high) of 10 kg box beams welded at its nodes
  (the beams meeting at a node in a chain of fixed joints), its bottom end nodes welded to
  two static piers; rigid welds leave it as built.

Ligament runs `World(gravity, sleeping=False)` and nothing else (its defaults: 8 substeps, 1
iteration); Bullet runs Blender's rigid body world at 4 substeps and 10 iterations
(bench/contacts.py's adapter, fixed joints as FIXED constraints). Figures per engine over
--seconds (2 s): median wall ms/frame after 10 warm-up frames and its ratio to Bullet's, the
process's mean CPU ms/frame, the largest joint gap over every frame and at the end (the
distance between a joint's anchor carried by each of its two bodies as built, m), and the
sag (slab and truss: the drop of the bottom row's middle box or the bottom chord's middle
beam, m). Prints, asserts nothing. On a machine shared with other jobs the times are noise:
say so when quoting them.
"""

import argparse
import math
import os
import statistics
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
for _p in (ROOT, HERE):
    if _p not in sys.path:
        sys.path.insert(0, _p)

import contacts as C  # noqa: E402
import scenes as S  # noqa: E402

EYE = np.eye(3)


def _anchor_body(scene):
    """Body 0: a small static sphere well above the structure, the world its corners hang
    from (a joint to it is a joint to the world)."""
    scene.bodies.append(S.Body("sphere", (0.05,), np.array([0.0, 0.0, 50.0]), EYE, 0.0))


def _hung_lattice(name, n, spacing, shape, size, mass, weld):
    """An n x n lattice of bodies (`shape`, `size`, `mass`) `spacing` apart in the x-z plane,
    each joined to its right and lower neighbour at their midpoint (fixed joints if `weld`,
    else ball sockets), hung from its two top corners by ball sockets to the anchor body."""
    sc = S.Scene(f"{name}{n}", "loops")
    _anchor_body(sc)
    ids = np.empty((n, n), dtype=int)
    for i in range(n):
        for k in range(n):
            ids[i, k] = len(sc.bodies)
            sc.bodies.append(S.Body(shape, size, np.array([k * spacing, 0.0, -i * spacing]),
                                    EYE, mass))
    x = np.array([1.0, 0.0, 0.0])
    kind = "fixed" if weld else "ball"
    for i in range(n):
        for k in range(n):
            if k + 1 < n:
                sc.joints.append(S.Joint(kind, ids[i, k], ids[i, k + 1],
                                         np.array([(k + 0.5) * spacing, 0.0, -i * spacing]), x))
            if i + 1 < n:
                sc.joints.append(S.Joint(kind, ids[i, k], ids[i + 1, k],
                                         np.array([k * spacing, 0.0, -(i + 0.5) * spacing]), x))
    for k in (0, n - 1):
        sc.joints.append(S.Joint("ball", 0, ids[0, k], np.array([k * spacing, 0.0, 0.0]), x))
    return sc, ids


def grid(n, spacing=1.0, radius=0.4, mass=1.0):
    sc, _ = _hung_lattice("grid", n, spacing, "sphere", (radius,), mass, weld=False)
    sc.probe = None
    return sc


def slab(n, size=0.5, mass=10.0):
    half = 0.49 * size
    sc, ids = _hung_lattice("slab", n, size, "box", (half, half, half), mass, weld=True)
    sc.probe = ids[n - 1, n // 2]
    return sc


def truss(bays, bay=1.0, height=1.0, mass=10.0):
    sc = S.Scene(f"truss{bays}", "loops")
    for x in (0.0, bays * bay):
        sc.bodies.append(S.Body("box", (0.2, 0.2, 1.0), np.array([x, 0.0, -1.0]), EYE, 0.0))
    nodes = [(k * bay, 0.0) for k in range(bays + 1)] + [(k * bay, height) for k in range(bays + 1)]
    top = bays + 1
    members = [(k, k + 1) for k in range(bays)] + [(top + k, top + k + 1) for k in range(bays)]
    members += [(k, top + k) for k in range(bays + 1)]
    for k in range(bays):
        members.append((top + k, k + 1) if k < bays // 2 else (k, top + k + 1))
    at = [[] for _ in nodes]
    for a, b in members:
        pa, pb = np.array(nodes[a]), np.array(nodes[b])
        d = pb - pa
        length = float(np.linalg.norm(d))
        c, s = d / length
        rot = np.array([[c, 0.0, -s], [0.0, 1.0, 0.0], [s, 0.0, c]])   # +x along the beam
        mid = 0.5 * (pa + pb)
        at[a].append(len(sc.bodies))
        at[b].append(len(sc.bodies))
        sc.bodies.append(S.Body("box", (0.5 * length - 0.15, 0.04, 0.04),
                                np.array([mid[0], 0.0, mid[1]]), rot, mass))
    x = np.array([1.0, 0.0, 0.0])
    for node, (nx, nz) in enumerate(nodes):
        p = np.array([nx, 0.0, nz])
        for a, b in zip(at[node], at[node][1:]):
            sc.joints.append(S.Joint("fixed", a, b, p, x))
    sc.joints.append(S.Joint("fixed", 0, at[0][0], np.array([0.0, 0.0, 0.0]), x))
    sc.joints.append(S.Joint("fixed", 1, at[bays][0], np.array([bays * bay, 0.0, 0.0]), x))
    sc.probe = 2 + bays // 2           # the bottom chord's middle beam
    return sc


SCENES = {f"grid{n}": (lambda n=n: grid(n)) for n in (10, 20, 30, 50)}
SCENES.update({f"slab{n}": (lambda n=n: slab(n)) for n in (10, 20)})
SCENES["truss10"] = lambda: truss(10)


def populate(w, scene):
    """C.populate with fixed joints."""
    import solver as lg
    for i, b in enumerate(scene.bodies):
        shape = lg.Box(b.size) if b.shape == "box" else lg.Sphere(b.size[0])
        q = S.matrix_to_quat(b.rotation)
        kind = dict(mass=b.mass) if b.mass > 0 else dict(kind="static")
        assert w.add_body(shape, b.position, q, **kind) == i
    for j in scene.joints:
        (w.add_fixed if j.kind == "fixed" else w.add_ball_socket)(j.a, j.b, j.anchor)


class Ligament(C.Ligament):
    def __init__(self, scene, args):
        import solver as lg
        self.w = lg.World(gravity=C.GRAVITY, sleeping=False)
        populate(self.w, scene)


class OperatorBullet(C.BlenderBullet):
    """Blender's rigid body world, every constraint made by Blender's operator
    (`--bullet-setup operator`: the check that `Bullet`'s copies simulate the same)."""

    def _constraint(self, j):
        if j.kind != "fixed":
            super()._constraint(j)
            return self.bpy.context.view_layer.objects.active
        bpy = self.bpy
        e = bpy.data.objects.new("joint", None)
        self.scene.collection.objects.link(e)
        e.location = j.anchor
        bpy.context.view_layer.objects.active = e
        bpy.ops.rigidbody.constraint_add(type='FIXED')
        c = e.rigid_body_constraint
        c.object1, c.object2 = self.objs[j.a], self.objs[j.b]
        c.disable_collisions = True
        return e


class Bullet(OperatorBullet):
    """The same world, the first constraint of each kind made by the operator and the others
    copies of it (as bench/blender.py's `bullet_constraints`): the operator evaluates the
    scene before and after each call, so the 30 x 30 grid's 1 742 took about half an hour. A
    copy is the same constraint in the world's constraint collection, in the same order:
    grid10, slab10 and truss10 step to bit-identical poses either way."""

    def __init__(self, scene, args):
        self.made = {}
        super().__init__(scene, args)

    def _constraint(self, j):
        if j.kind not in self.made:
            self.made[j.kind] = super()._constraint(j)
            return self.made[j.kind]
        e = self.made[j.kind].copy()
        self.scene.collection.objects.link(e)
        rbw = self.scene.rigidbody_world
        if e.name not in rbw.constraints.objects:
            rbw.constraints.objects.link(e)
        e.location = j.anchor
        if j.kind != "fixed":
            e.rotation_quaternion = S.matrix_to_quat(S.frame(j.axis))
        c = e.rigid_body_constraint
        c.object1, c.object2 = self.objs[j.a], self.objs[j.b]
        return e


def run(engine, scene, args):
    eng = engine(scene, args)
    gauge = S.JointGauge(scene)
    worst, wall, cpu = 0.0, [], []
    for f in range(int(round(args.seconds * C.FPS))):
        t0, c0 = time.perf_counter(), time.process_time()
        eng.step()
        t1, c1 = time.perf_counter(), time.process_time()
        if f >= C.WARMUP:
            wall.append(t1 - t0)
            cpu.append(c1 - c0)
        pos, rot = eng.poses()
        gap = gauge.gap(pos, rot)
        worst = max(worst, gap)
    sag = scene.bodies[scene.probe].position[2] - pos[scene.probe, 2] \
        if scene.probe is not None else math.nan
    return 1000.0 * statistics.median(wall), 1000.0 * statistics.mean(cpu), worst, gap, sag


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--scenes", default="grid30")
    ap.add_argument("--engines", default="bullet,ligament")
    ap.add_argument("--seconds", type=float, default=2.0)
    ap.add_argument("--bullet-setup", choices=("copies", "operator"), default="copies",
                    help="Bullet's constraints as copies of one made by Blender's operator "
                         "(fast) or each by the operator (slow; the same simulation)")
    args = ap.parse_args()
    engines = args.engines.split(",")
    if "ligament" in engines:
        from solver import warmup
        warmup.prepare()      # compile (or load) every kernel before timing
    if "bullet" in engines and C.missing(C.BlenderBullet):
        print("skipping Bullet (Blender):", C.missing(C.BlenderBullet))
        engines.remove("bullet")
    print(f"60 Hz, {args.seconds} s, {os.cpu_count()} cores; Ligament World() defaults "
          f"(8 substeps, 1 iteration), Bullet 4 substeps / {C.BULLET_ITERATIONS} iterations")
    print(f"{'scene':10}{'engine':18}{'ms/frame':>10}{'vs Bullet':>11}{'cpu ms':>9}"
          f"{'max gap m':>12}{'end gap m':>12}{'sag m':>10}", flush=True)
    bullet = Bullet if args.bullet_setup == "copies" else OperatorBullet
    for name in args.scenes.split(","):
        base = None
        for label, engine in (("Bullet (Blender)", bullet), ("Ligament", Ligament)):
            if ("bullet" if engine is bullet else "ligament") not in engines:
                continue
            scene = SCENES[name]()
            ms, cpu_ms, worst, gap, sag = run(engine, scene, args)
            base = ms if engine is bullet else base
            ratio = f"{ms / base:.2f}" if base and engine is not bullet else "-"
            print(f"{name:10}{label:18}{ms:>10.2f}{ratio:>11}{cpu_ms:>9.2f}"
                  f"{worst:>12.2e}{gap:>12.2e}{sag:>10.2e}", flush=True)


if __name__ == "__main__":
    main()
