"""The writer's lock of a campaign folder: one process at a time may write.

``flock`` on ``.delvebook.lock`` where the platform has it; where it does not (Windows has no ``fcntl``, Pyodide's
has no ``flock``), ``.delvebook.soft-lock``, made with ``O_EXCL`` and holding the writer's pid, host and a token
of its process, taken over when its process is known to be gone. A writer notes in ``.delvebook.lock`` what went
wrong under it (``incidents``), for the next open to say.
"""

from __future__ import annotations

import errno
import os
import platform
import secrets
import stat
import sys
from pathlib import Path

from .errors import LockedError, StoreError
from .files import atomic_write, pread, write_all

__all__ = ["LOCK_FILE", "SOFT_LOCK_FILE", "Lock", "take_lock", "read_incidents"]

LOCK_FILE = ".delvebook.lock"
SOFT_LOCK_FILE = ".delvebook.soft-lock"
"""The writer's lock where ``flock`` does not exist: made with ``O_EXCL``, removed by ``close``."""
_INCIDENT = "incident: "


def _flock():
    """``fcntl.flock`` where the platform has it (Linux, macOS, the BSDs), else None: Windows has no ``fcntl``,
    Pyodide's ``fcntl`` has no ``flock``. Looked up at each lock, so a test can hide ``fcntl``."""
    try:
        import fcntl
    except ImportError:
        return None
    flock = getattr(fcntl, "flock", None)
    if flock is None or not hasattr(fcntl, "LOCK_EX"):
        return None
    return lambda fd: flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)



_TOKEN = secrets.token_hex(8)
"""This process's mark in a soft lock: a lock with this process's pid and another token was left by another
process (a restarted Pyodide kernel has the same pid; so may a recycled one)."""
_HOST = platform.node() or "?"


