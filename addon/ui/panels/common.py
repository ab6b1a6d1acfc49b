"""What the panels share: the space, region and context each area's panels sit in (Blender's
own `PhysicsButtonsPanel` pattern), and text wrapped to a panel's width."""


# Characters per label line when a message is wrapped: a panel at its default width holds
# about 44; the sidebar's error and not-acting lists keep a margin for their icons.
LINE_CHARS = 44
SHORT_LINE_CHARS = 40


class PhysicsButtonsPanel:
    bl_space_type = 'PROPERTIES'
    bl_region_type = 'WINDOW'
    bl_context = "physics"


class View3DLigamentPanel:
    bl_space_type = 'VIEW_3D'
    bl_region_type = 'UI'
    bl_category = "Ligament"


def wrap(text, width):
    """`text` in lines of at most `width` characters, broken between words (a label does not
    wrap by itself)."""
    words, lines, line = text.split(), [], ""
    for w in words:
        if line and len(line) + 1 + len(w) > width:
            lines.append(line)
            line = w
        else:
            line = f"{line} {w}".strip()
    if line:
        lines.append(line)
    return lines
