"""Plain data: the state of a campaign, and read-only views of delvers, foes, armor and conditions.

The state is a JSON-like dict (see ``new_state``), so it can be folded, copied, compared and cached;
the view classes and helpers give it names in the game's words (``hearts``, ``grit``, ``luck_dice``).
This module is the one place outside the engine that knows the state's layout: views ask it (``party``,
``foes``, ``is_dead``, ``current_actor``...) instead of reading the dicts themselves.

Standard library only: part of the pure core.
"""

from __future__ import annotations

from typing import Any, Mapping

from .dice_html import escape_html

__all__ = ["new_state", "Delver", "Foe", "Armor", "Condition", "format_purse", "held_resources", "STATUS_ALIVE",
           "STATUS_DYING",
           "STATUS_DEAD", "PARTY", "FOES", "CREATURE", "is_alive", "is_dying", "is_dead", "status_of", "combatant",
           "party", "party_names", "present", "dying", "foes", "foe_names", "conditions_on", "luck_dice",
           "current_actor", "Creature", "creatures", "npcs", "familiar_of", "owner_of", "used_this_turn"]

STATUS_ALIVE = "alive"
STATUS_DYING = "dying"     # below 1 heart with a death save to make
STATUS_DEAD = "dead"

PARTY, FOES = "party", "foes"  # the two sides of a fight
CREATURE = "creature"          # a named creature outside the party and the fight's foes: an NPC, a familiar


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
        "coin_pool": 0,             # talons earned that have not yet made a whole coin of XP (core.xp.coin)
        "xp_awarded": 0,            # every XP ever awarded (held by delvers + pool)
        "encounter": None,
        "encounters_fought": 0,
        "conditions": [],
        "next_condition": 1,
        "creatures": {},            # name -> a named creature outside the party and the fight's foes (NPCs,
                                    # familiars): it can be checked, saved, targeted, and outlasts fights
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
    """A piece of armor: the armor value (AV) it gives as worn (the wearer's Armorer bonus included),
    durability value (DV) left, and whether it is broken."""

    @property
    def name(self) -> str:
        return self._d["name"]

    @property
    def av(self) -> int:
        """The AV this piece gives its wearer (its own, plus what the wearer's specialty adds)."""
        return self._d["av"] + self._d.get("bonus_av", 0)

    @property
    def base_av(self) -> int:
        """The piece's own AV, whoever wears it."""
        return self._d["av"]

    @property
    def bonus_av(self) -> int:
        """What the wearer adds to this piece's AV (the Armorer specialty: +1 on worn armor, not shields)."""
        return self._d.get("bonus_av", 0)

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
        esc = escape_html  # every value, numbers included, escaped where it is written
        d = self._d
        res = ", ".join(f"{esc(str(k).replace('_', ' '))} {esc(v)}/{esc(top)}" for k, v, top in held_resources(d))
        purse = d.get("purse")
        purse = format_purse(purse) if isinstance(purse, int) and not isinstance(purse, bool) else purse
        return (f'<div class="delvebook-delver"><b>{esc(d.get("name"))}</b> '
                f'({esc(d.get("class_name", d.get("class_id")))} {esc(d.get("level"))}, player '
                f'{esc(d.get("player"))}) · hearts {esc(d.get("hearts"))}/{esc(d.get("max_hearts"))} · '
                f'XP {esc(d.get("xp"))} · {res} · {esc(purse)} · {esc(d.get("status"))}</div>')


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


class Creature(Foe):
    """A named creature outside the party and the fight's foes: an NPC the keeper introduced (``role`` npc), or
    a mage's familiar (``role`` familiar, with its ``owner``)."""

    @property
    def role(self) -> str:
        return self._d.get("role", "npc")

    @property
    def owner(self) -> str | None:
        return self._d.get("owner")

    def __repr__(self) -> str:
        whose = f" of {self.owner}" if self.owner else ""
        return f"Creature({self.name!r}, {self.role}{whose}, {self.hearts}/{self.max_hearts} hearts, {self.status})"


_TEXT_COINS = ((100, "B"), (10, "C"), (1, "T"))  # for a caller without the rules at hand; see format_purse


def format_purse(talons: int, units: Mapping | None = None) -> str:
    """A purse as a keeper reads it: '2B 3C 4T', largest coin first.

    ``units`` is the rules' currency table (``rules.core["currency"]["units"]``: id -> {symbol, talons}), so a
    campaign's own coins show; without it the text's bars, crowns and talons are used (1 B = 10 C = 100 T)."""
    if units is None:
        coins = _TEXT_COINS
    else:
        coins = tuple(sorted(((u["talons"], u["symbol"]) for k, u in units.items() if isinstance(u, Mapping)),
                             reverse=True))
    if talons == 0:
        return f"0{coins[-1][1]}"
    sign = "-" if talons < 0 else ""
    left = abs(talons)
    parts = []
    for worth, symbol in coins:
        n, left = divmod(left, worth)
        if n:
            parts.append(f"{n}{symbol}")
    return sign + " ".join(parts)

class Condition(_View):
    """A condition in play: who has it, from whom, when it began and when it ends."""

    @property
    def id(self) -> int:
        return self._d["id"]

    @property
    def kind(self) -> str:
        return self._d["kind"]

    @property
    def who(self) -> str:
        return self._d["who"]

    @property
    def source(self) -> str | None:
        return self._d["source"]

    @property
    def start(self) -> int:
        return self._d["start"]

    @property
    def ends_at(self) -> int | None:
        """Game clock (seconds) at which it ends by itself, or None."""
        return self._d["ends_at"]

    @property
    def ends_on(self) -> str | None:
        """``"rest"`` or ``"turn:NAME"`` (the start of NAME's next turn), or None."""
        return self._d["ends_on"]

    @property
    def ends_when(self) -> list[str]:
        """Actions that end it early (``attack``, ``cast``)."""
        return list(self._d["ends_when"])

    @property
    def data(self) -> Mapping:
        return self._d["data"]

    def __repr__(self) -> str:
        return f"Condition({self.id}: {self.kind} on {self.who!r} from {self.source!r})"


