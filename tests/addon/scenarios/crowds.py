"""test_crowds.py's scenarios: copies of a ragdolled character (Blender's duplicates, a
collection instance, the crowd operator)."""

import bpy

from .characters import character, doctor, ragdolls
from .helpers import box, lig
from .rigs import enable_rigify


def crowd_ground():
    """rigify, the ground, 60 frames: the scene the crowd scenarios start from."""
    enable_rigify()
    box("Ground", (60, 60, 1), (0, 0, -0.5), kind='STATIC')
    bpy.context.scene.ligament_world.frame_end = 60


def select_only(objs):
    for o in bpy.context.view_layer.objects:
        o.select_set(False)
    for o in objs:
        o.select_set(True)
    bpy.context.view_layer.objects.active = objs[0]


def spines(arms, frames=60):
    out = []
    for f in range(1, frames + 1):
        bpy.context.scene.frame_set(f)
        out.append([list(a.matrix_world @ a.pose.bones["spine"].head) for a in arms])
    return out


def own_bodies(arm):
    return len(ragdolls().bodies(arm))


def follows(arm):
    """Whose ragdoll helpers the bones follow."""
    return sorted({c.target.ligament_ragdoll_part.armature.name for pb in arm.pose.bones
                   for c in pb.constraints if c.name == "Ligament Ragdoll" and c.target})


def armature_duplicated_alone(linked):
    """A character's armature duplicated alone (`linked`: Alt+D) and moved 3 m: the check's
    ragdoll-borrowed finding, whose helpers the copy follows before and after its fix, and
    both spines over 60 frames."""
    scene = bpy.context.scene
    crowd_ground()
    arm = character()
    select_only([arm])
    assert bpy.ops.object.duplicate(linked=linked) == {'FINISHED'}
    copy = bpy.context.active_object
    copy.location.x += 3.0
    bpy.context.view_layer.update()
    found = [f for f in doctor().check(scene) if f.code == 'ragdoll-borrowed']
    before = {"follows": follows(copy), "own": own_bodies(copy)}
    fix = found[0].fix if found else None
    if fix:
        assert getattr(bpy.ops.ligament, fix.operator.split(".")[1])(**fix.args) == \
            {'FINISHED'}
    again = [f.code for f in doctor().check(scene) if f.severity == 'ERROR']
    track = spines([arm, copy])
    return {"found": [(f.severity, list(f.objects), f.message) for f in found],
            "before": before, "follows": follows(copy), "own": own_bodies(copy),
            "original_own": own_bodies(arm), "again": again, "track": track,
            "names": [arm.name, copy.name],
            "error": lig().addon.runtime.cache.error(scene)}


def armature_and_ragdoll_duplicated(linked):
    """A character's armature and every helper duplicated together (`linked`: Alt+D) and
    moved 3 m: the check's errors, whose helpers the copy follows, both spines."""
    scene = bpy.context.scene
    crowd_ground()
    arm = character()
    arm.ligament_ragdoll.show_bodies = True       # helpers selectable
    objs = [arm] + ragdolls().members(arm)
    select_only(objs)
    assert bpy.ops.object.duplicate_move(
        OBJECT_OT_duplicate={"linked": linked},
        TRANSFORM_OT_translate={"value": (3.0, 0.0, 0.0)}) == {'FINISHED'}
    copy = next(o for o in bpy.context.selected_objects if o.type == 'ARMATURE')
    found = [(f.code, f.message) for f in doctor().check(scene) if f.severity == 'ERROR']
    track = spines([arm, copy])
    return {"found": found, "follows": follows(copy), "own": own_bodies(copy),
            "location": list(copy.location), "track": track,
            "error": lig().addon.runtime.cache.error(scene)}


