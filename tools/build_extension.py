#!/usr/bin/env python3
"""Build the Ligament extension zips with Blender's own extension builder.

    python tools/build_extension.py --output-dir dist
    python tools/build_extension.py --output-dir dist --platform linux-x64 --python 3.13

One zip per platform and Python line, named `ligament-<version>-<platform>-py311.zip` (or
`-py313`): Blender 4.2 LTS to 5.0 run Python 3.11, Blender 5.1 and later Python 3.13, and
each zip's manifest says which Blender versions it is for (`blender_version_min` and
`blender_version_max`), so no Blender can pick a wheel of the other Python. A zip bundles the
numba and llvmlite wheels blender_manifest.toml lists for its platform and Python, the
stable-ABI wheel of its platform (coacd, which splits a mesh into convex parts) and the
pure-Python wheels (sympy and mpmath, which derive custom constraints).

Kernels: the zip of the platform this runs on also carries the solver's compiled kernels
(solver/_kernels/), compiled by exactly the numba, llvmlite and Python that zip ships: an
environment of their own (build/kernel-envs/py313-numba-0.65.1/) is made from the zip's own
wheel files and the NumPy Blender bundles on that line, with the Python of that line (found
as PYTHON313, python3.13 on PATH or in pyenv). Compiled kernels are kept in the kernel store,
build/kernel-cache/<py313-numba-...-llvmlite-...-numpy-...>/<source hash>/, one entry per set
of versions and sources, filled once under a lock: the next build of the same sources and
the test runs in an environment of the same versions (tools/test.sh) take them from there
(`--prepare-kernels PYTHON` fills an entry without building; `--adopt-kernels FOLDER NAME`
makes the set a first run of a zip without kernels compiled in Blender the entry, which is
how tools/test.sh fills it: tests/addon/test_first_run.py). The built zip is then
unpacked and its kernels loaded in that environment: a zip in which any kernel would compile
again is refused, as is a zip whose kernels cannot be built (no such Python here);
`--no-kernels` builds zips without them (their users compile on first play, about a minute,
in the background). Zips of other
platforms never carry kernels: numba compiles for the machine it runs on.

Wheels are downloaded from PyPI with pip once and kept in build/wheels/ (git-ignored;
`--wheel-dir` to change). The builder is Blender's `blender_ext.py`, plain Python: taken from
a `bpy` wheel (this Python's, or one of .venv/blender-*/ that tools/setup.sh makes), else
from `--blender` (runs `blender --command extension build`).

`--reuse DIR` takes a zip built before into DIR from the same inputs (input_key: the files it
ships, its wheels, platform, Python line, builder, kernels and this tool) instead of building
it again, and keeps each zip built there; the add-on tests do (build/zips/), so a run after
an edit of the tests alone builds nothing.
"""

import argparse
import contextlib
import glob
import hashlib
import importlib.util
import os
import platform as platform_mod
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Wheel platform tags for each Blender platform.
PLATFORM_TAGS = {
    "linux-x64": ("manylinux", "x86_64"),
    "windows-x64": ("win_amd64", ""),
    "macos-arm64": ("macosx", "arm64"),
    "macos-x64": ("macosx", "x86_64"),
    "linux-arm64": ("manylinux", "aarch64"),
    "windows-arm64": ("win_arm64", ""),
}

# The Python lines Blender runs: the Blender versions of each (min inclusive, max exclusive,
# as the manifest's blender_version_min/max) and the NumPy those Blenders bundle (the kernels
# are compiled beside it).
PYTHON_LINES = {
    "3.11": {"blender_min": "4.2.0", "blender_max": "5.1.0", "numpy": "1.26.4"},
    "3.13": {"blender_min": "5.1.0", "blender_max": None, "numpy": "2.3.4"},
}

# Not shipped, and not worth copying into the staging folder (the manifest's
# paths_exclude_pattern is the authority on what the zip holds).
STAGE_SKIP = {".git", "build", "dist", "tests", "bench", "tools", "docs", ".ci", "__pycache__",
              ".pytest_cache", ".venv", "wheels", ".github"}
