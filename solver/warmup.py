"""Compile (or load) every kernel a simulation uses, with progress, on two cores.

    python -m solver.warmup          (from the repository root) prints progress lines

`warm_up` steps a small world with every shape, every joint kind, a drive, a kinematic body
and contacts, and lets an island fall asleep and wake, so every kernel that `World` calls is
compiled (the first time, about a minute on one core) or loaded from the kernel cache
(jit.py). When it finishes it writes READY (named for the Python and the numba that compiled
the kernels) into the cache folder: the Blender extension ships
that folder for linux-x64, and checks READY to know that simulating will not compile.

`prepare` does the same in two processes when the machine has a second core: the kernels
fall into two trees that share almost nothing, the step (`step_frame`: joints, rows, the
exact island solve, contact solving) and the collision (`ContactState.collide`: narrow phase,
meshes, hulls, manifolds, and sleeping). The step's tree is the bigger one; its stages are
compiled to machine code of their own (step.py, colours.py, jit.py
`helper(separate=True)`), typed as
step_frame calls them (`_parts`): a worker process compiles `WORKER_PARTS` and then the
collision tree while this one compiles `MAIN_PARTS` and then step_frame, which loads the
stages from the cache and calls them by symbol. Both write the same kernel cache (numba
writes each file atomically; jit.py updates an index under a lock), then `warm_up` loads
both and compiles the few kernels left (waking, removing a joint), so a new user's first
frame costs about half the compile, not all of it.
`World.step` prepares on the first step of a process when the cache holds no complete set
(READY); the Blender extension prepares in a process of its own (addon/kernels.py) before
it steps. LIGAMENT_COMPILE_WORKERS=0 turns the worker off.
"""

import os
import subprocess
import sys
import threading
import time

import numpy as np
from numba import __version__ as numba_version
from numba import typeof
from numba.core import config as numba_config
from numba.core import event, types

from . import jit
from .pool import cores
from .colours import (colour_plan, impulses_stage, positions_stage, prepare_stage,
                      refresh_stage, restitution_stage, update_stage, warm_start_stage)
from .contacts import MF_WIDTH, MI_WIDTH, awake_first
from .poses import shape_origins, store_float32
from .direct import lean_islands, near_islands, plan_islands, scratch
from .sleep import wake_marked
from .step import (_prepare_joints, begin_substep, custom_rows, factor_stage, held_bodies,
                   keep_stage, plan_stage, project_stage, solve_pass, step_frame)
from .shapes import Box, Capsule, Compound, ConvexHull, Cylinder, Plane, Sphere, TriangleMesh
from .world import World

# One marker per Python line and numba version: numba's cache files carry the Python tag in
# their names (.py311.nbi beside .py313.nbi) and the numba version in their index, so one
# folder can hold complete sets for several, and each must know whether its own is complete.
READY = f"READY-py{sys.version_info[0]}{sys.version_info[1]}-numba-{numba_version}"


def ready():
    """Whether this process's kernel cache holds every kernel a simulation needs."""
    return os.path.exists(os.path.join(jit.CACHE_FOLDER, READY))


