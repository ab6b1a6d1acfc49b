"""The add-on read against every supported Blender's API, without starting Blender.

    python tools/apicheck.py                 every line of tools/blender_stubs.txt
    python tools/apicheck.py 4.5 5.0         those lines
    python tools/apicheck.py setup           install what it needs (tools/setup.sh does)
    python tools/apicheck.py -j 2            the lines shared between two processes

basedpyright (.venv/static) reads addon/ against each line of Blender's fake-bpy-module
(.venv/static/stubs/LINE) and reports an attribute, a call or a module that the line's API
lacks: a finding is `file:line: [LINE] message`, and the exit status is 1 when there is one.
Only those rules are on (RULES); the add-on is not annotated, so what it reads off a value
of unknown type is not checked, but everything reached from `bpy`, `bpy.context`,
`bpy.data`, `bpy_extras`, `mathutils`, `gpu`... and from the `context` Blender passes an
Operator's or a Panel's methods is.

One basedpyright process reads all the lines: each is an execution environment whose root
is the line's view of the sources (build/apicheck/LINE/addon, a copy of addon/) and whose
extraPaths are its stubs, so typeshed, the standard library and the third-party stand-ins
are parsed once, not once a line (57 CPU-seconds for the eight lines where eight processes
took 98). A line whose inputs (addon/'s sources, the files read, this file, the pins, the
checker's version) are those of its last run is not read again
(build/apicheck/LINE/result.json): a run with addon/ unchanged reads addon/ once and costs
about 0.1 CPU-second.

What the stubs cannot know is declared here, per line, and nothing is suppressed:

* The add-on's own registered properties (`bpy.types.Object.ligament_body =
  PointerProperty(type=LigamentBodySettings)` in addon/ui/properties.py): every such
  assignment in addon/ is read and declared on that class in a copy of the line's
  `bpy.types` stub (`ligament_body: addon.ui.properties.LigamentBodySettings`), so that
  `obj.ligament_body.mass` is checked against the property group and a misspelt name is
  reported.
* Code that runs on some lines only branches on a constant of addon/blender_version.py
  (`SLOTTED_ACTIONS = bpy.app.version >= (4, 4, 0)`): each is given to basedpyright as a
  `defineConstant` with its value on the line, so the branch that does not run there is
  unreachable and not read (`hasattr(obj, "name")` narrows `obj` only, not the module a
  helper comes from). defineConstant is one map for the whole process, so the line's view
  renames the constant wherever it is named (`SLOTTED_ACTIONS__L4_2`, on the same row).
* The third-party packages the add-on and the solver import (numpy, numba, coacd, sympy) are
  declared as `Any`: their typing is not what this check is about, and reading numpy's
  stubs made it half as long again.
* fake-bpy-module's `Context` declares an attribute named `property`, which shadows the
  builtin inside its class body, so that its `@property` accessors read as methods (4.2,
  4.5, 5.0: `context.scene.objects` reported) or as `Any` (5.2, 5.3: nothing under
  `context` checked), by the line; the copy of the stub says `@builtins.property`. Its
  `bpy.props` functions return None (4.2 to 5.2) or a `_PropertyDeferred` (5.3), which is
  not the type the registered attribute is declared with: the copy says Any.
"""

import argparse
import ast
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ENV = os.path.join(ROOT, ".venv", "static")
STUBS = os.path.join(ENV, "stubs")
PINS = os.path.join(ROOT, "tools", "blender_stubs.txt")
RULES = ("reportAttributeAccessIssue", "reportCallIssue", "reportMissingImports")
VERSION_MODULE = os.path.join("addon", "blender_version.py")


def lines_pinned():
    """[(line, python, package, version)] of tools/blender_stubs.txt."""
    out = []
    with open(PINS) as f:
        for row in f:
            row = row.split("#")[0].split()
            if row:
                out.append(tuple(row))
    return out


