"""What the runtime keeps per scene (never saved): its SceneState (the Simulation, the last
error, the transforms written to objects, the messages printed) and the frame's bulk reads of
the file's objects (`Reads`, with `Lookup` memoising the rows of given objects)."""

from typing import Any

import bpy
import numpy as np

from ..scene.frames import evaluations
from .rest import current_values


class SceneState:
    """Everything the add-on keeps at run time for one scene (never saved): its Simulation,
    the error that stopped the last build, the transforms last written to its objects (to
    tell the user's edits from ours) and the messages already printed."""
    __slots__ = ("sim", "error", "written", "reported", "last_bake", "last_keys", "lookup",
                 "live", "build_seconds", "building", "stopped")

    def __init__(self):
        # Simulation, or None until the next frame change builds it
        self.sim: Any = None
        self.last_bake: Any = None   # the Simulation the last bake wrote (skipped/broken joints)
        self.last_keys: Any = None   # how many keys the last bake wrote (baking.bake.KeyCount)
        self.error = None        # message of the last failed build or run
        self.written = Written()  # transforms written to objects, to tell edits from ours
        self.reported = set()    # messages printed to the console (each is printed once)
        self.lookup = Lookup()   # rows of objects in the per-frame bulk reads
        # the Live Mode session running in the scene (live/session.py), or None: while it
        # runs it writes the bodies' transforms, and the frame and edit handlers leave the
        # scene to it
        self.live: Any = None
        self.build_seconds: Any = None   # how long the last build took, its scene check included
        # the build under way a slice at a time (runtime/building.py's BuildSession), or None
        self.building: Any = None
        # the user stopped the last build (Esc): the frames show the animation, no build
        # starts by itself until the scene is edited or Build Simulation is asked for
        self.stopped = False

    def fail(self, message):
        """The simulation cannot run as the scene is: drop it and keep the message (panels
        show it, the next frame change tries again)."""
        self.sim = None
        self.error = message

    def invalidate(self):
        """The scene changed: the next frame change builds a new simulation (a build under
        way stops: it read the scene as it was)."""
        self.sim = None
        self.error = None
        self.stopped = False
        if self.building is not None:
            self.building.cancel()

    def report(self, message):
        """Print `message` to the console once per scene."""
        if message not in self.reported:
            self.reported.add(message)
            print(f"Ligament: {message}")


_states = {}         # scene.session_uid -> SceneState


MODE_CODES = {'QUATERNION': 0, 'AXIS_ANGLE': 1}   # any other mode is an Euler order: 2


class Reads:
    """The file's objects read in bulk, once per frame: `foreach_get` over
    `bpy.data.objects` (a plain list, twice as fast to read as `scene.objects`) for the
    transform channels, over `scene.collection.all_objects` (the scene's objects) for which
    objects the scene has. Rows of given session uids are looked up by sorted search and kept
    while the file's objects stay the same (`Lookup`). The change checks of one frame share
    it; the bulk write uses its rows.

    `untagged`: the depsgraph saw no edit since the scene was last evaluated, so the scene
    holds the objects `lookup` last saw if it is still `current` (linking or unlinking an
    object tags it): they are not read again. The file's objects always are (the rows the
    bulk write writes to)."""

    def __init__(self, scene, lookup, untagged=False):
        self.evaluations = evaluations()   # scene updates before these reads
        self.data = bpy.data.objects
        self.scene_uids = lookup.scene_uids if untagged and lookup.current else \
            _uids(scene.collection.all_objects, _count(lookup.scene_uids))
        self.uids = _uids(self.data, _count(lookup.uids))
        self.n = len(self.uids)
        self.lookup = lookup.renew(self)
        self._channels = {}

    def channel(self, name, size, dtype=np.float32):
        """(n, size) values of `name` for every object of the file (read on first use)."""
        a = self._channels.get(name)
        if a is None:
            a = np.empty(self.n * size, dtype=dtype)
            if self.n:
                self.data.foreach_get(name, a)
            a = self._channels[name] = a.reshape(self.n, size)
        return a

    def rows(self, key, uids):
        """Rows of the objects with session `uids` (-1 for one not in the file or not in the
        scene), memoised under `key` while the objects stay the same."""
        return self.lookup.rows(self, key, uids)


def _uids(collection, known=None):
    """The objects' session uids (int64), read into int32, the property's own type: into an
    int64 buffer `foreach_get` takes four times as long (0.55 against 0.14 ms for the 2651
    objects of 50 metarig ragdolls).

    `known`: how many objects the collection held at the last read, or None. Its length is
    not stored (`len` walks every object: 0.2 ms at 2651), so the read first guesses it: into
    a buffer one longer, filled with `_NO_UID`, Blender writes as many uids as there are
    objects (a longer buffer is accepted; a shorter one raises, or before Blender 5.0 is
    filled), so the count is the same when the last slot is left and the one before it not;
    else the length is asked and the uids read again."""
    if known is not None:
        out = np.full(known + 1, _NO_UID, dtype=np.int32)
        try:
            collection.foreach_get("session_uid", out)
        except RuntimeError:     # more objects than the buffer holds
            pass
        else:
            if out[known] == _NO_UID and (known == 0 or out[known - 1] != _NO_UID):
                return out[:known].astype(np.int64)
    out = np.empty(len(collection), dtype=np.int32)
    if len(out):
        collection.foreach_get("session_uid", out)
    return out.astype(np.int64)


