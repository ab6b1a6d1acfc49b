"""Authoring: ragdolls made from armatures, bone maps, presets."""
