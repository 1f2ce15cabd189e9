"""The event log read as a stream: every line through the one line reader (``store.lines``), checked against its
neighbours, with the line each event came from and whether its seal held.

Reading streams the file in chunks. A crash can leave a torn last line: it is reported for the writer to set
aside, never silently dropped; any other bad line is an error naming its line (``collect`` gathers them all, as
``validate`` does, instead of raising the first). ``follow`` tails a log that a writer is appending to (the
players' view). What a read found of each event (its line, its seal) is what the one check of the log
(``store.playcheck``) needs to judge it: the reader decides nothing by the rules.
"""

from __future__ import annotations

import bisect
import os
import stat
from pathlib import Path
from typing import Any, NamedTuple

from ..core import statecheck
from .errors import StoreError
from .lines import MAX_LOG_LINE, BadLine, check_event, read_line

__all__ = [
    "LOG_FILE",
    "LOG_HEADER",
    "MAX_REPORTED",
    "LineMap",
    "LogRead",
    "scan",
    "open_log",
    "read_log",
    "Appended",
    "LogTail",
    "follow",
]

LOG_FILE = "log.yaml"
LOG_HEADER = ("# delvebook event log: one event per line, oldest first. Append only: "
              "to take something back, record an event (undo).\n")
MAX_REPORTED = 100
"""``validate`` stops listing a log's problems after this many."""

_CHUNK = 256 << 10
_BOM = b"\xef\xbb\xbf"
_HAND_EDITED = ("; this line has its newline, so it is not a write cut short by a crash (a crash leaves the last "
                "line without one): was it edited by hand? Fix or remove it; nothing was set aside")


class LineMap:
    """Which line of the log holds each event, kept as the places where the gap between line and seq changes (a
    comment, a blank line, a header): one entry for a log delvebook wrote, whatever its length."""

    def __init__(self) -> None:
        self._seqs: list[int] = []
        self._lines: list[int] = []
        self.gap: int | None = None  # line - seq of the events noted last

    def note(self, seq: int, line: int) -> None:
        """Event ``seq`` is on ``line`` (events noted in the order of the log)."""
        if line - seq != self.gap:
            self._seqs.append(seq)
            self._lines.append(line)
            self.gap = line - seq

    def line_of(self, seq: int) -> int | None:
        """The line of event ``seq``, or None for a seq before the first noted."""
        i = bisect.bisect_right(self._seqs, seq) - 1
        return None if i < 0 or seq.__class__ is not int else self._lines[i] + seq - self._seqs[i]

    def saved(self) -> list:
        """As plain data (a snapshot keeps it): ``[seqs, lines]``."""
        return [list(self._seqs), list(self._lines)]

    @classmethod
    def restored(cls, saved: list) -> "LineMap":
        """The map ``saved()`` described; ValueError for data that is not one."""
        seqs, lines = saved
        if len(seqs) != len(lines) or any(x.__class__ is not int for x in (*seqs, *lines)) or seqs != sorted(seqs):
            raise ValueError("not a line map")
        out = cls()
        out._seqs, out._lines = list(seqs), list(lines)
        out.gap = lines[-1] - seqs[-1] if seqs else None
        return out


class LogRead:
    """What reading a log found: the events, which of them came from lines without a holding seal (``unsealed``,
    their indexes in ``events``), the line of each (``line_of``), the problems (with ``collect``), and what a writer
    must repair at the end of the file (a torn last line to set aside, a missing last newline)."""

    def __init__(self, file: Path) -> None:
        self.file = file
        self.events: list[dict] = []
        self.unsealed: list[int] = []
        self.line_map = LineMap()
        self.errors: list[StoreError] = []
        self.keep_bytes: int | None = None  # with a torn tail: truncate to this many bytes
        self.torn_line: int | None = None
        self.torn_why = ""
        self.add_newline = False  # the last event is complete but its newline is missing
        self.end = 0  # bytes of complete lines read (where a follower goes on)
        self.lines = 0  # lines read up to ``end``
        self.bom = False  # the file starts with a UTF-8 byte order mark (read past, left in place)

    def add(self, event: dict, sealed: bool, line: int) -> None:
        events = self.events
        events.append(event)
        if not sealed:
            self.unsealed.append(len(events) - 1)
        line_map = self.line_map
        if line - event["seq"] != line_map.gap:
            line_map.note(event["seq"], line)

    def line_of(self, seq: int) -> int | None:
        """The line of the log that holds event ``seq``."""
        return self.line_map.line_of(seq)


class _StopCollecting(Exception):
    pass


def _oversized(file, lineno: int) -> None:
    raise StoreError(f"a line longer than {MAX_LOG_LINE >> 20} MiB: a log line holds one event, which never needs "
                     f"that much (a damaged or foreign file?); not read", file, lineno)


