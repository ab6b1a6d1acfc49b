"""Real Blender through the `bpy` wheel: build the extension zip with tools/build_extension.py,
install it into an isolated user folder, and run the scenarios in a long-lived Blender
process (tests/addon/blender_server.py: bpy can be imported only once per process, a crash
must not take pytest down, and starting Blender costs seconds), each in the file a fresh
Blender starts with. What is about a fresh process (an install, the first run, the batch
command) runs in one of its own (`Blender.run_fresh`).

Blender runs in an environment of its own, .venv/blender-VERSION (tools/setup.sh), that has
bpy and numpy only: a numba there would shadow the one the zip bundles. pytest itself runs in
the solver's environment (.venv/py311 or .venv/py313). Which Blender: LIGAMENT_BLENDER=5.3.0,
or by default the suite Blender of pytest's own Python line in tools/blenders.txt (5.0.1 for
3.11, 5.3.0 for 3.13). The zip built is the one for that Blender's Python line.

The zip built here carries the solver's compiled kernels (tools/build_extension.py), so no
scenario compiles; the user folder is kept between runs (see `blender`) and an unchanged zip
is not reinstalled.
"""

import json
import os
import platform
import queue
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import threading

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MODULE = "bl_ext.user_default.ligament"

# The Blenders the tests start inherit this: numba's OpenMP threads (a big island's coloured
# stages) wait without spinning, as in tests/solver/conftest.py, where the spinning of idle
# threads on busy cores cost ten times the work itself. No result depends on it.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")


def blender_versions():
    """tools/blenders.txt as dicts: version, python, numpy, role."""
    rows = []
    with open(os.path.join(ROOT, "tools", "blenders.txt")) as f:
        for line in f:
            line = line.split("#")[0].split()
            if line:
                rows.append(dict(zip(("version", "python", "numpy", "role"), line)))
    return rows


def blender_python(version):
    """The Python of the environment that has Blender `version` as a module."""
    env = os.path.join(ROOT, ".venv", f"blender-{version}")
    return os.path.join(env, "Scripts", "python.exe") if os.name == "nt" else \
        os.path.join(env, "bin", "python")


def _default_blender():
    line = "%d.%d" % sys.version_info[:2]
    suites = [r for r in blender_versions() if r["role"] == "suite"]
    for r in suites:
        if r["python"] == line:
            return r
    return suites[0]


BLENDER = os.environ.get("LIGAMENT_BLENDER") or _default_blender()["version"]
BLENDER_PYTHON = blender_python(BLENDER)
PYTHON_LINE = next((r["python"] for r in blender_versions() if r["version"] == BLENDER), None)

if not os.path.exists(BLENDER_PYTHON) or PYTHON_LINE is None:
    pytest.skip(f"Blender {BLENDER} is not set up (bash tools/setup.sh blender-{BLENDER}; the "
                "versions are listed in tools/blenders.txt)", allow_module_level=True)


def current_platform():
    machine = platform.machine().lower()
    arch = "arm64" if machine in {"arm64", "aarch64"} else "x64"
    system = {"linux": "linux", "win32": "windows", "darwin": "macos"}[sys.platform]
    return f"{system}-{arch}"


def blender_env(home):
    """The environment a Blender process runs in: its user folder `home`, nothing that
    points numba at another cache, and bytecode written as a user's Blender writes it (where
    PYTHONDONTWRITEBYTECODE is set, each Blender compiled the add-on's, the solver's and
    numba's modules from source again: a second of CPU each; tools/test.sh)."""
    env = dict(os.environ, BLENDER_USER_RESOURCES=home)
    for key in ("NUMBA_CACHE_DIR", "LIGAMENT_KERNEL_CACHE", "PYTHONPATH",
                "PYTHONDONTWRITEBYTECODE"):
        env.pop(key, None)
    return env


