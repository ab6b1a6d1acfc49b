"""A zip built before is taken again only when what it is built from is the same
(tools/build_extension.py --reuse, which tests/addon/conftest.py passes): the files it
ships, its wheels, platform, Python line, builder and kernels. An edit of what it does not
ship (the tests) takes the kept zip; an edit of what it ships builds again."""

import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import build_extension  # noqa: E402  (tools/build_extension.py)

WHEELS = ["/w/numba-0.65.1-cp311-cp311-manylinux2014_x86_64.whl",
          "/w/sympy-1.14.0-py3-none-any.whl"]
BUILDER = ["/venv/blender-5.3.0/bin/python", "/x/blender_ext.py"]


@pytest.fixture
def sources(tmp_path, monkeypatch):
    """A source tree as stage() reads it: shipped files, and tests/, build/ and caches it
    leaves out."""
    root = tmp_path / "src"
    for path, text in {"blender_manifest.toml": "id = 'ligament'\n",
                       "__init__.py": "", "addon/ui.py": "A = 1\n", "solver/world.py": "B = 2\n",
                       "tests/test_x.py": "def test(): pass\n", "build/junk.txt": "x",
                       "addon/__pycache__/ui.cpython-311.pyc": "x",
                       "solver/_kernels/k.nbi": "x"}.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    monkeypatch.setattr(build_extension, "ROOT", str(root))
    return root


def key(platform="linux-x64", line="3.11", wheels=WHEELS, builder=BUILDER, kernels=True):
    return build_extension.input_key(platform, line, wheels, builder, kernels)


def test_the_key_follows_the_shipped_files_and_nothing_else(sources):
    first = key()
    assert key() == first
    # what the zip does not ship: the tests, build/, caches, kernels of a run
    (sources / "tests" / "test_x.py").write_text("def test(): assert 0\n")
    (sources / "build" / "junk.txt").write_text("y")
    (sources / "addon" / "__pycache__" / "ui.cpython-311.pyc").write_text("y")
    (sources / "solver" / "_kernels" / "k.nbi").write_text("y")
    assert key() == first
    # what it ships: a source edited, a file added, a file renamed
    (sources / "addon" / "ui.py").write_text("A = 2\n")
    edited = key()
    assert edited != first
    (sources / "addon" / "new.py").write_text("")
    added = key()
    assert added not in (first, edited)
    os.rename(sources / "addon" / "new.py", sources / "addon" / "newer.py")
    assert key() not in (first, edited, added)


def test_the_key_follows_the_wheels_platform_line_builder_and_kernels(sources):
    first = key()
    others = [key(wheels=[WHEELS[0].replace("0.65.1", "0.66.0"), WHEELS[1]]),
              key(wheels=WHEELS[:1]), key(platform="windows-x64"), key(line="3.13"),
              key(builder=[BUILDER[0].replace("5.3.0", "5.2.3"), BUILDER[1]]),
              key(kernels=False)]
    assert len({first, *others}) == len(others) + 1
    assert key(wheels=WHEELS[::-1]) == first      # the same wheels listed in another order


def test_a_kept_zip_is_taken_for_its_own_key_only_and_the_newest_stay(tmp_path):
    kept, out = tmp_path / "zips", tmp_path / "dist"
    out.mkdir()
    name = "ligament-0.1.0-linux_x64-py311.zip"
    n = build_extension.REUSE_KEEP
    assert not build_extension.reuse(str(kept), "k0", name, str(out / name))
    for i in range(n + 2):
        (out / name).write_bytes(b"zip %d" % i)
        build_extension.keep(str(kept), f"k{i}", str(out / name))
        os.utime(kept / f"k{i}", (1000 + i, 1000 + i))   # kept in this order
    assert sorted(os.listdir(kept)) == sorted(f"k{i}" for i in range(2, n + 2))
    assert not build_extension.reuse(str(kept), "k0", name, str(out / name))
    assert not build_extension.reuse(str(kept), "k3", "other.zip", str(out / "other.zip"))
    assert build_extension.reuse(str(kept), "k3", name, str(out / name))
    assert (out / name).read_bytes() == b"zip 3"
    # taking one makes it the newest: the next zip kept drops the oldest of the others
    (out / "new.zip").write_bytes(b"new")
    build_extension.keep(str(kept), "knew", str(out / "new.zip"))
    assert sorted(os.listdir(kept)) == sorted(["k3", "knew"] + [f"k{i}" for i in range(4, n + 2)])


def test_an_entry_pruned_by_another_run_meanwhile_is_built_again_not_an_error(
        tmp_path, monkeypatch):
    """Two runs side by side (tools/test.sh) share the folder: an entry another run prunes
    after this one saw it is no zip to reuse (not an error)."""
    kept, out = tmp_path / "zips", tmp_path / "dist"
    out.mkdir()
    name = "ligament-0.1.0-linux_x64-py311.zip"
    (out / name).write_bytes(b"zip")
    build_extension.keep(str(kept), "k0", str(out / name))
    gone = str(kept / "k0" / name)
    os.remove(gone)
    seen = os.path.exists                     # as it was when this run looked: still there
    monkeypatch.setattr(build_extension.os.path, "exists", lambda p: p == gone or seen(p))
    assert not build_extension.reuse(str(kept), "k0", name, str(out / name))
