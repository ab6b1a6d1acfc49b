"""Reading the scene: animation at any frame, shapes, curves, objects. Imports nothing of the
add-on but kernels.py (for the solver's shape classes)."""
