"""test_bake_reduction.py's scenarios: key reduction in the bake, on tools/demo.py's scene
(through the batch command, in-process) and on a ragdoll's pose bones."""

import json
import math
from importlib import import_module

import bpy

from .helpers import box, joint, lig
from .rigs import enable_rigify, ground, metarig


def demo_scene():
    """tools/demo.py's scene: a stack and a pyramid that stand, a hinged door and a chain
    that swing and settle, 96 frames."""
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 1, 96
    box("Ground", (12, 12, 1), (0, 0, -0.5), kind='STATIC')
    for i in range(5):
        box(f"Crate.{i}", (0.5, 0.5, 0.5), (0.0, 0.0, 0.25 + 0.5 * i))
    for r in range(5):
        for i in range(5 - r):
            box(f"Block.{r}.{i}", (0.5, 0.5, 0.5),
                (0.5 * (i - (5 - r - 1) / 2), -2.0, 0.25 + 0.5 * r))
    post = box("DoorPost", (0.1, 0.1, 2.0), (2.0, 0.0, 1.0), kind='STATIC')
    door = box("Door", (0.8, 0.05, 1.8), (2.45, 0.0, 1.0), rotation=(0, 0, 0.3))
    joint("DoorHinge", 'HINGE', post, door, (2.0, 0.0, 1.0))
    prev = box("Beam", (0.2, 0.2, 0.2), (-2.0, 2.0, 3.0), kind='STATIC')
    for i in range(6):
        link = box(f"Link.{i}", (0.4, 0.08, 0.08), (-2.0 + 0.4 * (i + 0.5), 2.0, 3.0))
        joint(f"Pin.{i}", 'BALL', prev, link, (-2.0 + 0.4 * i, 2.0, 3.0))
        prev = link
    scene.ligament_world.frame_start, scene.ligament_world.frame_end = 1, 96


def channels(obj, frames, prefix=""):
    """{(path, index): [value at each frame]} of the object's transform F-curves (or of one
    pose bone's, `prefix` 'pose.bones["x"].'), as Blender evaluates them; their key counts."""
    out, keys = {}, {}
    for fc in lig().addon.scene.animation.action_fcurves(obj).values():
        path = fc.data_path
        if not path.startswith(prefix) or path[len(prefix):] not in (
                "location", "rotation_euler", "rotation_quaternion"):
            continue
        name = f"{path[len(prefix):]}[{fc.array_index}]"
        out[name] = [fc.evaluate(f) for f in frames]
        keys[name] = [list(k.co) for k in fc.keyframe_points]
    return out, keys


def demo_baked_full_and_reduced(src, full, reduced, report):
    """The demo scene saved to `src` and baked by the batch command to `full` (a key on
    every frame) and to `reduced` (--tolerance 0.001,0.5, its report to `report`): each
    body's channels as played from both, the reduced keys, the report."""
    demo_scene()
    cli = import_module(lig().__name__ + ".addon.cli")
    bpy.ops.wm.save_as_mainfile(filepath=src)
    frames = list(range(1, 97))
    codes = [cli.main(["bake", src, "--output", full])]
    bpy.ops.wm.open_mainfile(filepath=full)
    bodies = sorted(o.name for o in bpy.data.objects if o.ligament_body.baked)
    simulated = {n: channels(bpy.data.objects[n], frames)[0] for n in bodies}
    codes.append(cli.main(["bake", src, "--tolerance", "0.001,0.5", "--output",
                           reduced, "--report", report]))
    bpy.ops.wm.open_mainfile(filepath=reduced)
    played, keys = {}, {}
    for n in bodies:
        played[n], keys[n] = channels(bpy.data.objects[n], frames)
    with open(report) as f:
        written = json.load(f)
    return {"codes": codes, "simulated": simulated, "played": played, "keys": keys,
            "report": written}


def ragdoll_baked_full_and_reduced():
    """A metarig dropped from 1 m baked for 96 frames with a key on every frame and reduced
    (1 mm, 0.5 deg): each pose bone's channels from both, the reduced keys, the bones'
    rotation modes, the key counts."""
    scene = bpy.context.scene
    addon = lig().addon
    enable_rigify()
    ground()
    arm = metarig(location=(0, 0, 1.0))
    bpy.ops.ligament.ragdoll_from_armature()
    scene.ligament_world.frame_start, scene.ligament_world.frame_end = 1, 96
    frames = list(range(1, 97))

    def bones():
        names = sorted({path.split('"')[1] for path, _ in
                        addon.scene.animation.action_fcurves(arm) if '"' in path})
        return {b: channels(arm, frames, f'pose.bones["{b}"].') for b in names}
    assert bpy.ops.ligament.bake(frame_start=1, frame_end=96) == {'FINISHED'}
    full = bones()
    bpy.ops.ligament.clear_bake()
    assert bpy.ops.ligament.bake(frame_start=1, frame_end=96, reduce_keys=True,
                                 tolerance_location=0.001,
                                 tolerance_rotation=math.radians(0.5)) == {'FINISHED'}
    reduced = bones()
    modes = {b: arm.pose.bones[b].rotation_mode for b in reduced}
    count = addon.baking.bake.last_key_count(scene)
    return {"full": {b: v[0] for b, v in full.items()},
            "played": {b: v[0] for b, v in reduced.items()},
            "keys": {b: v[1] for b, v in reduced.items()}, "modes": modes,
            "count": [count.written, count.full]}
