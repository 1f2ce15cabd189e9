"""One contract, every store: the folder store and the in-memory store pass the same tests.

As eventsourcing's recorder test case does, each test takes a ``kind`` of store (a parametrized fixture) and
asks only what the interface promises: ``campaign``, ``events``, ``append``, ``problems``, ``close``,
``read_only``, ``next_seq``, ``follow``. A new store implementation joins by adding one entry to ``KINDS``.
"""
from __future__ import annotations

import itertools
from pathlib import Path

import pytest

import delvebook as db
from delvebook.core.declared import BASE_VERSION
from delvebook.store import FORMAT_VERSION, CampaignStore, MemoryStore, StoreError

CAMPAIGN = {
    "format": 1,
    "name": "The Contract",
    "seed": 11,
    "players": ["Ana", "Ben"],
    "delvers": [{"name": "Wren", "class": "rogue", "player": "Ana"},
                {"name": "Brakka", "class": "fighter", "player": "Ben"}],
    "seats": ["Wren", "Brakka"],
    "bestiary": {"eel": {"name": "Keep eel", "hearts": 5, "attack_bonus": "d6", "damage": "d6+1",
                         "tags": ["beast"]}},
}


def event(seq: int, kind: str = "note", **fields) -> dict:
    return {"seq": seq, "kind": kind, **fields}


class FolderStores:
    """Stores in folders under a test's tmp_path."""

    def __init__(self, tmp_path: Path):
        self.tmp_path = tmp_path
        self.n = itertools.count()

    def create(self, campaign: dict):
        return CampaignStore.create(self.tmp_path / f"c{next(self.n)}", campaign)

    def reopen(self, store, read_only: bool = False):
        store.close()
        return CampaignStore.open(store.path, read_only=read_only)


class MemoryStores:
    """Stores in memory; reopening hands what was recorded to a new store, as a folder would."""

    def __init__(self, tmp_path: Path):
        pass

    def create(self, campaign: dict):
        return MemoryStore(campaign)

    def reopen(self, store, read_only: bool = False):
        store.close()
        return store.reopen(read_only=read_only)


KINDS = {"folder": FolderStores, "memory": MemoryStores}


@pytest.fixture(params=list(KINDS))
def stores(request, tmp_path):
    return KINDS[request.param](tmp_path)


def test_a_new_store_holds_its_campaign_and_no_events(stores):
    store = stores.create({"name": "New"})
    assert store.campaign == {"format": FORMAT_VERSION, "name": "New"}
    assert (store.events, store.problems, store.next_seq, store.read_only) == ([], [], 1, False)
    store.close()


def test_append_takes_only_the_next_seq_and_a_kind(stores):
    with stores.create(CAMPAIGN) as store:
        store.append(event(1))
        with pytest.raises(StoreError, match=r"seq: expected 2 \(one more than the event before\), got 3"):
            store.append(event(3))
        with pytest.raises(StoreError, match="kind: missing"):
            store.append({"seq": 2})
        with pytest.raises(StoreError, match="an event is a mapping"):
            store.append([2, "note"])
        assert [e["seq"] for e in store.events] == [1] and store.next_seq == 2


@pytest.mark.parametrize("bad, says", [
    ({"faces": {1, 2}}, r"faces: cannot be written to the log: set is not JSON data"),
    ({"luck": float("nan")}, "no NaN"),
    ({"by_level": {2: "x"}}, r"by_level: .*key 2 is not text"),
    ({"v": BASE_VERSION + 1}, "newer delvebook"),
])
def test_an_event_the_log_cannot_hold_is_refused_and_nothing_is_recorded(stores, bad, says):
    store = stores.create(CAMPAIGN)
    with pytest.raises(StoreError, match=says):
        store.append(event(1, **bad))
    assert store.events == []
    assert stores.reopen(store).events == []


def test_reopening_sees_every_event_appended(stores):
    store = stores.create(CAMPAIGN)
    written = [event(1, "roll", faces=[3, 5], total=8), event(2, "note", text="ünïcode ✓", v=FORMAT_VERSION),
               event(3, "attack", hit=True, nested={"a": [1, {"b": None}]})]
    for e in written:
        store.append(e)
    again = stores.reopen(store)
    assert again.events == written and again.campaign == CAMPAIGN and again.next_seq == 4
    again.append(event(4))
    assert [e["seq"] for e in stores.reopen(again).events] == [1, 2, 3, 4]


def test_a_read_only_store_refuses_to_record(stores):
    store = stores.reopen(stores.create(CAMPAIGN), read_only=True)
    assert store.read_only
    with pytest.raises(StoreError, match="read-only"):
        store.append(event(1))
    assert store.events == []


def test_a_closed_store_refuses_to_record_and_closes_twice(stores):
    store = stores.create(CAMPAIGN)
    store.append(event(1))
    store.close()
    store.close()
    with pytest.raises(StoreError, match="closed"):
        store.append(event(2))
    assert [e["seq"] for e in stores.reopen(store).events] == [1]


@pytest.mark.parametrize("change, field", [
    ({"bestiary": {"newt": {"name": "Newt", "hearts": 1, "attack_bonus": 0, "damage": 1}}}, "bestiary.newt.tags"),
    ({"delvers": [{"name": "Wren", "class": "bard"}], "seats": None}, "delvers[0].class"),
    ({"house_rules": {"core": {"luck_dice": {"die": "2d4"}}}}, "house_rules.core.luck_dice.die"),
    ({"nmae": "typo"}, "nmae"),
])
def test_a_campaign_the_schema_refuses_is_not_created(stores, change, field):
    with pytest.raises(StoreError) as info:
        stores.create({**CAMPAIGN, **change})
    assert info.value.field == field


def test_a_follower_sees_what_is_appended_after_it_began(stores):
    store = stores.create(CAMPAIGN)
    store.append(event(1))
    tail = store.follow()
    assert tail.poll() == ([], False)
    store.append(event(2, text="first"))
    store.append(event(3, text="second"))
    new, reload = tail.poll()
    assert [e["seq"] for e in new] == [2, 3] and not reload
    assert tail.poll() == ([], False)
    store.close()


def test_a_campaign_plays_the_same_on_every_store(stores):
    """Same seed, same actions: the same events (timestamps aside) whichever store records them."""
    def play(store) -> list[dict]:
        camp = db.Campaign.open(store)
        camp._clock = lambda: "2026-01-01T00:00:00+00:00"
        camp.start_session()
        camp.check("Wren", "stealth", 12)
        camp.spend_luck("Ana", +1)
        fight = camp.encounter(["eel"])
        fight.initiative(first="party")
        fight.attack(fight.actor, "Keep eel 1")
        camp.undo()
        return list(camp.events)

    mine = play(stores.create(CAMPAIGN))
    reference = play(MemoryStore(CAMPAIGN))
    assert mine == reference and len(mine) == 7
