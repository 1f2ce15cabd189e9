"""A snapshot of a campaign's folded state, kept outside the campaign folder, so that an open reads only the log's
lines after it. Never the truth: the log is; a snapshot that does not match it exactly is not used.

A snapshot is one JSON file in the user's cache (``core.cache``: ``snapshots/`` there, named by a digest of the
campaign folder's resolved path), holding the state after the log's first ``count`` events, what the campaign's
History keeps besides (``History.saved``: the undo and redo stacks, which action replaced or undid which), where that
part of the log ends (its bytes, its lines, the line of each event) and the SHA-256 of the log's bytes up to there.
It is used only when all of these hold, and otherwise the open folds the whole log, as it always did:

- it is a regular file (not a symlink, a folder or a device), within a size, signed with this user's key
  (``core.cache``): a file this user's delvebook did not write, or one cut short or changed since, is not read
  further;
- it was made for this campaign folder, by this delvebook (its version and its code as installed:
  ``cache.code_identity``; the events' format and declarations: ``declarations``), for the same shipped rules and
  the same ``campaign.yaml`` (their bytes' digests);
- the log is at least as long as the part it stands for, and that part's bytes have the digest it records (an
  edited line, a shorter or replaced log: another digest).

The lines after it are read and judged as any open reads them (``store.log``, ``store.playcheck``), and the state
after the last is checked as always. Nothing is written in the campaign folder, so a snapshot never travels: not
in a zip, an export, the static site or git. ``validate`` never reads one.
"""

from __future__ import annotations

import hashlib
import io
import os
from pathlib import Path
from typing import Any

from ..core.cache import cache_folder, code_identity, dumps_exact, loads_exact, read_signed, write_signed
from ..core.events import History
from ..core.rules.load import rules_digest
from .lines import read_line
from .log import LineMap, scan

__all__ = ["FORMAT", "WRITE_AFTER", "Found", "Prefix", "declarations", "snapshot_file", "find", "resume", "write"]

FORMAT = 1
WRITE_AFTER = 200
"""A new snapshot is written once this many events were folded without one (at an open, or as a campaign closes)."""
_MAX_BYTES = 1 << 30
_HEAD = b"delvebook-snapshot %d" % FORMAT


def _folder() -> Path:
    return cache_folder() / "snapshots"


def snapshot_file(campaign_folder: Path) -> Path:
    """Where the snapshot of the campaign at ``campaign_folder`` is kept (outside it)."""
    where = os.fsencode(str(Path(campaign_folder).resolve()))
    return _folder() / f"{hashlib.sha256(where).hexdigest()[:40]}.json"


class Found:
    """A snapshot that matches the log: the state and History's data (``History.saved``) after its ``count``
    events, which end at byte ``end`` and line ``lines`` of the log; ``line_map`` (``LineMap.saved``); ``digest``,
    a hashlib object holding the log's bytes up to ``end`` (to go on with the lines after it)."""

    __slots__ = ("state", "history", "count", "end", "lines", "line_map", "digest")

    def __init__(self, doc: dict, digest: Any) -> None:
        self.state, self.history, self.line_map = doc["state"], doc["history"], doc["line_map"]
        self.count, self.end, self.lines = doc["count"], doc["end"], doc["lines"]
        self.digest = digest


def declarations() -> str:
    """The events' declarations (each kind's version, roles and fields, ``core.declared``), as text: a snapshot is
    made by one version of them."""
    from .. import engine  # noqa: F401  (every command's module declares its events as it is imported)
    from ..core.declared import DECLARED

    def named(part: Any) -> Any:  # a role worked out by a function is named by it (a repr would hold its address)
        if isinstance(part, (tuple, list)):
            return [named(p) for p in part]
        return f"{part.__module__}.{part.__qualname__}" if callable(part) else part

    declared = sorted((kind, cls.class_version, named((cls.roles.actor, cls.roles.targets)), sorted(cls.FIELDS))
                      for kind, cls in DECLARED.items())
    return repr(declared)


def _identity(campaign_folder: Path, campaign_digest: str, rules_digest: str) -> str:
    parts = (str(FORMAT), code_identity(), declarations(), rules_digest, campaign_digest,
             str(Path(campaign_folder).resolve()))
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()


def find(campaign_folder: Path, campaign_digest: str, rules_digest: str, log: Any) -> tuple[Found, bytes] | None:
    """The snapshot of this campaign that stands for a part of the log (``log``: open, binary, at its start) and
    that part's bytes, or None: none kept, or one that does not match in any way (see the module), which is then
    simply not used. Only the part the snapshot names is read, and only once the snapshot itself holds."""
    body = read_signed(snapshot_file(campaign_folder), _HEAD, _MAX_BYTES)
    if body is None:
        return None
    try:
        doc = loads_exact(body)
        if doc.__class__ is not dict or doc.get("identity") != _identity(campaign_folder, campaign_digest,
                                                                         rules_digest):
            return None
        end, count, lines = doc["end"], doc["count"], doc["lines"]
        if not all(x.__class__ is int and x >= 0 for x in (end, count, lines)) or doc["state"].__class__ is not dict:
            return None
        if os.fstat(log.fileno()).st_size < end:
            return None  # a shorter log
        part = log.read(end)
    except (ValueError, KeyError, UnicodeDecodeError, RecursionError, OSError):
        return None
    if len(part) != end or (end and part[-1] != 0x0A):
        return None
    digest = hashlib.sha256(part)
    if digest.hexdigest() != doc.get("log"):
        return None
    return Found(doc, digest), part


