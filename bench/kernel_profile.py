"""Where a frame goes inside the solver's kernels, by function (Linux: perf, gdb).

    .venv/py311/bin/python bench/kernel_profile.py                  # perf: each function's share
    .venv/py311/bin/python bench/kernel_profile.py --callers NRT_incref,NRT_decref
    .venv/py311/bin/python bench/kernel_profile.py --callers NRT_MemInfo_alloc_aligned
    .venv/py311/bin/python bench/kernel_profile.py --counts          # per frame, no perf
    .venv/py311/bin/python bench/kernel_profile.py --world /tmp/metarig.pkl --start 35

numba compiles kernels into memory that perf and gdb know no names for: a profile shows
raw addresses. This script steps bench/scenes.py's ragdolls (--count) at `World()`
defaults, frames 3-30 at --fps (the fall and the landing) replayed from a saved state, or
(--world) the add-on's own World saved by `bench/ragdolls.py --save-world` (its settings:
the metarig's bodies and limits, Blender's 24 fps) stepped --start frames (3: from the
fall; 35: a metarig lying on the floor) and 27 frames from there replayed, in a child
process that first writes the address and name of every compiled function it has loaded
to /tmp/perf-<pid>.map (perf's map of JIT code), then:

* perf: `perf record -p` the child's replays; each function's share of the samples, the
  kernels' functions by module and name (`step.solve_pass`), the rest by symbol;
* --callers: `gdb -p` with a breakpoint at the first instruction of each named function
  (a kernel's, or a C function's such as numba's reference counts and allocations); each
  hit reads the return address on the stack, so the samples count the calling functions
  (the first --hits calls);
* --counts: per frame, the kernel calls' array allocations (numba's NRT statistics) and
  the Python functions called.

Kernels come from $LIGAMENT_KERNEL_CACHE (set it to a folder of your own). CPU figures of
a shared machine are noise; the shares and counts are what this is for.
"""

import argparse
import collections
import os
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


# --- the child: the scene, the map ------------------------------------------------------

def kernel_symbols():
    """(address, size, name) of every function numba has compiled or loaded in this
    process, by address. numba keeps no list of them: every code library it made is
    found through the garbage collector, each function's name in its modules and its
    address in the execution engine. The size runs to the next function's address."""
    import gc
    from numba.core import codegen
    found = {}
    for lib in gc.get_objects():
        try:
            if not isinstance(lib, codegen.CodeLibrary):
                continue
        except ReferenceError:
            continue
        modules = [getattr(lib, a, None) for a in ("_final_module", "_shared_module")]
        engine = getattr(getattr(lib, "_codegen", None), "_engine", None)
        if engine is None:
            continue
        for module in modules:
            if module is None:
                continue
            for fn in module.functions:
                if fn.is_declaration:
                    continue
                address = engine.get_function_address(fn.name)
                if address:
                    found[address] = fn.name
    ordered = sorted(found.items())
    return [(a, (ordered[k + 1][0] - a if k + 1 < len(ordered) else 4096), n)
            for k, (a, n) in enumerate(ordered)]


def write_perf_map(symbols, pid=None):
    path = f"/tmp/perf-{os.getpid() if pid is None else pid}.map"
    with open(path, "w") as f:
        for address, size, name in symbols:
            f.write(f"{address:x} {min(size, 1 << 24):x} {name}\n")
    return path


def short_name(symbol):
    """`step.solve_pass` for numba's mangled `_ZN8solver_04step10solve_passB2v0B54...`:
    the qualified name's parts after the package, without numba's version suffix."""
    if not symbol.startswith("_ZN"):
        return symbol
    i, parts = 3, []
    while i < len(symbol) and symbol[i].isdigit():
        j = i
        while symbol[j].isdigit():
            j += 1
        n = int(symbol[i:j])
        parts.append(symbol[j:j + n])
        i = j + n
    name = ".".join(parts[1:] if len(parts) > 1 else parts)
    return re.sub(r"B\d+v\d+$", "", name)


