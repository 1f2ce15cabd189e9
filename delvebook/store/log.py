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
import math
import os
import re
import stat
from pathlib import Path
from typing import Any, Callable, NamedTuple

from .. import statecheck, yamlsafe
from ..events import EVENT_VERSION
from ..rules.schema import field_name, show
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
MAX_DEPTH = statecheck.MAX_DEPTH
"""Lists and mappings nested this deep in an event are refused (the engine's deepest events nest 8 levels)."""
MAX_REPORTED = 100
"""``validate`` stops listing a log's problems after this many."""

_CHUNK = 256 << 10
_NOT_OPENERS = bytes(b for b in range(256) if b not in b"[{\n")
"""Every byte but ``[``, ``{`` and the newline: what ``scan`` deletes from a chunk to count each line's openers in one
pass (UTF-8 never uses those bytes inside another character)."""

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


class _Refuse(Exception):
    """A line that json reads but that no delvebook writes (NaN, infinity, a duplicate key)."""


def _refuse_constant(name: str):
    raise _Refuse(f"{name} is not a number an event holds (the log's JSON has no NaN or infinity)")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _Refuse(f"{text[:24]} is too large a number (it reads as infinity)")
    return value


def _no_duplicates(pairs: list) -> dict:
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set = set()
        for k, _ in pairs:
            if k in seen:
                raise _Refuse(f"duplicate key {show(k)}: a key may appear once in a mapping (json would keep the "
                              f"last and drop the first)")
            seen.add(k)
    return out


# The reader's decoders: json with the numbers delvebook writes only; ``validate``'s also refuses duplicate keys. The
# reader calls their scanners itself (``_fast``): a line's value starts at its third character, so the line is read
# in place, with no copy of it and none of ``decode``'s whitespace matching unless something follows the value.
_DECODER = json.JSONDecoder(parse_constant=_refuse_constant, parse_float=_finite_float)
_DECODER_STRICT = json.JSONDecoder(parse_constant=_refuse_constant, parse_float=_finite_float,
                                   object_pairs_hook=_no_duplicates)
_decode, _decode_strict = _DECODER.scan_once, _DECODER_STRICT.scan_once
_TRAILING = re.compile(r"[ \t\n\r]*")  # what json.loads allows after the value (json.decoder.WHITESPACE)


def _too_deep(value: Any, but: str | None = None) -> bool:
    """Lists and mappings nested ``MAX_DEPTH`` or more levels inside an event (iterative: any input is safe),
    leaving out its field ``but`` (its changes, when the shape's check of them follows: no place of the state
    nests that deep, and a value that does is refused there)."""
    if but is not None and value.__class__ is dict and but in value:
        value = [v for k, v in value.items() if k != but]
    stack = [(value, 0)]
    while stack:
        v, depth = stack.pop()
        if depth >= MAX_DEPTH:
            return True
        inner = v.values() if v.__class__ is dict else v
        for x in inner:
            if x.__class__ is dict or x.__class__ is list:
                stack.append((x, depth + 1))
    return False


def _limits_problem(event: Any) -> tuple[str | None, str] | None:
    """What an event holds beyond the log's limits, as (field, reason): statecheck.value_problem."""
    found = statecheck.value_problem(event)
    if found is None:
        return None
    path, why = found
    return (field_name(path) or None), why


def dump_event_line(event: dict) -> bytes:
    """One log line: ``- `` + the event as compact JSON + newline, UTF-8 (checked: see ``encode_event``)."""
    _refuse_unwritable(event)
    return _line(event)


def _refuse_unwritable(event: Any) -> None:
    """Raise StoreError (naming the field) unless ``event`` is a mapping within the log's limits."""
    if not isinstance(event, dict):
        raise StoreError(f"an event is a mapping, got {show(event)}")
    found = _limits_problem(event)
    if found is not None:
        raise StoreError(f"cannot be written to the log: {found[1]}", field=found[0])


