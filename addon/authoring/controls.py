"""Which bones of a control rig a ragdoll bakes onto: the (source bone, target bone) pairs on
`ligament_ragdoll.controls`, and the default pairs for a rig Rigify generated from the ragdoll's
metarig.

Rigify copies each metarig bone X to ORG-X, which follows X's FK control (X_fk, spine_fk.N,
or the control ORG-X copies its transforms from, as `head`), and the deform bone DEF-X follows
X's tweak control (X_tweak, tweak_spine.N). The first tweak of a limb does not turn with the
limb about its length (Rigify spreads that twist along the B-bone), so the default keys both:
the FK control for the chain, the tweak for the twist; a tweak keyed at rest relative to its
control changes nothing.
"""

from ..scene import ragdolls


def _split(name):
    """('upper_arm', '.L') for 'upper_arm.L'; ('spine', '.001') for 'spine.001'."""
    stem, dot, tail = name.rpartition(".")
    if dot and tail:
        return stem, "." + tail
    return name, ""


def rigify_controls(bone, rig):
    """The generated `rig`'s controls for metarig bone `bone`: its FK control, then its tweak
    (those the rig has)."""
    names = rig.pose.bones
    stem, suffix = _split(bone)
    out = []
    fk = next((n for n in (f"{stem}_fk{suffix}", f"{bone}_fk") if n in names), None)
    if fk is None:
        org = names.get("ORG-" + bone)
        for con in (org.constraints if org is not None else ()):
            sub = getattr(con, "subtarget", "")
            if con.type == 'COPY_TRANSFORMS' and sub in names and not sub.startswith(
                    ("ORG-", "DEF-", "MCH-")):
                fk = sub
                break
    if fk is not None:
        out.append(fk)
    for tweak in (f"{stem}_tweak{suffix}", f"tweak_{bone}"):
        if tweak in names and tweak not in out:
            out.append(tweak)
            break
    return out


def generated_rig(arm):
    """The rig Rigify generated from metarig `arm`, or None."""
    rig = getattr(arm.data, "rigify_target_rig", None)
    return rig if rig is not None and rig.type == 'ARMATURE' and rig != arm else None


def ragdoll_bones(arm):
    """The bones the ragdoll of `arm` moves, parents first."""
    out = []
    for body in ragdolls.bodies(arm):
        for t in body.children:
            p = t.ligament_ragdoll_part
            if p.role == 'TARGET' and p.bone in arm.data.bones and p.bone not in out:
                out.append(p.bone)
    depth = {b.name: len(b.parent_recursive) for b in arm.data.bones if b.name in out}
    return sorted(out, key=lambda n: (depth[n], n))


def default_pairs(arm, rig):
    """[(source, target)]: each bone the ragdoll moves onto the Rigify controls of `rig` that
    drive it (empty when `rig` is not a Rigify rig)."""
    if not any(b.name.startswith("ORG-") for b in rig.data.bones):
        return []
    return [(b, c) for b in ragdoll_bones(arm) for c in rigify_controls(b, rig)]


def set_pairs(arm, pairs):
    controls = arm.ligament_ragdoll.controls
    controls.clear()
    for source, target in pairs:
        item = controls.add()
        item.source, item.target = source, target


def pairs(arm):
    return [(c.source, c.target) for c in arm.ligament_ragdoll.controls]


def fill_defaults(arm, force=False):
    """Point the ragdoll of `arm` at the rig generated from it and fill the default pairs,
    unless it has pairs already (or `force`). Returns the number of pairs filled."""
    rd = arm.ligament_ragdoll
    rig = rd.control_rig or generated_rig(arm)
    if rig is None or (len(rd.controls) and not force):
        return 0
    found = default_pairs(arm, rig)
    if not found:
        return 0
    if rd.control_rig != rig:
        rd.control_rig = rig
    set_pairs(arm, found)
    return len(found)


def use_fk(rig):
    """Turn the rig's IK/FK switches (Rigify's `IK_FK` property) to FK, so that its
    deform bones follow the FK controls the bake keys."""
    for pb in rig.pose.bones:
        if "IK_FK" in pb.keys():
            pb["IK_FK"] = 1.0
