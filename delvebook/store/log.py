"""The event log: one event per line, ``- {json}``, read fast with ``json`` and by the safe YAML loader otherwise.

Each line is a JSON object, which is also a YAML flow mapping, so ``log.yaml`` is a valid YAML sequence that reads
about 45 times faster with ``json`` (the YAML loader is the fallback for a line a human rewrote). Reading streams
the file in chunks and checks every event (the next seq, a kind, a format it knows). A crash can leave a torn
last line: it is reported for the writer to set aside, never silently dropped; any other bad line is an error
naming its line. ``follow`` tails a log that a writer is appending to (the players' view).
"""

from __future__ import annotations

import gc
import json
import os
import re
from pathlib import Path
from typing import Any, NamedTuple

from .. import yamlsafe
from ..rules.schema import FORMAT_VERSION, field_name, show
from .errors import StoreError

__all__ = [
    "LOG_FILE",
    "LOG_HEADER",
    "MAX_LOG_LINE",
    "MAX_REPORTED",
    "dump_event_line",
    "encode_event",
    "parse_event_line",
    "upgrade_event",
    "LogRead",
    "scan",
    "read_log",
    "Appended",
    "LogTail",
    "follow",
]

LOG_FILE = "log.yaml"
LOG_HEADER = ("# delvebook event log: one event per line, oldest first. Append only: "
              "to take something back, record an event (undo).\n")

MAX_LOG_LINE = 1 << 20
"""A log line longer than this (1 MiB) is refused: one event never needs it."""
MAX_REPORTED = 100
"""``validate`` stops listing a log's problems after this many."""

_CHUNK = 256 << 10

# Characters json.dumps(ensure_ascii=False) leaves raw that YAML 1.1 reads as line breaks (NEL, LS, PS) or
# refuses as non-printable (DEL, C1 controls, BOM, U+FFFE/FFFF, lone surrogates): escaped, so the log stays
# one event per line and valid YAML with the same data.
_YAML_UNSAFE = re.compile("[\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff\ud800-\udfff]")


def _escape(m: re.Match) -> str:
    return "\\u%04x" % ord(m.group())


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_text(v: Any) -> bool:
    return isinstance(v, str) and bool(v.strip())


# ---------------------------------------------------------------- one line


def _check_jsonable(value: Any, parts: tuple) -> None:
    """Refuse what json would change or reject on the way to disk, naming where it is."""
    if value is None or isinstance(value, (str, bool, int)):
        return
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            raise StoreError(f"{value} cannot be written to the log (JSON has no NaN or infinity)",
                             field=field_name(parts) or None)
        return
    if isinstance(value, dict):
        for k, v in value.items():
            if not isinstance(k, str):
                raise StoreError(f"key {k!r} is not text: the log is JSON, whose keys are text "
                                 f"(it would come back as {json.dumps(str(k))})", field=field_name(parts) or None)
            _check_jsonable(v, parts + (k,))
        return
    if isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            _check_jsonable(v, parts + (i,))
        return
    raise StoreError(f"{type(value).__name__} {value!r:.60} cannot be written to the log: events hold text, "
                     f"numbers, true/false, null, lists and mappings", field=field_name(parts) or None)


def dump_event_line(event: dict) -> bytes:
    """One log line: ``- `` + the event as compact JSON + newline, UTF-8."""
    if not isinstance(event, dict):
        raise StoreError(f"an event is a mapping, got {show(event)}")
    _check_jsonable(event, ())
    text = json.dumps(event, ensure_ascii=False, separators=(", ", ": "))
    if _YAML_UNSAFE.search(text):
        text = _YAML_UNSAFE.sub(_escape, text)
    return ("- " + text + "\n").encode("utf-8", "surrogatepass")


def upgrade_event(event: dict, from_version: int) -> dict:
    """An event written by format ``from_version`` in today's shape. Version 1 is today's: passed through.

    An event without ``"v"`` is version 1 (all logs so far). When the format changes, this grows one step per
    version (1 -> 2, 2 -> 3, ...), and new events carry ``"v"``."""
    if _is_int(from_version) and from_version == FORMAT_VERSION:
        return event
    if not _is_int(from_version) or from_version < 1:
        raise StoreError(f"v: expected an event format version (1..{FORMAT_VERSION}), got {show(from_version)}")
    raise StoreError(f"this event was written by a newer delvebook (event format {from_version}); this one "
                     f"reads up to format {FORMAT_VERSION}: upgrade delvebook to open it")


