"""The keeper's clicks about the players' phones: accept or decline a player's request, accept luck dice without
asking, send a roll to a player's page, start or stop the players' server. Each is one call of the campaign's
desk (``delvebook.players.desk``); an accepted request is recorded as the keeper's own click would be."""

from __future__ import annotations

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


def _stop(camp, ui, i: Mapping) -> None:
    _desk(camp).stop_server()


PHONE_INTENTS = {"accept_request": _accept, "decline_request": _decline, "auto_luck": _auto_luck,
                 "ask_player": _ask, "withdraw_ask": _withdraw, "serve_players": _serve, "stop_players": _stop}
"""The keeper's intents about the players' phones, by name (``intents.INTENTS`` takes them in)."""
