"""A campaign on disk: ``campaign.yaml``, an append-only event log, a writer's lock, and file:line errors.

A campaign folder holds:

- ``campaign.yaml``: the setup (name, seats, delvers' starting sheets, bestiary, house rules...), plain block
  YAML a keeper edits by hand; delvebook rewrites it whole (temporary file, fsync, atomic rename).
- ``log.yaml``: every event of play, oldest first, one per line: ``- {"seq": 1, "kind": "roll", ...}``. Each line
  is a JSON object, which is also a YAML flow mapping, so the file is a valid YAML sequence that reads fast with
  ``json`` (the YAML loader is the fallback for a line a human rewrote). Lines are only ever appended, each with
  one ``os.write`` and an ``fsync`` before the call returns. A crash can leave a torn last line: opening sets it
  aside into ``log.torn-<UTC time>.yaml`` and reports it, keeping every complete line before it.
- ``.delvebook.lock``: held (``flock``) by the one process that may write; read-only opens never need it.

YAML is read with safe loaders only (libyaml's when present); Python object tags, duplicate keys, alias bombs and
oversized files are refused with a ``StoreError`` that names the file, the line and the field.
"""

from __future__ import annotations

import datetime as _dt
import errno
import fcntl
import gc
import json
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Iterable

import yaml

__all__ = [
    "StoreError",
    "LockedError",
    "CampaignStore",
    "read_log",
    "validate",
    "dump_event_line",
    "parse_event_line",
    "upgrade_event",
    "FORMAT_VERSION",
    "CAMPAIGN_FILE",
    "LOG_FILE",
    "LOCK_FILE",
    "CAMPAIGN_KEYS",
    "MAX_LOG_LINE",
    "MAX_CAMPAIGN_BYTES",
]

FORMAT_VERSION = 1
"""The campaign and event format this delvebook writes; older ones are upgraded on read."""

CAMPAIGN_FILE = "campaign.yaml"
LOG_FILE = "log.yaml"
LOCK_FILE = ".delvebook.lock"

CAMPAIGN_KEYS = ("format", "name", "seed", "seats", "players", "delvers", "bestiary", "encounters", "rooms",
                 "quests", "house_rules", "notes")
"""The top-level fields of ``campaign.yaml``, in the order delvebook writes them; any other key is an error."""

MAX_LOG_LINE = 1 << 20
"""A log line longer than this (1 MiB) is refused: one event never needs it."""
MAX_CAMPAIGN_BYTES = 10 << 20
"""A ``campaign.yaml`` larger than this (10 MiB) is refused before it is read."""

_MAX_ALIAS_EXPANSION = 100_000
"""Aliases may repeat at most this many nodes in total (a shared stat block is fine; a billion laughs is not)."""
_MAX_DEPTH = 200
_MAX_REPORTED = 100
_CHUNK = 256 << 10

LOG_HEADER = ("# delvebook event log: one event per line, oldest first. Append only: "
              "to take something back, record an event (undo).\n")
CAMPAIGN_HEADER = "# A delvebook campaign. Edit by hand if you like; `delvebook validate` checks it.\n"
_GITIGNORE = f"# the writer's lock of a campaign open in delvebook\n{LOCK_FILE}\n"
_BATCH = "# batch: "
"""A comment line ``# batch: N events`` before the lines of one ``append_many``: a crash mid-batch sets the whole
batch aside, so an action's events are kept all together or not at all."""


# ---------------------------------------------------------------- errors


class StoreError(ValueError):
    """A campaign folder that cannot be read or written as asked.

    ``path`` is the file (or folder), ``line`` the 1-based line or None, ``field`` the field path
    (``delvers[1].class``) or None, ``reason`` what was wrong and what was expected.
    """

    def __init__(self, reason: str, path: str | os.PathLike | None = None, line: int | None = None,
                 field: str | None = None):
        self.reason = reason
        self.path = Path(path) if path is not None else None
        self.line = line
        self.field = field
        super().__init__(str(self))

    def __str__(self) -> str:
        where = ""
        if self.path is not None:
            where = str(self.path) + (f":{self.line}" if self.line else "") + ": "
        if self.field:
            where += f"{self.field}: "
        return where + self.reason

    def __reduce__(self):
        return (type(self), (self.reason, self.path, self.line, self.field))


class LockedError(StoreError):
    """The campaign is open for writing in another process (or another store in this one)."""

    def __str__(self) -> str:
        return self.reason


# ---------------------------------------------------------------- safe YAML

_YAML_BASE = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_PYTHON_TAG = "tag:yaml.org,2002:python/"
_MERGE_TAG = "tag:yaml.org,2002:merge"


class _SafeLoader(_YAML_BASE):  # type: ignore[misc, valid-type]
    """The safe loader (libyaml's parser when present) that also refuses duplicate keys."""

    def construct_mapping(self, node, deep=False):
        if isinstance(node, yaml.MappingNode):
            seen: dict = {}
            for key_node, _ in node.value:
                if key_node.tag == _MERGE_TAG:
                    continue
                key = self.construct_object(key_node, deep=True)
                line = key_node.start_mark.line + 1
                try:
                    first = seen.get(key)
                except TypeError:
                    continue  # unhashable: the base constructor says so
                if first is not None:
                    raise yaml.constructor.ConstructorError(
                        None, None, f"duplicate key {_show(key)} (first on line {first}): a key may appear "
                        f"once in a mapping", key_node.start_mark)
                seen[key] = line
        return super().construct_mapping(node, deep=deep)


