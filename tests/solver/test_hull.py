"""The convex hull kernel (solver/hull.py): every point inside, vertices taken from the
input, convex and closed, volumes of shapes known analytically, the same hull as the
incremental reference, a vertex limit, and degenerate inputs."""

import math

import numpy as np
import pytest

import solver as lg
from solver.hull import convex_hull, polyhedron_mass_properties
from solver.reference import convex_hull_incremental


def sphere_points(n, seed=0):
    p = np.random.default_rng(seed).normal(size=(n, 3))
    return p / np.linalg.norm(p, axis=1)[:, None]


def planes(vertices, triangles):
    a, b, c = (vertices[triangles[:, k]] for k in range(3))
    n = np.cross(b - a, c - a)
    n /= np.linalg.norm(n, axis=1)[:, None]
    return n, np.einsum("ij,ij->i", n, a)


def farthest_outside(points, vertices, triangles):
    """How far the points lie in front of the hull's face planes at most."""
    n, d = planes(vertices, triangles)
    worst = -np.inf
    # a few hundred points against every plane at a time: the table stays in the cache
    # (all the points against 4096 planes at a time was 300 MB a block, 3 s for 10 000)
    for s in range(0, len(points), 256):
        worst = max(worst, float((points[s:s + 256] @ n.T - d).max()))
    return worst


def assert_valid_hull(points, vertices, triangles, tol):
    # every hull vertex is an input point (exactly: equal in every coordinate)
    inputs = set(map(tuple, np.asarray(points, dtype=float).tolist()))
    for v in np.asarray(vertices, dtype=float).tolist():
        assert tuple(v) in inputs, f"hull vertex {v} is not an input point"
    # closed and consistently oriented: each directed edge once, its reverse once
    e = np.concatenate([triangles[:, [0, 1]], triangles[:, [1, 2]], triangles[:, [2, 0]]])
    edges = set(map(tuple, e.tolist()))
    assert len(edges) == len(e) and all((b, a) in edges for a, b in edges)
    assert len(vertices) - len(e) // 2 + len(triangles) == 2          # Euler: a sphere
    # convex: every vertex on or behind every face's plane, and every input point too
    assert farthest_outside(vertices, vertices, triangles) <= tol
    assert farthest_outside(points, vertices, triangles) <= tol


@pytest.mark.parametrize("n", [642, 2562, 10000])
def test_hull_of_points_on_a_sphere_holds_them_all_and_has_them_all_as_vertices(n):
    p = sphere_points(n)
    v, t = convex_hull(p)
    assert_valid_hull(p, v, t, 1e-9)
    assert len(v) == n                       # every point of a sphere is a corner
    volume = polyhedron_mass_properties(v, t)[0]
    # inscribed in the ball; the deficit of n random points on the sphere falls as 1/n
    # (about 12/n here: 1.9 % at 642, 0.12 % at 10 000)
    assert volume < 4 / 3 * math.pi
    assert volume > 4 / 3 * math.pi * (1 - 16.0 / n)


def test_hull_matches_the_incremental_reference():
    p = sphere_points(642, seed=4) * (1.0, 2.0, 0.5) + np.random.default_rng(5).normal(
        size=(642, 3)) * 0.05
    v, t = convex_hull(p)
    rv, rt = convex_hull_incremental(p)
    # the same corners; the reference may keep a point in a face or on an edge (found
    # before that face's corners), or on an edge whose faces are within the collider's
    # coplanar tolerance (normals 1e-6 apart, 0.08 deg: one polygon to it), which the kernel
    # drops: such a point is on the hull's surface within that angle times the edge length
    mine = set(map(tuple, v.tolist()))
    theirs = set(map(tuple, rv.tolist()))
    assert mine <= theirs
    extra = np.array(sorted(theirs - mine)).reshape(-1, 3)
    assert len(extra) <= 2
    n, d = planes(v, t)
    for x in extra:
        assert np.min(np.abs(n @ x - d)) < 1e-4
    assert polyhedron_mass_properties(v, t)[0] == pytest.approx(
        polyhedron_mass_properties(rv, rt)[0], rel=1e-6)


