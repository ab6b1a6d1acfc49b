"""Ragdolls from armatures: bone maps, a metarig dropped on the ground, joint limits, bake to
the pose bones, pose matching, a Mixamo rig, errors and removal."""

import math

import numpy as np
import pytest

RIGIFY = """
    import numpy as np
    bpy.ops.preferences.addon_enable(module="rigify")
    ragdoll_mod = sys.modules[lig.__name__ + ".addon.ragdoll"]

    def metarig(name="Rig", location=(0, 0, 0)):
        bpy.ops.object.armature_human_metarig_add()
        arm = bpy.context.active_object
        arm.name = name
        arm.location = location
        bpy.context.view_layer.update()
        return arm

    def ragdoll_bodies(arm):
        return sorted(ragdoll_mod.bodies(arm), key=lambda o: o.name)

    def matrix16(values):
        return Matrix([values[0:4], values[4:8], values[8:12], values[12:16]])

    def joint_angles(arm):
        # Each joint's relative rotation, measured from the rest pose the limits count from:
        # [(type, limits, twist or hinge angle, swing about X, swing about Z)].
        out = []
        for e in ragdoll_mod.members(arm, 'JOINT'):
            j = e.ligament_joint
            a, b = j.object_a, j.object_b
            ref = {o: Matrix.LocRotScale(*(arm.matrix_world @ matrix16(
                       o.ligament_ragdoll_part.rest_frame)).decompose()[:2], None)
                   for o in (a, b)}
            qj = (ref[a] @ e.matrix_basis).to_quaternion()
            fa = ref[a].to_quaternion().inverted() @ qj
            fb = ref[b].to_quaternion().inverted() @ qj
            rel = (a.matrix_world.to_quaternion() @ fa).inverted() @ \\
                (b.matrix_world.to_quaternion() @ fb)
            if rel.w < 0:
                rel.negate()
            if j.type == 'HINGE':
                out.append(("HINGE", [j.limit_ang_lower, j.limit_ang_upper],
                            2 * math.atan2(rel.z, rel.w), 0.0, 0.0))
                continue
            twist = Quaternion((rel.w, 0, rel.y, 0)).normalized()
            swing = rel @ twist.inverted()
            axis, angle = swing.to_axis_angle()
            angle = angle - 2 * math.pi if angle > math.pi else angle
            out.append(("RAGDOLL", [j.limit_ang_lower, j.limit_ang_upper, j.swing_1, j.swing_2],
                        2 * math.atan2(twist.y, twist.w), axis.x * angle, axis.z * angle))
        return out
"""

GROUND = """
    box("Ground", (30, 30, 1), (0, 0, -0.5), kind='STATIC')
"""


def _limit_excess(samples):
    """Largest excess (rad) of any joint over its limits across all sampled frames."""
    worst = 0.0
    for frame in samples:
        for kind, lim, angle, sx, sz in frame:
            angle = math.remainder(angle, 2 * math.pi)
            if kind == "HINGE":
                worst = max(worst, lim[0] - angle, angle - lim[1])
                continue
            worst = max(worst, lim[0] - angle, angle - lim[1])
            swing = math.hypot(sx, sz)
            if swing > 1e-9:
                # the cone's half-angle in this direction (ellipse with semi-axes s1, s2)
                cone = 1.0 / math.sqrt((sx / swing / lim[2]) ** 2 + (sz / swing / lim[3]) ** 2)
                worst = max(worst, swing - cone)
    return worst


