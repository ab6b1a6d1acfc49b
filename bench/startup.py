"""What a new user waits for: the solver's cold compile, its warm start, and the installed
extension's first frame, with the compile seconds per kernel.

    .venv/py311/bin/python bench/startup.py --skip-blender        (from the repository root)
    .venv/py311/bin/python bench/startup.py --skip-blender --one-core
    .venv/py311/bin/python bench/startup.py --skip-headless --blenders 5.0.1,5.3.0

Each figure is a fresh process from its start to the end of its first simulated frame of
`solver.warmup.every_feature_world()` (every shape, every joint kind, a drive, contacts):
* cold: a copy of the solver's sources without solver/_kernels/ and an empty kernel cache
  (NUMBA_CACHE_DIR), so every kernel compiles, as a user's script gets it: it builds the
  world and calls `World.step`, whose first step prepares the kernels (warmup.prepare: a
  worker process compiles part of them meanwhile). Wall seconds, and CPU seconds of the
  process and of its worker (on a machine shared with other jobs the wall seconds are
  pessimistic; the CPU seconds are what the compile costs);
* warm: the same cache again (every kernel loads; the sources' bytecode, written by the
  cold run as Python does for a user, loads too);
* --one-core: cold again with LIGAMENT_COMPILE_WORKERS=0, and numba's compile events give
  the seconds per kernel (time in the kernel itself, not in the kernels it calls); with
  --passes also the CPU seconds per numba compiler pass (typing, rewrites, lowering ...); with
  --llvm also LLVM's CPU seconds per code library (numba links every callee's code into
  its caller's library and optimises and compiles it there again: docs/performance.md);
* installed: for each Blender of --blenders (default 5.0.1 and 5.3.0, one per Python line),
  the zip of its Python line built by tools/build_extension.py (kernels inside) installed
  into a fresh Blender user folder with Blender's own installer, in that Blender's environment
  (.venv/blender-VERSION: bpy and numpy only, so the zip's numba is the one imported), then a
  two-body scene's first simulated frame; then the same zip installed again over it (a
  reinstall or an upgrade that keeps the solver), and the first frame again. "compiled"
  counts numba cache misses.
Prints figures, asserts nothing.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

FRAME = r"""
import sys, time, json, collections, contextlib
t0 = time.perf_counter()
sys.path.insert(0, {root!r})
from numba.core import event
llvm = collections.defaultdict(lambda: [0.0, 0.0, 0.0])
if {llvm!r}:    # --llvm: LLVM's CPU seconds per code library (numba's internals, 0.65-0.68)
    from numba.core import codegen as cg
    def timed(cls, name, column):
        method = getattr(cls, name)
        def wrapper(self, *args):
            t = time.thread_time()
            try:
                return method(self, *args)
            finally:
                llvm[self.name][column] += time.thread_time() - t
        setattr(cls, name, wrapper)
    timed(cg.CPUCodeLibrary, "_optimize_functions", 0)
    timed(cg.CPUCodeLibrary, "_optimize_final_module", 1)
    timed(cg.JITCodeLibrary, "_finalize_specific", 2)
passes, running = collections.Counter(), []


class Passes(event.Listener):
    # --passes: each numba compiler pass's own CPU seconds (a pass typing a call compiles
    # the callee inside it: those seconds are the callee's passes')

    def on_start(self, ev):
        running.append([time.thread_time(), 0.0])

    def on_end(self, ev):
        start, inner = running.pop()
        seconds = time.thread_time() - start
        if running:
            running[-1][1] += seconds
        passes[ev.data["name"].split(" [")[0]] += seconds - inner


import solver
from solver.warmup import every_feature_world
t1 = time.perf_counter()
timing = event.install_listener("numba:run_pass", Passes()) if {passes!r} else \
    contextlib.nullcontext()
with event.install_recorder("numba:compile") as rec, timing:
    w = every_feature_world()
    w.step(1 / 60)                 # the first step prepares the kernels (World.step)
t2 = time.perf_counter()
stack, own = [], collections.Counter()
for ts, ev in rec.buffer:
    d = ev.data["dispatcher"].py_func
    name = d.__module__ + "." + d.__qualname__
    if ev.is_start:
        stack.append([name, ts, 0.0])
    else:
        name, start, inner = stack.pop()
        own[name] += ts - start - inner
        if stack:
            stack[-1][2] += ts - start
import resource
cpu = [r.ru_utime + r.ru_stime for r in (resource.getrusage(resource.RUSAGE_SELF),
                                         resource.getrusage(resource.RUSAGE_CHILDREN))]
