"""test_override_tools.py's scenarios: the tools an animator uses on a character linked into a
shot from its own file and given a library override (Transfer Pose, Live Mode's Transfer,
the physics check and fix, Split into Convex Parts), the character file keyed by its
animator (its armature plays an action of that file)."""

import os

import bpy
from mathutils import Vector

from .characters import character, lean_chest, link_override, new_shot, select_collection
from .helpers import lig

FRAMES = 40


def _addon():
    return lig().addon


def _file_state(path):
    return [os.path.getmtime(path), open(path, "rb").read().hex()]


def _character_file(path, ring=False):
    """A metarig ragdoll in "Char" whose chest is keyed to lean over frames 1-30 (its action
    is the character file's); with `ring`, a torus body "Ring" in "Char" too. Saved to
    `path`; its state."""
    bpy.ops.preferences.addon_enable(module="rigify")
    arm = character()
    pb = lean_chest(arm)
    pb.rotation_euler = (0, 0, 0)
    if ring:
        select_collection(bpy.data.collections["Char"])
        bpy.ops.mesh.primitive_torus_add(location=(2, 0, 1))
        bpy.context.active_object.name = "Ring"
        bpy.context.active_object.ligament_body.enabled = True
    bpy.ops.wm.save_as_mainfile(filepath=path)
    return _file_state(path)


def _bone_world(arm, names):
    return {n: arm.matrix_world @ arm.pose.bones[n].matrix for n in names}


def _moved(arm):
    return sorted({t.ligament_ragdoll_part.bone
                   for t in _addon().scene.ragdolls.members(arm, 'TARGET')})


def _keys_at(arm, frame):
    """{bone: [paths keyed at `frame`]} of the armature's action."""
    out = {}
    for (path, _), fc in _addon().scene.animation.action_fcurves(arm).items():
        if any(abs(k.co.x - frame) < 1e-6 for k in fc.keyframe_points) and '"' in path:
            out.setdefault(path.split('"')[1], set()).add(path.rsplit(".", 1)[1])
    return {b: sorted(p) for b, p in out.items()}


def _select_only(obj):
    for o in bpy.context.view_layer.objects:
        o.select_set(False)
    bpy.context.view_layer.objects.active = obj
    obj.select_set(True)


def transfer_onto_an_override(char_path, shot_path, how, frame):
    """The character linked and overridden in a shot, simulated to `frame`; the pose keyed
    there by Transfer Pose (`how` "operator") or by Live Mode's Transfer after a few live
    steps of the ragdoll dropped (`how` "live"). What was keyed, where the keys went (the
    action, whether it is linked), the keyed pose as Blender shows it with the simulation
    off against the pose transferred; then the same after the shot is saved and opened
    again, and the character file before and after."""
    before = _character_file(char_path)
    scene = new_shot(FRAMES)
    arm = link_override(char_path)
    addon = _addon()
    out = {"action_before": [arm.animation_data.action.name,
                             arm.animation_data.action.library is not None]}
    for f in range(1, frame + 1):
        scene.frame_set(f)
    moved = _moved(arm)
    if how == "live":
        s = addon.live.session.LiveSession(scene)
        s.start()
        s.drop()
        for _ in range(6):
            s.step()
        bpy.context.view_layer.update()
        posed = _bone_world(arm, moved)
        keyed = s.transfer()
        s.stop()
    else:
        posed = _bone_world(arm, moved)
        _select_only(arm)
        keyed = list(bpy.ops.ligament.transfer_pose())
    action = arm.animation_data.action
    out.update(reported=keyed, action=[action.name, action.library is not None],
               keys=_keys_at(arm, frame), moved=moved)
    scene.ligament_world.enabled = False        # the bones as their keys pose them
    scene.frame_set(frame)
    shown = _bone_world(arm, moved)
    out["dist"] = max((posed[n].translation - shown[n].translation).length for n in moved)
    scene.ligament_world.enabled = True
    bpy.ops.wm.save_as_mainfile(filepath=shot_path)
    bpy.ops.wm.open_mainfile(filepath=shot_path)
    arm = next(o for o in bpy.context.scene.objects if o.type == 'ARMATURE')
    action = arm.animation_data.action
    out["reopened"] = {"action": [action.name, action.library is not None],
                       "keys": _keys_at(arm, frame)}
    bpy.context.scene.ligament_world.enabled = False
    bpy.context.scene.frame_set(frame)
    again = _bone_world(arm, moved)
    out["reopened"]["dist"] = max((posed[n].translation - again[n].translation).length
                                  for n in moved)
    out["library_unchanged"] = _file_state(char_path) == before
    return out


