"""A campaign's files: ``campaign.yaml``, an append-only event log, a writer's lock, and file:line errors.

- ``folder``: the folder store ``CampaignStore``; ``lock``: the writer's lock; ``files``: writing a file whole;
  ``repair``: what opening repairs (a torn last line set aside, a displaced log kept);
- ``lines``: one line of the log (``- {json}`` with its seal; the YAML loader for a line a human rewrote) and the
  checks the writer and the reader share; ``log``: the streaming reader with its torn-tail handling, and
  ``follow`` for a reader that tails the log (the players' view);
- ``playcheck``: the one check of a log against its campaign (``Campaign.open`` and ``validate`` both run it);
  ``setup``: the party a campaign file sets up; ``validation``: every problem of a folder (``validate``);
- ``campaign_file``: reading, checking (``rules.schema``) and writing ``campaign.yaml``;
- ``archive``: the campaign folder as a zip and back;
- ``memory``: ``MemoryStore``, the same interface and checks without a folder (tests, simulations).

YAML is read through ``delvebook.core.yamlsafe`` only: Python object tags, duplicate keys, alias bombs and oversized
files are refused with a ``StoreError`` that names the file, the line and the field.

Open equals validate. ``Campaign.open`` (read-only or for play), ``validate`` and ``delvebook validate`` read a
folder with the same readers and judge its log by the same check (``playcheck``), so what one refuses the others
refuse, with the same file:line and field. That check must tell a line delvebook wrote from a line a hand wrote or
edited: the first is what the engine made, and its structure is all there is to check; the second may say
anything, and only the rules can judge it, at its point of the log. Deciding every event again at every open
would make a long campaign slow to open, so each line the writer appends carries a **seal**: a YAML comment with
the CRC-32 of the line (``lines``). A sealed line keeps the structural checks (the next seq, a kind, changes that
are places of the state, roll records that are rolls); a line without a holding seal is read with care and
decided again by the rules (``engine.redecide``, compared field for field). Other ways were weighed: a record of
what the writer wrote kept beside the log (one hand edit anywhere would send the whole log to the rules, and the
record would not travel with the log in git or a zip), or deciding every line at every open (the cost grows with
the campaign). A seal is local to its line, travels with it, and is invisible to any YAML reader. It is no
signature: whoever recomputes it on purpose forges a line, as whoever holds the folder can write anything; it
tells a hand's slip from the writer's line, which is what the check needs. The writer refuses, before it
acknowledges an event, what the reader would refuse: the same limits, the same checks of a line, and the state
after the event checked as the reader checks the state after the log.
"""

from __future__ import annotations

from ..core.rules.schema import FORMAT_VERSION
from .campaign_file import CAMPAIGN_FILE, CAMPAIGN_HEADER, CAMPAIGN_KEYS, MAX_CAMPAIGN_BYTES
from .errors import LockedError, StoreError, os_error
from .files import check_new_path
from .folder import HELD_FILE, CampaignStore
from .lines import MAX_LOG_LINE, dump_event_line, parse_event_line, upgrade_event
from .lock import LOCK_FILE, SOFT_LOCK_FILE
from .log import LOG_FILE, LOG_HEADER, Appended, LogTail, follow, read_log
from .memory import MemoryStore
from .validation import validate

__all__ = [
    "StoreError",
    "LockedError",
    "os_error",
    "CampaignStore",
    "MemoryStore",
    "read_log",
    "validate",
    "follow",
    "LogTail",
    "Appended",
    "dump_event_line",
    "parse_event_line",
    "upgrade_event",
    "FORMAT_VERSION",
    "CAMPAIGN_FILE",
    "LOG_FILE",
    "LOCK_FILE",
    "SOFT_LOCK_FILE",
    "HELD_FILE",
    "check_new_path",
    "CAMPAIGN_KEYS",
    "MAX_LOG_LINE",
    "MAX_CAMPAIGN_BYTES",
    "LOG_HEADER",
    "CAMPAIGN_HEADER",
]
