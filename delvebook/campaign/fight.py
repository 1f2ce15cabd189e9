"""The running encounter seen from its campaign (``Fight``), and a delver seen from it (a live card in a cell)."""

from __future__ import annotations

from typing import Any, Mapping

from ..engine import Refused
from ..core.model import Delver, Foe, current_actor
from .outcome import Outcome, view

__all__ = ["Fight", "TableDelver"]


class TableDelver(Delver):
    """A delver seen from its campaign: in a notebook cell it shows its live character card."""

    def __init__(self, data: Mapping, camp: Any):
        super().__init__(data)
        self._camp = camp

    def _ipython_display_(self) -> None:
        from IPython.display import display
        display(view("card")(self._camp, self.name))


class Fight:
    """The running encounter, seen from the campaign: foes, order, the current actor, and its actions."""

    def __init__(self, camp: Any):
        self.camp = camp

    @property
    def _enc(self) -> dict:
        enc = self.camp.state["encounter"]
        if enc is None:
            raise Refused("this fight has ended")
        return enc

    @property
    def foes(self) -> list[Foe]:
        return [Foe(f) for f in self._enc["foes"].values()]

    def foe(self, name: str) -> Foe:
        return Foe(self._enc["foes"][name])

    @property
    def round(self) -> int:
        return self._enc["round"]

    @property
    def side(self) -> str | None:
        return self._enc["side"]

    @property
    def order(self) -> dict[str, list[str]]:
        return {k: list(v) for k, v in self._enc["order"].items()}

    @property
    def actor(self) -> str | None:
        return current_actor(self.camp.state)

    def initiative(self, first: str | None = None, faces: Mapping | None = None, *,
                   keeper_override: str | None = None) -> Outcome:
        """Sides roll D6 (ties re-rolled), or ``first="party"``/``"foes"`` when one side obviously goes first."""
        return self.camp.act("initiative", faces=faces, first=first, keeper_override=keeper_override)

    def attack(self, attacker: str, target: str, weapon: Any = None, faces: Mapping | None = None,
               **options: Any) -> Outcome:
        """``attacker`` attacks ``target`` on its turn (its action; ``keeper_override="why"`` to ignore the turn).
        ``counter_weapon`` names the target's answer, ``thrown=True`` throws a melee weapon, ``smite=True``
        declares a smite (or choose it after the hit: ``on_hit("smite")``)."""
        return self.camp.act("attack", faces=faces, attacker=attacker, target=target, weapon=weapon, **options)

    def on_hit(self, option: str, hit: int | None = None, faces: Mapping | None = None) -> Outcome:
        """A choice the latest attack offered once its hit was seen (a smite): see ``Campaign.on_hit``."""
        return self.camp.on_hit(option, hit=hit, faces=faces)

    def may_act(self, who: str):
        """May ``who`` act now, and with what: see ``Campaign.may_act``."""
        return self.camp.may_act(who)

    def next_turn(self, *, keeper_override: str | None = None) -> Outcome:
        return self.camp.act("next_turn", keeper_override=keeper_override)

    def set_order(self, order: list[str], *, keeper_override: str | None = None) -> Outcome:
        return self.camp.act("set_order", order=list(order), keeper_override=keeper_override)

    def add_foes(self, foes: list, *, keeper_override: str | None = None) -> Outcome:
        return self.camp.act("add_foes", foes=list(foes), keeper_override=keeper_override)

    def end(self, keep: list | None = None, *, keeper_override: str | None = None) -> Outcome:
        """End the fight: XP for the vanquished, split across the party; ``keep`` names foes still standing who
        stay in the story as NPCs (NPCs who fought go back to being NPCs by themselves)."""
        return self.camp.act("end_encounter", keep=list(keep) if keep else None, keeper_override=keeper_override)

    def _ipython_display_(self) -> None:
        """Left last in a cell: the live fight tracker (the view registered as ``fight``), or the fight in words
        where no front end is installed."""
        from IPython.display import display
        try:
            shown = view("fight")
        except LookupError:
            display({"text/plain": repr(self)}, raw=True)
            return
        display(shown(self.camp))

    def __repr__(self) -> str:
        try:
            enc = self._enc
        except Refused:
            return "<Fight (ended)>"
        foes = ", ".join(f"{f['name']} {f['hearts']}/{f['max_hearts']}" for f in enc["foes"].values())
        return f"<Fight {enc['name']!r}, round {enc['round']}, actor {self.actor}: {foes}>"
