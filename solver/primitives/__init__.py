"""Row primitives: each fills one or a few rows for one scalar-constraint family.

Every primitive takes the row index (or indices), the two body ids (-1 = world), its geometry
and the step context S = (bias rate, mass scale, impulse scale, h, 1/h) of the rigid joint
softness, and writes the rows through `rows.row_axis` / `rows.row_angular` plus one of the
drive settings (`set_equality`, `set_lower_limit`, `set_motor`, `set_spring`). Each file's
header derives C, C*, J and the effective mass, after constraint-derivations-pgs.txt.
"""
