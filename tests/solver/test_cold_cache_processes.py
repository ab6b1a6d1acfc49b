"""Processes that start cold together on one kernel cache (a render farm's batch jobs on a
node without kernels, pytest's workers, a script started beside Blender): every one must
finish with the bodies where a single process puts them, and leave a cache that a later
process loads whole. The kernel cache is numba's index and data files (solver/jit.py),
written by several processes at once, each of which also starts a compile worker
(solver/warmup.py)."""

import json
import os
import shutil
import signal
import subprocess
import sys
import time

import pytest

from compile_listener import LISTENER
from solver import jit

# numba's compiles of the solver's functions in a script (compile_listener.py)
_LISTENER = 'PACKAGE = "solver"\n' + LISTENER

# Imports the solver from a copy of the sources (without solver/_kernels, so nothing seeds
# the cache folder), simulates every feature (the first step prepares the kernels the cache
# lacks: a worker process and this one compile into the cache), and prints the solver
# kernels that compiled in this process, READY, and the bodies' state after every step.
_RUN = """
import importlib, json, os, sys
sys.path.insert(0, os.path.dirname(sys.argv[1]))
warmup = importlib.import_module("solver.warmup")
""" + _LISTENER + """
states = []

def keep(w):
    states.append([w.positions.tolist(), w.orientations.tolist(),
                   w.linear_velocities.tolist(), w.angular_velocities.tolist()])

with event.install_listener("numba:compile", Listener()):
    w = warmup.every_feature_world()
    for _ in range(3):
        w.step(1 / 60)
        keep(w)
    w.remove_joint(0)
    w.step(1 / 60)
    keep(w)
    w.field_forces()
    warmup._compile_waking()
print(json.dumps({"compiled": compiled, "ready": warmup.ready(), "states": states,
                  "cache": warmup.jit.CACHE_FOLDER}))
"""


def _sources(tmp_path):
    solver = tmp_path / "sources" / "solver"
    shutil.copytree(jit.SOLVER_DIR, solver,
                    ignore=shutil.ignore_patterns("_kernels", "__pycache__"))
    return solver


# The kernels a seeded cache (`_seeded`) lacks, so that the processes started on it compile
# only these. TOGETHER: two small kernels that the worker's collision tree and the waking
# compile, saved by several processes at once (their index entries). KILLED adds step_frame's
# separate stage keep_stage (compiled as a part before step_frame, saved under its symbol)
# and step_frame, which calls it by that symbol: the one cached caller of a separate stage a
# simulation runs, about 15 CPU s, a compile long enough to be killed in (the whole set is
# about 300). A stage's symbol carries numba's count of the functions its process compiled
# before it, so a step_frame cached by one process never loads beside a keep_stage another
# process compiled: `jit._load_stages` compiles it again (measured: each of three processes
# on a cache lacking keep_stage alone compiled step_frame too).
TOGETHER = ("sleep.wake_marked", "contacts.awake_first")
KILLED = TOGETHER + ("step.keep_stage", "step.step_frame")


def _seeded(cache, missing):
    """A kernel cache folder for these sources holding a copy of the complete set this
    session prepared (tests/solver/conftest.py) but READY and the files of `missing`."""
    from solver import warmup
    assert warmup.ready(), "the session's kernel set is not complete"
    prefixes = tuple(name + "-" for name in missing)
    left_out = []

    def leave_out(folder, names):
        out = [n for n in names if n.startswith(("READY",) + prefixes) or ".tmp." in n]
        left_out.extend(n for n in out if n.endswith(".nbi"))
        return out
    shutil.copytree(jit.CACHE_FOLDER, cache / jit.KEY, ignore=leave_out)
    assert {n.rpartition("-")[0] for n in left_out} == set(missing), left_out
    return cache


def _env(cache):
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "PYTHONPATH")}
    env["LIGAMENT_KERNEL_CACHE"] = str(cache)
    return env