def _tag_name(tag: str) -> str:
    return "!!" + tag[len("tag:yaml.org,2002:"):] if tag.startswith("tag:yaml.org,2002:") else tag


def _check_tree(root, file, known_tags) -> None:
    """Refuse, before anything is constructed: Python tags and unknown tags, nesting deeper than _MAX_DEPTH,
    recursive aliases, and aliases that expand to more than _MAX_ALIAS_EXPANSION extra nodes.

    Iterative, linear in the distinct nodes (an alias is the same node object reached twice)."""
    size: dict[int, int] = {}
    on_path: set[int] = set()
    stack = [(root, 0, False)]
    while stack:
        node, depth, done = stack.pop()
        nid = id(node)
        if done:
            on_path.discard(nid)
            if isinstance(node, yaml.MappingNode):
                total = 1 + sum(size[id(k)] + size[id(v)] for k, v in node.value)
            elif isinstance(node, yaml.SequenceNode):
                total = 1 + sum(size[id(v)] for v in node.value)
            else:
                total = 1
            size[nid] = total
            continue
        if nid in size:
            continue
        if nid in on_path:
            raise StoreError("a recursive alias (an anchor used inside itself); write the data out instead",
                             file, node.start_mark.line + 1)
        tag = node.tag
        if tag.startswith(_PYTHON_TAG):
            raise StoreError(f"a Python object tag ({_tag_name(tag)}) is refused: campaign files hold plain "
                             f"data only, and loading them never runs code", file, node.start_mark.line + 1)
        if tag not in known_tags:
            raise StoreError(f"unknown YAML tag {_tag_name(tag)}: only plain data (text, numbers, true/false, "
                             f"lists, mappings, dates) is read", file, node.start_mark.line + 1)
        if depth > _MAX_DEPTH:
            raise StoreError(f"data nested more than {_MAX_DEPTH} levels deep", file, node.start_mark.line + 1)
        on_path.add(nid)
        stack.append((node, depth, True))
        if isinstance(node, yaml.MappingNode):
            for k, v in node.value:
                stack.append((k, depth + 1, False))
                stack.append((v, depth + 1, False))
        elif isinstance(node, yaml.SequenceNode):
            for v in node.value:
                stack.append((v, depth + 1, False))
    if size[id(root)] - len(size) > _MAX_ALIAS_EXPANSION:
        raise StoreError(f"aliases (*name) expand this document to {size[id(root)]:,} nodes from {len(size):,} "
                         f"written (an alias bomb?); at most {_MAX_ALIAS_EXPANSION:,} repeated nodes are allowed",
                         file, None)


_KNOWN_TAGS = frozenset(t for t in _SafeLoader.yaml_constructors if t is not None) | {_MERGE_TAG}


def _yaml_error(err: yaml.YAMLError, file, line_offset: int = 0) -> StoreError:
    mark = getattr(err, "problem_mark", None) or getattr(err, "context_mark", None)
    line = mark.line + 1 + line_offset if mark is not None else None
    problem = getattr(err, "problem", None) or str(err)
    context = getattr(err, "context", None)
    text = f"{problem} ({context})" if context else problem
    if isinstance(err, yaml.constructor.ConstructorError) and "duplicate key" not in text:
        text = f"cannot read this value: {text}"
    elif not isinstance(err, yaml.constructor.ConstructorError):
        text = f"not valid YAML: {text}"
        out = StoreError(text, file, line)
        out.syntax = True  # could be a line cut short by a crash
        return out
    return StoreError(text, file, line)


def _compose_and_load(text: str, file, line_offset: int = 0):
    """Parse once: compose the node tree (kept for field -> line lookups), check it, construct the data."""
    loader = _SafeLoader(text)
    try:
        try:
            node = loader.get_single_node()
            if node is None:
                return None, None
            _check_tree(node, file, _KNOWN_TAGS)
            return loader.construct_document(node), node
        except StoreError as err:
            if line_offset and err.line:
                err.line += line_offset
            raise
        except yaml.YAMLError as err:
            raise _yaml_error(err, file, line_offset) from None
        except RecursionError:
            raise StoreError("data nested too deeply to read", file) from None
    finally:
        loader.dispose()


def _node_line(root, parts: tuple) -> int | None:
    """The line of the deepest node along ``parts`` (the key's line for a mapping entry)."""
    if root is None:
        return None
    node, line = root, root.start_mark.line + 1
    for part in parts:
        if isinstance(node, yaml.MappingNode):
            for k, v in node.value:
                if isinstance(k, yaml.ScalarNode) and k.value == str(part):
                    node, line = v, k.start_mark.line + 1
                    break
            else:
                return line
        elif isinstance(node, yaml.SequenceNode) and str(part).isdigit() and int(part) < len(node.value):
            node = node.value[int(part)]
            line = node.start_mark.line + 1
        else:
            return line
    return line


# ---------------------------------------------------------------- small helpers