def setup():
    """Install each line's fake-bpy-module into .venv/static/stubs/LINE (pip --target), once."""
    python = os.path.join(ENV, "bin", "python")
    for line, _, package, version in lines_pinned():
        target = os.path.join(STUBS, line)
        stamp = os.path.join(target, f"{package.replace('-', '_')}-{version}.dist-info")
        if os.path.isdir(stamp):
            continue
        shutil.rmtree(target, ignore_errors=True)
        print(f"setup: {package}=={version} into {os.path.relpath(target, ROOT)}")
        run = subprocess.run([python, "-m", "pip", "install", "-q", "--disable-pip-version-check",
                              "--no-deps", "--target", target, f"{package}=={version}"],
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        print("".join(row for row in run.stdout.splitlines(True)
                      if not row.startswith("WARNING: Location")), end="")
        run.check_returncode()


# --- what the stubs cannot know ---------------------------------------------------------------

_SCALARS = {"BoolProperty": "bool", "IntProperty": "int", "FloatProperty": "float",
            "StringProperty": "str", "EnumProperty": "str"}


def registered_properties(root):
    """[(bpy.types class, attribute, type as the stub writes it)] of every
    `bpy.types.CLASS.NAME = XProperty(...)` in addon/."""
    out = []
    for folder, _, files in os.walk(os.path.join(root, "addon")):
        for name in sorted(files):
            if not name.endswith(".py"):
                continue
            path = os.path.join(folder, name)
            module = os.path.relpath(path, root)[:-3].replace(os.sep, ".")
            module = module[:-len(".__init__")] if module.endswith(".__init__") else module
            with open(path) as f:
                tree = ast.parse(f.read(), path)
            for node in ast.walk(tree):
                if not (isinstance(node, ast.Assign) and len(node.targets) == 1
                        and isinstance(node.value, ast.Call)):
                    continue
                target, call = node.targets[0], node.value
                if not (isinstance(target, ast.Attribute)
                        and isinstance(target.value, ast.Attribute)
                        and ast.unparse(target.value.value) == "bpy.types"):
                    continue
                kind = ast.unparse(call.func).split(".")[-1]
                group = next((ast.unparse(k.value) for k in call.keywords if k.arg == "type"),
                             None)
                if group is not None:
                    group = group[len("bpy.types."):] if group.startswith("bpy.types.") \
                        else f"{module}.{group}"
                if kind == "PointerProperty" and group:
                    kind = group
                elif kind == "CollectionProperty" and group:
                    kind = f"bpy_prop_collection[{group}]"
                else:
                    kind = _SCALARS.get(kind, "typing.Any")
                out.append((target.value.attr, target.attr, kind))
    return out


def version_constants(root, line):
    """{NAME: value on `line`} of addon/blender_version.py's `NAME = bpy.app.version OP
    (major, minor, 0)`."""
    path = os.path.join(root, VERSION_MODULE)
    if not os.path.exists(path):
        return {}
    with open(path) as f:
        tree = ast.parse(f.read(), path)
    version = tuple(int(x) for x in line.split(".")) + (0,)
    ops = {ast.GtE: tuple.__ge__, ast.Gt: tuple.__gt__, ast.Lt: tuple.__lt__,
           ast.LtE: tuple.__le__}
    out = {}
    for node in tree.body:
        if not (isinstance(node, ast.Assign) and isinstance(node.value, ast.Compare)):
            continue
        cmp = node.value
        bound = ast.literal_eval(cmp.comparators[0])
        if ast.unparse(cmp.left) != "bpy.app.version" or type(cmp.ops[0]) not in ops \
                or len(bound) != 3 or bound[2] != 0:
            raise ValueError(f"{VERSION_MODULE}:{node.lineno}: write a version constant as "
                             "NAME = bpy.app.version >= (major, minor, 0) (or >, <, <=)")
        out[node.targets[0].id] = ops[type(cmp.ops[0])](version, bound)
    return out


def third_party(root):
    """Top-level modules addon/ and solver/ import that are not the standard library: those
    no line's Blender has (its `*-stubs` folders) are declared as Any."""
    names = set()
    for top in ("addon", "solver"):
        for folder, _, files in os.walk(os.path.join(root, top)):
            for name in files:
                if name.endswith(".py"):
                    with open(os.path.join(folder, name)) as f:
                        tree = ast.parse(f.read())
                    for node in ast.walk(tree):
                        if isinstance(node, ast.Import):
                            names.update(a.name.split(".")[0] for a in node.names)
                        elif isinstance(node, ast.ImportFrom) and node.level == 0:
                            names.add(node.module.split(".")[0])
    return sorted(n for n in names if n not in sys.stdlib_module_names
                  and n not in ("addon", "solver"))


def read_sources(root):
    """{path relative to root: bytes} of addon/'s Python files, read once per run."""
    out = {}
    for folder, dirs, files in os.walk(os.path.join(root, "addon")):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(files):
            if name.endswith(".py"):
                path = os.path.join(folder, name)
                with open(path, "rb") as f:
                    out[os.path.relpath(path, root)] = f.read()
    return out


def declarations(root, lines):
    """{line: what the check declares there}, read off the sources with `ast`. On the calling
    thread only: Python 3.11's ast.parse is not thread-safe (two at once fail with
    "AST constructor recursion depth mismatch")."""
    properties = registered_properties(root)
    modules = third_party(root)
    out = {}
    for line in lines:
        blender = {n[:-len("-stubs")] for n in os.listdir(os.path.join(STUBS, line))
                   if n.endswith("-stubs")}
        out[line] = {"properties": properties, "constants": version_constants(root, line),
                     "third_party": [n for n in modules if n not in blender]}
    return out


def _suffix(line):
    return "__L" + line.replace(".", "_")


def make_view(line, folder, sources, files, constants):
    """The line's view of the sources: FOLDER/addon, a copy of addon/ in which each version
    constant is renamed NAME__L<line> (its value on the line given to basedpyright by
    defineConstant, which is one map for the whole process), every row where it was.
    Returns the paths to read: `files` (None: addon/) in the view."""
    names = sorted(constants, key=len, reverse=True)
    pattern = re.compile(r"\b(" + "|".join(map(re.escape, names)) + r")\b") if names else None
    suffix = _suffix(line).encode()
    view = os.path.join(folder, "addon")
    keep = set()
    for rel, data in sources.items():
        if pattern is not None and any(n.encode() in data for n in names):
            data = re.sub(pattern.pattern.encode(), lambda m: m.group(0) + suffix, data)
        path = os.path.join(folder, rel)
        keep.add(path)
        try:
            with open(path, "rb") as f:
                same = f.read() == data
        except OSError:
            same = False
        if not same:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "wb") as f:
                f.write(data)
    for sub, dirs, names_ in os.walk(view):
        for name in names_:
            if os.path.join(sub, name) not in keep:
                os.remove(os.path.join(sub, name))
    return [view] if files is None else [os.path.join(folder, rel) for rel in files]