def _at_eof(f) -> bool:
    if f.read(1):
        f.seek(-1, os.SEEK_CUR)
        return False
    return True


def open_log(file: Path):
    """The log opened for reading, refusing what is not a regular file (a FIFO would block, a device never
    ends) and a folder that cannot be read, as StoreError."""
    try:
        fd = os.open(file, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise
    except OSError as err:
        raise StoreError(f"cannot read the event log ({err.strerror})", file) from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise StoreError("is not a regular file (a device, a pipe or a socket?); a log is a text file", file)
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb", buffering=0)
    except BaseException:
        os.close(fd)
        raise


def _next_event(raw: bytes, line: str, lineno: int, seq: int, shape) -> tuple[dict | None, bool]:
    """A line as the event after ``seq`` and whether its seal held ((None, False) for a blank line or a comment);
    raises BadLine."""
    try:
        event, sealed = read_line(raw, line, lineno)
    except RecursionError:
        raise BadLine("nested too deeply to read", parsed=True) from None
    if event is not None:
        check_event(event, seq + 1, shape, careful=not sealed)
    return event, sealed


def scan(file: Path, collect: bool = False, *, shape: statecheck.Shape | None = statecheck.DEFAULT,
         f: Any = None, start: tuple[int, int, int] = (0, 0, 0), line_map: LineMap | None = None,
         digest: Any = None) -> LogRead:
    """Stream ``file`` in chunks, each complete line read by ``lines.read_line`` and checked by ``check_event``: the
    next seq, a kind, a format this delvebook reads, changes that are places of the state (``shape``), roll records
    that are rolls; a line without a holding seal is read with care (``store.lines``).

    Errors raise StoreError, or with ``collect`` go to ``.errors`` (and reading goes on). A last line cut short by
    a crash (no newline) is not an error: it is noted for the caller to report or set aside. A last line that has
    its newline but does not read is an error like any other: a crash does not write it.

    ``f``: the file already open (binary, at ``start``'s offset; ``file`` then only names it); ``start``: (byte
    offset, seq, line) of the first line to read, the end of a part already read (a snapshot's): only what follows
    is read, and noted in that part's ``line_map``. ``digest`` (a hashlib object) is given the bytes read, from
    ``start`` to the end of the last complete line kept (``.end``)."""
    out = LogRead(file)
    offset, seq, lineno = start  # offset: bytes of complete lines consumed
    out.end, out.lines = offset, lineno
    if line_map is not None:
        out.line_map = line_map
    carry = b""
    resync = False  # collecting errors after an unreadable line: the next seq is taken as it comes
    first = offset == 0

    def fail(reason: str, line: int | None, field: str | None = None) -> None:
        err = StoreError(reason, file, line, field)
        if not collect:
            raise err
        out.errors.append(err)
        if len(out.errors) == MAX_REPORTED:
            raise _StopCollecting

    if f is None:
        f = open_log(file)
        if offset:
            f.seek(offset)
    hash_ = digest.update if digest is not None else _no_digest
    with f:
        try:
            while True:
                chunk = f.read(_CHUNK)
                if not chunk:
                    break
                if first:
                    first = False
                    if chunk.startswith(_BOM):  # an editor's byte order mark: read past it
                        chunk = chunk[3:]
                        offset = 3
                        out.bom = True
                        hash_(_BOM)
                if carry:
                    chunk = carry + chunk
                cut = chunk.rfind(b"\n") + 1
                if cut == 0:
                    if len(chunk) > MAX_LOG_LINE:
                        _oversized(file, lineno + 1)
                    carry = chunk
                    continue
                if cut < len(chunk):
                    body, carry = chunk[:cut], chunk[cut:]
                    if len(carry) > MAX_LOG_LINE:
                        _oversized(file, lineno + body.count(b"\n") + 1)
                else:
                    body, carry = chunk, b""
                raws = body.split(b"\n")
                raws.pop()
                if len(body) > MAX_LOG_LINE:
                    for i, raw in enumerate(raws):
                        if len(raw) > MAX_LOG_LINE:
                            _oversized(file, lineno + i + 1)
                base = lineno
                for raw in raws:
                    lineno += 1
                    try:
                        line = raw.decode("utf-8")
                    except UnicodeDecodeError as err:
                        fail(f"not UTF-8 text (byte {raw[err.start]:#04x}); a log is UTF-8", lineno)
                        line = raw.decode("utf-8", "replace")
                    event = sealed = None
                    try:
                        event, sealed = read_line(raw, line, lineno)
                        if event is None:
                            continue  # a blank line or a comment
                        check_event(event, seq + 1, shape, careful=not sealed)
                    except BadLine as err:
                        bad = err
                    except RecursionError:
                        bad = BadLine("nested too deeply to read", parsed=True)
                    else:
                        seq += 1
                        out.add(event, sealed, lineno)
                        continue
                    last = lineno - base == len(raws) and not carry and out.torn_line is None and _at_eof(f)
                    if last and not line.strip("\0"):
                        out.torn_line = lineno  # zeros where a line was: a crash of the machine, not a hand
                        out.torn_why = "zero bytes where the line should be"
                        out.keep_bytes = offset + len(body) - len(raw) - 1
                        hash_(body[:out.keep_bytes - offset])
                        break
                    seq, resync = _after_bad_line(out, event, sealed, lineno, seq, shape, bad, resync,
                                                  _HAND_EDITED if last and not bad.parsed else "", fail)
                if out.torn_line is not None:
                    out.end, out.lines = out.keep_bytes, out.torn_line - 1
                    break
                offset += len(body)
                out.end, out.lines = offset, lineno
                hash_(body)
            if carry and out.torn_line is None:
                _last_line_without_newline(out, carry, file, lineno + 1, offset, seq, shape, fail)
                if out.end == offset + len(carry):
                    hash_(carry)
        except _StopCollecting:
            out.errors.append(StoreError(f"stopped after {MAX_REPORTED} problems", file))
    return out


def _no_digest(data: bytes) -> None:
    pass


def _after_bad_line(out: LogRead, event: dict | None, sealed: bool | None, lineno: int, seq: int, shape,
                    bad: BadLine, resync: bool, more: str, fail) -> tuple[int, bool]:
    """Report a bad line (``fail``, the reason and ``more``) and say where reading goes on: (the seq read so far,
    whether the next seq is taken as it comes). ``event``: what the line read as, if it read. After a line that
    did not read, collecting, a line with a later seq is taken as it comes, so that one bad line is one error."""
    if resync and bad.field == "seq" and event is not None and event.get("seq").__class__ is int \
            and event["seq"] > seq:
        try:
            check_event(event, event["seq"], shape, careful=not sealed)
        except BadLine as again:
            bad = again
        else:
            out.add(event, bool(sealed), lineno)
            return event["seq"], False
    fail(bad.reason + more, lineno, bad.field)
    if event is None:
        return seq, True
    if event.get("seq").__class__ is int:
        return event["seq"], False  # go on from what the line says, so one bad line is one error
    return seq, False


def _looks_torn(line: str) -> bool:
    """Whether a last line without its newline can be the start of a line the writer wrote (``- {"seq": ...}``
    cut short): a prefix of ``- {`` or longer, not yet closed. Zero bytes (a machine's crash) count too."""
    if not line.strip("\0"):
        return True
    stripped = line.rstrip()
    if stripped.endswith("}"):
        return False  # the whole line is there: whatever is wrong with it, a crash did not cut it
    return line.startswith("- {") or "- {".startswith(line)


def _last_line_without_newline(out: LogRead, carry: bytes, file, lineno: int, offset: int, seq: int,
                               shape, fail) -> None:
    """The file ends without a newline: a complete, valid next event is kept (a writer adds the newline); the
    start of a line cut short is a torn tail; anything else is an error (a hand's edit)."""
    try:
        line = carry.decode("utf-8")
    except UnicodeDecodeError:
        line = None
    if line is not None:
        try:
            event, sealed = _next_event(carry, line, lineno, seq, shape)
        except BadLine as err:
            bad = err
        else:
            if event is not None:
                out.add(event, sealed, lineno)
            out.add_newline = True
            out.end, out.lines = offset + len(carry), lineno
            return
        if not _looks_torn(line):
            fail(f"{bad.reason}; the last line, without a newline at the end: its end is there, so a crash did not "
                 f"cut it (edited by hand?); fix or remove it", lineno, bad.field)
            return
        out.torn_why = "cut off before its newline" if not bad.parsed else f"no newline at the end, and {bad.reason}"
    else:
        out.torn_why = "cut off before its newline, in the middle of a character"
    out.torn_line = lineno
    out.keep_bytes = offset


def _log_path(path: str | os.PathLike) -> Path:
    p = Path(path)
    return p / LOG_FILE if p.is_dir() else p


def read_log(path: str | os.PathLike) -> tuple[list[dict], list[str]]:
    """A campaign's events (folder or log file), without locking or changing anything: (events, problems).

    A torn last line is left out and reported in ``problems``; any other bad line raises StoreError. The events are
    read line by line, not judged by the rules: ``Campaign.open`` and ``validate`` do that."""
    file = _log_path(path)
    if not file.is_file():
        raise StoreError("missing: no event log here", file)
    read = scan(file)
    problems = []
    if read.torn_line is not None:
        problems.append(f"{file}:{read.torn_line}: torn last line ({read.torn_why}), probably from a crash "
                        f"mid-write; left out (opening for writing sets it aside)")
    return read.events, problems


# ---------------------------------------------------------------- following a log as it grows


class Appended(NamedTuple):
    """What one poll of a followed log found: the events appended since the last poll, oldest first, and
    ``reload``: the log shrank or was replaced (a torn tail set aside, a file copied over it), so what the caller
    holds may be stale: read the campaign again, then follow anew."""

    events: list[dict]
    reload: bool


_TAIL_CHECK = 64  # bytes before the follower's position that must not change while it follows


class LogTail:
    """Follows a log that a writer appends to, for a reader that never takes the lock (the players' view).

    Each ``poll()`` reads only what was appended since the last one; a last line still being written is left for
    the next poll. After a poll, ``unsealed`` holds the indexes in its events of those read from lines without a
    holding seal, and ``lines`` the line of each event, for the one check to judge them. Use ``follow(folder)`` or
    a store's ``follow()``."""

    def __init__(self, file: Path, *, offset: int = 0, seq: int = 0, lineno: int = 0,
                 shape: statecheck.Shape | None = statecheck.DEFAULT) -> None:
        self.file = file
        self.offset = offset
        self.seq = seq
        self.lineno = lineno
        self.shape = shape
        self.unsealed: tuple = ()
        self.lines: tuple = ()
        self._identity = self._stat_identity()
        self._mark = self._read_mark()

    def _stat_identity(self) -> tuple | None:
        try:
            st = os.stat(self.file)
        except FileNotFoundError:
            return None
        return (st.st_dev, st.st_ino)

    def _read_mark(self) -> bytes:
        if not self.offset:
            return b""
        try:
            with open(self.file, "rb") as f:
                start = max(0, self.offset - _TAIL_CHECK)
                f.seek(start)
                return f.read(self.offset - start)
        except FileNotFoundError:
            return b""

    def poll(self) -> Appended:
        """The complete events appended since the last poll (checked: seqs in order), or ``reload``.

        Raises StoreError naming the line for a complete line that is not the next event."""
        self.unsealed = self.lines = ()
        try:
            st = os.stat(self.file)
        except FileNotFoundError:
            return Appended([], True)
        if (st.st_dev, st.st_ino) != self._identity or st.st_size < self.offset:
            return Appended([], True)
        if st.st_size == self.offset:
            return Appended([], False)
        with open(self.file, "rb") as f:
            if self.offset:
                start = max(0, self.offset - _TAIL_CHECK)
                f.seek(start)
                if f.read(self.offset - start) != self._mark:
                    return Appended([], True)  # rewritten in place
            data = f.read(st.st_size - self.offset)
        skip = 3 if self.offset == 0 and data.startswith(_BOM) else 0
        cut = data.rfind(b"\n") + 1
        if cut == 0:
            return Appended([], False)  # a line still being written
        events: list[dict] = []
        unsealed, lines = [], []
        lineno = self.lineno
        seq = self.seq
        for raw in data[skip:cut].split(b"\n")[:-1]:
            lineno += 1
            if len(raw) > MAX_LOG_LINE:
                _oversized(self.file, lineno)
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as err:
                raise StoreError(f"not UTF-8 text (byte {raw[err.start]:#04x}); a log is UTF-8",
                                 self.file, lineno) from None
            try:
                event, sealed = _next_event(raw, line, lineno, seq, self.shape)
            except BadLine as bad:
                raise StoreError(bad.reason, self.file, lineno, bad.field) from None
            if event is None:
                continue
            if not sealed:
                unsealed.append(len(events))
            lines.append(lineno)
            seq = event["seq"]
            events.append(event)
        self.offset += cut
        self.lineno, self.seq = lineno, seq
        self.unsealed, self.lines = tuple(unsealed), tuple(lines)
        self._mark = data[:cut][-_TAIL_CHECK:] if cut >= _TAIL_CHECK else self._read_mark()
        return Appended(events, False)


def follow(path: str | os.PathLike, *, after: LogRead | None = None,
           shape: statecheck.Shape | None = statecheck.DEFAULT) -> LogTail:
    """A ``LogTail`` on a campaign's log (folder or log file). Its first poll returns every event in the log,
    unless ``after`` (what ``scan`` read) says where reading stopped; then only what came since. Each line is
    checked as opening checks it (``shape``: the changes)."""
    file = _log_path(path)
    if after is None:
        return LogTail(file, shape=shape)
    return LogTail(file, offset=after.end, seq=after.events[-1]["seq"] if after.events else 0,
                   lineno=after.lines, shape=shape)