def _saved_as_before(path):
    """Save the open character file as an older Ligament did: without the physics check's
    settings on the armature (this Ligament's save handler stores them)."""
    arm = next(o for o in bpy.data.objects if o.type == 'ARMATURE')
    system = getattr(arm, "bl_system_properties_get", None)
    props = system() if system is not None else arm
    if "ligament_motion" in props:
        del props["ligament_motion"]
    handlers = bpy.app.handlers.save_pre
    ours = [h for h in handlers if h.__module__.startswith(lig().__name__)]
    for h in ours:
        handlers.remove(h)
    try:
        bpy.ops.wm.save_as_mainfile(filepath=path)
    finally:
        handlers.extend(ours)
    return _file_state(path)


def physics_check_of_an_old_character(char_path):
    """A character file saved by an older Ligament, linked and overridden in a shot:
    Physics Check and Physics Fix there (what they say), and the file after."""
    _character_file(char_path)
    before = _saved_as_before(char_path)
    new_shot(FRAMES)
    arm = link_override(char_path)
    _select_only(arm)
    out = {"said": []}
    for op in (bpy.ops.ligament.physics_check, bpy.ops.ligament.physics_fix):
        try:
            out["said"].append(list(op()))
        except RuntimeError as exc:
            out["said"].append(str(exc))
    out["playing"] = arm.animation_data.action.name
    out["library_unchanged"] = _file_state(char_path) == before
    return out


def physics_fix_of_an_override(char_path, shot_path):
    """The character linked and overridden in a shot: Physics Check and Physics Fix, the
    shot saved and opened again: the actions the fix switches between, before and after,
    and Physics Switch after (which action the armature then plays, twice)."""
    before = _character_file(char_path)
    new_shot(FRAMES)
    arm = link_override(char_path)
    _select_only(arm)
    assert bpy.ops.ligament.physics_check() == {'FINISHED'}
    assert bpy.ops.ligament.physics_fix() == {'FINISHED'}

    def actions(a):
        m = a.ligament_motion
        return {"playing": a.animation_data.action.name,
                "keyed": getattr(m.keyed_action, "name", None),
                "fixed": getattr(m.fixed_action, "name", None),
                "report": bool(m.report)}
    out = {"fixed": actions(arm)}
    bpy.ops.wm.save_as_mainfile(filepath=shot_path)
    bpy.ops.wm.open_mainfile(filepath=shot_path)
    arm = next(o for o in bpy.context.scene.objects if o.type == 'ARMATURE')
    out["reopened"] = actions(arm)
    _select_only(arm)
    out["switched"] = []
    for _ in range(2):
        try:
            bpy.ops.ligament.physics_switch()
            out["switched"].append(arm.animation_data.action.name)
        except RuntimeError as exc:
            out["switched"].append("refused: " + str(exc))
    out["library_unchanged"] = _file_state(char_path) == before
    return out


def split_of_an_override(char_path):
    """The character (with the torus body "Ring") linked and overridden in a shot; Split
    into Convex Parts on the overridden ring, from a script and as the button starts it
    (`SplitJob`), as it is and once made editable: what each says, and the objects and
    meshes of the file and the ring's shape after."""
    _character_file(char_path, ring=True)
    new_shot(FRAMES)
    link_override(char_path)
    ring = next(o for o in bpy.data.objects if o.name == "Ring" and o.override_library)
    addon = _addon()
    out = {"before": [len(bpy.data.objects), len(bpy.data.meshes), ring.ligament_body.shape]}
    for step in ("system", "editable"):
        if step == "editable":
            ring.override_library.is_system_override = False
        _select_only(ring)
        try:
            bpy.ops.ligament.split_convex_parts(max_parts=4)
            said = None
        except RuntimeError as exc:
            said = str(exc)
        try:
            addon.authoring.convex_parts.SplitJob(ring, bpy.context.evaluated_depsgraph_get())
            job = None
        except addon.scene.errors.SceneError as exc:
            job = str(exc)
        out[step] = {"said": said, "job": job,
                     "after": [len(bpy.data.objects), len(bpy.data.meshes),
                               ring.ligament_body.shape]}
    out["library"] = addon.scene.ragdolls.library_of(ring)
    return out


def _select_bones(arm, names):
    for pb in arm.pose.bones:
        on = pb.name in names
        if hasattr(pb, "select"):     # 5.0: a pose bone's own selection
            pb.select = on
        else:
            pb.bone.select = on