def _nice():
    os.nice(10)                      # a stress of several cold compiles on a shared machine


def _start(solver, cache, extra=None):
    return subprocess.Popen([sys.executable, "-c", _RUN, str(solver)],
                            env=dict(_env(cache), **(extra or {})), text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            preexec_fn=_nice, start_new_session=True)


def _result(proc, timeout=3600):
    out, err = proc.communicate(timeout=timeout)
    assert proc.returncode == 0, f"exit {proc.returncode}\n{out[-2000:]}\n{err[-4000:]}"
    return json.loads(out.strip().splitlines()[-1])


K = 3


def _states():
    """The bodies' states after each step of `_RUN`'s simulation, in this process (whose
    kernels the session prepared, tests/solver/conftest.py)."""
    from solver import warmup
    w = warmup.every_feature_world()
    states = []
    for step in range(4):
        if step == 3:
            w.remove_joint(0)
        w.step(1 / 60)
        states.append([w.positions.tolist(), w.orientations.tolist(),
                       w.linear_velocities.tolist(), w.angular_velocities.tolist()])
    return states


@pytest.mark.release
def test_processes_started_cold_together_agree_and_leave_a_complete_cache(tmp_path):
    """K processes start at once on one kernel cache that lacks some kernels (`TOGETHER`),
    each (with its compile worker) compiling them into it: none crashes or raises, none
    compiles anything else, all end with the same body states, and a process started
    afterwards alone loads every kernel without compiling and moves the bodies exactly as
    they did."""
    solver = _sources(tmp_path)
    cache = _seeded(tmp_path / "cache", TOGETHER)
    runs = [_start(solver, cache) for _ in range(K)]
    cold = [_result(p) for p in runs]
    warm = _result(_start(solver, cache))
    assert warm["cache"] == str(cache / jit.KEY)
    assert all(c["ready"] for c in cold)
    assert all(set(c["compiled"]) <= set(TOGETHER) for c in cold), \
        [c["compiled"] for c in cold]
    names = os.listdir(cache / jit.KEY)        # compiled by the processes or their workers
    assert all(any(n.startswith(k + "-") and n.endswith(".nbi") for n in names)
               for k in TOGETHER), names
    assert warm["compiled"] == [], "kernels the cold processes left out of the cache"
    alone = _states()
    for run in cold + [warm]:
        assert run["states"] == alone
    leftovers = [p for p in os.listdir(cache / jit.KEY) if ".tmp." in p]
    assert leftovers == []


@pytest.mark.release
def test_a_process_killed_while_it_compiles_leaves_a_cache_the_next_one_uses(tmp_path):
    """A process (and its compile worker) killed part way through compiling the kernels
    the cache lacks (`KILLED`), once it saved keep_stage and while it compiles step_frame
    (SIGKILL: no clean-up of its own): the next process finishes the set and moves the
    bodies as a single process does, and the one after it compiles nothing."""
    solver = _sources(tmp_path)
    cache = _seeded(tmp_path / "cache", KILLED)
    first = _start(solver, cache)
    folder = cache / jit.KEY
    deadline = time.time() + 1800
    while first.poll() is None and time.time() < deadline:
        if any(n.startswith("step.keep_stage-") and n.endswith(".nbi")
               for n in os.listdir(folder)):
            break
        time.sleep(0.02)
    assert first.poll() is None, "it finished before it was killed"
    os.killpg(first.pid, signal.SIGKILL)           # it and its worker (one process group)
    first.communicate()
    names = os.listdir(folder)
    assert not any(n.startswith(("READY", "step.step_frame-")) for n in names), names
    after = _result(_start(solver, cache))
    assert "step.step_frame" in after["compiled"] and after["ready"]
    assert set(after["compiled"]) <= set(KILLED), after["compiled"]
    warm = _result(_start(solver, cache))
    assert warm["compiled"] == []
    alone = _states()
    assert after["states"] == alone and warm["states"] == alone