def test_metarig_maps_its_major_bones_with_anatomical_joints(blender):
    out = blender.run(RIGIFY, """
        arm = metarig()
        res = bpy.ops.ligament.ragdoll_from_armature(preset='AUTO', total_mass=70.0)
        bodies = ragdoll_bodies(arm)
        joints = ragdoll_mod.members(arm, 'JOINT')
        followed = sorted(pb.name for pb in arm.pose.bones
                          if any(c.name == "Ligament Ragdoll" for c in pb.constraints))
        result({"res": list(res), "map": arm.ligament_ragdoll.bone_map,
                "parts": sorted(o.ligament_ragdoll_part.part for o in bodies),
                "masses": sum(o.ligament_body.mass for o in bodies),
                "joints": sorted((e.ligament_ragdoll_part.part, e.ligament_joint.type)
                                 for e in joints),
                "followed": followed, "hidden": [o.visible_get() for o in bodies],
                "collection": arm.ligament_ragdoll.collection.name})
    """)
    assert out["res"] == ["FINISHED"]
    assert out["map"] == "rigify_metarig"
    sides = [f"{p}.{s}" for p in ("upper_arm", "forearm", "hand", "thigh", "shin", "foot")
             for s in "LR"]
    assert out["parts"] == sorted(["pelvis", "spine", "chest", "head"] + sides)
    assert abs(out["masses"] - 70.0) < 1e-3
    joints = dict(out["joints"])
    assert len(joints) == 15
    assert {p for p, t in joints.items() if t == 'HINGE'} == {
        "forearm.L", "forearm.R", "shin.L", "shin.R"}
    assert "upper_arm.L" in out["followed"] and "spine.006" in out["followed"]
    assert not any(out["hidden"])
    assert out["collection"] == "Ragdoll Rig"


@pytest.fixture(scope="module")
def dropped(blender):
    """A metarig ragdoll dropped from 1 m onto the ground, simulated for 120 frames, then
    baked: per-frame joint angles, lowest shape points, bone and target matrices."""
    return blender.run(RIGIFY, GROUND, """
        arm = metarig(location=(0, 0, 1.0))
        bpy.ops.ligament.ragdoll_from_armature()
        scene.ligament_world.frame_end = 121
        bodies = ragdoll_bodies(arm)
        targets = ragdoll_mod.members(arm, 'TARGET')
        angles, live, bones, lowest, track = [], {}, {}, [], []
        for f in range(1, 122):
            scene.frame_set(f)
            angles.append(joint_angles(arm))
            lowest.append(min((o.matrix_world @ v.co).z for o in bodies for v in o.data.vertices))
            track.append([list(o.matrix_world.translation) for o in bodies])
            # where each bone's body holds it, and where the bone is
            live[f] = {t.ligament_ragdoll_part.bone: [list(r) for r in t.matrix_world]
                       for t in targets}
            bones[f] = {b: [list(r) for r in arm.matrix_world @ arm.pose.bones[b].matrix]
                        for b in live[f]}
        sim = lig.addon.cache.get(scene)
        ids = [b.id for b in sim.bodies if b.name in {o.name for o in bodies}]
        speed = float(max(np.linalg.norm(sim.world.linear_velocities[i]) for i in ids))
        spin = float(max(np.linalg.norm(sim.world.angular_velocities[i]) for i in ids))
        top = max(o.matrix_world.translation.z for o in bodies)
        assert bpy.ops.ligament.bake(frame_start=1, frame_end=121) == {'FINISHED'}
        baked, rot_modes = {}, {}
        for f in range(1, 122):
            scene.frame_set(f)
            baked[f] = {b: [list(r) for r in arm.matrix_world @ arm.pose.bones[b].matrix]
                        for b in live[f]}
        from bpy_extras import anim_utils
        bag = anim_utils.action_get_channelbag_for_slot(arm.animation_data.action,
                                                        arm.animation_data.action_slot)
        paths = sorted({fc.data_path for fc in bag.fcurves})
        result({"error": lig.addon.cache.error(scene), "angles": angles, "lowest": lowest,
                "speed": speed, "spin": spin, "top": top, "live": live, "baked": baked,
                "bones": bones, "paths": paths, "track": track,
                "baked_flag": arm.ligament_ragdoll.baked,
                "muted": all(c.mute for pb in arm.pose.bones for c in pb.constraints
                             if c.name == "Ligament Ragdoll")})
    """)


