"""Split a concave mesh into convex parts, made child objects of it: with the Compound shape
the body collides as those parts (each a Convex Hull) while the mesh itself stays what is
seen.

The decomposition is CoACD's (Wei et al. 2022, "Approximate convex decomposition for 3D
meshes with collision-aware concavity and tree search"; the `coacd` wheel the extension
bundles): it cuts the mesh along planes until each piece is within `threshold` of its
convex hull (a concavity relative to the mesh's size).

From the UI the decomposition runs in a process of its own (`SplitJob`, the shell is the
operator's modal loop): Blender stays responsive, shows how far CoACD is, and Esc stops it
with the scene as it was. A script calling `split_into_parts` waits for it here."""

import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from typing import Any

import bpy
import numpy as np

from . import coacd_worker
from ..scene.errors import SceneError
from ..scene.ragdolls import library_of
from ..scene.shapes import local_vertices

PART_OF = "ligament_convex_part_of"     # custom property on the parts made here: the parent
DEFAULT_THRESHOLD = 0.05


def decompose(vertices, triangles, threshold=DEFAULT_THRESHOLD, max_parts=0, seed=0):
    """Convex parts of a closed triangle mesh: a list of (vertices (k, 3), triangles (j, 3)).
    `threshold`: the concavity each part may keep (0.01 fine .. 1 coarse); `max_parts` > 0
    merges down to that many parts."""
    try:
        return coacd_worker.decompose(vertices, triangles, threshold, max_parts, seed)
    except ImportError as exc:
        raise SceneError(_missing_library(exc)) from None


def _missing_library(exc):
    return ("Split into Convex Parts needs the CoACD library, bundled with the extension for "
            f"Linux x64, Windows x64 and macOS arm64; it did not load here ({exc})")


def made_parts(obj):
    """The children of `obj` that an earlier split made (tagged when made; the tag's name
    may be an old name of `obj`: a renamed object keeps its parts)."""
    return [c for c in obj.children if PART_OF in c]


def remove_parts(obj):
    for child in made_parts(obj):
        mesh = child.data
        bpy.data.objects.remove(child)
        if mesh is not None and mesh.users == 0:
            bpy.data.meshes.remove(mesh)


def refuse_linked(obj):
    """Refuse a linked object or a library override of one: its shape and its collection's
    objects are the library file's, and Blender refuses to add the parts to an overridden
    collection."""
    library = library_of(obj)
    if library is None:
        return
    how = "a library override of an object linked" if obj.library is None else "linked"
    raise SceneError(f"Object '{obj.name}' is {how} from '{library}': its shape and the "
                     "objects of its collection come from there. Split it in that file and "
                     "save it; this file gets the parts when it is opened again")


def _mesh_of(obj, depsgraph):
    """The evaluated mesh of `obj` in its local frame, (vertices, triangles), refused when
    it cannot be split."""
    refuse_linked(obj)
    if obj.type != 'MESH':
        raise SceneError(f"Object '{obj.name}' is not a mesh; Split into Convex Parts works "
                         "on mesh objects")
    vertices, triangles = local_vertices(obj, depsgraph)
    if triangles is None or len(triangles) == 0:
        raise SceneError(f"Object '{obj.name}' has no faces to split")
    return vertices, triangles


def split_into_parts(obj, depsgraph, threshold=DEFAULT_THRESHOLD, max_parts=0,
                     progress=None):
    """Replace the parts an earlier split made with new ones: each a child mesh object of
    `obj` in its local frame (wireframe, not rendered) with the Convex Hull shape, and give
    `obj` the Compound shape (making it a body if it was not one). `progress(fraction)` is
    called as the work goes. Returns (the part objects, seconds the decomposition took)."""
    report = progress or (lambda fraction: None)
    report(0.0)
    vertices, triangles = _mesh_of(obj, depsgraph)
    report(0.1)
    t0 = time.perf_counter()
    pieces = decompose(vertices, triangles, threshold, max_parts)
    seconds = time.perf_counter() - t0
    report(0.8)
    made = make_parts(obj, pieces, lambda f: report(0.8 + 0.2 * f))
    return made, seconds


def make_parts(obj, pieces, progress=None):
    """The part objects of `pieces` ((vertices, triangles) in `obj`'s local frame) in place of
    those an earlier split made; `obj` gets the Compound shape."""
    refuse_linked(obj)
    remove_parts(obj)
    collection = obj.users_collection[0] if obj.users_collection else \
        bpy.context.scene.collection
    made = []
    try:
        for k, (v, t) in enumerate(pieces):
            mesh = bpy.data.meshes.new(f"{obj.name}.part.{k:03d}")
            mesh.from_pydata([tuple(p) for p in v], [], [tuple(int(i) for i in f) for f in t])
            mesh.update()
            part = bpy.data.objects.new(mesh.name, mesh)
            made.append(part)
            collection.objects.link(part)
            part.parent = obj
            part.matrix_parent_inverse.identity()      # vertices are in obj's local frame
            part.display_type = 'WIRE'
            part.hide_render = True
            part[PART_OF] = obj.name
            part.ligament_body.shape = 'CONVEX_HULL'
            if progress is not None:
                progress((k + 1) / len(pieces))
    except Exception:        # nothing half made is left behind
        for part in made:
            mesh = part.data
            bpy.data.objects.remove(part)
            if mesh.users == 0:
                bpy.data.meshes.remove(mesh)
        raise
    s = obj.ligament_body
    s.shape = 'COMPOUND'
    s.enabled = True
    return made


