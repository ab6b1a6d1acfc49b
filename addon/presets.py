"""Presets shipped as data files in presets/ (editable by users, not Python)."""

import os
import tomllib

PRESETS_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "presets")


def quality_levels():
    """{key: {"label", "description", "substeps", "iterations"}} from presets/quality.toml."""
    with open(os.path.join(PRESETS_DIR, "quality.toml"), "rb") as f:
        levels = tomllib.load(f)
    for key, level in levels.items():
        for field, kind in (("substeps", int), ("iterations", int)):
            if not isinstance(level.get(field), kind) or level[field] < 1:
                raise ValueError(f"presets/quality.toml: [{key}] needs a positive integer "
                                 f"'{field}'")
    return levels
