"""What every panel of the view model shares: the UI state (``UI``), who acts, how a combatant's hearts show
(exact, or as a wound word on the players' screen), and the small shapes the page draws (a form field, an
option, odds as a percent)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Mapping

from ..core.distribution import percent
from ..core.model import combatant, creatures, current_actor, is_dead, is_dying

__all__ = ["UI", "SCOPES", "PANELS", "KEEPER_TABS", "FIND_FROM", "foe_field", "field_error", "deed", "edit_form", "turn_key",
           "actor_of", "fields_key", "attack_fields", "combatant_names", "creature_names", "familiars", "frac", "wound",
           "bar_frac", "clock", "odds_text", "field_", "option", "hearts_label", "hearts_hidden",
           "hidden_names"]

SCOPES = ("table", "card", "fight", "log", "roll")
PANELS = ("play", "keeper", "party", "charts")
KEEPER_TABS = ("table", "party", "bestiary", "encounters", "tables")
"""The Keeper panel's sections: at the table (sessions, XP, NPCs...), then preparing the evening: the party, the
bestiary, prepared encounters (the builder, its forecast and the tuner), roll tables."""
FIND_FROM = 40
"""A foe field lists the foe types to pick from up to this many; past it, the keeper types an id or a name (with
this many suggestions): a bestiary of ten thousand costs a click no more than one of ten."""


@dataclass
class UI:
    """What the table shows besides the campaign: who is selected, the open panel and form, the target number,
    the attack options, a pending confirmation, the last refusal and where it came from. Plain data (it rides
    in the view model), so a reloaded page or a second browser shows the same table."""

    mode: str = "keeper"              # "keeper" | "players" (the second screen) | "player" (one player's page)
    scope: str = "table"              # what this widget shows: the whole table, or one part of it
    who: str | None = None            # the delver of a card
    focus: int | None = None          # the action a roll view follows (by the seq it was first made with)
    panel: str = "play"
    selected: str | None = None       # who the action bar is for (the current actor when None)
    selected_at: Any = None           # the turn it was picked on: a new turn gives the bar to its actor
    target: int = 10                  # the target number checks are made against
    vs: str | None = None             # or the opponent they are made against
    attack: dict = field(default_factory=dict)  # attack options: advantage, multi, bonus, smite...
    attack_for: Any = None            # whose turn they were set on ([actor, turn]): another actor starts afresh
    form: str | None = None           # the open form
    luck_player: str | None = None    # the player picked to spend luck dice
    luck_seq: int | None = None       # on this action (a new action picks again)
    confirm: dict | None = None       # a guard rail asking once: {text, where, yes, yes_label, no_label}
    refusal: dict | None = None       # the last refusal: {text, where}
    touched: list = field(default_factory=list)  # who the last event changed (from Outcome.touched)
    hide_hearts: bool = False         # players' mode: the delvers' exact hearts are not shown
    foe_hearts: bool = False          # players' mode: the foes' exact hearts are shown (the keeper says so)
    ack: Any = None                   # the last intent handled (the page waits for it)
    keeper_tab: str | None = None     # the Keeper panel's section (KEEPER_TABS; None: the party for an empty table)
    edit: dict | None = None          # what a Keeper form edits: {"kind": "foe" | "table", "id"}
    new_class: str | None = None      # the class whose starting choices the new-delver form shows
    builder: dict | None = None       # the encounter builder: {"id", "name", "note", "foes": [[id, n]], "out", "dark"}
    forecast: dict | None = None      # the builder's forecast as it runs (written by table.forecasting)
    tuning: dict | None = None        # the tuner as it runs (written by table.forecasting)
    mine: dict | None = None          # a player's page: their requests and the keeper's asks, as the server read them
    fallen_open: bool = False         # the party strip's fallen listed by name (folded: their count)
    recap_open: bool = False          # the Keeper panel's "Last time..." told (folded: nothing computed)
    shown: int | None = None          # players' mode: the session whose recap the keeper shows on their screen

    def to_dict(self) -> dict:
        return asdict(self)


# ---------------------------------------------------------------- small helpers

def turn_key(state: Mapping) -> Any:
    """The turn now (fight number, round, side, turn), or None outside a fight's turns."""
    enc = state["encounter"]
    if enc is None or enc["side"] is None:
        return None
    return [enc["number"], enc["round"], enc["side"], enc["turn"]]