def every_feature_world():
    """A small world with every shape, every joint kind, drives (orientation and hinge
    angle), both spring modes, a kinematic target, contacts, a force field with noise and a
    force for its first step (the scene bench/startup.py times)."""
    w = World()
    w.add_body(Plane((0, 0, 1), 0.0), (0, 0, 0), kind="static")
    verts = np.array([[-5, -5, 0], [5, -5, 0], [5, 5, 0], [-5, 5, 0]], float) + (20, 0, 0)
    w.add_body(TriangleMesh(verts, np.array([[0, 1, 2], [0, 2, 3]])), (0, 0, 0), kind="static")
    a = w.add_body(Box((0.1, 0.1, 0.1)), (0, 0, 1))
    b = w.add_body(Capsule(0.05, 0.2), (0, 0, 0.5))
    c = w.add_body(Sphere(0.1), (0.5, 0, 0.5))
    w.add_body(Cylinder(0.1, 0.1), (1.0, 0, 0.09))
    hull = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)], float) * 0.1
    w.add_body(ConvexHull(hull), (20, 0, 0.1))
    w.add_body(ConvexHull(hull), (20, 0, 0.35))
    w.add_body(Box((0.2, 0.2, 0.2)), (1.0, 0, 0.3))
    w.add_body(Compound([(Box((0.1, 0.05, 0.05)), (0, 0, 0)), (Sphere(0.05), (0.15, 0, 0))]),
               (21, 0, 0.3))
    g = w.add_body(Sphere(0.1), (3, 0, 1), kind="kinematic")
    w.add_ball_socket(None, a, (0, 0, 1.1))
    hinge = w.add_hinge(a, b, (0, 0, 0.8), (0, 1, 0), lower=-1, upper=1, motor_speed=1,
                        max_motor_torque=1, spring_hz=1)
    w.set_drive(hinge, 0.5, 2.0, max_torque=10.0)
    w.add_prismatic(b, c, (0.5, 0, 0.5), (1, 0, 0), lower=-1, upper=1, motor_speed=1,
                    max_motor_force=1, spring_stiffness=100.0, spring_damper=1.0)
    w.add_fixed(a, c, (0.2, 0, 0.8), break_force=1e6)
    w.add_distance(a, c, (0, 0, 1), (0.5, 0, 0.5), min_length=0.1, max_length=1, spring_hz=1)
    w.add_rope(None, c, (1, 0, 1), (0.5, 0, 0.5), 2.0)
    j = w.add_ragdoll(a, b, (0, 0, 0.9), (0, 0, -1))
    w.set_drive(j, (1, 0, 0, 0), 2.0)
    w.add_angular_motor(a, b, (0, 0, 1), 1.0, 1.0, ratio=2.0)
    w.set_kinematic_target(g, (3, 0, 1.1))
    w.add_field("turbulence", strength=0.5, size=1.0, noise=0.5, seed=1, distance_max=50.0)
    w.apply_force(c, (0.0, 0.0, 1.0), point=(0.5, 0.05, 0.5))
    _mechanisms(w)
    return w


def _mechanisms(w):
    """Every mechanism joint, away from the bodies above."""
    g1 = w.add_body(Cylinder(0.1, 0.02), (10, 0, 2))
    g2 = w.add_body(Cylinder(0.05, 0.02), (10, 0.5, 2))
    rack = w.add_body(Box((0.3, 0.02, 0.02)), (10, 1, 2))
    h1 = w.add_hinge(None, g1, (10, 0, 2), (0, 0, 1), motor_speed=1, max_motor_torque=1)
    h2 = w.add_hinge(None, g2, (10, 0.5, 2), (0, 0, 1))
    w.add_gear(h1, h2, 2.0, lower=-1.0, upper=1.0)
    w.add_rack_and_pinion(h1, w.add_prismatic(None, rack, (10, 1, 2), (1, 0, 0)), 0.1)
    p1 = w.add_body(Sphere(0.1), (12, 0, 2))
    p2 = w.add_body(Sphere(0.1), (13, 0, 2))
    w.add_pulley(p1, p2, (12, 0, 2), (13, 0, 2), (12, 0, 3), (13, 0, 3), ratio=2.0, upper=3.5)
    w.add_line(None, p2, (13, 0, 2), (0, 0, 1), lower=-1, upper=1, motor_speed=1,
               max_motor_force=1, spring_hz=1)
    chassis = w.add_body(Box((0.5, 0.3, 0.1)), (15, 0, 1))
    wheel = w.add_body(Cylinder(0.2, 0.05), (15.5, 0.4, 0.8), orientation=(0.7071, -0.7071, 0, 0))
    j = w.add_wheel(chassis, wheel, (15.5, 0.4, 0.8), (0, 0, 1), (0, 1, 0), lower=-0.1, upper=0.1,
                    spring_hz=2, spring_damping=0.5, motor_speed=1, max_motor_torque=1)
    w.set_steering(j, 0.1)
    bead = w.add_body(Sphere(0.05), (18, 0, 2))
    arc = [(18 + 0.5 * k, 0, 2 - 0.1 * k * k) for k in range(4)]
    w.add_path(bead, (18, 0, 2), arc, align=True, friction=0.1)


