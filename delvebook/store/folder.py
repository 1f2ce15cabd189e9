"""A campaign folder on disk, open for reading or writing: ``CampaignStore`` (the writer's lock is ``store.lock``,
writing files whole ``store.files``, what opening repairs ``store.repair``).

A campaign folder holds:

- ``campaign.yaml``: the setup (name, seats, delvers' starting sheets, bestiary, house rules...), plain block
  YAML a keeper edits by hand; delvebook writes it whole (temporary file, fsync, atomic rename, folder fsync).
- ``log.yaml``: every event of play, one per line (see ``store.log``). Lines are only ever appended, each with one
  ``os.write`` and an ``fsync`` before the call returns. A torn last line left by a crash is set aside into
  ``log.torn-<UTC time>.yaml`` by the next writable open, and reported.
- ``.delvebook.lock``: held (``flock``) by the one process that may write; read-only opens never need it. A
  writer notes there what went wrong under it (``log.yaml`` replaced while it was open), for the next open to say.
- ``.delvebook.soft-lock``: where ``flock`` does not exist (Windows has no ``fcntl``; Pyodide's is empty), the
  writer's lock is this file instead, made with ``O_EXCL`` and holding the writer's pid, host and a token of its
  process; closing removes it. One left by a writer that ended without closing is taken over when its process is
  known to be gone (the same pid with another token: a restarted kernel under Pyodide, a recycled pid; or, on
  POSIX, a pid that no longer runs), and the open says so; otherwise the open is refused with the holder's pid.
- ``.delvebook.held-log``: while a writer is open, a second name for the log file it appends to, so that a log
  deleted or replaced under it (``git checkout -- log.yaml``) loses nothing even if the writer is killed; the next
  writable open keeps such a file as ``log.displaced-<UTC time>.yaml`` and says so.
- ``.campaign.yaml.<pid>.tmp``: a rewrite in progress; one left by a crash is removed by the next writable open.
"""


from __future__ import annotations

import os
import stat
import threading
from pathlib import Path
from typing import Any

from ..core import statecheck
from ..core.rules.schema import FORMAT_VERSION, show
from .campaign_file import (CAMPAIGN_FILE, CAMPAIGN_KEYS, check_campaign_file, dump_campaign, raise_first,
                            read_campaign)
from .errors import StoreError, os_error
from .files import atomic_write, check_new_path, fsync_dir, persists_on_close, pread, write_all
from .lock import LOCK_FILE, SOFT_LOCK_FILE, Lock, read_incidents, take_lock
from .lines import dump_event_line, encode_event
from .log import LOG_FILE, LOG_HEADER, LineMap, LogTail, scan
from .repair import HELD_FILE, clean_temporaries, free_name, recover_held, set_aside, utc_stamp

__all__ = [
    "LOCK_FILE",
    "SOFT_LOCK_FILE",
    "HELD_FILE",
    "persists_on_close",
    "check_new_path",
    "CampaignStore",
    "atomic_write",
    "fsync_dir",
    "write_all",
]

_GITIGNORE = ("# the players' requests from their phones, and their links' secrets (delvebook players)\nrequests/\n"
              f"# the writer's lock of a campaign open in delvebook, and its hold on the log\n{HELD_FILE}\n"
              f"{SOFT_LOCK_FILE}\n{LOCK_FILE}\n")


# ---------------------------------------------------------------- the folder store


