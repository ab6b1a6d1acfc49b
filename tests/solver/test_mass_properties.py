"""Mass and inertia of the shapes, against closed forms and slice-by-slice integration."""

import math

import numpy as np
import pytest

import solver as lg
from probes import qaxis_angle, qmat

RHO = 1000.0


def _revolved(profile, z0, z1, pieces=1):
    """(mass, I_xx, I_zz) of a solid of revolution about z with radius^2 = profile(z).

    Slices are discs: dm = rho pi a^2 dz, dI_zz = dm a^2 / 2, dI_xx = dm (a^2 / 4 + z^2).
    a^2 is a polynomial of degree <= 2 in z on each piece, so 8-point Gauss-Legendre per
    piece is exact."""
    x, wts = np.polynomial.legendre.leggauss(8)
    m = ixx = izz = 0.0
    edges = np.linspace(z0, z1, pieces + 1)
    for lo, hi in zip(edges[:-1], edges[1:]):
        z = 0.5 * (hi - lo) * x + 0.5 * (hi + lo)
        dz = 0.5 * (hi - lo) * wts
        a2 = profile(z)
        dm = RHO * math.pi * a2 * dz
        m += dm.sum()
        izz += (dm * a2 / 2).sum()
        ixx += (dm * (a2 / 4 + z * z)).sum()
    return m, ixx, izz


def _body(shape, **kw):
    w = lg.World()
    b = w.add_body(shape, (0.3, -0.2, 1.0), density=RHO, **kw)
    return w, b


def test_box_mass_and_inertia_match_closed_form():
    w, b = _body(lg.Box((0.1, 0.2, 0.3)))
    lx, ly, lz = 0.2, 0.4, 0.6
    m = RHO * lx * ly * lz
    assert w.masses[b] == pytest.approx(m, rel=1e-12)
    expected = np.diag([ly ** 2 + lz ** 2, lx ** 2 + lz ** 2, lx ** 2 + ly ** 2]) * m / 12
    assert np.allclose(w.inertia(b), expected, rtol=1e-12, atol=1e-15)


def test_sphere_mass_and_inertia_match_integration():
    r = 0.25
    m, ixx, izz = _revolved(lambda z: r * r - z * z, -r, r)
    w, b = _body(lg.Sphere(r))
    assert w.masses[b] == pytest.approx(m, rel=1e-12)
    assert np.allclose(w.inertia(b), np.diag([ixx, ixx, izz]), rtol=1e-12)
    assert izz == pytest.approx(0.4 * m * r * r, rel=1e-12)


def test_capsule_mass_and_inertia_match_integration():
    r, hh = 0.1, 0.3

    def profile(z):
        za = np.abs(z)
        return np.where(za <= hh, r * r, r * r - (za - hh) ** 2)

    # Pieces end exactly at the cap seams, so each piece's profile is one polynomial.
    m1, x1, z1 = _revolved(profile, -hh - r, -hh)
    m2, x2, z2 = _revolved(profile, -hh, hh)
    m3, x3, z3 = _revolved(profile, hh, hh + r)
    m, ixx, izz = m1 + m2 + m3, x1 + x2 + x3, z1 + z2 + z3
    w, b = _body(lg.Capsule(r, hh))
    assert w.masses[b] == pytest.approx(m, rel=1e-12)
    assert np.allclose(w.inertia(b), np.diag([ixx, ixx, izz]), rtol=1e-12)


def test_cylinder_mass_and_inertia_match_integration():
    r, hh = 0.2, 0.35
    m, ixx, izz = _revolved(lambda z: np.full_like(z, r * r), -hh, hh)
    w, b = _body(lg.Cylinder(r, hh))
    assert w.masses[b] == pytest.approx(m, rel=1e-12)
    assert np.allclose(w.inertia(b), np.diag([ixx, ixx, izz]), rtol=1e-12)


def test_world_inertia_rotates_with_the_body():
    q = qaxis_angle((1, 2, 3), 0.7)
    w, b = _body(lg.Box((0.1, 0.2, 0.3)), orientation=q)
    local = np.diag([0.4 ** 2 + 0.6 ** 2, 0.2 ** 2 + 0.6 ** 2, 0.2 ** 2 + 0.4 ** 2]) \
        * RHO * 0.048 / 12
    r = qmat(q)
    assert np.allclose(w.inertia(b), r @ local @ r.T, rtol=1e-10, atol=1e-14)


def test_convex_hull_of_box_corners_equals_the_box():
    he = np.array([0.1, 0.2, 0.3])
    corners = np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)]) * he
    rng = np.random.default_rng(3)
    inside = rng.uniform(-1, 1, size=(20, 3)) * he * 0.9         # must not change anything
    wh, bh = _body(lg.ConvexHull(np.vstack([inside, corners])))
    wb, bb = _body(lg.Box(he))
    assert wh.masses[bh] == pytest.approx(wb.masses[bb], rel=1e-12)
    assert np.allclose(wh.inertia(bh), wb.inertia(bb), rtol=1e-10, atol=1e-14)
    assert np.allclose(wh.positions[bh], wb.positions[bb], atol=1e-12)


def test_convex_hull_centre_of_mass_of_an_off_centre_point_set():
    # A tetrahedron's centroid is the mean of its corners; its volume det / 6.
    tet = np.array([[0.0, 0, 0], [1.0, 0, 0], [0, 2.0, 0], [0, 0, 3.0]]) + (0.5, -1.0, 2.0)
    shape = lg.ConvexHull(np.vstack([tet, tet.mean(axis=0)]))
    volume, com, _ = shape.mass_properties()
    assert volume == pytest.approx(1.0, rel=1e-12)           # 1 * 2 * 3 / 6
    assert np.allclose(com, tet.mean(axis=0), atol=1e-12)
    # The body's position is its centre of mass: placed (and turned) at the shape origin.
    q = qaxis_angle((0, 0, 1), math.pi / 2)
    w = lg.World()
    b = w.add_body(shape, (1.0, 2.0, 3.0), orientation=q, mass=2.0)
    assert np.allclose(w.positions[b], np.array([1.0, 2.0, 3.0]) + qmat(q) @ com, atol=1e-12)
    assert np.allclose(w.shape_origin(b), (1.0, 2.0, 3.0), atol=1e-12)


def test_explicit_mass_scales_the_inertia():
    w = lg.World()
    b = w.add_body(lg.Box((0.1, 0.2, 0.3)), (0, 0, 0), mass=3.0)
    assert w.masses[b] == pytest.approx(3.0)
    expected = np.diag([0.4 ** 2 + 0.6 ** 2, 0.2 ** 2 + 0.6 ** 2, 0.2 ** 2 + 0.4 ** 2]) * 3.0 / 12
    assert np.allclose(w.inertia(b), expected, rtol=1e-12)
    s = w.add_body(lg.Sphere(0.5), (0, 0, 0), mass=7.0)
    assert np.allclose(w.inertia(s), np.eye(3) * 0.4 * 7.0 * 0.25, rtol=1e-12)


def test_static_and_kinematic_bodies_have_infinite_mass():
    w = lg.World()
    s = w.add_body(lg.Box((1, 1, 1)), (0, 0, 0), kind="static")
    k = w.add_body(lg.Box((1, 1, 1)), (0, 0, 3), kind="kinematic")
    assert w.masses[s] == np.inf and w.masses[k] == np.inf
