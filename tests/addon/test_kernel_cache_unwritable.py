"""A kernel cache folder Blender may not write (LIGAMENT_KERNEL_CACHE on a farm's read-only
share): another process could not hand kernels over in it, so Blender loads the kernels it
holds, compiles the ones it lacks in memory, says so once, and simulates."""

import glob
import os
import shutil
import stat
import sys

import pytest

import conftest
from conftest import Blender, build_zip, install

# Two small kernels that a falling cube's frames call from Python (not only from another
# cached kernel, whose own cache entry would hold them): the share lacks their files.
MISSING = ("bodies.state_fault", "contacts.collide_end")

# Runs the Blender's Python bound by the folders' permissions even as root: without
# CAP_DAC_OVERRIDE in its bounding set, root after exec writes only where the mode bits
# let the owner write (as tests/solver/test_cold_cache_processes.py's children).
_BOUND = """#!{python}
import ctypes, os, sys
if os.geteuid() == 0:
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(24, 1, 0, 0, 0) != 0:          # PR_CAPBSET_DROP, CAP_DAC_OVERRIDE
        raise OSError(ctypes.get_errno(), "prctl")
os.execv({blender!r}, [{blender!r}] + sys.argv[1:])
"""


def _share(shipped, share):
    """A read-only copy of the complete kernel set `shipped` without READY and the files of
    `MISSING`, as a farm's share that another Python's or numba's run left incomplete."""
    prefixes = tuple(name + "-" for name in MISSING)
    left_out = []

    def leave_out(folder, names):
        out = [n for n in names if n.startswith(("READY",) + prefixes)]
        left_out.extend(out)
        return out
    shutil.copytree(shipped, share / os.path.basename(shipped), ignore=leave_out)
    assert any(n.startswith("READY") for n in left_out), "the zip's set is not complete"
    assert {n.rpartition("-")[0] for n in left_out if n.endswith(".nbi")} == set(MISSING)
    for folder, dirs, files in os.walk(share):
        os.chmod(folder, 0o555)
        for name in files:
            os.chmod(os.path.join(folder, name), 0o444)


def _listing(folder):
    return sorted(os.path.relpath(os.path.join(d, n), folder)
                  for d, _, names in os.walk(folder) for n in names)


@pytest.mark.release
def test_a_kernel_cache_blender_cannot_write_simulates_and_says_so(tmp_path, monkeypatch):
    zip_path = build_zip(tmp_path / "dist")
    home = tmp_path / "home"
    home.mkdir()
    install(zip_path, str(home))
    shipped = glob.glob(os.path.join(home, "**", "solver", "_kernels", "*", ""),
                        recursive=True)
    assert len(shipped) == 1, shipped
    share = tmp_path / "share"
    _share(os.path.dirname(shipped[0]), share)
    before = _listing(share)
    env = conftest.blender_env
    monkeypatch.setattr(conftest, "blender_env",
                        lambda h: dict(env(h), LIGAMENT_KERNEL_CACHE=str(share)))
    bound = tmp_path / "bound-python"
    bound.write_text(_BOUND.format(python=sys.executable, blender=conftest.BLENDER_PYTHON))
    bound.chmod(bound.stat().st_mode | stat.S_IXUSR)
    b = Blender(str(home), python=str(bound))
    try:
        out = b.call_fresh("kernel_cache.drop_cube", timeout=conftest.WARM_UP_TIMEOUT)
    finally:
        for folder, dirs, files in os.walk(share):
            os.chmod(folder, 0o755)
    assert out["ready"] and out["error"] is None, out
    # three frames at 24 fps: at least half the free-fall drop g t^2 / 2
    assert out["z"] < 2.0 - 0.5 * (0.5 * 9.81 * (3 / 24) ** 2), out
    assert sorted(out["compiled"]) == sorted(MISSING), out
    folder = os.path.join(share, os.path.basename(os.path.dirname(shipped[0])))
    assert b.stderr.count("is not writable") == 1 and folder in b.stderr, b.stderr
    assert _listing(share) == before