print(json.dumps({{"import": t1 - t0, "frame": t2 - t1, "total": t2 - t0, "cpu": cpu,
                  "end": time.time(),
                  "compiles": sum(1 for _, ev in rec.buffer if ev.is_start),
                  "kernels": own.most_common(), "passes": passes.most_common(),
                  "llvm": sorted(llvm.items(), key=lambda kv: -sum(kv[1]))}}))
"""

BLENDER = r"""
import sys, time, json
t0 = time.perf_counter()
import bpy
r = bpy.ops.extensions.package_install_files(filepath={zip!r}, repo='user_default',
                                              enable_on_install=True)
assert r == {{'FINISHED'}}, r
t1 = time.perf_counter()
lig = sys.modules["bl_ext.user_default.ligament"]
for o in list(bpy.data.objects):
    bpy.data.objects.remove(o)
scene = bpy.context.scene
bpy.ops.mesh.primitive_cube_add(size=1, location=(0, 0, 2))
bpy.context.active_object.ligament_body.enabled = True
bpy.ops.mesh.primitive_cube_add(size=1, location=(0, 0, -0.5))
ground = bpy.context.active_object
ground.scale = (5, 5, 1)
ground.ligament_body.enabled = True
ground.ligament_body.kind = 'STATIC'
t2 = time.perf_counter()     # the start frame builds the world (its kernels load there)
scene.frame_set(1)
scene.frame_set(2)           # and the first simulated frame
t3 = time.perf_counter()
from numba.core.dispatcher import Dispatcher
name = lig.addon.kernels.MODULE_NAME
misses = sum(sum(v.stats.cache_misses.values()) for m, mod in list(sys.modules.items())
             if m.startswith(name) for v in vars(mod).values() if isinstance(v, Dispatcher))
print("RESULT" + json.dumps({{"install": t1 - t0, "frame": t3 - t2, "total": t3 - t0,
                             "compiled": misses}}))
