"""The worker threads that step islands and run the narrowphase in parallel (the kernels
release the GIL)."""

import os
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
