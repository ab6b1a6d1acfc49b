"""Add and remove Ligament bodies on the selected objects; material presets."""

import bpy
from bpy.props import EnumProperty, FloatProperty, IntProperty

from ...authoring import convex_parts, presets
from ...world.ragdolls import is_body
from ...runtime import cache
from ...scene import bakes
from ...scene.errors import SceneError
from ...scene.shapes import fit_shape
from ..properties import BODY_KINDS, BODY_SHAPES


GEOMETRY_TYPES = {'MESH', 'CURVE', 'SURFACE', 'META', 'FONT', 'CURVES', 'POINTCLOUD'}
FIRST_MATERIAL = "flesh"   # the ragdoll default: grips enough that limp feet and hands settle


def material_items(self, context):
    """The material presets of presets/materials.toml, flesh first."""
    material_items.cache = presets.enum_items(  # Blender needs the strings kept alive
        presets.materials, lambda m: f"Friction {m['friction']:g}, bounciness "
        f"{m['bounciness']:g}, density {m['density']:g} kg/m\u00b3", first=FIRST_MATERIAL)
    return material_items.cache


def selected_bodies_poll(cls, context):
    """Poll of operators on the selected Ligament bodies."""
    if not any(o.ligament_body.enabled for o in context.selected_objects):
        cls.poll_message_set("Select objects that are Ligament bodies")
        return False
    return True


class LIGAMENT_OT_add_body(bpy.types.Operator):
    """Make the selected objects Ligament bodies, with a shape fitted to their geometry"""
    bl_idname = "ligament.add_body"
    bl_label = "Add Body"
    bl_options = {'REGISTER', 'UNDO'}

    kind: EnumProperty(name="Type", items=BODY_KINDS, default='DYNAMIC')
    shape: EnumProperty(name="Shape", items=BODY_SHAPES, default='AUTO')

    @classmethod
    def poll(cls, context):
        if not any(o.type in GEOMETRY_TYPES or o.type == 'EMPTY'
                   for o in context.selected_objects):
            cls.poll_message_set("Select one or more mesh objects (or empties for the "
                                 "Compound shape)")
            return False
        return True

    def execute(self, context):
        depsgraph = context.evaluated_depsgraph_get()
        added, skipped, failed = [], [], []
        for obj in context.selected_objects:
            # an empty has no geometry of its own, but as a Compound its children's shapes
            if obj.type not in GEOMETRY_TYPES and not (obj.type == 'EMPTY' and
                                                       self.shape == 'COMPOUND'):
                skipped.append(obj.name)
                continue
            scale = obj.matrix_world.to_scale()
            try:
                shape, _ = fit_shape(obj, self.shape, scale, depsgraph, self.kind)
            except (SceneError, ValueError) as exc:
                failed.append(str(exc))
                continue
            s = obj.ligament_body
            s.kind = self.kind
            s.shape = self.shape
            s.enabled = True
            added.append(f"{obj.name} ({type(shape).__name__})")
        cache.invalidate(context.scene)
        for message in failed:
            self.report({'ERROR'}, message)
        if skipped:
            self.report({'WARNING'}, "Skipped objects without geometry: " + ", ".join(skipped))
        if not added:
            return {'CANCELLED'}
        self.report({'INFO'}, "Ligament bodies: " + ", ".join(added))
        return {'FINISHED'}


class LIGAMENT_OT_remove_body(bpy.types.Operator):
    """Stop simulating the selected objects and put them back where the simulation started.
    A baked body keeps its bake as its animation, its action from before the bake kept with a
    fake user (Clear Bake first to go back to that animation)"""
    bl_idname = "ligament.remove_body"
    bl_label = "Remove Body"
    bl_options = {'REGISTER', 'UNDO'}

    poll = classmethod(selected_bodies_poll)

    def execute(self, context):
        objs = [o for o in context.selected_objects if o.ligament_body.enabled]
        # the same rule as Remove Ragdoll (scene/bakes.py): a bake stays
        kept = [(o.name, bakes.keep_bake(o.ligament_body)) for o in objs
                if o.ligament_body.baked]
        cache.restore_rest(context.scene, objs)
        for o in objs:
            o.ligament_body.enabled = False
            o.ligament_body.rest_valid = False
        cache.invalidate(context.scene)
        self.report({'INFO'}, f"Removed {len(objs)} Ligament bodies" + bakes.kept_line(kept))
        return {'FINISHED'}