def _line(event: dict) -> bytes:
    """The line of an event already checked for the log's limits."""
    text = json.dumps(event, ensure_ascii=False, separators=(", ", ": "))
    if _YAML_UNSAFE.search(text):
        text = _YAML_UNSAFE.sub(_escape, text)
    return ("- " + text + "\n").encode("utf-8")


def upgrade_event(event: dict, from_version: int) -> dict:
    """An event written by format ``from_version``, if this delvebook reads that format (1 to
    ``events.EVENT_VERSION``); passed through as it is: an older event is upgraded as it is folded, where the state
    before it is known (``engine.upgrade_event``). An event without ``"v"`` is version 1."""
    if _is_int(from_version) and 1 <= from_version <= EVENT_VERSION:
        return event
    if not _is_int(from_version) or from_version < 1:
        raise StoreError(f"v: expected an event format version (1..{EVENT_VERSION}), got {show(from_version)}")
    raise StoreError(f"this event was written by a newer delvebook (event format {from_version}); this one "
                     f"reads up to format {EVENT_VERSION}: upgrade delvebook to open it")


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
    found = _limits_problem(data[0])
    if found is not None:
        raise _BadLine(found[1], found[0], parsed=True)
    return data[0]


def _describe_yaml(data: Any) -> str:
    if isinstance(data, list):
        return f"a list of {len(data)} items" if len(data) != 1 else f"a list holding {show(data[0])}"
    return show(data)


def _check_event(event: dict, expected_seq: int, shape: statecheck.Shape | None = None) -> dict:
    """Raise _BadLine unless ``event`` has the next seq and a kind (and, with ``shape``, changes that are places
    of the state holding what they may); returns it upgraded to today's format."""
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
    if shape is not None:
        _check_changes(event, shape)
    if "v" in event:
        try:
            return upgrade_event(event, event["v"])
        except StoreError as err:
            raise _BadLine(err.reason, err.field or "v", parsed=True) from None
    return event


def _check_changes(event: dict, shape: statecheck.Shape) -> None:
    """The parts of an event that the state and the views read: its changes (places of the state holding what
    they may) and its roll records (faces its dice can show, adding up to the total)."""
    changes = event.get("changes")
    if changes is not None:
        found = shape.changes_problem(changes)
        if found is not None:
            i, why = found
            raise _BadLine(why, "changes" if i is None else f"changes[{i}]", parsed=True)
    rolls = event.get("rolls")
    if rolls is not None:
        found = statecheck.rolls_problem(rolls)
        if found is not None:
            name, why = found
            raise _BadLine(why, "rolls" if name is None else f"rolls.{name}", parsed=True)


def encode_event(event: Any, seq: int, shape: statecheck.Shape | None = statecheck.DEFAULT) -> bytes:
    """The log line for a new event, checked as every store checks it before it is acknowledged: a mapping whose
    ``seq`` is ``seq``, with a kind, changes that are places of the state (``shape``), holding only JSON data
    within the reader's limits (finite numbers within ``statecheck.MAX_INT``, nesting under ``MAX_DEPTH``,
    UTF-8 text) in a line of at most ``MAX_LOG_LINE`` bytes. Raises StoreError naming the field (the caller
    adds the file)."""
    if not isinstance(event, dict):
        raise StoreError(f"an event is a mapping, got {show(event)}")
    found = _limits_problem(event)
    if found is not None:
        raise StoreError(f"cannot be written to the log: {found[1]}", field=found[0])
    try:
        _check_event(event, seq, shape)
    except _BadLine as bad:
        raise StoreError(bad.reason, None, None, bad.field) from None
    line = _line(event)  # (its limits checked above: not again)
    if len(line) - 1 > MAX_LOG_LINE:
        raise StoreError(f"this event is {len(line) - 1:,} bytes as a log line; a line holds at most "
                         f"{MAX_LOG_LINE:,} bytes (what the reader reads back)")
    return line


