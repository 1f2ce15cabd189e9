"""A campaign folder on disk: the writer's lock, atomic I/O, and the folder store itself.

A campaign folder holds:

- ``campaign.yaml``: the setup (name, seats, delvers' starting sheets, bestiary, house rules...), plain block
  YAML a keeper edits by hand; delvebook writes it whole (temporary file, fsync, atomic rename, folder fsync).
- ``log.yaml``: every event of play, one per line (see ``store.log``). Lines are only ever appended, each with one
  ``os.write`` and an ``fsync`` before the call returns. A torn last line left by a crash is set aside into
  ``log.torn-<UTC time>.yaml`` by the next writable open, and reported.
- ``.delvebook.lock``: held (``flock``) by the one process that may write; read-only opens never need it.
"""

from __future__ import annotations

import datetime as _dt
import errno
import fcntl
import os
from pathlib import Path

from ..rules.schema import FORMAT_VERSION, show
from .campaign_file import CAMPAIGN_FILE, CAMPAIGN_KEYS, campaign_errors, dump_campaign, raise_first, read_campaign
from .errors import LockedError, StoreError
from .log import LOG_FILE, LOG_HEADER, LogRead, LogTail, encode_event, scan

__all__ = [
    "LOCK_FILE",
    "CampaignStore",
    "validate",
    "atomic_write",
    "fsync_dir",
    "write_all",
]

LOCK_FILE = ".delvebook.lock"
_GITIGNORE = f"# the writer's lock of a campaign open in delvebook\n{LOCK_FILE}\n"


# ---------------------------------------------------------------- atomic I/O


def fsync_dir(folder: Path) -> None:
    """Make a rename or a new file in ``folder`` durable (where the platform allows it)."""
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def write_all(fd: int, data: bytes) -> None:
    """Write all of ``data`` (``os.write`` may write less than asked)."""
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        view = view[n:]


def atomic_write(file: Path, data: bytes) -> None:
    """Replace ``file`` whole: a temporary file beside it, flushed and fsync'ed, renamed over it, the folder
    fsync'ed. A crash leaves the old file or the new one, never a mix; a failure removes the temporary file."""
    tmp = file.with_name(f".{file.name}.{os.getpid()}.tmp")
    try:
        mode = os.stat(file).st_mode & 0o777
    except FileNotFoundError:
        mode = 0o644
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    try:
        try:
            write_all(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, file)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    fsync_dir(file.parent)


