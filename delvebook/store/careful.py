"""The one careful reader of a file under a campaign that another hand may have put there: the players' requests and
the keeper's answers (``requests/<player>.yaml``, ``<player>.keeper.yaml``), ``keys.json``, ``server.json``,
``screen.json``.

A file is read only if it is a regular file: opened without following a link and without waiting (``O_NOFOLLOW``,
``O_NONBLOCK``: a pipe in its place opens at once and is then seen for what it is, by ``fstat`` on what was
opened), bounded in bytes (``read_small``: the whole of a small file; ``Follower``: the lines appended since the
last poll, at most ``MAX_READ`` bytes and ``MAX_LINES`` lines a poll). Anything else in its place (a folder, a
pipe, a link, a socket, a file past its size) is set aside: said in words, once, as ``Unreadable``, and never
raised, so a follower (the keeper's poll, the players' server's thread) goes on with every other file. Standard
library only.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path
from typing import NamedTuple

from .files import pread

__all__ = ["MAX_READ", "MAX_LINES", "Unreadable", "Polled", "what_is", "open_regular", "read_small", "Follower"]

MAX_READ = 64 * 1024
"""Bytes one poll reads of a followed file: a flood is read over several polls, never at once."""
MAX_LINES = 64
"""Lines one poll takes of a followed file (a page writes one a click, a few a second at most)."""

_FLAGS = (os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
          | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_BINARY", 0))


class Unreadable(NamedTuple):
    """Why a file was set aside: ``file`` (its path) and ``why``, in words ("a folder, not a file")."""

    file: Path
    why: str

    def words(self, folder: Path | None = None) -> str:
        """The file (relative to ``folder``, the campaign's, when it is inside it) and why it was set aside."""
        name = self.file
        if folder is not None:
            try:
                name = self.file.relative_to(folder)
            except ValueError:
                pass
        return f"{name} was set aside: {self.why}"


def what_is(mode: int) -> str:
    """What a file's mode says it is, in words: "a folder", "a pipe"..."""
    for test, words in ((stat.S_ISDIR, "a folder"), (stat.S_ISLNK, "a link"), (stat.S_ISFIFO, "a pipe"),
                        (stat.S_ISSOCK, "a socket"), (stat.S_ISCHR, "a device"), (stat.S_ISBLK, "a device")):
        if test(mode):
            return words
    return "not a regular file"


def open_regular(file: Path) -> tuple[int | None, Unreadable | None]:
    """(a descriptor of ``file`` opened for reading, None) if it is a regular file; (None, None) if nothing is
    there; (None, why) if something else is (a link is never followed, a pipe never waited on)."""
    try:
        fd = os.open(file, _FLAGS)
    except FileNotFoundError:
        return None, None
    except OSError as err:
        try:
            mode = os.lstat(file).st_mode
        except OSError:
            return None, None  # gone between the two looks: nothing there
        if stat.S_ISREG(mode) and err.errno in (errno.EACCES, errno.EPERM):
            return None, Unreadable(file, "it cannot be read (permission denied)")
        return None, Unreadable(file, f"it is {what_is(mode)}, not a file")
    try:
        mode = os.fstat(fd).st_mode
    except OSError as err:
        os.close(fd)
        return None, Unreadable(file, f"it cannot be read ({err.strerror})")
    if not stat.S_ISREG(mode):
        os.close(fd)
        return None, Unreadable(file, f"it is {what_is(mode)}, not a file")
    return fd, None


def read_small(file: str | os.PathLike, most: int) -> tuple[bytes | None, Unreadable | None]:
    """(the whole of ``file``, None) if it is a regular file of at most ``most`` bytes; (None, None) if nothing is
    there; (None, why) otherwise (never raised)."""
    file = Path(file)
    fd, problem = open_regular(file)
    if fd is None:
        return None, problem
    try:
        raw = os.read(fd, most + 1)
    except OSError as err:
        return None, Unreadable(file, f"it cannot be read ({err.strerror})")
    finally:
        os.close(fd)
    if len(raw) > most:
        return None, Unreadable(file, f"it is larger than {most:,} bytes, more than delvebook ever writes there")
    return raw, None


class Polled(NamedTuple):
    """What one poll of a followed file found: its new whole ``lines`` (without their newlines), whether the file
    was started afresh (``fresh``: replaced or cut short, so what was read of it no longer stands), and
    ``news``: why it was set aside, the first time it was (None after that, and while it reads)."""

    lines: list[bytes]
    fresh: bool
    news: Unreadable | None


class Follower:
    """The whole lines appended to one file since the last poll, at most ``MAX_READ`` bytes and ``most_lines``
    lines a poll; a line still being written waits for its newline, one longer than ``MAX_READ`` is skipped and
    said (as a line of its own: ``TOO_LONG``). A file replaced or cut short is read again from its start. What is
    in its place that is not a regular file is set aside (``problem``) and said once; once a file is there again,
    it is read from its start."""

    TOO_LONG = b"\0too long"

    def __init__(self, file: Path, most_lines: int = MAX_LINES) -> None:
        self.file = Path(file)
        self.most_lines = most_lines
        self.offset = 0
        self.identity: tuple | None = None
        self.problem: Unreadable | None = None

    def same_file(self) -> bool:
        """Whether the file in its place is still the one it read last (a look at its place, nothing read)."""
        try:
            st = os.lstat(self.file)
        except OSError:
            return False
        return (st.st_dev, st.st_ino) == self.identity

    def poll(self) -> Polled:
        fd, problem = open_regular(self.file)
        if fd is None:  # (what was read stands until a file is there again: a new one is read from its start)
            news = problem if problem is not None and problem != self.problem else None
            self.problem = problem
            return Polled([], False, news)
        try:
            st = os.fstat(fd)
            identity = (st.st_dev, st.st_ino)
            fresh = self.identity is not None and (identity != self.identity or st.st_size < self.offset)
            if fresh or self.identity is None:
                self.identity, self.offset = identity, 0
            self.problem = None
            data = pread(fd, MAX_READ, self.offset) if st.st_size > self.offset else b""
        except OSError as err:
            problem = Unreadable(self.file, f"it cannot be read ({err.strerror})")
            news = problem if problem != self.problem else None
            self.problem = problem
            return Polled([], False, news)
        finally:
            os.close(fd)
        lines: list[bytes] = []
        at = 0
        while len(lines) < self.most_lines:
            end = data.find(b"\n", at)
            if end < 0:
                break
            if data[at:end].strip():
                lines.append(data[at:end])
            at = end + 1
        if not lines and at == 0 and len(data) >= MAX_READ:  # one line longer than a whole read: skipped
            self.offset += len(data)
            return Polled([self.TOO_LONG], fresh, None)
        self.offset += at
        return Polled(lines, fresh, None)

