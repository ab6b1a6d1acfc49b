"""The zip Blender's own builder makes: installable, with the wheels, without dev files."""

import os
import tomllib
import zipfile

from conftest import current_platform


def test_zip_bundles_numba_wheels_for_its_platform_and_no_dev_files(extension_zip):
    assert extension_zip.endswith(current_platform().replace("-", "_") + ".zip")
    with zipfile.ZipFile(extension_zip) as z:
        names = z.namelist()
        manifest = tomllib.loads(z.read("blender_manifest.toml").decode())
    wheels = [n for n in names if n.startswith("wheels/")]
    assert sorted(w.split("-")[0] for w in wheels) == ["wheels/llvmlite", "wheels/numba"]
    assert all("cp311" in w for w in wheels)
    assert manifest["id"] == "ligament"
    assert manifest["build"]["generated"]["platforms"] == [current_platform()]
    assert "__init__.py" in names and "addon/bridge.py" in names and "solver/__init__.py" in names
    assert "presets/quality.toml" in names
    for dev in ("tests/", "bench/", "tools/", ".ci/", "build/", "requirements-dev.txt",
                "pytest.ini"):
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
                     scene.ligament_world.substeps, scene.ligament_world.iterations)[1:],
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
    assert out["high"] == [16, 2]  # from presets/quality.toml, shipped in the zip
    # the kernels are cached beside the installed solver, inside the isolated Blender home
    # (one folder per solver source hash; the zip ships it filled)
    assert out["kernels"].startswith(out["user"])
    assert os.path.basename(os.path.dirname(out["kernels"])) == "_kernels"
