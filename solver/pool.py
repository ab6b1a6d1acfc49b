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
    with other work a thread waited for can cost more than it gains. Each count's time per
    manifold and substep is kept (a running mean over the frames it runs in a row, started
    anew each time it is taken up again; a count's first frame, which starts threads, is
    not counted); the faster runs, and the other is tried again every PROBE frames."""

    PROBE = 120

    def __init__(self):
        self.cost = {}
        self.runs = {}
        self.frames = 0
        self.last = None

    def choose(self, threads):
        if threads <= 1:
            return 1
        self.frames += 1
        for k in (threads, 1):
            if self.runs.get(k, 0) < 2:
                return k
        if self.frames % self.PROBE == 0:
            return max(self.cost, key=self.cost.get)
        return min(self.cost, key=self.cost.get)

    def record(self, threads, seconds):
        self.runs[threads] = self.runs.get(threads, 0) + 1
        if self.runs[threads] == 1:
            self.last = None
            return
        old = self.cost.get(threads)
        again = old is not None and self.last == threads
        self.cost[threads] = 0.5 * (old + seconds) if again else seconds
        self.last = threads
