"""The keeper's clicks about the players' phones: accept or decline a player's request, accept luck dice without
asking, send a roll to a player's page, serve the players' pages (by the Jupyter server, or on this network) or
stop serving them, and where the keeper's browser reaches the Jupyter server (the links are made with it). Each is one call of the campaign's
desk (``delvebook.players.desk``); an accepted request is recorded as the keeper's own click would be."""

from __future__ import annotations

import re
from typing import Any, Mapping

from ..engine import Refused
from ..players.desk import open_desk
from ..view.shape import FormError

__all__ = ["PHONE_INTENTS"]


def _desk(camp):
    desk = open_desk(camp)
    if desk is None:
        raise Refused("this campaign is open read-only: the players' requests are the keeper's table's to answer")
    return desk


def _accept(camp, ui, i: Mapping) -> Any:
    return _desk(camp).accept(i["player"], i["n"])


def _decline(camp, ui, i: Mapping) -> None:
    _desk(camp).decline(i["player"], i["n"])


def _auto_luck(camp, ui, i: Mapping) -> None:
    desk = _desk(camp)
    desk.auto_luck = bool(i.get("value"))
    desk.poll()  # luck dice already waiting are taken now


def _ask(camp, ui, i: Mapping) -> None:
    args = i.get("args") or {}
    what = str(args.get("what") or "")
    roll, _, skill = what.partition(":")
    target = args.get("target")
    if roll != "death_save":
        try:
            target = int(str(target).strip())
        except ValueError:
            raise FormError(f"a target number, like 12, not {target!r}") from None
    _desk(camp).ask(i["who"], roll, skill or None, target if roll != "death_save" else None)


def _withdraw(camp, ui, i: Mapping) -> None:
    _desk(camp).withdraw(i["player"], i["ask"])


def _serve(camp, ui, i: Mapping) -> None:
    _desk(camp).start_server()


def _serve_lan(camp, ui, i: Mapping) -> None:
    _desk(camp).serve_lan()


_ORIGIN = re.compile(r"https?://[A-Za-z0-9.\-]+(?::[0-9]{1,5})?|https?://\[[0-9A-Fa-f:.]+\](?::[0-9]{1,5})?")
_BASE = re.compile(r"/(?:[A-Za-z0-9._~!$&'()*+,;=:@%-]+/)*")


def _reached_at(camp, ui, i: Mapping) -> None:
    """Where the keeper's browser reaches the Jupyter server (``location.origin`` and the server's base URL, as the
    page knows them): the players' links are made with it. Checked as any click is: an address, nothing else."""
    origin, base = i.get("origin"), i.get("base")
    if not isinstance(origin, str) or len(origin) > 200 or not _ORIGIN.fullmatch(origin):
        raise FormError(f"not the address of a web page: {str(origin)[:60]!r}")
    desk = _desk(camp)
    if not isinstance(base, str) or len(base) > 300 or not _BASE.fullmatch(base):
        base = (desk.jupyter or {}).get("base_url", "/")
    if desk.reached != (origin, base):
        desk.reached = (origin, base)


def _stop(camp, ui, i: Mapping) -> None:
    _desk(camp).stop_server()


PHONE_INTENTS = {"accept_request": _accept, "decline_request": _decline, "auto_luck": _auto_luck,
                 "ask_player": _ask, "withdraw_ask": _withdraw, "serve_players": _serve, "serve_lan": _serve_lan,
                 "stop_players": _stop, "reached_at": _reached_at}
"""The keeper's intents about the players' phones, by name (``intents.INTENTS`` takes them in)."""
