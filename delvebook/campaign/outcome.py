"""What an action returns (``Outcome``: the event, with its rolls drawn in a notebook), and the views a front end
registers for a campaign to show itself through (``view``): the campaign imports no view."""

from __future__ import annotations

from typing import Any, Mapping

from ..core.dice import Roll
from ..core.dice_html import roll_html
from ..core.events import Touched

__all__ = ["Outcome", "VIEW_GROUP", "view"]


class Outcome(dict):
    """An event of play as the action returned it: a dict, with its rolls drawn in a notebook. Left last in a cell
    it shows the campaign's live roll view (the view registered as ``roll``: its dice, luck dice and real dice,
    following the action when a luck die replaces it), or its own HTML where no front end is installed."""

    _roll_objects: dict | None = None  # the rolls themselves, when the engine that made them handed them over
    touched: Touched | None = None  # what the event changed (delvers, foes, players...), when it was just applied
    campaign: Any = None  # the campaign that recorded it (its views show it live)

    def __getattr__(self, name: str) -> Any:
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None

    @property
    def rolls(self) -> dict[str, Roll]:
        if self._roll_objects is not None:
            return dict(self._roll_objects)
        return {k: Roll.from_dict(v) for k, v in self.get("rolls", {}).items()}

    @property
    def roll(self) -> Roll | None:
        """The action's first roll (the check, the attack), with any luck spent on it."""
        rolls = self.get("rolls")
        return Roll.from_dict(next(iter(rolls.values()))) if rolls else None

    def summary(self) -> str:
        """The outcome told in one line (``narrate.describe``)."""
        from ..narrate import describe
        return describe(self, self.campaign)

    def _ipython_display_(self) -> None:
        from IPython.display import display
        camp = self.campaign
        if camp is not None:
            try:
                shown = view("roll")
            except LookupError:  # no front end installed: the outcome's own HTML
                pass
            else:
                display(shown(camp, self))
                return
        display({"text/html": self._repr_html_(), "text/plain": repr(self)}, raw=True)

    def _repr_html_(self) -> str:
        from ..core.dice import DiceError
        from ..core.dice_html import escape_html as esc
        try:
            summary = self.summary()
        except Exception:  # a record the narrator cannot read (a hand-made event): show its kind, escaped
            summary = f"{self.get('kind')}"
        parts = [f'<div class="delvebook-outcome"><div>{esc(summary)}</div>']
        records = self.get("rolls") if self._roll_objects is None else None
        if records is None:
            rolls = list((self._roll_objects or {}).values())
        else:
            rolls = []
            for name, rec in (records.items() if isinstance(records, Mapping) else ()):
                try:
                    rolls.append(Roll.from_dict(rec))
                except (DiceError, KeyError, TypeError, ValueError, AttributeError):
                    parts.append(f'<div class="delvebook-roll">{esc(name)}: {esc(rec)}</div>')
        for r in rolls:
            parts.append(roll_html(r))
        parts.append("</div>")
        return "".join(parts)


VIEW_GROUP = "delvebook.views"
"""The entry-point group where a front end registers its views (``dashboard``, ``card``): the campaign shows
itself through whatever is installed, and imports no view."""


def view(name: str):
    """The view registered as ``name`` (a callable taking the campaign)."""
    from importlib.metadata import entry_points
    found = [ep for ep in entry_points(group=VIEW_GROUP) if ep.name == name]
    if not found:
        raise LookupError(f"no delvebook view {name!r} is installed: pip install 'delvebook[table]'")
    return found[0].load()