def _fast(line: str, decode=_decode, openers: int | None = None, changes_checked: bool = False) -> dict | None:
    """A ``- {json}`` line through json, or None to let the YAML loader try. Raises _BadLine for JSON that no
    delvebook writes (NaN, infinity, nesting too deep). ``decode`` is a decoder's scanner (``_decode``);
    ``openers``, the line's ``[`` and ``{`` if the caller counted them (nesting needs one for each level);
    ``changes_checked``: the caller checks the event's changes against the state's shape (which bounds their
    nesting), so the walk for nesting leaves them out."""
    try:
        event, end = decode(line, 2)
    except _Refuse as err:
        raise _BadLine(str(err), parsed=True) from None
    except RecursionError:
        raise _BadLine(f"nested more than {MAX_DEPTH} levels deep", parsed=True) from None
    except (StopIteration, ValueError):  # not JSON where the value starts (StopIteration), or further on
        return None
    if end != len(line) and _TRAILING.match(line, end).end() != len(line):
        return None  # more after the value than json.loads allows (whitespace): the YAML loader decides
    if event.__class__ is not dict:
        return None
    if openers is None:
        openers = line.count("[") + line.count("{")
    if openers > MAX_DEPTH and _too_deep(event, "changes" if changes_checked else None):
        raise _BadLine(f"nested more than {MAX_DEPTH} levels deep", parsed=True)
    return event


def _event_of(line: str, lineno: int, expected_seq: int, shape: statecheck.Shape | None,
              strict: bool = False) -> dict | None:
    """One line as the next event, checked (None for a blank line or a comment); raises _BadLine."""
    event = None
    if line.startswith("- {"):
        event = _fast(line, _decode_strict if strict else _decode)
        if event is not None and strict:
            found = _limits_problem(event)
            if found is not None:
                raise _BadLine(found[1], found[0], parsed=True)
    if event is None:
        try:
            event = _parse_line_slow(line, lineno)
        except RecursionError:
            raise _BadLine("nested too deeply to read", parsed=True) from None
        if event is None:
            return None
    return _check_event(event, expected_seq, shape)


def parse_event_line(line: str, path, lineno: int) -> dict | None:
    """One log line as an event (not checked against its neighbours); None for a blank or comment line.

    Raises StoreError naming ``path`` and ``lineno`` for anything else."""
    try:
        if line.startswith("- {"):
            event = _fast(line)
            if event is not None:
                return event
        return _parse_line_slow(line, lineno)
    except _BadLine as bad:
        raise StoreError(bad.reason, path, lineno, bad.field) from None
    except RecursionError:
        raise StoreError("nested too deeply to read", path, lineno) from None


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
        self.bom = False  # the file starts with a UTF-8 byte order mark (read past, left in place)


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


_BOM = b"\xef\xbb\xbf"
_HAND_EDITED = ("; this line has its newline, so it is not a write cut short by a crash (a crash leaves the last "
                "line without one): was it edited by hand? Fix or remove it; nothing was set aside")


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


class _FromEach(Exception):
    """What the caller's ``each`` raised, carried past the reader's own handling of a bad line."""

    def __init__(self, error: BaseException):
        super().__init__(error)
        self.error = error


