"""The same scenes under two numba versions, side by side: each environment in its own process.

    python bench/numba_versions.py ENV_A ENV_B                  # pyramid 20 + 20 ragdolls
    python bench/numba_versions.py /envs/nb065 /envs/nb068 --frames 300 --repeats 5
    python bench/numba_versions.py ENV_A ENV_B --threads 2 --scenes ragdolls

ENV_A and ENV_B are Python environments with numpy and numba installed: a virtual
environment's folder or a Python executable. Each run starts a child process in each
environment (A, B, A, B ... for --repeats), and the child runs bench/defaults.py's Ligament at
`World()` defaults (sleeping off) on bench/scenes.py's scenes, from this checkout's solver.
Figures per scene and environment: the median over the repeats of each run's median wall
ms/frame (after 10 warm-up frames), and B/A. `same` says whether the two environments ended
every scene with the same body positions (the largest difference, m).

Each environment keeps its kernels in its own cache folder (two numba versions writing one
folder would each take the other's kernels for stale and compile again):
$LIGAMENT_KERNEL_CACHE/<label> when that is set, else <temp>/ligament-kernels/<label>, the
label naming the interpreter. The first run in an environment compiles the solver there
(one to two minutes on two cores), outside the measured frames. Prints, asserts nothing.
"""

import argparse
import hashlib
import json
import os
import statistics
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

CHILD = r"""
import json, sys
sys.path[:0] = [{root!r}, {here!r}]
import numpy as np
import llvmlite, numba
from llvmlite import binding
import defaults as D

class Args:
    frames, world, thread_count = {frames}, {{}}, {threads}

out = {{"numba": numba.__version__, "llvmlite": llvmlite.__version__,
        "llvm": ".".join(map(str, binding.llvm_version_info)), "scenes": {{}}}}
for name in {scenes!r}:
    scene = D.SCENES[name]()
    eng = D.LigamentDefaults(scene, Args)
    ms = D.run(lambda scene, args: eng, scene, Args)[0]   # untimed warm-up frames first
    np.save({positions!r} + name + ".npy", eng.poses()[0])
    out["scenes"][name] = {{"label": scene.name, "ms": ms}}
print("RESULT " + json.dumps(out))
"""


def interpreter(env):
    """The Python executable of an environment given as a folder or an executable."""
    if os.path.isfile(env):
        return env
    for sub in ("bin/python", "Scripts/python.exe"):
        path = os.path.join(env, sub)
        if os.path.isfile(path):
            return path
    sys.exit(f"no Python found in {env!r} (give a virtual environment's folder or a Python "
             f"executable)")


def cache_for(python):
    label = os.path.basename(os.path.dirname(os.path.dirname(os.path.abspath(python))))
    label += "-" + hashlib.sha1(os.path.abspath(python).encode()).hexdigest()[:8]
    root = os.environ.get("LIGAMENT_KERNEL_CACHE") or \
        os.path.join(tempfile.gettempdir(), "ligament-kernels")
    return os.path.join(root, label)


def run_child(python, args, positions):
    code = CHILD.format(root=ROOT, here=HERE, frames=args.frames, threads=args.threads,
                        scenes=args.scenes.split(","), positions=positions)
    env = dict(os.environ, LIGAMENT_KERNEL_CACHE=cache_for(python))
    done = subprocess.run([python, "-c", code], env=env, capture_output=True, text=True,
                          cwd=ROOT)
    for line in done.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[len("RESULT "):])
    sys.exit(f"{python} failed:\n{done.stdout}\n{done.stderr}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("env_a")
    ap.add_argument("env_b")
    ap.add_argument("--frames", type=int, default=200)
    ap.add_argument("--threads", type=int, default=1, help="Ligament's World(threads=)")
    ap.add_argument("--scenes", default="pyramid20,ragdolls",
                    help="bench/defaults.py's scene names")
    ap.add_argument("--repeats", type=int, default=3, help="child processes per environment")
    args = ap.parse_args()
    pythons = [interpreter(args.env_a), interpreter(args.env_b)]
    names = args.scenes.split(",")
    ms = {(e, n): [] for e in range(2) for n in names}
    info = [None, None]
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(args.repeats):
            for e, python in enumerate(pythons):
                out = run_child(python, args, os.path.join(tmp, f"{e}-"))
                info[e] = out
                for n in names:
                    ms[e, n].append(out["scenes"][n]["ms"])
                print(f"run {r + 1}/{args.repeats} {'AB'[e]}: " +
                      ", ".join(f"{n} {out['scenes'][n]['ms']:.2f}" for n in names),
                      file=sys.stderr, flush=True)
        gaps = {n: float(np.max(np.abs(np.load(os.path.join(tmp, f"0-{n}.npy")) -
                                       np.load(os.path.join(tmp, f"1-{n}.npy")))))
                for n in names}
    print(f"60 Hz, {args.frames} frames, Ligament World() defaults, {args.threads} thread(s), "
          f"median of {args.repeats} processes each")
    for e, python in enumerate(pythons):
        i = info[e]
        print(f"{'AB'[e]}: {python}  numba {i['numba']}, llvmlite {i['llvmlite']}, "
              f"LLVM {i['llvm']}")
    a, b = (f"{'AB'[e]} numba {info[e]['numba']}" for e in range(2))
    print(f"{'scene':26s} {a:>18s} {b:>18s} {'B/A':>7s}  same (max position gap m)")
    for n in names:
        ma, mb = (statistics.median(ms[e, n]) for e in range(2))
        same = "yes" if gaps[n] == 0.0 else f"no ({gaps[n]:.2g})"
        print(f"{info[0]['scenes'][n]['label']:26s} {ma:18.2f} {mb:18.2f} "
              f"{mb / ma:6.2f}x  {same}")


if __name__ == "__main__":
    main()