def make_overlay(line, overlay, declared):
    """The line's `bpy` stubs with the add-on's declarations, and the Any modules: made
    again only when what it is made of changed."""
    stamp = json.dumps([_TOOL, declared["properties"], declared["third_party"]])
    try:
        with open(os.path.join(overlay, "stamp.json")) as f:
            if f.read() == stamp:
                return
    except OSError:
        pass
    stubs = os.path.join(STUBS, line)
    shutil.rmtree(overlay, ignore_errors=True)
    shutil.copytree(os.path.join(stubs, "bpy-stubs"), os.path.join(overlay, "bpy-stubs"))
    path = os.path.join(overlay, "bpy-stubs", "types", "__init__.pyi")
    with open(path) as f:
        text = f.read()
    text = re.sub(r"^(\s+)@property\s*$", r"\1@builtins.property", text, flags=re.M)
    modules = set()
    for cls, attr, kind in declared["properties"]:
        head = re.search(rf"^class {cls}\(.*\):[^\n]*\n", text, flags=re.M)
        if head is None:
            raise ValueError(f"addon/ registers a property on bpy.types.{cls}, which Blender "
                             f"{line} does not have")
        text = text[:head.end()] + f"    {attr}: {kind}\n" + text[head.end():]
        modules.update(re.findall(r"(addon(?:\.\w+)+)\.\w+", kind))
    imports = "import builtins\n" + "".join(f"import {m}\n" for m in sorted(modules))
    text = re.sub(r"^import typing$", imports + "import typing", text, count=1, flags=re.M)
    with open(path, "w") as f:
        f.write(text)
    path = os.path.join(overlay, "bpy-stubs", "props", "__init__.pyi")
    with open(path) as f:
        text = f.read()
    text = re.sub(r"(\ndef (?!RemoveProperty)\w+Property(?:\[[^\]]*\])?\((?:[^()]|\([^()]*\))*\))"
                  r" -> (?:None|_PropertyDeferred):",
                  r"\1 -> typing.Any:", text)
    with open(path, "w") as f:
        f.write(text)
    for name in declared["third_party"]:
        os.makedirs(os.path.join(overlay, name), exist_ok=True)
        with open(os.path.join(overlay, name, "__init__.pyi"), "w") as f:
            f.write("from typing import Any\n\ndef __getattr__(name: str) -> Any: ...\n")
    with open(os.path.join(overlay, "stamp.json"), "w") as f:
        f.write(stamp)