def _show(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "nothing (null)"
    if isinstance(value, str):
        return repr(value) if len(value) <= 60 else repr(value[:57] + "...")
    if isinstance(value, Mapping):
        return "a mapping"
    if isinstance(value, (list, tuple)):
        return "a list"
    if isinstance(value, (_dt.date, _dt.datetime)):
        return f"a date ({value})"
    return repr(value)


def _field(parts: Iterable) -> str:
    out = ""
    for p in parts:
        out += f"[{p}]" if isinstance(p, int) else (f".{p}" if out else str(p))
    return out


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_text(v: Any) -> bool:
    return isinstance(v, str) and bool(v.strip())


def _fsync_dir(folder: Path) -> None:
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


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        view = view[n:]


def _utc_stamp() -> str:
    return _dt.datetime.now(_dt.timezone.utc).strftime("%Y%m%dT%H%M%S.%fZ")


# ---------------------------------------------------------------- events and log lines

# Characters json.dumps(ensure_ascii=False) leaves raw that YAML 1.1 reads as line breaks (NEL, LS, PS) or
# refuses as non-printable (DEL, C1 controls, BOM, U+FFFE/FFFF, lone surrogates): escaped, so the log stays
# one event per line and valid YAML with the same data.
_YAML_UNSAFE = re.compile("[\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff\ud800-\udfff]")


def _escape(m: re.Match) -> str:
    return "\\u%04x" % ord(m.group())


def _check_jsonable(value: Any, parts: tuple) -> None:
    """Refuse what json would change or reject on the way to disk, naming where it is."""
    if value is None or isinstance(value, (str, bool, int)):
        return
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            raise StoreError(f"{value} cannot be written to the log (JSON has no NaN or infinity)",
                             field=_field(parts) or None)
        return
    if isinstance(value, dict):
        for k, v in value.items():
            if not isinstance(k, str):
                raise StoreError(f"key {k!r} is not text: the log is JSON, whose keys are text "
                                 f"(it would come back as {json.dumps(str(k))})", field=_field(parts) or None)
            _check_jsonable(v, parts + (k,))
        return
    if isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            _check_jsonable(v, parts + (i,))
        return
    raise StoreError(f"{type(value).__name__} {value!r:.60} cannot be written to the log: events hold text, "
                     f"numbers, true/false, null, lists and mappings", field=_field(parts) or None)


def dump_event_line(event: dict) -> bytes:
    """One log line: ``- `` + the event as compact JSON + newline, UTF-8."""
    if not isinstance(event, dict):
        raise StoreError(f"an event is a mapping, got {_show(event)}")
    _check_jsonable(event, ())
    text = json.dumps(event, ensure_ascii=False, separators=(", ", ": "))
    if _YAML_UNSAFE.search(text):
        text = _YAML_UNSAFE.sub(_escape, text)
    return ("- " + text + "\n").encode("utf-8", "surrogatepass")


def upgrade_event(event: dict, from_version: int) -> dict:
    """An event written by format ``from_version`` in today's shape. Version 1 is today's: passed through.

    An event without ``"v"`` is version 1 (all logs so far). When the format changes, this grows one step per
    version (1 -> 2, 2 -> 3, ...), and new events carry ``"v"``."""
    if from_version == FORMAT_VERSION:
        return event
    if not _is_int(from_version) or from_version < 1:
        raise StoreError(f"v: expected an event format version (1..{FORMAT_VERSION}), got {_show(from_version)}")
    raise StoreError(f"this event was written by a newer delvebook (event format {from_version}); this one "
                     f"reads up to format {FORMAT_VERSION}: upgrade delvebook to open it")


class _BadLine(Exception):
    def __init__(self, reason: str, field: str | None = None, parsed: bool = False):
        """``parsed``: the line was read (so it is wrong, not torn by a crash)."""
        super().__init__(reason)
        self.reason, self.field, self.parsed = reason, field, parsed


def _parse_line_slow(line: str, file, lineno: int) -> dict | None:
    """A line the fast path did not take: blank, a comment, or a line a human wrote in other YAML."""
    stripped = line.strip()
    if not stripped or stripped.startswith("#"):
        return None
    try:
        data, _ = _compose_and_load(line, file, lineno - 1)
    except StoreError as err:
        # only a line that is not YAML at all may be a crash's torn write; a refused one is an error
        raise _BadLine(err.reason, parsed=not getattr(err, "syntax", False)) from None
    if not (isinstance(data, list) and len(data) == 1 and isinstance(data[0], dict)):
        raise _BadLine("expected one event per line: `- {\"seq\": N, \"kind\": \"...\", ...}` "
                       f"(a list item holding a mapping), got {_describe_yaml(data)}",
                       parsed=stripped not in ("-", "- {"))
    return data[0]


def _describe_yaml(data: Any) -> str:
    if isinstance(data, list):
        return f"a list of {len(data)} items" if len(data) != 1 else f"a list holding {_show(data[0])}"
    return _show(data)


def _check_event(event: dict, expected_seq: int) -> dict:
    """Raise _BadLine unless ``event`` has the next seq and a kind; returns it upgraded to today's format."""
    seq = event.get("seq")
    if not _is_int(seq):
        raise _BadLine(f"expected a whole number (the event's place in the log: {expected_seq}), got {_show(seq)}"
                       if "seq" in event else f"missing: every event has a seq ({expected_seq} here)",
                       "seq", parsed=True)
    if seq != expected_seq:
        before = "one more than the event before" if expected_seq > 1 else "the first event is 1"
        raise _BadLine(f"expected {expected_seq} ({before}), got {seq}", "seq", parsed=True)
    kind = event.get("kind")
    if not _is_text(kind):
        raise _BadLine(f"expected the event's kind (text, e.g. \"roll\"), got {_show(kind)}"
                       if "kind" in event else "missing: every event has a kind (text, e.g. \"roll\")",
                       "kind", parsed=True)
    if "v" in event:
        try:
            return upgrade_event(event, event["v"])
        except StoreError as err:
            raise _BadLine(err.reason, err.field or "v", parsed=True) from None
    return event


def parse_event_line(line: str, path, lineno: int) -> dict | None:
    """One log line as an event (not checked against its neighbours); None for a blank or comment line.

    Raises StoreError naming ``path`` and ``lineno`` for anything else."""
    if line.startswith("- {"):
        try:
            return json.loads(line[2:])
        except ValueError:
            pass
    try:
        return _parse_line_slow(line, path, lineno)
    except _BadLine as bad:
        raise StoreError(bad.reason, path, lineno, bad.field) from None


class _LogRead:
    """What reading a log found: the events, and what a writer must repair at the end of the file."""

    def __init__(self) -> None:
        self.events: list[dict] = []
        self.errors: list[StoreError] = []
        self.keep_bytes: int | None = None  # truncate to this many bytes (a torn tail is set aside)
        self.torn_line: int | None = None
        self.torn_why = ""
        self.add_newline = False  # the last event is complete but its newline is missing
        self.batch: tuple[int, int, int] | None = None  # last "# batch: N" (line, N, events before it)


def _read_log_file(file: Path, collect: bool = False) -> _LogRead:
    """Stream ``file`` in chunks: each complete line through json.loads (YAML for a human's line), checked.

    Errors raise StoreError, or with ``collect`` go to ``.errors`` (and reading goes on). A last line that is
    torn is not an error: it is noted for the caller to report or set aside."""
    out = _LogRead()
    events = out.events
    add = events.append
    loads = json.loads
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
        if len(out.errors) == _MAX_REPORTED:
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
                    raw_lines = body.split(b"\n")
                    for i, raw in enumerate(raw_lines):
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
                            s = event.get("seq")
                            if s.__class__ is int and s == seq + 1 and event.get("kind").__class__ is str \
                                    and "v" not in event and event["kind"]:
                                seq = s
                                add(event)
                                continue
                    # the slow path: comments, a human's YAML, anything that needs a closer look
                    try:
                        if event is None:
                            event = _parse_line_slow(line, file, lineno)
                            if event is None:
                                if line.startswith(_BATCH):
                                    _note_batch(out, line, lineno)
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
                offset += len(body)
                if out.torn_line is not None:
                    break
            if carry and out.torn_line is None:
                _last_line_without_newline(out, carry, file, lineno + 1, offset, seq)
        except _StopCollecting:
            out.errors.append(StoreError(f"stopped after {_MAX_REPORTED} problems", file))
        finally:
            if gc_was_on:
                gc.enable()
    _drop_unfinished_batch(out, file)
    return out


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


def _decode_lines(body: bytes, err: UnicodeDecodeError, file, lineno: int, *, at_end: bool, out: _LogRead,
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


def _last_line_without_newline(out: _LogRead, carry: bytes, file, lineno: int, offset: int, seq: int) -> None:
    """The file ends without a newline: a complete, valid next event is kept (a writer adds the newline);
    anything else is a torn tail."""
    try:
        line = carry.decode("utf-8")
        event = parse_event_line(line, file, lineno)
        if event is None:
            if not line.strip() or line.lstrip().startswith("#"):
                out.add_newline = True
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


def _note_batch(out: _LogRead, line: str, lineno: int) -> None:
    words = line[len(_BATCH):].split()
    if words and words[0].isdigit():
        out.batch = (lineno, int(words[0]), len(out.events))


def _drop_unfinished_batch(out: _LogRead, file: Path) -> None:
    """A crash in the middle of an append_many leaves the batch's first events: set them aside with the tail."""
    if out.batch is None or out.errors:
        return
    line, count, before = out.batch
    if len(out.events) - before >= count:
        return
    out.events[before:] = []
    out.add_newline = False
    out.torn_why = (f"the last batch of {count} events was cut short by a crash (line {line} on); an action "
                    f"is kept whole or not at all")
    out.torn_line = line
    out.keep_bytes = _offset_of_line(file, line)


def _offset_of_line(file: Path, lineno: int) -> int:
    """Byte offset where line ``lineno`` starts (only needed to repair a torn batch: rare)."""
    offset = 0
    with open(file, "rb") as f:
        for _ in range(lineno - 1):
            offset += len(f.readline())
    return offset


# ---------------------------------------------------------------- campaign.yaml

BESTIARY_FIELDS = {
    "name": "text", "hearts": "posint", "attack": "dice", "attack_bonus": "dice", "damage": "dice",
    "multi_attack": "posint", "ranged": "bool", "armor": "armor", "tags": "texts", "xp": "nonneg",
}
"""What a foe's fields must hold (other keys are kept for the engine, unchecked)."""

_WORDS = {
    "text": "text", "posint": "a whole number of 1 or more", "nonneg": "a whole number of 0 or more",
    "int": "a whole number", "dice": "dice (like d6+1) or a whole number", "bool": "true or false",
    "texts": "a list of text", "armor": "armor as {av: N, dv: N}, or null",
}


class _Problems:
    """Problems found in a campaign dict, each as (field parts, reason)."""

    def __init__(self) -> None:
        self.items: list[tuple[tuple, str]] = []

    def add(self, parts: tuple, reason: str) -> None:
        self.items.append((parts, reason))

    def kind(self, parts: tuple, value: Any, kind: str) -> bool:
        """Check ``value`` is of ``kind``; add a problem saying what was expected if not."""
        if kind == "text":
            ok = _is_text(value)
        elif kind == "int":
            ok = _is_int(value)
        elif kind == "posint":
            ok = _is_int(value) and value >= 1
        elif kind == "nonneg":
            ok = _is_int(value) and value >= 0
        elif kind == "bool":
            ok = isinstance(value, bool)
        elif kind == "texts":
            ok = isinstance(value, list) and all(_is_text(v) for v in value)
        elif kind == "dice":
            return self.dice(parts, value)
        elif kind == "armor":
            if value is None:
                return True
            if not isinstance(value, dict):
                ok = False
            else:
                good = True
                for k in ("av", "dv"):
                    if k not in value:
                        self.add(parts + (k,), "missing: armor has av (armor value) and dv (durability) "
                                               "as whole numbers")
                        good = False
                    elif not (_is_int(value[k]) and value[k] >= 0):
                        self.add(parts + (k,), f"expected a whole number of 0 or more, got {_show(value[k])}")
                        good = False
                for k in value:
                    if k not in ("av", "dv"):
                        self.add(parts + (k,), "unknown armor field; armor has av and dv")
                        good = False
                return good
        else:  # pragma: no cover - a typo in this module
            raise AssertionError(kind)
        if not ok:
            self.add(parts, f"expected {_WORDS[kind]}, got {_show(value)}")
        return ok

    def dice(self, parts: tuple, value: Any) -> bool:
        if _is_int(value):
            return True
        if not isinstance(value, str):
            self.add(parts, f"expected dice (like d6+1) or a whole number, got {_show(value)}")
            return False
        from .dice import DiceError, parse
        try:
            parse(value)
        except DiceError as err:
            self.add(parts, f"expected dice (like d6+1) or a whole number, got {_show(value)}: {err}")
            return False
        return True


def _unique_texts(p: _Problems, parts: tuple, value: Any, what: str) -> list[str]:
    if not isinstance(value, list):
        p.add(parts, f"expected a list of {what} (text), got {_show(value)}")
        return []
    seen: dict[str, int] = {}
    for i, v in enumerate(value):
        if not _is_text(v):
            p.add(parts + (i,), f"expected {what} (text), got {_show(v)}")
        elif v in seen:
            p.add(parts + (i,), f"{v!r} is listed twice (first at {_field(parts + (seen[v],))})")
        else:
            seen[v] = i
    return list(seen)


def _table(p: _Problems, data: dict, key: str, what: str) -> dict:
    """A mapping of id -> entry mapping (bestiary, encounters, rooms, quests); the well-formed entries."""
    table = data.get(key)
    if table is None:
        return {}
    if not isinstance(table, dict):
        p.add((key,), f"expected a mapping of {what} id -> {what}, got {_show(table)}")
        return {}
    good = {}
    for entry_id, entry in table.items():
        if not _is_text(entry_id):
            p.add((key, str(entry_id)), f"{what} ids are text: quote it ({json.dumps(str(entry_id))})")
        elif not isinstance(entry, dict):
            p.add((key, entry_id), f"expected a mapping describing the {what}, got {_show(entry)}")
        else:
            good[entry_id] = entry
    return good


def _rules_for(data: dict, p: _Problems):
    """The rules this campaign plays by (shipped + its house rules), or None; house-rule errors go to ``p``."""
    try:
        from .rules import RulesError
        from .rules.load import base_rules, load_rules
    except ImportError:  # pragma: no cover - a broken install; the engine will say so
        return None
    house = data.get("house_rules")
    if house is None:
        return base_rules()
    if not isinstance(house, dict):
        p.add(("house_rules",), f"expected a mapping of rules to change, got {_show(house)}")
        return base_rules()
    try:
        return load_rules(house)
    except RulesError as err:
        for text in _rules_messages(str(err)):
            m = re.match(r"house rules: ([^:]*): (.*)$", text, re.S)
            if m:
                parts = ("house_rules",) + tuple(m.group(1).split("."))
                p.add(parts, m.group(2))
            else:
                p.add(("house_rules",), text.removeprefix("house rules: "))
        return base_rules()


def _rules_messages(text: str) -> list[str]:
    head, _, rest = text.partition("\n")
    if re.match(r"\d+ problems:$", head):
        return [line.strip() for line in rest.splitlines() if line.strip()]
    return [text]


def _campaign_problems(data: Any) -> list[tuple[tuple, str]]:
    """Every problem in a parsed campaign.yaml, as (field parts, reason)."""
    p = _Problems()
    if not isinstance(data, dict):
        p.add((), f"expected a mapping of campaign fields (format, name, seats, delvers, ...), got {_show(data)}")
        return p.items
    for key in data:
        if key not in CAMPAIGN_KEYS:
            import difflib

            close = difflib.get_close_matches(str(key), CAMPAIGN_KEYS, n=1)
            hint = f"did you mean {close[0]}? " if close else ""
            p.add((str(key),), f"unknown field; {hint}allowed: {', '.join(CAMPAIGN_KEYS)}")
    if "format" not in data:
        p.add(("format",), f"missing: the format version (add `format: {FORMAT_VERSION}` at the top)")
    elif not _is_int(data["format"]) or data["format"] < 1:
        p.add(("format",), f"expected the format version (a whole number, {FORMAT_VERSION}), "
                           f"got {_show(data['format'])}")
    elif data["format"] > FORMAT_VERSION:
        p.add(("format",), f"written by a newer delvebook (format {data['format']}); this one reads format "
                           f"{FORMAT_VERSION}: upgrade delvebook to open it")
    if "name" not in data:
        p.add(("name",), "missing: the campaign's name (text)")
    else:
        p.kind(("name",), data["name"], "text")
    if data.get("seed") is not None:
        p.kind(("seed",), data["seed"], "int")
    if data.get("seats") is not None:
        _unique_texts(p, ("seats",), data["seats"], "delver names in clockwise order")
    players = None
    if data.get("players") is not None:
        players = _unique_texts(p, ("players",), data["players"], "player names")
    if data.get("notes") is not None and not isinstance(data["notes"], str):
        p.add(("notes",), f"expected text, got {_show(data['notes'])}")

    need_rules = bool(data.get("delvers")) or bool(data.get("encounters")) or data.get("house_rules") is not None
    rules = _rules_for(data, p) if need_rules else None

    delvers = data.get("delvers")
    if delvers is not None and not isinstance(delvers, list):
        p.add(("delvers",), f"expected a list of delvers' starting sheets, got {_show(delvers)}")
    elif delvers:
        names: dict[str, int] = {}
        for i, d in enumerate(delvers):
            here = ("delvers", i)
            if not isinstance(d, dict):
                p.add(here, f"expected a delver's sheet (a mapping with name and class), got {_show(d)}")
                continue
            if "name" not in d:
                p.add(here + ("name",), "missing: the delver's name (text)")
            elif p.kind(here + ("name",), d["name"], "text"):
                if d["name"] in names:
                    p.add(here + ("name",), f"two delvers are named {d['name']!r} (the other is "
                                            f"delvers[{names[d['name']]}]); names must differ")
                else:
                    names[d["name"]] = i
            if "class" not in d:
                p.add(here + ("class",), "missing: the delver's class id (text)")
            elif not _is_text(d["class"]):
                p.add(here + ("class",), f"expected a class id (text), got {_show(d['class'])}")
            elif rules is not None and d["class"] not in rules.classes:
                p.add(here + ("class",), f"unknown class {d['class']!r} (known: {', '.join(rules.classes)})")
            if d.get("player") is not None and p.kind(here + ("player",), d["player"], "text"):
                if players is not None and d["player"] not in players:
                    p.add(here + ("player",), f"{d['player']!r} is not one of the players "
                                              f"({', '.join(players) or 'none listed'})")

    bestiary = _table(p, data, "bestiary", "foe")
    for foe_id, foe in bestiary.items():
        here = ("bestiary", foe_id)
        for key in ("name", "hearts"):
            if key not in foe:
                p.add(here + (key,), f"missing: {_WORDS[BESTIARY_FIELDS[key]]}")
        for key, kind in BESTIARY_FIELDS.items():
            if key in foe:
                p.kind(here + (key,), foe[key], kind)

    known_foes = set(bestiary) | (set(rules.bestiary) if rules is not None else set())
    for enc_id, enc in _table(p, data, "encounters", "encounter").items():
        here = ("encounters", enc_id)
        foes = enc.get("foes")
        if "foes" not in enc:
            p.add(here + ("foes",), "missing: the list of foes (bestiary ids, or {foe: id, count: N})")
        elif not isinstance(foes, list):
            p.add(here + ("foes",), f"expected a list of bestiary ids or {{foe: id, count: N}}, got {_show(foes)}")
        else:
            for i, f in enumerate(foes):
                at = here + ("foes", i)
                if isinstance(f, dict):
                    extra = [k for k in f if k not in ("foe", "count")]
                    if extra:
                        p.add(at + (str(extra[0]),), "unknown field; a foe entry has foe and count")
                    if "count" in f:
                        p.kind(at + ("count",), f["count"], "posint")
                    f, at = f.get("foe"), at + ("foe",)
                if not _is_text(f):
                    p.add(at, f"expected a bestiary id (text), got {_show(f)}")
                elif rules is not None and f not in known_foes:
                    p.add(at, f"no foe {f!r} in the bestiary (known: {', '.join(sorted(known_foes))})")
        for key in ("note", "name"):
            if enc.get(key) is not None and not isinstance(enc[key], str):
                p.add(here + (key,), f"expected text, got {_show(enc[key])}")

    for key, what in (("rooms", "room"), ("quests", "quest")):
        for entry_id, entry in _table(p, data, key, what).items():
            here = (key, entry_id)
            if "name" not in entry:
                p.add(here + ("name",), f"missing: the {what}'s name (text)")
            else:
                p.kind(here + ("name",), entry["name"], "text")
            if entry.get("note") is not None and not isinstance(entry["note"], str):
                p.add(here + ("note",), f"expected text, got {_show(entry['note'])}")
    return p.items


def _read_campaign(folder: Path) -> tuple[Any, Any]:
    """Parse campaign.yaml once: (data, node tree). Size-checked before reading; StoreError on bad YAML."""
    file = folder / CAMPAIGN_FILE
    try:
        st = os.stat(file)
    except FileNotFoundError:
        if not folder.is_dir():
            raise StoreError("no campaign folder here (create one with `delvebook new`)", folder) from None
        raise StoreError(f"no {CAMPAIGN_FILE} here: a campaign folder holds {CAMPAIGN_FILE} and {LOG_FILE}",
                         folder) from None
    if st.st_size > MAX_CAMPAIGN_BYTES:
        raise StoreError(f"{st.st_size / (1 << 20):.1f} MiB; a campaign file is at most "
                         f"{MAX_CAMPAIGN_BYTES >> 20} MiB (a damaged or foreign file?); not read", file)
    raw = file.read_bytes()[:MAX_CAMPAIGN_BYTES + 1]
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        raise StoreError(f"not UTF-8 text (byte {raw[err.start]:#04x})", file,
                         raw.count(b"\n", 0, err.start) + 1) from None
    return _compose_and_load(text, file)


def _campaign_errors(data: Any, node, file) -> list[StoreError]:
    return [StoreError(reason, file, _node_line(node, parts) if node is not None else None, _field(parts) or None)
            for parts, reason in _campaign_problems(data)]


def _raise_first(errors: list[StoreError]) -> None:
    if errors:
        first = errors[0]
        if len(errors) > 1:
            first.reason += f" (and {len(errors) - 1} more problem{'s' if len(errors) > 2 else ''}: " \
                            f"`delvebook validate` lists them all)"
        raise first


def _dump_campaign(campaign: dict) -> bytes:
    try:
        text = yaml.safe_dump(campaign, sort_keys=False, allow_unicode=True, default_flow_style=False)
    except yaml.YAMLError as err:
        raise StoreError(f"cannot be written as plain YAML: {err}", CAMPAIGN_FILE) from None
    return (CAMPAIGN_HEADER + text).encode("utf-8")


def _atomic_write(file: Path, data: bytes) -> None:
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
            _write_all(fd, data)
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
    _fsync_dir(file.parent)


# ---------------------------------------------------------------- the store


class CampaignStore:
    """One campaign folder, open for reading or for writing (then holding the folder's lock).

    ``campaign`` is the parsed campaign.yaml, ``events`` the log oldest first, ``problems`` what opening found
    and repaired or left for the keeper (a torn last line set aside, and where)."""

    def __init__(self, path: Path, read_only: bool) -> None:
        self.path = path
        self.read_only = read_only
        self.campaign: dict = {}
        self.events: list[dict] = []
        self.problems: list[str] = []
        self._lock_fd: int | None = None
        self._log_fd: int | None = None
        self._broken: str | None = None

    # opening and closing
    @classmethod
    def create(cls, path: str | os.PathLike, campaign: dict) -> "CampaignStore":
        """A new campaign folder (refused if ``path`` holds anything): campaign.yaml, an empty log, a .gitignore
        for the lock; returned open for writing."""
        folder = Path(path)
        if not isinstance(campaign, dict):
            raise StoreError(f"a campaign is a mapping of fields ({', '.join(CAMPAIGN_KEYS)}), "
                             f"got {_show(campaign)}", folder / CAMPAIGN_FILE)
        if "format" not in campaign:
            campaign = {"format": FORMAT_VERSION, **campaign}
        _raise_first(_campaign_errors(campaign, None, folder / CAMPAIGN_FILE))
        if folder.exists() and not folder.is_dir():
            raise StoreError("exists and is not a folder; choose another path for the new campaign", folder)
        folder.mkdir(parents=True, exist_ok=True)
        store = cls(folder, read_only=False)
        store._lock()
        try:
            others = sorted(p.name for p in folder.iterdir() if p.name != LOCK_FILE)
            if others:
                shown = ", ".join(others[:5]) + (", ..." if len(others) > 5 else "")
                raise StoreError(f"already holds files ({shown}); a new campaign needs an empty or new folder "
                                 f"(open an existing one with open())", folder)
            _atomic_write(folder / CAMPAIGN_FILE, _dump_campaign(campaign))
            _atomic_write(folder / LOG_FILE, LOG_HEADER.encode())
            _atomic_write(folder / ".gitignore", _GITIGNORE.encode())
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
            store._lock()
        try:
            data, node = _read_campaign(folder)
            _raise_first(_campaign_errors(data, node, folder / CAMPAIGN_FILE))
            store.campaign = data
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
        line = self._line(event, self.next_seq)
        self._write(line)
        self.events.append(event)

    def append_many(self, events: list[dict]) -> None:
        """Write several events with one write and one fsync; after a crash they are all there or none is."""
        self._check_writable()
        events = list(events)
        if not events:
            return
        lines = [self._line(e, self.next_seq + i) for i, e in enumerate(events)]
        if len(events) > 1:
            lines.insert(0, f"{_BATCH}{len(events)} events\n".encode())
        self._write(b"".join(lines))
        self.events.extend(events)

    def write_campaign(self, campaign: dict) -> None:
        """Check ``campaign`` and replace campaign.yaml with it atomically."""
        self._check_writable()
        file = self.path / CAMPAIGN_FILE
        _raise_first(_campaign_errors(campaign, None, file))
        _atomic_write(file, _dump_campaign(campaign))
        self.campaign = campaign

    # internals
    def _check_writable(self) -> None:
        if self.read_only:
            raise StoreError("opened read-only; open it without read_only=True to record play", self.path)
        if self._log_fd is None:
            raise StoreError("closed; open it again to record play", self.path)
        if self._broken:
            raise StoreError(self._broken, self.path / LOG_FILE)

    def _line(self, event: dict, seq: int) -> bytes:
        if not isinstance(event, dict):
            raise StoreError(f"an event is a mapping, got {_show(event)}", self.path / LOG_FILE)
        try:
            _check_event(event, seq)
            return dump_event_line(event)
        except _BadLine as bad:
            raise StoreError(bad.reason, self.path / LOG_FILE, None, bad.field) from None
        except StoreError as err:
            err.path = self.path / LOG_FILE
            raise

    def _write(self, data: bytes) -> None:
        fd = self._log_fd
        size = os.fstat(fd).st_size
        try:
            _write_all(fd, data)
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

    def _lock(self) -> None:
        file = self.path / LOCK_FILE
        try:
            fd = os.open(file, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as err:
            raise StoreError(f"cannot take the writer's lock ({err.strerror}); open read-only to read it",
                             self.path) from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as err:
            try:
                holder = os.pread(fd, 64, 0).decode("ascii", "replace").strip()
            finally:
                os.close(fd)
            if err.errno not in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                raise StoreError(f"cannot take the writer's lock ({err.strerror})", self.path) from None
            who = f"another process (pid {holder})" if holder.isdigit() else "another process"
            if holder == str(os.getpid()):
                who = f"this process (pid {holder}: another store of it is still open)"
            raise LockedError(f"{self.path} is open for writing in {who}; close it there, or open read-only",
                              self.path) from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        self._lock_fd = fd

    def _load_log(self) -> None:
        file = self.path / LOG_FILE
        if not file.exists():
            if self.read_only:
                self.problems.append(f"{file}: missing; read as an empty log")
            else:
                _atomic_write(file, LOG_HEADER.encode())
                self.problems.append(f"{file}: was missing; started an empty log")
            return
        read = _read_log_file(file)
        self.events = read.events
        if read.torn_line is not None:
            self.problems.append(self._set_aside(file, read))
        elif read.add_newline and not self.read_only:
            with open(file, "ab") as f:
                f.write(b"\n")
                f.flush()
                os.fsync(f.fileno())
            self.problems.append(f"{file}: the last line had no newline at the end; added one")

    def _set_aside(self, file: Path, read: _LogRead) -> str:
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

    def _side_file(self, tail: bytes, read: _LogRead) -> Path:
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
            _write_all(fd, header + tail)
            os.fsync(fd)
        finally:
            os.close(fd)
        _fsync_dir(self.path)
        return side

    def _open_log(self) -> None:
        self._log_fd = os.open(self.path / LOG_FILE, os.O_WRONLY | os.O_APPEND)


# ---------------------------------------------------------------- reading without a store


def _log_path(path: str | os.PathLike) -> Path:
    p = Path(path)
    return p / LOG_FILE if p.is_dir() else p


def read_log(path: str | os.PathLike) -> tuple[list[dict], list[str]]:
    """A campaign's events (folder or log file), without locking or changing anything: (events, problems).

    A torn last line is left out and reported in ``problems``; any other bad line raises StoreError."""
    file = _log_path(path)
    if not file.is_file():
        raise StoreError("missing: no event log here", file)
    read = _read_log_file(file)
    problems = []
    if read.torn_line is not None:
        problems.append(f"{file}:{read.torn_line}: torn last line ({read.torn_why}), probably from a crash "
                        f"mid-write; left out (opening for writing sets it aside)")
    return read.events, problems


def validate(path: str | os.PathLike) -> list[StoreError]:
    """Every problem in a campaign folder: each one in campaign.yaml, each bad line of the log (up to 100)."""
    folder = Path(path)
    errors: list[StoreError] = []
    try:
        data, node = _read_campaign(folder)
    except StoreError as err:
        errors.append(err)
    else:
        errors.extend(_campaign_errors(data, node, folder / CAMPAIGN_FILE))
    file = folder / LOG_FILE
    if not file.exists():
        if folder.is_dir():
            errors.append(StoreError("missing: the event log (opening for writing starts an empty one)", file))
        return errors
    try:
        read = _read_log_file(file, collect=True)
    except StoreError as err:
        errors.append(err)
        return errors
    errors.extend(read.errors)
    if read.torn_line is not None:
        errors.append(StoreError(f"torn last line ({read.torn_why}), probably from a crash mid-write; opening "
                                 f"the campaign for writing sets it aside into a side file", file, read.torn_line))
    return errors