KERNEL_PATTERNS = ('  "*.nbi",\n', '  "*.nbc",\n')


def native_platform():
    """This machine's Blender platform name ('linux-x64')."""
    machine = platform_mod.machine().lower()
    arch = "arm64" if machine in {"arm64", "aarch64"} else "x64"
    system = {"linux": "linux", "win32": "windows", "darwin": "macos"}[sys.platform]
    return f"{system}-{arch}"


def zip_name(manifest, platform, line):
    return (f"{manifest['id']}-{manifest['version']}-{platform.replace('-', '_')}"
            f"-py{line.replace('.', '')}.zip")


# --- wheels ------------------------------------------------------------------------------

def wheel_platform(filename):
    """The platform part of a wheel file name ('manylinux2014_x86_64.manylinux_2_17_x86_64')."""
    return filename[:-len(".whl")].split("-")[-1]


def wheel_python(filename):
    """The Python line a wheel is built for ('3.13'), None for a pure wheel (py3-none-any) or
    a stable-ABI one (cp39-abi3: every CPython from 3.9 on, so every line)."""
    tag, abi = filename[:-len(".whl")].split("-")[-3:-1]
    if not tag.startswith("cp") or abi == "abi3":
        return None
    return tag[2] + "." + tag[3:]


def wheel_matches(filename, platform, line=None):
    """Whether the wheel installs on `platform` (and, given, Python `line`): its platform tag
    names it, or it is pure Python ('any', every platform and line)."""
    prefix, arch = PLATFORM_TAGS[platform]
    py = wheel_python(filename)
    if line is not None and py is not None and py != line:
        return False
    return any(tag == "any" or (tag.startswith(prefix) and tag.endswith(arch))
               for tag in wheel_platform(filename).split("."))


def wheel_version(filename):
    name, version = filename.split("-")[:2]
    return name.lower(), version


def download_wheel(filename, wheel_dir):
    """pip download the exact wheel `filename` into `wheel_dir`."""
    name, version, py = filename.split("-")[:3]
    tag = wheel_platform(filename).split(".")[0]
    # A pure wheel (py3-none-any) is the same everywhere: no platform or Python to target
    # (its "py3" is not a cpXY version).
    target = [] if tag == "any" else ["--platform", tag, "--python-version",
                                      py[2] + "." + py[3:]]
    cmd = [sys.executable, "-m", "pip", "download", "--only-binary=:all:", "--no-deps",
           *target, f"{name}=={version}", "-d", wheel_dir]
    print("build_extension: downloading", filename, flush=True)
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0 or not os.path.exists(os.path.join(wheel_dir, filename)):
        tail = "\n".join((proc.stdout + proc.stderr).strip().splitlines()[-5:])
        raise SystemExit(
            f"build_extension: could not download {filename} from PyPI:\n{tail}\n"
            f"Either bring the network back, copy the wheel into {wheel_dir} by hand, or build "
            "only the platforms whose wheels you have with --platform (e.g. --platform linux-x64).")


# --- the builder ---------------------------------------------------------------------------

def _builder_in(site_packages_dirs):
    for base in site_packages_dirs:
        hits = sorted(glob.glob(os.path.join(
            base, "*", "scripts", "addons_core", "bl_pkg", "cli", "blender_ext.py")))
        if hits:
            return hits[-1]
    return None


def find_builder(blender=None):
    """The command that runs Blender's extension builder."""
    if blender:
        return [blender, "--factory-startup", "--command", "extension"]
    spec = importlib.util.find_spec("bpy")
    if spec is not None and spec.submodule_search_locations:
        hit = _builder_in(spec.submodule_search_locations)
        if hit:
            return [sys.executable, hit]
    # the Blender environments tools/setup.sh makes, newest first
    for env in sorted(glob.glob(os.path.join(ROOT, ".venv", "blender-*")), reverse=True,
                      key=lambda p: [int(x) for x in re.findall(r"\d+", os.path.basename(p))]):
        hit = _builder_in(glob.glob(os.path.join(env, "lib", "python3.*", "site-packages", "bpy"))
                          + glob.glob(os.path.join(env, "Lib", "site-packages", "bpy")))
        python = os.path.join(env, "Scripts" if os.name == "nt" else "bin",
                              "python.exe" if os.name == "nt" else "python")
        if hit and os.path.exists(python):
            return [python, hit]
    raise SystemExit("build_extension: Blender's extension builder was not found. Run "
                     "`bash tools/setup.sh blender-5.3.0`, install the `bpy` wheel in this "
                     "Python (pip install bpy) or pass --blender PATH.")


