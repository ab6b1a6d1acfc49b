"""Crowds by duplication: a copy of a ragdolled character falls where it was put, with a
ragdoll of its own, never driven by the original's bodies; where Blender's duplicate leaves
the copy following the original's ragdoll, the scene check says so and its fix gives the copy
its own. The crowd operator makes N copies on a grid or along a curve."""

import numpy as np
import pytest

from test_characters import CHARACTER

CROWD = CHARACTER + """
    def select_only(objs):
        for o in bpy.context.view_layer.objects:
            o.select_set(False)
        for o in objs:
            o.select_set(True)
        bpy.context.view_layer.objects.active = objs[0]

    def spines(arms, frames=60):
        out = []
        for f in range(1, frames + 1):
            scene.frame_set(f)
            out.append([list(a.matrix_world @ a.pose.bones["spine"].head) for a in arms])
        return out

    def own_bodies(arm):
        return len(ragdolls.bodies(arm))

    def follows(arm):
        # whose ragdoll helpers the bones follow
        return sorted({c.target.ligament_ragdoll_part.armature.name for pb in arm.pose.bones
                       for c in pb.constraints if c.name == "Ligament Ragdoll" and c.target})

    box("Ground", (60, 60, 1), (0, 0, -0.5), kind='STATIC')
    scene.ligament_world.frame_end = 60
"""


@pytest.mark.parametrize("linked", [False, True], ids=["shift_d", "alt_d"])
def test_armature_duplicated_alone_is_reported_and_the_fix_gives_it_its_own_ragdoll(
        blender, linked):
    out = blender.run(CROWD, f"""
        arm = character()
        select_only([arm])
        assert bpy.ops.object.duplicate(linked={linked}) == {{'FINISHED'}}
        copy = bpy.context.active_object
        copy.location.x += 3.0
        bpy.context.view_layer.update()
        found = [f for f in doctor.check(scene) if f.code == 'ragdoll-borrowed']
        before = {{"follows": follows(copy), "own": own_bodies(copy)}}
        fix = found[0].fix if found else None
        if fix:
            assert getattr(bpy.ops.ligament, fix.operator.split(".")[1])(**fix.args) == \\
                {{'FINISHED'}}
        again = [f.code for f in doctor.check(scene) if f.severity == 'ERROR']
        track = spines([arm, copy])
        result({{"found": [(f.severity, list(f.objects), f.message) for f in found],
                 "before": before, "follows": follows(copy), "own": own_bodies(copy),
                 "original_own": own_bodies(arm), "again": again, "track": track,
                 "names": [arm.name, copy.name],
                 "error": lig.addon.runtime.cache.error(scene)}})
    """)
    original, copy = out["names"]
    # before the fix: the copy follows the original's ragdoll, and the check says so
    assert out["before"] == {"follows": [original], "own": 0}
    assert len(out["found"]) == 1
    severity, objects, message = out["found"][0]
    assert severity == "ERROR" and objects[:2] == [copy, original]
    assert copy in message and original in message
    # after: its own ragdoll, the original's untouched, both fall 3 m apart
    assert out["follows"] == [copy] and out["own"] == 16 and out["original_own"] == 16
    assert out["again"] == [] and out["error"] is None
    track = np.array(out["track"])
    assert track[-1, :, 2].max() < 0.6, "they did not fall"
    apart = track[:, 1, 0] - track[:, 0, 0]
    print("copy - original spine x over the fall:", apart.min(), apart.max())
    assert np.abs(apart - 3.0).max() < 1e-3


@pytest.mark.parametrize("linked", [False, True], ids=["shift_d", "alt_d"])
def test_armature_and_its_ragdoll_duplicated_together_fall_apart_on_their_own(blender, linked):
    # Shift+D or Alt+D on the character's whole collection (the armature and every helper
    # selected): Blender points the copies at each other, the copy has a ragdoll of its own
    out = blender.run(CROWD, f"""
        arm = character()
        arm.ligament_ragdoll.show_bodies = True       # helpers selectable
        objs = [arm] + ragdolls.members(arm)
        select_only(objs)
        assert bpy.ops.object.duplicate_move(
            OBJECT_OT_duplicate={{"linked": {linked}}},
            TRANSFORM_OT_translate={{"value": (3.0, 0.0, 0.0)}}) == {{'FINISHED'}}
        copy = next(o for o in bpy.context.selected_objects if o.type == 'ARMATURE')
        found = [(f.code, f.message) for f in doctor.check(scene) if f.severity == 'ERROR']
        track = spines([arm, copy])
        result({{"found": found, "follows": follows(copy), "own": own_bodies(copy),
                 "location": list(copy.location), "track": track,
                 "error": lig.addon.runtime.cache.error(scene)}})
    """)
    assert out["found"] == [] and out["error"] is None
    assert out["own"] == 16 and len(out["follows"]) == 1 and out["follows"] != ["Hero"]
    track = np.array(out["track"])
    assert track[-1, :, 2].max() < 0.6
    assert np.abs(track[:, 1, 0] - track[:, 0, 0] - 3.0).max() < 1e-3


