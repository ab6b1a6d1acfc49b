"""The scene doctor: what in a scene will make its simulation go wrong, found before it runs.

`check(scene)` returns a list of `Finding`s, each naming its objects, saying what is wrong and
why it matters, and offering a `Fix` (an operator and its arguments) where one exists. It runs
on demand (the sidebar's Check Scene, `ligament.check_scene`), in the batch command (`check`,
and before `bake`), and before a bake (`preflight`: the errors and warnings to print first).

Severity: ERROR when the simulation cannot run as set up (a joint without its bodies, limits
the wrong way round, a Mesh shape on a moving body); WARNING when it runs but most likely not
as meant (bodies overlapping at the start, a dynamic body with nothing under it, ...); INFO
for what the doctor could not check.

Overlaps are measured by the solver itself: the doctor builds the world the live run builds
(`Simulation`), finds its contacts where the bodies start (`World.collide`, nothing
moves) and reads the depth of every contact from `World.contacts()`. Nothing here does
physics; nothing changes the scene but the rest pose the live run would store anyway.
"""

from .. import kernels
from ..runtime import cache
from ..runtime.simulation import Simulation
from ..scene.errors import SceneError
from ..scene.objects import SceneScan, scene_bodies, scene_joints
from ..world.build import drain
from .character_checks import character_findings
from .body_checks import anchors, empty_bodies, falling, hit_axis_angle, mass_ratios, \
    mesh_shapes, one_sided_meshes, round_shapes, scales, shared_bodies, sizes, \
    skipped_bodies
from .findings import ERROR, INFO, SEVERITIES, WARNING, Finding
from .joint_checks import custom_expressions, joint_objects, limit_order
from .joint_list import JointList
from .measured import animated_limits, overlaps, start_contacts, touching_mass_ratios
from .start_poses import start_matrices


def check(scene, sim=None):
    """Findings for `scene`, errors first. `sim`: a freshly built `Simulation` of the
    scene to reuse (it is left as it was); by default the doctor builds its own."""
    return drain(check_units(scene, sim))


def check_units(scene, sim):
    """`check` as a generator that yields between groups of checks (what is read off the
    scene, what is measured on the start poses, the overlaps) and returns the findings: a
    build a slice at a time (runtime/building.py) runs it as units of its work."""
    scan = sim.scan if sim is not None and sim.scan is not None else SceneScan(scene)
    bodies = scan.bodies
    characters = character_findings(scene)
    if not bodies:
        return characters + [Finding(
            INFO, 'no-bodies', (), f"Scene '{scene.name}' has no Ligament bodies: nothing to "
            "simulate; add some with Ligament > Add Body")]
    joints = JointList(scan.joints)
    findings = characters
    findings += joint_objects(scene, joints,
                              {n for n, _ in sim.joints} if _fresh(sim) else ())
    findings += limit_order(joints)
    findings += custom_expressions(joints)
    findings += mesh_shapes(bodies)
    findings += empty_bodies(bodies)
    findings += hit_axis_angle(bodies)
    findings += shared_bodies(scene, bodies)
    yield
    sim, built_here, note = _simulation(scene, sim, findings)
    if note is not None:
        findings.append(note)
    findings += skipped_bodies(sim)
    try:
        poses = start_matrices(scene, bodies, sim)
        findings += scales(poses)
        findings += round_shapes(poses)
        findings += sizes(scene, poses)
        findings += anchors(scene, joints, poses, sim)
        findings += mass_ratios(joints, sim)
        findings += falling(scene, joints, poses)
        findings += one_sided_meshes(scene, poses)
        if sim is not None:
            findings += animated_limits(scene, sim, scan.by_name)
            yield
            # the start frame's contacts, measured once (the solver's collide of a big
            # scene is most of the check): both checks read them
            contacts = start_contacts(sim)
            findings += overlaps(sim, poses, contacts)
            findings += touching_mass_ratios(sim, contacts)
    finally:
        if sim is not None and not built_here:
            sim.world.load_state(sim.states[sim.start])
    order = {s: i for i, s in enumerate(SEVERITIES)}
    return sorted(findings, key=lambda f: order[f.severity])


def preflight(scene, sim=None):
    """The findings to print before a simulation or a bake starts: errors and warnings."""
    return [f for f in check(scene, sim) if f.severity != INFO]


def summary(scene, findings):
    """One line: 'no problems' for a clean scene, else the counts by severity."""
    counts = {s: sum(f.severity == s for f in findings) for s in SEVERITIES}
    if not counts[ERROR] and not counts[WARNING]:
        n_b, n_j = len(scene_bodies(scene)), len(scene_joints(scene))
        if n_b == 0:
            return f"Scene '{scene.name}': no Ligament bodies to check"
        return (f"Scene '{scene.name}': no problems found ({n_b} bod{'y' if n_b == 1 else 'ies'}"
                f", {n_j} joint{'' if n_j == 1 else 's'})")
    parts = [f"{counts[s]} {s.lower()}{'s' if counts[s] != 1 else ''}"
             for s in SEVERITIES if counts[s]]
    return f"Scene '{scene.name}': " + ", ".join(parts)


# The last check of each scene, for the sidebar: scene key -> (findings, summary line).
_results = {}


def store(scene, findings):
    _results[scene.session_uid] = (findings, summary(scene, findings))


def results(scene):
    """(findings, summary) of the scene's last Check Scene, or None."""
    return _results.get(scene.session_uid)


def on_build(scene, sim):
    """The check before a new simulation plays (the runtime runs it after each build, a
    group of checks at a time): its errors and warnings, kept for the sidebar's Scene Check
    panel."""
    findings = yield from check_units(scene, sim)
    findings = [f for f in findings if f.severity != INFO]
    if findings:
        store(scene, findings)
    return findings


def register():
    cache.build_checks.append(on_build)


def unregister():
    while on_build in cache.build_checks:
        cache.build_checks.remove(on_build)


def recheck(scene):
    """Check again if the scene was checked before (after a fix, the list shows what is
    left)."""
    if results(scene) is not None:
        store(scene, check(scene))


def _fresh(sim):
    """A Simulation still at its start frame (one that moved on is not measured)."""
    return sim is not None and sim.world_frame == sim.start


def _simulation(scene, sim, findings):
    """(sim, built here, note): the world to measure, or None with an INFO saying why."""
    if _fresh(sim):
        return sim, False, None  # else none, or moved on since it was built: build one
    if not kernels.ready():
        if kernels.blocking():
            kernels.prepare_blocking()
        else:
            kernels.ensure_started()
            return None, True, Finding(
                INFO, 'not-measured', (), "Overlaps and animated poses were not checked: the "
                "solver is being prepared (first run only); check again when it is ready")
    try:
        return Simulation(scene), True, None
    except SceneError as exc:
        if any(f.severity == ERROR for f in findings):
            return None, True, Finding(
                INFO, 'not-measured', (), "Overlaps and animated poses were not checked: "
                "the scene does not build until the errors above are fixed")
        return None, True, Finding(ERROR, 'build', (), f"The scene does not build: {exc}")
