"""The kernel store takes the set a first run compiled (tools/build_extension.py
--adopt-kernels, which tests/addon/test_first_run.py calls once a fresh install has played
and simulated on it): only a complete set of these sources, compiled by the versions the
entry is named for, and never over a complete entry."""

import os
import sys

import pytest

from solver.stamp import source_hash

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import build_extension  # noqa: E402  (tools/build_extension.py)

KEY = source_hash(os.path.join(ROOT, "solver"))[:16]
NAME = "py311-numba-0.65.1-llvmlite-0.47.0-numpy-1.26.4"


def compiled_set(folder, key=KEY, ready="READY-py311-numba-0.65.1", kernels=("a.nbi", "a.1.nbc")):
    """A kernel folder as a preparation leaves it: named by the source hash, the kernels'
    files, READY (written last) unless `ready` is None."""
    path = folder / key
    (path / "joints").mkdir(parents=True)
    for name in kernels:
        (path / "joints" / name).write_bytes(name.encode())
    if ready:
        (path / ready).write_text("")
    return path


def test_a_complete_set_of_these_sources_becomes_the_entry_named_for_its_versions(tmp_path):
    kernels = compiled_set(tmp_path / "first-run")
    entry = build_extension.adopt_kernels(str(kernels), NAME, store_root=str(tmp_path / "store"))
    assert entry == str(tmp_path / "store" / NAME / KEY)
    assert sorted(os.listdir(entry)) == ["READY-py311-numba-0.65.1", "joints"]
    assert (tmp_path / "store" / NAME / KEY / "joints" / "a.1.nbc").read_bytes() == b"a.1.nbc"
    # what kernel_store() looks for before it compiles: it finds the set complete
    assert os.path.exists(os.path.join(entry, "READY-py311-numba-0.65.1"))


def test_a_complete_entry_is_kept_and_a_stopped_compiles_part_is_replaced(tmp_path):
    store = tmp_path / "store"
    first = compiled_set(tmp_path / "one", kernels=("first.nbi",))
    build_extension.adopt_kernels(str(first), NAME, store_root=str(store))
    second = compiled_set(tmp_path / "two", kernels=("second.nbi",))
    build_extension.adopt_kernels(str(second), NAME, store_root=str(store))
    assert os.listdir(store / NAME / KEY / "joints") == ["first.nbi"]

    partial = tmp_path / "partial-store"
    compiled_set(partial / NAME, ready=None, kernels=("stale.nbi",))    # no READY: stopped
    build_extension.adopt_kernels(str(second), NAME, store_root=str(partial))
    assert os.listdir(partial / NAME / KEY / "joints") == ["second.nbi"]
    assert os.path.exists(partial / NAME / KEY / "READY-py311-numba-0.65.1")


@pytest.mark.parametrize("case", ["other sources", "no READY", "other numba", "other Python",
                                  "not a store name"])
def test_a_set_that_is_not_this_entrys_is_refused(tmp_path, case):
    key = "0123456789abcdef" if case == "other sources" else KEY
    ready = {"no READY": None, "other numba": "READY-py311-numba-0.68.1",
             "other Python": "READY-py313-numba-0.65.1"}.get(case, "READY-py311-numba-0.65.1")
    name = "../elsewhere" if case == "not a store name" else NAME
    kernels = compiled_set(tmp_path / "first-run", key=key, ready=ready)
    with pytest.raises(SystemExit):
        build_extension.adopt_kernels(str(kernels), name, store_root=str(tmp_path / "store"))
    assert not (tmp_path / "store" / NAME / KEY).exists()
