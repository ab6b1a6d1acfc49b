#!/usr/bin/env python3
"""Build the Ligament extension zips with Blender's own extension builder.

    python tools/build_extension.py --output-dir dist
    python tools/build_extension.py --output-dir dist --platform linux-x64

One zip per platform (`--split-platforms`), each with the numba and llvmlite wheels listed in
blender_manifest.toml for that platform, and the pure-Python wheels (`py3-none-any`: sympy and
mpmath, which derive custom constraints) in every zip. The zip of the platform this runs on
also carries the solver's compiled kernels (solver/_kernels/, built by `addon/kernels.py
--prepare` in the staged copy, for numba's portable CPU target), so the installed extension
simulates at once; `--no-kernels` leaves them out. Other platforms' extensions compile them
once, in the background, on first use. Wheels are downloaded from PyPI with pip once and kept
in build/wheels/ (git-ignored; `--wheel-dir` to change). The builder is Blender's
`blender_ext.py`: taken from the `bpy` wheel when it is installed, else from `--blender`
(runs `blender --command extension build`).
"""

import argparse
import glob
import platform as platform_mod
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib

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

# Not shipped, and not worth copying into the staging folder (the manifest's
# paths_exclude_pattern is the authority on what the zip holds).
STAGE_SKIP = {".git", "build", "dist", "tests", "bench", "tools", "docs", ".ci", "__pycache__",
              ".pytest_cache", ".venv", "wheels"}
KERNEL_PATTERNS = ('  "*.nbi",\n', '  "*.nbc",\n')


def native_platform():
    """This machine's Blender platform name ('linux-x64')."""
    machine = platform_mod.machine().lower()
    arch = "arm64" if machine in {"arm64", "aarch64"} else "x64"
    system = {"linux": "linux", "win32": "windows", "darwin": "macos"}[sys.platform]
    return f"{system}-{arch}"