# --- kernels ---------------------------------------------------------------------------------

def find_python(line):
    """An interpreter of Python `line` ('3.13'): PYTHON313, python3.13 on PATH, pyenv's."""
    var = "PYTHON" + line.replace(".", "")
    cands = [os.environ.get(var), shutil.which("python" + line)]
    pyenv_root = os.environ.get("PYENV_ROOT") or os.path.expanduser("~/.pyenv")
    cands += sorted(glob.glob(os.path.join(pyenv_root, "versions", line + ".*", "bin",
                                           "python" + line)), reverse=True)
    if sys.version_info[:2] == tuple(map(int, line.split("."))):
        cands.insert(0, sys.executable)
    for cand in cands:
        if not cand:
            continue
        try:
            out = subprocess.run([cand, "-c", "import sys, venv; print('%d.%d' % "
                                  "sys.version_info[:2])"], capture_output=True, text=True,
                                 timeout=60)
        except OSError:
            continue
        if out.returncode == 0 and out.stdout.strip() == line:
            return cand
    raise SystemExit(
        f"build_extension: the py{line.replace('.', '')} zip's kernels must be compiled by "
        f"Python {line} (the Python that Blender runs), and none was found here. Install "
        f"Python {line}, set {var}=/path/to/python{line}, or build without kernels "
        "(--no-kernels: users then compile on first play).")


def _env_python(env):
    return os.path.join(env, "Scripts", "python.exe") if os.name == "nt" else \
        os.path.join(env, "bin", "python")


def kernel_env(line, wheels):
    """The environment that compiles the kernels of a zip for Python `line`: that Python, the
    zip's own numba and llvmlite wheel files, and the NumPy Blender bundles on that line.
    Made once under build/kernel-envs/ and reused while the wheels are the same."""
    native = [w for w in wheels if wheel_version(os.path.basename(w))[0] in ("numba", "llvmlite")]
    versions = dict(wheel_version(os.path.basename(w)) for w in native)
    if set(versions) != {"numba", "llvmlite"}:
        raise SystemExit(f"build_extension: the py{line.replace('.', '')} zip bundles no "
                         f"numba/llvmlite pair ({[os.path.basename(w) for w in wheels]})")
    numpy = PYTHON_LINES[line]["numpy"]
    name = (f"py{line.replace('.', '')}-numba-{versions['numba']}-llvmlite-"
            f"{versions['llvmlite']}-numpy-{numpy}")
    env = os.path.join(ROOT, "build", "kernel-envs", name)
    python = _env_python(env)
    done = os.path.join(env, "ligament-kernel-env")
    if not os.path.exists(done):
        shutil.rmtree(env, ignore_errors=True)
        print(f"build_extension: making {os.path.relpath(env, ROOT)} to compile the kernels",
              flush=True)
        subprocess.run([find_python(line), "-m", "venv", env], check=True)
        proc = subprocess.run([python, "-m", "pip", "install", "-q",
                               "--disable-pip-version-check", *native, f"numpy=={numpy}"],
                              capture_output=True, text=True)
        if proc.returncode != 0:
            raise SystemExit(f"build_extension: could not make {env}:\n" + proc.stderr[-3000:])
        with open(done, "w") as f:
            f.write("\n".join(os.path.basename(w) for w in native) + "\n")
    # what the environment imports must be what the zip ships, not merely what was asked for
    check = subprocess.run([python, "-c", "import sys, numba, llvmlite; print(numba.__version__, "
                            "llvmlite.__version__, '%d.%d' % sys.version_info[:2])"],
                           capture_output=True, text=True)
    got = check.stdout.split()
    want = [versions["numba"], versions["llvmlite"], line]
    if check.returncode != 0 or got != want:
        raise SystemExit(f"build_extension: {env} imports numba, llvmlite, Python {got or '?'} "
                         f"where the zip ships {want}:\n{check.stderr[-2000:]}\n"
                         "Delete that folder and build again.")
    return python