def _tool_digest():
    """This file, the pins and the checker's version."""
    h = hashlib.sha256()
    for path in (__file__, PINS):
        with open(path, "rb") as f:
            h.update(f.read())
    site = os.path.join(ENV, "lib")
    h.update(" ".join(sorted(d for _, dirs, _ in os.walk(site) for d in dirs
                             if d.startswith("basedpyright-"))).encode())
    return h.hexdigest()


_TOOL = _tool_digest() if os.path.isdir(ENV) else ""


def inputs_digest(line, files, sources):
    """A digest of everything a line's findings depend on: addon/'s sources, the files read
    (None: addon/), this file, the pins and the checker's version."""
    h = hashlib.sha256(line.encode())
    h.update(repr(sorted(files or ())).encode())
    h.update(_TOOL.encode())
    for rel, data in sources.items():
        h.update(rel.encode() + b"\0" + hashlib.sha256(data).digest())
    return h.hexdigest()


def check_lines(group, root, files, work, declared, sources):
    """{line: [finding]} of the lines of `group` ([(line, python)]), read by one basedpyright
    process: each line is an execution environment whose root is its view of the sources
    (WORK/LINE/addon) with the line's stubs on its extraPaths, so the process parses
    typeshed, the standard library and the third-party stand-ins once for all of them. A
    finding: (path relative to root, line number, message)."""
    rel_files = None if files is None else [os.path.relpath(f, root) for f in files]
    include, envs, constants = [], [], {}
    for line, python in group:
        folder = os.path.join(work, line)
        make_overlay(line, os.path.join(folder, "overlay"), declared[line])
        include += make_view(line, folder, sources, rel_files, declared[line]["constants"])
        constants.update({name + _suffix(line): value
                          for name, value in declared[line]["constants"].items()})
        envs.append({"root": folder, "pythonVersion": python, "pythonPlatform": "Linux",
                     "extraPaths": [os.path.join(folder, "overlay"), os.path.join(STUBS, line),
                                    root]})
    name = "+".join(line for line, _ in group)
    config = {
        "include": include, "executionEnvironments": envs,
        "venvPath": os.path.dirname(ENV), "venv": os.path.basename(ENV),
        "pythonVersion": group[0][1], "pythonPlatform": "Linux",
        "typeCheckingMode": "off", "reportMissingModuleSource": False,
        "defineConstant": constants,
        **{rule: "error" for rule in RULES},
    }
    path = os.path.join(work, f"pyrightconfig-{name}.json")
    with open(path, "w") as f:
        json.dump(config, f, indent=1)
    run = subprocess.run([os.path.join(ENV, "bin", "basedpyright"), "--outputjson", "-p", path],
                         capture_output=True, text=True)
    try:
        report = json.loads(run.stdout)
    except ValueError:
        raise RuntimeError(f"basedpyright ({name}) failed:\n{run.stdout}\n{run.stderr}")
    out = {line: [] for line, _ in group}
    for d in report["generalDiagnostics"]:
        if d["severity"] != "error":
            continue
        line = next((line for line, _ in group
                     if d["file"].startswith(os.path.join(work, line) + os.sep)), None)
        if line is None:
            raise RuntimeError(f"basedpyright ({name}): a finding outside the views: {d}")
        out[line].append((os.path.relpath(d["file"], os.path.join(work, line)),
                          d["range"]["start"]["line"] + 1,
                          d["message"].split("\n")[0] + f" ({d.get('rule', '')})"))
    for line in out:
        out[line].sort()
    return out