def compile_kernels(staging):
    """Compile the solver's kernels into the staged copy (solver/_kernels/<source hash>/),
    the way the installed extension's background preparation would."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("NUMBA_CACHE_DIR", "LIGAMENT_KERNEL_CACHE", "NUMBA_CPU_NAME",
                        "NUMBA_CPU_FEATURES", "LIGAMENT_CPU")}
    print("build_extension: compiling the solver's kernels for the zip", flush=True)
    proc = subprocess.run([sys.executable, os.path.join(staging, "addon", "kernels.py"),
                           "--prepare"], capture_output=True, text=True, env=env)
    if proc.returncode != 0:
        raise SystemExit("build_extension: compiling the kernels failed:\n"
                         + proc.stdout[-3000:] + proc.stderr[-3000:])


def wheel_platform(filename):
    """The platform part of a wheel file name ('manylinux2014_x86_64.manylinux_2_17_x86_64')."""
    return filename[:-len(".whl")].split("-")[-1]


def wheel_matches(filename, platform):
    """Whether the wheel installs on `platform`: its platform tag names it, or it is pure
    Python ('any', every platform)."""
    prefix, arch = PLATFORM_TAGS[platform]
    return any(tag == "any" or (tag.startswith(prefix) and tag.endswith(arch))
               for tag in wheel_platform(filename).split("."))


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


def find_builder(blender):
    if blender:
        return [blender, "--factory-startup", "--command", "extension"]
    spec = importlib.util.find_spec("bpy")
    if spec is not None and spec.submodule_search_locations:
        for base in spec.submodule_search_locations:
            hits = sorted(glob.glob(os.path.join(
                base, "*", "scripts", "addons_core", "bl_pkg", "cli", "blender_ext.py")))
            if hits:
                return [sys.executable, hits[-1]]
    raise SystemExit("build_extension: Blender's extension builder was not found. Install the "
                     "`bpy` wheel in this Python (pip install bpy) or pass --blender PATH.")


def stage(staging, platforms, wheels, kernels=False):
    """Copy the extension sources and the chosen wheels into `staging`, with a manifest that
    lists only those platforms and wheels (and, with `kernels`, the compiled kernels)."""
    def ignore(directory, names):
        top = os.path.abspath(directory) == ROOT
        return [n for n in names if n in {"__pycache__", ".pytest_cache", ".git", "_kernels"}
                or (top and n in STAGE_SKIP) or n.endswith((".pyc", ".nbi", ".nbc", ".zip"))]
    shutil.copytree(ROOT, staging, ignore=ignore)
    os.makedirs(os.path.join(staging, "wheels"))
    for src in wheels:
        shutil.copy2(src, os.path.join(staging, "wheels", os.path.basename(src)))
    path = os.path.join(staging, "blender_manifest.toml")
    text = open(path, encoding="utf-8").read()
    text = re.sub(r"(?ms)^platforms = \[.*?\]", "platforms = [" + ", ".join(
        f'"{p}"' for p in platforms) + "]", text)
    text = re.sub(r"(?ms)^wheels = \[.*?\n\]", "wheels = [\n" + "".join(
        f'  "./wheels/{os.path.basename(w)}",\n' for w in wheels) + "]", text)
    if kernels:
        compile_kernels(staging)
        for pattern in KERNEL_PATTERNS:
            text = text.replace(pattern, "")
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def build(output_dir, platforms=None, wheel_dir=None, blender=None, kernels=True):
    """Build and return the list of zip paths."""
    with open(os.path.join(ROOT, "blender_manifest.toml"), "rb") as f:
        manifest = tomllib.load(f)
    all_platforms = manifest.get("platforms", [])
    platforms = platforms or all_platforms
    unknown = [p for p in platforms if p not in all_platforms]
    if unknown:
        raise SystemExit(f"build_extension: unknown platform(s) {unknown}; the manifest lists "
                         f"{all_platforms}")
    wheel_dir = os.path.abspath(wheel_dir or os.path.join(ROOT, "build", "wheels"))
    os.makedirs(wheel_dir, exist_ok=True)
    wheels = {}
    for p in platforms:
        mine = [os.path.basename(w) for w in manifest.get("wheels", [])
                if wheel_matches(os.path.basename(w), p)]
        if not mine:
            raise SystemExit(f"build_extension: the manifest lists no wheels for {p}")
        for name in mine:
            if not os.path.exists(os.path.join(wheel_dir, name)):
                download_wheel(name, wheel_dir)
            wheels.setdefault(p, []).append(os.path.join(wheel_dir, name))
    # the native platform's zip gets the kernels; the others share one staging without them
    groups = [[p] for p in platforms if kernels and p == native_platform()]
    rest = [p for p in platforms if not groups or p != groups[0][0]]
    groups += [rest] if rest else []

    output_dir = os.path.abspath(output_dir)
    os.makedirs(output_dir, exist_ok=True)
    builder = find_builder(blender)
    for group in groups:
        with tempfile.TemporaryDirectory(prefix="ligament-build-") as tmp:
            staging = os.path.join(tmp, "ligament")
            stage(staging, group, [w for p in group for w in wheels[p]],
                  kernels=kernels and group == [native_platform()])
            cmd = [*builder, "build", "--source-dir", staging, "--output-dir", output_dir,
                   "--split-platforms"]
            proc = subprocess.run(cmd, capture_output=True, text=True)
            sys.stdout.write(proc.stdout)
            if proc.returncode != 0:
                sys.stderr.write(proc.stderr)
                raise SystemExit(f"build_extension: Blender's builder failed "
                                 f"(exit {proc.returncode})")
    version = manifest["version"]
    zips = [os.path.join(output_dir, f"{manifest['id']}-{version}-{p.replace('-', '_')}.zip")
            for p in platforms]
    missing = [z for z in zips if not os.path.exists(z)]
    if missing:
        raise SystemExit(f"build_extension: the builder did not write {missing}")
    return zips


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--output-dir", required=True, help="where the zips go")
    p.add_argument("--platform", action="append", dest="platforms",
                   help="build only this platform (repeatable); default: every platform in "
                        "the manifest")
    p.add_argument("--wheel-dir", help="wheel cache (default: build/wheels)")
    p.add_argument("--blender", help="a Blender executable to build with instead of the bpy "
                                     "wheel's builder")
    p.add_argument("--no-kernels", action="store_true",
                   help="leave the compiled kernels out of this platform's zip (the extension "
                        "then prepares them in the background on first use)")
    args = p.parse_args(argv)
    for z in build(args.output_dir, args.platforms, args.wheel_dir, args.blender,
                   kernels=not args.no_kernels):
        print(z)


if __name__ == "__main__":
    main()