# no object's session uid (they count up from 1 as data-blocks are made in a session)
_NO_UID = np.iinfo(np.int32).min


def _count(uids):
    return None if uids is None else len(uids)


class Lookup:
    """Rows of session uids in a Reads, kept while the file's and the scene's objects are the
    same objects in the same order (a frame compares two strings of bytes instead of
    searching again)."""

    def __init__(self):
        self.uids = self.scene_uids = None
        self.key = None          # the bytes of (uids, scene_uids)
        self.memo = {}
        self.linked = False
        # whether scene_uids are the scene's objects now, as far as the depsgraph's update
        # tags tell (`forget`: an evaluation cleared tags that no reads looked at)
        self.current = False

    def renew(self, reads):
        # bytes compare in a fraction of np.array_equal's time (which costs microseconds
        # at any size: this runs every frame)
        key = (reads.uids.tobytes(), self.key[1] if self.key is not None and
               reads.scene_uids is self.scene_uids else reads.scene_uids.tobytes())
        if key != self.key:
            self.uids, self.scene_uids, self.key, self.memo = \
                reads.uids, reads.scene_uids, key, {}
            # an object linked from a library (a linked or overridden character brings its
            # library's objects along) makes foreach_set over the file's objects write
            # nothing at all: the bulk write then goes object by object
            self.linked = bool(bpy.data.libraries) and \
                any(o.library is not None for o in bpy.data.objects)
        self.current = True
        return self

    def forget(self):
        """The scene was evaluated without reads taken before: the next reads read which
        objects it holds again."""
        self.current = False

    def rows(self, reads, key, uids):
        """The rows of `uids` (the same array object while the objects stay the same, so
        that callers can keep what they derive from it)."""
        uids = np.asarray(uids, dtype=np.int64)
        found = self.memo.get(key)
        wanted = uids.tobytes()
        if found is not None and found[0] == wanted:
            return found[1]
        rows = indices(reads.uids, uids)
        if len(reads.scene_uids):
            ordered = np.sort(reads.scene_uids)
            at = np.searchsorted(ordered, uids).clip(0, len(ordered) - 1)
            rows = np.where(ordered[at] == uids, rows, -1)
        else:
            rows = np.full(len(uids), -1, dtype=np.int64)
        self.memo[key] = (wanted, rows)
        return rows


class Written:
    """The transforms the add-on last wrote to objects (location, rotation values in the
    object's mode), kept as arrays with one row per object (by session uid), so a crowd's
    thousands of bodies are compared with the scene's in one vectorised pass."""

    def __init__(self):
        self.row = {}                        # object session uid -> row
        self.uid = np.zeros(0, dtype=np.int64)
        self.loc = np.zeros((0, 3))
        self.rot = np.zeros((0, 4))
        self.mode = np.zeros(0, dtype=np.int64)
        self._present = None     # (rows, what `present` derives from them)

    def __bool__(self):
        return bool(self.row)

    def rows(self, objects):
        """Rows of `objects` (made for those seen the first time)."""
        uids = [o.session_uid for o in objects]
        new = [u for u in dict.fromkeys(uids) if u not in self.row]
        if new:
            n = len(self.row)
            for k, u in enumerate(new):
                self.row[u] = n + k
            grow = len(new)
            self.uid = np.concatenate([self.uid, np.array(new, dtype=np.int64)])
            self.loc = np.concatenate([self.loc, np.zeros((grow, 3))])
            self.rot = np.concatenate([self.rot, np.zeros((grow, 4))])
            self.mode = np.concatenate([self.mode, np.zeros(grow, dtype=np.int64)])
        return np.array([self.row[u] for u in uids], dtype=np.int64)

    def present(self, rows):
        """(which of the rows are in the reads, their rows there, whether all are) given
        every row's row in a Reads (`rows`, -1 where absent), kept while `rows` is the same
        array (the Lookup keeps it while the objects are the same)."""
        plan = self._present
        if plan is None or plan[0] is not rows:
            keep = np.flatnonzero(rows >= 0)
            plan = self._present = (rows, keep, rows[keep], len(keep) == len(rows))
        return plan[1:]

    def set(self, rows, loc, rot, modes):
        self.loc[rows] = loc
        self.rot[rows] = rot
        self.mode[rows] = modes

    def record(self, obj):
        """What `obj` shows now is ours (written, or accepted as its new rest pose)."""
        r = self.rows([obj])
        loc, rot = current_values(obj)
        self.set(r, [loc], [rot], [MODE_CODES.get(obj.rotation_mode, 2)])


def indices(uids, wanted):
    """Positions in `uids` (objects' session uids) of the `wanted` uids; -1 for one not
    among them."""
    wanted = np.asarray(wanted, dtype=np.int64)
    if not len(uids):
        return np.full(len(wanted), -1, dtype=np.int64)
    order = np.argsort(uids)
    at = order[np.searchsorted(uids[order], wanted).clip(0, len(uids) - 1)]
    return np.where(uids[at] == wanted, at, -1)


def state(scene):
    """The scene's SceneState (made on first use)."""
    st = _states.get(scene.session_uid)
    if st is None:
        st = _states[scene.session_uid] = SceneState()
    return st


def every_state():
    """The SceneStates of every scene seen this session."""
    return list(_states.values())


def forget_all():
    """Forget every scene's state (a file was loaded, the add-on is unregistered)."""
    for st in _states.values():
        if st.building is not None:
            st.building.cancel()
    _states.clear()
