"""Settings stored in the .blend: `Object.ligament_body`, `Object.ligament_joint`,
`Scene.ligament_world`; for ragdolls `Object.ligament_ragdoll` (on the armature),
`PoseBone.ligament_simulated` and `PoseBone.ligament_drive_strength` (per bone; also as
`PoseBone.ligament_ragdoll.simulated` and `.drive_strength`) and
`Object.ligament_ragdoll_part` (bookkeeping on the helper objects); `PoseBone.ligament_chain`
on a bone chain's root bone (its spring and gravity also as the root pose bone's own
`ligament_chain_stiffness`, `_damping`, `_gravity_factor`); `Scene.ligament_overlay` (what
the viewport overlay draws); `Object.ligament_motion` (the physics check and fix of a
ragdolled armature's keys). The property names are a contract (scripts and tests use them).

Every setting that changes the simulation invalidates the scene's cache through `_changed`;
the cache itself also checks a signature of the scene (runtime/changes.py: the watched
transforms each frame, the rest after an edit the depsgraph saw), so edits made by scripts
without update callbacks are caught too.
"""

import math

import bpy
from bpy.props import (
    BoolProperty,
    CollectionProperty,
    EnumProperty,
    FloatProperty,
    FloatVectorProperty,
    IntProperty,
    PointerProperty,
    StringProperty,
)

from ..authoring import chain, controls, ragdoll
from ..runtime import cache
from ..scene import ragdolls


# What a library override of a character may change in the shot (the rest comes from the
# character's file, and the panels say so): the ragdoll's and the bodies' switches, drives and
# masses, the bookkeeping the simulation and the bake write on the objects, and the pointers
# between a character's objects (an override points them at the override's own objects; a
# pointer that is not overridable would point back into the library once the shot reloads)
OVERRIDABLE = {'LIBRARY_OVERRIDABLE'}


def redraw_views(context):
    """Tag every 3D View for a redraw: the overlay shows a limit the moment it is edited."""
    screen = getattr(context, "screen", None)
    for area in (screen.areas if screen is not None else ()):
        if area.type == 'VIEW_3D':
            area.tag_redraw()


def _changed(self, context):

    scene = getattr(context, "scene", None)
    if scene is not None:
        cache.invalidate(scene)
    redraw_views(context)


def _overlay_toggled(self, context):
    redraw_views(context)


def _world_toggled(self, context):
    """Turning the simulation off puts the bodies back where they started and gives the
    ragdolls' bones back to their armature's own animation."""

    scene = getattr(context, "scene", None)
    if scene is not None:
        cache.invalidate(scene)
        if not self.enabled:
            cache.restore_rest(scene)
        for arm in ragdolls.armatures(scene):
            ragdoll.sync_constraints(scene, arm)


def _ragdoll_mass_changed(self, context):

    ragdoll.set_total_mass(self.id_data)
    _changed(self, context)


def _show_bodies(self, context):

    scene = getattr(context, "scene", None)
    if scene is not None:
        ragdoll.set_visible(scene, self.id_data, self.show_bodies)


BODY_KINDS = (
    ('DYNAMIC', "Dynamic", "Moved by the simulation"),
    ('STATIC', "Static", "Never moves; other bodies collide with it and joints can hold on to it"),
    ('ANIMATED', "Animated", "Follows its own animation and pushes dynamic bodies"),
)

BODY_SHAPES = (
    ('AUTO', "Auto", "Fit a sphere, a cylinder or a box to the object's geometry"),
    ('BOX', "Box", "Box fitted to the bounds"),
    ('SPHERE', "Sphere", "Sphere fitted to the bounds"),
    ('CAPSULE', "Capsule", "Capsule along local Z fitted to the bounds"),
    ('CYLINDER', "Cylinder", "Cylinder along local Z fitted to the bounds"),
    ('CONVEX_HULL', "Convex Hull", "Convex hull of the evaluated mesh"),
    ('MESH', "Mesh", "The evaluated triangles as they are (static bodies only)"),
    ('COMPOUND', "Compound", "The child objects' shapes together, each child with its own "
                             "Ligament Shape setting (as Bullet's Compound Parent); Split into "
                             "Convex Parts makes such children from a concave mesh"),
)

SPRING_MODES = (
    ('FREQUENCY', "Frequency", "Frequency (Hz) and damping ratio: the joint swings at the "
                               "frequency as hung, whatever the bodies' masses"),
    ('STIFFNESS', "Stiffness", "Stiffness and damping coefficient (N/m and N s/m, N m/rad and "
                               "N m s/rad for hinges), as in Blender's rigid body constraints"),
)

JOINT_TYPES = (
    ('BALL', "Ball", "Ball and socket: the anchors coincide, any rotation"),
    ('HINGE', "Hinge", "Rotation about the empty's local Z axis only"),
    ('PRISMATIC', "Slider", "Translation along the empty's local X axis only, no rotation"),
    ('FIXED', "Fixed", "Weld the two objects together"),
    ('DISTANCE', "Distance", "Keep the empty (on A) and B's origin at a distance or in a range"),
    ('ROPE', "Rope", "The empty (on A) and B's origin at most the rope length apart"),
    ('RAGDOLL', "Ragdoll", "Ball and socket with a swing cone and a twist range about local Y"),
    ('MOTOR', "Motor", "Drive the relative spin about the empty's local Z axis"),
    # Mechanisms (world/mechanisms.py has their conventions).
    ('GEAR', "Gear", "Couple two hinge joints: B's hinge turns at -ratio x A's"),
    ('RACK_AND_PINION', "Rack and Pinion", "Couple a hinge (pinion) and a slider (rack): "
                                           "slide = ratio x angle"),
    ('PULLEY', "Pulley", "A rope from A over two fixed points down to B"),
    ('WHEEL', "Wheel", "B spins about local Z on A, sprung along local Y (suspension)"),
    ('LINE', "Line", "B's point stays on A's line along local X; rotation free"),
    ('PATH', "Path", "B's point stays on a Curve object's spline"),
    ('CUSTOM', "Custom", "A constraint you write as an expression over A's and B's points "
                         "and axes (and two more points), held at 0 or in a range"),
    # Directing the motion (world/pins.py): made by Add Pin, not between two bodies.
    ('PIN', "Pin", "Pull the body's point to where the empty is (and, with Orientation, turn "
                   "it as the empty turns): move, parent, constrain or key the empty"),
)


