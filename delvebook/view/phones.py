"""The players' phones on the keeper's table: their requests beside the outcome (``requestsEl`` in table.js) with
Accept and Decline and the switch that accepts luck dice without asking; each player's link and QR code in the
Keeper panel (``phonesCard``); and a roll of the acting delver sent to its player (``askForm``).

All of it reads the campaign's desk (``delvebook.players.desk``), which the keeper's table polls on the kernel's
event loop: the view reads what the desk holds and reads no file itself.
"""

from __future__ import annotations

from ..core.model import is_dying
from ..players.links import link, qr
from ..players.allowed import delvers_of, request_refusal, request_words
from ..players.desk import desk_of
from .shared import UI, field_, option

__all__ = ["requests_box", "phones_card", "ask_form"]


def requests_box(camp, ui: UI) -> dict | None:
    """What the players asked and wait for, and what the keeper asked of them; None when there is nothing to say
    (no players' server, nothing waiting)."""
    desk = desk_of(camp)
    if desk is None or ui.mode != "keeper":
        return None
    rows = []
    for r in desk.waiting():
        player, n = r["player"], r["n"]
        ex = desk.exchange(player)
        names = delvers_of(camp.state, player)
        where = f"request:{player}:{n}"
        why = request_refusal(camp, ex, r) if r["kind"] != "unreadable" else r["problem"]
        rows.append({"player": player, "n": n, "kind": r["kind"], "where": where,
                     "text": f"{player}" + (f" ({', '.join(names)})" if names else "") + f" asks: "
                             f"{request_words(camp, ex, r)}",
                     "why_not": why,
                     "accept": {"do": "accept_request", "player": player, "n": n, "where": where},
                     "decline": {"do": "decline_request", "player": player, "n": n, "where": where}})
    asks = []
    for player in desk.players():
        for a in desk.exchange(player).open_asks():
            asks.append({"text": f"asked {player}: {a['label']}",
                         "withdraw": {"do": "withdraw_ask", "player": player, "ask": a["ask"], "where": "requests"}})
    set_aside = desk.set_aside()
    if desk.server is None and not rows and not asks and not set_aside and not desk.problem:
        return None
    return {"rows": rows, "asks": asks, "problem": desk.problem, "set_aside": set_aside,
            "auto_luck": {"label": "accept my players' luck dice without asking", "on": desk.auto_luck,
                          "intent": {"do": "auto_luck", "value": not desk.auto_luck, "where": "requests"}}}


def phones_card(camp, ui: UI) -> dict | None:
    """The Keeper panel's "Players' phones": each player's link and QR code while the players' server runs (and
    the second screen's), or how to start it."""
    desk = desk_of(camp)
    if desk is None:
        return None
    command = f"delvebook players {camp.path} --ip 0.0.0.0"
    if desk.server is None or desk.keys is None:
        return {"running": False, "command": command,
                "text": "No players' server runs for this campaign: start one, and each player gets a link (a QR "
                        "code) to a page on their phone with their delver, their luck dice and the rolls you ask "
                        "of them.",
                "start": {"label": "Serve the players' pages", "intent": {"do": "serve_players", "where": "phones"}}}
    server, keys = desk.server, desk.keys
    hosts = [h for h in server["hosts"] if h not in ("127.0.0.1", "localhost", "::1")] or server["hosts"]
    host = hosts[0] if hosts else "127.0.0.1"
    rows = []
    for player in desk.players():
        key = keys.players.get(player)
        if key is None:
            continue
        url = link(host, server["port"], key)
        names = delvers_of(camp.state, player)
        rows.append({"player": player, "label": f"{player}" + (f" ({', '.join(names)})" if names else ""),
                     "link": url, "qr": qr(url)})
    table = link(host, server["port"], keys.table)
    rows.append({"player": None, "label": "The second screen (everyone's view, read-only)", "link": table,
                 "qr": qr(table)})
    local = server.get("local", False)
    return {"running": True, "rows": rows, "command": command, "qr_missing": qr("x") is None,
            "text": (f"The players' server listens on {', '.join(server['hosts'])}, port {server['port']}"
                     + (" (this machine only: start it with --ip 0.0.0.0 for the players' phones)" if local else
                        ": each player scans their own code on the same Wi-Fi")),
            "stop": {"label": "Stop the players' server", "intent": {"do": "stop_players", "where": "phones"}}}


def ask_form(camp, ui: UI, who: str) -> dict | None:
    """A form that sends a check, a save or a death save of delver ``who`` to its player's page (while the
    players' server runs), against the table's target number."""
    desk = desk_of(camp)
    s = camp.state
    d = s["delvers"].get(who)
    if desk is None or desk.server is None or d is None or not d.get("player"):
        return None
    player = d["player"]
    skills = [(sid, spec.get("name", sid)) for sid, spec in camp.rules.class_(d["class_id"])["skills"].items()
              if sid in d.get("skills", {})]
    whats = [option(f"check:{sid}", f"{name} check") for sid, name in skills] + [option("check:", "check, no skill")]
    whats += [option(f"save:{sid}", f"{name} save") for sid, name in skills] + [option("save:", "save")]
    if is_dying(d):
        whats.insert(0, option("death_save:", "death save"))
    return {"id": f"ask:{who}", "title": f"Ask {player} to roll it on their phone", "player": player,
            "fields": [field_("what", "choice", "roll", whats[0]["value"], whats),
                       field_("target", "number", "against", ui.target, min=1, max=100)],
            "submit": {"label": f"Send to {player}", "intent": {"do": "ask_player", "who": who, "where": "checks"}}}
