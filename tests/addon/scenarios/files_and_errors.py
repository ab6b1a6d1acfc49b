"""test_files_and_errors.py's scenarios: saving and reloading, the joint operators, joints
the build skips."""

import bpy

from .helpers import box, joint, lig, transforms
from .simulation import door, door_counts


def _settings(s, j, ws):
    """Every property of a body's, a joint's and the world's settings, as plain values."""
    def keys(g):
        return [k for k in g.bl_rna.properties.keys() if k != "rna_type"]

    def val(v):
        return v.name if hasattr(v, "name") else (
            list(v) if hasattr(v, "__len__") and not isinstance(v, str) else v)
    return {"body": {k: val(getattr(s, k)) for k in keys(s)},
            "joint": {k: val(getattr(j, k)) for k in keys(j)},
            "world": {k: val(getattr(ws, k)) for k in keys(ws)}}


def save_and_reload(path):
    """The door with every kind of setting changed, played to frame 30, saved to `path`
    mid-simulation and opened again: the settings before and after, and both plays."""
    scene = bpy.context.scene
    _, door_, hinge = door()
    s = door_.ligament_body
    s.shape, s.mass, s.friction, s.restitution = 'CONVEX_HULL', 3.5, 0.7, 0.25
    s.linear_damping, s.angular_damping, s.collision_group = 0.2, 0.3, 2
    j = hinge.ligament_joint
    j.use_limit_ang, j.limit_ang_lower, j.limit_ang_upper = True, -1.2, 1.0
    j.use_spring, j.spring_frequency, j.spring_damping = True, 1.5, 0.3
    j.breakable, j.break_threshold, j.disable_collisions = True, 5000.0, False
    ws = scene.ligament_world
    ws.substeps, ws.iterations, ws.frame_start, ws.frame_end = 12, 2, 3, 90
    first = {}
    for f in range(1, 31):
        scene.frame_set(f)
        first[f] = transforms([door_])
    before = _settings(s, j, ws)
    # Saved in the middle of the simulation: the door is not where it started.
    bpy.ops.wm.save_as_mainfile(filepath=path)
    bpy.ops.wm.open_mainfile(filepath=path)
    scene = bpy.context.scene
    door_, hinge = bpy.data.objects["Door"], bpy.data.objects["Hinge"]
    s, j, ws = door_.ligament_body, hinge.ligament_joint, scene.ligament_world
    after = _settings(s, j, ws)
    again = {}
    for f in list(range(1, 31)):
        scene.frame_set(f)
        again[f] = transforms([door_])
    return {"before": before, "after": after, "first": first, "again": again}


def joint_object_removed():
    """The door deleted at frame 5 with another body beside it: the frame's error, the
    hinge's status, a bake, where the frame is."""
    scene = bpy.context.scene
    addon = lig().addon
    frame, door_, _ = door()
    other = box("Other", (0.5, 0.5, 0.5), (3, 0, 2))
    for f in range(1, 6):
        scene.frame_set(f)
    bpy.ops.object.select_all(action='DESELECT')
    door_.select_set(True)
    bpy.context.view_layer.objects.active = door_
    bpy.ops.object.delete()
    for f in range(6, 9):
        scene.frame_set(f)
    frame_error = addon.runtime.cache.error(scene)
    status = addon.runtime.cache.joint_status(scene, "Hinge")
    bake_result = bpy.ops.ligament.bake()
    return {"frame_error": frame_error, "status": status, "bake": list(bake_result),
            "other_baked": other.ligament_body.baked,
            "frame_location": list(frame.location)}


def add_joint_and_connect():
    """Add Joint between two of four links, Connect all four, and Add Joint with an object
    that is not a body."""
    scene = bpy.context.scene
    objs = [box(f"Link{i}", (0.2, 0.2, 0.2), (x, 0, 2))
            for i, x in enumerate((0.0, 1.5, 0.5, 1.0))]
    bpy.ops.object.select_all(action='DESELECT')
    objs[0].select_set(True)
    objs[2].select_set(True)
    bpy.context.view_layer.objects.active = objs[2]
    assert bpy.ops.ligament.add_joint(type='HINGE', pivot='CENTER') == {'FINISHED'}
    coll = bpy.data.collections["Ligament Joints"]
    first = coll.objects[0]
    single = {"a": first.ligament_joint.object_a.name, "b": first.ligament_joint.object_b.name,
              "type": first.ligament_joint.type, "loc": list(first.location),
              "size": first.empty_display_size}
    for o in coll.objects:
        bpy.data.objects.remove(o)
    for o in objs:
        o.select_set(True)
    bpy.context.view_layer.objects.active = objs[0]
    assert bpy.ops.ligament.connect(type='BALL') == {'FINISHED'}
    pairs = sorted((e.ligament_joint.object_a.name, e.ligament_joint.object_b.name)
                   for e in coll.objects)
    # Not a body: a clear error, nothing created.
    plain = bpy.data.objects.new("Plain", bpy.data.meshes.new("m"))
    scene.collection.objects.link(plain)
    bpy.ops.object.select_all(action='DESELECT')
    plain.select_set(True)
    objs[0].select_set(True)
    bpy.context.view_layer.objects.active = objs[0]
    try:
        bpy.ops.ligament.add_joint(type='BALL')
        error = None
    except RuntimeError as exc:
        error = str(exc)
    return {"single": single, "pairs": pairs, "error": error, "count": len(coll.objects)}


