"""test_ragdoll.py's scenarios: ragdolls from Blender's human metarig and a Mixamo-named
armature (tests/addon/scenarios/rigs.py)."""

import math
import types

import bpy
import numpy as np
from mathutils import Vector

from .helpers import lig
from .rigs import (enable_rigify, fcurves, ground, joint_angles, key_pose, metarig,
                   mixamo_rig, ragdoll_bodies, ragdolled_metarigs)


def metarig_mapped():
    """A metarig's ragdoll (AUTO preset, 70 kg): its map, parts, masses, joints, the pose
    bones that follow bodies, whether the bodies show, its collection."""
    ragdoll_mod = enable_rigify()
    arm = metarig()
    res = bpy.ops.ligament.ragdoll_from_armature(preset='AUTO', total_mass=70.0)
    bodies = ragdoll_bodies(arm)
    joints = ragdoll_mod.members(arm, 'JOINT')
    followed = sorted(pb.name for pb in arm.pose.bones
                      if any(c.name == "Ligament Ragdoll" for c in pb.constraints))
    return {"res": list(res), "map": arm.ligament_ragdoll.bone_map,
            "parts": sorted(o.ligament_ragdoll_part.part for o in bodies),
            "masses": sum(o.ligament_body.mass for o in bodies),
            "joints": sorted((e.ligament_ragdoll_part.part, e.ligament_joint.type)
                             for e in joints),
            "followed": followed, "hidden": [o.visible_get() for o in bodies],
            "collection": arm.ligament_ragdoll.collection.name}


def dropped_metarig():
    """A metarig ragdoll dropped from 1 m onto the ground, simulated for 120 frames, then
    baked: per-frame joint angles, lowest shape points, bone and target matrices."""
    scene = bpy.context.scene
    ragdoll_mod = enable_rigify()
    ground()
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
    sim = lig().addon.runtime.cache.get(scene)
    ids = [b.id for b in sim.bodies if b.name in {o.name for o in bodies}]
    speed = float(max(np.linalg.norm(sim.world.linear_velocities[i]) for i in ids))
    spin = float(max(np.linalg.norm(sim.world.angular_velocities[i]) for i in ids))
    top = max(o.matrix_world.translation.z for o in bodies)
    assert bpy.ops.ligament.bake(frame_start=1, frame_end=121) == {'FINISHED'}
    baked = {}
    for f in range(1, 122):
        scene.frame_set(f)
        baked[f] = {b: [list(r) for r in arm.matrix_world @ arm.pose.bones[b].matrix]
                    for b in live[f]}
    paths = sorted({fc.data_path for fc in fcurves(arm.animation_data.action,
                                                   arm.animation_data.action_slot)})
    return {"error": lig().addon.runtime.cache.error(scene), "angles": angles,
            "lowest": lowest, "speed": speed, "spin": spin, "top": top, "live": live,
            "baked": baked, "bones": bones, "paths": paths, "track": track,
            "connected": [b.name for b in arm.data.bones if b.use_connect],
            "baked_flag": arm.ligament_ragdoll.baked,
            "muted": all(c.mute for pb in arm.pose.bones for c in pb.constraints
                         if c.name == "Ligament Ragdoll")}


def five_drops(heights):
    """Metarigs side by side dropped from `heights`, 60 frames: each frame's joint angles
    per rig."""
    scene = bpy.context.scene
    rigs = ragdolled_metarigs(heights)
    scene.ligament_world.frame_end = 60
    angles = []
    for f in range(1, 61):
        scene.frame_set(f)
        angles.append([joint_angles(arm) for arm in rigs])
    return {"error": lig().addon.runtime.cache.error(scene), "angles": angles}


