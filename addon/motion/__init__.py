"""Keyed motion checked and fixed against physics: `check.py` and `fix.py` are numpy alone (no
bpy, tested headless), `rig.py` reads a ragdolled armature's keyed motion into them and
writes the fixed action."""