def scan(file: Path, collect: bool = False, *, shape: statecheck.Shape | None = statecheck.DEFAULT,
         strict: bool = False, each: Callable[[dict], Any] | None = None) -> LogRead:
    """Stream ``file`` in chunks: each complete line through json (YAML for a human's line), checked: the next
    seq, a kind, changes that are places of the state (``shape``), numbers delvebook writes, bounded nesting.

    Errors raise StoreError, or with ``collect`` go to ``.errors`` (and reading goes on). ``strict`` (validate)
    also refuses duplicate keys and checks every number and text of every event. A last line cut short by a
    crash (no newline) is not an error: it is noted for the caller to report or set aside. A last line that has
    its newline but does not read is an error like any other: a crash does not write it.

    ``each``, if given, is called with every event read and checked, in order, as it is read (a campaign folds
    it into its state while it is fresh from the parser, with no second pass over the events); what it raises
    ends the read and propagates as itself."""
    out = LogRead(file)
    events = out.events
    if each is None:
        add = events.append
    else:
        append = events.append

        def add(event: dict) -> None:
            append(event)
            try:
                each(event)
            except BaseException as err:  # not to be read as a bad line (a RecursionError is one)
                raise _FromEach(err) from None
    decode = _decode_strict if strict else _decode
    changes_problem = shape.changes_problem if shape is not None else None
    checked = changes_problem is not None  # (so the depth guard may leave an event's changes to the shape)
    rolls_problem = statecheck.rolls_problem
    current = EVENT_VERSION
    seq = 0
    lineno = 0
    offset = 0  # bytes of complete lines consumed
    carry = b""
    resync = False  # collecting errors after an unreadable line: the next seq is taken as it comes
    first = True

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
    with open_log(file) as f:
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
                    text = _decode_lines(body, err, file, lineno, out=out, collect=collect)
                lines = text.split("\n")
                lines.pop()
                # each line's [ and { for the depth guard, counted for the whole chunk at once (its lines are the
                # chunk's lines: the text has the same newlines, a bad byte read as one U+FFFD)
                openers = body.translate(None, _NOT_OPENERS).split(b"\n")
                base = lineno
                for line, opened in zip(lines, openers):
                    lineno += 1
                    event = None
                    try:
                        if line.startswith("- {"):
                            event = _fast(line, decode, len(opened), checked)
                            if event is not None and not strict:
                                # the fast path: the next seq, a kind, no "v" or today's, changes that fit the
                                # state (the writer's own lines)
                                s = event.get("seq")
                                v = event.get("v", 1)  # no "v": version 1
                                ch = event.get("changes")
                                rl = event.get("rolls")
                                if s.__class__ is int and s == seq + 1 and event.get("kind").__class__ is str \
                                        and v.__class__ is int and 0 < v <= current and event["kind"] \
                                        and (changes_problem is None
                                             or ((ch is None or changes_problem(ch) is None)
                                                 and (rl is None or rolls_problem(rl) is None))):
                                    seq = s
                                    add(event)
                                    continue
                        # the slow path: comments, a human's YAML, anything that needs a closer look
                        if event is None:
                            event = _parse_line_slow(line, lineno)
                            if event is None:
                                continue
                        elif strict:
                            found = _limits_problem(event)
                            if found is not None:
                                raise _BadLine(found[1], found[0], parsed=True)
                        event = _check_event(event, seq + 1, shape)
                    except RecursionError:
                        bad = _BadLine("nested too deeply to read", parsed=True)
                    except _BadLine as err:
                        bad = err
                    else:
                        seq = event["seq"]
                        add(event)
                        continue
                    last = lineno - base == len(lines) and not carry and out.torn_line is None and _at_eof(f)
                    if last and not line.strip("\0"):
                        out.torn_line = lineno  # zeros where a line was: a crash of the machine, not a hand
                        out.torn_why = "zero bytes where the line should be"
                        out.keep_bytes = offset + len(body) - len(line.encode("utf-8", "surrogatepass")) - 1
                        break
                    if resync and bad.field == "seq" and isinstance(event, dict) and _is_int(event.get("seq")) \
                            and event["seq"] > seq:
                        seq = event["seq"] - 1  # after an unreadable line, take the seq as it comes
                        try:
                            event = _check_event(event, seq + 1, shape)
                        except _BadLine as again:
                            bad = again
                        else:
                            resync = False
                            seq = event["seq"]
                            add(event)
                            continue
                    fail(bad.reason + (_HAND_EDITED if last and not bad.parsed else ""), lineno, bad.field)
                    resync = event is None or not isinstance(event, dict)
                    if not resync and _is_int(event.get("seq")):
                        seq = event["seq"]  # go on from what the line says, so one bad line is one error
                if out.torn_line is not None:
                    out.end, out.lines = out.keep_bytes, out.torn_line - 1
                    break
                offset += len(body)
                out.end, out.lines = offset, lineno
            if carry and out.torn_line is None:
                _last_line_without_newline(out, carry, file, lineno + 1, offset, seq, shape, fail, add)
        except _StopCollecting:
            out.errors.append(StoreError(f"stopped after {MAX_REPORTED} problems", file))
        except _FromEach as wrapped:
            raise wrapped.error from None
        finally:
            if gc_was_on:
                gc.enable()
    return out


