"""Growable numpy tables: the World's bodies, joints and rows live in these."""

import numpy as np


SETTING = "setting"    # a Table only the API writes (add_*, set_*): not part of a snapshot
DERIVED = "derived"    # a Table the step recomputes from the state before it reads it


class Table:
    """A growable numpy table: `view` is the live part, capacity doubles as it fills.

    `state` says what a snapshot does with it (required: a new table has to decide):
    the key `World.save_state` keeps it under (the step changes it and the next step reads
    it back), SETTING (only the API writes it) or DERIVED (the step writes it, but from the
    state, before reading it). tests/solver/test_determinism.py steps a world with every
    feature and fails on a table the step changed that is neither a state nor DERIVED.

    `version` counts the changes to its rows: appending and truncating count themselves, a
    write through `data` counts with `touch()`. What is derived from a table and kept (the
    joints' pairs that do not collide) is kept while the version is the one it was made at,
    at the cost of an int compare a frame instead of comparing the table.

    `view` is kept as an attribute, made again whenever `n` or `data` changes (here only):
    a step reads some forty of them, and a slice made on each read cost more than the
    rest of the step's Python around its kernels."""

    def __init__(self, width, dtype, fill=0, *, state):
        shape = (8,) if width is None else (8, width)
        self.data = np.full(shape, fill, dtype=dtype)
        self.fill = fill
        self.n = 0
        self.state = state
        self.version = 0
        self.view = self.data[:0]

    def touch(self):
        """Count a write through `data`."""
        self.version += 1

    def append(self, row):
        n = self.push()
        self.data[n] = row
        return n

    def push(self):
        """Append a row of the fill value (rows past `n` hold it already: tables never
        shrink and only their live part is written)."""
        if self.n == len(self.data):
            grown = np.full((2 * len(self.data),) + self.data.shape[1:], self.fill, self.data.dtype)
            grown[:self.n] = self.data
            self.data = grown
        self.n += 1
        self.version += 1
        self.view = self.data[:self.n]
        return self.n - 1

    def extend(self, rows):
        """Append the rows of an array (or a list of rows); returns the first new row's
        index."""
        m = len(rows)
        first = self.extend_fill(m)
        if m == 1:
            self.data[first] = rows[0]        # a row costs less than a slice of one
        elif m > 1:
            self.data[first:first + m] = rows
        return first

    def extend_fill(self, m):
        """Append `m` rows of the fill value (rows past `n` hold it already), the capacity
        doubled as often as they need; returns the first one's index."""
        first = self.n
        if first + m > len(self.data):
            size = len(self.data)
            while size < first + m:
                size *= 2
            grown = np.full((size,) + self.data.shape[1:], self.fill, self.data.dtype)
            grown[:first] = self.data[:first]
            self.data = grown
        self.n = first + m
        self.version += 1
        self.view = self.data[:self.n]
        return first

    def truncate(self, n):
        """Take back the rows from `n` on (they hold the fill value again)."""
        self.data[n:self.n] = self.fill
        self.n = n
        self.version += 1
        self.view = self.data[:n]
