"""The solver inside Blender: loading it, and preparing its kernels out of the UI's way.

The solver is imported under a module name of its own, `_ligament_solver_<source hash>`
(not as a submodule of the extension's package, whose name depends on the repository it was
installed into): numba's cached kernels record the module they were compiled in, so the
kernels the linux-x64 zip ships (compiled by tools/build_extension.py through this file) and
the ones a background preparation compiles load in any installation. A new solver version
gets a new name, so an upgrade in a running Blender never reuses the old modules.

Preparing: when the kernel cache holds no complete set (no READY, solver/warmup.py), a
second Python process compiles them (`python addon/kernels.py --prepare`) and prints its
progress, while Blender stays responsive: the frame handler reports "Preparing the solver,
first run only: 40%" instead of simulating, the panels and the status bar show the same. In
background mode (`blender -b`, the batch command) the preparation runs to its end before the
first frame, printing progress lines. Esc (the Prepare Solver operator), disabling the
extension or quitting Blender stop the process; numba writes each cache file atomically, so a
stopped preparation leaves whole files only, and READY is written last.

This file runs as a script too (no bpy then): `python addon/kernels.py --prepare` compiles,
`--verify` checks that the kernels beside the sources load in this Python without compiling.
"""

import importlib.util
import os
import subprocess
import sys
import threading

EXT_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SOLVER_DIR = os.path.join(EXT_ROOT, "solver")


def _source_hash():
    spec = importlib.util.spec_from_file_location("_ligament_stamp",
                                                  os.path.join(SOLVER_DIR, "stamp.py"))
    stamp = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(stamp)
    return stamp.source_hash(SOLVER_DIR)


MODULE_NAME = "_ligament_solver_" + _source_hash()[:16]


def load_solver():
    """The solver package, imported once per process under MODULE_NAME."""
    module = sys.modules.get(MODULE_NAME)
    if module is None:
        spec = importlib.util.spec_from_file_location(
            MODULE_NAME, os.path.join(SOLVER_DIR, "__init__.py"),
            submodule_search_locations=[SOLVER_DIR])
        module = importlib.util.module_from_spec(spec)
        sys.modules[MODULE_NAME] = module
        try:
            spec.loader.exec_module(module)
        except BaseException:
            del sys.modules[MODULE_NAME]
            raise
    return module


solver = load_solver()
warmup = importlib.import_module(MODULE_NAME + ".warmup")
vectors = importlib.import_module(MODULE_NAME + ".vectors")     # the Python-side math
balance = importlib.import_module(MODULE_NAME + ".balance")     # the balance assist
polygon = importlib.import_module(MODULE_NAME + ".polygon")     # support polygons
poses = importlib.import_module(MODULE_NAME + ".poses")         # bodies' poses in bulk


class _Preparation:
    """The background process compiling the kernels, and what it last said."""

    def __init__(self):
        self.process = None
        self.percent = 0
        self.error = None
        self._lines = []

    def running(self):
        return self.process is not None and self.process.poll() is None

    def start(self):
        if self.running():
            return
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
        self.percent, self.error, self._lines = 0, None, []
        self.process = subprocess.Popen(
            # sys.executable: Blender's bundled Python in Blender 4.2+, the venv's with bpy
            [sys.executable, os.path.abspath(__file__), "--prepare"], stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, text=True, env=env)
        self.reader = threading.Thread(target=self._read, args=(self.process,), daemon=True)
        self.reader.start()

    def _read(self, process):
        for line in process.stdout:
            line = line.rstrip()
            print(line, flush=True)          # the system console shows the progress too
            self._lines.append(line)
            if line.startswith("Ligament: preparing the solver: ") and line.endswith("%"):
                self.percent = int(line.rsplit(" ", 1)[1][:-1])
        if process.wait() != 0 and not warmup.ready():
            self.error = "\n".join(self._lines[-12:]) or f"exit {process.returncode}"

    def stop(self):
        if self.running():
            self.process.kill()
            self.process.wait()
        self.process = None


_job = _Preparation()


_ready = [False]


