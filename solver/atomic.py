"""All or nothing for the World's add_* joint methods."""

import functools


def atomic_joint(add):
    """An add_* method that raises after its joint's rows were appended (a bad range, motor
    or spring is found once the joint exists) adds nothing: the rows are taken back, so a
    joint a caller reports as skipped does not act without its limits."""
    @functools.wraps(add)
    def adding(self, *args, **kwargs):
        tables = (self._jt, self._jf, self._jacc, self._jimp, self._jpts, self._ci, self._cf)
        sizes = [t.n for t in tables]
        many = self._many_body_joints
        breakable = self._breakable
        try:
            return add(self, *args, **kwargs)
        except BaseException:
            for t, n in zip(tables, sizes):
                t.truncate(n)
            self._many_body_joints = many
            self._breakable = breakable
            raise
    return adding
