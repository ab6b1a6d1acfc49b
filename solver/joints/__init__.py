"""Joints: each composes row primitives over its own fixed block of MAX_ROWS row slots.

A joint's description (what the user asked for) is plain data in the joint tables of
`layout`; `prepare_joint` turns it into rows every substep. Rows keep their accumulated
impulses in the joint's block between steps, so warm starting needs no matching.
"""

from .prepare import prepare_joint  # noqa: F401