class _BadLine(Exception):
    def __init__(self, reason: str, field: str | None = None, parsed: bool = False):
        """``parsed``: the line was read (so it is wrong, not torn by a crash)."""
        super().__init__(reason)
        self.reason, self.field, self.parsed = reason, field, parsed


def _parse_line_slow(line: str, lineno: int) -> dict | None:
    """A line the fast path did not take: blank, a comment, or a line a human wrote in other YAML."""
    stripped = line.strip()
    if not stripped or stripped.startswith("#"):
        return None  # an old `# batch: N events` line is a comment like any other
    try:
        data = yamlsafe.load(line, line_offset=lineno - 1, max_chars=MAX_LOG_LINE)
    except yamlsafe.YamlError as err:
        # only a line that is not YAML at all may be a crash's torn write; a refused one is an error
        raise _BadLine(err.reason, parsed=not err.syntax) from None
    if not (isinstance(data, list) and len(data) == 1 and isinstance(data[0], dict)):
        raise _BadLine("expected one event per line: `- {\"seq\": N, \"kind\": \"...\", ...}` "
                       f"(a list item holding a mapping), got {_describe_yaml(data)}",
                       parsed=stripped not in ("-", "- {"))
    return data[0]


def _describe_yaml(data: Any) -> str:
    if isinstance(data, list):
        return f"a list of {len(data)} items" if len(data) != 1 else f"a list holding {show(data[0])}"
    return show(data)


def _check_event(event: dict, expected_seq: int) -> dict:
    """Raise _BadLine unless ``event`` has the next seq and a kind; returns it upgraded to today's format."""
    seq = event.get("seq")
    if not _is_int(seq):
        raise _BadLine(f"expected a whole number (the event's place in the log: {expected_seq}), got {show(seq)}"
                       if "seq" in event else f"missing: every event has a seq ({expected_seq} here)",
                       "seq", parsed=True)
    if seq != expected_seq:
        before = "one more than the event before" if expected_seq > 1 else "the first event is 1"
        raise _BadLine(f"expected {expected_seq} ({before}), got {seq}", "seq", parsed=True)
    kind = event.get("kind")
    if not _is_text(kind):
        raise _BadLine(f"expected the event's kind (text, e.g. \"roll\"), got {show(kind)}"
                       if "kind" in event else "missing: every event has a kind (text, e.g. \"roll\")",
                       "kind", parsed=True)
    if "v" in event:
        try:
            return upgrade_event(event, event["v"])
        except StoreError as err:
            raise _BadLine(err.reason, err.field or "v", parsed=True) from None
    return event


def encode_event(event: Any, seq: int) -> bytes:
    """The log line for a new event, checked as every store checks it: a mapping whose ``seq`` is ``seq``, with a
    kind, holding only what JSON keeps. Raises StoreError naming the field (the caller adds the file)."""
    if not isinstance(event, dict):
        raise StoreError(f"an event is a mapping, got {show(event)}")
    try:
        _check_event(event, seq)
    except _BadLine as bad:
        raise StoreError(bad.reason, None, None, bad.field) from None
    return dump_event_line(event)


def parse_event_line(line: str, path, lineno: int) -> dict | None:
    """One log line as an event (not checked against its neighbours); None for a blank or comment line.

    Raises StoreError naming ``path`` and ``lineno`` for anything else."""
    if line.startswith("- {"):
        try:
            return json.loads(line[2:])
        except ValueError:
            pass
    try:
        return _parse_line_slow(line, lineno)
    except _BadLine as bad:
        raise StoreError(bad.reason, path, lineno, bad.field) from None


# ---------------------------------------------------------------- a whole log


class LogRead:
    """What reading a log found: the events, the problems (with ``collect``), and what a writer must repair at
    the end of the file (a torn last line to set aside, a missing last newline)."""

    def __init__(self, file: Path) -> None:
        self.file = file
        self.events: list[dict] = []
        self.errors: list[StoreError] = []
        self.keep_bytes: int | None = None  # with a torn tail: truncate to this many bytes
        self.torn_line: int | None = None
        self.torn_why = ""
        self.add_newline = False  # the last event is complete but its newline is missing
        self.end = 0  # bytes of complete lines read (where a follower goes on)
        self.lines = 0  # lines read up to ``end``


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


