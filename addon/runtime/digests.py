"""What a simulated frame read, as a digest (the change check, changes.py, compares them when
keys are edited). No bpy: it sees only the values sent to the World (tests/addon_logic)."""

import hashlib

import numpy as np


class FrameReads:
    """Stands in for the World while a frame sends it its inputs: every value sent (kinematic
    targets, drives, path points, steering) and every value `note`d goes into a digest, and
    the call reaches the World only when `forward` (a step; a check only reads). Switching a
    body's kind is not recorded (whether a ragdoll part switches depends on its kind in the
    world's state; the targets it is sent say which parts follow their animation)."""

    RECORDED = frozenset(("set_kinematic_target", "set_drive", "set_path_points",
                          "set_steering", "set_motor", "set_spring", "set_field",
                          "set_pin_target", "set_pin"))

    def __init__(self, world, forward):
        self._world = world
        self._forward = forward
        self._digest = hashlib.blake2b(digest_size=16)

    def __getattr__(self, name):
        attr = getattr(self._world, name)
        if name == "set_kind":
            return attr if self._forward else _ignore
        if name not in self.RECORDED:
            return attr

        def send(*args, **kwargs):
            self.note(name, *args, *sorted(kwargs.items()))
            if self._forward:
                return attr(*args, **kwargs)
        return send

    def note(self, *values):
        for v in values:
            try:
                data = np.asarray(v, dtype=np.float64).tobytes()
            except (TypeError, ValueError):
                data = repr(v).encode()
            self._digest.update(data)

    def digest(self):
        return self._digest.digest()


def _ignore(*_args, **_kwargs):
    return None