def _take_lock(folder: Path) -> int:
    """The writer's lock of ``folder`` (a descriptor holding ``flock``; closing it releases the lock)."""
    file = folder / LOCK_FILE
    try:
        fd = os.open(file, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as err:
        raise StoreError(f"cannot take the writer's lock ({err.strerror}); open read-only to read it",
                         folder) from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as err:
        try:
            holder = os.pread(fd, 64, 0).decode("ascii", "replace").strip()
        finally:
            os.close(fd)
        if err.errno not in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
            raise StoreError(f"cannot take the writer's lock ({err.strerror})", folder) from None
        who = f"another process (pid {holder})" if holder.isdigit() else "another process"
        if holder == str(os.getpid()):
            who = f"this process (pid {holder}: another store of it is still open)"
        raise LockedError(f"{folder} is open for writing in {who}; close it there, or open read-only",
                          folder) from None
    os.ftruncate(fd, 0)
    os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
    return fd


def _utc_stamp() -> str:
    return _dt.datetime.now(_dt.timezone.utc).strftime("%Y%m%dT%H%M%S.%fZ")


# ---------------------------------------------------------------- the folder store


class CampaignStore:
    """One campaign folder, open for reading or for writing (then holding the folder's lock).

    ``campaign`` is the parsed campaign.yaml, ``events`` the log oldest first, ``problems`` what opening found
    and repaired or left for the keeper (a torn last line set aside, and where). ``MemoryStore`` has the same
    interface without a folder."""

    def __init__(self, path: Path, read_only: bool) -> None:
        self.path = path
        self.read_only = read_only
        self.campaign: dict = {}
        self.events: list[dict] = []
        self.problems: list[str] = []
        self._lock_fd: int | None = None
        self._log_fd: int | None = None
        self._broken: str | None = None
        self._end = 0  # bytes of the log this store has read or written (where a follower goes on)
        self._lines = 0  # lines of the log up to there

    # opening and closing
    @classmethod
    def create(cls, path: str | os.PathLike, campaign: dict) -> "CampaignStore":
        """A new campaign folder (refused if ``path`` holds anything): campaign.yaml, an empty log, a .gitignore
        for the lock; returned open for writing."""
        folder = Path(path)
        if not isinstance(campaign, dict):
            raise StoreError(f"a campaign is a mapping of fields ({', '.join(CAMPAIGN_KEYS)}), "
                             f"got {show(campaign)}", folder / CAMPAIGN_FILE)
        if "format" not in campaign:
            campaign = {"format": FORMAT_VERSION, **campaign}
        raise_first(campaign_errors(campaign, None, folder / CAMPAIGN_FILE))
        if folder.exists() and not folder.is_dir():
            raise StoreError("exists and is not a folder; choose another path for the new campaign", folder)
        folder.mkdir(parents=True, exist_ok=True)
        store = cls(folder, read_only=False)
        store._lock_fd = _take_lock(folder)
        try:
            others = sorted(p.name for p in folder.iterdir() if p.name != LOCK_FILE)
            if others:
                shown = ", ".join(others[:5]) + (", ..." if len(others) > 5 else "")
                raise StoreError(f"already holds files ({shown}); a new campaign needs an empty or new folder "
                                 f"(open an existing one with open())", folder)
            atomic_write(folder / CAMPAIGN_FILE, dump_campaign(campaign))
            atomic_write(folder / LOG_FILE, LOG_HEADER.encode())
            atomic_write(folder / ".gitignore", _GITIGNORE.encode())
            store._end, store._lines = len(LOG_HEADER.encode()), 1
            store.campaign = campaign
            store._open_log()
        except BaseException:
            store.close()
            raise
        return store

    @classmethod
    def open(cls, path: str | os.PathLike, read_only: bool = False) -> "CampaignStore":
        """Read and check a campaign folder. Writable opens take the lock (LockedError if another holds it) and
        repair a torn last line (set aside into a side file); read-only opens change nothing."""
        folder = Path(path)
        store = cls(folder, read_only)
        if not read_only:
            if not folder.is_dir():
                raise StoreError("no campaign folder here (create one with `delvebook new`)", folder)
            store._lock_fd = _take_lock(folder)
        try:
            doc = read_campaign(folder)
            raise_first(campaign_errors(doc.data, doc, folder / CAMPAIGN_FILE))
            store.campaign = doc.data
            store._load_log()
            if not read_only:
                store._open_log()
        except BaseException:
            store.close()
            raise
        return store

    def close(self) -> None:
        """Release the lock and the log; safe to call twice."""
        for name in ("_log_fd", "_lock_fd"):
            fd = getattr(self, name)
            if fd is not None:
                setattr(self, name, None)
                try:
                    os.close(fd)  # closing the descriptor releases the flock
                except OSError:
                    pass

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
        mode = "read-only" if self.read_only else ("closed" if self._log_fd is None else "writable")
        return f"<CampaignStore {str(self.path)!r}: {len(self.events)} events, {mode}>"

    @property
    def next_seq(self) -> int:
        """The seq the next appended event must carry."""
        return len(self.events) + 1

    # writing
    def append(self, event: dict) -> None:
        """Write one event (its ``seq`` must be ``next_seq``) and fsync it before returning."""
        self._check_writable()
        try:
            line = encode_event(event, self.next_seq)
        except StoreError as err:
            err.path = self.path / LOG_FILE
            raise
        self._write(line)
        self.events.append(event)
        self._end += len(line)
        self._lines += 1

    # reading on
    def follow(self) -> LogTail:
        """A ``LogTail`` that goes on from the events this store holds: each poll returns what a writer (this
        store, or another process when this one is read-only) appended since."""
        return LogTail(self.path / LOG_FILE, offset=self._end, seq=len(self.events), lineno=self._lines)

    # internals
    def _check_writable(self) -> None:
        if self.read_only:
            raise StoreError("opened read-only; open it without read_only=True to record play", self.path)
        if self._log_fd is None:
            raise StoreError("closed; open it again to record play", self.path)
        if self._broken:
            raise StoreError(self._broken, self.path / LOG_FILE)

    def _write(self, data: bytes) -> None:
        fd = self._log_fd
        size = os.fstat(fd).st_size
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

    def _load_log(self) -> None:
        file = self.path / LOG_FILE
        if not file.exists():
            if self.read_only:
                self.problems.append(f"{file}: missing; read as an empty log")
            else:
                atomic_write(file, LOG_HEADER.encode())
                self._end, self._lines = len(LOG_HEADER.encode()), 1
                self.problems.append(f"{file}: was missing; started an empty log")
            return
        read = scan(file)
        self.events = read.events
        self._end, self._lines = read.end, read.lines
        if read.torn_line is not None:
            self.problems.append(self._set_aside(file, read))
        elif read.add_newline and not self.read_only:
            with open(file, "ab") as f:
                f.write(b"\n")
                f.flush()
                os.fsync(f.fileno())
            self._end += 1
            self.problems.append(f"{file}: the last line had no newline at the end; added one")

    def _set_aside(self, file: Path, read: LogRead) -> str:
        what = f"{file}:{read.torn_line}: torn last line ({read.torn_why}), probably from a crash mid-write"
        last = f"the log ends at seq {len(read.events)}"
        if self.read_only:
            return f"{what}; {last} (left in place: open for writing to set it aside)"
        with open(file, "rb") as f:
            f.seek(read.keep_bytes)
            tail = f.read()
        side = self._side_file(tail, read)
        with open(file, "r+b") as f:
            f.truncate(read.keep_bytes)
            f.flush()
            os.fsync(f.fileno())
        return f"{what}; set aside {len(tail):,} bytes into {side.name}; {last}"

    def _side_file(self, tail: bytes, read: LogRead) -> Path:
        stamp = _utc_stamp()
        for n in range(1000):
            side = self.path / (f"log.torn-{stamp}.yaml" if n == 0 else f"log.torn-{stamp}-{n}.yaml")
            try:
                fd = os.open(side, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
            except FileExistsError:
                continue
            break
        else:  # pragma: no cover
            raise StoreError("cannot name a side file for the torn line", self.path)
        try:
            header = (f"# set aside by delvebook at {stamp}: the torn end of {LOG_FILE} from line {read.torn_line} "
                      f"({read.torn_why}); {LOG_FILE} kept everything before it\n").encode()
            write_all(fd, header + tail)
            os.fsync(fd)
        finally:
            os.close(fd)
        fsync_dir(self.path)
        return side

    def _open_log(self) -> None:
        self._log_fd = os.open(self.path / LOG_FILE, os.O_WRONLY | os.O_APPEND)


# ---------------------------------------------------------------- checking a folder without opening it


def validate(path: str | os.PathLike) -> list[StoreError]:
    """Every problem in a campaign folder: each one in campaign.yaml, each bad line of the log (up to 100).

    The campaign file is checked by the same schema as ``CampaignStore.open`` (and so ``Campaign.open``): an empty
    list means it opens."""
    folder = Path(path)
    errors: list[StoreError] = []
    try:
        doc = read_campaign(folder)
    except StoreError as err:
        errors.append(err)
    else:
        errors.extend(campaign_errors(doc.data, doc, folder / CAMPAIGN_FILE))
    file = folder / LOG_FILE
    if not file.exists():
        if folder.is_dir():
            errors.append(StoreError("missing: the event log (opening for writing starts an empty one)", file))
        return errors
    try:
        read = scan(file, collect=True)
    except StoreError as err:
        errors.append(err)
        return errors
    errors.extend(read.errors)
    if read.torn_line is not None:
        errors.append(StoreError(f"torn last line ({read.torn_why}), probably from a crash mid-write; opening "
                                 f"the campaign for writing sets it aside into a side file", file, read.torn_line))
    return errors
