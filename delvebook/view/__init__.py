"""The view: one JSON-shaped dict computed from the campaign's state and rules and a small UI state, which the page
draws as it is (``static/*.js``, an ES module a panel, joined by ``front``), with the shape every click's message must
have (``shape``). The keeper's table (``delvebook.table``) and the players' pages (``delvebook.pages``) both draw it.

``table_view(camp, ui)`` is a pure function: every number, odd and option comes from ``engine.queries``, the
rules data or the campaign's public API (which actions stand: ``camp.standing``, kept by History as it folds),
every text is plain text (the page sets it with ``textContent``), and every control carries the intent it sends
back (``{"do": "attack", ...}``), so no rule lives in the page. Nothing is kept between two calls: the view is
computed from state each time (the Charts panel's series, kept up to date per event, are the one exception:
``charts``).

One module per panel, as the page draws them: ``header``, ``party`` (the party strip and the creatures),
``fight``, ``actor`` (the action bar, with ``checks``, ``attacks``, ``actions`` and ``choices``), ``outcome`` (with
the luck dice), ``log`` (with the players' last rolls), ``keeper`` (with its preparing sections: ``preparing`` for the
party and the bestiary, ``encounters`` for the builder, ``rolltables``), ``sheets``, ``charts``, ``phones`` (the
players' requests, links and the rolls sent to them), ``player`` (one player's own page, ``mode="player"``);
``recap`` ("Last time...", and the recap the players' screen shows); ``shared`` holds what they share (the ``UI`` state, who acts, how hearts show).

Standard library only, and nothing Pyodide lacks (no threads, no subprocess): the table runs in JupyterLite.
"""

from __future__ import annotations

from typing import Any, Mapping

from ..core.model import current_actor
from .actions import gather_darts
from .actor import actor_bar
from .attacks import asked_of
from .charts import charts_available, charts_panel
from .fight import fight_bar
from .header import header_bar
from .keeper import keeper_panel
from .log import LAST_ROLLS, last_rolls, log_rows
from .outcome import luck, outcome_panel, standing_version
from .party import creature_strip, fallen_row, party_strip
from .phones import requests_box
from .player import player_page
from .recap import shown_recap
from .sheets import sheets_panel
from .shared import KEEPER_TABS, PANELS, SCOPES, UI, actor_of, attack_fields, fields_key, turn_key

__all__ = ["UI", "table_view", "SCOPES", "PANELS", "KEEPER_TABS", "actor_of", "turn_key", "asked_of", "attack_fields",
           "fields_key", "charts_available", "LAST_ROLLS", "gather_darts"]


def table_view(camp, ui: UI | Mapping | None = None) -> dict:
    """The view model of ``camp`` as ``ui`` asks for it (JSON-shaped: text, numbers, lists, dicts)."""
    if ui is None:
        ui = UI()
    elif not isinstance(ui, UI):
        ui = UI(**ui)
    if ui.mode == "player":
        return player_page(camp, ui)
    s = camp.state
    now = current_actor(s)
    scope = ui.scope
    out: dict[str, Any] = {"v": 1, "mode": ui.mode, "scope": scope, "ack": ui.ack, "title": camp.name,
                           "refusal": ui.refusal, "confirm": ui.confirm, "panel": ui.panel}
    charts = ui.mode == "keeper" and charts_available()
    out.update(header_bar(camp, ui, charts))
    actor = actor_of(camp, ui)
    if scope == "table":
        out["party"] = party_strip(camp, ui, actor, now)
        out["fallen"] = fallen_row(camp, ui, actor)
        out["creatures"] = creature_strip(camp, ui, actor, now)
        out["fight"] = fight_bar(camp, ui, now)
        if ui.panel == "play" or ui.mode == "players":
            out["actor"] = actor_bar(camp, ui, actor)
            if not s["seats"] and ui.mode == "keeper":  # a new campaign: where the party is made
                out["empty"] = {"text": "No one at the table yet: make the party, the foes and the encounters "
                                        "in the Keeper panel.", "label": "Prepare the evening",
                                "intent": {"do": "panel", "panel": "keeper", "where": "actor"}}
        elif ui.panel == "keeper":
            out["keeper"] = keeper_panel(camp, ui)
        elif ui.panel == "party":
            out["sheets"] = sheets_panel(camp, ui)
        elif ui.panel == "charts" and charts:
            out["charts"] = charts_panel(camp)
        out["outcome"] = outcome_panel(camp, ui)
        out["luck"] = luck(camp, ui, camp.latest_action, "luck")
        out["requests"] = requests_box(camp, ui)
        out["log"] = log_rows(camp, ui)
    elif scope == "card":
        out["party"] = party_strip(camp, ui, actor, now, [ui.who] if ui.who in s["seats"] else [])
        out["actor"] = actor_bar(camp, ui, actor)
        out["outcome"] = outcome_panel(camp, ui)
        out["luck"] = luck(camp, ui, camp.latest_action, "luck")
    elif scope == "fight":
        out["party"] = party_strip(camp, ui, actor, now)
        out["fallen"] = fallen_row(camp, ui, actor)
        out["creatures"] = creature_strip(camp, ui, actor, now)
        out["fight"] = fight_bar(camp, ui, now)
        out["actor"] = actor_bar(camp, ui, actor) if s["encounter"] is not None else None
        out["outcome"] = outcome_panel(camp, ui)
        out["luck"] = luck(camp, ui, camp.latest_action, "luck")
    elif scope == "log":
        out["log"] = log_rows(camp, ui)
    elif scope == "roll":
        out["outcome"] = outcome_panel(camp, ui)
        action = standing_version(camp, ui.focus) if ui.focus is not None else camp.latest_action
        if action is not None and camp.latest_action is not None and action["seq"] == camp.latest_action["seq"]:
            out["luck"] = luck(camp, ui, action, "luck")
        else:
            out["luck"] = None
            if out["outcome"] is not None and action is not None:
                out["outcome"]["standing"] = camp.standing.in_force(action["seq"])
    if ui.mode == "players":
        out["rolls"] = last_rolls(camp, ui)
        out["recap"] = shown_recap(camp, ui)
        return without_intents(out)
    return out


def without_intents(value: Any) -> Any:
    """``value`` with every intent taken out (a dict with ``"do"``, and the key that held it): the players' screen
    has nothing to send back, by construction."""
    if isinstance(value, dict):
        return {k: without_intents(v) for k, v in value.items()
                if not (isinstance(v, dict) and "do" in v)}
    if isinstance(value, list):
        return [without_intents(v) for v in value if not (isinstance(v, dict) and "do" in v)]
    return value