def test_crowd_operator_makes_copies_on_a_grid_that_fall_on_their_own(blender):
    out = blender.run(CROWD, """
        arm = character()
        select_only([arm])
        before = set(bpy.data.objects)
        res = bpy.ops.ligament.ragdoll_crowd(count=3, layout='GRID', spacing=4.0)
        copies = sorted((o for o in bpy.data.objects
                         if o not in before and o.type == 'ARMATURE'), key=lambda o: o.name)
        starts = [list(c.matrix_world.translation) for c in copies]
        found = [f.code for f in doctor.check(scene) if f.severity == 'ERROR']
        track = spines([arm] + copies)
        result({"res": list(res), "starts": starts, "found": found,
                "follows": [follows(c) == [c.name] for c in copies],
                "own": [own_bodies(c) for c in copies],
                "homes": [ragdolls.at_home(scene, c) for c in copies], "track": track,
                "error": lig.addon.runtime.cache.error(scene)})
    """)
    assert out["res"] == ["FINISHED"] and out["error"] is None and out["found"] == []
    assert out["own"] == [16, 16, 16] and all(out["follows"]) and all(out["homes"])
    # grid of 2 columns (a square of 4 places), the original in the first; 4 m apart, the
    # characters lying down do not touch
    expected = [[4, 0, 1], [0, 4, 1], [4, 4, 1]]
    assert np.abs(np.array(out["starts"]) - expected).max() < 1e-6
    track = np.array(out["track"])
    assert track[-1, :, 2].max() < 0.6
    # each copy falls as the original does, where it was put: the same fall to the last bits
    # at first, then the rounding of bodies 4 m apart, amplified by the landing, parts them
    # by a few centimetres (measured: under 4 cm after 60 frames; a copy following the
    # original's ragdoll would be 4 m off)
    offsets = track - track[:, :1]
    for k, (x, y, _) in enumerate(expected, start=1):
        assert np.abs(offsets[:10, k, :2] - (x, y)).max() < 1e-6
        assert np.abs(offsets[:, k, :2] - (x, y)).max() < 0.1


def test_crowd_along_a_curve_with_random_starts(blender):
    out = blender.run(CROWD, """
        arm = character()
        pb = arm.pose.bones["spine"]
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
            fc = next(f for f in lig.addon.scene.animation.action_fcurves(c).values()
                      if f.data_path == "ligament_ragdoll.simulated")
            keys.append([k.co.x for k in fc.keyframe_points])
        result({"res": list(res), "starts": [list(c.matrix_world.translation) for c in copies],
                "keys": keys, "original": [k.co.x for k in next(
                    f for f in lig.addon.scene.animation.action_fcurves(arm).values()
                    if f.data_path == "ligament_ragdoll.simulated").keyframe_points]})
    """)
    assert out["res"] == ["FINISHED"]
    starts = np.array(out["starts"])
    # evenly along the curve from (4, 2) to (16, 2), the armatures' origins on it
    assert np.abs(starts - [[4 + 4 * k, 2, 0] for k in range(4)]).max() < 0.05
    assert out["original"] == [1.0, 10.0]
    shifts = [k[0] - 1.0 for k in out["keys"]]
    assert all(k[1] - k[0] == 9.0 for k in out["keys"])
    assert all(0 <= s <= 20 and s == int(s) for s in shifts) and len(set(shifts)) > 1


def test_collection_instance_of_a_character_is_reported_and_made_a_real_copy(blender):
    out = blender.run(CROWD, """
        arm = character()
        bpy.context.view_layer.active_layer_collection = \\
            bpy.context.view_layer.layer_collection
        assert bpy.ops.object.collection_instance_add(
            collection="Char", location=(3.0, 0.0, 0.0)) == {'FINISHED'}
        inst = bpy.context.active_object
        found = [(f.severity, list(f.objects), f.fix.operator, f.fix.args)
                 for f in doctor.check(scene) if f.code == 'character-instance']
        if found:
            op = found[0][2].split(".")[1]
            assert getattr(bpy.ops.ligament, op)(**found[0][3]) == {'FINISHED'}
        copies = [o for o in scene.objects if o.type == 'ARMATURE' and o != arm]
        left = [f.code for f in doctor.check(scene) if f.severity == 'ERROR']
        track = spines([arm] + copies)
        result({"found": found, "copies": [c.name for c in copies],
                "follows": [follows(c) for c in copies], "own": [own_bodies(c) for c in copies],
                "instances": [o.name for o in scene.objects if o.instance_type == 'COLLECTION'],
                "left": left, "track": track, "error": lig.addon.runtime.cache.error(scene)})
    """)
    assert len(out["found"]) == 1
    severity, objects, operator, _ = out["found"][0]
    assert severity == "ERROR" and objects[1] == "Hero"
    assert out["instances"] == [] and len(out["copies"]) == 1
    assert out["follows"] == [out["copies"]] and out["own"] == [16]
    assert out["left"] == [] and out["error"] is None
    track = np.array(out["track"])
    assert track[-1, :, 2].max() < 0.6
    assert np.abs(track[:10, 1] - track[:10, 0] - (3, 0, 0)).max() < 1e-6
    assert np.abs(track[:, 1, :2] - track[:, 0, :2] - (3, 0)).max() < 0.1
