"""A bake run a slice of time at a time, for the Bake operator's modal run: the operator is
a thin shell that calls `advance` on each timer event and `cancel` on Esc, so a test drives
the same bake without a window or events."""

import time

from ..scene.errors import SceneError
from . import bake


class BakeSession:
    """One bake of `scene` (bake.bake_iter's frames and tolerance). `progress` shows how far
    it got: an object with `update(done, total)` and `end()` (the window's progress bar and
    status text), ended whatever way the bake ends."""

    def __init__(self, scene, progress, frame_start=None, frame_end=None, step=1,
                 tolerance=None):
        self.scene = scene
        self.progress = progress
        self.state = 'RUNNING'     # then FINISHED, FAILED or CANCELLED
        self.done = self.total = 0
        self.baked = []            # the objects baked, once FINISHED
        self.error = None          # the scene error, once FAILED
        self.started = time.perf_counter()
        self.budget = 0.05         # seconds of baking per `advance` (the UI stays responsive)
        self._frames = bake.bake_iter(scene, frame_start, frame_end, step, tolerance)

    def advance(self, budget=None):
        """Bake frames for about `budget` seconds (`self.budget` unless given; at least one
        frame); the state after. A scene the simulation cannot run (bad input, a blow-up)
        ends it FAILED with `error`."""
        if self.state != 'RUNNING':
            return self.state
        deadline = time.perf_counter() + (self.budget if budget is None else budget)
        try:
            while True:
                self.done, self.total = next(self._frames)
                self.progress.update(self.done, self.total)
                if time.perf_counter() >= deadline:
                    return self.state
        except StopIteration as stop:
            self.baked = stop.value
            self._end('FINISHED')
        except SceneError as exc:
            self.error = str(exc)
            self._end('FAILED')
        except Exception:          # a bug: the progress is not left on screen
            self._end('FAILED')
            raise
        return self.state

    def cancel(self):
        """Stop without writing anything (the keys are written after the last frame)."""
        if self.state == 'RUNNING':
            self._frames.close()
            self._end('CANCELLED')

    def seconds(self):
        return time.perf_counter() - self.started

    def _end(self, outcome):
        self.state = outcome
        self.progress.end()
