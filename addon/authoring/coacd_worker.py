"""CoACD's decomposition, in this process (`decompose`) or as a process of its own that can be
stopped (`python coacd_worker.py IN.npz OUT.npz THRESHOLD MAX_PARTS SEED`): the split of a
big mesh takes minutes, and a call into the library cannot be interrupted. Neither bpy nor
the add-on is imported here, so the file runs as a plain script on Blender's Python.

As a script it prints CoACD's own log, whose lines `iter N ---- waiting pool: M` and
`Processing [P%]` say which round of cuts it is in, how many pieces that round cuts and how
far it is through them (`convex_parts.SplitJob` reads them as progress)."""

import sys

import numpy as np


def decompose(vertices, triangles, threshold, max_parts=0, seed=0, log_level="error"):
    """Convex parts of a closed triangle mesh: a list of (vertices (k, 3), triangles (j, 3)).
    Raises ImportError when the library does not load."""
    import coacd
    coacd.set_log_level(log_level)
    mesh = coacd.Mesh(np.ascontiguousarray(vertices, dtype=np.float64),
                      np.ascontiguousarray(triangles, dtype=np.int32))
    parts = coacd.run_coacd(mesh, threshold=float(threshold),
                            max_convex_hull=int(max_parts) if max_parts > 0 else -1,
                            seed=int(seed))
    return [(np.asarray(v, dtype=np.float64), np.asarray(t, dtype=np.int64)) for v, t in parts]


def save_parts(path, parts):
    """The parts in one .npz: every part's vertices and triangles end to end, and counts."""
    np.savez(path,
             vertices=np.concatenate([v for v, _ in parts]) if parts else np.zeros((0, 3)),
             triangles=np.concatenate([t for _, t in parts]) if parts else
             np.zeros((0, 3), dtype=np.int64),
             vertex_counts=np.array([len(v) for v, _ in parts], dtype=np.int64),
             triangle_counts=np.array([len(t) for _, t in parts], dtype=np.int64))


def load_parts(path):
    with np.load(path) as data:
        vs = np.split(data["vertices"], np.cumsum(data["vertex_counts"])[:-1])
        ts = np.split(data["triangles"], np.cumsum(data["triangle_counts"])[:-1])
        if not len(data["vertex_counts"]):
            return []
        return list(zip(vs, ts))


def _main(argv):
    source, target, threshold, max_parts, seed = argv
    with np.load(source) as data:
        vertices, triangles = data["vertices"], data["triangles"]
    parts = decompose(vertices, triangles, float(threshold), int(max_parts), int(seed),
                      log_level="info")
    save_parts(target, parts)
    print(f"parts: {len(parts)}", flush=True)


if __name__ == "__main__":
    _main(sys.argv[1:])