# Saves `count` entries of one function's cache file (jit._PortableCacheFile: numba's index
# and data files), keys of its own, then prints them. All of them start saving at one
# instant: each says it is ready (a file of its own in `gate`) once its imports are done and
# waits, asleep, for the file `go`, which holds that instant.
_SAVE = """
import json, os, sys, time
sys.path.insert(0, sys.argv[1])
from solver import jit
folder, base, me, gate = sys.argv[2:6]
count = int(sys.argv[6])
cache = jit._PortableCacheFile(cache_path=folder, filename_base=base, source_stamp=jit.STAMP)
open(os.path.join(gate, me), "w").close()
go = os.path.join(gate, "go")
while not os.path.exists(go + ".txt"):
    time.sleep(0.002)
start = float(open(go + ".txt").read())
time.sleep(max(0.0, start - time.time() - 0.005))
while time.time() < start:
    pass
keys = []
for i in range(count):
    key = ((me, i), ("x86_64-unknown-linux-gnu", "generic", ""), ("code", ""))
    cache.save(key, (me, i, "payload " * (i % 50)))
    keys.append(key)
print(json.dumps(keys))
"""


def test_processes_saving_one_functions_signatures_at_once_lose_none(tmp_path):
    """numba saves a compile result by reading the function's index, adding the entry and
    writing the index back, and names the data file by the first number the index it read
    leaves free: processes saving signatures of one function at once (the farm's jobs,
    a run's compile worker beside its main process) each wrote an index without the
    others' entries and the same data file. Every entry must load afterwards, each with
    its own data."""
    root = os.path.dirname(jit.SOLVER_DIR)
    folder = tmp_path / "cache"
    folder.mkdir()
    gate = tmp_path / "gate"
    gate.mkdir()
    names = [f"process{p}" for p in range(4)]
    procs = [subprocess.Popen([sys.executable, "-c", _SAVE, root, str(folder), "f-1.py3",
                               name, str(gate), "60"],
                              env=_env(tmp_path / "unused"), text=True,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE)
             for name in names]
    deadline = time.time() + 300
    while not all((gate / name).exists() for name in names):      # all of them imported
        if time.time() > deadline or any(p.poll() is not None for p in procs):
            for p in procs:                 # the others would wait for the go for ever
                p.kill()
            pytest.fail("a saving process ended or hung before all had imported:\n" +
                        "\n".join(p.communicate()[1][-3000:] for p in procs))
        time.sleep(0.01)
    (gate / "go").write_text(repr(time.time() + 0.05))
    (gate / "go").rename(gate / "go.txt")         # whole when they see it
    saved = []
    for proc in procs:
        out, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err[-3000:]
        saved += [(tuple(k[0]), tuple(k[1]), tuple(k[2])) for k in json.loads(out)]
    cache = jit._PortableCacheFile(cache_path=str(folder), filename_base="f-1.py3",
                                   source_stamp=jit.STAMP)
    index = cache._load_index()
    assert sorted(index) == sorted(saved)
    for key in saved:
        me, i = key[0]
        assert cache.load(key) == (me, i, "payload " * (i % 50)), key


# The kernels that wake islands (two small ones: warmup._compile_waking), then wake_marked
# on three bodies; prints what compiled, what it returned, and what it left.
_WAKING = """
import importlib, json, os, sys
sys.path.insert(0, os.path.dirname(sys.argv[1]))
import numpy as np
warmup = importlib.import_module("solver.warmup")
from solver.bodies import ASLEEP, DYNAMIC
""" + _LISTENER + """
with event.install_listener("numba:compile", Listener()):
    warmup._compile_waking()
kind = np.array([ASLEEP, ASLEEP, DYNAMIC, ASLEEP], dtype=np.int64)
island = np.array([0, 1, 0, 0], dtype=np.int64)
timer = np.array([1.0, 2.0, 3.0, 4.0])
woke = warmup.wake_marked(np.array([True, False]), kind, island, timer)
print(json.dumps({"compiled": compiled, "woke": woke, "kind": kind.tolist(),
                  "island": island.tolist(), "timer": timer.tolist(),
                  "dynamic": DYNAMIC, "asleep": ASLEEP}))
"""

