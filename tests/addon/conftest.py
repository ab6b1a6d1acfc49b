"""Real Blender through the `bpy` wheel: build the extension zip with tools/build_extension.py,
install it into an isolated user folder, and run each scenario in its own Blender process
(bpy can be imported only once per process, and a crash must not take pytest down).

The zip built here carries the solver's compiled kernels (tools/build_extension.py), so no
scenario compiles; the user folder is kept between runs (see `blender`) and an unchanged zip
is not reinstalled.
"""

import importlib.util
import json
import os
import platform
import subprocess
import sys
import textwrap

import pytest

if importlib.util.find_spec("bpy") is None:  # same as pytest.importorskip, without importing
    pytest.skip("the bpy wheel is not installed (pip install bpy==5.0.1)", allow_module_level=True)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MODULE = "bl_ext.user_default.ligament"


def current_platform():
    machine = platform.machine().lower()
    arch = "arm64" if machine in {"arm64", "aarch64"} else "x64"
    system = {"linux": "linux", "win32": "windows", "darwin": "macos"}[sys.platform]
    return f"{system}-{arch}"


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

    def box(name, size, location, rotation=(0, 0, 0), kind='DYNAMIC', **settings):
        # A unit cube scaled to `size`: the shape must come from the object's scale.
        bpy.ops.mesh.primitive_cube_add(size=1, location=location, rotation=rotation)
        obj = bpy.context.active_object
        obj.name = name
        obj.scale = size
        s = obj.ligament_body
        s.enabled = True
        s.kind = kind
        for key, value in settings.items():
            setattr(s, key, value)
        return obj

    def joint(name, type, a, b, location, rotation=(0, 0, 0), **settings):
        empty = bpy.data.objects.new(name, None)
        scene.collection.objects.link(empty)
        empty.location = location
        empty.rotation_euler = rotation
        j = empty.ligament_joint
        j.enabled, j.type, j.object_a, j.object_b = True, type, a, b
        for key, value in settings.items():
            setattr(j, key, value)
        bpy.context.view_layer.update()
        return empty

    def transforms(objs):
        return [[list(v) for v in o.matrix_world] for o in objs]

    def result(value):
        print("RESULT:" + json.dumps(value))
""")


class Blender:
    def __init__(self, home):
        self.home = home

    def run(self, *scripts, timeout=600):
        """Run `scripts` (after PRELUDE) in a fresh Blender; return what it passed to result()."""
        script = "\n".join(textwrap.dedent(s) for s in scripts)
        env = dict(os.environ, BLENDER_USER_RESOURCES=self.home)
        env.pop("NUMBA_CACHE_DIR", None)
        proc = subprocess.run([sys.executable, "-c", PRELUDE + script],
                              capture_output=True, text=True, timeout=timeout, env=env,
                              cwd=self.home)
        lines = [l for l in proc.stdout.splitlines() if l.startswith("RESULT:")]
        if proc.returncode != 0 or not lines:
            raise AssertionError(f"Blender scenario failed (exit {proc.returncode}):\n"
                                 f"--- stdout\n{proc.stdout[-4000:]}\n--- stderr\n"
                                 f"{proc.stderr[-6000:]}")
        self.stdout, self.stderr = proc.stdout, proc.stderr
        return json.loads(lines[-1][len("RESULT:"):])


INSTALL = """
import bpy
result = bpy.ops.extensions.package_install_files(filepath={zip!r}, repo='user_default',
                                                   enable_on_install=True)
assert result == {{'FINISHED'}}, result
"""


def install(zip_path, home):
    """Install the zip into the Blender user folder `home` as a user does (Install from
    Disk), in a Blender process of its own."""
    env = dict(os.environ, BLENDER_USER_RESOURCES=home)
    env.pop("NUMBA_CACHE_DIR", None)
    proc = subprocess.run([sys.executable, "-c", INSTALL.format(zip=zip_path)],
                          capture_output=True, text=True, timeout=600, env=env, cwd=home)
    assert proc.returncode == 0, proc.stdout + proc.stderr


# A zip without kernels compiles them in the warm-up (about a minute, more on a loaded
# machine); only the one-off warm-up gets this much room, every other script keeps 600 s.
WARM_UP_TIMEOUT = 3600


@pytest.fixture(scope="session")
def extension_zip(tmp_path_factory):
    out = tmp_path_factory.mktemp("dist")
    proc = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "build_extension.py"),
                           "--output-dir", str(out), "--platform", current_platform()],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout.strip().splitlines()[-1]


def _zip_stamp(path):
    import zipfile
    with zipfile.ZipFile(path) as z:
        return "\n".join(f"{i.filename} {i.CRC} {i.file_size}" for i in
                         sorted(z.infolist(), key=lambda i: i.filename))


@pytest.fixture(scope="session")
def blender(extension_zip):
    """An isolated Blender user folder (not the user's own) with the extension installed and
    the solver compiled.

    The folder is build/test-blender/ (or $LIGAMENT_TEST_BLENDER_HOME) and survives between
    runs. The zip is installed whenever its contents differ from the installed one (always
    on a fresh checkout)."""
    home = os.environ.get("LIGAMENT_TEST_BLENDER_HOME") or os.path.join(ROOT, "build",
                                                                        "test-blender")
    os.makedirs(home, exist_ok=True)
    stamp_path = os.path.join(home, "installed-zip.txt")
    stamp = _zip_stamp(extension_zip)
    installed = open(stamp_path).read() if os.path.exists(stamp_path) else None
    env = dict(os.environ, BLENDER_USER_RESOURCES=home)
    env.pop("NUMBA_CACHE_DIR", None)
    install = textwrap.dedent(f"""
        import bpy
        result = bpy.ops.extensions.package_install_files(
            filepath={extension_zip!r}, repo='user_default', enable_on_install=True)
        assert result == {{'FINISHED'}}, result
    """)
    if installed != stamp:
        proc = subprocess.run([sys.executable, "-c", install], capture_output=True, text=True,
                              timeout=600, env=env, cwd=home)
        assert proc.returncode == 0, proc.stdout + proc.stderr
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
        result(lig.addon.cache.error(scene))
    """, timeout=WARM_UP_TIMEOUT)
    return b
