"""What opening a campaign folder repairs, and says: a temporary file left by a crashed rewrite is removed, a hold
on the log left by a writer that did not close is let go or kept as ``log.displaced-<time>.yaml``, a torn last
line is set aside into ``log.torn-<time>.yaml``. Each returns the words for the store's ``problems``; a read-only
open changes nothing and only says what a writable one would do.
"""

from __future__ import annotations

import datetime as _dt
import os
import re
import stat
from pathlib import Path

from .errors import StoreError
from .files import fsync_dir, write_all
from .log import LOG_FILE, LogRead, scan

__all__ = ["HELD_FILE", "utc_stamp", "free_name", "clean_temporaries", "recover_held", "set_aside"]

HELD_FILE = ".delvebook.held-log"
"""While a campaign is open for writing, a second name (a hard link) for the very log file it appends to: if
``log.yaml`` is deleted or replaced under the writer (``git checkout -- log.yaml``), the events it had written
are still on disk there, even if the writer is killed before it notices; the next writable open moves them into
``log.displaced-<UTC time>.yaml`` and says so."""
_TEMPORARY = re.compile(r"^\.(campaign\.yaml|log\.yaml|\.gitignore|gitignore)\.\d+\.tmp$")


def utc_stamp() -> str:
    return _dt.datetime.now(_dt.timezone.utc).strftime("%Y%m%dT%H%M%S.%fZ")


def free_name(folder: Path, what: str, stamp: str) -> Path:
    """A side file's name in ``folder`` that nothing holds yet: ``log.<what>-<stamp>[-n].yaml``."""
    for n in range(1000):
        side = folder / (f"log.{what}-{stamp}.yaml" if n == 0 else f"log.{what}-{stamp}-{n}.yaml")
        if not os.path.lexists(side):
            return side
    raise StoreError("cannot name a side file for the log", folder)  # pragma: no cover


def clean_temporaries(folder: Path) -> list[str]:
    """Remove what a crash left of a rewrite (``.campaign.yaml.<pid>.tmp``): the caller holds the writer's lock,
    so no rewrite is under way."""
    try:
        names = os.listdir(folder)
    except OSError:
        return []
    notes = []
    for name in names:
        if _TEMPORARY.match(name):
            try:
                os.unlink(folder / name)
            except OSError:
                continue
            notes.append(f"{folder / name}: a temporary file left by a crash during a rewrite; removed (the file "
                         f"it was for is whole: the old one or the new)")
    return notes


def recover_held(folder: Path, read_only: bool) -> list[str]:
    """A hold on the log left by a writer that did not close: the same file as log.yaml (it was killed, the log is
    as it left it) is let go; another file is what it wrote before log.yaml was replaced, moved into
    ``log.displaced-<time>.yaml`` (read-only opens only say so)."""
    held = folder / HELD_FILE
    try:
        hs = os.stat(held, follow_symlinks=False)
    except OSError:
        return []
    if not stat.S_ISREG(hs.st_mode):
        return []
    try:
        ls = os.stat(folder / LOG_FILE)
        same = (ls.st_dev, ls.st_ino) == (hs.st_dev, hs.st_ino)
    except FileNotFoundError:
        same = False
    if same:
        if not read_only:
            os.unlink(held)
        return []
    try:
        kept = scan(held, collect=True, shape=None).events
        count = f"{len(kept)} events, to seq {kept[-1]['seq']}" if kept else "no events"
    except (StoreError, OSError):
        count = "events"
    if read_only:
        return [f"{folder / LOG_FILE}: was deleted or replaced while a writer that did not close had it open; what "
                f"it wrote ({count}) is held in {HELD_FILE} (open for writing to keep it in a side file)"]
    side = free_name(folder, "displaced", utc_stamp())
    os.rename(held, side)
    fsync_dir(folder)
    return [f"{folder / LOG_FILE}: was deleted or replaced while a writer had it open, and that writer ended "
            f"without closing; what it had written ({count}) is kept in {side.name} (to go on from it, move it over "
            f"log.yaml)"]


def set_aside(file: Path, read: LogRead, read_only: bool) -> str:
    """A torn last line (``read.torn_line``) moved into ``log.torn-<time>.yaml`` and the log cut back to the lines
    before it (a read-only open leaves it in place); what was done, in words."""
    what = f"{file}:{read.torn_line}: torn last line ({read.torn_why}), probably from a crash mid-write"
    last = f"the log ends at seq {len(read.events)}"
    if read_only:
        return f"{what}; {last} (left in place: open for writing to set it aside)"
    try:
        with open(file, "rb") as f:
            f.seek(read.keep_bytes)
            tail = f.read()
        side = _torn_file(file.parent, tail, read)
        with open(file, "r+b") as f:
            f.truncate(read.keep_bytes)
            f.flush()
            os.fsync(f.fileno())
    except OSError as err:
        raise StoreError(f"cannot set its torn last line aside ({err.strerror}); open read-only to read it",
                         file, read.torn_line) from None
    return f"{what}; set aside {len(tail):,} bytes into {side.name}; {last}"


def _torn_file(folder: Path, tail: bytes, read: LogRead) -> Path:
    stamp = utc_stamp()
    for n in range(1000):
        side = folder / (f"log.torn-{stamp}.yaml" if n == 0 else f"log.torn-{stamp}-{n}.yaml")
        try:
            fd = os.open(side, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        except FileExistsError:
            continue
        break
    else:  # pragma: no cover
        raise StoreError("cannot name a side file for the torn line", folder)
    try:
        header = (f"# set aside by delvebook at {stamp}: the torn end of {LOG_FILE} from line {read.torn_line} "
                  f"({read.torn_why}); {LOG_FILE} kept everything before it\n").encode()
        write_all(fd, header + tail)
        os.fsync(fd)
    finally:
        os.close(fd)
    fsync_dir(folder)
    return side
