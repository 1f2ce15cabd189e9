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

YAML is read through ``delvebook.yamlsafe`` only: Python object tags, duplicate keys, alias bombs and oversized
files are refused with a ``StoreError`` that names the file, the line and the field.
"""

from __future__ import annotations

from ..rules.schema import FORMAT_VERSION
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