_ROUND = re.compile(r"iter (\d+) -+ waiting pool: (\d+)")
_DONE = re.compile(r"Processing \[([0-9.]+)%\]")


class SplitJob:
    """One split running in a process of its own: `start`, then `poll` until it says 'DONE'
    and `finish` (which makes the parts), or `cancel` (the scene is left as it was: nothing
    is written to it before `finish`). `round`, `pieces` and `fraction` say how far CoACD is:
    it cuts in rounds, each round every piece still too concave, and `fraction` is how far
    through the round's pieces it is; `seconds` the time since the start."""

    def __init__(self, obj, depsgraph, threshold=DEFAULT_THRESHOLD, max_parts=0, seed=0):
        self.name = obj.name
        self.vertices, self.triangles = _mesh_of(obj, depsgraph)
        self.threshold, self.max_parts, self.seed = threshold, max_parts, seed
        self.process = None
        self.round, self.pieces, self.fraction = 0, 1, 0.0
        self.lines = []
        self._dir: Any = None
        self._t0 = None

    @property
    def seconds(self):
        return 0.0 if self._t0 is None else time.perf_counter() - self._t0

    def start(self):
        try:
            import coacd
        except ImportError as exc:
            raise SceneError(_missing_library(exc)) from None
        self._dir = tempfile.mkdtemp(prefix="ligament-split-")
        source = os.path.join(self._dir, "mesh.npz")
        np.savez(source, vertices=self.vertices, triangles=self.triangles)
        # the child finds numpy and the bundled coacd where this process does
        paths = [os.path.dirname(os.path.dirname(os.path.abspath(coacd.__file__)))]
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(paths + [p for p in sys.path if p]))
        self._t0 = time.perf_counter()
        self.process = subprocess.Popen(
            [sys.executable, os.path.abspath(coacd_worker.__file__), source,
             os.path.join(self._dir, "parts.npz"), repr(float(self.threshold)),
             str(int(self.max_parts)), str(int(self.seed))],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            text=True, env=env)
        self._reader = threading.Thread(target=self._read, args=(self.process,), daemon=True)
        self._reader.start()
        return self

    def _read(self, process):
        for line in process.stdout:
            self.lines.append(line.rstrip())
            m = _ROUND.search(line)
            if m:
                self.round, self.pieces, self.fraction = int(m[1]) + 1, int(m[2]), 0.0
                continue
            m = _DONE.search(line)
            if m:   # a round's pieces are cut side by side: their reports come out of order
                self.fraction = max(self.fraction, float(m[1]) / 100.0)

    def poll(self):
        """'RUNNING' or 'DONE'; a failed decomposition raises SceneError with its last
        words."""
        if self.process is None:
            raise RuntimeError("SplitJob.poll before start")
        code = self.process.poll()
        if code is None:
            return 'RUNNING'
        self._reader.join()
        if code != 0:
            tail = "\n".join(self.lines[-8:]) or f"exit status {code}"
            self._clean()
            raise SceneError(f"Split into Convex Parts of '{self.name}' failed: {tail}")
        return 'DONE'

    def wait(self, timeout=None):
        """Block until the process ends (scripts and tests); then `poll`."""
        self.process.wait(timeout)
        return self.poll()

    def status(self):
        """One line for Blender's status bar."""
        if self.round == 0:
            return f"Splitting '{self.name}' into convex parts: reading the mesh " \
                   f"({self.seconds:.0f} s), Esc to cancel"
        return (f"Splitting '{self.name}' into convex parts: round {self.round}, "
                f"{self.pieces} piece{'s' if self.pieces != 1 else ''} "
                f"{100 * self.fraction:.0f} % ({self.seconds:.0f} s), Esc to cancel")

    def cancel(self):
        """Stop the decomposition; nothing was written to the scene."""
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        self._clean()

    def finish(self):
        """The parts made from the finished decomposition (see `make_parts`): (the part
        objects, seconds the decomposition took)."""
        seconds = self.seconds
        try:
            pieces = coacd_worker.load_parts(os.path.join(self._dir, "parts.npz"))
        finally:
            self._clean()
        obj = bpy.data.objects.get(self.name)
        if obj is None:
            raise SceneError(f"Object '{self.name}' was deleted or renamed while it was being "
                             "split; split it again")
        return make_parts(obj, pieces), seconds

    def _clean(self):
        if self._dir is not None:
            shutil.rmtree(self._dir, ignore_errors=True)
            self._dir = None