def combatant_names(state: Mapping, *, living: bool = True) -> list[str]:
    """The party in seat order, the fight's foes, then the named creatures (NPCs, familiars)."""
    enc = state["encounter"]
    party = [n for n in state["seats"] if not (living and is_dead(state["delvers"][n]))]
    foes = [n for n, f in enc["foes"].items() if not (living and is_dead(f))] if enc else []
    return party + foes + creature_names(state, living=living)


def creature_names(state: Mapping, *, living: bool = True) -> list[str]:
    return [c.name for c in creatures(state, living=living)]


def familiars(state: Mapping) -> list[str]:
    """The living familiars: they are in every fight beside their mages (they can attack and be attacked)."""
    return [c.name for c in creatures(state, living=True) if c.owner is not None]


def actor_of(camp, ui: UI) -> str | None:
    """Whose actions the bar shows: a card's delver; in a fight, the one picked this turn or else the current
    actor; outside a fight, the delver picked or the first at the table."""
    s = camp.state
    if ui.scope == "card":
        return ui.who if ui.who in s["delvers"] else None
    names = combatant_names(s, living=False)
    now = current_actor(s)
    if now is not None:
        if ui.selected in names and ui.selected_at == turn_key(s):
            return ui.selected
        return now
    if ui.selected in names:
        return ui.selected
    return s["seats"][0] if s["seats"] else None


def fields_key(camp, ui: UI) -> list:
    """Whom the per-actor fields (the attack options) belong to: the actor the bar shows, on the turn now. A new
    actor (the next turn, another delver picked) or a new turn of the same one is a new key: its fields start
    empty, so a multi-attack set for Wren never reaches Brakka's sword. The target number and the opponent of a
    check stay: they say the situation, for whoever checks."""
    return [actor_of(camp, ui), turn_key(camp.state)]


def attack_fields(camp, ui: UI) -> dict:
    """The attack options picked for the actor the bar shows now (empty when they were picked for another)."""
    return ui.attack if ui.attack and ui.attack_for == fields_key(camp, ui) else {}


def frac(have: int, top: int) -> float:
    return 0.0 if top <= 0 else max(0.0, min(1.0, have / top))


def wound(c: Mapping) -> str:
    """How a combatant looks without numbers."""
    if is_dead(c):
        return "down"
    if is_dying(c):
        return "dying"
    h, top = c["hearts"], c["max_hearts"]
    if h >= top:
        return "unhurt"
    return "wounded" if h * 2 > top else "badly wounded"


_WOUND_FRAC = {"unhurt": 1.0, "wounded": 0.66, "badly wounded": 0.33, "dying": 0.0, "down": 0.0}


def bar_frac(c: Mapping, hide: bool) -> float:
    """How full a hearts bar is drawn: exact, or by the wound word alone where the hearts are not shown (a bar
    as long as the hearts left would tell them)."""
    return _WOUND_FRAC[wound(c)] if hide else frac(c["hearts"], c["max_hearts"])


def clock(seconds: int) -> str:
    day, rest = divmod(int(seconds), 86400)
    h, rest = divmod(rest, 3600)
    return f"day {day + 1}, {h:02d}:{rest // 60:02d}"


def odds_text(p) -> str | None:
    return None if p is None else percent(p, 0)


def field_(name: str, kind: str, label: str, value: Any = None, options: list | None = None, *,
           required: bool = False, hint: str = "", min: int | None = None, max: int | None = None) -> dict:
    """A form field the page draws: ``text``, ``number``, ``choice`` (one of options), ``multi`` (any of
    options), ``flag``. Options are ``{"value", "label"}``."""
    out = {"name": name, "kind": kind, "label": label, "value": value, "required": required, "hint": hint}
    if options is not None:
        out["options"] = options
    if min is not None:
        out["min"] = min
    if max is not None:
        out["max"] = max
    return out