class CampaignStore:
    """One campaign folder, open for reading or for writing (then holding the folder's lock).

    ``campaign`` is the parsed campaign.yaml, ``events`` the log oldest first, ``problems`` what opening found
    and repaired or left for the keeper (a torn last line set aside, a log replaced while it was open, and where
    everything went). ``MemoryStore`` has the same interface without a folder.

    The writer guards the log while it is open: before each append it checks that the file it holds is still
    the file at ``log.yaml``, with the length it wrote; otherwise it refuses (nothing is written), keeps what it
    had written in ``log.displaced-<time>.yaml`` and notes what happened for the next open to say. One lock per
    store makes threads sharing it safe."""

    declared = None  # the writer's check of an event against its declaration (a campaign sets it: declared.problem)

    def __init__(self, path: Path, read_only: bool) -> None:
        self.path = path
        self.read_only = read_only
        self.campaign: dict = {}
        self.events: list[dict] = []
        self.problems: list[str] = []
        self.rules: Any = None  # the rules campaign.yaml plays by (checked by the one schema)
        self.shape: statecheck.Shape = statecheck.DEFAULT
        self.unsealed: list[int] = []  # indexes of the events read from lines without a holding seal
        self._line_map = LineMap()  # the line of each event
        self._lock: Lock | None = None
        self._log_fd: int | None = None  # the log held open for appending (where writes persist before close)
        self._writing = False  # open for writing: the log is held open, or opened for each append
        self._per_event = persists_on_close()
        self._broken: str | None = None
        self._identity: tuple | None = None  # (device, inode) of the log this writer appends to
        self._mark = b""  # the last bytes this writer wrote (or read), checked before each append
        self._held: Path | None = None
        self._mutex = threading.RLock()
        self._end = 0  # bytes of the log this store has read or written (where a follower goes on)
        self._lines = 0  # lines of the log up to there

    # opening and closing
    @classmethod
    def create(cls, path: str | os.PathLike, campaign: dict) -> "CampaignStore":
        """A new campaign folder (refused if ``path`` holds anything): campaign.yaml, an empty log, a .gitignore
        for the lock; returned open for writing. A refused or failed create leaves nothing behind."""
        folder = Path(path)
        if not isinstance(campaign, dict):
            raise StoreError(f"a campaign is a mapping of fields ({', '.join(CAMPAIGN_KEYS)}), "
                             f"got {show(campaign)}", folder / CAMPAIGN_FILE)
        if "format" not in campaign:
            campaign = {"format": FORMAT_VERSION, **campaign}
        check_new_path(folder)
        rules, errors = check_campaign_file(campaign, None, folder / CAMPAIGN_FILE)
        raise_first(errors)
        if folder.exists() and not folder.is_dir():
            raise StoreError("exists and is not a folder; choose another path for the new campaign", folder)
        made_dirs = []
        for probe in (folder, *folder.parents):
            if probe.exists():
                break
            made_dirs.append(probe)
        written: list[Path] = []
        store = cls(folder, read_only=False)
        try:
            try:
                folder.mkdir(parents=True, exist_ok=True)
            except OSError as err:
                raise StoreError(f"cannot make the campaign folder ({err.strerror})", folder) from None
            lock_was_there = (folder / LOCK_FILE).exists()
            store._lock, _ = take_lock(folder)
            if not lock_was_there:
                written.append(folder / LOCK_FILE)
            others = sorted(p.name for p in folder.iterdir() if p.name not in (LOCK_FILE, SOFT_LOCK_FILE))
            if others:
                shown = ", ".join(others[:5]) + (", ..." if len(others) > 5 else "")
                raise StoreError(f"already holds files ({shown}); a new campaign needs an empty or new folder "
                                 f"(open an existing one with open())", folder)
            data = dump_campaign(campaign)
            for name, content in ((CAMPAIGN_FILE, data), (LOG_FILE, LOG_HEADER.encode()),
                                  (".gitignore", _GITIGNORE.encode())):
                written.append(folder / name)
                try:
                    atomic_write(folder / name, content)
                except OSError as err:
                    raise StoreError(f"could not write {name} ({err.strerror}); nothing was made", folder) \
                        from None
            store._end, store._lines = len(LOG_HEADER.encode()), 1
            store.campaign, store.rules = campaign, rules
            store.shape = statecheck.shape_for(rules)
            store._open_log()
        except BaseException as failure:
            store.close()
            for f in reversed(written):
                try:
                    os.unlink(f)
                except OSError:
                    pass
            for d in made_dirs:
                try:
                    os.rmdir(d)
                except OSError:
                    break
            if isinstance(failure, OSError):
                raise os_error(failure, "make the campaign; nothing was made", folder) from None
            raise
        return store

    @classmethod
    def open(cls, path: str | os.PathLike, read_only: bool = False) -> "CampaignStore":
        """Read and check a campaign folder. Writable opens take the lock (LockedError if another holds it), say
        what the last writer noted (a log replaced under it), repair a torn last line (set aside into a side
        file) and remove what a crash left of a rewrite; read-only opens change nothing. Each line of the log is
        read and checked as a line (``store.log``); judging its events by the rules is the one check's
        (``store.playcheck``), which ``Campaign.open`` runs."""
        folder = Path(path)
        store = cls(folder, read_only)
        try:
            if not read_only:
                if not folder.is_dir():
                    raise StoreError("no campaign folder here (create one with `delvebook new`)", folder)
                store._lock, incidents = take_lock(folder)
            else:
                incidents = read_incidents(folder) if folder.is_dir() else []
            store.problems += [f"{folder}: {text}" for text in incidents]
            if not read_only:
                store.problems += clean_temporaries(folder)
            store.problems += recover_held(folder, read_only)
            doc = read_campaign(folder)
            rules, errors = check_campaign_file(doc.data, doc, folder / CAMPAIGN_FILE)
            raise_first(errors)
            store.campaign, store.rules = doc.data, rules
            store.shape = statecheck.shape_for(rules)
            store._load_log()
            if not read_only:
                store._open_log()
        except OSError as err:
            store.close()
            raise os_error(err, "open the campaign" if read_only else "open the campaign for writing",
                           folder) from None
        except BaseException:
            store.close()
            raise
        return store

    def close(self) -> None:
        """Release the lock and the log (noting it if the log was replaced meanwhile); safe to call twice."""
        with self._mutex:
            if self._writing and not self._broken:
                try:
                    what = self._changed()
                    if what is not None:
                        self._displace(what)
                    elif self._held is not None:
                        os.unlink(self._held)
                except OSError:
                    pass
                self._held = None
            self._writing = False
            fd, self._log_fd = self._log_fd, None
            if fd is not None:
                try:
                    os.close(fd)
                except OSError:
                    pass
            lock, self._lock = self._lock, None
            if lock is not None:
                lock.release()

    def __enter__(self) -> "CampaignStore":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:
            pass

    def __repr__(self) -> str:
        mode = "read-only" if self.read_only else ("writable" if self._writing else "closed")
        return f"<CampaignStore {str(self.path)!r}: {len(self.events)} events, {mode}>"

    @property
    def next_seq(self) -> int:
        """The seq the next appended event must carry."""
        return len(self.events) + 1

    # writing
    def append(self, event: dict) -> None:
        """Write one event (its ``seq`` must be ``next_seq``) and fsync it before returning. Refused, with
        nothing written, if the event is not one the reader reads back, or if ``log.yaml`` is no longer the file
        this store wrote (deleted, replaced, truncated or written to by something else)."""
        with self._mutex:
            self._check_writable()
            try:
                line = encode_event(event, self.next_seq, self.shape, self.declared)
            except StoreError as err:
                err.path = self.path / LOG_FILE
                raise
            self._guard()
            self._write(line)
            self.events.append(event)
            self._end += len(line)
            self._lines += 1
            self._line_map.note(event["seq"], self._lines)
            self._mark = (self._mark + line)[-_MARK:]
            what = self._changed(size=False)
            if what is not None:  # replaced while the line was written: it is in the displaced file, not here
                side = self._displace(what)
                self.events.pop()
                raise StoreError(self._broken_reason(what, side, during=True), self.path / LOG_FILE)

    def write_campaign(self, campaign: dict) -> None:
        """Check ``campaign`` by the one schema and replace campaign.yaml with it atomically (a crash leaves the
        old file or the new one; the next writable open removes a temporary file it left)."""
        with self._mutex:
            self._check_writable()
            file = self.path / CAMPAIGN_FILE
            if not isinstance(campaign, dict):
                raise StoreError(f"a campaign is a mapping of fields ({', '.join(CAMPAIGN_KEYS)}), "
                                 f"got {show(campaign)}", file)
            rules, errors = check_campaign_file(campaign, None, file)
            raise_first(errors)
            data = dump_campaign(campaign)
            try:
                atomic_write(file, data)
            except OSError as err:
                raise StoreError(f"could not write campaign.yaml ({err.strerror}); it is as it was", file) \
                    from None
            self.campaign, self.rules = campaign, rules
            self.shape = statecheck.shape_for(rules)

    def line_of(self, seq: int) -> int | None:
        """The line of ``log.yaml`` that holds the event ``seq`` (as it was read, and as this store appended)."""
        return self._line_map.line_of(seq) if seq.__class__ is int and seq >= 1 else None

    @property
    def log_file(self) -> Path:
        return self.path / LOG_FILE

    @property
    def campaign_file(self) -> Path:
        return self.path / CAMPAIGN_FILE

    # reading on
    def follow(self) -> LogTail:
        """A ``LogTail`` that goes on from the events this store holds: each poll returns what a writer (this
        store, or another process when this one is read-only) appended since."""
        return LogTail(self.path / LOG_FILE, offset=self._end, seq=len(self.events), lineno=self._lines,
                       shape=self.shape)

    # internals: the guard
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

    def _write(self, data: bytes) -> None:
        """Append ``data`` and fsync it: to the log held open, or (where a file persists only on close) to the log
        opened for this append and closed after it, so that each event is stored before the call returns."""
        if self._log_fd is not None:
            self._write_to(self._log_fd, data)
            return
        file = self.path / LOG_FILE
        try:
            fd = os.open(file, os.O_WRONLY | os.O_APPEND | getattr(os, "O_CLOEXEC", 0))
        except OSError as err:
            raise StoreError(f"could not open the log to write the event ({err.strerror}); nothing was recorded",
                             file) from None
        try:
            st = os.fstat(fd)
            if (st.st_dev, st.st_ino) != self._identity or st.st_size != self._end:
                what = "replaced" if (st.st_dev, st.st_ino) != self._identity else (
                    "grew" if st.st_size > self._end else "truncated")
                os.close(fd)
                fd = None
                side = self._displace(what)
                raise StoreError(self._broken_reason(what, side), file)
            self._write_to(fd, data)
        finally:
            if fd is not None:
                try:
                    os.close(fd)  # under Pyodide, this is what stores the file
                except OSError as err:
                    self._broken = (f"closing the log after an event failed ({err.strerror}); whether the event "
                                    f"was stored is uncertain: reopen the campaign")
                    raise StoreError(self._broken, file) from err

    def _write_to(self, fd: int, data: bytes) -> None:
        size = self._end
        try:
            write_all(fd, data)
        except OSError as err:
            try:  # take back a partial line, so the next append does not glue onto it
                os.ftruncate(fd, size)
                os.fsync(fd)
            except OSError:
                self._broken = f"a write failed ({err.strerror}) and could not be taken back; reopen the campaign"
            raise StoreError(f"could not write the event ({err.strerror}); nothing was recorded",
                             self.path / LOG_FILE) from err
        try:
            os.fsync(fd)
        except OSError as err:
            self._broken = (f"the disk refused to sync the log ({err.strerror}); what it holds is uncertain: "
                            f"reopen the campaign")
            raise StoreError(self._broken, self.path / LOG_FILE) from err

    # internals: opening
    def _load_log(self) -> None:
        file = self.path / LOG_FILE
        if not os.path.lexists(file):
            if self.read_only:
                self.problems.append(f"{file}: missing; read as an empty log")
            else:
                try:
                    atomic_write(file, LOG_HEADER.encode())
                except OSError as err:
                    raise StoreError(f"missing, and cannot start an empty one ({err.strerror})", file) from None
                self._end, self._lines = len(LOG_HEADER.encode()), 1
                self.problems.append(f"{file}: was missing; started an empty log")
            return
        read = scan(file, shape=self.shape)
        self.events, self.unsealed, self._line_map = read.events, read.unsealed, read.line_map
        self._end, self._lines = read.end, read.lines
        if read.torn_line is not None:
            self.problems.append(set_aside(file, read, self.read_only))
        elif read.add_newline and not self.read_only:
            try:
                with open(file, "ab") as f:
                    f.write(b"\n")
                    f.flush()
                    os.fsync(f.fileno())
            except OSError as err:
                raise StoreError(f"cannot add the newline its last line lacks ({err.strerror}); open read-only "
                                 f"to read it", file) from None
            self._end += 1
            self.problems.append(f"{file}: the last line had no newline at the end; added one")

    def _open_log(self) -> None:
        file = self.path / LOG_FILE
        try:
            if self._per_event:  # only looked at here (under Pyodide a file opened to write is stored again on close)
                fd = os.open(file, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
            else:
                fd = os.open(file, os.O_RDWR | os.O_APPEND | getattr(os, "O_CLOEXEC", 0))
        except OSError as err:
            raise StoreError(f"cannot open the log for writing ({err.strerror}); open read-only to read it",
                             file) from None
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size != self._end:
            os.close(fd)
            raise StoreError("changed while it was being read (another writer?); open it again", file)
        self._identity = (st.st_dev, st.st_ino)
        start = max(0, self._end - _MARK)
        try:
            self._mark = pread(fd, self._end - start, start)
        except OSError:
            os.close(fd)
            raise
        if self._per_event:
            os.close(fd)  # opened again for each append (``_write``): a file here persists only on close
        else:
            self._log_fd = fd
        self._writing = True
        held = self.path / HELD_FILE
        try:
            if os.path.lexists(held):
                os.unlink(held)
            os.link(file, held)
            self._held = held
        except (OSError, AttributeError):  # Pyodide's os has no link at all
            self._held = None  # a file system without hard links: the guard still refuses, from memory


_MARK = 64  # bytes at the end of the log the writer checks are still the ones it wrote
