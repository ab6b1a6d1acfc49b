"""Bad scenes in Blender that used to go silently wrong or stop everything: a body flattened
to zero scale (left out and named, the rest simulates), an Empty marked as a body (it
collides as the shape it shows, with a warning), the frame rate changed while a
simulation is cached (the frames after it are the new rate's, never a stale or start
pose)."""

G = 9.81


def test_a_zero_scale_body_is_left_out_and_named_and_the_rest_simulates(blender):
    out = blender.run("""
        floor = box("Floor", (10, 10, 1), (0, 0, -0.5), kind='STATIC')
        crate = box("Crate", (1, 1, 1), (0, 0, 5))
        flat = box("Flat", (1, 1, 1), (3, 0, 5))
        flat.scale = (1, 0, 1)
        hinge = joint("Hinge", 'HINGE', crate, flat, (1.5, 0, 5))
        scene.ligament_world.enabled = True
        for f in range(1, 13):
            scene.frame_set(f)
        sim = lig.addon.runtime.cache.get(scene)
        findings = lig.addon.check.doctor.check(scene)
        reported = sorted(lig.addon.runtime.state.state(scene).reported)
        crate_z, flat_z = crate.matrix_world.translation.z, flat.matrix_world.translation.z
        assert bpy.ops.ligament.bake(frame_start=1, frame_end=12) == {'FINISHED'}
        baked = sorted(o.name for o in scene.objects if o.ligament_body.baked)
        assert bpy.ops.ligament.clear_bake() == {'FINISHED'}
        # the fix: a scale again, and it simulates (the change is seen without a setting edit)
        flat.scale = (1, 1, 1)
        scene.frame_set(1)
        scene.frame_set(12)
        result({"error": lig.addon.runtime.cache.error(scene), "skipped": sim.skipped_bodies,
                "joints": sim.skipped, "crate_z": crate_z, "flat_z": flat_z,
                "reported": reported, "baked": baked,
                "findings": [(f.severity, f.code, list(f.objects)) for f in findings],
                "fixed_z": flat.matrix_world.translation.z,
                "fixed_skipped": lig.addon.runtime.cache.get(scene).skipped_bodies})
    """)
    t = 11 / 24
    assert out["error"] is None
    assert list(out["skipped"]) == ["Flat"] and "zero scale" in out["skipped"]["Flat"]
    assert list(out["joints"]) == ["Hinge"], "the joint on the left-out body is skipped too"
    # the crate fell freely (its hinge partner gone), the flat box stayed where it is
    assert abs(out["crate_z"] - (5 - G * t * (t + 1 / 24 / 8) / 2)) < 0.02, out["crate_z"]
    assert out["flat_z"] == 5.0
    assert any("body 'Flat' skipped" in line for line in out["reported"]), out["reported"]
    assert ["ERROR", "body-skipped", ["Flat"]] in [list(f) for f in out["findings"]]
    assert out["baked"] == ["Crate"]
    assert out["fixed_skipped"] == {} and out["fixed_z"] < 4.5


def test_an_empty_body_collides_as_the_shape_it_shows_with_a_warning(blender):
    out = blender.run("""
        floor = box("Floor", (10, 10, 1), (0, 0, -0.5), kind='STATIC')
        shown = {}
        for name, display, x in (("Cube", 'CUBE', 0), ("Ball", 'SPHERE', 3), ("Axes", 'PLAIN_AXES', -3)):
            e = bpy.data.objects.new(name, None)
            scene.collection.objects.link(e)
            e.location = (x, 0, 2)
            e.empty_display_type = display
            e.empty_display_size = 0.5
            e.scale = (1, 1, 0.6)
            e.ligament_body.enabled = True
            shown[name] = e
        scene.ligament_world.enabled = True
        for f in range(1, 73):
            scene.frame_set(f)
        z = {n: e.matrix_world.translation.z for n, e in shown.items()}
        findings = lig.addon.check.doctor.check(scene)
        hull = shown["Axes"]
        hull.ligament_body.shape = 'CONVEX_HULL'
        scene.frame_set(1)
        result({"z": z,
                "warnings": sorted(list(f.objects)[0] for f in findings if f.code == 'empty-body'),
                "hull": lig.addon.runtime.cache.error(scene)})
    """)
    # resting on the floor at half their height: the display size times the Z scale
    assert abs(out["z"]["Cube"] - 0.5 * 0.6) < 0.005, out["z"]
    assert abs(out["z"]["Axes"] - 0.5 * 0.6) < 0.005, out["z"]
    assert abs(out["z"]["Ball"] - 0.5) < 0.005, out["z"]   # a sphere takes the largest axis
    assert out["warnings"] == ["Axes", "Ball", "Cube"]
    # a mesh shape on an Empty: an error naming it, saying why
    assert "'Axes'" in out["hull"] and "Empty" in out["hull"], out["hull"]


def test_a_frame_rate_change_simulates_again_at_the_new_rate(blender):
    scene = """
        crate = box("Crate", (1, 1, 1), (0, 0, 50))
        scene.ligament_world.enabled = True
    """
    out = blender.run(scene, """
        for f in range(1, 21):
            scene.frame_set(f)
        before = crate.matrix_world.translation.z
        scene.render.fps = 30
        bpy.context.view_layer.update()
        edited = crate.matrix_world.translation.z
        after = []
        for f in range(21, 25):
            scene.frame_set(f)
            after.append(crate.matrix_world.translation.z)
        result({"before": before, "edited": edited, "after": after})
    """)
    fresh = blender.run(scene, """
        scene.render.fps = 30
        for f in range(1, 21):
            scene.frame_set(f)
        out = []
        for f in range(21, 25):
            scene.frame_set(f)
            out.append([f, crate.matrix_world.translation.z])
        result(out)
    """)
    # each frame after the change is where a scene made at 30 fps has it, and that is a free
    # fall at 30 fps (the substeps' sum, within 2 cm), not the 24 fps frame nor the start
    assert out["after"] == [z for _, z in fresh]
    for f, z in zip(range(21, 25), out["after"]):
        t = (f - 1) / 30
        assert abs(z - (50 - G * t * t / 2)) < 0.02, (f, z)
    assert abs(out["before"] - (50 - G * (19 / 24) ** 2 / 2)) < 0.02
    assert out["edited"] == out["before"], "the edit itself moves nothing"