def test_cube_with_points_inside_on_its_faces_and_edges_and_duplicates_is_the_cube():
    corners = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)], float)
    g = np.linspace(-1.0, 1.0, 7)
    grid = np.array(np.meshgrid(g, g, g)).reshape(3, -1).T          # faces, edges, inside
    inside = np.random.default_rng(1).uniform(-1, 1, (500, 3))
    p = np.concatenate([grid, inside, corners, corners])[::-1]
    v, t = convex_hull(p)
    assert_valid_hull(p, v, t, 1e-9)
    assert sorted(map(tuple, v.tolist())) == sorted(map(tuple, corners.tolist()))
    volume, com, inertia = polyhedron_mass_properties(v, t)
    assert volume == pytest.approx(8.0, rel=1e-12)
    assert np.allclose(com, 0.0, atol=1e-12)
    assert np.allclose(inertia, np.eye(3) * 8.0 * (1 + 1) / 3.0, rtol=1e-12)   # m(a²+b²)/3


def test_ten_thousand_points_in_a_ball_give_a_hull_within_the_ball():
    rng = np.random.default_rng(2)
    p = sphere_points(10000, seed=3) * rng.uniform(0.0, 1.0, (10000, 1)) ** (1 / 3)
    v, t = convex_hull(p)
    assert_valid_hull(p, v, t, 1e-9)
    assert np.all(np.linalg.norm(v, axis=1) <= 1.0)


def test_a_vertex_limit_keeps_the_farthest_points_and_stays_inside():
    p = sphere_points(10000)
    full_volume = polyhedron_mass_properties(*convex_hull(p))[0]
    volumes = []
    for limit in (16, 64, 256):
        v, t = convex_hull(p, max_vertices=limit)
        assert 4 <= len(v) <= limit
        n, d = planes(v, t)
        assert farthest_outside(v, v, t) <= 1e-9                      # still convex
        # inside the full hull: its vertices are input points, all within the ball
        assert np.all(np.abs(np.linalg.norm(v, axis=1) - 1.0) < 1e-12)
        volumes.append(polyhedron_mass_properties(v, t)[0])
    assert volumes[0] < volumes[1] < volumes[2] < full_volume
    assert volumes[1] > 0.88 * full_volume
    shape = lg.ConvexHull(p, max_vertices=64)
    assert len(shape.vertices) <= 64


def test_a_vertex_limit_below_four_is_refused():
    with pytest.raises(ValueError, match="max_vertices"):
        convex_hull(sphere_points(20), max_vertices=3)


@pytest.mark.parametrize("points, says", [
    (np.zeros((6, 3)), "not all the same"),
    (np.tile([[1.0, 2.0, 3.0]], (5, 1)), "not all the same"),
    (np.outer(np.linspace(0, 1, 9), [1.0, 2.0, 3.0]), "one line"),
    (np.c_[np.random.default_rng(0).normal(size=(50, 2)), np.full(50, 0.25)], "one plane"),
    (np.eye(3), "at least 4 points"),
])
def test_points_that_span_no_volume_are_a_clear_error(points, says):
    with pytest.raises(ValueError, match=says):
        convex_hull(points)
    with pytest.raises(ValueError, match="ConvexHull"):
        lg.ConvexHull(points)


def test_a_flat_box_slightly_thick_is_still_a_box():
    corners = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1e-3, 1e-3)])
    rng = np.random.default_rng(6)
    face = np.c_[rng.uniform(-1, 1, (300, 2)), rng.choice([-1e-3, 1e-3], 300)]
    v, t = convex_hull(np.concatenate([face, corners]))
    assert len(v) == 8
    assert polyhedron_mass_properties(v, t)[0] == pytest.approx(4 * 2e-3, rel=1e-9)