RATIO_MODES = (
    ('VALUE', "Ratio", "Type the ratio"),
    ('TEETH', "Teeth", "Ratio from the two gears' teeth counts (A / B)"),
    ('RADII', "Radii", "Ratio from the two radii (A / B; a rack and pinion: the pinion's "
                       "radius)"),
)


def _is_joint_type(obj, types):
    return obj.type == 'EMPTY' and obj.ligament_joint.type in types


def _poll_joint_a(self, obj):
    return obj != self.id_data and _is_joint_type(obj, {'HINGE'})


def _poll_joint_b(self, obj):
    return obj != self.id_data and _is_joint_type(
        obj, {'PRISMATIC'} if self.type == 'RACK_AND_PINION' else {'HINGE'})


def _poll_curve(self, obj):
    return obj.type == 'CURVE'


def _poll_fixed(self, obj):
    return obj != self.id_data


class BakeState:
    """Bake bookkeeping shared by bodies and ragdolls (see bake.py): the action the object had
    before baking."""
    baked: BoolProperty(options={'HIDDEN'}, override=OVERRIDABLE)
    pre_bake_action: PointerProperty(type=bpy.types.Action, options={'HIDDEN'},
                                     override=OVERRIDABLE)
    pre_bake_slot: StringProperty(options={'HIDDEN'}, override=OVERRIDABLE)
    pre_bake_had_action: BoolProperty(options={'HIDDEN'}, override=OVERRIDABLE)


class LigamentBodySettings(BakeState, bpy.types.PropertyGroup):
    enabled: BoolProperty(name="Ligament Body", default=False, update=_changed,
                          description="Simulate this object with Ligament", override=OVERRIDABLE)
    kind: EnumProperty(name="Type", items=BODY_KINDS, default='DYNAMIC', update=_changed,
                       override=OVERRIDABLE)
    shape: EnumProperty(name="Shape", items=BODY_SHAPES, default='AUTO', update=_changed)
    one_sided: BoolProperty(name="One-Sided", default=False, update=_changed,
                            description="Mesh shape: each face collides only with bodies on "
                                        "the side its normal points to (an inside-out room, "
                                        "terrain); off, both sides of every face collide")
    mass: FloatProperty(name="Mass", default=1.0, min=1e-4, soft_max=1000.0, unit='MASS',
                        update=_changed, description="Mass of a dynamic body",
                        override=OVERRIDABLE)
    friction: FloatProperty(name="Friction", default=0.5, min=0.0, soft_max=1.0, update=_changed)
    restitution: FloatProperty(name="Bounciness", default=0.0, min=0.0, max=1.0,
                               update=_changed, description="Restitution of collisions")
    linear_damping: FloatProperty(name="Linear Damping", default=0.04, min=0.0, soft_max=1.0,
                                  max=100.0, update=_changed,
                                  description="Rate (1/s) at which motion dies away")
    angular_damping: FloatProperty(name="Angular Damping", default=0.1, min=0.0, soft_max=2.0,
                                   max=100.0, update=_changed,
                                   description="Rate (1/s) at which spin dies away")
    collision_group: IntProperty(name="Collision Group", default=0, min=0, max=31,
                                 update=_changed,
                                 description="Bodies of a group 1-31 collide only with their "
                                             "own group and group 0; group 0 collides with all")
    hit_impulse: FloatProperty(name="Hit Impulse", default=0.0, min=0.0, soft_max=100.0,
                               update=_changed,
                               description="An Animated body follows its keys until a contact "
                                           "pushes it with more than this impulse (N s) in one "
                                           "frame beyond what a load resting on it takes, then "
                                           "simulates (with Mass); 0: never")
    blend_back: IntProperty(name="Blend Back", default=0, min=0, soft_max=100, update=_changed,
                            description="Frames over which a hit body is pulled back onto its "
                                        "keys, which it follows again until the next hit; 0: "
                                        "it stays simulated")

    # Bookkeeping, not shown in the UI. The rest pose is the transform the simulation starts
    # from; it is kept on the object because live simulation moves the object itself.
    rest_valid: BoolProperty(options={'HIDDEN'}, override=OVERRIDABLE)
    rest_location: FloatVectorProperty(size=3, options={'HIDDEN'}, override=OVERRIDABLE)
    rest_rotation: FloatVectorProperty(size=4, options={'HIDDEN'}, override=OVERRIDABLE)
    rest_rotation_mode: StringProperty(options={'HIDDEN'}, override=OVERRIDABLE)
    # True while the object shows a simulated pose rather than its rest pose (so a file saved
    # mid-simulation starts from the rest pose again when reloaded).
    sim_pose: BoolProperty(options={'HIDDEN'}, override=OVERRIDABLE)
    # True while a keyed dynamic body shows a simulated pose through its delta transform
    # (written by the simulation; cleared when it stops, see world/poses.apply_delta).
    sim_delta: BoolProperty(options={'HIDDEN'}, override=OVERRIDABLE)
    # Bake bookkeeping (with BakeState's): the transform before baking.
    pre_bake_location: FloatVectorProperty(size=3, options={'HIDDEN'}, override=OVERRIDABLE)
    pre_bake_rotation: FloatVectorProperty(size=4, options={'HIDDEN'}, override=OVERRIDABLE)


