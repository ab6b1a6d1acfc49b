"""test_physics_rigify_physical.py's scenario: a motion that is already physical, on a rig
Rigify generated. The ragdoll is simulated falling and baked onto the generated rig's
controls as the guide's "Bake onto the controls" says a user does it (the ragdoll made on the
metarig, the rig generated first: the bake keys the rig's FK and tweak controls), then the
rig's own ragdoll (on its DEF bones, `Generated`) is checked and fixed from those keys."""

import bpy

from .helpers import lig
from .physics_check import FRAMES
from .physics_rigify import Generated, generate_without_face

DROP = 0.6      # metres, as the metarig's physics_check.simulated_fall_baked


class DroppedAndBaked(Generated):
    """`Generated`, its controls keyed first by a bake: the metarig made a 70 kg ragdoll,
    metarig and generated rig lifted `DROP`, frames 1-40 simulated and baked (onto the
    metarig's bones and, through the default Rigify control pairs, the rig's controls); the
    metarig's ragdoll then turned off and hidden with the metarig."""

    def armature(self):
        meta, rig = generate_without_face()
        for o in bpy.context.view_layer.objects:
            o.select_set(False)
        bpy.context.view_layer.objects.active = meta
        meta.select_set(True)
        assert bpy.ops.ligament.ragdoll_from_armature(total_mass=70.0) == {'FINISHED'}
        meta.location = rig.location = (0, 0, DROP)
        bpy.context.view_layer.update()
        ws = self.scene.ligament_world
        ws.frame_start, ws.frame_end = 1, 40
        assert bpy.ops.ligament.bake() == {'FINISHED'}
        rd = meta.ligament_ragdoll
        self.baked_onto = {"control_rig": rd.control_rig.name if rd.control_rig else None,
                           "pairs": len(rd.controls)}
        rd.enabled = False
        meta.hide_set(True)
        self.scene.frame_set(1)
        for o in bpy.context.view_layer.objects:
            o.select_set(False)
        bpy.context.view_layer.objects.active = rig
        rig.select_set(True)
        return rig


def simulated_fall_baked():
    """The generated rig's simulated fall, baked onto its controls, checked and fixed
    (balance off, as on the metarig): the phases, the rig's ragdoll bodies as Blender shows
    them before and after the fix, what the bake keyed."""
    rig = DroppedAndBaked()
    rig.activate()
    assert bpy.ops.ligament.physics_check() == {'FINISHED'}
    phases = rig.report()
    _, report = rig.rig_mod.MotionRig(rig.scene, rig.arm).check()
    keyed = rig.bodies_at(FRAMES)
    rig.scene.ligament_world.enabled = True
    # balance is static: it would hold up a ragdoll falling over on its feet
    assert bpy.ops.ligament.physics_fix(balance=False) == {'FINISHED'}
    fixed = rig.bodies_at(FRAMES)
    return {"phases": phases, "keyed": keyed.tolist(), "fixed": fixed.tolist(),
            "names": rig.names(), "baked_onto": rig.baked_onto, "rig": rig.arm.name,
            "fixed_bones": rig.fixed_paths(), "fps": rig.scene.render.fps,
            # the substeps a frame the falling ragdoll stepped at (a jointed island)
            "substeps": lig().addon.scene.objects.world_settings(rig.scene)["jointed_substeps"],
            "masses": rig.masses(), "L": report.angular_momentum.tolist()}
