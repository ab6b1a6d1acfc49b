"""A long-lived Blender that runs the add-on tests' scenarios one after another
(tests/addon/conftest.py starts it with the Python of .venv/blender-VERSION and talks to it).

    python blender_server.py

Requests come as JSON lines on stdin, answers go as JSON lines to the stdout the process was
started with; Blender's own output (fd 1 and 2, C and Python alike) goes to files the request
names, one pair per scenario, so a scenario's results never mix with what Blender prints.

Each scenario runs in the file a fresh Blender starts with: `wm.read_homefile()` first (the
add-on's load_post handler clears its per-scene caches), and what a scenario may change
outside the file is put back after it: the application handlers, the add-ons enabled, the
preferences, the functions and classes of the add-on's and the solver's modules, the
environment, sys.path and the working directory. What cannot be put back (the add-on disabled or reloaded) retires this
process: the test harness starts a new one for the next scenario.

Requests:
    {"op": "run", "prelude": SOURCE, "script": SOURCE, "stdout": PATH, "stderr": PATH}
        the prelude, then `result` bound to the answer, then the script (in one namespace)
    {"op": "call", "prelude": SOURCE, "module": NAME, "function": NAME, "args": [...],
     "kwargs": {...}, "path": DIR, "stdout": PATH, "stderr": PATH}
        the prelude, then MODULE.FUNCTION(*args, **kwargs) imported from DIR; its return
        value is the result
Answers: {"ok": bool, "result": JSON text or null, "retire": reason or null}.
"""

import ctypes
import faulthandler
import importlib
import json
import os
import sys
import traceback

# The protocol's two channels, kept apart from fds 0-2 (which child processes inherit):
# os.dup gives descriptors that are not inherited.
_requests = os.fdopen(os.dup(0), "r", encoding="utf-8")
_answers = os.fdopen(os.dup(1), "w", encoding="utf-8")
_null = os.open(os.devnull, os.O_RDONLY)
os.dup2(_null, 0)
os.dup2(2, 1)                # between scenarios: the server's log (its stderr)
faulthandler.enable()        # a crash prints the Python stack to fd 2: the scenario's stderr

import bpy  # noqa: E402  (after the redirection: its start-up lines go to the log)

try:
    _libc = ctypes.CDLL(None)
except OSError:              # no C library to flush (Windows): Python's streams only
    _libc = None

MODULE = sys.argv[1] if len(sys.argv) > 1 else "bl_ext.user_default.ligament"


def _flush():
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    if _libc is not None:
        _libc.fflush(None)


class Captured:
    """fds 1 and 2 (so Blender's C output too) sent to two files while a scenario runs."""

    def __init__(self, stdout, stderr):
        self.paths = stdout, stderr

    def __enter__(self):
        _flush()
        self.saved = os.dup(1), os.dup(2)
        for fd, path in zip((1, 2), self.paths):
            f = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
            os.dup2(f, fd)
            os.close(f)
        return self

    def __exit__(self, *exc):
        _flush()
        for fd, saved in zip((1, 2), self.saved):
            os.dup2(saved, fd)
            os.close(saved)


# --- what a scenario may change outside the file, and putting it back --------------------------

def _handler_lists():
    return {name: getattr(bpy.app.handlers, name) for name in dir(bpy.app.handlers)
            if not name.startswith("_") and isinstance(getattr(bpy.app.handlers, name), list)}


def _preference_structs():
    p = bpy.context.preferences
    return {name: getattr(p, name) for name in ("edit", "view", "system", "inputs",
                                                  "filepaths", "experimental")
            if getattr(p, name, None) is not None}


def _plain(value):
    return tuple(value) if hasattr(value, "__len__") and not isinstance(value, str) else value


def _preferences():
    values = {}
    for name, struct in _preference_structs().items():
        for prop in struct.bl_rna.properties:
            if prop.is_readonly or prop.type not in {'BOOLEAN', 'INT', 'FLOAT', 'STRING', 'ENUM'}:
                continue
            try:
                values[name, prop.identifier] = _plain(getattr(struct, prop.identifier))
            except (AttributeError, TypeError):
                pass
    return values


def _module_names():
    solver = _solver_prefix()
    return [m for m in sys.modules if m == MODULE or m.startswith(MODULE + ".")
            or (solver and m.startswith(solver))]