class LigamentJointSettings(bpy.types.PropertyGroup):
    enabled: BoolProperty(name="Ligament Joint", default=False, update=_changed)
    type: EnumProperty(name="Type", items=JOINT_TYPES, default='HINGE', update=_changed)
    # overridable: in a character's library override they point at the override's bodies
    object_a: PointerProperty(name="Object A", type=bpy.types.Object, update=_changed,
                              override=OVERRIDABLE)
    object_b: PointerProperty(name="Object B", type=bpy.types.Object, update=_changed,
                              override=OVERRIDABLE)
    disable_collisions: BoolProperty(name="Disable Collisions", default=True, update=_changed,
                                     description="The two objects do not collide with each other")
    breakable: BoolProperty(name="Breakable", default=False, update=_changed)
    break_threshold: FloatProperty(name="Threshold", default=100.0, min=0.0, update=_changed,
                                   description="Force (N) or torque (N m) that breaks the joint")

    # Limits: angular for hinges and ragdoll twist, linear for sliders and distances.
    use_limit_ang: BoolProperty(name="Angular", default=False, update=_changed)
    limit_ang_lower: FloatProperty(name="Lower", default=-math.radians(45), unit='ROTATION',
                                   soft_min=-math.pi, soft_max=math.pi, update=_changed)
    limit_ang_upper: FloatProperty(name="Upper", default=math.radians(45), unit='ROTATION',
                                   soft_min=-math.pi, soft_max=math.pi, update=_changed)
    use_limit_lin: BoolProperty(name="Linear", default=False, update=_changed)
    limit_lin_lower: FloatProperty(name="Lower", default=-1.0, unit='LENGTH', update=_changed)
    limit_lin_upper: FloatProperty(name="Upper", default=1.0, unit='LENGTH', update=_changed)
    swing_1: FloatProperty(name="Swing X", default=math.radians(45), min=math.radians(0.5),
                           max=math.radians(179),
                           unit='ROTATION', update=_changed,
                           description="Ragdoll cone half-angle about the empty's local X")
    swing_2: FloatProperty(name="Swing Z", default=math.radians(45), min=math.radians(0.5),
                           max=math.radians(179),
                           unit='ROTATION', update=_changed,
                           description="Ragdoll cone half-angle about the empty's local Z")
    rope_length: FloatProperty(name="Length", default=0.0, min=0.0, unit='LENGTH',
                               update=_changed,
                               description="Rope length (0: the distance when the simulation starts)")

    use_motor: BoolProperty(name="Motor", default=False, update=_changed)
    motor_velocity: FloatProperty(name="Target Velocity", default=1.0, update=_changed,
                                  description="rad/s for hinges and motors, m/s for sliders")
    motor_max_force: FloatProperty(name="Max Force", default=10.0, min=0.0, update=_changed,
                                   description="Maximum torque (N m) or force (N) of the motor")

    use_spring: BoolProperty(name="Spring", default=False, update=_changed)
    spring_mode: EnumProperty(
        name="Mode", items=SPRING_MODES, default='FREQUENCY', update=_changed,
        description="How the spring is given: the frequency the joint swings at as hung, or "
                    "a stiffness and a damping coefficient as in Blender's rigid body "
                    "constraints")
    spring_frequency: FloatProperty(name="Frequency", default=2.0, min=0.0, soft_max=30.0,
                                    subtype='FACTOR', update=_changed,
                                    description="The frequency (Hz) the joint oscillates at as "
                                                "hung (a door on its hinge swings at it)")
    spring_damping: FloatProperty(name="Damping", default=0.5, min=0.0, soft_max=2.0,
                                  update=_changed, description="Damping ratio (1: critical)")
    spring_stiffness: FloatProperty(name="Stiffness", default=10.0, min=0.0, soft_max=1000.0,
                                    update=_changed,
                                    description="Spring stiffness: N/m for sliders and "
                                                "distances, N m/rad for hinges")
    spring_damper: FloatProperty(name="Damping", default=0.5, min=0.0, soft_max=100.0,
                                 update=_changed,
                                 description="Damping coefficient: N s/m for sliders and "
                                             "distances, N m s/rad for hinges")

    # Mechanisms (world/mechanisms.py). The pickers' polls filter the UI's lists; the build
    # checks again (scripts can set anything) and skips a joint given the wrong object.
    joint_a: PointerProperty(name="Hinge A", type=bpy.types.Object, poll=_poll_joint_a,
                             update=_changed, description="The hinge joint empty that drives")
    joint_b: PointerProperty(name="Joint B", type=bpy.types.Object, poll=_poll_joint_b,
                             update=_changed,
                             description="The coupled joint empty: a hinge for a gear, a "
                                         "slider for a rack and pinion")
    ratio: FloatProperty(name="Ratio", default=1.0, soft_min=-10.0, soft_max=10.0,
                         update=_changed,
                         description="Gear: B turns at -ratio x A (negative: the same way, "
                                     "as a belt). Rack: metres of slide per radian. Pulley: "
                                     "times the rope is reeved on B's side. Motor: drives "
                                     "wB - ratio x wA")
    ratio_mode: EnumProperty(name="Ratio From", items=RATIO_MODES, default='VALUE',
                             update=_changed)
    teeth_a: IntProperty(name="Teeth A", default=20, min=1, update=_changed)
    teeth_b: IntProperty(name="Teeth B", default=10, min=1, update=_changed)
    radius_a: FloatProperty(name="Radius A", default=0.2, min=1e-4, unit='LENGTH',
                            update=_changed)
    radius_b: FloatProperty(name="Radius B", default=0.1, min=1e-4, unit='LENGTH',
                            update=_changed)
    fixed_a: PointerProperty(name="Fixed A", type=bpy.types.Object, poll=_poll_fixed,
                             update=_changed,
                             description="The pulley point A's rope runs over: where "
                                         "this object is at the start frame; a body, or "
                                         "an object parented to one, carries it along")
    fixed_b: PointerProperty(name="Fixed B", type=bpy.types.Object, poll=_poll_fixed,
                             update=_changed,
                             description="The pulley point B's rope runs over: where "
                                         "this object is at the start frame; a body, or "
                                         "an object parented to one, carries it along")
    curve: PointerProperty(name="Curve", type=bpy.types.Object, poll=_poll_curve,
                           update=_changed,
                           description="The Curve object the path follows (its spline "
                                       "nearest the empty, Bezier or Poly)")
    path_align: BoolProperty(name="Align", default=False, update=_changed,
                             description="Keep B's axis that lies along the curve at the start "
                                         "along the curve's tangent")
    path_friction: FloatProperty(name="Friction", default=0.0, min=0.0, unit='NONE',
                                 update=_changed,
                                 description="Force (N) that brakes B along the path (without "
                                             "a motor)")
    steering: FloatProperty(name="Steering", default=0.0, unit='ROTATION',
                            soft_min=-math.pi / 2, soft_max=math.pi / 2, update=_changed,
                            description="Wheel: the axle's turn about the suspension axis "
                                        "(local Y); key it or drive it to steer, it is read "
                                        "every frame")

    # Pin (world/pins.py): Object B is the body, the empty its target.
    pin_hertz: FloatProperty(name="Stiffness", default=0.0, min=0.0, soft_max=30.0,
                             update=_changed,
                             description="0: rigid, the body's point stays on the empty. "
                                         "Otherwise the frequency (Hz) of the spring that "
                                         "pulls it there (a body pinned at its centre "
                                         "swings at it)")
    pin_damping_ratio: FloatProperty(name="Damping", default=1.0, min=0.0, soft_max=2.0,
                                     update=_changed,
                                     description="Damping ratio of the spring (1: critical, "
                                                 "no overshoot; lower swings past the empty)")
    pin_max_force: FloatProperty(name="Max Force", default=0.0, min=0.0, soft_max=10000.0,
                                 update=_changed,
                                 description="The most force (N) the pin pulls with, in any "
                                             "direction (0: no limit)")
    pin_orientation: BoolProperty(name="Orientation", default=False, update=_changed,
                                  description="Turn the body as the empty turns (it keeps the "
                                              "turn between them at the start frame)")
    pin_max_torque: FloatProperty(name="Max Torque", default=0.0, min=0.0, soft_max=10000.0,
                                  update=_changed,
                                  description="The most torque (N m) the orientation pulls "
                                              "with (0: no limit)")
    pin_offset: FloatVectorProperty(name="Point", size=3, subtype='TRANSLATION',
                                    update=_changed,
                                    description="The pinned point of the body, in its local "
                                                "space (0: its origin); Add Pin sets it to "
                                                "where the empty was made")

    # Custom (World.add_custom; world/mechanisms.py has the letters' conventions).
    expression: StringProperty(
        name="Expression", default="length(pA - pB)", update=_changed,
        description="The constraint C, a scalar over pA, xA, uA, XA, YA, ZA (and B, C, D): "
                    "held at C = 0, or kept between Lower and Upper. E.g. length(pA - xB) - 1 "
                    "(a rod), pB.z - 2 (a height), dot(uA, uB) (two axes at right angles)")
    custom_use_lower: BoolProperty(name="Lower", default=False, update=_changed,
                                   description="Keep C above Lower (with neither bound, C is "
                                               "held at 0)")
    custom_lower: FloatProperty(name="Lower", default=0.0, update=_changed,
                                description="The least value of C")
    custom_use_upper: BoolProperty(name="Upper", default=False, update=_changed,
                                   description="Keep C below Upper (with neither bound, C is "
                                               "held at 0)")
    custom_upper: FloatProperty(name="Upper", default=1.0, update=_changed,
                                description="The greatest value of C")
    custom_stiffness: FloatProperty(name="Stiffness", default=0.0, min=0.0, soft_max=10000.0,
                                    update=_changed,
                                    description="0: rigid. Otherwise a spring: the force is "
                                                "-stiffness x C (N per unit of C)")
    custom_damping: FloatProperty(name="Damping", default=0.0, min=0.0, soft_max=1000.0,
                                  update=_changed,
                                  description="Damping of the spring on the rate of C "
                                              "(with a stiffness only)")
    point_c: PointerProperty(name="Point C", type=bpy.types.Object, poll=_poll_fixed,
                             update=_changed,
                             description="Letter C of the expression (pC, uC = its local Z): "
                                         "a Ligament body stands for itself, any other "
                                         "object for a fixed point where it is at the start "
                                         "frame")
    point_d: PointerProperty(name="Point D", type=bpy.types.Object, poll=_poll_fixed,
                             update=_changed,
                             description="Letter D of the expression, as Point C")


