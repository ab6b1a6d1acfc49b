"""bench/kernel_profile.py names the solver's compiled functions for perf and gdb: the map it
writes must put each name at the address numba itself calls, or a profile credits the wrong
kernel. Checked against numba's own lookup of the step's entry points, and the short names
against the Python functions they were compiled from."""

import importlib.util
import os

import numpy as np

import solver as lg
from solver import step

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _tool():
    spec = importlib.util.spec_from_file_location(
        "kernel_profile", os.path.join(ROOT, "bench", "kernel_profile.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _stepped_world():
    w = lg.World()
    ground = w.add_body(lg.Box((5.0, 5.0, 0.5)), (0.0, 0.0, -0.5), kind="static")
    a = w.add_body(lg.Capsule(0.1, 0.3), (0.0, 0.0, 1.0), mass=2.0)
    b = w.add_body(lg.Sphere(0.15), (0.0, 0.0, 1.6), mass=1.0)
    w.add_ball_socket(a, b, (0.0, 0.0, 1.45))
    assert ground == 0
    for _ in range(3):
        w.step(1.0 / 60.0)
    return w


def test_the_map_puts_each_kernel_at_the_address_numba_calls():
    tool = _tool()
    _stepped_world()
    symbols = tool.kernel_symbols()
    by_address = {a: n for a, _, n in symbols}
    (sig,) = step.step_frame.signatures
    cres = step.step_frame.overloads[sig]
    address = cres.library.get_pointer_to_function(cres.fndesc.llvm_func_name)
    assert by_address.get(address) == cres.fndesc.llvm_func_name
    assert tool.short_name(by_address[address]) == "step.step_frame"
    # every range ends where the next function starts: a sample is credited to one name
    starts = np.array([a for a, _, _ in symbols], dtype=np.uint64)
    ends = starts + np.array([s for _, s, _ in symbols], dtype=np.uint64)
    assert np.all(np.diff(starts.astype(np.float64)) > 0)
    assert np.all(ends[:-1] <= starts[1:])


def test_short_names_are_the_python_functions_compiled():
    tool = _tool()
    _stepped_world()
    named = {tool.short_name(n) for _, _, n in tool.kernel_symbols()}
    # step_frame's separate stages (each its own library) and helpers of other modules
    for fn in (step.solve_pass, step.begin_substep, step.factor_stage):
        module = fn.py_func.__module__.split(".", 1)[1]      # without the package
        assert f"{module}.{fn.py_func.__qualname__}" in named
    assert "direct._solve_island" in named
    assert tool.short_name("NRT_incref") == "NRT_incref"


def test_the_perf_map_is_what_perf_reads(tmp_path):
    tool = _tool()
    symbols = [(0x1000, 0x40, "_ZN8solver_04step10solve_passB2v0B54abc"), (0x1040, 0x10, "f")]
    path = tool.write_perf_map(symbols, pid=f"test-{os.getpid()}")
    try:
        lines = open(path).read().splitlines()
    finally:
        os.remove(path)
    assert lines == ["1000 40 _ZN8solver_04step10solve_passB2v0B54abc", "1040 10 f"]
    assert tool.short_name(symbols[0][2]) == "step.solve_pass"
