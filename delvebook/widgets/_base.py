"""What every view shares: the table (one campaign, its message line, the latest outcome) and small HTML helpers.

A click goes through ``Table.act``: the campaign's API is called, a refusal or a dice typo becomes a message
(nothing changes), and the campaign's listener tells every view to update its widgets in place.
"""

from __future__ import annotations

import weakref
from importlib import resources
from typing import Any, Callable

import ipywidgets as w

from ..dice import DiceError, escape_html
from ..engine import Refused

__all__ = ["Table", "esc", "put", "bar_html", "luck_pips", "css"]

ERRORS = (Refused, DiceError, ValueError, KeyError, TypeError)


def esc(text: Any) -> str:
    """Text from a campaign file (names, notes) made safe for an HTML widget."""
    return escape_html(text if type(text) is str else str(text))


def put(widget: w.Widget, **traits: Any) -> None:
    """Set only the traits whose value differs: an unchanged value costs no validation (and sends nothing)."""
    for name, value in traits.items():
        if getattr(widget, name) != value:
            setattr(widget, name, value)


def css() -> str:
    return resources.files(__package__).joinpath("static/delvebook.css").read_text()


def style_widget() -> w.HTML:
    return w.HTML(f"<style>{css()}</style>", layout=w.Layout(display="none"))


def hearts_colour(hearts: int, top: int) -> str:
    frac = hearts / top if top else 0
    return "#2e7d32" if frac > 0.5 else "#e09b00" if frac > 0.25 else "#c62828"


def luck_pips(left: int, per_session: int) -> str:
    """Luck dice as pips: one filled per die left, one hollow per die spent."""
    return f'<span class="db-pips">{"◆" * left}{"◇" * max(0, per_session - left)}</span>'


def bar_html(value: int, top: int, label: str, colour: str, cls: str = "", data: dict | None = None) -> str:
    pct = 0 if top <= 0 else max(0, min(100, round(100 * value / top)))
    attrs = "".join(f' data-{k}="{esc(v)}"' for k, v in (data or {}).items())
    return (f'<div class="db-bar {cls}"{attrs} title="{esc(label)}"><div class="db-fill" '
            f'style="width:{pct}%;background:{colour}"></div><span class="db-label">{esc(label)}</span></div>')


def _weak_listener(view: Any) -> Callable:
    """A campaign listener that does not keep a closed-over view alive (old dashboards are let go)."""
    ref = weakref.ref(view)

    def listener(outcome) -> None:
        target = ref()
        if target is None:
            try:
                view_camp.listeners.remove(listener)
            except ValueError:
                pass
            return
        target.on_event(outcome)

    view_camp = view.camp
    return listener


def _outcome(event: dict):
    from ..campaign import Outcome
    return Outcome(event)