"""


def fresh_copy(tmp):
    """The solver's sources alone, as a fresh clone has them (no solver/_kernels/, which
    would seed any new cache folder: jit.py)."""
    root = os.path.join(tmp, "clone")
    shutil.copytree(os.path.join(ROOT, "solver"), os.path.join(root, "solver"),
                    ignore=shutil.ignore_patterns("_kernels", "__pycache__"))
    return root


def run_frame(root, cache, workers=None, llvm=False, passes=False):
    env = dict(os.environ, NUMBA_CACHE_DIR=cache)
    # PYTHONDONTWRITEBYTECODE (set on some build machines): Python as a user runs it writes
    # the sources' bytecode on the first run; compiling the solver's 60 modules from source
    # again on every start costs a third of a second.
    for k in ("LIGAMENT_KERNEL_CACHE", "LIGAMENT_COMPILE_WORKERS", "PYTHONDONTWRITEBYTECODE"):
        env.pop(k, None)
    if workers is not None:
        env["LIGAMENT_COMPILE_WORKERS"] = str(workers)
    start = time.time()
    code = FRAME.format(root=root, llvm=llvm, passes=passes)
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True).stdout
    r = json.loads(out.splitlines()[-1])
    r["process"] = r["end"] - start      # from the process's start to its first frame's end
    return r


def blender_python(version):
    return os.path.join(ROOT, ".venv", f"blender-{version}", "bin", "python")


def run_blender(python, zip_path, home):
    env = dict(os.environ, BLENDER_USER_RESOURCES=home)
    for k in ("NUMBA_CACHE_DIR", "LIGAMENT_KERNEL_CACHE", "PYTHONDONTWRITEBYTECODE",
              "PYTHONPATH"):
        env.pop(k, None)
    t0 = time.perf_counter()
    proc = subprocess.run([python, "-c", BLENDER.format(zip=zip_path)], env=env,
                          capture_output=True, text=True, cwd=home)
    lines = [l for l in proc.stdout.splitlines() if l.startswith("RESULT")]
    if proc.returncode or not lines:
        raise SystemExit(proc.stdout[-3000:] + proc.stderr[-3000:])
    r = json.loads(lines[-1][len("RESULT"):])
    r["process"] = time.perf_counter() - t0
    return r


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--skip-blender", action="store_true", help="only the headless figures")
    ap.add_argument("--skip-headless", action="store_true",
                    help="only the installed extension's figures")
    ap.add_argument("--one-core", action="store_true",
                    help="also the cold compile on one core, with the seconds per kernel")
    ap.add_argument("--kernels", type=int, default=15, help="slowest kernels to list")
    ap.add_argument("--llvm", action="store_true",
                    help="with --one-core: LLVM's CPU seconds per code library (function "
                         "passes, module passes over the library and every callee linked "
                         "into it, machine code)")
    ap.add_argument("--passes", action="store_true",
                    help="with --one-core: CPU seconds per numba compiler pass (its own: "
                         "the callees it compiles while typing a call left out)")
    ap.add_argument("--blenders", default="5.0.1,5.3.0",
                    help="Blender versions to install the zip into (bash tools/setup.sh "
                         "blender-VERSION makes each)")
    args = ap.parse_args()
    print(f"Ligament start-up ({os.cpu_count()} cores)")
    with tempfile.TemporaryDirectory(prefix="ligament-startup-") as tmp:
        one = None
        if not args.skip_headless:
            cache = os.path.join(tmp, "numba")
            root = fresh_copy(tmp)
            print(time.strftime("%Y-%m-%d %H:%M %Z"), "load average %.1f %.1f %.1f" %
                  os.getloadavg())
            cold = run_frame(root, cache)
            warm = run_frame(root, cache)
            rows = [("cold (empty kernel cache)", cold), ("warm (same cache)", warm)]
            if args.one_core:
                one = run_frame(root, os.path.join(tmp, "numba-one-core"), workers=0,
                                llvm=args.llvm, passes=args.passes)
                rows.append(("cold, one core (no worker)", one))
            print(f"{'':36}{'import s':>10}{'1st frame s':>13}{'process s':>11}"
                  f"{'compiles':>10}{'cpu s':>8}{'worker cpu s':>14}")
            for name, r in rows:
                print(f"{name:36}{r['import']:10.2f}{r['frame']:13.2f}{r['process']:11.2f}"
                      f"{r['compiles']:10d}{r['cpu'][0]:8.1f}{r['cpu'][1]:14.1f}")
            print("(process s: wall seconds from the process's start to its first frame's end; "
                  "cpu s: this process's CPU seconds, worker cpu s: the compile worker's. On a "
                  "quiet machine the cold wall is about the larger of the two; on a loaded one "
                  "it is longer)")
        if not args.skip_blender:
            print(f"\n{'extension, fresh user folder':42}{'zip s':>7}{'MB':>6}{'install s':>10}"
                  f"{'1st frame s':>13}{'process s':>11}{'compiled':>10}")
            for version in args.blenders.split(","):
                python = blender_python(version)
                if not os.path.exists(python):
                    print(f"Blender {version}: not set up (bash tools/setup.sh "
                          f"blender-{version})")
                    continue
                line = subprocess.run([python, "-c", "import sys; print('%d.%d' % "
                                       "sys.version_info[:2])"], capture_output=True,
                                      text=True, check=True).stdout.strip()
                dist = os.path.join(tmp, "dist-" + version)
                t0 = time.perf_counter()
                out = subprocess.run([sys.executable,
                                      os.path.join(ROOT, "tools", "build_extension.py"),
                                      "--output-dir", dist, "--platform", "linux-x64",
                                      "--python", line],
                                     capture_output=True, text=True, check=True).stdout
                build = time.perf_counter() - t0
                zip_path = out.strip().splitlines()[-1]
                home = os.path.join(tmp, "blender-" + version)
                os.makedirs(home)
                for name in ("fresh install", "reinstall of the same zip"):
                    r = run_blender(python, zip_path, home)
                    print(f"{'Blender ' + version + ', ' + name:42}{build:7.0f}"
                          f"{os.path.getsize(zip_path) / 2**20:6.1f}{r['install']:10.2f}"
                          f"{r['frame']:13.2f}{r['process']:11.2f}{r['compiled']:10d}")
        if one is not None:
            print("(compiles: this process's only; the worker compiles the rest)")
            print(f"\ncold compile on one core: seconds per kernel (its own time; "
                  f"{len(one['kernels'])} kernels, {one['compiles']} compiles)")
            for name, seconds in one["kernels"][:args.kernels]:
                print(f"  {seconds:6.2f}  {name}")
            if args.passes:
                total = sum(seconds for _, seconds in one["passes"])
                print(f"\nnumba's compiler passes, CPU seconds ({total:.1f} in all; the "
                      f"lowering pass holds LLVM's work on the library)")
                for name, seconds in one["passes"][:args.kernels]:
                    print(f"  {seconds:6.2f}  {name}")
            if args.llvm:
                totals = [sum(row[1][k] for row in one["llvm"]) for k in range(3)]
                print(f"\nLLVM's CPU seconds per code library ({len(one['llvm'])} libraries; "
                      f"function passes {totals[0]:.1f}, module passes {totals[1]:.1f}, "
                      f"machine code {totals[2]:.1f})")
                print(f"  {'function':>8}{'module':>8}{'machine':>8}  library")
                for name, (fun, mod, obj) in one["llvm"][:args.kernels]:
                    print(f"  {fun:8.2f}{mod:8.2f}{obj:8.2f}  {name}")


if __name__ == "__main__":
    main()