def _clean_env():
    return {k: v for k, v in os.environ.items()
            if k not in ("NUMBA_CACHE_DIR", "LIGAMENT_KERNEL_CACHE", "NUMBA_CPU_NAME",
                         "NUMBA_CPU_FEATURES", "LIGAMENT_CPU", "PYTHONPATH", "PYTHONHOME")}


def store_name(python):
    """The kernel store's folder for what `python` imports: kernels are the same bytes for
    the same Python line, numba, llvmlite and NumPy, whichever environment compiled them
    (the zip's kernel environment, or the test environment of the same versions)."""
    proc = subprocess.run([python, "-c", "import sys, numba, llvmlite, numpy; print("
                           "'py%d%d' % sys.version_info[:2], numba.__version__, "
                           "llvmlite.__version__, numpy.__version__)"],
                          capture_output=True, text=True, env=_clean_env())
    if proc.returncode != 0:
        raise SystemExit(f"build_extension: {python} cannot import numba:\n{proc.stderr[-2000:]}")
    py, numba, llvmlite, numpy = proc.stdout.split()
    return f"{py}-numba-{numba}-llvmlite-{llvmlite}-numpy-{numpy}"


def _ready_name(store_dir, python):
    proc = subprocess.run([python, "-c", "import sys, numba; print('READY-py%d%d-numba-%s' % "
                           "(*sys.version_info[:2], numba.__version__))"],
                          capture_output=True, text=True, env=_clean_env(), check=True)
    return os.path.join(store_dir, proc.stdout.strip())


@contextlib.contextmanager
def _locked(path):
    """One process at a time fills a kernel store entry (builds of both lines, the test
    lanes' preparation): numba rewrites a kernel's index whole, so two processes compiling
    into one folder can each drop the other's entries."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "a+b") as f:
        if os.name == "nt":
            import msvcrt
            while True:
                try:
                    msvcrt.locking(f.fileno(), msvcrt.LK_LOCK, 1)
                    break
                except OSError:
                    pass
        else:
            import fcntl
            fcntl.flock(f.fileno(), fcntl.LOCK_EX)
        yield


def compile_kernels(sources, python, folder):
    """Compile the solver's kernels of `sources` (a copy holding solver/ and addon/kernels.py)
    with `python` into `folder` (the store entry), the way the installed extension's
    preparation would."""
    print(f"build_extension: compiling the solver's kernels with {python} (about a minute on "
          "two cores)", flush=True)
    env = dict(_clean_env(), LIGAMENT_KERNEL_CACHE=os.path.dirname(folder))
    proc = subprocess.Popen([python, os.path.join(sources, "addon", "kernels.py"), "--prepare"],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            env=env)
    lines, shown = [], -10
    for line in proc.stdout:            # progress as it comes, every tenth percent
        lines.append(line.rstrip())
        percent = re.search(r"preparing the solver: (\d+)%", line)
        if percent and int(percent.group(1)) >= shown + 10:
            shown = int(percent.group(1))
            print(f"build_extension: kernels {shown}%", flush=True)
    if proc.wait() != 0:
        raise SystemExit("build_extension: compiling the kernels failed:\n"
                         + "\n".join(lines[-40:]))


def _source_key(root):
    spec = importlib.util.spec_from_file_location(
        "_ligament_stamp", os.path.join(root, "solver", "stamp.py"))
    stamp = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(stamp)
    return stamp.source_hash(os.path.join(root, "solver"))[:16]


def kernel_store(python, sources=ROOT):
    """The complete kernel set of these sources for what `python` imports, compiled now unless
    a build or a test run compiled it before: build/kernel-cache/<versions>/<source hash>.
    Kernels load whatever the solver package was imported as (solver/jit.py), so one compile
    serves the zip and the test runs of the same versions. Reusing them is safe because they
    are the bytes the same Python, numba and sources would compile again, and every built
    zip's kernels are loaded before the zip is accepted."""
    key = _source_key(sources)
    store = os.path.join(ROOT, "build", "kernel-cache", store_name(python), key)
    with _locked(store + ".lock"):
        if not os.path.exists(_ready_name(store, python)):
            with tempfile.TemporaryDirectory(prefix="ligament-kernels-") as tmp:
                # a copy of the solver without solver/_kernels: nothing seeds the entry
                copy = os.path.join(tmp, "ligament")
                shutil.copytree(os.path.join(sources, "solver"), os.path.join(copy, "solver"),
                                ignore=shutil.ignore_patterns("_kernels", "__pycache__"))
                os.makedirs(os.path.join(copy, "addon"))
                shutil.copy2(os.path.join(sources, "addon", "kernels.py"),
                             os.path.join(copy, "addon", "kernels.py"))
                if _source_key(copy) != key:
                    raise SystemExit("build_extension: the solver's sources changed while "
                                     "its kernels were being prepared")
                compile_kernels(copy, python, store)
        else:
            print(f"build_extension: kernels for these sources from "
                  f"{os.path.relpath(store, ROOT)}", flush=True)
    return store


