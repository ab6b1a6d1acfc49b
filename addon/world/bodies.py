"""Bodies: one simulated object's solver id and how to turn its pose into a transform, and the
bodies' rows added to the World in one batch."""


from ..scene.errors import SceneError


KIND = {'DYNAMIC': "dynamic", 'STATIC': "static", 'ANIMATED': "kinematic"}


class Body:
    """One simulated object: its solver id and how to turn a solver pose into its transform."""
    __slots__ = ("name", "id", "kind", "offset", "scale", "animated", "rotation_mode",
                 "has_children")

    def __init__(self, name, body_id, kind, offset, scale, animated, rotation_mode):
        self.name = name
        self.id = body_id
        self.kind = kind            # 'DYNAMIC' | 'STATIC' | 'ANIMATED'
        self.offset = offset        # Vector: centre of mass from the object origin, in
                                    # world-scaled object axes
        self.scale = scale          # Vector: world scale of the object (kept while simulating)
        self.animated = animated    # follows F-curves (animated kind or baked)
        self.rotation_mode = rotation_mode
        self.has_children = False



def add_bodies(world, objs, rows):
    """The bodies' rows added to the (empty) world in one batch: body i is objs[i]. A row
    the world refuses is added again on its own, which names it, with its object."""
    placed = ("shapes", "positions", "orientations")
    settings = {key: values for key, values in rows.items() if key not in placed}
    try:
        world.add_bodies(*(rows[key] for key in placed), **settings)
        return
    except ValueError:
        pass
    for i, o in enumerate(objs):
        try:
            world.add_body(*(rows[key][i] for key in placed),
                           **{key: values[i] for key, values in settings.items()})
        except ValueError as exc:
            raise SceneError(f"Object '{o.name}': {exc}") from None
    raise AssertionError("add_bodies refused rows that add_body takes")


# A bone chain's bodies: bit 31 alone, a mask without it: they touch group-0 bodies (the
# scene, ragdolls) but no other chain's (a hundred strands from one scalp would push each
# other apart)
CHAIN_FILTER = {"collision_group": 1 << 31, "collision_mask": 0x7FFFFFFF}


def collision_filter(group, chain=False):
    """Solver group/mask bits for the UI's collision group: group 0 collides with every body,
    group g (1..31) only with group g and group 0; a bone chain's bodies (`chain`) with group
    0 only and not with each other. Two bodies touch when each one's group bits meet the
    other's mask."""
    if chain:
        return dict(CHAIN_FILTER)
    if group == 0:
        return {"collision_group": 0xFFFFFFFF, "collision_mask": 0xFFFFFFFF}
    return {"collision_group": 1 << group, "collision_mask": 1 << group}
