"""What happens to a bake when the body or ragdoll that made it is removed.

One rule for Remove Body, Remove Ragdoll and Remove Bone Chain: the baked keys stay the
object's animation (a bake is the result the user asked for; removing the setup that made it
is the usual clean-up), and the action the object had before the bake, which only the bake's
bookkeeping (`BakeState.pre_bake_action`) kept alive, gets a fake user so that saving the file
does not drop it. Clear Bake before removing gives the old animation back instead."""


def keep_bake(state):
    """Let go of the bake bookkeeping on `state` (an object's `ligament_body` or an
    armature's `ligament_ragdoll`), keeping the action from before the bake with a fake user.
    Returns that action's name, or None when the object had no action before the bake (or
    is not baked)."""
    if not state.baked:
        return None
    old = state.pre_bake_action if state.pre_bake_had_action else None
    if old is not None:
        old.use_fake_user = True
    state.pre_bake_action = None
    state.pre_bake_had_action = False
    state.pre_bake_slot = ""
    state.baked = False
    return None if old is None else old.name


def kept_line(kept):
    """The words an operator's report adds for `kept`: [(object name, action name or None)]
    of the baked objects whose bake stayed."""
    if not kept:
        return ""
    names = ", ".join(f"'{n}'" for n, _ in kept)
    actions = ", ".join(f"'{a}'" for _, a in kept if a)
    line = f"; kept the bake of {names} as its animation (Clear Bake before removing gives " \
           "the animation from before the bake back)"
    if actions:
        line += f"; the actions from before the bake are kept with a fake user: {actions}"
    return line