def _expected():
    """How many kernels compile on their own (inlined helpers compile inside their callers)."""
    seen = set()
    for name, module in list(sys.modules.items()):
        if module is None or not name.startswith(__package__ + "."):
            continue
        for value in vars(module).values():
            if isinstance(value, jit._Kernel) and "inline" not in value.targetoptions:
                seen.add(id(value))
    return len(seen)


class _Progress(event.Listener):
    """Counts the solver's compiles in this process and the worker's, reporting percent."""

    def __init__(self, total, report):
        self.total, self.report, self.done, self.last = total, report, 0, -1
        self.lock = threading.Lock()

    def on_start(self, ev):
        pass

    def on_end(self, ev):
        if ev.data["dispatcher"].py_func.__module__.startswith(__package__ + "."):
            self.add()

    def add(self):
        with self.lock:
            self.done += 1
            percent = min(99, 100 * self.done // max(self.total, 1))
            if percent != self.last:
                self.last = percent
                self.report(percent)


def _compile_waking():
    """The kernels that run only when an island wakes, on empty tables of the same types."""
    none = np.zeros(0, dtype=np.int64)
    wake_marked(np.zeros(0, dtype=np.bool_), none, none, np.zeros(0))
    awake_first(np.zeros((0, MI_WIDTH), dtype=np.int64), np.zeros((0, MF_WIDTH)),
                np.zeros(0), 0, 0, none)


def warm_up(report=None, progress=None):
    """Compile or load every kernel; report(percent) is called as kernels compile. Returns
    the seconds it took. Writes READY into the kernel cache folder at the end."""
    t0 = time.perf_counter()
    listener = progress or _Progress(_expected(), report or (lambda percent: None))
    with event.install_listener("numba:compile", listener):
        w = every_feature_world()
        for _ in range(3):
            w.step(1 / 60)
        w.remove_joint(0)
        w.step(1 / 60)
        w.field_forces()
        _compile_waking()
        _compile_poses(w)
    try:
        with open(os.path.join(jit.CACHE_FOLDER, READY), "w") as f:
            f.write(jit.STAMP + "\n")
    except OSError as e:
        jit.unwritable(e)
    if report:
        report(100)
    return time.perf_counter() - t0


def _compile_poses(w):
    """poses.py's kernels, typed as the Blender add-on calls them (the World's position
    and orientation views, its float32 reads of objects' channels). A World of one body
    has views numba types as contiguous (a single row): that layout too."""
    one = np.zeros((1, w.positions.shape[1] + w.orientations.shape[1]))
    shape_origins(one[:, 0:3], one[:, 3:7], np.zeros(1, dtype=np.int64), np.zeros((1, 3)),
                  np.ones((1, 4)))
    ids = np.arange(2, 4, dtype=np.int64)
    loc, q = shape_origins(w.positions, w.orientations, ids, np.zeros((2, 3)),
                           np.ones((2, 4)))
    store_float32(np.zeros((4, 3), np.float32), np.zeros((4, 4), np.float32), ids, loc, q,
                  np.zeros((4, 3)), np.zeros((4, 4)), ids)


# --- two processes --------------------------------------------------------------------

WORKERS = "LIGAMENT_COMPILE_WORKERS"


def workers():
    """Compile workers beside this process: 1 when a second core is free to this process,
    0 on one core or when LIGAMENT_COMPILE_WORKERS=0."""
    asked = os.environ.get(WORKERS, "").strip()
    if asked:
        try:
            return min(1, max(0, int(asked)))
        except ValueError:
            raise ValueError(f"{WORKERS}={asked!r}: give 0 (no worker) or 1") from None
    return 1 if cores() >= 2 else 0


# The worker imports this solver under the same package name from the same folder (a
# kernel it compiles is linked into this process's step_frame from the cache) and reads and
# writes the same cache folder.
_WORKER = """
import importlib.util, sys
spec = importlib.util.spec_from_file_location({name!r}, {init!r},
                                              submodule_search_locations=[{folder!r}])
module = importlib.util.module_from_spec(spec)
sys.modules[{name!r}] = module
spec.loader.exec_module(module)
importlib.import_module({name!r} + ".warmup")._worker_main()
"""


class _Worker:
    """The second process, compiling the collision tree; each line it prints is a compile."""

    def __init__(self, progress):
        self.progress, self.lines, self.compiled = progress, [], []
        self.parts, self.ended, self.changed = set(), False, threading.Condition()
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p),
                   LIGAMENT_KERNEL_CACHE=os.path.dirname(jit.CACHE_FOLDER))
        if numba_config.CPU_NAME != jit.PORTABLE_CPU:
            env["LIGAMENT_CPU"] = "host"          # the same code generation as this process
        code = _WORKER.format(name=__package__, folder=jit.SOLVER_DIR,
                              init=os.path.join(jit.SOLVER_DIR, "__init__.py"))
        self.process = subprocess.Popen([sys.executable, "-c", code], env=env, text=True,
                                        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                        stderr=subprocess.STDOUT)
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        for line in self.process.stdout:
            if line.startswith("compiled "):
                self.progress.add()
                self.compiled.append(line.split()[1])
            elif line.startswith("part "):
                with self.changed:
                    self.parts.add(line.split()[1])
                    self.changed.notify_all()
            else:
                self.lines.append(line.rstrip())
        with self.changed:
            self.ended = True
            self.changed.notify_all()

    def wait_for_parts(self, names):
        """Until the worker has compiled (and cached) the step's parts `names`, or ended."""
        with self.changed:
            self.changed.wait_for(lambda: self.ended or self.parts.issuperset(names))

    def finish(self):
        """Wait for it; True when it compiled its tree (if not, warm_up compiles the rest)."""
        code = self.process.wait()
        self.reader.join(timeout=10.0)
        return code == 0

    def stop(self):
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()