_WAKING_KERNELS = {"sleep.wake_marked", "contacts.awake_first"}


def _keep_permissions():
    """A child that the folders' permissions bind even when this runs as root: without
    CAP_DAC_OVERRIDE in its bounding set, root after exec writes only where the mode
    bits let the owner write."""
    os.nice(10)
    if os.geteuid() == 0:
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(24, 1, 0, 0, 0) != 0:          # PR_CAPBSET_DROP, CAP_DAC_OVERRIDE
            raise OSError(ctypes.get_errno(), "prctl")


def _waking(solver, cache):
    proc = subprocess.run([sys.executable, "-c", _WAKING, str(solver)], env=_env(cache),
                          capture_output=True, text=True, timeout=900,
                          preexec_fn=_keep_permissions)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-4000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    # the body of island 0 that slept woke: one of three sleeping bodies, island 1 unmarked
    asleep, dynamic = out["asleep"], out["dynamic"]
    assert (out["woke"], out["kind"], out["island"], out["timer"]) == \
        (2, [dynamic, asleep, dynamic, dynamic], [-1, 1, 0, -1], [0.0, 2.0, 3.0, 0.0])
    return set(out["compiled"]), proc.stderr


def _read_only(path):
    for folder, dirs, files in os.walk(path):
        os.chmod(folder, 0o555)
        for name in files:
            os.chmod(os.path.join(folder, name), 0o444)


@pytest.mark.slow
def test_a_read_only_kernel_cache_compiles_in_memory_and_says_so(tmp_path):
    """A kernel cache the process may not write (a farm's shared kernel folder, a
    read-only mount): kernels it holds load, the others compile in memory, a message names
    the folder, and the simulation runs."""
    solver = _sources(tmp_path)
    empty = tmp_path / "empty"
    (empty / jit.KEY).mkdir(parents=True)
    _read_only(empty)
    try:
        compiled, err = _waking(solver, empty)
        assert compiled == _WAKING_KERNELS
        assert str(empty / jit.KEY) in err and "not writable" in err, err
        assert os.listdir(empty / jit.KEY) == []
    finally:
        os.chmod(empty / jit.KEY, 0o755)
    filled = tmp_path / "filled"
    assert _waking(solver, filled)[0] == _WAKING_KERNELS
    _read_only(filled)
    assert _waking(solver, filled) == (set(), "")


@pytest.mark.slow
def test_damaged_kernel_cache_files_compile_again(tmp_path):
    """Cache files cut short or overwritten (a machine that lost power before the data
    reached the disk, a copy that stopped half way) are a cache miss: the kernel compiles
    again and its entry is written anew; nothing raises or loads a wrong kernel."""
    solver = _sources(tmp_path)
    cache = tmp_path / "cache"
    assert _waking(solver, cache)[0] == _WAKING_KERNELS
    folder = cache / jit.KEY
    data = [p for p in os.listdir(folder) if p.startswith("sleep.wake_marked") and
            p.endswith(".nbc")]
    index = [p for p in os.listdir(folder) if p.startswith("contacts.awake_first") and
             p.endswith(".nbi")]
    assert len(data) == len(index) == 1
    cut = (folder / data[0]).read_bytes()
    (folder / data[0]).write_bytes(cut[:len(cut) // 2])
    whole = (folder / index[0]).read_bytes()
    (folder / index[0]).write_bytes(whole[:40] + b"\0" * (len(whole) - 40))
    assert _waking(solver, cache)[0] == _WAKING_KERNELS
    assert _waking(solver, cache)[0] == set()
