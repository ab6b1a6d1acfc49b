"""The add-on read against every supported Blender's API, without starting Blender.

    python tools/apicheck.py                 every line of tools/blender_stubs.txt
    python tools/apicheck.py 4.5 5.0         those lines
    python tools/apicheck.py setup           install what it needs (tools/setup.sh does)

basedpyright (.venv/static) reads addon/ once per line of Blender, against that line's
fake-bpy-module (.venv/static/stubs/LINE), and reports an attribute, a call or a module that
the line's API lacks: a finding is `file:line: [LINE] message`, and the exit status is 1 when
there is one. Only those rules are on (RULES); the add-on is not annotated, so what it reads
off a value of unknown type is not checked, but everything reached from `bpy`,
`bpy.context`, `bpy.data`, `bpy_extras`, `mathutils`, `gpu`... and from the `context` Blender
passes an Operator's or a Panel's methods is.

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
  helper comes from).
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


def third_party(root, stubs):
    """Top-level modules addon/ and solver/ import that are neither the standard library nor
    Blender's (`stubs`): declared as Any."""
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
    blender = {n[:-len("-stubs")] for n in os.listdir(stubs) if n.endswith("-stubs")}
    return sorted(n for n in names if n not in sys.stdlib_module_names and n not in blender
                  and n not in ("addon", "solver"))


def declarations(root, line):
    """What the check declares on `line`, read off the sources with `ast`. On the calling
    thread only: Python 3.11's ast.parse is not thread-safe (two at once fail with
    "AST constructor recursion depth mismatch")."""
    return {"properties": registered_properties(root),
            "constants": version_constants(root, line),
            "third_party": third_party(root, os.path.join(STUBS, line))}


def make_overlay(line, overlay, declared):
    """The line's `bpy` stubs with the add-on's declarations, and the Any modules."""
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


def inputs_digest(root, line, files):
    """A digest of everything a line's findings depend on: addon/'s sources, the files read
    (None: addon/), this file, the pins and the checker's version."""
    h = hashlib.sha256(line.encode())
    h.update(repr(sorted(os.path.relpath(f, root) for f in files or ())).encode())
    paths = [__file__, PINS]
    for folder, dirs, files in os.walk(os.path.join(root, "addon")):
        dirs.sort()
        paths += [os.path.join(folder, f) for f in sorted(files) if f.endswith(".py")]
    for path in paths:
        h.update(os.path.relpath(path, root).encode())
        with open(path, "rb") as f:
            h.update(f.read())
    site = os.path.join(ENV, "lib")
    h.update(" ".join(sorted(d for _, dirs, _ in os.walk(site) for d in dirs
                             if d.startswith("basedpyright-"))).encode())
    return h.hexdigest()


def check_line(line, python, root, files, work, declared):
    """[finding] and seconds of one line: (path relative to root, line number, message).
    What has the inputs of the last run in `work` is not read again: that run's findings are
    kept in WORK/LINE/result.json."""
    t0 = time.perf_counter()
    folder = os.path.join(work, line)
    kept = os.path.join(folder, "result.json")
    digest = inputs_digest(root, line, files)
    if os.path.exists(kept):
        with open(kept) as f:
            last = json.load(f)
        if last["digest"] == digest:
            return [tuple(x) for x in last["findings"]], time.perf_counter() - t0
    make_overlay(line, os.path.join(folder, "overlay"), declared)
    config = {
        "include": files or [os.path.join(root, "addon")],
        "extraPaths": [os.path.join(folder, "overlay"), os.path.join(STUBS, line), root],
        "venvPath": os.path.dirname(ENV), "venv": os.path.basename(ENV),
        "pythonVersion": python, "pythonPlatform": "Linux",
        "typeCheckingMode": "off", "reportMissingModuleSource": False,
        "defineConstant": declared["constants"],
        **{rule: "error" for rule in RULES},
    }
    with open(os.path.join(folder, "pyrightconfig.json"), "w") as f:
        json.dump(config, f, indent=1)
    run = subprocess.run([os.path.join(ENV, "bin", "basedpyright"), "--outputjson",
                          "-p", os.path.join(folder, "pyrightconfig.json")],
                         capture_output=True, text=True)
    try:
        report = json.loads(run.stdout)
    except ValueError:
        raise RuntimeError(f"basedpyright ({line}) failed:\n{run.stdout}\n{run.stderr}")
    findings = [(os.path.relpath(d["file"], root), d["range"]["start"]["line"] + 1,
                 d["message"].split("\n")[0] + f" ({d.get('rule', '')})")
                for d in report["generalDiagnostics"] if d["severity"] == "error"]
    findings.sort()
    with open(kept, "w") as f:
        json.dump({"digest": digest, "findings": findings}, f)
    return findings, time.perf_counter() - t0


def check(lines=None, root=ROOT, files=None, work=None, workers=None):
    """{line: ([finding], seconds)} of each line (all of tools/blender_stubs.txt when None),
    `workers` at once (default: as many as there are cores); `files`: only these (default:
    addon/)."""
    return start(lines, root, files, work, workers)()


def start(lines=None, root=ROOT, files=None, work=None, workers=None):
    """`check` begun: the sources read on the calling thread, the lines read by basedpyright
    in threads of its own, `workers` at once; returns the function that waits for `check`'s
    result, and from that call on the lines not begun yet run as many at once as there are
    cores (the caller waits: its own work is done)."""
    if not os.path.exists(os.path.join(ENV, "bin", "basedpyright")):
        raise RuntimeError(".venv/static has no basedpyright: run bash tools/setup.sh static")
    work = work or os.path.join(ROOT, "build", "apicheck")
    pinned = [p for p in lines_pinned() if lines is None or p[0] in lines]
    declared = {line: declarations(root, line) for line, _, _, _ in pinned}
    cores = os.cpu_count() or 2
    gate = {"limit": workers or cores, "running": 0}
    turn = threading.Condition()

    def one(line, python):
        with turn:
            turn.wait_for(lambda: gate["running"] < gate["limit"])
            gate["running"] += 1
        try:
            return check_line(line, python, root, files, work, declared[line])
        finally:
            with turn:
                gate["running"] -= 1
                turn.notify_all()

    pool = ThreadPoolExecutor(max_workers=max(cores, workers or 0, 1))
    futures = {line: pool.submit(one, line, python) for line, python, _, _ in pinned}
    pool.shutdown(wait=False)

    def wait():
        with turn:
            gate["limit"] = max(gate["limit"], cores)
            turn.notify_all()
        return {line: future.result() for line, future in futures.items()}
    return wait


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("lines", nargs="*", help="Blender lines (4.2 ... 5.3) or 'setup'")
    args = parser.parse_args(argv)
    if args.lines == ["setup"]:
        setup()
        return 0
    results = check(args.lines or None)
    count = 0
    for line, (findings, seconds) in results.items():
        for path, number, message in findings:
            print(f"{path}:{number}: [{line}] {message}")
        print(f"apicheck: Blender {line}: {len(findings)} findings, {seconds:.1f} s")
        count += len(findings)
    return 1 if count else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