class Lock:
    """The writer's lock of a folder: ``flock`` on ``.delvebook.lock`` where the platform has it, else the soft
    lock file. ``note`` writes an incident into ``.delvebook.lock`` for the next open to say; ``release`` lets go."""

    def __init__(self, folder: Path, fd: int | None, soft: Path | None):
        self.folder, self.fd, self.soft = folder, fd, soft

    def note(self, line: str) -> None:
        data = (_INCIDENT + line.replace("\n", " ") + "\n").encode()
        try:
            if self.fd is not None:
                end = os.fstat(self.fd).st_size
                os.pwrite(self.fd, data, end)  # flock is POSIX, and so is pwrite
                os.fsync(self.fd)
            else:
                fd = os.open(self.folder / LOCK_FILE, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
                try:
                    write_all(fd, data)
                    os.fsync(fd)
                finally:
                    os.close(fd)
        except OSError:
            pass

    def release(self) -> None:
        fd, soft, self.fd, self.soft = self.fd, self.soft, None, None
        if fd is not None:
            try:
                os.close(fd)  # closing the descriptor releases the flock
            except OSError:
                pass
        if soft is not None and (_soft_holder(soft) or ("", "", ""))[2] == _TOKEN:  # still ours: not taken over
            try:
                os.unlink(soft)
            except OSError:
                pass


def _locked(folder: Path, holder: str, hint: str = "") -> LockedError:
    who = f"another process (pid {holder})" if holder.isdigit() else "another process"
    if holder == str(os.getpid()):
        who = f"this process (pid {holder}: another store of it is still open)"
    return LockedError(f"{folder} is open for writing in {who}; close it there, or open read-only{hint}", folder)


def take_lock(folder: Path) -> tuple[Lock, list[str]]:
    """The writer's lock of ``folder``, and the incidents the last writer noted in the lock file for the next one
    to report (the lock file then holds only this writer's pid). With ``flock``: a descriptor holding it (closing
    it releases the lock). Without: the soft lock file (``_take_soft_lock``)."""
    flock = _flock()
    if flock is None:
        return _take_soft_lock(folder)
    file = folder / LOCK_FILE
    try:
        fd = os.open(file, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o644)
    except OSError as err:
        raise StoreError(f"cannot take the writer's lock ({err.strerror}); open read-only to read it",
                         folder) from None
    try:
        flock(fd)
    except OSError as err:
        try:
            holder = pread(fd, 64, 0).decode("ascii", "replace").split("\n")[0].strip()
        finally:
            os.close(fd)
        if err.errno not in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
            raise StoreError(f"cannot take the writer's lock ({err.strerror})", folder) from None
        raise _locked(folder, holder) from None
    try:
        incidents = _incidents(pread(fd, 1 << 16, 0))
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
    except OSError as err:
        os.close(fd)
        raise StoreError(f"cannot take the writer's lock ({err.strerror})", folder) from None
    return Lock(folder, fd, None), incidents


def _take_soft_lock(folder: Path) -> tuple[Lock, list[str]]:
    """The soft lock: ``.delvebook.soft-lock`` made with ``O_EXCL`` (one writer wins where both try), holding
    ``pid host token``. One left by a process known to be gone is taken over, and the incidents say so; one held
    by a live process, or one whose process cannot be checked (another host, Windows), refuses the open with the
    holder's pid, as ``flock`` does. Two processes taking over the same stale lock at the same instant could both
    win: the log's guard (its length and last bytes checked before every append) then refuses the second one's
    first event, with nothing written."""
    soft = folder / SOFT_LOCK_FILE
    taken_over: list[str] = []
    for _ in range(3):
        try:
            fd = os.open(soft, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o644)
        except FileExistsError:
            holder = _soft_holder(soft)
            gone = _holder_gone(holder)
            if gone is None:
                pid = holder[0] if holder else ""
                hint = (f" (if no delvebook runs as pid {pid} on {holder[1]}, delete {SOFT_LOCK_FILE} in the "
                        f"campaign folder)" if holder and pid != str(os.getpid()) else "")
                raise _locked(folder, pid, hint) from None
            try:
                os.unlink(soft)
            except FileNotFoundError:
                pass
            except OSError as err:
                raise StoreError(f"cannot take over the writer's lock left by {gone} ({err.strerror})",
                                 folder) from None
            taken_over.append(f"the writer's lock was left by {gone}, which ended without closing the campaign; "
                              f"taken over")
            continue
        except OSError as err:
            raise StoreError(f"cannot take the writer's lock ({err.strerror}); open read-only to read it",
                             folder) from None
        try:
            write_all(fd, f"{os.getpid()} {_HOST} {_TOKEN}\n".encode())
            os.fsync(fd)
        except OSError as err:
            os.close(fd)
            os.unlink(soft)
            raise StoreError(f"cannot take the writer's lock ({err.strerror})", folder) from None
        os.close(fd)  # under Pyodide the file reaches storage on close
        break
    else:
        raise StoreError("cannot take the writer's lock (it keeps coming back); open read-only to read it", folder)
    lock = Lock(folder, None, soft)
    try:
        incidents = read_incidents(folder)
        atomic_write(folder / LOCK_FILE, f"{os.getpid()}\n".encode())
    except OSError as err:
        lock.release()
        raise StoreError(f"cannot take the writer's lock ({err.strerror})", folder) from None
    return lock, incidents + taken_over


def _soft_holder(soft: Path) -> tuple[str, str, str] | None:
    """(pid, host, token) from a soft lock, or None when it cannot be read or is not one (half written?)."""
    try:
        with open(soft, "rb") as f:
            parts = f.read(256).decode("ascii", "replace").split()
    except OSError:
        return None
    if len(parts) != 3 or not parts[0].isdigit():
        return None
    return parts[0], parts[1], parts[2]


def _holder_gone(holder: tuple[str, str, str] | None) -> str | None:
    """Who left a soft lock, when its process is known to be gone; None while it may still run."""
    if holder is None:
        return None  # being written this instant, or not ours to judge
    pid, host, token = holder
    if host != _HOST:
        return None
    if token == _TOKEN:
        return None  # another store of this very process holds it
    if pid == str(os.getpid()):
        return f"an earlier process with this pid ({pid}; a restarted kernel)"
    if os.name == "posix" and sys.platform != "emscripten":
        try:
            os.kill(int(pid), 0)
        except ProcessLookupError:
            return f"pid {pid}, no longer running"
        except (OSError, OverflowError, ValueError):
            return None
    return None


def _incidents(data: bytes) -> list[str]:
    text = data.decode("utf-8", "replace")
    return [line[len(_INCIDENT):] for line in text.split("\n") if line.startswith(_INCIDENT)]


def read_incidents(folder: Path) -> list[str]:
    """What a writer noted in the lock file for the next open to report (read without taking the lock)."""
    try:
        fd = os.open(folder / LOCK_FILE, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return []
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return []
        return _incidents(pread(fd, 1 << 16, 0))
    except OSError:
        return []
    finally:
        os.close(fd)
