"""What a file's Ligament World settings meant when it was saved (Blender's do_versions for
this add-on's own properties).

Scene > Ligament World's `settings_version` says which meaning a scene's values were saved
with; scenes saved before it existed read 0. Version 1 (2026-11-30): Jointed Substeps 0 is
Auto (half of Substeps, at least 4: the solver's default, so that raising Substeps raises a
ragdoll's count too); before, 0 stepped ragdolls at every substep, and 0 was the default
until the morning of 2026-11-30. A scene of an older file whose Jointed Substeps is 0 or
was never set gets 64 (at most Substeps: every substep at any Substeps, what 0 did), so
that it simulates as it did when it was saved. Files saved the same day with the
setting's default of 4 then step at every substep too: they cannot be told apart from the
older ones, and every substep is the more accurate of the two.

`stamp` marks the scenes a save writes (`on_save_pre`), a new file's (File > New, the
startup file: `on_load_post` with no file path) and a scene whose simulation is built (an
autosave skips save_pre: a scene added in the session and played is stamped before it),
`upgrade` brings an opened file's scenes up to date (`on_load_post`). Not upgraded: a scene
appended from an older file, and the scenes of a file opened while the add-on was off
(stamped as they are when played or saved).
"""

SETTINGS_VERSION = 1
EVERY_SUBSTEP = 64      # Jointed Substeps' maximum: at most Substeps, so every substep


def upgrade(scene):
    """Bring `scene`'s Ligament World settings to SETTINGS_VERSION from the version they were
    saved with; a linked or overridden scene is left as it is."""
    ws = scene.ligament_world
    if not _own(scene) or ws.settings_version >= SETTINGS_VERSION:
        return
    if ws.jointed_substeps == 0:        # saved as 0 or never set: every substep
        ws.jointed_substeps = EVERY_SUBSTEP
    ws.settings_version = SETTINGS_VERSION


def stamp(scene):
    """Mark `scene`'s settings as meaning what this version of the add-on reads them as."""
    ws = scene.ligament_world
    if _own(scene) and ws.settings_version != SETTINGS_VERSION:
        ws.settings_version = SETTINGS_VERSION


def _own(scene):
    """Whether `scene` is the file's own (neither linked nor a library override of a linked
    one: its settings are the library's to say)."""
    return scene.library is None and scene.override_library is None
