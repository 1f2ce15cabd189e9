"""One line of the event log: how delvebook writes an event, and how a line is read back and checked.

A line is ``- `` and the event as one JSON object: a JSON object is also a YAML flow mapping, so ``log.yaml`` is a
valid YAML sequence that ``json`` reads line by line (the safe YAML loader reads a line a human rewrote in other
YAML). Every line delvebook writes ends with its **seal**, a YAML comment ``# seal <crc32>``: the CRC-32 of the
line's bytes before it. A line whose seal holds was written by delvebook as the engine made it: it is read as
written. A line without one, or whose bytes no longer match it, was written or edited by hand: it is read with
care (duplicate keys refused, every value within the limits), and the one check of the log decides it again by
the rules (``store.playcheck``; why a seal: ``delvebook.store``). Being a comment, the seal is no part of the
event: any YAML reader reads the same data with or without it.

The writer (``encode_event``) refuses, before an event is acknowledged, what the reader would refuse: the same
limits (``statecheck``) and the same checks of seq, kind, changes and rolls.
"""

from __future__ import annotations

import json
import math
import re
import zlib
from typing import Any, Callable

from ..core import statecheck
from ..core.declared import version_of
from ..core.rules.schema import field_name, show
from .errors import StoreError

__all__ = ["MAX_LOG_LINE", "BadLine", "dump_event_line", "encode_event", "read_line", "check_event",
           "parse_event_line", "upgrade_event"]

MAX_LOG_LINE = 1 << 20
"""A log line longer than this (1 MiB) is refused: one event never needs it."""
_SEAL = b" # seal "
"""What ends every line delvebook writes, before 8 hex digits: the CRC-32 of the line's bytes before it."""
_SEAL_SIZE = len(_SEAL) + 8

# Characters json.dumps(ensure_ascii=False) leaves raw that YAML 1.1 reads as line breaks (NEL, LS, PS) or
# refuses as non-printable (DEL, C1 controls, BOM, U+FFFE/FFFF, lone surrogates): escaped, so the log stays
# one event per line and valid YAML with the same data.
_YAML_UNSAFE = re.compile("[\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff\ud800-\udfff]")


def _escape(m: re.Match) -> str:
    return "\\u%04x" % ord(m.group())


class BadLine(Exception):
    """A line that is not the next event: ``reason``, the ``field`` it names, and ``parsed`` (the line was read, so
    it is wrong, not torn by a crash)."""

    def __init__(self, reason: str, field: str | None = None, parsed: bool = False):
        super().__init__(reason)
        self.reason, self.field, self.parsed = reason, field, parsed


# ---------------------------------------------------------------- writing


def _limits_problem(event: Any) -> tuple[str | None, str] | None:
    """What an event holds beyond the log's limits, as (field, reason): ``statecheck.value_problem``."""
    found = statecheck.value_problem(event)
    if found is None:
        return None
    path, why = found
    return (field_name(path[:8]) + ("[...]" if len(path) > 8 else "") or None), why


def _line(event: dict) -> bytes:
    """The sealed line of an event already checked for the log's limits."""
    text = json.dumps(event, ensure_ascii=False, separators=(", ", ": "))
    if _YAML_UNSAFE.search(text):
        text = _YAML_UNSAFE.sub(_escape, text)
    line = ("- " + text).encode("utf-8")
    return b"%s%s%08x\n" % (line, _SEAL, zlib.crc32(line))


def dump_event_line(event: dict) -> bytes:
    """One sealed log line: ``- `` + the event as compact JSON + its seal (``# seal <crc32>``) + newline, UTF-8
    (within the log's limits: see ``encode_event`` for the whole check of a new event)."""
    if not isinstance(event, dict):
        raise StoreError(f"an event is a mapping, got {show(event)}")
    found = _limits_problem(event)
    if found is not None:
        raise StoreError(f"cannot be written to the log: {found[1]}", field=found[0])
    return _line(event)


