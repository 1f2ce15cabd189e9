"""What is prepared for the evening, as it stands: the foe types, the prepared encounters and the roll tables.

Two places hold them. ``campaign.yaml`` holds what the keeper wrote by hand: it is read into the rules the
campaign plays by (``rules.bestiary``, ``rules.encounters``, ``rules.roll_tables``), checked with file:line when
the campaign opens. The log holds what the table prepared by clicks: each such event sets one entry by id under
``state["prepared"]`` (``foes``, ``encounters``, ``tables``), or sets it to null where the table removed one. What
stands is the two laid together, id by id: the log's entry wins, null removes. So a hand edit of campaign.yaml keeps
working (it changes what the log did not touch), and undo, replay, validate, export and the zip carry what the
table prepared, since it is in the log.

Every lookup here is one step by id (a bestiary of ten thousand foes is as quick to ask as one of ten); only
listing everything walks it all (``Prepared`` is a read-only mapping that does so lazily).

Standard library only: part of the pure core.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Iterator

from ...core.rules.prepared import TRUE_NAMES, expand_foes

__all__ = ["Prepared", "foe_types", "foe_type", "foe_id", "encounters", "encounter", "encounter_foes",
           "roll_tables", "roll_table", "drawn", "KINDS", "TRUE_NAMES"]

KINDS = ("foes", "encounters", "tables")
"""What the table prepares, by its key under ``state["prepared"]``."""


class Prepared(Mapping):
    """What stands of one kind, by id: the rules' entries (campaign.yaml's and the shipped ones) with the log's laid
    over. Read-only; a lookup is one step; iteration goes through the rules' ids in order, then the log's new ones."""

    __slots__ = ("base", "over")

    def __init__(self, base: Mapping, over: Mapping):
        self.base = base
        self.over = over

    def __getitem__(self, key: Any) -> Any:
        if key in self.over:
            value = self.over[key]
            if value is None:
                raise KeyError(key)
            return value
        return self.base[key]

    def __contains__(self, key: Any) -> bool:
        if key in self.over:
            return self.over[key] is not None
        return key in self.base

    def __iter__(self) -> Iterator:
        over = self.over
        for key in self.base:
            if key not in over or over[key] is not None:
                yield key
        for key, value in over.items():
            if value is not None and key not in self.base:
                yield key

    def __len__(self) -> int:
        over = self.over
        removed = sum(1 for k, v in over.items() if v is None and k in self.base)
        added = sum(1 for k, v in over.items() if v is not None and k not in self.base)
        return len(self.base) - removed + added

    def by_table(self, key: Any) -> bool:
        """Whether the log (the table's clicks) holds this entry, rather than campaign.yaml or the rules."""
        return self.over.get(key) is not None


_EMPTY: Mapping = {}


def _over(state: Mapping, kind: str) -> Mapping:
    prepared = state.get("prepared")
    return prepared.get(kind, _EMPTY) if prepared else _EMPTY


def foe_types(state: Mapping, rules) -> Prepared:
    """Every foe type that stands: the bestiary (shipped, house rules, campaign.yaml) with the table's laid over."""
    return Prepared(rules.bestiary, _over(state, "foes"))


def _one(state: Mapping, kind: str, base: Mapping, key: Any) -> Mapping | None:
    """One entry of ``kind`` by id as it stands (the log's, else the rules'), or None: one step, however many."""
    over = _over(state, kind)
    if key in over:
        return over[key]
    return base.get(key) if isinstance(key, str) else None


def foe_type(state: Mapping, rules, fid: Any) -> Mapping | None:
    """The foe type ``fid`` as it stands, or None."""
    return _one(state, "foes", rules.bestiary, fid)


def foe_id(state: Mapping, rules, text: Any) -> str | None:
    """The id of the foe type the keeper means by ``text``: its id, or its name in any case ('bog goblin'); None."""
    if not isinstance(text, str) or not text.strip():
        return None
    text = text.strip()
    if foe_type(state, rules, text) is not None:
        return text
    folded = " ".join(text.casefold().replace("_", " ").split())
    for fid, entry in _over(state, "foes").items():  # the table's own (a handful), then the rules' index
        if entry is not None and " ".join(str(entry.get("name", fid)).casefold().split()) == folded:
            return fid
    fid = rules.foe_names.get(folded)
    return fid if fid is not None and foe_type(state, rules, fid) is not None else None


def encounters(state: Mapping, rules) -> Prepared:
    """Every prepared encounter that stands, by id, as written (``{name, foes, note}``)."""
    return Prepared(rules.encounters, _over(state, "encounters"))


def encounter(state: Mapping, rules, eid: Any) -> Mapping | None:
    """The prepared encounter ``eid`` as it stands, or None."""
    return _one(state, "encounters", rules.encounters, eid)


def encounter_foes(enc: Mapping) -> list:
    """A prepared encounter's foes, one entry a foe (counts expanded): what a fight or a forecast starts with."""
    foes = enc.get("foes")
    return expand_foes(foes if isinstance(foes, (list, tuple)) else [])


def roll_tables(state: Mapping, rules) -> Prepared:
    """Every roll table that stands, by id: the namer's true names (``true_names``), campaign.yaml's, the table's."""
    return Prepared(rules.roll_tables, _over(state, "tables"))


def roll_table(state: Mapping, rules, tid: Any) -> Mapping | None:
    """The roll table ``tid`` as it stands, or None."""
    return _one(state, "tables", rules.roll_tables, tid)


def drawn(state: Mapping, tid: str) -> list[int]:
    """The entries of a table drawn without replacement so far (by index), until it is reset."""
    return list(_over(state, "drawn").get(tid, ()))