def _decode_lines(body: bytes, err: UnicodeDecodeError, file, lineno: int, *, out: LogRead,
                  collect: bool) -> str:
    """Complete lines whose bytes are not UTF-8: an error naming the line (a crash mid-character leaves the line
    without its newline, and that is read as a torn tail elsewhere)."""
    bad_line = lineno + body.count(b"\n", 0, err.start) + 1
    reason = f"not UTF-8 text (byte {body[err.start]:#04x}); a log is UTF-8"
    if not collect:
        raise StoreError(reason, file, bad_line)
    out.errors.append(StoreError(reason, file, bad_line))
    return body.decode("utf-8", "replace")


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
                               shape, fail, add) -> None:
    """The file ends without a newline: a complete, valid next event is kept (a writer adds the newline); the
    start of a line cut short is a torn tail; anything else is an error (a hand's edit)."""
    try:
        line = carry.decode("utf-8")
    except UnicodeDecodeError:
        line = None
    if line is not None:
        try:
            event = _event_of(line, lineno, seq + 1, shape)
        except (StoreError, _BadLine) as err:
            bad = err
        except RecursionError:
            bad = _BadLine("nested too deeply to read", parsed=True)
        else:
            if event is None and line.strip() and not line.lstrip().startswith("#"):
                bad = _BadLine("unreadable")
            else:
                if event is not None:
                    add(event)
                out.add_newline = True
                out.end, out.lines = offset + len(carry), lineno
                return
        if not _looks_torn(line):
            reason = bad.reason if isinstance(bad, _BadLine) else str(bad)
            fail(f"{reason}; the last line, without a newline at the end: its end is there, so a crash did not "
                 f"cut it (edited by hand?); fix or remove it", lineno, getattr(bad, "field", None))
            return
        out.torn_why = "cut off before its newline" if not isinstance(bad, _BadLine) or not bad.parsed \
            else f"no newline at the end, and {bad.reason}"
    else:
        out.torn_why = "cut off before its newline, in the middle of a character"
    out.torn_line = lineno
    out.keep_bytes = offset


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

    def __init__(self, file: Path, *, offset: int = 0, seq: int = 0, lineno: int = 0,
                 shape: statecheck.Shape | None = statecheck.DEFAULT) -> None:
        self.file = file
        self.offset = offset
        self.seq = seq
        self.lineno = lineno
        self.shape = shape
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
        skip = 3 if self.offset == 0 and data.startswith(_BOM) else 0
        cut = data.rfind(b"\n") + 1
        if cut == 0:
            return Appended([], False)  # a line still being written
        events = []
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
                event = _event_of(line, lineno, seq + 1, self.shape)
            except _BadLine as bad:
                raise StoreError(bad.reason, self.file, lineno, bad.field) from None
            if event is None:
                continue
            seq = event["seq"]
            events.append(event)
        self.offset += cut
        self.lineno, self.seq = lineno, seq
        self._mark = data[:cut][-_TAIL_CHECK:] if cut >= _TAIL_CHECK else self._read_mark()
        return Appended(events, False)


def follow(path: str | os.PathLike, *, after: LogRead | None = None,
           shape: statecheck.Shape | None = statecheck.DEFAULT) -> LogTail:
    """A ``LogTail`` on a campaign's log (folder or log file). Its first poll returns every event in the log,
    unless ``after`` (what ``scan`` read) says where reading stopped; then only what came since. Each event is
    checked as opening checks it (``shape``: the changes)."""
    file = _log_path(path)
    if after is None:
        return LogTail(file, shape=shape)
    return LogTail(file, offset=after.end, seq=after.events[-1]["seq"] if after.events else 0,
                   lineno=after.lines, shape=shape)