def build(args):
    sys.path[:0] = [ROOT, HERE]
    if args.world:
        import ragdolls
        w = ragdolls.load_world(args.world)
        w.threads = args.threads
        for _ in range(args.start):
            w.step(1.0 / args.fps)
        start = w.save_state()
        for _ in range(27):
            w.step(1.0 / args.fps)
        return w, start
    import scenes as S
    import contacts as C
    import solver as lg
    w = lg.World(gravity=C.GRAVITY, threads=args.threads)
    C.populate(w, S.ragdolls(args.count))
    for _ in range(3):
        w.step(1.0 / args.fps)
    start = w.save_state()
    for _ in range(27):              # every kernel of the replay loaded before the map
        w.step(1.0 / args.fps)
    return w, start


def replay(w, start, fps, reps):
    for _ in range(reps):
        w.load_state(start)
        for _ in range(27):
            w.step(1.0 / fps)


def child(args):
    import gc
    w, start = build(args)
    write_perf_map(kernel_symbols())
    gc.collect()                     # the walk's garbage not collected in the replays
    with open(args.child, "w") as f:
        f.write(str(os.getpid()))
    go = args.child + ".go"
    for _ in range(600):             # the profiler attached (at most a minute)
        if os.path.exists(go):
            break
        time.sleep(0.1)
    t = time.process_time()
    replay(w, start, args.fps, args.reps)
    print(f"{1000 * (time.process_time() - t) / (27 * args.reps):.3f} ms of CPU a frame "
          "(under the profiler)", flush=True)
    os._exit(0)                      # no interpreter shutdown (its collections) in the profile


def counts(args):
    """Array allocations in kernels (numba's NRT statistics) and Python calls, a frame."""
    if os.environ.get("NUMBA_NRT_STATS") != "1":
        env = dict(os.environ, NUMBA_NRT_STATS="1")
        sys.exit(subprocess.call([sys.executable, __file__] + sys.argv[1:], env=env))
    from numba.core.runtime import rtsys
    w, start = build(args)
    frames = 27 * args.reps
    before = rtsys.get_allocation_stats()
    replay(w, start, args.fps, args.reps)
    after = rtsys.get_allocation_stats()
    calls = collections.Counter()

    def profile(frame, event, arg):
        if event == "call":
            calls[f"{os.path.basename(frame.f_code.co_filename)}:{frame.f_code.co_name}"] += 1

    sys.setprofile(profile)
    replay(w, start, args.fps, 1)
    sys.setprofile(None)
    print(f"kernel array allocations a frame: {(after.alloc - before.alloc) / frames:.1f}")
    print(f"Python calls a frame: {sum(calls.values()) / 27:.1f} (a replay's state load "
          "included)")
    for name, n in calls.most_common(args.top):
        print(f"{n / 27:8.2f}  {name}")


# --- the parent: perf, gdb --------------------------------------------------------------

def start_child(args, folder):
    ready = os.path.join(folder, "ready")
    cmd = [sys.executable, __file__, "--child", ready, "--count", str(args.count),
           "--fps", str(args.fps), "--reps", str(args.reps), "--threads", str(args.threads),
           "--start", str(args.start)] + (["--world", args.world] if args.world else [])
    proc = subprocess.Popen(cmd)
    while not os.path.exists(ready):
        if proc.poll() is not None:
            sys.exit("the child ended before its map was written")
        time.sleep(0.2)
    time.sleep(0.2)
    return proc, int(open(ready).read()), ready + ".go"


def perf(args):
    with tempfile.TemporaryDirectory() as folder:
        proc, pid, go = start_child(args, folder)
        data = os.path.join(folder, "perf.data")
        rec = subprocess.Popen(["perf", "record", "-q", "-F", str(args.rate), "-p", str(pid),
                                "-o", data], stdout=subprocess.DEVNULL)
        time.sleep(1.0)
        open(go, "w").close()
        proc.wait()
        rec.wait()
        out = subprocess.run(["perf", "report", "-i", data, "--no-children", "--sort",
                              "dso,sym", "--stdio"], capture_output=True, text=True).stdout
    shares = collections.Counter()
    for line in out.splitlines():
        m = re.match(r"\s*([\d.]+)%\s+(\S.*?)\s+\[(.)\]\s+(\S+)", line)
        if not m:
            continue
        share, dso, symbol = float(m.group(1)), m.group(2), m.group(4)
        if symbol.startswith("0x"):
            symbol = f"[{os.path.basename(dso)}]"
        shares[short_name(symbol)] += share
    print(f"{'share':>7s}  function")
    for name, share in shares.most_common(args.top):
        print(f"{share:6.2f}%  {name}")