# Zips built by the tests, kept by their inputs (tools/build_extension.py --reuse): a run
# whose sources, wheels and kernels are those of an earlier run's zip takes that zip (a test
# edit leaves them so) instead of building and checking it again.
ZIPS = os.path.join(ROOT, "build", "zips")


def build_zip(out, *extra, python_line=None):
    """tools/build_extension.py for this platform and the Blender's Python line; the zip's path."""
    proc = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "build_extension.py"),
                           "--output-dir", str(out), "--platform", current_platform(),
                           "--python", python_line or PYTHON_LINE, "--reuse", ZIPS, *extra],
                          capture_output=True, text=True, timeout=1800)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout.strip().splitlines()[-1]


def adopt_kernels(folder, versions):
    """Give the kernel store a complete kernel set a first run compiled in Blender (`folder`,
    compiled by the Python, numba, llvmlite and NumPy `versions` name): it becomes the store's
    entry for these sources unless that entry is complete (tools/build_extension.py
    --adopt-kernels)."""
    proc = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "build_extension.py"),
                           "--adopt-kernels", folder, versions],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout.strip().splitlines()[-1]


# The folder of the scenario modules' package (tests/addon/scenarios): PRELUDE's box(),
# joint() and transforms() are scenarios/helpers.py's, which scenario functions import too.
SCENARIOS_PARENT = os.path.dirname(os.path.abspath(__file__))

PRELUDE = textwrap.dedent(f"""
    import json, math, os, sys
    import bpy
    from mathutils import Euler, Matrix, Quaternion, Vector
    bpy.ops.preferences.addon_enable(module={MODULE!r})
    lig = sys.modules[{MODULE!r}]
    for _o in list(bpy.data.objects):
        bpy.data.objects.remove(_o)
    scene = bpy.context.scene
    scene.render.fps = 24
    scene.frame_start, scene.frame_end = 1, 250
    if {SCENARIOS_PARENT!r} not in sys.path:
        sys.path.insert(0, {SCENARIOS_PARENT!r})
    from scenarios.helpers import box, joint, transforms

    def result(value):
        print("RESULT:" + json.dumps(value))
""")


SERVER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "blender_server.py")
START_TIMEOUT = 600     # s: importing bpy, on a loaded machine


class ScenarioFailed(AssertionError):
    pass


