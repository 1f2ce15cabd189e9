"""What the store raises: a StoreError names the file, the line and the field, and says what was expected."""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["StoreError", "LockedError", "os_error"]


class StoreError(ValueError):
    """A campaign folder that cannot be read or written as asked.

    ``path`` is the file (or folder), ``line`` the 1-based line or None, ``field`` the field path
    (``delvers[1].class``) or None, ``reason`` what was wrong and what was expected.
    """

    def __init__(self, reason: str, path: str | os.PathLike | None = None, line: int | None = None,
                 field: str | None = None):
        self.reason = reason
        self.path = Path(path) if path is not None else None
        self.line = line
        self.field = field
        super().__init__(str(self))

    def __str__(self) -> str:
        where = ""
        if self.path is not None:
            where = str(self.path) + (f":{self.line}" if self.line else "") + ": "
        if self.field:
            where += f"{self.field}: "
        return where + self.reason

    def __reduce__(self):
        return (type(self), (self.reason, self.path, self.line, self.field))


class LockedError(StoreError):
    """The campaign is open for writing in another process (or another store in this one)."""

    def __str__(self) -> str:
        return self.reason


def os_error(err: OSError, doing: str, path: str | os.PathLike | None = None) -> StoreError:
    """An OSError (a folder that cannot be read, a disk that is full) as the store's error: what was being done,
    the system's words, and the file."""
    where = err.filename if isinstance(err.filename, (str, bytes, os.PathLike)) else path
    if isinstance(where, bytes):
        where = os.fsdecode(where)
    return StoreError(f"cannot {doing} ({err.strerror or err})", where)
