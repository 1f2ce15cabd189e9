"""A campaign's files: ``campaign.yaml``, an append-only event log, a writer's lock, and file:line errors.

- ``folder``: the folder store ``CampaignStore`` (the writer's lock, atomic I/O) and ``validate``;
- ``log``: the line codec (``- {json}``, the YAML loader as the fallback), the streaming reader with its torn-tail
  handling, and ``follow`` for a reader that tails the log (the players' view);
- ``campaign_file``: reading, checking (``rules.schema``) and writing ``campaign.yaml``;
- ``memory``: ``MemoryStore``, the same interface and checks without a folder (tests, simulations).

YAML is read through ``delvebook.yamlsafe`` only: Python object tags, duplicate keys, alias bombs and oversized
files are refused with a ``StoreError`` that names the file, the line and the field.
"""

from __future__ import annotations

from ..rules.schema import FORMAT_VERSION
from .campaign_file import CAMPAIGN_FILE, CAMPAIGN_HEADER, CAMPAIGN_KEYS, MAX_CAMPAIGN_BYTES
from .errors import LockedError, StoreError, os_error
from .folder import HELD_FILE, LOCK_FILE, SOFT_LOCK_FILE, CampaignStore, check_new_path, validate
from .log import (
    LOG_FILE,
    LOG_HEADER,
    MAX_LOG_LINE,
    Appended,
    LogTail,
    dump_event_line,
    follow,
    parse_event_line,
    read_log,
    upgrade_event,
)
from .memory import MemoryStore

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