def limit_rotation_constraints():
    """Limit Rotation constraints on forearm.L (X 0..90) and thigh.R (Y -5..10, X -20..50):
    the limits of four joints after the ragdoll is made."""
    ragdoll_mod = enable_rigify()
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
    return {p: [joints[p].limit_ang_lower, joints[p].limit_ang_upper, joints[p].swing_1]
            for p in ("forearm.L", "forearm.R", "thigh.R", "thigh.L")}


def pose_matching_on_a_fixed_pelvis():
    """A ragdoll with the pelvis held and full-strength drives against an animated
    reference rig: each bone's worst angle off the reference over 72 frames, and the worst
    with the drives off."""
    scene = bpy.context.scene
    ragdoll_mod = enable_rigify()
    ref = metarig("Reference", location=(0, 0, 1))
    key_pose(ref)
    arm = metarig("Rig", location=(0, 0, 1))
    key_pose(arm)
    bpy.ops.ligament.ragdoll_from_armature()
    arm.pose.bones["spine"].ligament_ragdoll.simulated = False   # the pelvis is held
    arm.ligament_ragdoll.drive_strength = 1.0
    scene.ligament_world.frame_end = 72
    mapped = [t.ligament_ragdoll_part.bone for t in ragdoll_mod.members(arm, 'TARGET')]

    def off(b):
        # degrees between the bone's world rotation and the animated reference's
        q = (arm.matrix_world @ arm.pose.bones[b].matrix).to_quaternion()
        r = (ref.matrix_world @ ref.pose.bones[b].matrix).to_quaternion()
        return math.degrees(abs(math.remainder(q.rotation_difference(r).angle, 2 * math.pi)))
    worst = {}
    for f in range(1, 73):
        scene.frame_set(f)
        for b in mapped:
            worst[b] = max(worst.get(b, 0.0), off(b))
    # the same without drives sags under gravity: the drives are doing the work
    arm.ligament_ragdoll.drive_strength = 0.0
    for f in range(1, 73):
        scene.frame_set(f)
    limp = max(off(b) for b in mapped)
    return {"worst": worst, "limp": limp, "error": lig().addon.runtime.cache.error(scene)}


def mixamo_falls():
    """A Mixamo-named rig 0.5 m up made a ragdoll (AUTO, 60 kg), 48 frames."""
    scene = bpy.context.scene
    ragdoll_mod = enable_rigify()
    ground()
    arm = mixamo_rig()
    arm.location.z = 0.5
    res = bpy.ops.ligament.ragdoll_from_armature(preset='AUTO', total_mass=60.0)
    bodies = ragdoll_bodies(arm)
    for f in range(1, 49):
        scene.frame_set(f)
    return {"res": list(res), "map": arm.ligament_ragdoll.bone_map,
            "parts": sorted(o.ligament_ragdoll_part.part for o in bodies),
            "bones": sorted(t.ligament_ragdoll_part.bone
                            for t in ragdoll_mod.members(arm, 'TARGET')),
            "joints": len(ragdoll_mod.members(arm, 'JOINT')),
            "error": lig().addon.runtime.cache.error(scene),
            "top": max(o.matrix_world.translation.z for o in bodies)}


