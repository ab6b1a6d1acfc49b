"""The zip Blender's own builder makes: installable, with the wheels, without dev files."""

import os
import subprocess
import sys
import tomllib
import zipfile

import pytest

from conftest import PYTHON_LINE, ROOT, Blender, current_platform, install

sys.path.insert(0, os.path.join(ROOT, "tools"))
import build_extension  # noqa: E402


@pytest.mark.release
def test_zip_bundles_numba_wheels_for_its_platform_and_python_and_no_dev_files(extension_zip):
    tag = "py" + PYTHON_LINE.replace(".", "")
    assert extension_zip.endswith(f"{current_platform().replace('-', '_')}-{tag}.zip")
    with zipfile.ZipFile(extension_zip) as z:
        names = z.namelist()
        manifest = tomllib.loads(z.read("blender_manifest.toml").decode())
    wheels = [n for n in names if n.startswith("wheels/")]
    assert sorted(w.split("-")[0] for w in wheels) == ["wheels/coacd", "wheels/llvmlite",
                                                       "wheels/mpmath", "wheels/numba",
                                                       "wheels/sympy"]
    # numba's and llvmlite's for this platform's Python; coacd's stable-ABI wheel serves
    # both; sympy and mpmath are pure Python
    assert all(f"-cp{tag[2:]}-" in w for w in wheels if "numba" in w or "llvmlite" in w)
    assert all("-abi3-" in w for w in wheels if "coacd" in w)
    assert all(w.endswith("-py3-none-any.whl") for w in wheels if "sympy" in w or "mpmath" in w)
    assert sorted(manifest["wheels"]) == sorted("./" + w for w in wheels)
    assert manifest["id"] == "ligament"
    assert manifest["platforms"] == [current_platform()]
    # the Blender versions that run this Python, and no other
    span = build_extension.PYTHON_LINES[PYTHON_LINE]
    assert manifest["blender_version_min"] == span["blender_min"]
    assert manifest.get("blender_version_max") == span["blender_max"]
    for source in ("__init__.py", "addon/world/build.py", "solver/__init__.py"):
        assert source in names, source
    assert "presets/quality.toml" in names
    for dev in ("tests/", "bench/", "tools/", ".ci/", ".github/", "build/",
                "requirements-solver.txt", "requirements-bench.txt", "pytest.ini"):
        assert not any(n.startswith(dev) for n in names), dev
    assert not any("__pycache__" in n or n.endswith(".pyc") for n in names)
    # compiled kernels only where the solver looks for them (test_first_run.py)
    assert all(n.startswith("solver/_kernels/") for n in names if n.endswith((".nbi", ".nbc")))


def test_installed_extension_registers_its_properties_operators_and_cli(blender):
    out = blender.run("""
        ops = ["add_body", "remove_body", "add_joint", "connect", "reset", "bake", "clear_bake"]
        result({
            "ops": [hasattr(bpy.ops.ligament, o) and bool(getattr(bpy.ops.ligament, o).get_rna_type())
                    for o in ops],
            "body": sorted(bpy.types.Object.bl_rna.properties.keys() and
                           type(bpy.data.objects.new("x", None).ligament_body).bl_rna.properties.keys()),
            "world": scene.ligament_world.substeps,
            "high": (bpy.ops.ligament.quality_preset(level='high'),
                     scene.ligament_world.substeps, scene.ligament_world.iterations,
                     scene.ligament_world.jointed_substeps,
                     lig.addon.scene.objects.world_settings(scene)["jointed_substeps"])[1:],
            "panels": [hasattr(bpy.types, p) for p in (
                "PHYSICS_PT_ligament_body", "PHYSICS_PT_ligament_joint",
                "PHYSICS_PT_ligament_joint_limits", "PHYSICS_PT_ligament_joint_motor",
                "PHYSICS_PT_ligament_joint_spring", "SCENE_PT_ligament_world",
                "VIEW3D_PT_ligament")],
            "kernels": sys.modules[lig.addon.kernels.MODULE_NAME + ".jit"].CACHE_FOLDER,
            "user": bpy.utils.user_resource('EXTENSIONS'),
            "handlers": len([h for h in bpy.app.handlers.frame_change_pre if "ligament" in h.__module__]),
            "unregistered": (bpy.ops.preferences.addon_disable(module=lig.__name__),
                             [h.__module__ for h in bpy.app.handlers.frame_change_pre
                              + bpy.app.handlers.depsgraph_update_post if "ligament" in h.__module__],
                             hasattr(bpy.types.Object, "ligament_body"),
                             hasattr(bpy.ops.ligament, "bake") and hasattr(bpy.types, "LIGAMENT_OT_bake"))[1:],
        })
    """)
    assert all(out["ops"])
    assert out["handlers"] == 1
    assert out["unregistered"] == [[], False, False]  # disabling removes every trace
    assert all(out["panels"])
    for name in ("enabled", "kind", "shape", "mass", "friction", "restitution", "linear_damping",
                 "angular_damping", "collision_group"):
        assert name in out["body"]
    assert out["world"] == 8
    # from presets/quality.toml, shipped in the zip: Jointed Substeps left at Auto (0), half
    # of Substeps 16 for ragdolls
    assert out["high"] == [16, 2, 0, 8]
    # the kernels are cached beside the installed solver, inside the isolated Blender home
    # (one folder per solver source hash; the zip ships it filled)
    assert out["kernels"].startswith(out["user"])
    assert os.path.basename(os.path.dirname(out["kernels"])) == "_kernels"