def encode_event(event: Any, seq: int, shape: statecheck.Shape | None = statecheck.DEFAULT,
                 declared: Callable[[dict], tuple | None] | None = None) -> bytes:
    """The sealed log line for a new event, checked as the reader checks a line: a mapping whose ``seq`` is
    ``seq``, with a kind and a format it knows, changes that are places of the state (``shape``), roll records
    that are rolls, holding only JSON data within the limits (finite numbers within ``statecheck.MAX_INT``,
    nesting under ``MAX_DEPTH``, UTF-8 text) in a line of at most ``MAX_LOG_LINE`` bytes; and, given ``declared``
    (the store's hook: a campaign's is ``declared.problem``), what its kind's declaration allows. Raises StoreError
    naming the field (the caller adds the file)."""
    if not isinstance(event, dict):
        raise StoreError(f"an event is a mapping, got {show(event)}")
    found = _limits_problem(event)
    if found is not None:
        raise StoreError(f"cannot be written to the log: {found[1]}", field=found[0])
    if declared is not None:
        found = declared(event)
        if found is not None:
            raise StoreError(f"not written: {found[1]}", field=found[0])
    try:
        check_event(event, seq, shape)
    except BadLine as bad:
        raise StoreError(bad.reason, None, None, bad.field) from None
    line = _line(event)
    if len(line) - 1 > MAX_LOG_LINE:
        raise StoreError(f"this event is {len(line) - 1:,} bytes as a log line; a line holds at most "
                         f"{MAX_LOG_LINE:,} bytes (what the reader reads back)")
    return line


# ---------------------------------------------------------------- reading


class _Refuse(Exception):
    """JSON that json reads but that no delvebook writes (NaN, infinity, a duplicate key)."""


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


# json with the numbers delvebook writes only; the careful one (for a line without its seal) also refuses
# duplicate keys. A line's value starts at its third character: ``raw_decode(line, 2)`` reads it in place.
_QUICK = json.JSONDecoder(parse_constant=_refuse_constant, parse_float=_finite_float)
_CAREFUL = json.JSONDecoder(parse_constant=_refuse_constant, parse_float=_finite_float,
                            object_pairs_hook=_no_duplicates)
_TRAILING = re.compile(r"[ \t\n\r]*")  # what json.loads allows after the value (json.decoder.WHITESPACE)


def _json(line: str, decoder: json.JSONDecoder, end_at: int | None = None) -> dict | None:
    """A ``- {json}`` line through json, or None to let the YAML loader decide (not JSON where the value starts, or
    more after it than json.loads allows; for a sealed line, the value must end at ``end_at``, where its seal
    starts). Raises BadLine for JSON no delvebook writes (NaN, infinity, a duplicate key for the careful decoder,
    nesting json cannot read)."""
    try:
        event, end = decoder.raw_decode(line, 2)
    except _Refuse as err:
        raise BadLine(str(err), parsed=True) from None
    except RecursionError:
        raise BadLine(f"nested more than {statecheck.MAX_DEPTH} levels deep", parsed=True) from None
    except ValueError:
        return None
    if end_at is not None:
        if end != end_at:
            return None
    elif end != len(line) and _TRAILING.match(line, end).end() != len(line):
        return None
    return event if event.__class__ is dict else None


def _yaml(line: str, lineno: int) -> dict | None:
    """A line json did not take: blank, a comment, or a line a human wrote in other YAML (the safe loader)."""
    stripped = line.strip()
    if not stripped or stripped.startswith("#"):
        return None  # an old `# batch: N events` line is a comment like any other
    from ..core import yamlsafe  # PyYAML: only for a line json does not read
    try:
        data = yamlsafe.load(line, line_offset=lineno - 1, max_chars=MAX_LOG_LINE)
    except yamlsafe.YamlError as err:
        # only a line that is not YAML at all may be a crash's torn write; a refused one is an error
        raise BadLine(err.reason, parsed=not err.syntax) from None
    except RecursionError:
        raise BadLine("nested too deeply to read", parsed=True) from None
    if not (isinstance(data, list) and len(data) == 1 and isinstance(data[0], dict)):
        raise BadLine("expected one event per line: `- {\"seq\": N, \"kind\": \"...\", ...}` (a list item holding "
                      f"a mapping), got {_describe_yaml(data)}", parsed=stripped not in ("-", "- {"))
    return data[0]


def _describe_yaml(data: Any) -> str:
    if isinstance(data, list):
        return f"a list of {len(data)} items" if len(data) != 1 else f"a list holding {show(data[0])}"
    return show(data)


