"""The worker threads that step islands and run the narrowphase in parallel (the kernels
release the GIL), and the threads numba's parallel loops run a big island's stages on."""

import contextlib
import os
import threading
from concurrent.futures import ThreadPoolExecutor


def cores():
    """The cores this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


_POOL = None


def pool(workers):
    """A process-wide pool of worker threads for the islands and the narrowphase (grown
    when a World asks for more threads than it has)."""
    global _POOL
    if _POOL is None or _POOL._max_workers < workers:
        old = _POOL
        _POOL = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="ligament")
        if old is not None:
            old.shutdown(wait=False)
    return _POOL


_NUMBA_CALLER = threading.Lock()


@contextlib.contextmanager
def numba_threads(threads):
    """Run numba's parallel loops (colours.py) on `threads` of numba's threads, one caller
    at a time in this process: numba's workqueue threading layer (the one it falls back to
    when neither TBB nor OpenMP is there) must not be entered by two threads at once."""
    import numba
    with _NUMBA_CALLER:
        old = numba.get_num_threads()
        numba.set_num_threads(max(1, min(threads, numba.config.NUMBA_NUM_THREADS)))
        try:
            yield
        finally:
            numba.set_num_threads(old)


class Spread:
    """How many threads a World spreads a coloured island's stages over (colours.py), chosen
    from what it measured: the result is the same at any count, only the time differs.
    Started threads pay off on a big island when the cores are free; on a machine busy
    with other work a thread waited for can cost several times what it gains. Each count's
    time per manifold and substep is kept (a running mean over the frames it runs in a
    row, started anew each time it is taken up again; a count's first frame, which starts
    threads, is not counted); the faster runs, and the other is tried again after PROBE
    frames, twice as long after each try it loses (at most MAX_WAIT frames)."""

    PROBE = 120
    MAX_WAIT = 16 * PROBE

    def __init__(self):
        self.cost = {}
        self.runs = {}
        self.last = None
        self.wait = self.PROBE
        self.since = 0
        self.trying = None

    def choose(self, threads):
        if threads <= 1:
            return 1
        for k in (threads, 1):
            if self.runs.get(k, 0) < 2:
                return k
        best = min(self.cost, key=self.cost.get)
        self.since += 1
        if self.since >= self.wait:
            self.since = 0
            self.trying = max(self.cost, key=self.cost.get)
            return self.trying
        return best

    def record(self, threads, seconds):
        self.runs[threads] = self.runs.get(threads, 0) + 1
        if self.runs[threads] == 1:
            self.last = None
            return
        old = self.cost.get(threads)
        again = old is not None and self.last == threads
        if threads == self.trying:                  # a try of the count not in use
            self.trying = None
            beaten = seconds >= min(c for k, c in self.cost.items() if k != threads)
            self.wait = min(2 * self.wait, self.MAX_WAIT) if beaten else self.PROBE
        self.cost[threads] = 0.5 * (old + seconds) if again else seconds
        self.last = threads
