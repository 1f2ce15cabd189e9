"""The writer's guard over its log (``CampaignStore``'s part that tells the file at ``log.yaml`` from the file it
appends to): before each append, the log must still be the file this writer holds, with the length it wrote and its
last bytes; otherwise what it had written is kept in ``log.displaced-<time>.yaml``, the incident is noted for the
next open, and further appends are refused.
"""

from __future__ import annotations

import os
from pathlib import Path

from .errors import StoreError
from .files import fsync_dir, pread, write_all
from .lines import dump_event_line
from .log import LOG_FILE
from .repair import free_name, utc_stamp

__all__ = ["LogGuard"]


class LogGuard:
    """Mixed into ``CampaignStore``: which gives ``path``, ``read_only``, ``events``, ``problems`` and the writer's
    state (``_writing``, ``_broken``, ``_identity``, ``_log_fd``, ``_end``, ``_mark``, ``_held``, ``_lock``)."""

    def _check_writable(self) -> None:
        if self.read_only:
            raise StoreError("opened read-only; open it without read_only=True to record play", self.path)
        if not self._writing:
            raise StoreError("closed; open it again to record play", self.path)
        if self._broken:
            raise StoreError(self._broken, self.path / LOG_FILE)

    def _changed(self, size: bool = True) -> str | None:
        """How ``log.yaml`` differs from the file this writer holds, or None: deleted, replaced, truncated, grew,
        rewritten (same length, other bytes at the end)."""
        try:
            st = os.stat(self.path / LOG_FILE)
        except FileNotFoundError:
            return "deleted"
        except OSError:
            return "unreachable"
        if (st.st_dev, st.st_ino) != self._identity:
            return "replaced"
        if not size:
            return None
        if self._log_fd is not None:
            return self._differs(self._log_fd)
        try:  # appending per event: the log is not held open, read what is there now
            fd = os.open(self.path / LOG_FILE, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
        except FileNotFoundError:
            return "deleted"
        except OSError:
            return "unreachable"
        try:
            st = os.fstat(fd)
            if (st.st_dev, st.st_ino) != self._identity:
                return "replaced"
            return self._differs(fd)
        finally:
            os.close(fd)

    def _differs(self, fd: int) -> str | None:
        """How the log file at ``fd`` differs from what this writer wrote there: its length, its last bytes."""
        held = os.fstat(fd).st_size
        if held < self._end:
            return "truncated"
        if held > self._end:
            return "grew"
        if self._mark and pread(fd, len(self._mark), self._end - len(self._mark)) != self._mark:
            return "rewritten"
        return None

    def _guard(self) -> None:
        what = self._changed()
        if what is not None:
            side = self._displace(what)
            raise StoreError(self._broken_reason(what, side), self.path / LOG_FILE)

    _WHAT = {
        "deleted": "deleted",
        "replaced": "replaced by another file (a `git checkout -- log.yaml`, a copy, an editor's save?)",
        "truncated": "cut shorter",
        "grew": "written to by something else (lines this campaign did not write were added)",
        "rewritten": "changed in place",
        "unreachable": "out of reach (its folder moved or was removed?)",
    }

    def _broken_reason(self, what: str, side: Path | None, during: bool = False) -> str:
        last = self.events[-1]["seq"] if self.events else 0
        kept = (f"; the {len(self.events)} events this campaign had recorded (to seq {last}) are kept in "
                f"{side.name}" if side is not None else "")
        when = "while the event was written" if during else "since this campaign was opened"
        return (f"log.yaml was {self._WHAT[what]} {when}: nothing was recorded{kept}. Open the campaign again: "
                f"it reads log.yaml as it is now, and says this again")

    def _displace(self, what: str) -> Path | None:
        """Keep what this writer wrote where nothing will overwrite it, note the incident for the next open
        (in the lock file), and refuse further appends. Returns the side file, if one was needed."""
        side = None
        stamp = utc_stamp()
        try:
            if what in ("deleted", "replaced", "unreachable") and self._held is not None \
                    and self._same_file(self._held):
                side = free_name(self.path, "displaced", stamp)
                os.rename(self._held, side)  # the very file this writer wrote: no byte re-encoded
                fsync_dir(self.path)
            elif what != "grew":
                side = free_name(self.path, "displaced", stamp)
                header = (f"# kept by delvebook at {stamp}: the events this campaign had recorded when log.yaml "
                          f"was {what}\n").encode()
                self._write_side(side, header + b"".join(dump_event_line(e) for e in self.events))
            if self._held is not None and what in ("truncated", "rewritten", "grew"):
                try:
                    os.unlink(self._held)
                except OSError:
                    pass
        except OSError:
            side = None
        self._held = None
        last = self.events[-1]["seq"] if self.events else 0
        note = (f"at {stamp} log.yaml was {self._WHAT[what]} while pid {os.getpid()} had the campaign open "
                f"({len(self.events)} events recorded, to seq {last})"
                + (f"; those events are kept in {side.name} (to go on from them, close the campaign and move "
                   f"that file over log.yaml)" if side is not None else "")
                + "; nothing was recorded after it")
        self._broken = self._broken_reason(what, side)
        self.problems.append(f"{self.path}: {note}")
        if self._lock is not None:
            self._lock.note(note)
        return side

    def _same_file(self, path: Path) -> bool:
        try:
            st = os.stat(path, follow_symlinks=False)
        except OSError:
            return False
        return (st.st_dev, st.st_ino) == self._identity

    def _write_side(self, side: Path, data: bytes) -> None:
        fd = os.open(side, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        try:
            write_all(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
        fsync_dir(self.path)