class Blender:
    """Scenarios in Blender with the extension installed in the user folder `home`.

    `run` (a script after PRELUDE) and `call` (a function of tests/addon/scenarios) run one
    in a long-lived Blender (tests/addon/blender_server.py), started on first
    use, in the file a fresh Blender starts with; a scenario that fails, crashes Blender or
    times out fails alone, and the next one gets a new Blender. `run_fresh` runs one in a
    Blender process of its own, for what is about a fresh process (an install, the first
    run, the batch command), and `call_fresh` calls a scenario function there. All return
    what the scenario passed to result() (or returned), and keep what
    Blender printed meanwhile in `stdout` and `stderr`."""

    def __init__(self, home, python=None):
        self.home = home
        self.python = python or BLENDER_PYTHON
        self.stdout = self.stderr = ""
        self.started = 0          # long-lived Blenders started so far
        self._server = None

    def run(self, *scripts, timeout=600):
        """Run `scripts` (after PRELUDE) in the long-lived Blender; return what it passed
        to result()."""
        script = "\n".join(textwrap.dedent(s) for s in scripts)
        return self._request({"op": "run", "script": script}, timeout)

    def call(self, function, *args, timeout=600, **kwargs):
        """Call a scenario function of tests/addon/scenarios ("module.function") with
        JSON-able arguments in the long-lived Blender, after PRELUDE; return what it returned
        (through JSON, as result() does)."""
        module, _, name = function.rpartition(".")
        return self._request({"op": "call", "module": "scenarios." + module, "function": name,
                              "args": list(args), "kwargs": kwargs,
                              "path": SCENARIOS_PARENT}, timeout)

    def run_fresh(self, *scripts, timeout=600):
        """Run `scripts` (after PRELUDE) in a fresh Blender; return what it passed to
        result()."""
        script = "\n".join(textwrap.dedent(s) for s in scripts)
        proc = subprocess.run([self.python, "-c", PRELUDE + script],
                              capture_output=True, text=True, timeout=timeout,
                              env=blender_env(self.home), cwd=self.home)
        self.stdout, self.stderr = proc.stdout, proc.stderr
        lines = [l for l in proc.stdout.splitlines() if l.startswith("RESULT:")]
        if proc.returncode != 0 or not lines:
            raise ScenarioFailed(f"Blender scenario failed (exit {proc.returncode}):\n"
                                 f"--- stdout\n{proc.stdout[-4000:]}\n--- stderr\n"
                                 f"{proc.stderr[-6000:]}")
        return json.loads(lines[-1][len("RESULT:"):])

    def call_fresh(self, function, *args, timeout=600, **kwargs):
        """`call` in a fresh Blender: a function of tests/addon/scenarios run after PRELUDE in
        a Blender process of its own; what it returned."""
        module, _, name = function.rpartition(".")
        return self.run_fresh(f"from scenarios.{module} import {name}\n"
                              f"result({name}(*json.loads({json.dumps(list(args))!r}), "
                              f"**json.loads({json.dumps(kwargs)!r})))", timeout=timeout)

    def stop(self):
        """End the long-lived Blender (the next `run` starts another)."""
        if self._server is not None:
            self._server.stop()
            self._server = None

    def _request(self, request, timeout):
        if self._server is None or not self._server.alive():
            self._server = _Server(self.python, self.home)
            self.started += 1
        server = self._server
        try:
            answer, why = server.ask(request, timeout)
        finally:
            self.stdout, self.stderr = server.output()
        if answer is None or answer["retire"] is not None:
            self.stop()
        if answer is None or not answer["ok"] or answer["result"] is None:
            if answer is not None:
                why = "an exception" if not answer["ok"] else "no result() given"
            raise ScenarioFailed(f"Blender scenario failed ({why}):\n--- stdout\n"
                                 f"{self.stdout[-4000:]}\n--- stderr\n{self.stderr[-6000:]}")
        return json.loads(answer["result"])


class _Server:
    """One long-lived Blender running tests/addon/blender_server.py: requests on its stdin,
    answers on its stdout (read by a thread, so a wait can time out), its own output in
    HOME/blender-server.log and each scenario's in two files of a folder of its own."""

    def __init__(self, python, home):
        self.folder = tempfile.mkdtemp(prefix="ligament-blender-")
        self.paths = {"stdout": os.path.join(self.folder, "stdout.txt"),
                      "stderr": os.path.join(self.folder, "stderr.txt")}
        with open(os.path.join(home, "blender-server.log"), "ab") as log:
            self.process = subprocess.Popen(
                [python, SERVER, MODULE], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=log, env=blender_env(home), cwd=home, text=True, encoding="utf-8",
                start_new_session=os.name != "nt")
        self.answers = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        ready, why = self._answer(START_TIMEOUT)
        if ready is None:
            self.stop()
            raise ScenarioFailed(f"Blender did not start ({why}, {python}): see "
                                 f"{os.path.join(home, 'blender-server.log')}")

    def _read(self):
        for line in self.process.stdout:
            self.answers.put(json.loads(line))
        self.answers.put(None)      # the process ended

    def _answer(self, timeout):
        """The next answer, or (None, why there is none)."""
        try:
            answer = self.answers.get(timeout=timeout)
        except queue.Empty:
            self.kill()
            return None, f"timed out after {timeout} s"
        if answer is None:
            return None, f"Blender ended, exit {self.process.wait()}"
        return answer, None

    def alive(self):
        return self.process.poll() is None

    def ask(self, request, timeout):
        """The answer to `request`, or (None, why it has none)."""
        for path in self.paths.values():
            open(path, "w").close()
        try:
            self.process.stdin.write(json.dumps({"prelude": PRELUDE, **self.paths, **request})
                                     + "\n")
            self.process.stdin.flush()
        except OSError:
            pass                    # it ended: the answer queue says so
        return self._answer(timeout)

    def output(self):
        out = []
        for name in ("stdout", "stderr"):
            with open(self.paths[name], encoding="utf-8", errors="replace") as f:
                out.append(f.read())
        return out

    def kill(self):
        """Kill it and whatever it started (a kernel preparation, a batch bake's jobs)."""
        try:
            if os.name != "nt":
                os.killpg(self.process.pid, signal.SIGKILL)
            else:
                self.process.kill()
        except OSError:
            pass
        self.process.wait()

    def stop(self):
        if self.alive():
            try:
                self.process.stdin.write(json.dumps({"op": "stop"}) + "\n")
                self.process.stdin.flush()
                self.process.wait(timeout=30)
            except (OSError, subprocess.TimeoutExpired):
                pass
        self.kill()
        shutil.rmtree(self.folder, ignore_errors=True)