def scan(file: Path, collect: bool = False) -> LogRead:
    """Stream ``file`` in chunks: each complete line through json.loads (YAML for a human's line), checked.

    Errors raise StoreError, or with ``collect`` go to ``.errors`` (and reading goes on). A last line that is
    torn is not an error: it is noted for the caller to report or set aside."""
    out = LogRead(file)
    events = out.events
    add = events.append
    loads = json.loads
    current = FORMAT_VERSION
    seq = 0
    lineno = 0
    offset = 0  # bytes of complete lines consumed
    carry = b""
    resync = False  # collecting errors after an unreadable line: the next seq is taken as it comes

    def fail(reason: str, line: int | None, field: str | None = None) -> None:
        err = StoreError(reason, file, line, field)
        if not collect:
            raise err
        out.errors.append(err)
        if len(out.errors) == MAX_REPORTED:
            raise _StopCollecting

    # The events are acyclic JSON data: pausing the cycle collector while tens of thousands of dicts are made
    # saves 10-20% (it would scan them again and again and find nothing).
    gc_was_on = gc.isenabled()
    gc.disable()
    with open(file, "rb", buffering=0) as f:
        try:
            while True:
                chunk = f.read(_CHUNK)
                if not chunk:
                    break
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
                if len(body) > MAX_LOG_LINE:
                    for i, raw in enumerate(body.split(b"\n")):
                        if len(raw) > MAX_LOG_LINE:
                            _oversized(file, lineno + i + 1)
                try:
                    text = body.decode("utf-8")
                except UnicodeDecodeError as err:
                    text = _decode_lines(body, err, file, lineno, at_end=not carry and _at_eof(f), out=out,
                                         offset=offset, collect=collect)
                lines = text.split("\n")
                lines.pop()
                base = lineno
                for line in lines:
                    lineno += 1
                    event = None
                    if line.startswith("- {"):
                        try:
                            event = loads(line[2:])
                        except ValueError:
                            pass
                        else:
                            # the fast path: the next seq, a kind, and no "v" or today's (the writer's own lines)
                            s = event.get("seq")
                            v = event.get("v", 1)  # no "v": version 1
                            if s.__class__ is int and s == seq + 1 and event.get("kind").__class__ is str \
                                    and v.__class__ is int and v == current and event["kind"]:
                                seq = s
                                add(event)
                                continue
                    # the slow path: comments, a human's YAML, anything that needs a closer look
                    try:
                        if event is None:
                            event = _parse_line_slow(line, lineno)
                            if event is None:
                                continue
                        event = _check_event(event, seq + 1)
                    except _BadLine as bad:
                        last = (lineno - base == len(lines) and not carry and out.torn_line is None
                                and _at_eof(f))
                        if last and not bad.parsed:
                            out.torn_line = lineno
                            out.torn_why = bad.reason
                            out.keep_bytes = offset + len(body) - len(line.encode("utf-8", "surrogatepass")) - 1
                            break
                        if resync and bad.field == "seq" and _is_int(event.get("seq")) and event["seq"] > seq:
                            seq = event["seq"] - 1  # after an unreadable line, take the seq as it comes
                            try:
                                event = _check_event(event, seq + 1)
                            except _BadLine as again:
                                bad = again
                            else:
                                resync = False
                                seq = event["seq"]
                                add(event)
                                continue
                        fail(bad.reason, lineno, bad.field)
                        resync = event is None or not isinstance(event, dict)
                        if not resync and _is_int(event.get("seq")):
                            seq = event["seq"]  # go on from what the line says, so one bad line is one error
                        continue
                    seq = event["seq"]
                    add(event)
                if out.torn_line is not None:
                    out.end, out.lines = out.keep_bytes, out.torn_line - 1
                    break
                offset += len(body)
                out.end, out.lines = offset, lineno
            if carry and out.torn_line is None:
                _last_line_without_newline(out, carry, file, lineno + 1, offset, seq)
        except _StopCollecting:
            out.errors.append(StoreError(f"stopped after {MAX_REPORTED} problems", file))
        finally:
            if gc_was_on:
                gc.enable()
    return out