def crossed_limits_in_a_batch():
    """Four arms on hinges and a ragdoll joint, one hinge with crossed limits: what the
    build skipped and built."""
    scene = bpy.context.scene
    arms = [box(f"Arm{i}", (0.1, 0.1, 0.6), (0.2 + i, 0, 1.7)) for i in range(4)]
    posts = [box(f"Post{i}", (0.1, 0.1, 0.1), (0.2 + i, 0, 2.05), kind='STATIC')
             for i in range(4)]
    for i, (name, kind) in enumerate((("Good0", 'HINGE'), ("Crossed", 'HINGE'),
                                      ("Good2", 'RAGDOLL'), ("Good3", 'HINGE'))):
        lower, upper = (0.5, -0.5) if name == "Crossed" else (-0.5, 0.5)
        joint(name, kind, posts[i], arms[i], (0.2 + i, 0, 2), use_limit_ang=True,
              limit_ang_lower=lower, limit_ang_upper=upper)
    scene.frame_set(1)
    sim = lig().addon.runtime.cache.get(scene)
    return {"skipped": sim.skipped, "built": sorted(name for name, _ in sim.joints),
            "count": sim.world.joint_count}


def joint_without_object_b():
    """Three hinges, the middle one's object B unset: skipped, built, and the build's
    check's joint-object findings."""
    scene = bpy.context.scene
    arms = [box(f"Arm{i}", (0.1, 0.1, 0.6), (0.2 + i, 0, 1.7)) for i in range(3)]
    posts = [box(f"Post{i}", (0.1, 0.1, 0.1), (0.2 + i, 0, 2.05), kind='STATIC')
             for i in range(3)]
    for i, name in enumerate(("Good0", "NoB", "Good2")):
        joint(name, 'HINGE', posts[i], arms[i], (0.2 + i, 0, 2))
    bpy.data.objects["NoB"].ligament_joint.object_b = None
    scene.frame_set(1)
    sim = lig().addon.runtime.cache.get(scene)
    return {"skipped": sorted(sim.skipped), "built": sorted(n for n, _ in sim.joints),
            "found": [(f.severity, f.code, list(f.objects)) for f in sim.findings
                      if f.code == 'joint-object']}


def older_file_settings(path):
    """A file as the add-on saved it before Jointed Substeps 0 meant Auto: no settings version
    stored, and in scene "Scene" (the door and a crate) Jointed Substeps never set, in
    "Zero" set to 0, in "Six" to 6 (saved without the add-on's save_pre handler, which
    stamps the version). Opened: each scene's Jointed Substeps and settings version, the
    substeps the door and the crate stepped at; then Jointed Substeps set to 0 in "Scene",
    saved as this add-on saves and opened again: the same."""
    scene = bpy.context.scene
    door()
    box("Crate", (0.3, 0.3, 0.3), (4, 0, 3))
    for name, value in (("Zero", 0), ("Six", 6)):
        bpy.data.scenes.new(name).ligament_world.jointed_substeps = value
    for s in bpy.data.scenes:
        s.ligament_world.property_unset("settings_version")
    scene.ligament_world.property_unset("jointed_substeps")
    stamp = lig().addon.ui.handlers.on_save_pre
    bpy.app.handlers.save_pre.remove(stamp)
    try:
        bpy.ops.wm.save_as_mainfile(filepath=path)
    finally:
        bpy.app.handlers.save_pre.append(stamp)

    def read():
        return {s.name: [s.ligament_world.jointed_substeps, s.ligament_world.settings_version]
                for s in bpy.data.scenes}
    bpy.ops.wm.open_mainfile(filepath=path)
    opened = {"settings": read(), "counts": door_counts(bpy.data.scenes["Scene"], 6)}
    bpy.data.scenes["Scene"].ligament_world.jointed_substeps = 0
    bpy.ops.wm.save_as_mainfile(filepath=path)
    bpy.ops.wm.open_mainfile(filepath=path)
    again = {"settings": read(), "counts": door_counts(bpy.data.scenes["Scene"], 6)}
    return {"opened": opened, "again": again,
            "error": lig().addon.runtime.cache.error(bpy.data.scenes["Scene"])}


def played_scene_autosaved(path):
    """A scene nothing stamped yet (as one added in the session: its settings_version unset)
    with the door and a crate at Jointed Substeps Auto, played to frame 2, then written as
    Blender's autosave writes (no save_pre handler) and opened: its Jointed Substeps and
    settings version, the substeps the door and the crate stepped at."""
    scene = bpy.context.scene
    door()
    box("Crate", (0.3, 0.3, 0.3), (4, 0, 3))
    scene.ligament_world.property_unset("settings_version")
    unstamped = scene.ligament_world.is_property_set("settings_version")
    for f in (1, 2):
        scene.frame_set(f)
    stamp = lig().addon.ui.handlers.on_save_pre
    bpy.app.handlers.save_pre.remove(stamp)
    try:
        bpy.ops.wm.save_as_mainfile(filepath=path, copy=True)
    finally:
        bpy.app.handlers.save_pre.append(stamp)
    bpy.ops.wm.open_mainfile(filepath=path)
    scene = bpy.data.scenes["Scene"]
    return {"unstamped_before": not unstamped,
            "settings": [scene.ligament_world.jointed_substeps,
                         scene.ligament_world.settings_version],
            "counts": door_counts(scene, 6),
            "error": lig().addon.runtime.cache.error(scene)}