def _weight(name):
    return FloatProperty(name=name, default=1.0, min=0.0, soft_max=1.0, max=200.0,
                         update=_changed, description=f"How much {name} fields push the bodies")


class LigamentEffectorWeights(bpy.types.PropertyGroup):
    """Which force fields push the Ligament bodies and how much, as the Rigid Body World's
    Field Weights (a PropertyGroup cannot hold Blender's own EffectorWeights)."""
    collection: PointerProperty(
        name="Effector Collection", type=bpy.types.Collection, update=_changed,
        description="Only the force fields in this collection push the bodies (none: every "
                    "field in the scene)")
    all: FloatProperty(name="All", default=1.0, min=0.0, max=200.0, soft_max=1.0,
                       update=_changed, description="How much every field pushes the bodies")
    force: _weight("Force")
    wind: _weight("Wind")
    vortex: _weight("Vortex")
    turbulence: _weight("Turbulence")
    drag: _weight("Drag")
    harmonic: _weight("Harmonic")


class LigamentWorldSettings(bpy.types.PropertyGroup):
    enabled: BoolProperty(name="Ligament World", default=True, update=_world_toggled,
                          description="Run the Ligament simulation when the frame changes")
    substeps: IntProperty(name="Substeps", default=8, min=1, max=64, update=_changed,
                          description="Solver substeps per frame")
    jointed_substeps: IntProperty(
        name="Jointed Substeps", default=0, min=0, max=64, update=_changed,
        description="Substeps for a ragdoll or small mechanism on the ground, at most Substeps "
                    "(0: Auto, half of Substeps and at least 4; Substeps or more: every "
                    "substep). Half of Substeps costs a ragdoll crowd about a fifth less time; "
                    "its joints, limits and landings hold as at the full count")
    calm_substeps: IntProperty(
        name="Calm Substeps", default=0, min=0, max=64, update=_changed,
        description="Substeps for such a ragdoll or mechanism in a frame it starts calm: "
                    "lying still or moving slowly, no contact closing, no joint turning "
                    "(0: half of Jointed Substeps, at least 4; as many as Jointed Substeps: "
                    "off). Falls, landings and hits always step at Jointed Substeps")
    # what the values above meant when the file was saved (scene/versioning.py)
    settings_version: IntProperty(name="Settings Version", default=0, min=0,
                                  options={'HIDDEN'})
    iterations: IntProperty(name="Iterations", default=1, min=1, max=50, update=_changed,
                            description="Solver iterations per substep")
    frame_start: IntProperty(name="Start", default=1, update=_changed,
                             description="Frame at which the simulation starts from the rest pose")
    frame_end: IntProperty(name="End", default=250, update=_changed,
                           description="Last simulated frame")
    # the bake's (not read by the simulation: no update callback)
    bake_reduce: BoolProperty(
        name="Reduce Keys", default=False,
        description="Bake only the keys the curves need to stay within the tolerances of the "
                    "simulated motion at every frame (Bezier keys); off: a key on every frame")
    bake_tolerance_location: FloatProperty(
        name="Location Tolerance", default=0.001, min=0.0, soft_max=0.1, unit='LENGTH',
        precision=4, description="How far a baked body, or any bone of a baked ragdoll (fingers "
                                "included), may be from its simulated location in world space")
    bake_tolerance_rotation: FloatProperty(
        name="Rotation Tolerance", default=math.radians(0.5), min=0.0,
        soft_max=math.radians(10.0), unit='ROTATION',
        description="How far each baked body's or bone's own rotation may turn from the "
                    "simulated one")
    effector_weights: PointerProperty(type=LigamentEffectorWeights)