STORE_NAME = re.compile(r"py\d+-numba-[\w.]+-llvmlite-[\w.]+-numpy-[\w.]+")


def adopt_kernels(folder, name, store_root=None):
    """Make `folder`, a complete kernel set that a first run compiled (the background
    preparation of a zip without kernels, installed in Blender: tests/addon/test_first_run.py),
    the kernel store's entry `name` (a store_name(): the versions that Blender's Python
    imported) for these sources, unless that entry is complete already. It is what
    kernel_store() would compile: the same program (addon/kernels.py --prepare) with the same
    Python, numba, llvmlite and NumPy on the same sources, so each line's cold compile is done
    once, by the test that is about it. A set of other sources, or whose READY names other
    versions, is refused; the zips built from the entry are still loaded before they are
    accepted (verify_kernels). Returns the entry (in `store_root`, default
    build/kernel-cache/)."""
    key = os.path.basename(os.path.normpath(folder))
    if not STORE_NAME.fullmatch(name):
        raise SystemExit(f"build_extension: {name!r} is not a kernel store name")
    if key != _source_key(ROOT):
        raise SystemExit(f"build_extension: {folder} holds the kernels of other sources "
                         f"({key}, these are {_source_key(ROOT)})")
    ready = [n for n in os.listdir(folder) if n.startswith("READY-")]
    if len(ready) != 1 or not name.startswith(ready[0][len("READY-"):] + "-llvmlite-"):
        raise SystemExit(f"build_extension: {folder} is no complete set compiled by {name} "
                         f"(READY files: {ready})")
    store = os.path.join(store_root or os.path.join(ROOT, "build", "kernel-cache"), name, key)
    with _locked(store + ".lock"):
        if os.path.exists(os.path.join(store, ready[0])):
            print(f"build_extension: kernels for these sources in {store} already", flush=True)
            return store
        tmp = tempfile.mkdtemp(prefix=".adopt-", dir=os.path.dirname(store))
        try:
            shutil.copytree(folder, os.path.join(tmp, key),
                            ignore=shutil.ignore_patterns("__pycache__"))
            shutil.rmtree(store, ignore_errors=True)     # a stopped compile's part of a set
            os.replace(os.path.join(tmp, key), store)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    print(f"build_extension: kernels for these sources into {store}, from {folder}",
          flush=True)
    return store


def kernels_for(staging, python):
    """The staged solver's kernels, from the kernel store (compiled first if need be)."""
    store = kernel_store(python, staging)
    target = os.path.join(staging, "solver", "_kernels", os.path.basename(store))
    with _locked(store + ".lock"):
        shutil.copytree(store, target, ignore=shutil.ignore_patterns("__pycache__"))


