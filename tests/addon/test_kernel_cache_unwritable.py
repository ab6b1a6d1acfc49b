"""A kernel cache folder Blender may not write (LIGAMENT_KERNEL_CACHE on a farm's read-only
share, a path that cannot be made): another process could not hand kernels over in it, so
Blender compiles the ones it lacks in memory, says so once, and simulates."""

import pytest

import conftest
from conftest import Blender, build_zip, install


@pytest.mark.release
def test_a_kernel_cache_blender_cannot_write_simulates_and_says_so(tmp_path, monkeypatch):
    zip_path = build_zip(tmp_path / "dist", "--no-kernels")
    home = tmp_path / "home"
    home.mkdir()
    install(zip_path, str(home))
    blocked = tmp_path / "a-file"
    blocked.write_text("")                      # no folder can be made under a file
    kernels = blocked / "kernels"
    env = conftest.blender_env
    monkeypatch.setattr(conftest, "blender_env",
                        lambda h: dict(env(h), LIGAMENT_KERNEL_CACHE=str(kernels)))
    b = Blender(str(home))
    out = b.call_fresh("kernel_cache.drop_cube", timeout=conftest.WARM_UP_TIMEOUT)
    assert out["ready"] and out["error"] is None, out
    # three frames at 24 fps: at least half the free-fall drop g t^2 / 2
    assert out["z"] < 2.0 - 0.5 * (0.5 * 9.81 * (3 / 24) ** 2), out
    assert b.stderr.count("is not writable") == 1 and str(kernels) in b.stderr, b.stderr
