"""Real meshes of many vertices: the Convex Hull shape of a dense mesh, the scene check over
a Compound of hundreds of convex parts, and Split into Convex Parts run again on a renamed
mesh. Times are CPU seconds of the Blender process (time.process_time): the machine may be
shared, and the bounds are the targets the add-on must keep, not measurements to match.
The scenarios: tests/addon/scenarios/big_meshes.py."""

import math


def test_convex_hull_of_a_10000_vertex_mesh_takes_under_a_second(blender):
    out = blender.call("big_meshes.hull_of_a_dense_sphere")
    print(f"hull of {out['vertices']} vertices: {out['hull_s']:.3f} s CPU, the whole build "
          f"{out['build_s']:.3f} s, the first collide {out['collide_s']:.3f} s CPU")
    assert out["vertices"] >= 10000
    assert out["hull_s"] < 1.0 and out["build_s"] < 1.0 and out["collide_s"] < 1.0
    assert out["bodies"] == 2
    assert 4 <= out["hull_vertices"] <= 64 and out["gap"] < 1e-6
    # a 64-vertex hull of a sphere of radius 0.5: inside it, and within 12 % of its volume;
    # no vertex of the mesh farther out than 8 % of the radius (124 faces of about 0.1 sr,
    # 0.3 rad across, sag by 1 - cos 0.3 = 4.5 %; farthest-first is not an even spread)
    sphere = 4.0 / 3.0 * math.pi * 0.5 ** 3
    assert 0.88 * sphere < out["volume"] < sphere
    assert out["outside"] < 0.04


def test_scene_check_of_500_convex_parts_measures_overlaps_in_a_second(blender):
    out = blender.call("big_meshes.check_of_500_convex_parts")
    print(f"500 parts: build {out['build_s']:.2f} s, overlap test {out['overlap_s']:.3f} s, "
          f"whole check {out['check_s']:.2f} s CPU")
    # the parts reach 0.25 - 0.3 m: the ring starts in the ground, and the check says so
    assert out["lowest"] < -0.003
    assert ["Ground", "Ring"] in out["overlaps"] or ["Ring", "Ground"] in out["overlaps"]
    assert out["contacts"] > 0
    assert out["overlap_s"] < 1.0
    assert out["build_s"] < 3.0 and out["check_s"] < 3.0


def test_split_into_convex_parts_again_after_a_rename_replaces_its_parts(blender):
    out = blender.call("big_meshes.split_again_after_a_rename")
    assert len(out["first"]) >= 2
    # the parts made before the rename are replaced, not kept beside the new ones
    assert len(out["second"]) == len(out["first"])
    assert all(n.startswith("Ring.part.") for n in out["second"])
    assert out["objects"] == len(out["second"]) and out["meshes"] == len(out["second"])