def _decode_lines(body: bytes, err: UnicodeDecodeError, file, lineno: int, *, at_end: bool, out: LogRead,
                  offset: int, collect: bool) -> str:
    """Bytes that are not UTF-8: a torn last line (a crash mid-character) or an error naming the line.

    Returns the text to read on with (for a torn last line, the complete lines before it)."""
    bad_line = lineno + body.count(b"\n", 0, err.start) + 1
    start = body.rfind(b"\n", 0, err.start) + 1
    if at_end and body.find(b"\n", err.start) == len(body) - 1:
        out.torn_line = bad_line
        out.torn_why = "not UTF-8 text"
        out.keep_bytes = offset + start
        return body[:start].decode("utf-8")
    reason = f"not UTF-8 text (byte {body[err.start]:#04x}); a log is UTF-8"
    if not collect:
        raise StoreError(reason, file, bad_line)
    out.errors.append(StoreError(reason, file, bad_line))
    return body.decode("utf-8", "replace")


def _last_line_without_newline(out: LogRead, carry: bytes, file, lineno: int, offset: int, seq: int) -> None:
    """The file ends without a newline: a complete, valid next event is kept (a writer adds the newline);
    anything else is a torn tail."""
    try:
        line = carry.decode("utf-8")
        event = parse_event_line(line, file, lineno)
        if event is None:
            if not line.strip() or line.lstrip().startswith("#"):
                out.add_newline = True
                out.end, out.lines = offset + len(carry), lineno
                return
            raise _BadLine("unreadable")
        event = _check_event(event, seq + 1)
    except (StoreError, _BadLine, UnicodeDecodeError) as err:
        out.torn_line = lineno
        out.torn_why = "cut off before its newline" if not isinstance(err, _BadLine) or not err.parsed \
            else f"no newline at the end, and {err.reason}"
        out.keep_bytes = offset
        return
    out.events.append(event)
    out.add_newline = True
    out.end, out.lines = offset + len(carry), lineno


def _log_path(path: str | os.PathLike) -> Path:
    p = Path(path)
    return p / LOG_FILE if p.is_dir() else p


def read_log(path: str | os.PathLike) -> tuple[list[dict], list[str]]:
    """A campaign's events (folder or log file), without locking or changing anything: (events, problems).

    A torn last line is left out and reported in ``problems``; any other bad line raises StoreError."""
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
    the next poll. Use ``follow(folder)`` or a store's ``follow()``."""

    def __init__(self, file: Path, *, offset: int = 0, seq: int = 0, lineno: int = 0) -> None:
        self.file = file
        self.offset = offset
        self.seq = seq
        self.lineno = lineno
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
        cut = data.rfind(b"\n") + 1
        if cut == 0:
            return Appended([], False)  # a line still being written
        events = []
        lineno = self.lineno
        seq = self.seq
        for raw in data[:cut].split(b"\n")[:-1]:
            lineno += 1
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as err:
                raise StoreError(f"not UTF-8 text (byte {raw[err.start]:#04x}); a log is UTF-8",
                                 self.file, lineno) from None
            event = parse_event_line(line, self.file, lineno)
            if event is None:
                continue
            try:
                event = _check_event(event, seq + 1)
            except _BadLine as bad:
                raise StoreError(bad.reason, self.file, lineno, bad.field) from None
            seq = event["seq"]
            events.append(event)
        self.offset += cut
        self.lineno, self.seq = lineno, seq
        self._mark = data[:cut][-_TAIL_CHECK:] if cut >= _TAIL_CHECK else self._read_mark()
        return Appended(events, False)


def follow(path: str | os.PathLike, *, after: LogRead | None = None) -> LogTail:
    """A ``LogTail`` on a campaign's log (folder or log file). Its first poll returns every event in the log,
    unless ``after`` (what ``scan`` read) says where reading stopped; then only what came since."""
    file = _log_path(path)
    if after is None:
        return LogTail(file)
    return LogTail(file, offset=after.end, seq=after.events[-1]["seq"] if after.events else 0,
                   lineno=after.lines)
