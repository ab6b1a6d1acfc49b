"""Blender's force fields push Ligament bodies as they push Blender's own rigid bodies: the same
body dropped through the same field in Blender's Bullet world and in Ligament, in the same
Blender process, takes the same path; a keyed field is read every frame; and a scene in
centimetres (Unit Scale 0.01) moves as the same scene in metres. The
scenarios: tests/addon/scenarios/fields.py."""

import pytest


@pytest.mark.parametrize("field_type, strength, keyed", [
    ("FORCE", 480.0, False), ("WIND", 240.0, False), ("WIND", 240.0, True),
    ("VORTEX", 100.0, False), ("DRAG", 1.0, False), ("HARMONIC", 30.0, False)])
def test_field_pushes_as_blenders_rigid_bodies(blender, field_type, strength, keyed):
    out = blender.call("fields.side_by_side", field_type, strength, keyed)
    assert not out["error"]
    rb, lg = out["rb"], out["lg"]
    start = rb[0]
    moved = [abs(a - b) for a, b in zip(rb[-1], start)]
    # the field moved the body off a free fall (which keeps x and y)
    assert max(moved[0], moved[1]) > 0.5 or abs(moved[2] - 4.905) > 0.2
    travel = sum((a - b) ** 2 for a, b in zip(rb[-1], start)) ** 0.5
    gap = sum((a - b) ** 2 for a, b in zip(rb[-1], lg[-1])) ** 0.5
    print(f"{field_type} keyed={keyed}: travel {travel:.3f} m, Ligament {gap * 1000:.1f} mm "
          f"from Bullet ({gap / travel:.2%})")          # pytest -rP shows it
    assert gap <= 0.05 * travel, (rb[-1], lg[-1])


def test_a_keyed_field_edited_at_frame_30_re_simulates_from_there_exactly(blender):
    out = blender.call("fields.keyed_wind_edited_at_frame_30")
    # the wind pushed the crate along X at frame 20 on
    assert out["first"][0][0][3] > 0.05
    assert out["cached"] == [1, 29]
    assert out["rebuilt"] == 0 and out["resimulated"] == 31
    assert out["replay"] != out["first"]
    assert out["replay"] == out["scratch"]        # bit for bit


def test_field_settings_and_weights_decide_what_pushes(blender):
    out = blender.call("fields.field_settings_and_weights")
    assert out["pushed"] > 0.05
    assert out["rebuilt"] == 1 and out["flowed"] != out["pushed"]
    assert abs(out["unweighted"]) < 1e-6 and abs(out["outside"]) < 1e-6
