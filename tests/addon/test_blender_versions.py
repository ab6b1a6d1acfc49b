"""Every Blender a user has: the zip of this run's Python line installs, plays and bakes in the
other Blender versions of that line (tools/blenders.txt, role "smoke": 4.2 LTS and 4.5 LTS
beside the 3.11 suite's 5.0, 5.2 LTS beside the 3.13 suite's 5.3), each in an environment
with bpy and numpy only, as a user installs it (tools/release_check.py: Install from Disk
into a fresh user folder, play, bake, play the keys back, clear the bake).
"""

import json
import os
import shutil
import subprocess

import pytest

from conftest import PYTHON_LINE, ROOT, blender_python, blender_versions

pytestmark = pytest.mark.release

SMOKE = [r["version"] for r in blender_versions()
         if r["role"] == "smoke" and r["python"] == PYTHON_LINE]

G, FPS = 9.81, 24
SUBSTEPS, DAMPING = 8, 0.04      # the world's and a body's defaults (addon/properties.py)


@pytest.mark.parametrize("version", SMOKE)
def test_the_zip_installs_plays_and_bakes_in_blender(version, extension_zip):
    python = blender_python(version)
    if not os.path.exists(python):
        pytest.fail(f"Blender {version} is not set up: bash tools/setup.sh blender-{version}")
    proc = subprocess.run([python, os.path.join(ROOT, "tools", "release_check.py"),
                           extension_zip, "--json"], capture_output=True, text=True,
                          timeout=600)
    lines = [l for l in proc.stdout.splitlines() if l.startswith("RESULT:")]
    assert proc.returncode == 0 and lines, proc.stdout[-3000:] + proc.stderr[-3000:]
    out = json.loads(lines[-1][len("RESULT:"):])
    shutil.rmtree(out["home"], ignore_errors=True)
    assert out["version"].startswith(version.rsplit(".", 1)[0]), out["version"]
    # the numba the zip bundles, loading the zip's kernels (release_check fails otherwise)
    assert out["installed_numba"] and out["compiled"] == 0, out
    live = {int(f): v for f, v in out["live"].items()}
    # Free fall until the crate (0.25 m half height) nears the floor: z = 3 - g t^2 / 2, less
    # what the body's default linear damping c takes (c g t^3 / 6 to first order), plus the
    # lead of semi-implicit Euler at the substep h (g t h / 2: velocity first, then position).
    h = 1 / (FPS * SUBSTEPS)
    for f in range(2, 13):
        t = (f - 1) / FPS
        drop = G * t * (t + h) / 2 - DAMPING * G * t ** 3 / 6
        assert live[f][0][2] == pytest.approx(3.0 - drop, abs=1e-3), f
    # landed and resting on the floor, its centre a half height up
    assert live[48][0][2] == pytest.approx(0.25, abs=5e-3)
    # the pendulum swings: the bar's centre stays 0.5 m from the hinge and falls below it
    for f in (12, 24, 48):
        x, _, z = live[f][1]
        assert ((x - 3) ** 2 + (z - 2) ** 2) ** 0.5 == pytest.approx(0.5, abs=1e-3), f
    assert min(v[1][2] for v in live.values()) < 1.6
    # one key per frame on every transform channel, playing back what was simulated
    assert out["keys"] and set(out["keys"].values()) == {48}, out["keys"]
    for f, poses in live.items():
        for a, b in zip(poses, out["replay"][str(f)]):
            assert a == pytest.approx(b, abs=1e-4), f
    assert out["cleared"]


REFUSE = """
import sys, bpy
result = bpy.ops.extensions.package_install_files(filepath={zip!r}, repo='user_default',
                                                   enable_on_install=True)
print("ENABLED:" + str(sorted(m for m in bpy.context.preferences.addons.keys() if "ligament" in m)))
"""


def test_a_blender_of_the_other_python_line_refuses_the_zip(extension_zip, tmp_path):
    """Its manifest's Blender versions keep the zip out of a Blender whose Python its numba
    cannot serve (the 3.11 zip out of 5.3, the 3.13 zip out of 5.0), with a message naming
    the version, instead of an add-on that fails on import."""
    other = next(r for r in blender_versions() if r["role"] == "suite"
                 and r["python"] != PYTHON_LINE)
    python = blender_python(other["version"])
    if not os.path.exists(python):
        pytest.fail(f"Blender {other['version']} is not set up: bash tools/setup.sh "
                    f"blender-{other['version']}")
    env = dict(os.environ, BLENDER_USER_RESOURCES=str(tmp_path))
    proc = subprocess.run([python, "-c", REFUSE.format(zip=extension_zip)], capture_output=True,
                          text=True, timeout=600, env=env, cwd=str(tmp_path))
    assert "ENABLED:[]" in proc.stdout, proc.stdout[-2000:] + proc.stderr[-2000:]
    said = proc.stdout + proc.stderr
    assert f"This Blender version ({other['version']})" in said, said[-2000:]
    # "... doesn't meet the minimum supported version (5.1.0)" or "... must be less than the
    # maximum version (5.1.0)": the boundary between the Python lines
    assert "version (5.1.0)" in said, said[-2000:]
