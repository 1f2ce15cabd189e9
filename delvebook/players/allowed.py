"""What a player may ask from their own device now: a request read against the campaign as it stands.

A request that meets the schema (``requests.request_problem``) is still refused when the state does not allow it:
a delver that is not the player's, a luck die they do not have or on a roll they cannot affect, a roll that no
longer stands (undone, changed by a luck die or real dice, or the table moved on: stale), a roll the keeper did not
ask for or that was made already, a level-up choice that is not waiting. The players' server asks this before it
writes a request and the keeper's table again before it records one, so a stale or forged request is refused with
a reason the player's page shows, and nothing is recorded.
"""

from __future__ import annotations

from typing import Any, Mapping

from ..core.declared import Action, Rolled, view
from ..engine import queries
from ..narrate import roll_title, tell
from ..core.model import is_dead, is_dying
from .requests import Exchange

__all__ = ["players_at", "delvers_of", "luck_rolls", "request_refusal", "ask_refusal", "aimed_at"]


def delvers_of(state: Mapping, player: str) -> list[str]:
    """The player's delvers, in seat order."""
    return [n for n in state["seats"] if state["delvers"][n].get("player") == player]


def players_at(state: Mapping) -> list[str]:
    """The players at the table: each delver's player in seat order, then any other player with luck dice."""
    out: list[str] = []
    for n in state["seats"]:
        p = state["delvers"][n].get("player")
        if isinstance(p, str) and p not in out:
            out.append(p)
    return out + [p for p in state["luck"] if p not in out]


def aimed_at(event: Mapping) -> set[str]:
    """The names an action is aimed at: its ``targets`` (the roles every event carries)."""
    return {t for t in view(event).targets or () if isinstance(t, str)}


def rolls_in(event: Mapping | None) -> dict[str, Rolled]:
    """An action's rolls by name, as its event declares them (none for undo and redo)."""
    v = view(event) if event is not None else None
    return dict(v.rolls) if isinstance(v, Action) else {}


def luck_rolls(camp, player: str, event: Mapping | None = None) -> list[str]:
    """The rolls of the latest action (or ``event``) this player may spend a luck die on from their device: a roll
    one of their delvers made, or any roll of an action aimed at one of them (a foe's attack on them)."""
    event = camp.latest_action if event is None else event
    rolled = rolls_in(event)
    if not rolled:
        return []
    mine = set(delvers_of(camp.state, player))
    aimed = bool(mine & aimed_at(event))
    return [name for name, rec in rolled.items() if aimed or (isinstance(rec, Rolled) and rec.who in mine)]


def _stale(camp, seq: int) -> str:
    standing = camp.standing
    try:
        camp.event(seq)
    except KeyError:
        return f"there is no roll {seq} at this table"
    if standing.undone_by(seq) is not None:
        return "stale: the keeper undid that roll"
    if standing.replaced_by(seq) is not None:
        return "stale: the roll changed since (a luck die or real dice): look at it again"
    return "stale: the table has moved on since that roll"


def request_refusal(camp, exchange: Exchange, line: Mapping[str, Any]) -> str | None:
    """Why the state refuses this request now (in words the player's page shows), or None. ``line`` meets the
    schema and is in ``exchange.player``'s file."""
    s = camp.state
    player = exchange.player
    if player not in s["luck"] and not delvers_of(s, player):
        return f"{player} is not a player at this table"
    kind = line["kind"]
    if kind == "luck":
        if s["luck"].get(player, 0) < 1:
            return f"{player} has no luck dice left this session"
        latest = camp.latest_action
        if latest is None or view(latest).seq != line["on"]:
            return _stale(camp, line["on"])
        if line["roll"] not in rolls_in(latest):
            return f"that action has no roll {line['roll']!r}"
        if line["roll"] not in luck_rolls(camp, player, latest):
            return "that roll is neither yours nor aimed at your delver: ask the keeper at the table"
        return None
    if kind == "roll":
        ask = exchange.asks.get(line["ask"])
        if ask is None:
            return "the keeper asked for no such roll"
        closed = exchange.closed.get(line["ask"])
        if closed is not None:
            return f"that roll is done: {closed.get('why') or 'closed'}"
        return ask_refusal(camp, player, ask)
    if kind == "choose":
        who = line["who"]
        if who not in delvers_of(s, player):
            return f"{who} is not your delver"
        d = s["delvers"][who]
        waiting = [p for p in d.get("pending_choices", ()) if p.get("choice") == line["choice"]]
        if not waiting:
            return f"{who} has no such level-up choice waiting (made already?)"
        options = [oid for _, oid in queries.choice_options(s, camp.rules, who, waiting[0])]
        if line["option"] not in options:
            return f"{line['option']!r} is not an option of that choice"
        return None
    return f"a player cannot ask for {kind!r}"


def _event(camp, seq: Any) -> Mapping | None:
    try:
        return camp.event(seq) if isinstance(seq, int) else None
    except KeyError:
        return None


def _made(camp, answer: Mapping[str, Any] | None) -> str | None:
    """What an accepted request became, in the narrator's words ('Wren: Stealth check 15 vs 12: succeeds (72%
    chance)'), as it stands now (a luck die since may have replaced it)."""
    if not answer or answer.get("verdict") != "accepted":
        return None
    e = _event(camp, answer.get("seq"))
    if e is None:
        return None
    try:
        e = camp.event(camp.standing.current(e["seq"]))
    except KeyError:
        pass
    return tell(e, camp)["text"]


def ask_refusal(camp, player: str, ask: Mapping[str, Any]) -> str | None:
    """Why the roll the keeper asked for cannot be made now (the delver dead, no longer dying), or None."""
    s = camp.state
    who = ask.get("who")
    if who not in delvers_of(s, player):
        return f"{who} is not your delver"
    d = s["delvers"][who]
    if is_dead(d):
        return f"{who} is dead"
    if ask.get("roll") == "death_save" and not is_dying(d):
        return f"{who} is no longer dying: there is no death save to make"
    return None


def request_words(camp, exchange: Exchange, r: Mapping[str, Any], answer: Mapping[str, Any] | None = None) -> str:
    """A request in a few words, for the keeper's table and the player's page; once accepted (``answer``: the
    keeper's, with the event it became), what came of it, told by the narrator."""
    kind = r.get("kind")
    made = _made(camp, answer)
    if kind == "luck":
        sign = "+" if r["sign"] > 0 else "\u2212"
        on = _event(camp, r.get("on"))
        rec = (on or {}).get("rolls", {}).get(r["roll"]) if isinstance(on, Mapping) else None
        return f"a luck die ({sign}) on {roll_title(str(r['roll']), rec)}"
    if kind == "roll":
        ask = exchange.asks.get(r["ask"])
        what = ask["label"] if ask is not None else f"roll {r['ask']}"
        if made is not None:
            return made
        faces = r.get("faces")
        return f"{what}: " + (f"your dice {' '.join(map(str, faces))}" if faces else "the keeper's table rolls it")
    if kind == "choose":
        d = camp.state["delvers"].get(r["who"])
        option = r["option"]
        if d is not None:
            option = queries.option_name(camp.rules, d["class_id"], r["choice"], option)
        return f"{r['who']}: {option} ({str(r['choice']).replace('_', ' ')})"
    return "a request that could not be read"
