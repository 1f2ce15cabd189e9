"""A player's own page (``playerPage`` in table.js), for their phone: their delver (hearts, conditions, luck dice
left, resources, XP to the next level), whose turn it is, the latest outcome, and what they may ask of the keeper
from it: a luck die on a roll they may affect, the roll the keeper asked for (one tap, or the faces of their own
dice), a level-up choice waiting, with what each option does; and how their requests went.

Each control's intent is a request the players' server checks and writes beside the log (``delvebook.players``);
nothing here records anything. ``ui.who`` is the player; ``ui.mine`` what the server read of their requests and of
the keeper's asks (plain data: ``{"asks": [...], "requests": [...]}``).
"""

from __future__ import annotations

from typing import Any

from ..core.dice import DiceError, parse
from ..core.distribution import odds
from ..engine import Reader, queries
from ..core.model import current_actor, is_dead
from ..players.allowed import delvers_of, luck_rolls
from .choices import choices
from .header import header_bar
from ..core.declared import view
from .outcome import outcome_panel, roll_label, rolls_of
from ..narrate.luck import luck_reach
from ..narrate.words import names as names_of
from .party import party_strip
from .shared import UI, field_, odds_text

__all__ = ["player_page"]

_CHIP_KEYS = ("name", "class", "level", "status", "badge", "dead", "dying", "hearts", "max_hearts", "hearts_text",
              "frac", "resources", "conditions", "xp_text", "touched", "pending")


def _xp(camp, name: str) -> dict:
    d = camp.state["delvers"][name]
    th = camp.rules.level_thresholds
    nxt, now = th.get(d["level"] + 1), th.get(d["level"], 0)
    if nxt is None:
        return {"xp_frac": 1.0, "xp_next": "the highest level"}
    span = max(1, nxt - now)
    return {"xp_frac": max(0.0, min(1.0, (d["xp"] - now) / span)),
            "xp_next": f"{max(0, nxt - d['xp'])} XP to level {d['level'] + 1}"}


def _turn(camp, mine: list[str]) -> dict | None:
    s = camp.state
    enc = s["encounter"]
    if enc is None:
        return None
    now = current_actor(s)
    if now is None:
        return {"text": f"Fight {enc['number']}: waiting for initiative", "mine": False}
    if now in mine:
        return {"text": f"Your turn: {now} acts (round {enc['round']})", "mine": True}
    return {"text": f"{now} acts (round {enc['round']})", "mine": False}


def _spend(camp, player: str, left: int) -> dict:
    """The luck dice this player may spend from the page on the latest action, or why none."""
    latest = camp.latest_action
    names = luck_rolls(camp, player, latest) if latest is not None else []
    if latest is None or not names:
        return {"rows": [], "note": "No roll of yours to spend a luck die on right now."}
    if left < 1:
        return {"rows": [], "note": "No luck dice left this session."}
    rows, idle = [], []
    rolled, seq = rolls_of(latest), view(latest).seq
    for name in names:
        rec = rolled[name]
        where = f"spend:{name}"
        row = {"roll": name, "label": roll_label(name, rec), "total": rec.total, "where": where}
        for sign, key in ((1, "plus"), (-1, "minus")):  # offered only where a luck die that way changes something
            reach = luck_reach(camp, player, name, sign)
            row[key] = {"do": "luck", "on": seq, "roll": name, "sign": sign, "where": where} \
                if reach.face is not None else None
        if row["plus"] or row["minus"]:
            rows.append(row)
        else:
            idle.append(roll_label(name, rec))
    note = f"A luck die cannot change the outcome of {names_of(idle)}." if idle else ""
    if not rows and not idle:
        note = "No roll of yours to spend a luck die on right now."
    return {"rows": rows, "note": note}


def _roll_of(camp, ask: dict) -> tuple[str | None, Any]:
    """(the dice the asked roll throws, its chance) as things stand."""
    s, rules = camp.state, camp.rules
    who = ask["who"]
    if ask["roll"] == "death_save":
        ds = queries.death_save(s, rules)
        return ds.die, ds.chance
    d = s["delvers"].get(who)
    if d is None:
        return None, None
    if ask["roll"] == "save":
        expr = queries.save_roll(Reader(s, rules), who, d, ask.get("skill")).expr
    else:
        expr = queries.check_expr(s, rules, who, ask.get("skill"))
    try:
        return expr, odds(expr, target=ask["target"]) if expr else None
    except (DiceError, ValueError):
        return expr, None


def _asks(camp, mine: dict) -> list[dict]:
    out = []
    for ask in mine.get("asks", ()):
        k = ask["ask"]
        expr, chance = _roll_of(camp, ask)
        try:
            count = parse(expr).dice_count if expr else 0
        except DiceError:
            count = 0
        where = f"ask:{k}"
        out.append({"ask": k, "label": ask["label"], "expr": expr, "odds": odds_text(chance), "where": where,
                    "roll": {"do": "roll", "ask": k, "where": where},
                    "faces": {"id": f"faces:{k}", "fields": [field_("faces", "text", "", "", required=True,
                                                                      hint=f"{expr}: {count} face{'s' * (count != 1)}")],
                              "submit": {"label": "My own dice", "intent": {"do": "roll", "ask": k, "where": where}}}})
    return out


def player_page(camp, ui: UI) -> dict:
    """The view model of player ``ui.who``'s page."""
    s = camp.state
    player = ui.who or ""
    names = delvers_of(s, player)
    mine = ui.mine or {}
    seen = UI(mode="players", hide_hearts=False, foe_hearts=ui.foe_hearts, touched=ui.touched)
    chips = {c["name"]: c for c in party_strip(camp, seen, None, current_actor(s), names)}
    delvers = [{**{k: chips[n][k] for k in _CHIP_KEYS}, **_xp(camp, n)} for n in names]
    left = s["luck"].get(player, 0)
    per = camp.rules.core["luck_dice"]["per_session"]
    out = {"v": 1, "mode": "player", "scope": "table", "title": camp.name, "player": player, "ack": ui.ack,
           "refusal": ui.refusal, "confirm": None, "session": header_bar(camp, seen, False)["session"],
           "delvers": delvers, "luck": {"left": left, "max": per}, "turn": _turn(camp, names),
           "outcome": outcome_panel(camp, seen), "spend": _spend(camp, player, left),
           "asks": _asks(camp, mine),
           "choices": [dict(c, who=n) for n in names if not is_dead(s["delvers"][n]) for c in choices(camp, ui, n)],
           "requests": list(mine.get("requests", ())), "note": mine.get("note")}
    if not names:
        out["note"] = f"{player} has no delver at this table."
    return out