def verify_kernels(zip_path, python):
    """Unpack the built zip and load its kernels with `python` (the kernel environment): every
    kernel a simulation runs must come from the zip, none compile. Refuses the zip if not."""
    with tempfile.TemporaryDirectory(prefix="ligament-verify-") as tmp:
        with zipfile.ZipFile(zip_path) as z:
            z.extractall(tmp)
        proc = subprocess.run([python, os.path.join(tmp, "addon", "kernels.py"), "--verify"],
                              capture_output=True, text=True, env=_clean_env())
    if proc.returncode != 0:
        os.remove(zip_path)
        shutil.rmtree(os.path.join(ROOT, "build", "kernel-cache", store_name(python)),
                      ignore_errors=True)     # a stored set that does not load goes too
        raise SystemExit(f"build_extension: {os.path.basename(zip_path)} refused, its kernels "
                         "do not load in the Python and numba it ships:\n"
                         + proc.stdout[-3000:] + proc.stderr[-3000:])
    print("build_extension:", proc.stdout.strip().splitlines()[-1], flush=True)


# --- staging and building --------------------------------------------------------------------

def _stage_ignore(directory, names):
    """What stage() leaves out of a folder of the sources (shutil.copytree's `ignore`)."""
    top = os.path.abspath(directory) == ROOT
    return [n for n in names if n in {"__pycache__", ".pytest_cache", ".git", "_kernels"}
            or (top and n in STAGE_SKIP) or n.endswith((".pyc", ".nbi", ".nbc", ".zip"))]


def stage(staging, platform, line, wheels, kernel_python=None):
    """Copy the extension sources and the chosen wheels into `staging`, with a manifest that
    lists only that platform, its wheels and the Blender versions of the Python line (and,
    given a kernel environment, the kernels compiled by it)."""
    shutil.copytree(ROOT, staging, ignore=_stage_ignore)
    os.makedirs(os.path.join(staging, "wheels"))
    for src in wheels:
        shutil.copy2(src, os.path.join(staging, "wheels", os.path.basename(src)))
    path = os.path.join(staging, "blender_manifest.toml")
    text = open(path, encoding="utf-8").read()
    text = re.sub(r"(?ms)^platforms = \[.*?\]", f'platforms = ["{platform}"]', text)
    text = re.sub(r"(?ms)^wheels = \[.*?\n\]", "wheels = [\n" + "".join(
        f'  "./wheels/{os.path.basename(w)}",\n' for w in wheels) + "]", text)
    versions = PYTHON_LINES[line]
    span = f'blender_version_min = "{versions["blender_min"]}"\n'
    if versions["blender_max"]:
        span += f'blender_version_max = "{versions["blender_max"]}"\n'
    text, n = re.subn(r'(?m)^blender_version_min = .*\n(blender_version_max = .*\n)?', span, text)
    assert n == 1, "blender_manifest.toml has no blender_version_min line"
    if kernel_python:
        kernels_for(staging, kernel_python)
        for pattern in KERNEL_PATTERNS:
            text = text.replace(pattern, "")
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def input_key(platform, line, wheels, builder, kernels):
    """sha256 of what a zip is built from: every file stage() copies (paths and contents),
    the wheels' names (a name is one file: its version and build tags), the platform, the
    Python line, the builder, whether kernels go in (they are the store's entry for the
    solver's sources and the versions the wheels and the line name) and this tool itself
    (PYTHON_LINES, what staging does)."""
    digest = hashlib.sha256()
    with open(os.path.abspath(__file__), "rb") as f:
        digest.update(f.read())
    for part in (platform, line, repr(builder), str(kernels), *sorted(
            os.path.basename(w) for w in wheels)):
        digest.update(part.encode() + b"\0")
    for parent, dirs, files in os.walk(ROOT):
        skip = set(_stage_ignore(parent, dirs + files))
        dirs[:] = sorted(d for d in dirs if d not in skip)
        for name in sorted(f for f in files if f not in skip):
            path = os.path.join(parent, name)
            digest.update(os.path.relpath(path, ROOT).replace(os.sep, "/").encode() + b"\0")
            with open(path, "rb") as f:
                digest.update(f.read())
    return digest.hexdigest()[:24]