def _compile_collision():
    """The worker's half: every kernel `ContactState.collide` and the sleeping passes call,
    and the islands' partition (run on a world of its own; everything but step_frame)."""
    w = every_feature_world()
    w._step_args(1 / 60, w._contacts.kernel_args())        # islands.partition
    w._wake_disturbed()
    w._fall_asleep(1 / 60, w._collide(1 / 60))
    w.field_forces()
    _compile_waking()


# step_frame's tree is most of the compile. Its big stages are compiled to machine code of
# their own and called by symbol (step.py, jit.py `helper(separate=True)`), so each is
# optimised and compiled once, wherever it compiles first: here they are typed as
# step_frame calls them (`_parts`) and shared between the processes (the worker's before
# its collision tree), and step_frame, compiled last, loads them from the cache. A part
# whose types here drifted from step_frame's call compiles twice, in the part and for
# step_frame: slower, never different (tests/solver/test_kernel_cache.py checks that each
# part's cache holds the one signature step_frame uses). The worker starts after this
# process has built the script's world (about 4 CPU s of its compile) and is the process
# that ends last: warm_start_stage (1.2 CPU s) is compiled here, not there.
WORKER_PARTS = ("_prepare_joints", "begin_substep")
MAIN_PARTS = ("custom_rows", "solve_pass", "project_stage", "factor_stage", "plan_stage",
              "keep_stage", "colour_plan", "prepare_stage", "refresh_stage", "update_stage",
              "warm_start_stage", "positions_stage", "impulses_stage", "restitution_stage")


def _returns(dispatcher, sig):
    """The return type of `dispatcher` compiled (or loaded) for argument types `sig`."""
    dispatcher.compile(sig)
    return dispatcher.overloads[sig].signature.return_type


