"""The first run's two processes compile disjoint sets of solver functions (solver/warmup.py,
`MAIN_PARTS`' order).

A helper that both processes need is compiled by whichever gets to it first and loaded from
the kernel cache by the other, unless both type it at once: with `custom_rows` first here,
this process and the worker's `_prepare_joints` compiled the row helpers they share
(row_jacobian, _store_pair, _inverse_inertia_times, dot, mat_vec) at the same moment
(2026-11-29, a cold `bench/startup.py` run recording both processes' compiles). This checks
a cold `prepare()` in a fresh copy of the sources: no solver function compiles in both.
"""

import json
import os
import shutil
import subprocess
import sys

import pytest

from solver import jit

_PREPARE = """
import importlib, json, os, sys
sys.path.insert(0, os.path.dirname(sys.argv[1]))
from numba.core import event
warmup = importlib.import_module("solver.warmup")
compiled, workers = [], []

class Listener(event.Listener):
    def on_start(self, ev):
        pass

    def on_end(self, ev):
        f = ev.data["dispatcher"].py_func
        if f.__module__.startswith("solver."):
            compiled.append(f.__module__[len("solver."):] + "." + f.__qualname__)

start = warmup._Worker.__init__

def keep(self, progress):
    start(self, progress)
    workers.append(self)
warmup._Worker.__init__ = keep
with event.install_listener("numba:compile", Listener()):
    warmup.prepare()
print(json.dumps({"here": compiled, "worker": [w.compiled for w in workers],
                  "ready": warmup.ready()}))
"""


@pytest.mark.release
def test_no_solver_function_compiles_in_both_processes(tmp_path):
    solver = tmp_path / "sources" / "solver"
    shutil.copytree(jit.SOLVER_DIR, solver,
                    ignore=shutil.ignore_patterns("_kernels", "__pycache__"))
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "PYTHONPATH")}
    env.update(LIGAMENT_KERNEL_CACHE=str(tmp_path / "cache"), LIGAMENT_COMPILE_WORKERS="1")
    proc = subprocess.run([sys.executable, "-c", _PREPARE, str(solver)], env=env,
                          capture_output=True, text=True, timeout=3600)
    assert proc.returncode == 0, proc.stderr[-4000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["ready"] and len(out["worker"]) == 1
    here, worker = set(out["here"]), set(out["worker"][0])
    assert "step.step_frame" in here and "step._prepare_joints" in worker
    assert not here & worker, f"compiled in both processes: {sorted(here & worker)}"
