"""The scene's Ligament bodies, joint empties and world settings as the build reads them."""

import functools

from ..kernels import solver as lg
from .animation import action_fcurves


def scene_bodies(scene):
    """The objects simulated as bodies: a part of a Compound body (a child of it) is a body
    of its own only through its parent."""
    return [o for o in scene.objects if o.ligament_body.enabled and not is_compound_part(o)]


def is_compound(obj):
    s = obj.ligament_body
    return s.enabled and s.shape == 'COMPOUND'


def is_compound_part(obj):
    """A child of a Compound body: one of its parts, whatever its own body settings."""
    return obj.parent is not None and is_compound(obj.parent)


def scene_joints(scene):
    """Joint empties switched on, and Pins whose switch is keyed (on at some frames: the
    simulation reads the key every frame, world/pins.py)."""
    return [o for o in scene.objects if o.type == 'EMPTY' and (
        o.ligament_joint.enabled or o.ligament_joint.type == 'PIN' and
        enabled_fcurve(o) is not None)]


ENABLED_PATH = "ligament_joint.enabled"


def enabled_fcurve(obj):
    """The F-curve keying the joint's on/off switch, or None."""
    if obj.animation_data is None or obj.animation_data.action is None:
        return None
    return action_fcurves(obj).get((ENABLED_PATH, 0))


class SceneScan:
    """The scene's bodies, joint empties and objects by name, each found once (a pass over
    every object of the scene) for a build and the scene check that follows it. Short-lived:
    the scene does not change while it is in use."""

    def __init__(self, scene):
        self.scene = scene

    @functools.cached_property
    def bodies(self):
        return scene_bodies(self.scene)

    @functools.cached_property
    def joints(self):
        return scene_joints(self.scene)

    @functools.cached_property
    def by_name(self):
        return {o.name: o for o in self.scene.objects}


def effective_kind(obj):
    """Baked dynamic bodies replay their keys: to the solver they are animated."""
    s = obj.ligament_body
    if s.kind == 'DYNAMIC' and s.baked:
        return 'ANIMATED'
    return s.kind


def jointed_substeps(jointed, substeps):
    """The substeps a frame small jointed islands step at, of Jointed Substeps `jointed` and
    Substeps `substeps`: `jointed` at most `substeps`, 0 (Auto) the solver's default of
    `substeps` (half of it, at least 4). Files saved before 0 meant Auto read as they did
    (scene/versioning.py)."""
    return min(jointed, substeps) if jointed else lg.world.half_count(substeps)


def world_settings(scene):
    """What the World is built with, from the scene and its Ligament World settings; the
    substep counts as they come to (an Auto of 0 as the solver's default of the count it
    halves)."""
    ws = scene.ligament_world
    fps = scene.render.fps / scene.render.fps_base
    jointed = jointed_substeps(ws.jointed_substeps, ws.substeps)
    return {
        "gravity": tuple(scene.gravity) if scene.use_gravity else (0.0, 0.0, 0.0),
        "dt": 1.0 / fps,
        "substeps": ws.substeps,
        "jointed_substeps": jointed,
        "calm_substeps": ws.calm_substeps or lg.world.half_count(jointed),   # 0: Auto
        "iterations": ws.iterations,
        # Blender's own thread setting (Render > Performance > Threads: Auto-Detect gives
        # every core, or `blender -t N`; Fixed gives its count)
        "threads": scene.render.threads,
        # metres per scene unit: the solver's tolerances follow it (gravity is the scene's,
        # in its units, as Blender's own rigid bodies read it)
        "length_unit": scene.unit_settings.scale_length,
    }
