"""The scene check: problems found before a simulation runs, each with a fix."""
