"""Panels cannot be drawn without a window, so each panel's draw() runs against a recording
layout that checks every property and operator it names exists on the real Blender data.
The scenario: tests/addon/scenarios/ui.py."""


def test_every_panel_draws_real_properties_and_operators(blender):
    out = blender.call("ui.every_panel_drawn")
    assert out["problems"] == []
    assert "VIEW3D_PT_ligament" in out["panels"] and "PHYSICS_PT_ligament_joint_motor" in out["panels"]
    for name in ("kind", "shape", "mass", "friction", "restitution", "object_a", "object_b",
                 "limit_ang_lower", "swing_1", "motor_velocity", "spring_frequency", "substeps",
                 "ligament.bake", "ligament.clear_bake", "ligament.add_joint", "ligament.connect",
                 "ligament.quality_preset", "joint_a", "joint_b", "teeth_a", "radius_b",
                 "ligament.measure_radii", "fixed_a", "curve", "path_align", "steering",
                 "expression", "custom_use_lower", "custom_upper", "custom_stiffness",
                 "custom_damping", "point_c", "point_d"):
        assert name in out["drawn"], name
