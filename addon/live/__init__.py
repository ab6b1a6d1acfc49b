"""Live Mode: the simulation run in place at the current frame (session.py)."""