REUSE_KEEP = 8     # zips kept in a --reuse folder (the newest): a full run's (each line's,
                   # with and without kernels) and a few edits


def reuse(folder, key, name, out):
    """The zip `name` built before from the inputs `key` into `folder` (--reuse), put at `out`;
    False if there is none."""
    kept = os.path.join(folder, key, name)
    if os.path.exists(out):
        os.remove(out)
    try:                  # another run's keep() may prune the entry meanwhile: then build
        try:
            os.link(kept, out)
        except FileNotFoundError:
            return False
        except OSError:
            shutil.copy2(kept, out)
        os.utime(os.path.join(folder, key))      # the newest used, for keep()
    except FileNotFoundError:
        return False
    print(f"build_extension: {name} of these inputs from {folder} (built before)", flush=True)
    return True


def keep(folder, key, out):
    """Keep the accepted zip `out` in `folder` under its inputs' `key`; the REUSE_KEEP
    newest entries stay."""
    entry = os.path.join(folder, key)
    try:          # a cache only: runs side by side (tools/test.sh) may prune each other's
        os.makedirs(entry, exist_ok=True)
        tmp = os.path.join(entry, f".{os.path.basename(out)}.{os.getpid()}")
        shutil.copy2(out, tmp)
        os.replace(tmp, os.path.join(entry, os.path.basename(out)))
        os.utime(entry)
    except FileNotFoundError:
        return
    entries = []
    for e in os.listdir(folder):
        try:
            entries.append((os.path.getmtime(os.path.join(folder, e)), e))
        except FileNotFoundError:
            pass
    for _, old in sorted(entries)[:-REUSE_KEEP]:
        shutil.rmtree(os.path.join(folder, old), ignore_errors=True)


def manifest_lines(manifest):
    """The Python lines the manifest's wheels are built for, in PYTHON_LINES order."""
    found = {wheel_python(os.path.basename(w)) for w in manifest.get("wheels", [])} - {None}
    unknown = found - set(PYTHON_LINES)
    if unknown:
        raise SystemExit(f"build_extension: wheels for Python {sorted(unknown)}, which no "
                         f"Blender this tool knows runs (PYTHON_LINES: {list(PYTHON_LINES)})")
    return [line for line in PYTHON_LINES if line in found]


