"""What the viewport draws of a physics check (numpy only, like check.py): the centre of mass
path, each flight's best parabola, and at one frame the contact points, the support polygon
and the centre of mass projected onto it; red where a figure is beyond its tolerance. The
draw handler (ui/motion_overlay.py) only hands these lines and points to the GPU."""

import numpy as np

from . import check

OK_COLOR = (0.25, 0.9, 0.35, 0.9)
FAIL_COLOR = (1.0, 0.15, 0.15, 0.95)
PATH_COLOR = (0.9, 0.9, 0.9, 0.8)
CONTACT_COLOR = (1.0, 0.75, 0.1, 1.0)
ARC_STEPS = 8            # points per frame along a flight's parabola


def phase_failing(phase, tolerance, momentum_tolerance):
    return bool(check.failures(phase, tolerance, momentum_tolerance))


def drawing(report, frames, settings, index, tolerance, momentum_tolerance):
    """{"lines": [(colour, (n, 2, 3) segments)], "points": [(colour, (n, 3))]} of `report`
    (the check of `frames`) with `index` the frame shown (None: no frame's contacts):

    * the centre of mass path, a segment per frame step, red in a failing phase;
    * each flight's best parabola under gravity over its frames, red when the flight fails;
    * at `index`, in stance: the contact points, the support polygon's edges at the contacts'
      mean height, and the centre of mass projected onto that height joined to its nearest
      point of the polygon, the polygon red when the centre of mass is beyond `tolerance`
      outside it."""
    lines, points = [], []
    com = np.asarray(report.com, dtype=np.float64)
    failing = np.zeros(len(com), dtype=bool)
    for ph in report.phases:
        if phase_failing(ph, tolerance, momentum_tolerance):
            failing[ph.first:ph.last + 1] = True
    if len(com) > 1:
        seg = np.stack((com[:-1], com[1:]), axis=1)
        red = failing[:-1] | failing[1:]
        lines.append((PATH_COLOR, seg[~red]))
        lines.append((FAIL_COLOR, seg[red]))
    times = np.asarray(frames, dtype=np.float64) * settings.dt
    for ph in report.phases:
        if ph.kind != 'FLIGHT' or ph.last == ph.first:
            continue
        span = slice(ph.first, ph.last + 1)
        (a, b), _, _ = check.fit_parabola(times[span], com[span], settings.gravity)
        t = np.linspace(times[ph.first], times[ph.last], ARC_STEPS * (ph.last - ph.first) + 1)
        arc = a + np.outer(t, b) + 0.5 * np.outer(t * t, settings.gravity)
        colour = FAIL_COLOR if phase_failing(ph, tolerance, momentum_tolerance) else OK_COLOR
        lines.append((colour, np.stack((arc[:-1], arc[1:]), axis=1)))
    if index is not None and 0 <= index < len(com) and not report.flight[index]:
        up, u, w = check.ground_axes(settings.gravity)
        touching = report.sample_world[index][report.contact[index]]
        points.append((CONTACT_COLOR, touching))
        height = float((touching @ up).mean())
        hull, c2 = check.support_polygon(report, index, settings.gravity)
        corners = hull[:, :1] * u + hull[:, 1:2] * w + height * up
        projected = c2[0] * u + c2[1] * w + height * up
        dist, nearest = check.nearest_in_polygon(c2, hull)
        colour = FAIL_COLOR if dist > tolerance else OK_COLOR
        if len(corners) >= 2:
            ring = np.stack((corners, np.roll(corners, -1, axis=0)), axis=1)
            lines.append((colour, ring if len(corners) > 2 else ring[:1]))
        points.append((colour, projected[None]))
        if dist > 0.0:
            near3 = nearest[0] * u + nearest[1] * w + height * up
            lines.append((colour, np.array([[projected, near3]])))
        lines.append((colour, np.array([[com[index], projected]])))
    return {"lines": [(c, s) for c, s in lines if len(s)],
            "points": [(c, p) for c, p in points if len(p)]}