def ragdoll_edits_of_an_override(char_path, preset_path):
    """The character (its tuning saved as a preset to `preset_path` first) linked and
    overridden in a shot; there: Add Bone Chain on the left index finger, Mirror Left to
    Right, Apply Preset, Remove Ragdoll. What each says, and the file's objects and
    collections, the right forearm joint's upper limit and the ragdoll's switch before and
    after."""
    bpy.ops.preferences.addon_enable(module="rigify")
    arm = character()
    _select_only(arm)
    assert bpy.ops.ligament.ragdoll_preset_save(filepath=preset_path) == {'FINISHED'}
    bpy.ops.wm.save_as_mainfile(filepath=char_path)
    new_shot(FRAMES)
    arm = link_override(char_path)
    joint = next(o for o in bpy.data.objects
                 if o.name == "Hero forearm.L joint" and o.override_library)
    # a tuning the mirror would copy over, as the panel cannot but a script can make it
    joint.ligament_joint.limit_ang_upper = 0.5
    other = next(o for o in bpy.data.objects
                 if o.name == "Hero forearm.R joint" and o.override_library)

    def state():
        return [len(bpy.data.objects), len(bpy.data.collections),
                other.ligament_joint.limit_ang_upper, arm.ligament_ragdoll.enabled]
    out = {"before": state(), "said": {}}
    _select_only(arm)
    bpy.ops.object.mode_set(mode='POSE')
    _select_bones(arm, {"f_index.01.L", "f_index.02.L", "f_index.03.L"})
    arm.data.bones.active = arm.data.bones["f_index.01.L"]
    calls = {"chain": lambda: bpy.ops.ligament.add_bone_chain(),
             "mirror": lambda: bpy.ops.ligament.ragdoll_mirror(direction='L_TO_R'),
             "preset": lambda: bpy.ops.ligament.ragdoll_preset_apply(filepath=preset_path),
             "remove": lambda: bpy.ops.ligament.remove_ragdoll()}
    for name, call in calls.items():
        try:
            out["said"][name] = list(call())
        except RuntimeError as exc:
            out["said"][name] = str(exc)
        if name == "chain":
            bpy.ops.object.mode_set(mode='OBJECT')
    out["after"] = state()
    out["library"] = _addon().scene.ragdolls.library_of(arm)
    return out


def _hand_heads(arm, frames):
    scene = bpy.context.scene
    out = []
    for f in range(1, frames + 1):
        scene.frame_set(f)
        out.append(list(arm.matrix_world @ arm.pose.bones["hand.L"].head))
    return out


def drag_on_an_override(char_path, shot_path, lift=0.6):
    """The character linked and overridden in a shot, its left hand played as it falls;
    then dragged by the Drag tool's session (grabbed at frame 5, pulled `lift` m up over
    frames 5-20, released at 21), played, the shot saved and opened again and played: the
    hand's heads each time, the drag's pin and the body it holds after reopening."""
    before = _character_file(char_path)
    scene = new_shot(FRAMES)
    arm = link_override(char_path)
    addon = _addon()
    out = {"fell": _hand_heads(arm, FRAMES)}
    body = next(o for o in addon.scene.ragdolls.bodies(arm)
                if o.ligament_ragdoll_part.part == "hand.L")
    scene.frame_set(4)
    session = addon.authoring.drag.DragSession(scene, hertz=4.0, max_force=300.0)
    start = body.matrix_world.translation.copy()
    eye = Vector((0, -6, 0))
    assert session.grab(start + eye, -eye.normalized(), 5, -eye.normalized()) == body
    for f in range(5, 21):
        goal = start + Vector((0, 0, lift * (f - 4) / 16))
        session.move(goal + eye, -eye.normalized(), f)
        scene.frame_set(f)
    session.release(21)
    out["dragged"] = _hand_heads(arm, FRAMES)
    bpy.ops.wm.save_as_mainfile(filepath=shot_path)
    bpy.ops.wm.open_mainfile(filepath=shot_path)
    arm = next(o for o in bpy.context.scene.objects if o.type == 'ARMATURE')
    out["reopened"] = _hand_heads(arm, FRAMES)
    pins = [o for o in bpy.data.objects if o.ligament_joint.type == 'PIN']
    out["pins"] = [[p.name, getattr(p.ligament_joint.object_b, "name", None),
                    p.library is None and p.override_library is None] for p in pins]
    out["library_unchanged"] = _file_state(char_path) == before
    return out
