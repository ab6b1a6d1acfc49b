"""The solver's source hash: what a cached kernel is valid for (jit.py).

Standalone (standard library only), so the Blender extension can name the solver's module
by it before importing the solver (addon/kernels.py).
"""

import hashlib
import os


def source_hash(folder):
    """sha256 over the Python sources under `folder` (relative paths and contents), skipping
    folders whose names start with _ or . (caches)."""
    digest = hashlib.sha256()
    for parent, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if not d.startswith(("_", ".")))
        for name in sorted(files):
            if name.endswith(".py"):
                path = os.path.join(parent, name)
                digest.update(os.path.relpath(path, folder).replace(os.sep, "/").encode())
                with open(path, "rb") as f:
                    digest.update(f.read())
    return digest.hexdigest()