class LigamentOverlaySettings(bpy.types.PropertyGroup):
    """On the scene: what the viewport overlay draws (nothing of the simulation)."""
    show_limits: BoolProperty(name="Limits", default=True, update=_overlay_toggled,
                              description="Draw the joints' limits at each joint: swing "
                                          "cones, twist and hinge arcs, slider and distance "
                                          "ranges, with the current angle marked")
    show_shapes: BoolProperty(name="Collision Shapes", default=False,
                              update=_overlay_toggled,
                              description="Draw the bodies' collision shapes as wireframes")
    show_contacts: BoolProperty(name="Contacts", default=False, update=_overlay_toggled,
                                description="Draw the contact points and normals of the "
                                            "simulated frame shown")
    size: FloatProperty(name="Size", default=1.0, min=0.01, soft_max=10.0,
                        update=_overlay_toggled,
                        description="Scale of the limits and normals drawn (times the joint "
                                    "empty's display size; normals in metres)")


def _poll_control_rig(self, obj):
    return obj.type == 'ARMATURE' and obj != self.id_data


def _control_rig_changed(self, context):
    """A rig Rigify generated gets the default pairs (when there are none yet)."""
    if self.control_rig is not None:
        controls.fill_defaults(self.id_data)


class LigamentControlPair(bpy.types.PropertyGroup):
    """A bone of the ragdoll's armature (source) and the control rig's bone that follows it
    in a bake (target)."""
    source: StringProperty(name="Source", description="Bone of the ragdoll's armature")
    target: StringProperty(name="Target", description="Bone of the control rig that follows "
                                                       "the source in a bake")