INSTALL = """
import bpy
result = bpy.ops.extensions.package_install_files(filepath={zip!r}, repo='user_default',
                                                   enable_on_install=True)
assert result == {{'FINISHED'}}, result
"""


def install(zip_path, home, python=None):
    """Install the zip into the Blender user folder `home` as a user does (Install from
    Disk), in a Blender process of its own."""
    proc = subprocess.run([python or BLENDER_PYTHON, "-c", INSTALL.format(zip=zip_path)],
                          capture_output=True, text=True, timeout=600, env=blender_env(home),
                          cwd=home)
    assert proc.returncode == 0, proc.stdout + proc.stderr


# A zip without kernels compiles them in the warm-up (about a minute, more on a loaded
# machine); only the one-off warm-up gets this much room, every other script keeps 600 s.
WARM_UP_TIMEOUT = 3600


@pytest.fixture(scope="session")
def extension_zip(tmp_path_factory):
    return build_zip(tmp_path_factory.mktemp("dist"))


def _zip_stamp(path):
    import zipfile
    with zipfile.ZipFile(path) as z:
        return "\n".join(f"{i.filename} {i.CRC} {i.file_size}" for i in
                         sorted(z.infolist(), key=lambda i: i.filename))


@pytest.fixture(scope="session")
def blender(extension_zip):
    """An isolated Blender user folder (not the user's own) with the extension installed and
    the solver compiled.

    The folder is build/test-blender-VERSION/ (or $LIGAMENT_TEST_BLENDER_HOME) and survives between
    runs. The zip is installed whenever its contents differ from the installed one (always
    on a fresh checkout)."""
    home = os.environ.get("LIGAMENT_TEST_BLENDER_HOME") or os.path.join(
        ROOT, "build", f"test-blender-{BLENDER}")
    os.makedirs(home, exist_ok=True)
    stamp_path = os.path.join(home, "installed-zip.txt")
    stamp = _zip_stamp(extension_zip)
    installed = open(stamp_path).read() if os.path.exists(stamp_path) else None
    if installed != stamp:
        install(extension_zip, home)
        with open(stamp_path, "w") as f:
            f.write(stamp)
    b = Blender(home)
    # Warm-up: loads the shipped kernels (a first compile if a zip without them was built).
    b.run("""
        ground = box("Ground", (4, 4, 1), (0, 0, -0.5), kind='STATIC')
        cube = box("Cube", (1, 1, 1), (0, 0, 1))
        post = box("Post", (0.2, 0.2, 0.2), (2, 0, 2), kind='STATIC')
        bar = box("Bar", (1, 0.1, 0.1), (2.5, 0, 2))
        joint("J", 'HINGE', post, bar, (2, 0, 2))
        for f in range(1, 4):
            scene.frame_set(f)
        result(lig.addon.runtime.cache.error(scene))
    """, timeout=WARM_UP_TIMEOUT)
    yield b
    b.stop()