GDB_SCRIPT = r'''
import collections, re, gdb
names, hits_wanted, out, go, mapped = {names!r}, {hits}, {out!r}, {go!r}, {mapped!r}
hits = collections.Counter()

class Entry(gdb.Breakpoint):
    count = 0
    def stop(self):
        rsp = int(gdb.parse_and_eval("$rsp"))
        ret = int.from_bytes(bytes(gdb.selected_inferior().read_memory(rsp, 8)), "little")
        hits[ret] += 1
        Entry.count += 1
        if Entry.count == hits_wanted:
            for b in gdb.breakpoints():
                b.enabled = False
            with open(out, "w") as f:
                for a, n in hits.items():
                    f.write(f"{{a:x}} {{n}}\n")
        return False

for name in names:
    if name in mapped:
        for a in mapped[name]:
            Entry(f"*{{a:#x}}", internal=True)
        continue
    text = gdb.execute(f"info address {{name}}", to_string=True)
    found = re.search(r"0x[0-9a-f]+", text)
    if found:
        Entry(f"*{{found.group(0)}}", internal=True)
    else:
        print("no function", name)
open(go, "w").close()
gdb.execute("continue")
'''


def callers(args):
    names = args.callers.split(",")
    with tempfile.TemporaryDirectory() as folder:
        proc, pid, go = start_child(args, folder)
        symbols = [(int(a, 16), int(s, 16), n.strip()) for a, s, n in
                   (line.split(None, 2) for line in open(f"/tmp/perf-{pid}.map"))]
        mapped = collections.defaultdict(list)
        for a, _, n in symbols:
            for name in names:
                if n == name or short_name(n) == name:
                    mapped[name].append(a)
        out = os.path.join(folder, "returns")
        script = os.path.join(folder, "callers.py")
        with open(script, "w") as f:
            f.write(GDB_SCRIPT.format(names=names, hits=args.hits, out=out, go=go,
                                      mapped=dict(mapped)))
        subprocess.run(["gdb", "-q", "-p", str(pid), "-batch", "-x", script],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        proc.wait()
        if not os.path.exists(out):
            sys.exit(f"fewer than {args.hits} calls: lower --hits or raise --reps")
        returns = [line.split() for line in open(out)]
    import bisect
    starts = [a for a, _, _ in symbols]
    by = collections.Counter()
    for a, n in returns:
        a, n = int(a, 16), int(n)
        k = bisect.bisect_right(starts, a) - 1
        inside = k >= 0 and a < symbols[k][0] + symbols[k][1]
        by[short_name(symbols[k][2]) if inside else "(not a kernel: C or Python)"] += n
    total = sum(by.values())
    print(f"calls of {', '.join(names)}: the first {total}, by caller")
    for name, n in by.most_common(args.top):
        print(f"{100 * n / total:6.1f}%  {name}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--count", type=int, default=1, help="ragdolls")
    ap.add_argument("--fps", type=float, default=24.0)
    ap.add_argument("--reps", type=int, default=200, help="replays of frames 3-30")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--rate", type=int, default=4000, help="perf samples a second")
    ap.add_argument("--top", type=int, default=40)
    ap.add_argument("--callers", help="comma-separated functions whose callers to count")
    ap.add_argument("--hits", type=int, default=3000, help="calls --callers samples")
    ap.add_argument("--counts", action="store_true")
    ap.add_argument("--world", help="a World pickled by bench/ragdolls.py --save-world")
    ap.add_argument("--start", type=int, default=3, help="--world's frames before the replay")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(args)
    elif args.counts:
        counts(args)
    elif args.callers:
        callers(args)
    else:
        perf(args)


if __name__ == "__main__":
    main()