def all_selected():
    """Three selected armatures (two metarigs, a Mixamo rig) made ragdolls at once with "All
    Selected", then a lone one with another rig selected that already has one; 36 frames."""
    scene = bpy.context.scene
    ragdoll_mod = enable_rigify()
    ground()
    rigs = [metarig("A", (0, 0, 0.5)), metarig("B", (3, 0, 0.5)), mixamo_rig()]
    rigs[2].location = (-3, 0, 0.5)
    bpy.context.view_layer.update()
    lone = metarig("Lone", (0, 3, 0.5))
    bpy.ops.object.select_all(action='DESELECT')
    for arm in rigs:
        arm.select_set(True)
    bpy.context.view_layer.objects.active = rigs[0]
    res = bpy.ops.ligament.ragdoll_from_armature(use_selected=True)
    bpy.ops.object.select_all(action='DESELECT')
    lone.select_set(True)
    rigs[1].select_set(True)
    bpy.context.view_layer.objects.active = lone
    res_lone = bpy.ops.ligament.ragdoll_from_armature()
    every = rigs + [lone]
    start = {a.name: [o.matrix_world.translation.z for o in ragdoll_bodies(a)] for a in every}
    for f in range(1, 37):
        scene.frame_set(f)
    return {"res": list(res), "res_lone": list(res_lone),
            "bodies": {a.name: len(ragdoll_bodies(a)) for a in every},
            "joints": {a.name: len(ragdoll_mod.members(a, 'JOINT')) for a in every},
            "collections": [a.ligament_ragdoll.collection.name for a in every],
            "maps": [a.ligament_ragdoll.bone_map for a in every],
            "own": all(set(ragdoll_bodies(a)) <= set(a.ligament_ragdoll.collection.objects)
                       for a in every),
            "error": lig().addon.runtime.cache.error(scene),
            "fell": {a.name: min(z0 - o.matrix_world.translation.z for z0, o in
                                 zip(start[a.name], ragdoll_bodies(a))) for a in every}}


def generic_names():
    """The Mixamo rig's bones renamed to generic names with _l/_r tags: the map chosen and
    each part's bone."""
    ragdoll_mod = enable_rigify()
    arm = mixamo_rig(prefix="")
    renames = {"Hips": "pelvis", "Spine": "spine", "Spine1": "chest", "Spine2": "chest2",
               "Neck": "neck", "Head": "head"}
    for side, tag in (("Left", "_l"), ("Right", "_r")):
        renames.update({side + "Arm": "upperarm" + tag, side + "ForeArm": "lowerarm" + tag,
                        side + "Hand": "hand" + tag, side + "UpLeg": "thigh" + tag,
                        side + "Leg": "calf" + tag, side + "Foot": "foot" + tag,
                        side + "ToeBase": "ball" + tag})
    for old, new in renames.items():
        arm.data.bones[old].name = new
    bpy.ops.ligament.ragdoll_from_armature(preset='AUTO')
    return {"map": arm.ligament_ragdoll.bone_map,
            "parts": {o.ligament_ragdoll_part.part: o.ligament_ragdoll_part.bone
                      for o in ragdoll_mod.members(arm, 'TARGET')}}


def bad_input():
    """The operator on a cube, on an armature with no bone it maps, on a metarig twice, and
    the ragdoll removed: the errors, and the data-block counts around each."""
    scene = bpy.context.scene
    enable_rigify()
    bpy.ops.mesh.primitive_cube_add()
    errors = []

    def call(**kw):
        try:
            return list(bpy.ops.ligament.ragdoll_from_armature(**kw))
        except RuntimeError as exc:
            errors.append(str(exc))
            return None
    not_armature = call()
    data = bpy.data.armatures.new("Tentacle")
    tentacle = bpy.data.objects.new("Tentacle", data)
    scene.collection.objects.link(tentacle)
    bpy.context.view_layer.objects.active = tentacle
    bpy.ops.object.mode_set(mode='EDIT')
    for i in range(4):
        b = data.edit_bones.new(f"seg{i}")
        b.head, b.tail = (0, 0, i * 0.2), (0, 0, (i + 1) * 0.2)
    bpy.ops.object.mode_set(mode='OBJECT')
    before = (len(bpy.data.objects), len(bpy.data.collections), len(bpy.data.meshes))
    unmapped = call()
    after = (len(bpy.data.objects), len(bpy.data.collections), len(bpy.data.meshes))
    # a good rig, then removing its ragdoll leaves nothing behind
    arm = metarig()
    clean = (len(bpy.data.objects), len(bpy.data.collections), len(bpy.data.meshes))
    call()
    made = len(bpy.data.objects) - clean[0]
    again = call(preset='rigify_metarig')
    bpy.ops.ligament.remove_ragdoll()
    left = (len(bpy.data.objects), len(bpy.data.collections), len(bpy.data.meshes))
    constraints = sum(len(pb.constraints) for pb in arm.pose.bones)
    return {"not_armature": not_armature, "unmapped": unmapped, "errors": errors,
            "before": before, "after": after, "clean": clean, "left": left,
            "made": made, "again": again, "constraints": constraints,
            "enabled": arm.ligament_ragdoll.enabled}