def _parts(args):
    """{name: (dispatcher, argument types or a function giving them)} of step_frame's
    separate stages for step_frame's arguments `args` (a world's `_step_args`), typed as
    step_frame types its calls (keep in step with step.py). The functions compile the
    small helpers whose results a stage takes (the plans)."""
    (B, J, R, K, dt, substeps, world_substeps, stiffen, calm, iterations, relax_iterations,
     gravity, joint_hertz, joint_damping, C, X, G, E, colour) = args
    t = typeof
    f64, i64, boolean = types.float64, types.int64, types.boolean
    S = types.UniTuple(f64, 5)                  # soft coefficients, h, 1 / h
    body = types.Tuple((t(B[0]), t(B[1]), t(B[4])))
    rows = tuple(t(r) for r in R)

    def colours():
        # colour_plan's return type, written out: compiled for it, colour_plan would compile
        # in both processes (a stage of its own: machine code each time)
        return types.Tuple((i64[::1], i64[::1], t(colour)))

    def plan():
        return _returns(plan_islands, (t(R), t(G[1]), i64, i64, t(B[6]), t(C[0]), t(C[1]),
                                       t(G[3]), t(B[0]), f64, boolean))

    def solve():
        p = plan()
        W = _returns(scratch, (p,))
        held = _returns(held_bodies, (t(G[1]), t(J[0]), i64))
        return (p, i64[::1], W, t(R), t(J[2]), body, t(C), colours(), boolean, i64,
                boolean[::1], held, i64)

    def project():
        p = plan()
        return (p, t(R), t(B[0]), t(B[1]), _returns(scratch, (p,)), t(C),
                _returns(lean_islands, (p, t(J[0]))), f64,
                _returns(near_islands, (p, t(J[0]))), f64[::1])

    def begin():
        return (colours(), t(G[0]), t(B), t(J), t(G), t(E), t(X), S, t(R), t(gravity), f64,
                f64[::1], i64[::1], boolean, f64)
    return {"_prepare_joints": (_prepare_joints, (t(G[1]), t(J[0]), t(J[1]), t(J[4]), t(B[6]), S)
                                + rows + (t(B[0]), t(B[1]), t(B[4]))),
            "custom_rows": (custom_rows, (t(X), t(J[0]), t(J[1]), t(B[6]), S, t(R), body)),
            "begin_substep": (begin_substep, begin),
            "solve_pass": (solve_pass, solve),
            "plan_stage": (plan_stage, (t(R), t(G[1]), i64, i64, t(B[6]), t(C[0]), t(C[1]),
                                        t(G[3]), t(B[0]), f64, boolean)),
            "factor_stage": (factor_stage, lambda: (plan(), t(R), t(B[1]), t(B[0]), t(B[4]),
                                                    t(G[3][0]), f64, t(B[6]), f64[::1])),
            "project_stage": (project_stage, project),
            "keep_stage": (keep_stage, lambda: (plan(), t(R), t(B[6]), t(G[3]))),
            "colour_plan": (colour_plan, (t(C), t(G[0]), t(B[0]), t(B[6]), t(gravity),
                                          t(colour))),
            "prepare_stage": (prepare_stage, lambda: (colours(), t(C), S, body)),
            "refresh_stage": (refresh_stage, lambda: (colours(), t(C), S, body)),
            "update_stage": (update_stage, lambda: (colours(), t(C), body)),
            "warm_start_stage": (warm_start_stage, lambda: (colours(), t(C), body)),
            "positions_stage": (positions_stage, lambda: (colours(), t(G[0]), t(B[0]),
                                                          t(B[2]), t(B[3]), t(B[6]), f64)),
            "impulses_stage": (impulses_stage, lambda: (colours(), t(C))),
            "restitution_stage": (restitution_stage, lambda: (colours(), t(C), body))}


def _compile_parts(args, names, done=None):
    parts = _parts(args)
    for name in names:
        dispatcher, sig = parts[name]
        if callable(sig):
            sig = sig()
        dispatcher.compile(sig)
        if done:
            done(name)