# ---------------------------------------------------------------- reading the state

def _status(c: Any) -> str:
    return c["status"] if c.__class__ is dict or not isinstance(c, _Combatant) else c.status


def status_of(c: Any) -> str:
    """A combatant's status (alive, dying, dead), from its dict or its view."""
    return _status(c)


def is_alive(c: Any) -> bool:
    """Up and able: neither dying nor dead."""
    return _status(c) == STATUS_ALIVE


def is_dying(c: Any) -> bool:
    """Below 1 heart with a death save to make."""
    return _status(c) == STATUS_DYING


def is_dead(c: Any) -> bool:
    return _status(c) == STATUS_DEAD


def combatant(state: Mapping, name: str) -> tuple[str, Mapping] | None:
    """(``"delver"`` | ``"foe"`` | ``"creature"``, its data) for a name in the party, the current fight, or the
    named creatures (NPCs, familiars); None if no one."""
    if not isinstance(name, str):
        return None
    d = state["delvers"].get(name)
    if d is not None:
        return "delver", d
    enc = state["encounter"]
    if enc is not None:
        d = enc["foes"].get(name)
        if d is not None:
            return "foe", d
    c = state.get("creatures", {}).get(name)
    if c is not None:
        return CREATURE, c
    return None


def creatures(state: Mapping, *, living: bool = False) -> list[Creature]:
    """The named creatures outside the party and the fight (NPCs and familiars), in the order they came."""
    return [Creature(c) for c in state.get("creatures", {}).values()
            if not living or c["status"] != STATUS_DEAD]


def npcs(state: Mapping) -> list[Creature]:
    """The NPCs the keeper named (outside the fight's foes), living or dead."""
    return [c for c in creatures(state) if c.role == "npc"]


def familiar_of(state: Mapping, who: str) -> Creature | None:
    """``who``'s familiar while it lives (a mage has only one), else None."""
    for c in state.get("creatures", {}).values():
        if c.get("role") == "familiar" and c.get("owner") == who and c["status"] != STATUS_DEAD:
            return Creature(c)
    return None


def owner_of(state: Mapping, name: str) -> str | None:
    """The delver a companion (a familiar) belongs to, or None."""
    c = state.get("creatures", {}).get(name)
    return c.get("owner") if c is not None else None


def used_this_turn(state: Mapping, who: str) -> dict[str, str]:
    """What ``who`` has used in the current turn of the fight (``{"action": "attack Goblin 1"}``); {} outside."""
    enc = state["encounter"]
    if enc is None:
        return {}
    return dict(enc.get("used", {}).get(who, {}))


def party_names(state: Mapping) -> list[str]:
    """The party's names in seat order (clockwise), the dead included."""
    return list(state["seats"])


def party(state: Mapping) -> list[Delver]:
    """The party in seat order (clockwise), the dead included."""
    return [Delver(state["delvers"][n]) for n in state["seats"]]


def present(state: Mapping) -> list[str]:
    """The party present: every delver not dead, in seat order (XP and coins are split across them)."""
    delvers = state["delvers"]
    return [n for n in state["seats"] if delvers[n]["status"] != STATUS_DEAD]


def foe_names(state: Mapping, *, living: bool = False) -> list[str]:
    """The current fight's foes by name (``living``: those not dead); [] outside a fight."""
    enc = state["encounter"]
    if enc is None:
        return []
    return [n for n, f in enc["foes"].items() if not living or f["status"] != STATUS_DEAD]


def foes(state: Mapping) -> list[Foe]:
    """The current fight's foes, in the order they joined; [] outside a fight."""
    enc = state["encounter"]
    return [Foe(f) for f in enc["foes"].values()] if enc is not None else []


def conditions_on(state: Mapping, who: str | None = None, kind: str | None = None) -> list[Condition]:
    """The conditions in play (on ``who``, of ``kind``), oldest first."""
    return [Condition(c) for c in state["conditions"]
            if (who is None or c["who"] == who) and (kind is None or c["kind"] == kind)]


def luck_dice(state: Mapping) -> dict[str, int]:
    """Each player's luck dice left this session."""
    return dict(state["luck"])


def held_resources(d: Mapping) -> list[tuple[str, Any, Any]]:
    """(resource, left, most) for each resource a delver's sheet holds that it has: a resource at 0 of 0 (a
    mage's wand charges before level 2 brings the wand) is not one it has. A hand-edited sheet is read as it is."""
    maxes = d.get("resource_max") if isinstance(d.get("resource_max"), Mapping) else {}
    resources = d.get("resources") if isinstance(d.get("resources"), Mapping) else {}
    return [(k, v, top) for k, v in resources.items() if (top := maxes.get(k, v)) or v]


def dying(state: Mapping) -> list[str]:
    """Delvers with a death save to make, in seat order."""
    delvers = state["delvers"]
    return [n for n in state["seats"] if delvers[n]["status"] == STATUS_DYING]


def current_actor(state: Mapping) -> str | None:
    """Whose turn it is in the fight (None outside a fight, before initiative, or past the end of a side)."""
    enc = state["encounter"]
    if enc is None or enc["side"] is None:
        return None
    order = enc["order"][enc["side"]]
    return order[enc["turn"]] if enc["turn"] < len(order) else None
