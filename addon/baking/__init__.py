"""Baking: simulated poses written as keyframes, and taken off again."""