def crowd_on_a_grid():
    """The crowd operator (3 copies, a grid 4 m apart): the copies' places, the check's
    errors, whose helpers they follow, their bodies, and all spines over 60 frames."""
    scene = bpy.context.scene
    crowd_ground()
    arm = character()
    select_only([arm])
    before = set(bpy.data.objects)
    res = bpy.ops.ligament.ragdoll_crowd(count=3, layout='GRID', spacing=4.0)
    copies = sorted((o for o in bpy.data.objects
                     if o not in before and o.type == 'ARMATURE'), key=lambda o: o.name)
    starts = [list(c.matrix_world.translation) for c in copies]
    found = [f.code for f in doctor().check(scene) if f.severity == 'ERROR']
    track = spines([arm] + copies)
    return {"res": list(res), "starts": starts, "found": found,
            "follows": [follows(c) == [c.name] for c in copies],
            "own": [own_bodies(c) for c in copies],
            "homes": [ragdolls().at_home(scene, c) for c in copies], "track": track,
            "error": lig().addon.runtime.cache.error(scene)}


def crowd_along_a_curve():
    """A character simulated from frame 10 (its switch keyed), the crowd operator with 4
    copies along a curve, random starts up to 20 frames (seed 3): the copies' places and
    their switch keys, and the original's."""
    crowd_ground()
    addon = lig().addon
    arm = character()
    arm.ligament_ragdoll.simulated = False
    arm.ligament_ragdoll.keyframe_insert("simulated", frame=1)
    arm.ligament_ragdoll.simulated = True
    arm.ligament_ragdoll.keyframe_insert("simulated", frame=10)
    bpy.ops.curve.primitive_bezier_curve_add()
    curve = bpy.context.active_object
    curve.name = "Path"
    bpy.ops.object.mode_set(mode='OBJECT')
    pts = curve.data.splines[0].bezier_points
    for p, x in zip(pts, (4.0, 16.0)):
        p.co = (x, 0, 0)
        p.handle_left = (x - 1, 0, 0)
        p.handle_right = (x + 1, 0, 0)
    curve.location = (0, 2, 0)
    select_only([arm])
    before = set(bpy.data.objects)
    res = bpy.ops.ligament.ragdoll_crowd(count=4, layout='CURVE', curve="Path",
                                         start_offset=20, seed=3)
    copies = sorted((o for o in bpy.data.objects
                     if o not in before and o.type == 'ARMATURE'), key=lambda o: o.name)
    keys = []
    for c in copies:
        fc = next(f for f in addon.scene.animation.action_fcurves(c).values()
                  if f.data_path == "ligament_ragdoll.simulated")
        keys.append([k.co.x for k in fc.keyframe_points])
    return {"res": list(res), "starts": [list(c.matrix_world.translation) for c in copies],
            "keys": keys, "original": [k.co.x for k in next(
                f for f in addon.scene.animation.action_fcurves(arm).values()
                if f.data_path == "ligament_ragdoll.simulated").keyframe_points]}


def collection_instance_made_real():
    """An instance of the character's collection 3 m along x: the check's
    character-instance finding, its fix, the copy made, and both spines over 60 frames."""
    scene = bpy.context.scene
    crowd_ground()
    arm = character()
    bpy.context.view_layer.active_layer_collection = \
        bpy.context.view_layer.layer_collection
    assert bpy.ops.object.collection_instance_add(
        collection="Char", location=(3.0, 0.0, 0.0)) == {'FINISHED'}
    found = [(f.severity, list(f.objects), f.fix.operator, f.fix.args)
             for f in doctor().check(scene) if f.code == 'character-instance']
    if found:
        op = found[0][2].split(".")[1]
        assert getattr(bpy.ops.ligament, op)(**found[0][3]) == {'FINISHED'}
    copies = [o for o in scene.objects if o.type == 'ARMATURE' and o != arm]
    left = [f.code for f in doctor().check(scene) if f.severity == 'ERROR']
    track = spines([arm] + copies)
    return {"found": found, "copies": [c.name for c in copies],
            "follows": [follows(c) for c in copies], "own": [own_bodies(c) for c in copies],
            "instances": [o.name for o in scene.objects if o.instance_type == 'COLLECTION'],
            "left": left, "track": track, "error": lig().addon.runtime.cache.error(scene)}
