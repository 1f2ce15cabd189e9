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

import hashlib
import os
import stat
import threading
from pathlib import Path
from typing import Any

from ..core import statecheck
from ..core.rules.schema import FORMAT_VERSION, show
from ..core.cache import read_prepared, write_prepared
from ..core.declared import version_of
from ..core.events import History, replay
from ..core.rules.load import rules_digest
from . import snapshot
from .campaign_file import (CAMPAIGN_FILE, CAMPAIGN_KEYS, check_campaign_file, dump_campaign, parse_campaign,
                            raise_first, read_campaign_bytes)
from .errors import StoreError, os_error
from .files import atomic_write, check_new_path, fsync_dir, persists_on_close, pread, write_all
from .guard import LogGuard
from .lock import LOCK_FILE, SOFT_LOCK_FILE, Lock, read_incidents, take_lock
from .lines import encode_event
from .log import LOG_FILE, LOG_HEADER, LineMap, LogTail, open_log, scan
from .repair import HELD_FILE, clean_temporaries, recover_held, set_aside

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


class CampaignStore(LogGuard):
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
        self._events: list[dict] = []  # the events read or appended (after a snapshot's part: those after it)
        self._prefix: snapshot.Prefix | None = None  # the part of the log a snapshot stood for, read when first asked
        self.restored: History | None = None  # what the snapshot brought back, for the campaign to play on
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
        self._digest: Any = None  # SHA-256 of the log's bytes up to ``_end`` (hashlib), for a snapshot
        self._campaign_digest = ""  # SHA-256 of campaign.yaml's bytes as read
        self._snapshots = False  # whether this store keeps snapshots (a folder opened in place, not a zip's copy)
        self._snapshot_at = 0  # the count of events the latest snapshot (found or written) stands for
        self.upgraded = False  # an event of an older format was read: no snapshot (its part would be read unupgraded)

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
            store._digest = hashlib.sha256(LOG_HEADER.encode())
            store._campaign_digest, store._snapshots = hashlib.sha256(data).hexdigest(), True
            store.campaign, store.rules = campaign, rules
            store.shape = statecheck.shape_for(store.rules)
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
    def open(cls, path: str | os.PathLike, read_only: bool = False, *, snapshots: bool = True) -> "CampaignStore":
        """Read and check a campaign folder. Writable opens take the lock (LockedError if another holds it), say
        what the last writer noted (a log replaced under it), repair a torn last line (set aside into a side
        file) and remove what a crash left of a rewrite; read-only opens change nothing. Each line of the log is
        read and checked as a line (``store.log``); judging its events by the rules is the one check's
        (``store.playcheck``), which ``Campaign.open`` runs.

        With ``snapshots``, a snapshot of this folder that matches the log (``store.snapshot``) stands for the part of
        the log it covers: only the lines after it are read now (``restored`` is then what it brought back, the
        earlier events are read when first asked for), and the snapshot is kept up to date (``keep_snapshot``)."""
        folder = Path(path)
        store = cls(folder, read_only)
        store._snapshots = snapshots
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
            store.campaign, store.rules = store._read_campaign()
            store.shape = statecheck.shape_for(store.rules)
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

    def _read_campaign(self) -> tuple[dict, Any]:
        """campaign.yaml's data and the rules it plays by, checked by the one schema (the first problem raised). Its
        data comes from a prepared form (``core.cache``) when these very bytes were read and checked before."""
        file = self.path / CAMPAIGN_FILE
        raw = read_campaign_bytes(self.path)
        self._campaign_digest = digest = hashlib.sha256(raw).hexdigest()
        data = read_prepared("campaign", digest)
        if data.__class__ is dict:
            rules, errors = check_campaign_file(data, None, file)
            if not errors:
                return data, rules
        doc = parse_campaign(raw, file)
        rules, errors = check_campaign_file(doc.data, doc, file)
        raise_first(errors)
        write_prepared("campaign", digest, doc.data)
        return doc.data, rules

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
        return f"<CampaignStore {str(self.path)!r}: {self.count} events, {mode}>"

    @property
    def events(self) -> list[dict]:
        """The log, oldest first (after a snapshot, its part is read from the log's bytes the first time)."""
        if self._prefix is not None:  # a new list: the one the open folds its tail from may be being walked
            self._events = self._prefix.all() + self._events
            self._prefix = None
        return self._events

    @events.setter
    def events(self, events: list[dict]) -> None:
        self._prefix, self._events = None, events

    @property
    def count(self) -> int:
        """How many events the log holds (without reading a snapshot's part)."""
        return len(self._events) + (self._prefix.count if self._prefix is not None else 0)

    @property
    def next_seq(self) -> int:
        """The seq the next appended event must carry."""
        return self.count + 1

    def add_read(self, event: dict) -> None:
        """An event a follower read after the ones this store holds (a read-only campaign catching up); this store
        then keeps no snapshot (it has not read those bytes itself)."""
        self._events.append(event)
        self._digest = None

    def resumed(self) -> tuple[History, list[dict], list[int]] | None:
        """After an open from a snapshot: (the History it brought back, the events read after it, the indexes of
        those read from lines without a holding seal); None after an open that read the whole log."""
        if self.restored is None:
            return None
        base = self.count - len(self._events)
        return self.restored, self._events, [i - base for i in self.unsealed]

    def resumed_folded(self, tail: list[dict]) -> None:
        """The tail ``resumed`` gave has been folded (an event of an older format replaced by today's in it): the
        log holds them so, even if it was read whole meanwhile."""
        if self._events is not tail:
            self._events[len(self._events) - len(tail):] = tail

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
            self._events.append(event)
            if self._digest is not None:
                self._digest.update(line)
            self._end += len(line)
            self._lines += 1
            self._line_map.note(event["seq"], self._lines)
            self._mark = (self._mark + line)[-_MARK:]
            what = self._changed(size=False)
            if what is not None:  # replaced while the line was written: it is in the displaced file, not here
                side = self._displace(what)
                self._events.pop()
                self._digest = None  # no snapshot from a log this store no longer knows
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
        return LogTail(self.path / LOG_FILE, offset=self._end, seq=self.count, lineno=self._lines,
                       shape=self.shape)

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
                self._digest = hashlib.sha256()
            else:
                try:
                    atomic_write(file, LOG_HEADER.encode())
                except OSError as err:
                    raise StoreError(f"missing, and cannot start an empty one ({err.strerror})", file) from None
                self._end, self._lines = len(LOG_HEADER.encode()), 1
                self._digest = hashlib.sha256(LOG_HEADER.encode())
                self.problems.append(f"{file}: was missing; started an empty log")
            return
        f = open_log(file)
        try:
            read = self._after_snapshot(file, f) if self._snapshots else None
            if read is None:
                f.seek(0)
                self._digest = hashlib.sha256() if self._snapshots else None  # what a snapshot would stand for
                read = scan(file, shape=self.shape, f=f, digest=self._digest)
        finally:
            f.close()
        base = self._prefix.count if self._prefix is not None else 0
        self._events, self._line_map = read.events, read.line_map
        self.unsealed = [base + i for i in read.unsealed]
        self._end, self._lines = read.end, read.lines
        self.upgraded = self._snapshots and any(e.get("v", 1) != version_of(e.get("kind")) for e in read.events)
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
            if self._digest is not None:
                self._digest.update(b"\n")
            self.problems.append(f"{file}: the last line had no newline at the end; added one")

    def _after_snapshot(self, file: Path, f: Any):
        """The log (open at ``f``) read after the part a matching snapshot stands for, with ``restored`` and the
        lazy part set; None when there is none (``snapshot.resume``)."""
        resumed = snapshot.resume(self.path, self._campaign_digest, file, f, self.shape, self._replayed)
        if resumed is None:
            return None
        read, self._prefix, self.restored, self._digest = resumed
        self._snapshot_at = self._prefix.count
        return read

    def _replayed(self, n: int) -> History:
        """The log's first ``n`` events folded from the setup campaign.yaml makes (what a snapshot's History asks for
        once, to work out an inverse it did not keep)."""
        from .setup import setup_state
        return replay(setup_state(self.campaign, self.rules), self.events[:n])

    def keep_snapshot(self, history: History, *, at_least: int | None = None) -> bool:
        """Write a snapshot of ``history`` (the campaign's, folded to this store's last event) when ``at_least``
        events were folded since the latest one; returns whether one was written (``store.snapshot``)."""
        count = self.count
        if at_least is None:
            at_least = snapshot.WRITE_AFTER
        if not self._snapshots or self._digest is None or self.upgraded or count - self._snapshot_at < at_least:
            return False
        written = snapshot.write(self.path, self._campaign_digest, rules_digest(), digest=self._digest.copy(),
                                 count=count, end=self._end, lines=self._lines, line_map=self._line_map.saved(),
                                 state=history.state, history=history.saved())
        if written:
            self._snapshot_at = count
        return written

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

