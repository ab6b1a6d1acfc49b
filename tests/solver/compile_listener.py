"""The compile listener the kernel-cache scripts run in their child processes, as script
text: it lists in `compiled` each function numba compiles from the package named PACKAGE
(which the script defines before it), as "module.qualname" without the package."""

LISTENER = """
from numba.core import event
compiled = []

class Listener(event.Listener):
    def on_start(self, ev):
        pass

    def on_end(self, ev):
        f = ev.data["dispatcher"].py_func
        if f.__module__.startswith(PACKAGE + "."):
            compiled.append(f.__module__[len(PACKAGE) + 1:] + "." + f.__qualname__)
"""