def simulated_switch():
    """A metarig gliding along +X at 2 m/s, animated to frame 24 and simulated from 25:
    how far a bone strays from the animation while following, the pelvis's x and z."""
    scene = bpy.context.scene
    enable_rigify()
    ground()
    arm = metarig(location=(0, 0, 1.0))
    # The character glides along +X at 2 m/s (48 frames at 24 fps cover 4 m) ...
    arm.keyframe_insert("location", frame=1)
    arm.location.x = 4.0
    arm.keyframe_insert("location", frame=49)
    for fc in fcurves(arm.animation_data.action, arm.animation_data.action_slot):
        for k in fc.keyframe_points:
            k.interpolation = 'LINEAR'
    bpy.ops.ligament.ragdoll_from_armature()
    # ... animated until frame 24, simulated from frame 25 on.
    rd = arm.ligament_ragdoll
    rd.simulated = False
    arm.keyframe_insert("ligament_ragdoll.simulated", frame=1)
    rd.simulated = True
    arm.keyframe_insert("ligament_ragdoll.simulated", frame=25)
    scene.ligament_world.frame_end = 60
    pelvis = next(o for o in ragdoll_bodies(arm) if o.ligament_ragdoll_part.part == "pelvis")
    head = arm.pose.bones["spine.006"]
    follow, xs, zs = 0.0, {}, {}
    for f in range(1, 61):
        scene.frame_set(f)
        xs[f], zs[f] = pelvis.matrix_world.translation.x, pelvis.matrix_world.translation.z
        if f <= 24:   # following: the bones are where the animation has them
            follow = max(follow, ((arm.matrix_world @ head.matrix).translation -
                                  arm.matrix_world @ head.bone.matrix_local.translation).length)
    return {"follow": follow, "x": xs, "z": zs, "error": lig().addon.runtime.cache.error(scene)}


def bake_and_clear_keep_the_action():
    """A posed metarig (upper_arm.L in XZY) made a ragdoll, baked for 20 frames and the bake
    cleared: the actions, slots and keys before and after."""
    scene = bpy.context.scene
    enable_rigify()
    ground()
    arm = metarig(location=(0, 0, 1.0))
    key_pose(arm)
    arm.pose.bones["upper_arm.L"].rotation_mode = 'XZY'   # baked in the bone's own mode
    original = arm.animation_data.action
    slot = arm.animation_data.action_slot.identifier

    def keys(action):
        return sorted((fc.data_path, fc.array_index, [list(k.co) for k in fc.keyframe_points])
                      for fc in fcurves(action, action.slots[0]))
    before = keys(original)
    bpy.ops.ligament.ragdoll_from_armature()
    scene.ligament_world.frame_end = 20
    bpy.ops.ligament.bake(frame_start=1, frame_end=20)
    baked = arm.animation_data.action
    baked_paths = sorted({p for p, i, k in keys(baked)})
    bpy.ops.ligament.clear_bake()
    return {"same": baked == original, "baked_paths": baked_paths,
            "restored": arm.animation_data.action == original,
            "slot": arm.animation_data.action_slot.identifier == slot,
            "after": keys(original) == before, "baked_flag": arm.ligament_ragdoll.baked,
            "left": [a.name for a in bpy.data.actions if "LigamentBake" in a.name],
            "active": not any(c.mute for pb in arm.pose.bones for c in pb.constraints
                              if c.name == "Ligament Ragdoll")}