def _solver_prefix():
    kernels = sys.modules.get(MODULE + ".addon.kernels")
    return getattr(kernels, "MODULE_NAME", None)


class Snapshot:
    """What a scenario may change outside the file, taken before it runs."""

    def __init__(self):
        self.handlers = {name: list(h) for name, h in _handler_lists().items()}
        self.addons = set(bpy.context.preferences.addons.keys())
        self.preferences = _preferences()
        self.modules = {name: (sys.modules[name], dict(vars(sys.modules[name])))
                        for name in _module_names()}
        self.environ = dict(os.environ)
        self.path = list(sys.path)
        self.cwd = os.getcwd()

    def restore(self):
        """Put it back; the reason this process cannot go on, or None."""
        if MODULE not in bpy.context.preferences.addons or \
                not getattr(sys.modules.get(MODULE), "__addon_enabled__", False):
            return "the add-on was disabled"
        for name, (module, _) in self.modules.items():
            if sys.modules.get(name) is not module:
                return f"module {name} was reloaded"
        for name in set(bpy.context.preferences.addons.keys()) - self.addons:
            bpy.ops.preferences.addon_disable(module=name)
        for name in self.addons - set(bpy.context.preferences.addons.keys()):
            bpy.ops.preferences.addon_enable(module=name)
        for name, handlers in _handler_lists().items():
            before = self.handlers.get(name, [])
            if handlers != before:
                handlers.clear()
                handlers.extend(before)
        structs = _preference_structs()
        for (struct, prop), value in self.preferences.items():
            if _plain(getattr(structs[struct], prop)) != value:
                try:
                    setattr(structs[struct], prop, value)
                except (AttributeError, TypeError, ValueError):
                    pass
        for name, (module, attributes) in self.modules.items():
            # functions, classes and modules replaced (a scenario's stand-in); a module's own
            # lazily made state (a thread pool, a loaded kernel) is left as it is
            now = vars(module)
            for key, value in attributes.items():
                if now.get(key, now) is not value and (callable(value) or
                                                       type(value) is type(sys)):
                    now[key] = value
        if dict(os.environ) != self.environ:
            os.environ.clear()
            os.environ.update(self.environ)
        sys.path[:] = self.path
        os.chdir(self.cwd)
        return None


# --- the loop ---------------------------------------------------------------------------------

def _scenario(request, ns):
    """Run the request's scenario in `ns`; its result as JSON text, or None if it gave none."""
    answer = []
    exec(compile(request["prelude"], "<prelude>", "exec"), ns)
    ns["result"] = lambda value: answer.append(json.dumps(value))
    if request["op"] == "run":
        exec(compile(request["script"], "<scenario>", "exec"), ns)
    else:
        if request["path"] not in sys.path:
            sys.path.insert(0, request["path"])
        module = importlib.import_module(request["module"])
        value = getattr(module, request["function"])(*request["args"], **request["kwargs"])
        answer.append(json.dumps(value))
    return answer[-1] if answer else None


def serve():
    # Enabled once, before the first snapshot: disabling it removes its wheels from the user
    # folder, enabling it unpacks them again (seconds), so it stays enabled between scenarios.
    bpy.ops.preferences.addon_enable(module=MODULE)
    _answers.write(json.dumps({"ready": True, "pid": os.getpid()}) + "\n")
    _answers.flush()
    for line in _requests:
        request = json.loads(line)
        if request["op"] == "stop":
            break
        bpy.ops.wm.read_homefile()
        snapshot = Snapshot()
        ok, value = True, None
        with Captured(request["stdout"], request["stderr"]):
            try:
                value = _scenario(request, {"__name__": "__scenario__"})
            except SystemExit as exc:
                if exc.code not in (None, 0):
                    ok = False
                    traceback.print_exc()
            except BaseException:
                ok = False
                traceback.print_exc()
        try:
            retire = snapshot.restore()
        except Exception:
            retire = "putting the state back failed:\n" + traceback.format_exc()
        if not ok and retire is None:
            retire = "the scenario failed"
        _answers.write(json.dumps({"ok": ok, "result": value, "retire": retire}) + "\n")
        _answers.flush()
        if retire is not None:
            break


if __name__ == "__main__":
    serve()
