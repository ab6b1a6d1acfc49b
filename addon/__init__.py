"""Everything that imports bpy: properties, operators, panels, handlers, bridge, bake, CLI."""


def register():
    pass


def unregister():
    pass
