"""test_drag.py's scenarios: the Drag tool's session (authoring/drag.py) driven with the
rays of a camera's pixels."""

import random

import bpy
from mathutils import Vector

from .helpers import box, lig

SIZE = (640, 480)


def camera(location, look_at, ortho=False):
    cam = bpy.data.objects.new("Cam", bpy.data.cameras.new("Cam"))
    bpy.context.scene.collection.objects.link(cam)
    cam.location = location
    cam.rotation_euler = (Vector(look_at) - Vector(location)).to_track_quat('-Z',
                                                                             'Y').to_euler()
    if ortho:
        cam.data.type = 'ORTHO'
        cam.data.ortho_scale = 6.0
    bpy.context.view_layer.update()
    return cam


def perspective(cam):
    """Projection x view, as Blender computes them for the camera."""
    proj = cam.calc_matrix_camera(bpy.context.evaluated_depsgraph_get(), x=SIZE[0], y=SIZE[1])
    return proj @ cam.matrix_world.inverted()


def pixel(persp, point):
    clip = persp @ Vector((*point, 1.0))
    return ((clip.x / clip.w + 1) / 2 * SIZE[0], (clip.y / clip.w + 1) / 2 * SIZE[1])


def view_rays():
    """The view rays of the pixels where a perspective and an orthographic camera show 20
    random points each: how far each ray passes from its point, from the eye, from the view
    direction."""
    drag = lig().addon.authoring.drag
    random.seed(3)
    worst, through_eye, ortho_parallel = 0.0, 0.0, 0.0
    for ortho in (False, True):
        cam = camera((4, -6, 3), (0, 0, 1), ortho)
        persp = perspective(cam)
        for _ in range(20):
            p = Vector((random.uniform(-2, 2), random.uniform(-2, 2), random.uniform(0, 2)))
            origin, direction = drag.view_ray(persp, SIZE, pixel(persp, p))
            off = (p - origin) - direction * (p - origin).dot(direction)
            worst = max(worst, off.length)
            if ortho:   # every ray along the camera's view direction
                forward = -cam.matrix_world.col[2].xyz.normalized()
                ortho_parallel = max(ortho_parallel, (direction - forward).length)
            else:       # every ray through the eye
                e = cam.matrix_world.translation - origin
                through_eye = max(through_eye, (e - direction * e.dot(direction)).length)
        bpy.data.objects.remove(cam)
    return {"worst": worst, "eye": through_eye, "parallel": ortho_parallel}


def drag_recorded():
    """A box grabbed on its front face at frame 6 and dragged along x and up until frame 30,
    released at 31: what was seen, the pin's keys, a replay, a re-simulation after a key
    edited and put back, the bake, and the pin removed."""
    scene = bpy.context.scene
    addon = lig().addon
    drag = addon.authoring.drag
    box("Ground", (10, 10, 1), (0, 0, -0.5), kind='STATIC')
    b = box("Box", (0.4, 0.4, 0.4), (0, 0, 0.2), mass=2.0)
    scene.ligament_world.frame_end = 40
    cam = camera((0, -6, 2), (0, 0, 0.5))
    persp = perspective(cam)
    forward = -cam.matrix_world.col[2].xyz.normalized()
    scene.frame_set(1)
    for f in range(2, 6):
        scene.frame_set(f)
    # grab the box's front face: the next frame (6) is the first to read the drag
    origin, direction = drag.view_ray(persp, SIZE, pixel(persp, (0.05, -0.2, 0.25)))
    session = drag.DragSession(scene, hertz=4.0, max_force=200.0)
    grabbed = session.grab(origin, direction, 6, forward)
    pin = session.pin
    grab_local = list(pin.ligament_joint.pin_offset)
    seen, targets = {}, {}
    for f in range(6, 31):
        goal = (0.05 + 0.04 * (f - 5), -0.2, 0.25 + 0.03 * (f - 5))
        targets[f] = list(session.move(*drag.view_ray(persp, SIZE, pixel(persp, goal)), f))
        scene.frame_set(f)
        seen[f] = (list(b.location), list(b.rotation_euler))
    # how far the grabbed point trails the cursor's point at the last frame held
    reach = (b.matrix_world @ Vector(grab_local) - Vector(targets[30])).length
    session.release(31)
    for f in range(31, 41):
        scene.frame_set(f)
        seen[f] = (list(b.location), list(b.rotation_euler))
    keys = {fc.data_path: len(fc.keyframe_points) for fc in
            addon.scene.animation.action_fcurves(pin).values()}
    enabled = {f: addon.world.pins.is_on(pin, f) for f in (5, 6, 30, 31)}
    # replay from the start, a re-simulation from an edited key, then the bake
    addon.runtime.cache.invalidate(scene)
    replay = {}
    for f in range(1, 41):
        scene.frame_set(f)
        replay[f] = (list(b.location), list(b.rotation_euler))

    def set_key(value=None):
        # set the drag's key at frame 20 (its handles follow: they are automatic) and
        # return what it held; the key is looked up afresh, a keyframe kept across
        # FCurve.update() may be stale
        fc = addon.scene.animation.action_fcurves(pin)[("location", 0)]
        k = next(k for k in fc.keyframe_points if k.co.x == 20)
        held = k.co.y
        k.co.y = held + 0.5 if value is None else value
        fc.update()
        return held
    held = set_key()
    for f in range(1, 41):
        scene.frame_set(f)
    set_key(held)
    again = {}
    for f in range(1, 41):
        scene.frame_set(f)
        again[f] = (list(b.location), list(b.rotation_euler))
    assert bpy.ops.ligament.bake(frame_start=1, frame_end=40) == {'FINISHED'}
    baked = {f: [fc.evaluate(f) for fc in sorted(
        (fc for (p, i), fc in addon.scene.animation.action_fcurves(b).items()
         if p == "location"), key=lambda fc: fc.array_index)] for f in range(6, 41)}
    name = pin.name
    removed = list(bpy.ops.ligament.remove_pin(name=name))
    return {"removed": removed, "gone": name not in bpy.data.objects,
            "grabbed": grabbed.name, "grab_local": grab_local, "keys": keys,
            "enabled": {str(k): v for k, v in enabled.items()}, "reach": reach,
            "moved": seen[30][0][0] - seen[6][0][0], "seen": seen, "replay": replay,
            "again": again, "baked": baked,
            "error": addon.runtime.cache.error(scene)}