class LigamentRagdollSettings(BakeState, bpy.types.PropertyGroup):
    """On an armature: its ragdoll. Simulated and the drive settings are animatable (key
    them in the armature's action)."""
    enabled: BoolProperty(name="Ragdoll", default=False, options={'HIDDEN'},
                          description="The armature has a Ligament ragdoll", override=OVERRIDABLE)
    bone_map: StringProperty(name="Bone Map", options={'HIDDEN'},
                             description="Bone map (presets/ragdoll/maps) the ragdoll was made "
                                         "with")
    collection: PointerProperty(type=bpy.types.Collection, options={'HIDDEN'},
                                override=OVERRIDABLE)
    simulated: BoolProperty(name="Simulated", default=True, update=_changed,
                            description="Simulate the ragdoll; off, its bodies follow the "
                                        "animation (and push others). Key it to let a "
                                        "character go limp at a frame", override=OVERRIDABLE)
    total_mass: FloatProperty(name="Total Mass", default=70.0, min=0.1, soft_max=500.0,
                              unit='MASS', update=_ragdoll_mass_changed,
                              description="Mass of the whole character, shared out by body "
                                          "part", override=OVERRIDABLE)
    drive_strength: FloatProperty(name="Strength", default=0.0, min=0.0, max=1.0,
                                  subtype='FACTOR', update=_changed,
                                  description="How hard the joints pull toward the animated "
                                              "pose (0: limp, 1: full stiffness)",
                                              override=OVERRIDABLE)
    drive_stiffness: FloatProperty(name="Stiffness", default=40.0, min=0.0, soft_max=60.0,
                                   update=_changed,
                                   description="Pose-matching spring frequency (Hz) at full "
                                               "strength; 40 Hz holds a 70 kg character's "
                                               "limbs within a few degrees", override=OVERRIDABLE)
    drive_damping: FloatProperty(name="Damping", default=1.0, min=0.0, soft_max=2.0,
                                 update=_changed,
                                 description="Pose-matching damping ratio (1: critical)",
                                 override=OVERRIDABLE)
    drive_max_torque: FloatProperty(name="Max Torque", default=0.0, min=0.0, soft_max=1000.0,
                                    update=_changed,
                                    description="Torque cap (N m) of each joint's drive at full "
                                                "strength (0: no cap)", override=OVERRIDABLE)
    show_bodies: BoolProperty(name="Show Bodies", default=False, update=_show_bodies,
                              description="Show the ragdoll's helper bodies and joints",
                              override=OVERRIDABLE)
    pre_bake_pose: StringProperty(options={'HIDDEN'}, override=OVERRIDABLE)
    control_rig: PointerProperty(
        name="Control Rig", type=bpy.types.Object, poll=_poll_control_rig,
        update=_control_rig_changed,
        description="Armature whose bones the bake also keys so that they follow the "
                    "simulated bones (a rig Rigify generated gets its FK controls)")
    controls: CollectionProperty(type=LigamentControlPair)
    controls_index: IntProperty(options={'HIDDEN'})


# A ragdoll bone's switches are properties of the pose bone itself (`ligament_simulated`,
# `ligament_drive_strength`): Blender overrides a pose bone's own properties, but fails to load
# an override of a property group on a pose bone (it takes the group for an ID pointer), and
# cannot key one from the UI (no path from the armature to it).
BONE_SIMULATED = dict(name="Simulated", default=True,
                      description="Simulate this bone's body; off, it follows the animation")
# The physics check's contact rule of a bone's body (addon/motion): keyed, they switch a
# part's rule over the shot (no update: the simulation does not read them)
BONE_CONTACT_OVERRIDE = dict(
    name="Own Contact Rule", default=False,
    description="The physics check takes this body as touching by its own Contact Distance "
                "and Speed instead of the armature's (key it to switch)")
BONE_CONTACT_DISTANCE = dict(
    name="Contact Distance", default=0.06, min=0.0, soft_max=2.0, unit='LENGTH',
    description="With Own Contact Rule: this body touches within this distance of a Static "
                "body (0: only when it reaches it)")
BONE_CONTACT_SPEED = dict(
    name="Contact Speed", default=0.3, min=0.0, soft_max=10.0, unit='VELOCITY',
    description="With Own Contact Rule: this body touches only while slower than this")
BONE_DRIVE_STRENGTH = dict(name="Drive Strength", default=1.0, min=0.0, max=1.0,
                           subtype='FACTOR',
                           description="Scales the ragdoll's pose-matching strength at this "
                                       "bone's joint")


def _group_bone(self):
    """The pose bone a `LigamentRagdollBone` belongs to (found by the group's address: a pose
    bone's property group has no path)."""
    address = self.as_pointer()
    return next(pb for pb in self.id_data.pose.bones
                if pb.ligament_ragdoll.as_pointer() == address)


def _group_get(key):
    return lambda self: ragdolls.bone_switch(_group_bone(self), key)


def _group_set(key):
    def set_value(self, value):
        setattr(_group_bone(self), "ligament_" + key, value)
    return set_value


class LigamentRagdollBone(bpy.types.PropertyGroup):
    """`pose_bone.ligament_ragdoll.simulated` and `.drive_strength`, the names scripts and
    keys of files made before use: they read and write the pose bone's own
    `ligament_simulated` and `ligament_drive_strength` (what such a file stored in the group
    is read when the pose bone's own is unset, `scene.ragdolls.bone_switch`)."""
    simulated: BoolProperty(get=_group_get("simulated"), set=_group_set("simulated"),
                            update=_changed, **BONE_SIMULATED)
    drive_strength: FloatProperty(get=_group_get("drive_strength"),
                                  set=_group_set("drive_strength"), update=_changed,
                                  **BONE_DRIVE_STRENGTH)


def _chain_root(self):
    """(armature, root bone name) of a chain's settings (path_from_id cannot name a pose
    bone's property group: the bone is found by the settings' address)."""
    arm, address = self.id_data, self.as_pointer()
    return arm, next(pb.name for pb in arm.pose.bones
                     if pb.ligament_chain.as_pointer() == address)


def _chain_preset(self, context):
    if self.preset != 'CUSTOM':
        chain.apply_preset(self, self.preset)
    _chain_limits(self, context)


def _chain_limits(self, context):
    if self.enabled:
        chain.set_limits(*_chain_root(self))
    _changed(self, context)


def _chain_radius(self, context):
    if self.enabled:
        chain.set_radius(*_chain_root(self))
    _changed(self, context)


CHAIN_PRESETS = (
    ('HAIR', "Hair", "Soft: hangs and trails without wobbling (1.5 Hz, damping 1, gravity 1)"),
    ('TAIL', "Tail", "Holds its shape and whips (3 Hz, damping 0.7, gravity 0.5)"),
    ('JIGGLE', "Jiggle", "Fast and bouncy, no gravity (6 Hz, damping 0.3, gravity 0)"),
    ('CUSTOM', "Custom", "Your own values"),
)