def test_dropped_metarig_lies_still_on_the_ground(dropped):
    out = dropped
    assert out["error"] is None
    # It fell and lies on the ground: nothing higher than a lying body, nothing through the
    # floor (landing at 4.4 m/s may dip a few centimetres for a frame), nothing moving.
    assert out["top"] < 0.45
    assert out["lowest"][-1] > -0.01
    assert min(out["lowest"]) > -0.05
    assert out["speed"] < 0.05 and out["spin"] < 0.5, "still moving after 120 frames"
    assert np.ptp(np.array(out["track"][-4:]), axis=0).max() < 0.005


def _close_to_bodies(bones, targets, frames):
    """Bone world matrices against where their bodies hold them: same rotation; same place
    within the joints' give (a connected bone's head sits on its parent's tail)."""
    for f in frames:
        for bone, m in targets[f].items():
            m, b = np.array(m), np.array(bones[f][bone])
            assert np.abs(m[:3, :3] - b[:3, :3]).max() < 1e-3, (f, bone)
            assert np.abs(m[:3, 3] - b[:3, 3]).max() < 5e-3, (f, bone)


def test_bones_follow_their_bodies_during_the_live_run(dropped):
    _close_to_bodies(dropped["bones"], dropped["live"], dropped["live"])


def test_dropped_metarig_joints_stay_within_3_degrees_of_their_limits(dropped):
    excess = _limit_excess(dropped["angles"])
    assert excess < math.radians(3), f"a joint went {math.degrees(excess):.1f} deg past its limit"


def test_baked_pose_bones_play_back_the_simulated_motion(dropped):
    out = dropped
    # Keys on the pose bones (not the helpers); the bones no longer follow the helpers.
    assert out["baked_flag"] and out["muted"]
    assert 'pose.bones["upper_arm.L"].rotation_quaternion' in out["paths"]
    assert all(p.startswith("pose.bones") for p in out["paths"])
    _close_to_bodies(out["baked"], out["live"], out["live"])
    for f in out["live"]:
        for bone, m in out["bones"][f].items():
            assert np.abs(np.array(m) - np.array(out["baked"][f][bone])).max() < 1e-3, (f, bone)


def test_limit_rotation_constraints_become_joint_limits(blender):
    out = blender.run(RIGIFY, """
        arm = metarig()
        lim = arm.pose.bones["forearm.L"].constraints.new('LIMIT_ROTATION')
        lim.owner_space = 'LOCAL'
        lim.use_limit_x, lim.min_x, lim.max_x = True, 0.0, math.radians(90)
        lim = arm.pose.bones["thigh.R"].constraints.new('LIMIT_ROTATION')
        lim.owner_space = 'LOCAL'
        lim.use_limit_y, lim.min_y, lim.max_y = True, math.radians(-5), math.radians(10)
        lim.use_limit_x, lim.min_x, lim.max_x = True, math.radians(-20), math.radians(50)
        bpy.ops.ligament.ragdoll_from_armature()
        joints = {e.ligament_ragdoll_part.part: e.ligament_joint
                  for e in ragdoll_mod.members(arm, 'JOINT')}
        result({p: [joints[p].limit_ang_lower, joints[p].limit_ang_upper, joints[p].swing_1]
                for p in ("forearm.L", "forearm.R", "thigh.R", "thigh.L")})
    """)
    assert np.allclose(out["forearm.L"][:2], [0.0, math.radians(90)], atol=1e-5)
    # the other elbow keeps the preset's flexion range, shifted by the rest pose's bend
    assert not np.allclose(out["forearm.R"][:2], out["forearm.L"][:2])
    assert np.allclose(out["thigh.R"], [math.radians(-5), math.radians(10), math.radians(50)],
                       atol=1e-5)
    assert np.allclose(out["thigh.L"], [math.radians(-30), math.radians(30), math.radians(70)],
                       atol=1e-5)