def read_line(raw: bytes, line: str, lineno: int) -> tuple[dict | None, bool]:
    """One line (its bytes and its text) as (the event, whether its seal holds); (None, False) for a blank line or a
    comment. A sealed line is read as the writer wrote it; any other is read with care (duplicate keys refused), and
    ``check_event(..., careful=True)`` checks every value of it. Raises BadLine."""
    if raw.endswith(b"\r"):  # a checkout that writes CRLF line ends
        raw, line = raw[:-1], line[:-1]
    event = None
    if line.startswith("- {"):
        head, mark, seal = raw.rpartition(_SEAL)
        if mark and seal == b"%08x" % zlib.crc32(head):
            event = _json(line, _QUICK, len(line) - _SEAL_SIZE)
            if event is not None:
                return event, True
        event = _json(line, _CAREFUL)
    if event is None:
        event = _yaml(line, lineno)
    return event, False


def parse_event_line(line: str, path, lineno: int) -> dict | None:
    """One log line as an event (not checked against its neighbours); None for a blank or comment line.

    Raises StoreError naming ``path`` and ``lineno`` for anything else."""
    try:
        event, sealed = read_line(line.encode("utf-8", "surrogatepass"), line, lineno)
        found = None if event is None or sealed else _limits_problem(event)
        if found is not None:
            raise BadLine(found[1], found[0], parsed=True)
        return event
    except BadLine as bad:
        raise StoreError(bad.reason, path, lineno, bad.field) from None


def upgrade_event(event: dict, from_version: int) -> dict:
    """An event written by version ``from_version`` of its kind checked against the versions this delvebook reads
    (1 up to the version its declaration writes today: ``declared.version_of``): a newer one says to upgrade
    delvebook. An event without ``"v"`` is version 1. (Reading an older event in today's version needs the state
    before it: ``store.playcheck`` upcasts it through its declaration.)"""
    latest = version_of(event.get("kind"))
    if from_version.__class__ is int and 1 <= from_version <= latest:
        return event
    if from_version.__class__ is not int or from_version < 1:
        raise StoreError(f"v: expected an event format version (1..{latest}), got {show(from_version)}")
    raise StoreError(f"this event was written by a newer delvebook (event format {from_version}); this one "
                     f"reads up to format {latest}: upgrade delvebook to open it")


def check_event(event: dict, expected_seq: int, shape: statecheck.Shape | None = None, careful: bool = False
                ) -> None:
    """Raise BadLine unless ``event`` has the next seq, a kind and a format this delvebook reads, and (with
    ``shape``) changes that are places of the state holding what they may and roll records that are rolls of
    their dice: the parts the state and the views read. ``careful`` (a line without its seal): every value within
    the limits too (its changes are bounded by the shape's check of them, when there is one)."""
    seq = event.get("seq")
    if seq.__class__ is not int or seq != expected_seq:
        if "seq" not in event:
            raise BadLine(f"missing: every event has a seq ({expected_seq} here)", "seq", parsed=True)
        if seq.__class__ is not int:
            raise BadLine(f"expected a whole number (the event's place in the log: {expected_seq}), got {show(seq)}",
                          "seq", parsed=True)
        before = "one more than the event before" if expected_seq > 1 else "the first event is 1"
        raise BadLine(f"expected {expected_seq} ({before}), got {seq}", "seq", parsed=True)
    kind = event.get("kind")
    if kind.__class__ is not str or not kind.strip():
        raise BadLine(f"expected the event's kind (text, e.g. \"roll\"), got {show(kind)}"
                      if "kind" in event else "missing: every event has a kind (text, e.g. \"roll\")",
                      "kind", parsed=True)
    v = event.get("v", 1)
    if v.__class__ is not int or not 1 <= v <= version_of(kind):
        try:
            upgrade_event(event, v)
        except StoreError as err:
            raise BadLine(err.reason, err.field or "v", parsed=True) from None
    if careful:
        found = _limits_problem(event if shape is None or "changes" not in event else
                                {k: v for k, v in event.items() if k != "changes"})
        if found is not None:
            raise BadLine(found[1], found[0], parsed=True)
    if shape is None:
        return
    changes = event.get("changes")
    if changes is not None:
        found = shape.changes_problem(changes)
        if found is not None:
            i, why = found
            raise BadLine(why, "changes" if i is None else f"changes[{i}]", parsed=True)
    rolls = event.get("rolls")
    if rolls is not None:
        found = statecheck.rolls_problem(rolls)
        if found is not None:
            name, why = found
            raise BadLine(why, "rolls" if name is None else f"rolls.{name}", parsed=True)