def check(lines=None, root=ROOT, files=None, work=None, workers=None, processes=None):
    """{line: ([finding], seconds)} of each line (all of tools/blender_stubs.txt when None),
    read by `processes` basedpyright processes (default 1: the cheapest in CPU; 2 halves
    the wall time on an idle machine for about 15 % more CPU), `workers` at once (default:
    as many as there are cores); `files`: only these (default: addon/)."""
    return start(lines, root, files, work, workers, processes)()


def start(lines=None, root=ROOT, files=None, work=None, workers=None, processes=None):
    """`check` begun: the sources read on the calling thread, the lines whose inputs are not
    those of their last run (WORK/LINE/result.json) read by basedpyright in threads of its
    own, in `processes` groups of consecutive lines (default 1), a process each, `workers`
    at once; returns the function that waits for `check`'s result, and from that
    call on the groups not begun yet run as many at once as there are cores (the caller
    waits: its own work is done)."""
    t0 = time.perf_counter()
    if not os.path.exists(os.path.join(ENV, "bin", "basedpyright")):
        raise RuntimeError(".venv/static has no basedpyright: run bash tools/setup.sh static")
    work = os.path.abspath(work or os.path.join(ROOT, "build", "apicheck"))
    root = os.path.abspath(root)
    pinned = [p for p in lines_pinned() if lines is None or p[0] in lines]
    sources = read_sources(root)
    rel_files = None if files is None else [os.path.relpath(f, root) for f in files]
    results, digests = {}, {}
    for line, _, _, _ in pinned:
        digests[line] = inputs_digest(line, rel_files, sources)
        try:
            with open(os.path.join(work, line, "result.json")) as f:
                last = json.load(f)
        except OSError:
            continue
        if last["digest"] == digests[line]:
            results[line] = ([tuple(x) for x in last["findings"]], time.perf_counter() - t0)
    pending = [(line, python) for line, python, _, _ in pinned if line not in results]
    if not pending:
        return lambda: results
    declared = declarations(root, [line for line, _ in pending])
    count = max(1, min(processes or 1, len(pending)))
    groups = [pending[i * len(pending) // count:(i + 1) * len(pending) // count]
              for i in range(count)]
    cores = os.cpu_count() or 2
    gate = {"limit": workers or cores, "running": 0}
    turn = threading.Condition()

    def one(group):
        with turn:
            turn.wait_for(lambda: gate["running"] < gate["limit"])
            gate["running"] += 1
        try:
            t = time.perf_counter()
            found = check_lines(group, root, files, work, declared, sources)
            for line, findings in found.items():
                with open(os.path.join(work, line, "result.json"), "w") as f:
                    json.dump({"digest": digests[line], "findings": findings}, f)
            seconds = time.perf_counter() - t
            return {line: (findings, seconds) for line, findings in found.items()}
        finally:
            with turn:
                gate["running"] -= 1
                turn.notify_all()

    pool = ThreadPoolExecutor(max_workers=max(cores, workers or 0, 1))
    futures = [pool.submit(one, group) for group in groups]
    pool.shutdown(wait=False)

    def wait():
        with turn:
            gate["limit"] = max(gate["limit"], cores)
            turn.notify_all()
        for future in futures:
            results.update(future.result())
        return {line: results[line] for line, _, _, _ in pinned}
    return wait


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("lines", nargs="*", help="Blender lines (4.2 ... 5.3) or 'setup'")
    parser.add_argument("-j", "--processes", type=int, default=1,
                        help="basedpyright processes the lines are shared among (default 1)")
    args = parser.parse_args(argv)
    if args.lines == ["setup"]:
        setup()
        return 0
    results = check(args.lines or None, processes=args.processes)
    count = 0
    for line, (findings, seconds) in results.items():
        for path, number, message in findings:
            print(f"{path}:{number}: [{line}] {message}")
        print(f"apicheck: Blender {line}: {len(findings)} findings, {seconds:.1f} s")
        count += len(findings)
    return 1 if count else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
