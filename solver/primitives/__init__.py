"""Row primitives: each fills one or a few rows for one scalar-constraint family.

Every primitive takes the row index (or indices), the two body ids (-1 = world), its geometry
and the step context S = (bias rate, mass scale, impulse scale, h, 1/h) of the rigid joint
softness, and writes the rows through `rows.row_axis` / `rows.row_angular` plus one of the
drive settings (`set_equality`, `set_lower_limit`, `set_motor`, `set_spring`). Springs and
drives also take their joint's equality rows (e0, n) and `rows.hold` their rows over them
before the spring settings, so a spring's mass is the one the rig moves as hung (docs/rows.md).
Each file's header derives C, C*, J and the effective mass; docs/rows.md,
docs/point-constraints.md and docs/angular-constraints.md derive them at more length.
"""
