"""The players' phones on the keeper's table: their requests beside the outcome (``requestsEl`` in table.js) with
Accept and Decline and the switch that accepts luck dice without asking; each player's link and QR code in the
Keeper panel (``phonesCard``); and a roll of the acting delver sent to its player (``askForm``).

All of it reads the campaign's desk (``delvebook.players.desk``), which the keeper's table polls on the kernel's
event loop: the view reads what the desk holds and reads no file itself.
"""

from __future__ import annotations

import ipaddress
from urllib.parse import urlsplit

from ..core.model import is_dying
from ..players.links import link, qr, served_link
from ..players.allowed import delvers_of, players_at, request_refusal, request_words
from ..players.desk import desk_of
from .shared import UI, field_, option

__all__ = ["requests_box", "phones_card", "ask_form", "reach"]


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
    if desk.server is None and desk.jupyter is None and not rows and not asks and not set_aside and not desk.problem:
        return None
    return {"rows": rows, "asks": asks, "problem": desk.problem, "set_aside": set_aside,
            "auto_luck": {"label": "accept my players' luck dice without asking", "on": desk.auto_luck,
                          "intent": {"do": "auto_luck", "value": not desk.auto_luck, "where": "requests"}}}


def reach(origin: str) -> tuple[str, bool]:
    """Who reaches a link at ``origin`` (as the keeper's browser reaches the Jupyter server), in words, and whether
    a phone can (an address of this machine alone is none)."""
    host = urlsplit(origin).hostname or ""
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        ip = None
    if host == "localhost" or (ip is not None and ip.is_loopback):
        return ("Only this computer reaches these links (JupyterLab answers on this computer alone): a phone cannot. "
                "For the phones on the table's Wi-Fi, serve the pages on this network too.", False)
    if (ip is not None and (ip.is_private or ip.is_link_local)) or host.endswith((".local", ".lan", ".home")) or \
            "." not in host:
        return ("Devices on the same network as this computer reach these links.", True)
    return ("Anyone on the internet who has a link reaches its page (each link lets in its own player alone: pass "
            "it to no one else); a group on a video call joins from wherever they are.", True)


def _rows(camp, keys, url_of) -> list[dict]:
    rows = []
    for player in players_at(camp.state):
        key = keys.players.get(player)
        if key is None:
            continue
        url = url_of(key)
        names = delvers_of(camp.state, player)
        rows.append({"player": player, "label": f"{player}" + (f" ({', '.join(names)})" if names else ""),
                     "link": url, "qr": qr(url)})
    table = url_of(keys.table)
    rows.append({"player": None, "label": "The second screen (everyone's view, read-only)", "link": table,
                 "qr": qr(table)})
    return rows


def phones_card(camp, ui: UI) -> dict | None:
    """The Keeper panel's "Players' phones": each player's link and QR code while the pages are served (and the
    second screen's), with who can reach them, or how to serve them. Under the Jupyter server the table runs in,
    a link is built as the keeper's browser reaches that server (its origin and base URL, which the page tells the
    table: ``reached``); from ``delvebook players``, as that server listens."""
    desk = desk_of(camp)
    if desk is None:
        return None
    command = f"delvebook players {camp.path} --ip 0.0.0.0"
    stop = {"label": "Stop serving the players' pages", "intent": {"do": "stop_players", "where": "phones"}}
    out: dict = {"running": False, "command": command, "rows": [], "qr_missing": qr("x") is None, "ask_reach": None,
                 "lan": None, "stop": stop}
    keys = desk.keys
    if desk.jupyter is not None and keys is not None:
        out["running"] = True
        out["ask_reach"] = {"do": "reached_at", "where": "phones"}
        if desk.reached is None:
            out["text"] = "The players' pages are served by this JupyterLab: finding the address your browser uses\u2026"
        else:
            origin, base = desk.reached
            out["rows"] = _rows(camp, keys, lambda key: served_link(origin, base, key))
            out["text"], phones = reach(origin)
            if not phones and desk.server is None:
                out["lan"] = {"label": "Serve on this Wi-Fi too", "intent": {"do": "serve_lan", "where": "phones"}}
    if desk.server is not None and keys is not None:
        server = desk.server
        hosts = [h for h in server["hosts"] if h not in ("127.0.0.1", "localhost", "::1")] or server["hosts"]
        host = hosts[0] if hosts else "127.0.0.1"
        local = server.get("local", False)
        lan = _rows(camp, keys, lambda key: link(host, server["port"], key))
        said = (f"On this network: the players' server listens on {', '.join(server['hosts'])}, port "
                f"{server['port']}" + (" (this machine only: start it with --ip 0.0.0.0 for the players' phones)"
                                       if local else ": each player scans their own code on the same Wi-Fi"))
        if out["running"]:
            out["lan_rows"], out["lan_text"] = lan, said
        else:
            out.update(running=True, rows=lan, text=said)
    if not out["running"]:
        out.update(text="No players' pages are served for this campaign: serve them, and each player gets a link (a QR "
                        "code) to a page on their phone with their delver, their luck dice and the rolls you ask "
                        "of them.",
                   start={"label": "Serve the players' pages", "intent": {"do": "serve_players", "where": "phones"}})
    return out


def ask_form(camp, ui: UI, who: str) -> dict | None:
    """A form that sends a check, a save or a death save of delver ``who`` to its player's page (while the
    players' server runs), against the table's target number."""
    desk = desk_of(camp)
    s = camp.state
    d = s["delvers"].get(who)
    if desk is None or (desk.server is None and desk.jupyter is None) or d is None or not d.get("player"):
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