def resume(campaign_folder: Path, campaign_digest: str, file: Path, log: Any, shape: Any, replayed: Any):
    """The log (``log``: open, binary, at its start) read after the part a matching snapshot stands for: (what
    ``scan`` read after it, the part as a ``Prefix``, the History the snapshot brings back, the digest of the bytes
    read), or None when there is no snapshot that matches, or it does not hold together. ``replayed``: a function
    giving the log's first ``n`` events folded from the setup (``History.restored``)."""
    got = find(campaign_folder, campaign_digest, rules_digest(), log)
    if got is None:
        return None
    found, part = got
    try:
        if shape.state_problems(found.state):
            return None  # not a state the table can show (no snapshot delvebook wrote holds one)
        prefix = Prefix(file, part, found)
        history = History.restored(found.state, found.history, found.count, prefix.event, replayed)
    except (ValueError, TypeError, KeyError, AttributeError, RecursionError):
        return None
    read = scan(file, shape=shape, f=log, start=(found.end, found.count, found.lines),
                line_map=LineMap.restored(found.line_map), digest=found.digest)
    return read, prefix, history, found.digest


def write(campaign_folder: Path, campaign_digest: str, rules_digest: str, *, digest: Any, count: int, end: int,
          lines: int, line_map: list, state: dict, history: dict) -> bool:
    """Keep a snapshot of this campaign: ``state`` and ``history`` (``History.saved``) after its first ``count``
    events, the log's bytes up to ``end`` hashed in ``digest``. Only plain JSON that reads back as the very same data
    is kept; a snapshot that cannot be written (no cache folder, a folder or a file in its place, a full disk) is not
    written, and the campaign is only slower to open. Returns whether it was written."""
    folder = _folder()
    try:
        if Path(campaign_folder).resolve() in (folder.resolve(), *folder.resolve().parents):
            return False  # a cache inside the campaign folder would travel with it
    except OSError:
        return False
    doc = {"identity": _identity(campaign_folder, campaign_digest, rules_digest), "log": digest.hexdigest(),
           "count": count, "end": end, "lines": lines, "line_map": line_map, "state": state, "history": history}
    body = dumps_exact(doc)
    if body is None:
        return False  # not plain data (a tuple, a key that is not text...): not what reading it back would give
    return write_signed(snapshot_file(campaign_folder), _HEAD, body)


class Prefix:
    """The part of the log a snapshot stood for, from the bytes read at the open (the ones its digest matched): an
    event read when first asked for (``event``), or all of them (``all``), each the same object however reached."""

    def __init__(self, file: Path, data: bytes, found: Found) -> None:
        self.file, self.data, self.count, self.end, self.lines = file, data, found.count, found.end, found.lines
        self.line_map = LineMap.restored(found.line_map)
        self.got: dict[int, dict] = {}

    def event(self, seq: int) -> dict:
        got = self.got.get(seq)
        if got is not None:
            return got
        line = self.line_map.line_of(seq) if seq.__class__ is int and 1 <= seq <= self.count else None
        if line is None:
            raise KeyError(seq)
        data, stop = self.data, self.end - 1  # the newline that ends the part's last line
        for _ in range(self.lines - line):
            stop = data.rfind(b"\n", 0, stop)
        start = data.rfind(b"\n", 0, stop) + 1
        if start == 0 and data.startswith(b"\xef\xbb\xbf"):
            start = 3
        raw = data[start:stop]
        event, _ = read_line(raw, raw.decode("utf-8"), line)
        if event is None or event.get("seq") != seq:  # the digest matched: only a defect of the map comes here
            raise LookupError(f"event {seq} is not on line {line} of the part a snapshot stood for")
        self.got[seq] = event
        return event

    def all(self) -> list[dict]:
        """Every event of the part, oldest first (read again as the open read them, without the checks they passed
        when the snapshot was made of these very bytes)."""
        events = scan(self.file, shape=None, f=io.BytesIO(self.data)).events
        if len(events) != self.count:
            raise LookupError(f"the part a snapshot stood for holds {len(events)} events, not {self.count}")
        for seq, event in self.got.items():
            events[seq - 1] = event
        self.got = dict(enumerate(events, 1))  # asked for one by one from now on: the same objects
        self.data = b""
        return events