def ready():
    """Whether the kernels are prepared (a file test, asked every frame until it is true;
    then kept: kernels loaded once stay loaded in this process). A kernel cache folder this
    process may not write (LIGAMENT_KERNEL_CACHE on a read-only share) counts as prepared:
    another process could not hand kernels over in it, so the kernels it lacks compile in
    memory here on the first frame, and the console says so once."""
    if not _ready[0]:
        _ready[0] = warmup.ready() or not _writable()
    return _ready[0]


def _writable():
    if _writable_cache:
        return _writable_cache[0]
    writable = warmup.jit.writable(warmup.jit.CACHE_FOLDER)
    if not writable:
        warmup.jit.unwritable(PermissionError(13, "cannot create a file in it"))
    _writable_cache.append(writable)
    return writable


_writable_cache = []


def blocking():
    """Whether to prepare in the foreground: with no UI to keep responsive (background mode,
    the batch command)."""
    import bpy
    return bpy.app.background


def running():
    return _job.running()


def failed():
    """Whether the background preparation failed (the Prepare Solver button retries)."""
    return bool(_job.error)


def status():
    """None when the kernels are ready; otherwise the message to show."""
    if ready():
        return None
    if _job.error:
        return "Preparing the solver failed: see the system console"
    return f"Preparing the solver, first run only: {_job.percent}%"


def ensure_started(retry=False):
    """Start the background preparation unless the kernels are ready or it runs already
    (or failed before: then only when asked to `retry`, from the Prepare Solver button)."""
    if not ready() and not _job.running() and (retry or not _job.error):
        _job.start()
        _watch()


def prepare_blocking(report=print):
    """Background mode: prepare to the end, printing progress (a Blender with no UI has
    nothing to keep responsive, and the first frame needs the kernels anyway)."""
    if ready():
        return
    report("Ligament: preparing the solver, first run only (about a minute per core)")
    _job.start()                     # its progress lines are printed as they come (_read)
    _job.process.wait()
    _job.reader.join(timeout=10.0)
    if not ready():
        raise RuntimeError("Ligament could not prepare its solver:\n" + (_job.error or ""))
    report("Ligament: solver ready")


def stop():
    _job.stop()


def _tick():
    """While preparing: the status bar's text, and the Ligament panels redrawn."""
    import bpy
    text = status()
    for window in bpy.context.window_manager.windows:
        try:
            window.workspace.status_text_set(text)
        except (AttributeError, RuntimeError):
            pass
        for area in window.screen.areas:
            if area.type in {"VIEW_3D", "PROPERTIES", "PREFERENCES"}:
                area.tag_redraw()
    return 0.5 if text is not None and _job.running() else None


def _watch():
    import bpy
    if not bpy.app.background and not bpy.app.timers.is_registered(_tick):
        bpy.app.timers.register(_tick, first_interval=0.5)


def verify():
    """Whether the kernels beside these sources serve this Python and numba: a complete set
    (READY) that a simulation of every feature loads without compiling anything. Prints what
    it found; tools/build_extension.py refuses a zip for which this fails."""
    import numba
    python = "%d.%d" % sys.version_info[:2]
    if not warmup.ready():
        print(f"no complete kernel set for Python {python}, numba {numba.__version__} in "
              f"{warmup.jit.CACHE_FOLDER}")
        return False
    compiled = []

    class Listener(numba.core.event.Listener):
        def on_start(self, ev):
            pass

        def on_end(self, ev):
            compiled.append(ev.data["dispatcher"].py_func.__qualname__)

    warmup.warm_up(progress=Listener())
    if compiled:
        print(f"{len(compiled)} kernels compiled instead of loading: {', '.join(compiled[:10])}")
        return False
    print(f"kernels for Python {python}, numba {numba.__version__} load without compiling")
    return True


def _main(argv):
    if argv[1:] == ["--prepare"]:
        warmup.main()
        return 0
    if argv[1:] == ["--verify"]:
        return 0 if verify() else 1
    print("usage: python addon/kernels.py --prepare | --verify", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(_main(sys.argv))
