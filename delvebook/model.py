"""Plain data: the state of a campaign, and read-only views of delvers, foes and armor.

The state is a JSON-like dict (see ``new_state``), so it can be folded, copied, compared and cached;
the view classes give it names in the game's words (``hearts``, ``grit``, ``luck_dice``).

Standard library only: part of the pure core.
"""

from __future__ import annotations

import html
from typing import Any, Mapping

__all__ = ["new_state", "Delver", "Foe", "Armor", "format_purse", "STATUS_ALIVE", "STATUS_DYING", "STATUS_DEAD"]

STATUS_ALIVE = "alive"
STATUS_DYING = "dying"     # below 1 heart with a death save to make
STATUS_DEAD = "dead"


def new_state(name: str = "", seed: int | None = None) -> dict:
    """The state of a campaign before any event."""
    return {
        "name": name,
        "seed": seed,
        "clock": 0,                 # game time in seconds
        "session": {"number": 0, "active": False},
        "seats": [],                # delver names, clockwise
        "delvers": {},              # name -> delver dict
        "luck": {},                 # player -> luck dice left this session
        "xp_pool": 0,               # XP remainder waiting for the next award
        "coin_pool": 0,             # talons earned that have not yet made a whole crown of XP
        "xp_awarded": 0,            # every XP ever awarded (held by delvers + pool)
        "encounter": None,
        "encounters_fought": 0,
        "conditions": [],
        "next_condition": 1,
        "quests": [],
        "rooms": [],
    }


class _View:
    __slots__ = ("_d",)

    def __init__(self, data: Mapping):
        self._d = data

    @property
    def data(self) -> Mapping:
        return self._d

    def __eq__(self, other: object) -> bool:
        return type(self) is type(other) and self._d == other._d  # type: ignore[attr-defined]

    __hash__ = None  # type: ignore[assignment]


class Armor(_View):
    """A piece of armor: armor value (AV), durability value (DV) left, and whether it is broken."""

    @property
    def name(self) -> str:
        return self._d["name"]

    @property
    def av(self) -> int:
        return self._d["av"]

    @property
    def dv(self) -> int:
        return self._d["dv"]

    @property
    def dv_max(self) -> int:
        return self._d["dv_max"]

    @property
    def shield(self) -> bool:
        return bool(self._d.get("shield"))

    @property
    def broken(self) -> bool:
        return self._d["dv"] <= 0

    def __repr__(self) -> str:
        return f"Armor({self.name}: AV {self.av}, DV {self.dv}/{self.dv_max}{', broken' if self.broken else ''})"


class _Combatant(_View):
    @property
    def name(self) -> str:
        return self._d["name"]

    @property
    def hearts(self) -> int:
        return self._d["hearts"]

    @property
    def max_hearts(self) -> int:
        return self._d["max_hearts"]

    @property
    def status(self) -> str:
        return self._d["status"]

    @property
    def alive(self) -> bool:
        return self._d["status"] != STATUS_DEAD

    @property
    def dead(self) -> bool:
        return self._d["status"] == STATUS_DEAD

    @property
    def armor(self) -> list[Armor]:
        return [Armor(a) for a in self._d.get("armor", ())]


class Delver(_Combatant):
    """A delver (player character) as it stands now."""

    @property
    def player(self) -> str:
        return self._d["player"]

    @property
    def class_id(self) -> str:
        return self._d["class_id"]

    @property
    def class_name(self) -> str:
        return self._d.get("class_name", self._d["class_id"])

    @property
    def level(self) -> int:
        return self._d["level"]

    @property
    def xp(self) -> int:
        return self._d["xp"]

    @property
    def skills(self) -> dict[str, str]:
        return dict(self._d["skills"])

    @property
    def resources(self) -> dict[str, int]:
        return dict(self._d["resources"])

    @property
    def resource_max(self) -> dict[str, int]:
        return dict(self._d["resource_max"])

    def __getattr__(self, name: str) -> Any:
        # resources read as attributes in the game's words: wren.grit, ada.healing_points
        res = object.__getattribute__(self, "_d").get("resources", {})
        if name in res:
            return res[name]
        raise AttributeError(f"delver has no {name!r}")

    @property
    def purse(self) -> int:
        """Money in talons."""
        return self._d["purse"]

    @property
    def weapons(self) -> list[dict]:
        return [dict(w) for w in self._d["weapons"]]

    @property
    def spells(self) -> list[str]:
        return list(self._d.get("spells", ()))

    @property
    def true_names(self) -> list[str]:
        return list(self._d.get("true_names", ()))

    @property
    def choices(self) -> dict:
        return dict(self._d.get("choices", {}))

    @property
    def luck_dice(self) -> int:
        """Luck dice this delver's player has left this session (set by the campaign view)."""
        return self._d.get("_luck", 0)

    def __repr__(self) -> str:
        return (f"Delver({self.name!r}, {self.class_id}, level {self.level}, "
                f"{self.hearts}/{self.max_hearts} hearts, {self.xp} XP, {self.status})")

    def _repr_html_(self) -> str:
        esc = html.escape
        res = ", ".join(f"{esc(k.replace('_', ' '))} {v}/{self.resource_max.get(k, v)}"
                        for k, v in self._d["resources"].items())
        return (f'<div class="delvebook-delver"><b>{esc(self.name)}</b> '
                f'({esc(self.class_name)} {self.level}, player {esc(self.player)}) · '
                f'hearts {self.hearts}/{self.max_hearts} · XP {self.xp} · {esc(res)} · '
                f'{esc(format_purse(self.purse))} · {esc(self.status)}</div>')


class Foe(_Combatant):
    """A foe in an encounter."""

    @property
    def kind(self) -> str:
        return self._d["kind"]

    @property
    def tags(self) -> list[str]:
        return list(self._d.get("tags", ()))

    def __repr__(self) -> str:
        return f"Foe({self.name!r}, {self.hearts}/{self.max_hearts} hearts, {self.status})"


def format_purse(talons: int) -> str:
    """A purse as a keeper reads it: '2B 3C 4T' (1 B = 10 C = 100 T)."""
    if talons == 0:
        return "0T"
    sign = "-" if talons < 0 else ""
    b, rest = divmod(abs(talons), 100)
    c, t = divmod(rest, 10)
    parts = [f"{n}{u}" for n, u in ((b, "B"), (c, "C"), (t, "T")) if n]
    return sign + " ".join(parts)
