"""What the scene check reports: a `Finding` (severity, objects, message, figures) and the
`Fix` that resolves it, with the figures written the way the messages show them."""

import math
from dataclasses import dataclass, field


ERROR, WARNING, INFO = 'ERROR', 'WARNING', 'INFO'
SEVERITIES = (ERROR, WARNING, INFO)


@dataclass
class Fix:
    """An operator that fixes a finding: `bpy.ops.<operator>(**args)`, shown as `label`."""
    operator: str
    args: dict
    label: str


@dataclass
class Finding:
    severity: str                 # ERROR | WARNING | INFO
    code: str                     # what kind of problem: 'overlap', 'joint-object', ...
    objects: tuple                # names of the objects involved, most relevant first
    message: str                  # what is wrong, why it matters, what to do
    fix: Fix = None
    data: dict = field(default_factory=dict)   # figures behind the message (depth, frame)

    def line(self):
        return f"{self.severity}: {self.message}"

    def as_dict(self):
        return {"severity": self.severity, "code": self.code, "objects": list(self.objects),
                "message": self.message, "data": self.data,
                "fix": None if self.fix is None else {"operator": self.fix.operator,
                                                      "args": self.fix.args,
                                                      "label": self.fix.label}}


def _object_names(objs):
    return "\n".join(o if isinstance(o, str) else o.name for o in objs)


def select_fix(objs, label="Select"):
    return Fix("ligament.select_objects", {"objects": _object_names(objs)}, label)


def length_text(x):
    return f"{x * 100:.1f} cm" if abs(x) < 1.0 else f"{x:.2f} m"


def degrees_text(x):
    return f"{math.degrees(x):.0f}\u00b0"
