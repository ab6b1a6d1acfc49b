"""Checks of the joints' own settings, before anything is built: objects that are missing,
the same or not bodies; limits the wrong way round; Custom expressions that do not parse."""

from ..world import mechanisms
from .findings import ERROR, Finding, Fix, degrees_text, length_text, select_fix
from .joint_list import joint_pairs


def joint_objects(scene, joints, built=()):
    """Joints with a missing, identical or non-body object: the scene does not build.
    `built`: names of joints a fresh build of the scene made (their objects passed the same
    tests there), not looked at again."""
    out = []
    rows = [row for row in joint_pairs(joints) if row[0].name not in built and
            row[2] not in mechanisms.COUPLINGS]   # a gear or rack: the build names the problem
    if not rows:
        return out
    in_scene = set(scene.objects.keys())
    for e, js, jtype, a, b in rows:
        objs = {}
        sides = (("a", a), ("b", b))
        if jtype in {'PATH', 'PIN'} or (jtype == 'CUSTOM' and a is None):
            sides = (("b", b),)      # a path's curve is no body; a pin and a custom's unset
                                     # A: the world
        for which, obj in sides:
            label = which.upper()
            if obj is None:
                out.append(Finding(ERROR, 'joint-object', (e.name,),
                    f"Joint '{e.name}': object {label} is not set (or was deleted), so the "
                    "joint holds nothing; pick it in Properties > Physics > Ligament Joint or "
                    "disable the joint", select_fix([e])))
            elif obj.name not in in_scene:
                out.append(Finding(ERROR, 'joint-object', (e.name, obj.name),
                    f"Joint '{e.name}': object {label} '{obj.name}' is not in this scene "
                    "(deleted or in another scene); pick an object of this scene",
                    select_fix([e])))
            elif not obj.ligament_body.enabled:
                out.append(Finding(ERROR, 'joint-object', (e.name, obj.name),
                    f"Joint '{e.name}': object {label} '{obj.name}' is not a Ligament body, "
                    "so the joint has nothing to hold; make it a body (Ligament > Add Body)",
                    select_fix([obj], "Select Object")))
            else:
                objs[which] = obj
        if len(objs) == 2 and objs["a"] == objs["b"]:
            out.append(Finding(ERROR, 'joint-object', (e.name, objs["a"].name),
                f"Joint '{e.name}': objects A and B are both '{objs['a'].name}'; a joint "
                "holds two different bodies together: pick another B", select_fix([e])))
    return out


def limit_order(joints):
    """Limits whose lower end is above the upper end: the joint cannot be built."""
    out = []
    for e, js, jtype, _, _ in joint_pairs(joints):
        checks = []
        if jtype in {'HINGE', 'RAGDOLL'} and js.use_limit_ang:
            checks.append(('ANGULAR', js.limit_ang_lower, js.limit_ang_upper, degrees_text))
        if jtype in {'PRISMATIC', 'DISTANCE'} and js.use_limit_lin:
            checks.append(('LINEAR', js.limit_lin_lower, js.limit_lin_upper, length_text))
        for which, lower, upper, fmt in checks:
            if lower > upper:
                kind = "angle" if which == 'ANGULAR' else "distance"
                out.append(Finding(ERROR, 'limit-order', (e.name,),
                    f"Joint '{e.name}': the lower {kind} limit {fmt(lower)} is above the upper "
                    f"{fmt(upper)}, so no position satisfies it and the joint cannot be built; "
                    "swap them", Fix("ligament.swap_limits", {"joint": e.name, "which": which},
                                     "Swap Limits"),
                    {"lower": lower, "upper": upper}))
    return out


def custom_expressions(joints):
    """Custom joints whose expression does not parse or does not fit its letters: the joint
    is skipped. The solver's message names the symbol or the mismatch and its column."""
    out = []
    for e in joints:
        js = e.ligament_joint
        if js.type != 'CUSTOM':
            continue
        problem = mechanisms.expression_problem(js)
        if problem:
            out.append(Finding(ERROR, 'custom-expression', (e.name,),
                f"Joint '{e.name}': {problem}; the joint is skipped until the Expression is "
                "fixed (Properties > Physics > Ligament Joint)", select_fix([e]),
                {"expression": js.expression}))
    return out