def _one_batch_args(w):
    """step_frame's arguments for the world as one batch, without islands.partition (whose
    kernel the other process compiles): the batch's types are all `_parts` needs."""
    C = w._contacts.kernel_args()
    nb, nj, nm = w._bs.view.shape[0], w._jt.view.shape[0], C[0].shape[0]

    def ints(*values):
        return np.array(values, dtype=np.int64)
    batch = (np.arange(nb, dtype=np.int64), ints(0, nb), np.arange(nj, dtype=np.int64),
             ints(0, nj), ints(0, nm), np.zeros(nj, dtype=np.int64), ints(w.substeps),
             ints(0), ints(1), ints(0), np.zeros(1, dtype=np.bool_))
    w._partition = lambda *args: batch        # this world only, for this one call
    try:
        return w._step_args(1 / 60, C)
    finally:
        del w._partition


def _compile_step(worker=None):
    """This process's half: step_frame for a world's argument types (compiled, not run),
    its parts first (`MAIN_PARTS`; the worker's too when there is no worker)."""
    args = _one_batch_args(every_feature_world())
    _compile_parts(args, MAIN_PARTS if worker is not None else WORKER_PARTS + MAIN_PARTS)
    if worker is not None:
        worker.wait_for_parts(WORKER_PARTS)
    step_frame.compile(tuple(typeof(a) for a in args))


def _watch_parent():
    """The worker ends when the process that started it is gone (Esc, a closed Blender)."""
    parent = os.getppid()
    while True:
        time.sleep(0.5)
        if os.getppid() != parent:
            os._exit(1)


class _PrintCompiles(event.Listener):
    def on_start(self, ev):
        pass

    def on_end(self, ev):
        f = ev.data["dispatcher"].py_func
        if f.__module__.startswith(__package__ + "."):
            print("compiled", f.__module__[len(__package__) + 1:] + "." + f.__qualname__,
                  flush=True)


def _worker_main():
    threading.Thread(target=_watch_parent, daemon=True).start()
    print(f"worker {__package__} {jit.CACHE_FOLDER}", flush=True)
    with event.install_listener("numba:compile", _PrintCompiles()):
        _compile_parts(_one_batch_args(every_feature_world()), WORKER_PARTS,
                       lambda name: print("part", name, flush=True))
        _compile_collision()
    _end_now()


def _end_now():
    """The worker's end once its kernels are in the cache: without Python's teardown, which
    freed the compiler's modules and objects one by one, 1.6 CPU s that `prepare` waited
    for (the process's exit, not its work, was the last thing it waited for). numba wrote
    each cache file whole when it compiled; stdout is all there is to flush."""
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


def prepare(report=None):
    """Compile or load every kernel, the collision tree in a worker process when a second
    core is free (see the module docstring), then write READY. Returns the seconds it took;
    0 when the kernels were READY already."""
    if ready():
        return 0.0
    t0 = time.perf_counter()
    progress = _Progress(_expected(), report or (lambda percent: None))
    worker = None
    if workers() and jit.writable(jit.CACHE_FOLDER):  # it hands its kernels over in the cache
        try:
            worker = _Worker(progress)
        except OSError as e:                    # no Python to start: compile it all here
            print(f"Ligament: no compile worker ({e}); compiling on one core",
                  file=sys.stderr, flush=True)
    try:
        with event.install_listener("numba:compile", progress):
            _compile_step(worker)
        if worker is not None and not worker.finish():
            print("Ligament: the compile worker failed (compiling its kernels here):\n" +
                  "\n".join(worker.lines[-12:]), file=sys.stderr, flush=True)
        warm_up(report, progress)
    finally:
        if worker is not None:
            worker.stop()
    return time.perf_counter() - t0


def main():
    print(f"Ligament: preparing the solver's kernels in {jit.CACHE_FOLDER}", flush=True)
    seconds = prepare(lambda p: print(f"Ligament: preparing the solver: {p}%", flush=True))
    print(f"Ligament: solver ready ({seconds:.1f} s)", flush=True)


if __name__ == "__main__":
    main()