def build(output_dir, platforms=None, lines=None, wheel_dir=None, blender=None, kernels=True,
          reuse_dir=None):
    """Build the zips for `platforms` x Python `lines` (default: all the manifest has) and
    return their paths. Given `reuse_dir`, a zip built there before from the same inputs
    (input_key) is taken instead of building it again, and each zip built is kept there."""
    with open(os.path.join(ROOT, "blender_manifest.toml"), "rb") as f:
        manifest = tomllib.load(f)
    all_platforms = manifest.get("platforms", [])
    platforms = platforms or all_platforms
    unknown = [p for p in platforms if p not in all_platforms]
    if unknown:
        raise SystemExit(f"build_extension: unknown platform(s) {unknown}; the manifest lists "
                         f"{all_platforms}")
    all_lines = manifest_lines(manifest)
    lines = lines or all_lines
    unknown = [line for line in lines if line not in all_lines]
    if unknown:
        raise SystemExit(f"build_extension: no wheels for Python {unknown}; the manifest's "
                         f"wheels are for {all_lines}")
    wheel_dir = os.path.abspath(wheel_dir or os.path.join(ROOT, "build", "wheels"))
    os.makedirs(wheel_dir, exist_ok=True)
    output_dir = os.path.abspath(output_dir)
    os.makedirs(output_dir, exist_ok=True)
    builder = find_builder(blender)
    zips = []
    for p in platforms:
        for line in lines:
            mine = [os.path.basename(w) for w in manifest.get("wheels", [])
                    if wheel_matches(os.path.basename(w), p, line)]
            if not any(wheel_python(w) for w in mine):
                raise SystemExit(f"build_extension: the manifest lists no wheels for {p}, "
                                 f"Python {line}")
            # one download at a time: both lines' builds may run at once (tools/test.sh),
            # and their pure wheels are the same files
            with _locked(os.path.join(wheel_dir, ".download.lock")):
                for name in mine:
                    if not os.path.exists(os.path.join(wheel_dir, name)):
                        download_wheel(name, wheel_dir)
            wheels = [os.path.join(wheel_dir, name) for name in mine]
            out = os.path.join(output_dir, zip_name(manifest, p, line))
            with_kernels = kernels and p == native_platform()
            if reuse_dir:
                key = input_key(p, line, wheels, builder, with_kernels)
                if reuse(reuse_dir, key, os.path.basename(out), out):
                    zips.append(out)
                    continue
            kernel_python = kernel_env(line, wheels) if with_kernels else None
            with tempfile.TemporaryDirectory(prefix="ligament-build-") as tmp:
                staging = os.path.join(tmp, "ligament")
                stage(staging, p, line, wheels, kernel_python)
                cmd = [*builder, "build", "--source-dir", staging, "--output-filepath", out]
                proc = subprocess.run(cmd, capture_output=True, text=True)
                sys.stdout.write(proc.stdout)
                if proc.returncode != 0 or not os.path.exists(out):
                    sys.stderr.write(proc.stderr)
                    raise SystemExit(f"build_extension: Blender's builder failed "
                                     f"(exit {proc.returncode}) for {os.path.basename(out)}")
            if kernel_python:
                verify_kernels(out, kernel_python)
            if reuse_dir:
                keep(reuse_dir, key, out)
            zips.append(out)
    return zips


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--output-dir", help="where the zips go")
    p.add_argument("--prepare-kernels", metavar="PYTHON", action="append", default=[],
                   help="instead of building: compile the kernels of these sources for this "
                        "Python's numba into the kernel store unless they are there, and print "
                        "the store entry (tools/test.sh does, once per environment)")
    p.add_argument("--adopt-kernels", nargs=2, metavar=("FOLDER", "STORE_NAME"),
                   help="instead of building: make FOLDER, a complete kernel set a first run "
                        "compiled, the kernel store's entry STORE_NAME "
                        "(py311-numba-V-llvmlite-V-numpy-V) for these sources unless it is "
                        "complete (tests/addon/test_first_run.py does), and print the entry")
    p.add_argument("--platform", action="append", dest="platforms",
                   help="build only this platform (repeatable); default: every platform in "
                        "the manifest")
    p.add_argument("--python", action="append", dest="lines", choices=sorted(PYTHON_LINES),
                   help="build only the zip for this Python line (repeatable): 3.11 for "
                        "Blender 4.2-5.0, 3.13 for Blender 5.1 and later; default: both")
    p.add_argument("--wheel-dir", help="wheel cache (default: build/wheels)")
    p.add_argument("--blender", help="a Blender executable to build with instead of the bpy "
                                     "wheel's builder")
    p.add_argument("--reuse", metavar="DIR",
                   help="take a zip built before into DIR from the same inputs (the sources "
                        "it ships, its wheels, platform, Python line, builder and kernels) "
                        "instead of building it again, and keep each zip built there (the "
                        "add-on tests do, in build/zips/)")
    p.add_argument("--no-kernels", action="store_true",
                   help="leave the compiled kernels out of this platform's zips (the extension "
                        "then prepares them in the background on first use)")
    args = p.parse_args(argv)
    if args.adopt_kernels:
        print(adopt_kernels(*args.adopt_kernels))
        return
    if args.prepare_kernels:
        for python in args.prepare_kernels:
            print(kernel_store(os.path.abspath(python)))
        return
    if not args.output_dir:
        p.error("--output-dir is required")
    for z in build(args.output_dir, args.platforms, args.lines, args.wheel_dir, args.blender,
                   kernels=not args.no_kernels,
                   reuse_dir=os.path.abspath(args.reuse) if args.reuse else None):
        print(z)


if __name__ == "__main__":
    main()
