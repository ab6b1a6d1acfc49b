"""What the running Blender's API has, as constants: code that runs on some lines of Blender
only branches on one of these (`if blender_version.SLOTTED_ACTIONS:`), so that the static
check (tools/apicheck.py) reads on each line the branch that runs there and no other. Write
each as `NAME = bpy.app.version >= (major, minor, 0)` (or >, <, <=): the check evaluates
them per line."""

import bpy

# Action.slots, AnimData.action_slot, NlaStrip.action_slot,
# bpy_extras.anim_utils.action_get_channelbag_for_slot
SLOTTED_ACTIONS = bpy.app.version >= (4, 4, 0)
