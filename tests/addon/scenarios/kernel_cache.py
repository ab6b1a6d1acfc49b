"""test_kernel_cache_unwritable.py's scenario: a cube dropped in a Blender whose kernel
cache folder it may not write."""

import bpy

from .helpers import box, lig


# The names the solver package is imported under: the extension's own
# (`_ligament_solver_<hash>`, solver/jit.py) or `solver`.
SOLVER_PACKAGES = ("_ligament_solver", "solver")


def _compile_listener():
    """A numba event listener keeping the solver kernels that compile (not load from the
    cache) while it listens, as "module.function", in its `names`. numba comes with the
    extension's wheels: imported once the extension is enabled."""
    from numba.core import event

    class Compiled(event.Listener):
        names = []

        def on_start(self, ev):
            pass

        def on_end(self, ev):
            f = ev.data["dispatcher"].py_func
            parts = f.__module__.split(".")
            top = [i for i, p in enumerate(parts) if p.startswith(SOLVER_PACKAGES)]
            if top:
                self.names.append(".".join(parts[top[0] + 1:] + [f.__qualname__]))
    return event, Compiled()


def drop_cube():
    """Whether the kernels counted as prepared before the first frame, where the cube is
    after three frames (24 fps) from z = 2, the solver kernels that compiled meanwhile,
    and the simulation's error, if any."""
    scene = bpy.context.scene
    box("Ground", (4, 4, 1), (0, 0, -0.5), kind='STATIC')
    cube = box("Cube", (1, 1, 1), (0, 0, 2))
    ready = lig().addon.kernels.ready()
    event, compiled = _compile_listener()
    with event.install_listener("numba:compile", compiled):
        for f in range(1, 5):
            scene.frame_set(f)
    return {"ready": ready, "z": cube.matrix_world.translation.z,
            "compiled": sorted(set(compiled.names)),
            "error": lig().addon.runtime.cache.error(scene)}
