"""Custom constraints (World.add_custom) against the built-in joints they rewrite.

    .venv/bench/bin/python bench/custom.py          (from the repository root; ~1 minute)

* first use: a fresh process and an empty custom-constraint cache: sympy's import and
  derivation, numba's compile of the expression's function; then a second process with the
  same cache (loads it);
* per frame: a hanging chain of N links held by add_distance, then by the custom constraint
  "length(pA - pB) - L" (the same rows, filled through the compiled function), and the same
  world without any custom constraint (what the custom stage costs a world that has none).
Prints figures, asserts nothing.
"""

import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

FIRST = r"""
import sys, time
t0 = time.perf_counter()
sys.path.insert(0, {root!r})
import solver as lg
from solver import custom
w = lg.World()
a = w.add_body(lg.Sphere(0.1), (0, 0, 4), mass=1.0)
from solver import warmup
warmup.prepare()
w.step(1 / 60)
t1 = time.perf_counter()
w.add_custom([None, a, None], "length(pA - pB) + 0.5 * length(pB - pC) - 2",
             anchors=[(0, 0, 5), None, (1, 0, 5)])
t2 = time.perf_counter()
print(f"{{t2 - t1:.3f}} {{'sympy' in sys.modules}} {{custom.last_build}}")
"""


def first_use():
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, LIGAMENT_CUSTOM_CACHE=cache)
        for label in ("first use (derive + compile)", "second process (load)"):
            out = subprocess.run([sys.executable, "-c", FIRST.format(root=ROOT)], env=env,
                                 capture_output=True, text=True, check=True)
            seconds, sympy, build = out.stdout.strip().split(" ", 2)
            print(f"{label}: add_custom took {seconds} s, sympy imported: {sympy}, {build}")


def chain(n, kind):
    import numpy as np
    import solver as lg
    w = lg.World()
    prev, top = None, np.array([0.0, 0.0, 10.0])
    for i in range(n):
        b = w.add_body(lg.Sphere(0.05), top + (0.1 * (i + 1), 0, 0), mass=1.0)
        pa = top + (0.1 * i, 0, 0)
        pb = top + (0.1 * (i + 1), 0, 0)
        if kind == "distance":
            w.add_distance(prev, b, pa, pb)
        elif kind == "custom":
            w.add_custom([prev, b], "length(pA - pB) - 0.1", anchors=[pa, pb])
        else:
            w.add_ball_socket(prev, b, pa)
        prev = b
    w.sleeping = False
    return w


def per_frame(n=100, frames=300):
    for kind in ("ball_socket", "distance", "custom"):
        w = chain(n, kind)
        w.step(1 / 60)
        t = time.perf_counter()
        for _ in range(frames):
            w.step(1 / 60)
        ms = 1e3 * (time.perf_counter() - t) / frames
        print(f"chain of {n} links held by {kind}: {ms:.3f} ms a frame")


if __name__ == "__main__":
    from solver import warmup
    warmup.prepare()
    first_use()
    per_frame()
    per_frame(n=10, frames=1000)