# A chain's spring and gravity are properties of its root pose bone itself
# (`ligament_chain_stiffness`, `_damping`, `_gravity_factor`), for the same reasons as a
# bone's switches: a shot's library override keeps them. Not animatable: a chain's spring is
# set when the simulation is built, so keys would not be followed.
CHAIN_STIFFNESS = dict(name="Stiffness", default=1.5, min=0.0, soft_max=20.0,
                       description="Frequency (Hz) each bone swings back toward its rest (or "
                                   "animated) pose at, as hung")
CHAIN_DAMPING = dict(name="Damping", default=1.0, min=0.0, soft_max=2.0,
                     description="Damping ratio of the spring (1: no overshoot)")
CHAIN_GRAVITY = dict(name="Gravity", default=1.0, min=0.0, max=1.0, subtype='FACTOR',
                     description="How much of the world's gravity pulls the chain (0: it "
                                 "keeps its shape, 1: it droops)")


def _chain_bone(self):
    arm, root = _chain_root(self)
    return arm.pose.bones[root]


def _chain_get(key):
    return lambda self: ragdolls.chain_setting(_chain_bone(self), key)


def _chain_set(key):
    def set_value(self, value):
        setattr(_chain_bone(self), "ligament_chain_" + key, value)
    return set_value


class LigamentChainSettings(bpy.types.PropertyGroup):
    """On the root pose bone of a dynamic bone chain: the chain's shape and preset. Its
    `stiffness`, `damping` and `gravity_factor` read and write the root pose bone's own
    `ligament_chain_stiffness`, `_damping` and `_gravity_factor` (what a file made before
    stored in the group is read while the pose bone's own is unset,
    `scene.ragdolls.chain_setting`)."""
    enabled: BoolProperty(name="Bone Chain", default=False, options={'HIDDEN'},
                          description="A dynamic bone chain hangs from this bone")
    preset: EnumProperty(name="Preset", items=CHAIN_PRESETS, default='HAIR',
                         update=_chain_preset,
                         description="Stiffness, damping, gravity and limits for a kind of "
                                     "chain")
    stiffness: FloatProperty(get=_chain_get("stiffness"), set=_chain_set("stiffness"),
                             update=_changed, options=set(), **CHAIN_STIFFNESS)
    damping: FloatProperty(get=_chain_get("damping"), set=_chain_set("damping"),
                           update=_changed, options=set(), **CHAIN_DAMPING)
    gravity_factor: FloatProperty(get=_chain_get("gravity_factor"),
                                  set=_chain_set("gravity_factor"), update=_changed,
                                  options=set(), **CHAIN_GRAVITY)
    radius: FloatProperty(name="Radius", default=0.01, min=0.0005, soft_max=0.2, unit='LENGTH',
                          update=_chain_radius,
                          description="Collision radius of the chain's capsules")
    swing_limit: FloatProperty(name="Swing Limit", default=80.0, min=1.0, max=179.0,
                               update=_chain_limits,
                               description="Cone half-angle (degrees) each bone may swing "
                                           "from its parent's rest direction")
    twist_limit: FloatProperty(name="Twist Limit", default=10.0, min=0.0, max=179.0,
                               update=_chain_limits,
                               description="How far (degrees) each bone may twist about "
                                           "itself, either way")


RAGDOLL_ROLES = (
    ('NONE', "None", ""),
    ('BODY', "Body", "A body of the ragdoll"),
    ('TARGET', "Target", "Where a bone sits on its body (the bone copies its transform)"),
    ('JOINT', "Joint", "The joint of a body to its parent body"),
)


class LigamentRagdollPart(bpy.types.PropertyGroup):
    """Bookkeeping on a ragdoll's helper objects."""
    armature: PointerProperty(type=bpy.types.Object, options={'HIDDEN'}, override=OVERRIDABLE)
    part: StringProperty(options={'HIDDEN'})
    role: EnumProperty(items=RAGDOLL_ROLES, default='NONE', options={'HIDDEN'})
    bone: StringProperty(options={'HIDDEN'})
    mass_share: FloatProperty(options={'HIDDEN'}, override=OVERRIDABLE)
    # The part's frame in armature space at the rest pose (row-major 4x4): where the body
    # sits relative to its first bone.
    rest_frame: FloatVectorProperty(size=16, options={'HIDDEN'})
    # The root bone of the bone chain this helper belongs to ("" for a ragdoll's own parts)
    chain: StringProperty(options={'HIDDEN'})