@pytest.mark.release
def test_every_platform_and_python_line_gets_numba_llvmlite_coacd_and_the_pure_wheels():
    with open(os.path.join(ROOT, "blender_manifest.toml"), "rb") as f:
        manifest = tomllib.load(f)
    assert build_extension.manifest_lines(manifest) == ["3.11", "3.13"]
    for platform in manifest["platforms"]:
        for line in ("3.11", "3.13"):
            mine = [os.path.basename(w) for w in manifest["wheels"]
                    if build_extension.wheel_matches(os.path.basename(w), platform, line)]
            assert sorted(n.split("-")[0] for n in mine) == ["coacd", "llvmlite", "mpmath",
                                                             "numba", "sympy"], \
                (platform, line, mine)
            # one numba/llvmlite pair for both lines
            assert {n.split("-")[1] for n in mine if n.startswith("numba")} == \
                {w.split("-")[1] for w in map(os.path.basename, manifest["wheels"])
                 if w.startswith("numba")}


@pytest.mark.release
def test_the_python_lines_cover_blender_4_2_to_the_newest_without_overlap():
    lines = build_extension.PYTHON_LINES
    assert lines["3.11"]["blender_min"] == "4.2.0"
    assert lines["3.11"]["blender_max"] == lines["3.13"]["blender_min"] == "5.1.0"
    assert lines["3.13"]["blender_max"] is None


@pytest.mark.release
def test_blenders_validate_accepts_the_zip(extension_zip):
    builder = build_extension.find_builder(None)
    proc = subprocess.run([*builder, "validate", extension_zip], capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "success" in proc.stdout.lower(), proc.stdout


CUSTOM_ROD = """
    custom = sys.modules[lig.addon.kernels.MODULE_NAME + ".custom"]
    before = "sympy" in sys.modules
    post = box("Post", (0.2, 0.2, 0.2), (0, 0, 2), kind='STATIC')
    bar = box("Bar", (0.2, 0.2, 0.2), (1, 0, 2), linear_damping=0.0)
    joint("Rod", 'CUSTOM', post, bar, (0, 0, 2), expression="length(pA - xB) - 1")
    lengths, zs = [], []
    for f in range(1, 25):
        scene.frame_set(f)
        lengths.append((bar.matrix_world.translation - Vector((0, 0, 2))).length)
        zs.append(bar.matrix_world.translation.z)
    sympy = sys.modules.get("sympy")
    result({"before": before, "sympy": None if sympy is None else sympy.__file__,
            "build": dict(custom.last_build), "folder": custom.cache_folder(),
            "writable": os.access(custom.cache_folder(), os.W_OK),
            "user": bpy.utils.user_resource('EXTENSIONS'), "lengths": lengths,
            "z": min(zs),
            "skipped": lig.addon.runtime.cache.get(scene).skipped, "error": lig.addon.runtime.cache.error(scene)})
"""


def test_custom_joint_in_a_fresh_install_derives_once_then_loads_without_sympy(extension_zip,
                                                                               tmp_path):
    """The zip's sympy (its wheel, installed by Blender) derives a Custom joint's expression
    the first time; the compiled function is cached in the user folder, and a second Blender
    loads it without importing sympy."""
    home = str(tmp_path)
    install(extension_zip, home)
    b = Blender(home)
    first = b.run_fresh(CUSTOM_ROD)
    second = b.run_fresh(CUSTOM_ROD)
    for out in (first, second):
        assert out["error"] is None and out["skipped"] == {}, out
        assert out["before"] is False            # the add-on does not import sympy itself
        # a rod of 1 m from the post's centre: the bar swings through the bottom, its
        # distance held
        assert out["z"] < 1.05, out["z"]
        assert max(abs(x - 1.0) for x in out["lengths"]) < 1e-4, out["lengths"]
        assert out["folder"].startswith(home) and out["writable"], out["folder"]
    assert first["build"]["derived"] and first["build"]["compiled"], first["build"]
    print(f"custom expression in Blender: first use {first['build']['seconds']:.3f} s (sympy "
          f"derives, numba compiles), next session {second['build']['seconds']:.4f} s")
    # sympy came from the wheel the zip carries (installed in the user folder's site-packages)
    assert first["sympy"] is not None and first["sympy"].startswith(home), first["sympy"]
    assert not second["build"]["derived"] and not second["build"]["compiled"], second["build"]
    assert second["sympy"] is None
