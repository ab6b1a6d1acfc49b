"""The add-on tests' harness itself (conftest.py, blender_server.py): each scenario in the
long-lived Blender starts where a fresh Blender starts, whatever the scenario before it did,
and a scenario that crashes Blender or hangs fails alone."""

import pytest

from conftest import ScenarioFailed

# What a scenario finds when it starts (after PRELUDE): the file's data, the handlers, the
# add-ons, the preferences and scene settings scenarios change, the add-on's run-time state.
START = """
    state = sys.modules[lig.__name__ + ".addon.runtime.state"]
    doctor = sys.modules[lig.__name__ + ".addon.check.doctor"]
    k = lig.addon.kernels
    data = {name: sorted(i.name for i in getattr(bpy.data, name))
            for name in ("objects", "meshes", "materials", "collections", "scenes", "worlds",
                         "cameras", "lights", "actions", "texts", "armatures", "node_groups")}
    handlers = {name: sorted(f"{h.__module__}.{h.__name__}" for h in getattr(bpy.app.handlers, name))
                for name in dir(bpy.app.handlers) if not name.startswith("_")
                and isinstance(getattr(bpy.app.handlers, name), list)}
    result({
        "data": data, "handlers": handlers, "file": bpy.data.filepath,
        "addons": sorted(bpy.context.preferences.addons.keys()),
        "interpolation": bpy.context.preferences.edit.keyframe_new_interpolation_type,
        "render": [scene.render.threads_mode, scene.render.fps, scene.frame_current],
        # (not settings_version: the file a fresh Blender starts with was opened before the
        # add-on registered, so nothing stamped it; a save stamps either, scene/versioning.py)
        "world": {p.identifier: str(getattr(scene.ligament_world, p.identifier))
                  for p in scene.ligament_world.bl_rna.properties
                  if p.type not in {'POINTER', 'COLLECTION'}
                  and p.identifier != "settings_version"},
        "states": len(state._states), "blocking": k.blocking.__name__,
        "environ": os.environ.get("LIGAMENT_HARNESS_TEST"), "cwd": os.getcwd(),
        "sim": lig.addon.runtime.cache.get(scene) is None,
        "stats": dict(lig.addon.runtime.simulation.stats),
    })
"""

# Everything a scenario might leave behind.
MESS = """
    import tempfile
    from bpy.app.handlers import persistent
    bpy.ops.preferences.addon_enable(module="rigify")
    bpy.context.preferences.edit.keyframe_new_interpolation_type = 'LINEAR'
    @persistent
    def stays(scene, depsgraph=None):
        pass
    bpy.app.handlers.frame_change_post.append(stays)
    bpy.app.handlers.load_post.append(stays)
    lig.addon.kernels.blocking = lambda: False
    os.environ["LIGAMENT_HARNESS_TEST"] = "1"
    os.chdir(tempfile.gettempdir())
    scene.render.threads_mode = 'FIXED'
    scene.ligament_world.substeps = 3
    box("Ground", (4, 4, 1), (0, 0, -0.5), kind='STATIC')
    box("Cube", (1, 1, 1), (0, 0, 1))
    bpy.data.materials.new("Left behind")
    for f in range(1, 4):
        scene.frame_set(f)
    bpy.ops.ligament.check_scene()
    bpy.ops.wm.save_as_mainfile(filepath=os.path.join(tempfile.mkdtemp(), "left.blend"))
    result(lig.addon.runtime.cache.get(scene) is not None)
"""


def test_a_scenario_starts_as_in_a_fresh_blender_whatever_ran_before(blender):
    fresh = blender.run_fresh(START)
    assert blender.run(MESS) is True
    after = blender.run(START)
    assert after == fresh
    # and what the comparison covers was changed by the scenario before
    assert fresh["interpolation"] != "LINEAR" and fresh["world"]["substeps"] != "3"
    assert not any("stays" in h for hs in fresh["handlers"].values() for h in hs)
    assert "rigify" not in fresh["addons"] and fresh["blocking"] == "blocking"
    assert fresh["stats"] == {"builds": 0, "steps": 0}


def test_a_scenario_that_crashes_blender_fails_alone_and_the_next_gets_a_new_one(blender):
    blender.run("result(1)")
    started = blender.started
    with pytest.raises(ScenarioFailed, match=r"Blender ended, exit -6") as failed:
        blender.run("""
            print("about to abort")
            sys.stdout.flush()
            os.abort()
        """)
    assert "about to abort" in str(failed.value)
    assert blender.run("result(2)") == 2
    assert blender.started == started + 1


def test_a_scenario_that_hangs_times_out_and_the_next_gets_a_new_one(blender):
    blender.run("result(1)")
    started = blender.started
    # the timeout is what is tested: 2 s, not the 600 s scenarios get
    with pytest.raises(ScenarioFailed, match=r"timed out after 2 s"):
        blender.run("import time; time.sleep(120)", timeout=2)
    assert blender.run("result(3)") == 3
    assert blender.started == started + 1


def test_an_exception_fails_with_its_traceback_and_the_next_starts_clean(blender):
    with pytest.raises(ScenarioFailed, match=r"ZeroDivisionError"):
        blender.run("""
            box("Leftover", (1, 1, 1), (0, 0, 0))
            1 / 0
        """)
    assert "ZeroDivisionError" in blender.stderr
    assert blender.run("result(sorted(o.name for o in bpy.data.objects))") == []


def test_the_output_is_the_scenarios_own_and_results_stay_out_of_it(blender):
    blender.run('print("first scenario"); result(0)')
    out = blender.run("""
        print("second scenario")
        bpy.ops.wm.save_as_mainfile(filepath=os.path.join(os.getcwd(), "harness-output.blend"))
        print("to stderr", file=sys.stderr)
        result({"value": [1, 2.5, "three", None], "tuple": (1, 2), "keys": {4: "four"}})
    """)
    # the same JSON round trip as a fresh process's RESULT: line (tuples as lists, keys as str)
    assert out == {"value": [1, 2.5, "three", None], "tuple": [1, 2], "keys": {"4": "four"}}
    assert "second scenario" in blender.stdout and "first scenario" not in blender.stdout
    assert "RESULT" not in blender.stdout
    # Blender's own C output (the save's "Info: Saved" line) is caught too
    assert "harness-output.blend" in blender.stdout + blender.stderr
    assert "to stderr" in blender.stderr