class LigamentMotionSettings(bpy.types.PropertyGroup):
    """The physics check and fix of a ragdolled armature's keyed motion (addon/motion); all
    of it overridable: a shot checks and fixes a linked character's motion in its override,
    and the override keeps the actions it switches between."""
    # A ragdoll's foot is a box along the foot bone, tilted: on a standing metarig its heel
    # corners are 5 cm above the toes' (6 cm keeps the whole sole in the support polygon)
    contact_distance: FloatProperty(
        name="Contact Distance", default=0.06, min=0.0, soft_max=0.2, unit='LENGTH',
        description="A part within this distance of a Static body (and slower than Contact "
                    "Speed) touches it", override=OVERRIDABLE)
    contact_speed: FloatProperty(
        name="Contact Speed", default=0.3, min=0.0, soft_max=5.0, unit='VELOCITY',
        description="A part near a Static body touches it only while slower than this "
                    "(before or after the frame)", override=OVERRIDABLE)
    tolerance: FloatProperty(
        name="Tolerance", default=0.01, min=0.0, soft_max=0.1, unit='LENGTH',
        description="Distances the check lets pass: from the flight's parabola, outside "
                    "the support polygon, contacts sliding", override=OVERRIDABLE)
    momentum_tolerance: FloatProperty(
        name="Momentum Tolerance", default=5.0, min=0.0, soft_max=100.0, subtype='PERCENTAGE',
        description="How much the angular momentum may change in a flight",
        override=OVERRIDABLE)
    show_drawing: BoolProperty(
        name="Draw in Viewport", default=True,
        description="Draw the last check of the active armature in the viewport: the centre "
                    "of mass path, the flights' parabolas, the contact points and support "
                    "polygon at the current frame, red where they fail", override=OVERRIDABLE)
    flight_keep: EnumProperty(
        name="Flight Keeps", default='TIMING',
        items=(('TIMING', "Timing", "Physics Fix puts a flight on the parabola of gravity "
                                    "with take-off and landing where they were keyed; its "
                                    "height follows"),
               ('HEIGHT', "Height", "Physics Fix puts a flight on the parabola of gravity "
                                    "with its keyed apex height; its length follows and the "
                                    "keys after it shift in time")),
        description="What Physics Fix keeps of a flight it puts on the parabola of gravity",
        override=OVERRIDABLE)
    # the last check's figures per phase (JSON, addon/motion/rig.py store_report)
    report: StringProperty(options={'HIDDEN'}, override=OVERRIDABLE)
    keyed_action: PointerProperty(type=bpy.types.Action, options={'HIDDEN'},
                                  override=OVERRIDABLE)
    fixed_action: PointerProperty(type=bpy.types.Action, options={'HIDDEN'},
                                  override=OVERRIDABLE)
    # the simulated pass's bake of the fixed action (addon/motion/simulate.py)
    simulated_action: PointerProperty(type=bpy.types.Action, options={'HIDDEN'},
                                      override=OVERRIDABLE)


classes = (LigamentBodySettings, LigamentJointSettings, LigamentEffectorWeights,
           LigamentWorldSettings, LigamentControlPair, LigamentRagdollSettings,
           LigamentRagdollBone, LigamentRagdollPart, LigamentChainSettings,
           LigamentOverlaySettings, LigamentMotionSettings)


def register():
    for cls in classes:
        bpy.utils.register_class(cls)
    bpy.types.Object.ligament_body = PointerProperty(type=LigamentBodySettings,
                                                     override=OVERRIDABLE)
    bpy.types.Object.ligament_joint = PointerProperty(type=LigamentJointSettings,
                                                      override=OVERRIDABLE)
    bpy.types.Scene.ligament_world = PointerProperty(type=LigamentWorldSettings)
    bpy.types.Object.ligament_ragdoll = PointerProperty(type=LigamentRagdollSettings,
                                                        override=OVERRIDABLE)
    bpy.types.PoseBone.ligament_simulated = BoolProperty(update=_changed, override=OVERRIDABLE,
                                                         **BONE_SIMULATED)
    bpy.types.PoseBone.ligament_drive_strength = FloatProperty(
        update=_changed, override=OVERRIDABLE, **BONE_DRIVE_STRENGTH)
    bpy.types.PoseBone.ligament_contact_override = BoolProperty(override=OVERRIDABLE,
                                                                **BONE_CONTACT_OVERRIDE)
    bpy.types.PoseBone.ligament_contact_distance = FloatProperty(override=OVERRIDABLE,
                                                                 **BONE_CONTACT_DISTANCE)
    bpy.types.PoseBone.ligament_contact_speed = FloatProperty(override=OVERRIDABLE,
                                                              **BONE_CONTACT_SPEED)
    bpy.types.PoseBone.ligament_ragdoll = PointerProperty(type=LigamentRagdollBone)
    bpy.types.Object.ligament_ragdoll_part = PointerProperty(type=LigamentRagdollPart,
                                                             override=OVERRIDABLE)
    bpy.types.PoseBone.ligament_chain = PointerProperty(type=LigamentChainSettings)
    bpy.types.PoseBone.ligament_chain_stiffness = FloatProperty(
        update=_changed, override=OVERRIDABLE, options=set(), **CHAIN_STIFFNESS)
    bpy.types.PoseBone.ligament_chain_damping = FloatProperty(
        update=_changed, override=OVERRIDABLE, options=set(), **CHAIN_DAMPING)
    bpy.types.PoseBone.ligament_chain_gravity_factor = FloatProperty(
        update=_changed, override=OVERRIDABLE, options=set(), **CHAIN_GRAVITY)
    bpy.types.Scene.ligament_overlay = PointerProperty(type=LigamentOverlaySettings)
    bpy.types.Object.ligament_motion = PointerProperty(type=LigamentMotionSettings,
                                                       override=OVERRIDABLE)


def unregister():
    del bpy.types.Object.ligament_motion
    del bpy.types.Scene.ligament_overlay
    del bpy.types.PoseBone.ligament_chain_gravity_factor
    del bpy.types.PoseBone.ligament_chain_damping
    del bpy.types.PoseBone.ligament_chain_stiffness
    del bpy.types.PoseBone.ligament_chain
    del bpy.types.Object.ligament_ragdoll_part
    del bpy.types.PoseBone.ligament_ragdoll
    del bpy.types.PoseBone.ligament_contact_speed
    del bpy.types.PoseBone.ligament_contact_distance
    del bpy.types.PoseBone.ligament_contact_override
    del bpy.types.PoseBone.ligament_drive_strength
    del bpy.types.PoseBone.ligament_simulated
    del bpy.types.Object.ligament_ragdoll
    del bpy.types.Scene.ligament_world
    del bpy.types.Object.ligament_joint
    del bpy.types.Object.ligament_body
    for cls in reversed(classes):
        bpy.utils.unregister_class(cls)
