"""The first run: the linux-x64 zip carries the compiled kernels, so a fresh install (and a
reinstall of the same zip) simulates without compiling; where a zip carries none, the
kernels are prepared in another process while playback reports progress instead of
blocking, and the same scene simulates once they are ready."""

import zipfile

import pytest

from conftest import PYTHON_LINE, Blender, adopt_kernels, build_zip, install

SCENE = """
ground = box("Ground", (4, 4, 1), (0, 0, -0.5), kind='STATIC')
cube = box("Cube", (1, 1, 1), (0, 0, 2))
post = box("Post", (0.2, 0.2, 0.2), (2, 0, 2), kind='STATIC')
bar = box("Bar", (1, 0.1, 0.1), (2.5, 0, 2))
joint("J", 'HINGE', post, bar, (2, 0, 2))
k = lig.addon.kernels
from numba.core.dispatcher import Dispatcher
def compiled():
    return sum(sum(v.stats.cache_misses.values()) for m, mod in list(sys.modules.items())
               if m.startswith(k.MODULE_NAME) for v in vars(mod).values()
               if isinstance(v, Dispatcher))
"""

@pytest.mark.release
def test_zip_carries_the_kernels_of_its_own_python_and_numba(extension_zip):
    with zipfile.ZipFile(extension_zip) as z:
        names = z.namelist()
    kernels = [n for n in names if n.startswith("solver/_kernels/")]
    numba = next(n for n in names if n.startswith("wheels/numba-")).split("-")[1]
    tag = "py" + PYTHON_LINE.replace(".", "")
    # a complete set, compiled by the Python and the numba that the zip bundles
    assert any(n.endswith(f"/READY-{tag}-numba-{numba}") for n in kernels), kernels[:5]
    index = [n for n in kernels if n.endswith(".nbi")]
    assert len(index) > 50 and all(n.endswith(f".{tag}.nbi") for n in index)


def test_fresh_install_and_reinstall_simulate_without_compiling(extension_zip, tmp_path):
    home = str(tmp_path)
    b = Blender(home)
    for attempt in range(2):            # a fresh install, then the same zip over it
        install(extension_zip, home)
        out = b.run_fresh(SCENE, """
            ready = k.ready()
            for f in range(1, 5):
                scene.frame_set(f)
            result({"ready": ready, "compiled": compiled(), "z": cube.matrix_world.translation.z,
                     "error": lig.addon.runtime.cache.error(scene)})
        """)
        assert out["ready"] and out["error"] is None, out
        assert out["compiled"] == 0, out
        # three frames at 24 fps: at least half the free-fall drop g t^2 / 2
        assert out["z"] < 2.0 - 0.5 * (0.5 * 9.81 * (3 / 24) ** 2), out


@pytest.fixture(scope="module")
def zip_without_kernels(tmp_path_factory):
    return build_zip(tmp_path_factory.mktemp("dist-nokernels"), "--no-kernels")


@pytest.mark.release
def test_playback_before_the_kernels_are_ready_reports_progress_and_does_not_block(
        zip_without_kernels, tmp_path):
    home = str(tmp_path)
    install(zip_without_kernels, home)
    out = Blender(home).run_fresh(SCENE, """
        import time
        k.blocking = lambda: False        # behave as with a UI: never prepare in the foreground
        before = k.ready()
        scene.frame_set(1)
        scene.frame_set(2)
        preparing = k.running()           # the frame returned while the other process compiles
        message = k.status()
        z_waiting = cube.matrix_world.translation.z
        t0 = time.time()
        while k.running() and time.time() - t0 < 900:
            time.sleep(0.5)
        ready = k.ready()
        for f in range(1, 5):
            scene.frame_set(f)
        import llvmlite, numba, numpy
        result({"before": before, "preparing": preparing, "message": message,
                "z_waiting": z_waiting, "ready": ready, "z": cube.matrix_world.translation.z,
                "status": k.status(), "error": lig.addon.runtime.cache.error(scene),
                "compiled": compiled(), "kernels": k.warmup.jit.CACHE_FOLDER,
                "cpu": numba.core.config.CPU_NAME,
                "versions": "py%d%d-numba-%s-llvmlite-%s-numpy-%s" % (
                    *sys.version_info[:2], numba.__version__, llvmlite.__version__,
                    numpy.__version__)})
    """, timeout=1200)
    assert out["before"] is False
    assert out["preparing"] is True
    assert out["message"].startswith("Preparing the solver, first run only:"), out
    assert out["z_waiting"] == pytest.approx(2.0)
    assert out["ready"] and out["status"] is None and out["error"] is None, out
    assert out["z"] < 1.99, out
    # Blender compiled nothing itself: the frames ran on what the other process prepared
    assert out["compiled"] == 0, out
    # That set is what tools/build_extension.py --prepare-kernels would compile (the same
    # program, Python, numba, llvmlite and NumPy on these sources, for the portable CPU):
    # the kernel store takes it unless it has it, so this line's cold compile is done once
    # (tools/test.sh runs this test before the others; the zips built from the store are
    # loaded before they are accepted)
    if out["cpu"] == "generic":
        adopt_kernels(out["kernels"], out["versions"])
