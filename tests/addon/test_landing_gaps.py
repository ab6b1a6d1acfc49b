"""A ragdoll's joints hold through its landing: the position projection closes them whole
even on a substep where it catches up with a limit bent far past (solver/direct.py,
`_project_positions`). The scenario: tests/addon/scenarios/landing_gaps.py."""


def test_metarig_landing_at_24_fps_keeps_its_joints_closed_every_frame(blender):
    out = blender.call("landing_gaps.joint_gaps", 30)
    assert out["error"] is None
    assert min(out["lowest"]) < 0.3, "the ragdoll landed"
    worst = max(range(30), key=lambda f: out["gaps"][f])
    print("widest joint gap per frame (mm):", [round(g * 1000, 3) for g in out["gaps"]])
    # Cut with the limits' catch-up, the projection left a joint 2.1 mm open on the landing
    # frame (20), and Transfer Pose keyed that pose 0.49 mm off (test_override_tools). The
    # landing frame measures 0.16 mm now (0.08 before round contacts that strike joined the
    # exact solve), the others within DESIGN.md's 0.05 mm
    assert out["gaps"][worst] < 2.5e-4, f"{out['gaps'][worst] * 1000:.3f} mm at frame {worst + 1}"
    assert sorted(out["gaps"])[-2] < 5e-5