def option(value: Any, label: str) -> dict:
    return {"value": value, "label": label}


def foe_field(camp, name: str, label: str, value: Any = None, *, blank: str | None = None, hint: str = "") -> dict:
    """A field picking a foe type: a list of them while the bestiary is small, else text (an id or a name, as
    ``queries.foe_id`` reads it) with the first ``FIND_FROM`` as suggestions: one step whatever its size."""
    from itertools import islice
    from ..engine.queries import foe_types
    types = foe_types(camp.state, camp.rules)
    many = len(types) > FIND_FROM
    shown = [option(k, str(types[k].get("name", k))) for k in islice(types, FIND_FROM)]
    if many:
        return field_("foe" if name is None else name, "find", label, "" if value is None else value, shown,
                      hint=hint or f"a foe's id or name ({len(types):,} in the bestiary)")
    options = ([option("", blank)] if blank is not None else []) + shown
    first = options[0]["value"] if options else None
    return field_(name, "choice", label, first if value is None else value, options, hint=hint)


def edit_form(ui: "UI", kind: str, fields: list, do: str, add_label: str, name: str, where: str) -> dict:
    """A Keeper form that makes a new ``kind`` of thing, or changes the one ``ui.edit`` names (then it says whose
    it saves, and offers Cancel); the last refusal beside its field (``field_error``)."""
    editing = ui.edit if ui.edit and ui.edit.get("kind") == kind else None
    if editing is not None:
        submit: Any = [{"label": f"Save {name}", "intent": {"do": do, "id": editing["id"], "where": where}},
                       {"label": "Cancel", "intent": {"do": "edit_cancel", "where": where}}]
    else:
        submit = {"label": add_label, "intent": {"do": do, "where": where}}
    return field_error({"id": f"{kind}:{editing['id']}" if editing else kind, "fields": fields, "submit": submit},
                       ui, where)


def deed(ui: "UI", kind: str, title: str, fields: list, label: str, *, hint: str = "",
         given: Mapping | None = None) -> dict:
    """A card of the Keeper panel that plays one command (``kind``) by a form: ``fields`` named as the command's
    parameters, ``given`` what the card fixes itself; sent as the ``act`` intent, the last refusal said beside its
    field. A new command's control is one of these."""
    where = f"keeper:{kind}"
    intent = {"do": "act", "kind": kind, "where": where, **({"given": dict(given)} if given else {})}
    return {"title": title, "where": where, "hint": hint,
            "form": field_error({"id": kind, "fields": fields, "submit": {"label": label, "intent": intent}}, ui,
                                where)}


def field_error(form: dict, ui: "UI", where: str) -> dict:
    """``form`` with the last refusal written beside the field it names (``ui.refusal["field"]``), when it came
    from here: what was typed wrong is said next to it."""
    r = ui.refusal
    if not r or r.get("where") != where or not r.get("field"):
        return form
    for f in form.get("fields", ()):
        if f["name"] == r["field"]:
            f["error"] = r["text"]
    return form


def hearts_label(camp, name: str, ui: UI) -> str:
    found = combatant(camp.state, name)
    c = found[1] if found is not None else None
    if c is None:
        return name
    if hearts_hidden(camp, ui, name):
        return f"{name} ({wound(c)})"
    return f"{name} ({c['hearts']}/{c['max_hearts']} hearts{', ' + c['status'] if c['status'] != 'alive' else ''})"


def hidden_names(camp, ui: UI) -> list[str]:
    """Every combatant whose hearts this view does not show (what the teller leaves out too)."""
    return [n for n in combatant_names(camp.state, living=False) if hearts_hidden(camp, ui, n)]


def hearts_hidden(camp, ui: UI, name: str) -> bool:
    """Whether this combatant's hearts are not shown: foes (unless the keeper shows them) and, if asked, delvers
    on the players' screen."""
    if ui.mode != "players":
        return False
    return ui.hide_hearts if name in camp.state["delvers"] else not ui.foe_hearts