class Table:
    """One campaign at the table: its views, the message line, the latest outcome, the keeper's target number."""

    def __init__(self, camp):
        self.camp = camp
        self.views: list = []
        self.message = w.HTML("", layout=w.Layout(min_height="1.6em"))
        self.message.add_class("db-message")
        # the latest Outcome seen: at first, the latest action in force that rolled dice (a cell may have rolled)
        action = camp.latest_action
        self.latest = _outcome(action) if action is not None and action.get("rolls") else None
        # the roll panel's choices that roll buttons read: a target number, or an opponent
        self.target = w.BoundedIntText(value=10, min=1, max=60, description="Target",
                                       layout=w.Layout(width="130px"), style={"description_width": "45px"})
        self.opponent = w.Dropdown(options=[("target number", "")], value="", description="or vs",
                                   layout=w.Layout(width="200px"), style={"description_width": "40px"})
        self.target.observe(self._choice_changed, "value")
        self.opponent.observe(self._choice_changed, "value")
        self._busy = False
        self._changed: list | None = None  # the paths the event being shown changed; None: anything may have
        self._whole: set = set()
        self._under: set = set()
        self.luck_only: str | None = None  # the player whose luck count is all the event changed (a luck die)
        self._hidden: set = set()  # views on a tab not shown: they skip events ...
        self._stale: set = set()  # ... and those that skipped one catch up in full when shown again
        camp.listeners.append(_weak_listener(self))

    # ---- acting
    def act(self, fn: Callable, *args: Any, **kwargs: Any):
        """Call the campaign; a refusal is shown as a message and changes nothing."""
        try:
            out = fn(*args, **kwargs)
        except ERRORS as err:
            self.say(str(err).strip("'\""), refused=True)
            return None
        self.say("")
        return out

    def say(self, text: str, refused: bool = False) -> None:
        if not text:
            value = ""
        elif refused:
            value = f'<span class="db-refused" data-kind="refused">Refused: {esc(text)}</span>'
        else:
            value = f'<span class="db-ok">{esc(text)}</span>'
        put(self.message, value=value)

    # ---- refreshing
    def add(self, view) -> None:
        self.views.append(view)

    def on_event(self, outcome) -> None:
        self.latest = outcome
        self._changed = changed = self._paths_changed(outcome)
        if changed is not None:  # what ``touched`` looks in: each changed path, and every prefix of one
            self._whole = set(changed)
            self._under = {p[:k] for p in changed for k in range(len(p) + 1)}
            only = next(iter(self._whole)) if len(self._whole) == 1 else None
            self.luck_only = only[1] if only is not None and len(only) == 2 and only[0] == "luck" else None
        try:
            self.refresh()
        finally:
            self._changed = None
            self.luck_only = None

    def _paths_changed(self, outcome) -> list[tuple] | None:
        """Every place the event may have changed: its own changes, and for an undo, a redo or a replacing
        action (a luck die, real dice) also those of the actions it takes back or puts back."""
        kind = outcome.get("kind")
        todo = [outcome.get("undoes") if kind == "undo" else outcome.get("redoes") if kind == "redo"
                else outcome.get("seq")]
        paths: list[tuple] = []
        while todo:
            try:
                event = self.camp.event(todo.pop())
            except KeyError:
                return None  # not folded in yet: assume anything may have changed
            paths += [tuple(p) for p, _ in event.get("changes", ())]
            if "replaces" in event:
                todo.append(event["replaces"])
        return paths

    def touched_where(self, matters: Callable[[tuple], bool]) -> bool:
        """Whether any place the event changed is one for which ``matters(path)`` is true."""
        return self._changed is None or any(matters(p) for p in self._changed)

    def changed_only(self, kind: Callable[[tuple], bool]) -> bool:
        """Whether every place the event changed is one for which ``kind(path)`` is true (False if unknown)."""
        return self._changed is not None and all(kind(p) for p in self._changed)

    def touched(self, *prefix) -> bool:
        """Whether the event being shown may have changed the state under ``prefix`` (views skip the rest)."""
        if self._changed is None:
            return True
        # a change under the prefix, or one that replaced a whole branch the prefix is in
        return prefix in self._under or any(prefix[:k] in self._whole for k in range(len(prefix)))

    def refresh(self) -> None:
        if self._busy:
            return
        self._busy = True
        try:
            if self.touched_where(lambda p: p[:1] in (("encounter",), ("seats",)) and not is_wound(p)):
                self._refresh_opponents()  # who can be picked changes; a wound does not change it
            quiet = self._changed == []  # an event that changed nothing (a check): only the event views redraw
            for v in self.views:
                if quiet and getattr(v, "shows_state_only", False):
                    continue
                if v in self._hidden:
                    self._stale.add(v)
                    continue
                v.refresh()
        finally:
            self._busy = False

    def show(self, views, showing: bool = True) -> None:
        """Say which views are on screen (a dashboard's tabs). A hidden view sends nothing to the page; when it
        is shown again it redraws in full if anything happened meanwhile."""
        views = list(views)
        if not showing:
            self._hidden.update(views)
            return
        self._hidden.difference_update(views)
        stale = [v for v in views if v in self._stale]
        self._stale.difference_update(stale)
        saved, self._changed = self._changed, None  # anything may have changed while it was hidden
        try:
            for v in stale:
                v.refresh()
        finally:
            self._changed = saved

    def _choice_changed(self, _change) -> None:
        for v in self.views:
            if hasattr(v, "refresh_chances"):
                if v in self._hidden:
                    self._stale.add(v)
                    continue
                v.refresh_chances()

    def _refresh_opponents(self) -> None:
        opts = [("target number", "")]
        enc = self.camp.state["encounter"]
        if enc is not None:
            opts += [(f"{n} (foe)", n) for n, f in enc["foes"].items() if f["status"] != "dead"]
        opts += [(n, n) for n in self.camp.state["seats"]]
        set_options(self.opponent, opts)

    # ---- reading what the buttons need
    @property
    def vs(self) -> str | None:
        return self.opponent.value or None


_WOUNDS = ("hearts", "armor")


def is_wound(path: tuple) -> bool:
    """A change to a combatant's hearts or armor only (what most attacks change): views that show neither
    (the order of play, who can be picked, the odds) skip it."""
    if path[:2] == ("encounter", "foes"):
        return len(path) > 3 and path[3] in _WOUNDS
    return path[:1] == ("delvers",) and len(path) > 2 and path[2] in _WOUNDS


def set_options(dd, options: list, default: Any = None) -> None:
    """Change a selection widget's options in place, keeping its value when it is still offered."""
    wanted = [tuple(o) if isinstance(o, (tuple, list)) else o for o in options]
    if wanted == getattr(dd, "_delvebook_options", None) and (default is None or dd.value == default):
        return  # the same options as last time (and nothing asked of the value): nothing to send
    values = [o[1] if isinstance(o, tuple) else o for o in options]
    keep = dd.value if dd.value in values else (default if default in values else (values[0] if values else None))
    current = [tuple(o) if isinstance(o, (tuple, list)) else o for o in dd.options]
    with dd.hold_sync():  # one message to the page, not one per trait the change touches
        if current != wanted:
            dd.options = options
        if keep is not None and dd.value != keep:
            dd.value = keep
    dd._delvebook_options = wanted


def button(description: str, on_click: Callable, *, style: str = "", tooltip: str = "", width: str = "auto",
           cls: str = "") -> w.Button:
    b = w.Button(description=description, button_style=style, tooltip=tooltip or description,
                 layout=w.Layout(width=width))
    if cls:
        b.add_class(cls)
    b.on_click(lambda _b: on_click())
    return b