class LIGAMENT_OT_material_preset(bpy.types.Operator):
    """Give the selected bodies a material preset's friction and bounciness, and dynamic
    bodies the mass of its density times their shape's volume (ragdoll bodies keep their
    share of the character's mass)"""
    bl_idname = "ligament.material_preset"
    bl_label = "Material Preset"
    bl_options = {'REGISTER', 'UNDO'}

    material: EnumProperty(name="Material", items=material_items)

    poll = classmethod(selected_bodies_poll)

    def execute(self, context):
        try:
            m = presets.materials()[self.material]
        except (OSError, ValueError, KeyError) as exc:
            self.report({'ERROR'}, f"Material preset '{self.material}': {exc}")
            return {'CANCELLED'}
        depsgraph = context.evaluated_depsgraph_get()
        done = []
        for obj in (o for o in context.selected_objects if o.ligament_body.enabled):
            s = obj.ligament_body
            s.friction, s.restitution = m["friction"], m["bounciness"]
            if s.kind == 'DYNAMIC' and not is_body(obj):
                try:
                    shape, _ = fit_shape(obj, s.shape, obj.matrix_world.to_scale(),
                                                depsgraph, s.kind)
                except (SceneError, ValueError) as exc:
                    self.report({'WARNING'}, f"{exc}; kept the mass of '{obj.name}'")
                else:
                    s.mass = max(m["density"] * shape.mass_properties()[0], 1e-4)
            done.append(obj.name)
        cache.invalidate(context.scene)
        self.report({'INFO'}, f"{m.get('label', self.material)}: {', '.join(done)}")
        return {'FINISHED'}


class LIGAMENT_OT_split_convex_parts(bpy.types.Operator):
    """Split the active mesh into convex parts (CoACD), made wireframe child objects of it
    with the Convex Hull shape, and give it the Compound shape: it collides as the parts,
    hollows and all. Running it again replaces the parts it made"""
    bl_idname = "ligament.split_convex_parts"
    bl_label = "Split into Convex Parts"
    bl_options = {'REGISTER', 'UNDO'}

    threshold: FloatProperty(name="Concavity", default=convex_parts.DEFAULT_THRESHOLD,
                             min=0.01, max=1.0,
                             description="How far (relative to the mesh's size) a part may "
                                         "stray from convex: lower gives more, closer parts")
    max_parts: IntProperty(name="Max Parts", default=0, min=0, soft_max=64,
                           description="Merge down to at most this many parts; 0: no limit")

    @classmethod
    def poll(cls, context):
        obj = context.active_object
        if obj is None or obj.type != 'MESH':
            cls.poll_message_set("Make a mesh object active")
            return False
        return True

    def execute(self, context):
        """From a script: the split runs here, and the call returns when it is done."""
        obj = context.active_object
        wm = context.window_manager
        wm.progress_begin(0, 100)
        try:
            parts, seconds = convex_parts.split_into_parts(
                obj, context.evaluated_depsgraph_get(), self.threshold, self.max_parts,
                progress=lambda fraction: wm.progress_update(int(100 * fraction)))
        except SceneError as exc:
            self.report({'ERROR'}, str(exc))
            return {'CANCELLED'}
        finally:
            wm.progress_end()
        return self._done(context, obj.name, parts, seconds)

    def invoke(self, context, event):
        """From the UI: the split runs in a process of its own (`convex_parts.SplitJob`); the
        status bar says how far it is and Esc stops it, the scene left as it was."""
        try:
            self._job = convex_parts.SplitJob(context.active_object,
                                              context.evaluated_depsgraph_get(),
                                              self.threshold, self.max_parts).start()
        except SceneError as exc:
            self.report({'ERROR'}, str(exc))
            return {'CANCELLED'}
        wm = context.window_manager
        self._timer = wm.event_timer_add(0.1, window=context.window)
        wm.progress_begin(0, 100)
        wm.modal_handler_add(self)
        return {'RUNNING_MODAL'}

    def modal(self, context, event):
        job = self._job
        if event.type == 'ESC':
            job.cancel()
            self._end(context)
            self.report({'WARNING'}, f"Split of '{job.name}' cancelled; nothing changed")
            return {'CANCELLED'}
        if event.type != 'TIMER':      # (an Event does not say which timer fired)
            return {'PASS_THROUGH'}    # Blender stays usable while CoACD works
        try:
            running = job.poll() == 'RUNNING'
        except SceneError as exc:
            self._end(context)
            self.report({'ERROR'}, str(exc))
            return {'CANCELLED'}
        if running:
            context.window_manager.progress_update(int(100 * job.fraction))
            context.workspace.status_text_set(job.status())
            return {'RUNNING_MODAL'}
        self._end(context)
        try:
            parts, seconds = job.finish()
        except SceneError as exc:
            self.report({'ERROR'}, str(exc))
            return {'CANCELLED'}
        return self._done(context, job.name, parts, seconds)

    def cancel(self, context):
        """Blender ends the operator (the file closed, Blender quit): stop the process."""
        self._job.cancel()
        self._end(context)

    def _end(self, context):
        wm = context.window_manager
        wm.event_timer_remove(self._timer)
        wm.progress_end()
        if context.workspace is not None:
            context.workspace.status_text_set(None)

    def _done(self, context, name, parts, seconds):
        cache.invalidate(context.scene)
        self.report({'INFO'}, f"Split '{name}' into {len(parts)} convex parts in "
                              f"{seconds:.1f} s")
        return {'FINISHED'}


classes = (LIGAMENT_OT_add_body, LIGAMENT_OT_remove_body, LIGAMENT_OT_material_preset,
           LIGAMENT_OT_split_convex_parts)
register, unregister = bpy.utils.register_classes_factory(classes)