def panels_and_material_presets():
    """Every Ligament panel drawn into a recording layout for a metarig before and after its
    ragdoll (what each draws, and any property or operator that does not exist), then the
    metal preset on a cube."""
    scene = bpy.context.scene
    enable_rigify()
    drawn, problems = [], []

    class Layout:
        # records what a panel draws and checks that it exists on the real data
        use_property_split = use_property_decorate = active = alert = enabled = True

        def _sub(self, *a, **k):
            return Layout()
        row = column = box = split = _sub

        def label(self, text="", **k):
            pass

        def separator(self, **k):
            pass

        def prop(self, data, name, **k):
            drawn.append(name)
            if name not in data.bl_rna.properties:
                problems.append(f"{type(data).__name__}.{name}")

        def operator(self, idname, **k):
            drawn.append(idname)
            if not hasattr(getattr(bpy.ops, idname.split(".")[0]), idname.split(".")[1]):
                problems.append(idname)
            return types.SimpleNamespace()      # the button's operator properties

        def operator_menu_enum(self, idname, prop, **k):
            self.operator(idname)
            drawn.append(prop)

        def template_list(self, listtype, list_id, data, name, active_data, active, **k):
            drawn.append(name)
            if not hasattr(bpy.types, listtype):
                problems.append(listtype)
            for d, n in ((data, name), (active_data, active)):
                if n not in d.bl_rna.properties:
                    problems.append(f"{type(d).__name__}.{n}")

    arm = metarig()

    def draw_all():
        ctx = types.SimpleNamespace(object=arm, active_object=arm, scene=scene,
                                    active_pose_bone=arm.pose.bones["forearm.L"])
        panels = [c for name in dir(bpy.types) if "ligament" in name.lower() and
                  isinstance(c := getattr(bpy.types, name), type) and
                  issubclass(c, bpy.types.Panel)]
        for cls in panels:
            if not hasattr(cls, "poll") or cls.poll(ctx):
                cls.draw(types.SimpleNamespace(layout=Layout()), ctx)
    draw_all()
    before = set(drawn)
    bpy.ops.ligament.ragdoll_from_armature()
    draw_all()
    # material presets on an ordinary body: friction, bounciness, mass from density
    bpy.ops.mesh.primitive_cube_add(size=1)
    cube = bpy.context.active_object
    cube.ligament_body.enabled = True
    bpy.ops.ligament.material_preset(material='metal')
    return {"before": sorted(before), "after": sorted(set(drawn)), "problems": problems,
            "cube": [cube.ligament_body.friction, cube.ligament_body.restitution,
                     cube.ligament_body.mass]}


def skinned_arm_widths():
    """A metarig with an 8 cm radius cylinder skinned to upper_arm.L: each body's size."""
    enable_rigify()
    arm = metarig()
    # A skinned arm: an 8 cm radius cylinder along upper_arm.L, weighted to it.
    bone = arm.data.bones["upper_arm.L"]
    head, tail = bone.head_local, bone.tail_local
    bpy.ops.mesh.primitive_cylinder_add(vertices=24, radius=0.08, depth=(tail - head).length,
                                        location=(head + tail) / 2)
    limb = bpy.context.active_object
    limb.rotation_mode = 'QUATERNION'
    limb.rotation_quaternion = Vector((0, 0, 1)).rotation_difference(tail - head)
    bpy.context.view_layer.update()
    bpy.ops.object.transform_apply(location=True, rotation=True, scale=True)
    group = limb.vertex_groups.new(name="upper_arm.L")
    group.add(list(range(len(limb.data.vertices))), 1.0, 'REPLACE')
    limb.modifiers.new("Armature", 'ARMATURE').object = arm
    bpy.context.view_layer.objects.active = arm
    bpy.ops.ligament.ragdoll_from_armature()
    return {o.ligament_ragdoll_part.part: list(o.dimensions) for o in ragdoll_bodies(arm)}
