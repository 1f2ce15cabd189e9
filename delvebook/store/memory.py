"""A campaign held in memory, with the folder store's interface and the same checks, and nothing on disk.

For tests and simulations (the danger forecast plays thousands of fights): ``campaign``, ``events``,
``append``, ``problems``, ``close``, ``read_only``, ``next_seq`` and ``follow`` behave as ``CampaignStore``'s
do (the contract tests in ``tests/test_store_contract.py`` run against both). Its events were made in memory, not
read from lines a hand could edit: none is unsealed, and none has a line.
"""

from __future__ import annotations

import copy
import json
import threading
from typing import Iterable

from ..core import statecheck
from ..core.rules.schema import FORMAT_VERSION, show
from .campaign_file import CAMPAIGN_KEYS, check_campaign_file, raise_first
from .errors import StoreError
from .lines import encode_event
from .log import Appended

__all__ = ["MemoryStore", "MemoryTail"]


class MemoryStore:
    """A campaign and its log in memory. Checked as a folder would be: the campaign by the one schema, each event
    appended by the log's rules (the next seq, a kind, only what JSON keeps)."""

    path = None  # no folder
    log_file = campaign_file = None
    declared = None  # the writer's check of an event against its declaration (a campaign sets it: declared.problem)

    def __init__(self, campaign: dict, events: Iterable[dict] = (), *, read_only: bool = False):
        if not isinstance(campaign, dict):
            raise StoreError(f"a campaign is a mapping of fields ({', '.join(CAMPAIGN_KEYS)}), got {show(campaign)}")
        if "format" not in campaign:
            campaign = {"format": FORMAT_VERSION, **campaign}
        rules, errors = check_campaign_file(campaign, None, None)
        raise_first(errors)
        self.campaign: dict = campaign
        self.rules = rules
        self.shape = statecheck.shape_for(rules)
        self.unsealed: list[int] = []
        self.events: list[dict] = []
        for event in events:
            encode_event(event, len(self.events) + 1, self.shape)
            self.events.append(event)
        self.problems: list[str] = []
        self.read_only = read_only
        self._closed = False
        self._mutex = threading.Lock()

    @property
    def next_seq(self) -> int:
        """The seq the next appended event must carry."""
        return len(self.events) + 1

    def append(self, event: dict) -> None:
        """Record one event (its ``seq`` must be ``next_seq``), refused as the folder store refuses it."""
        if self.read_only:
            raise StoreError("opened read-only; open it without read_only=True to record play")
        if self._closed:
            raise StoreError("closed; open it again to record play")
        with self._mutex:
            encode_event(event, self.next_seq, self.shape, self.declared)
            self.events.append(event)

    def write_campaign(self, campaign: dict) -> None:
        """Check ``campaign`` by the one schema and hold it instead (the folder store rewrites campaign.yaml)."""
        if self.read_only:
            raise StoreError("opened read-only; open it without read_only=True to record play")
        if self._closed:
            raise StoreError("closed; open it again to record play")
        if not isinstance(campaign, dict):
            raise StoreError(f"a campaign is a mapping of fields ({', '.join(CAMPAIGN_KEYS)}), got {show(campaign)}")
        rules, errors = check_campaign_file(campaign, None, None)
        raise_first(errors)
        self.campaign, self.rules = campaign, rules
        self.shape = statecheck.shape_for(rules)

    def add_read(self, event: dict) -> None:
        """An event a follower read after the ones this store holds (``CampaignStore.add_read``)."""
        self.events.append(event)

    def line_of(self, seq: int) -> None:
        """No line: the events are in memory."""
        return None

    def close(self) -> None:
        """Refuse further appends; safe to call twice."""
        self._closed = True

    def reopen(self, read_only: bool = False) -> "MemoryStore":
        """A new store holding what this one recorded, each event a copy as reading it back from disk makes."""
        events = [json.loads(json.dumps(e)) for e in self.events]
        return MemoryStore(copy.deepcopy(self.campaign), events, read_only=read_only)

    def follow(self) -> "MemoryTail":
        """A tail whose polls return the events appended since the last poll (none yet)."""
        return MemoryTail(self)

    def __enter__(self) -> "MemoryStore":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        mode = "read-only" if self.read_only else ("closed" if self._closed else "writable")
        return f"<MemoryStore {self.campaign.get('name')!r}: {len(self.events)} events, {mode}>"


class MemoryTail:
    """``LogTail``'s interface over a MemoryStore: what was appended since the last poll."""

    unsealed = lines = ()  # events made in memory: none was written by hand

    def __init__(self, store: MemoryStore):
        self.store = store
        self.seen = len(store.events)

    def poll(self) -> Appended:
        events = self.store.events
        if len(events) < self.seen:
            self.seen = len(events)
            return Appended([], True)
        new = events[self.seen:]
        self.seen = len(events)
        return Appended(list(new), False)
