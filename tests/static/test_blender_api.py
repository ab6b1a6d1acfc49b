"""addon/ read against each supported Blender's API without starting Blender: basedpyright
and one fake-bpy-module per line (tools/apicheck.py, docs/testing.md). Correct code gives no
finding on any line; a use of what one line lacks is reported on that line and no other."""

import os
import shutil

import apicheck      # tools/apicheck.py, put on sys.path by this folder's conftest.py
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

LINES = [row[0] for row in apicheck.lines_pinned()]


def test_every_supported_line_is_checked():
    # the manifest's minimum to the newest line the suite runs (tools/blenders.txt)
    with open(os.path.join(ROOT, "blender_manifest.toml")) as f:
        minimum = next(line.split('"')[1] for line in f if line.startswith("blender_version_min"))
    with open(os.path.join(ROOT, "tools", "blenders.txt")) as f:
        newest = max(tuple(map(int, row.split()[0].split(".")[:2])) for row in f
                     if row.strip() and not row.startswith("#"))
    assert LINES[0] == ".".join(minimum.split(".")[:2])
    assert tuple(map(int, LINES[-1].split("."))) == newest
    majors = {}
    for line in LINES:
        major, minor = map(int, line.split("."))
        majors.setdefault(major, []).append(minor)
    for minors in majors.values():        # no line skipped inside a major version
        assert minors == list(range(minors[0], minors[-1] + 1))


@pytest.mark.parametrize("line", LINES)
def test_addon_has_no_finding(apicheck_results, line):
    findings, seconds = apicheck_results[line]
    print(f"Blender {line}: {len(findings)} findings, {seconds:.1f} s")
    assert findings == [], "\n".join(f"{p}:{n}: {m}" for p, n, m in findings)


def _copy(tmp_path):
    """A copy of the extension's sources (addon/ and the package's __init__.py)."""
    root = tmp_path / "src"
    shutil.copytree(os.path.join(ROOT, "addon"), root / "addon",
                    ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(os.path.join(ROOT, "__init__.py"), root / "__init__.py")
    return root


def _plant(path, code):
    """Append `code` to the module at `path`; the line numbers of its lines that end in
    '# here'."""
    text = path.read_text()
    first = text.count("\n") + 2
    path.write_text(text + "\n" + code)
    return [first + i for i, row in enumerate(code.splitlines()) if row.endswith("# here")]


# Three uses planted in a copy of three modules, read once on 4.5 and 5.0 by one
# basedpyright process (it reads the planted modules and what they import, each line in its
# own view of the sources: a line's version constants do not reach the other's)
CHANNELBAG = ("baking", "bake.py"), (
    # Blender 4.5 has slotted actions but not anim_utils.action_ensure_channelbag_for_slot
    # (5.0 added it): the bake that called it there failed in 4.5 only
    "def _planted_channelbag(action, slot):\n"
    "    from bpy_extras import anim_utils\n"
    "    return anim_utils.action_ensure_channelbag_for_slot(action, slot)  # here\n")
USES = ("scene", "animation.py"), (
    # Action.fcurves: removed in 5.0; a module no Blender has; a misspelt registered
    # property; a keyword Object.evaluated_get does not take. Correct uses of the add-on's
    # registered properties are quiet on every line.
    "import bpy\n"
    "def _planted(name):\n"
    "    action = bpy.data.actions['Action']\n"
    "    curves = action.fcurves  # here\n"
    "    import bpy_extras.no_such_module  # here\n"
    "    obj = bpy.data.objects['Cube']\n"
    "    obj.ligament_body.mass = obj.ligament_joint.break_threshold\n"
    "    obj.ligament_body.kind = bpy.context.scene.ligament_world.iterations\n"
    "    return obj.ligament_body.mas, curves  # here\n"
    "def _planted_call(name):\n"
    "    obj = bpy.data.objects['Cube']\n"
    "    return obj.evaluated_get(bpy.context.evaluated_depsgraph_get(), frame=1)  # here\n")
BRANCHES = ("baking", "controls.py"), (
    # A branch on a constant of addon/blender_version.py is read on the lines where it runs
    # only; hasattr on an object narrows that object, not the module a helper comes from.
    "from ..blender_version import CHANNELBAG_HELPERS\n"
    "def _planted(action, slot, ad):\n"
    "    from bpy_extras import anim_utils\n"
    "    if CHANNELBAG_HELPERS:\n"
    "        return anim_utils.action_ensure_channelbag_for_slot(action, slot)\n"
    "    if hasattr(ad, 'action_slot'):\n"
    "        return anim_utils.action_ensure_channelbag_for_slot(action, slot)  # here\n")


@pytest.fixture(scope="module")
def planted(tmp_path_factory):
    """{module's path: (the planted lines that end in '# here', {line: [finding]})}."""
    tmp_path = tmp_path_factory.mktemp("planted")
    root = _copy(tmp_path)
    version = root / "addon" / "blender_version.py"
    version.write_text(version.read_text() +
                       "CHANNELBAG_HELPERS = bpy.app.version >= (5, 0, 0)\n")
    lines, paths = {}, []
    for folders, code in (CHANNELBAG, USES, BRANCHES):
        path = root.joinpath("addon", *folders)
        lines[os.path.join("addon", *folders)] = _plant(path, code)
        paths.append(str(path))
    # kept in build/ as the whole check's are: read again when the add-on or the tool changed
    results = apicheck.check(["4.5", "5.0"], root=str(root), files=paths,
                             work=os.path.join(ROOT, "build", "apicheck-planted"))
    return {module: (here, {line: [f for f in findings if f[0] == module]
                            for line, (findings, _) in results.items()})
            for module, here in lines.items()}


def test_planted_channelbag_helper_is_reported_for_4_5_only(planted):
    here, found = planted[os.path.join("addon", *CHANNELBAG[0])]
    assert [n for _, n, _ in found["4.5"]] == here
    assert "action_ensure_channelbag_for_slot" in found["4.5"][0][2]
    assert found["5.0"] == []


def test_planted_uses_are_reported_where_blender_lacks_them(planted):
    here, found = planted[os.path.join("addon", *USES[0])]
    for line, expected in (("4.5", here[1:]), ("5.0", here)):
        assert sorted({n for _, n, _ in found[line]}) == expected, (line, found[line])


def test_version_constant_hides_the_branch_that_does_not_run(planted):
    here, found = planted[os.path.join("addon", *BRANCHES[0])]
    assert [n for _, n, _ in found["4.5"]] == here
    assert found["5.0"] == []
