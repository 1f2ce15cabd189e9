"""The Keeper panel's intents at the table: sessions, rests and time, quests and rooms, coins, XP, hearts by hand,
any roll, conditions, found items, NPCs, "Last time..." on the players' screen, the download. Each is one call of
the campaign's API (or, for the players' screen, a file beside the requests); registered with ``intents.intent``
like every other, when ``delvebook.table`` is imported. Any command without an intent of its own plays by a form
(``intents``' ``act``)."""

from __future__ import annotations

from typing import Any

from ..engine import Refused
from ..players.requests import RequestError, show_on_screen
from .intents import FormError, _args, _foe, _int, _ov, _text, intent


@intent("start_session")
def _start_session(camp, ui, i):
    return camp.start_session(**_ov(i))


@intent("end_session")
def _end_session(camp, ui, i):
    return camp.end_session(**_ov(i))


@intent("rest")
def _rest(camp, ui, i):
    return camp.rest(**_ov(i))


@intent("advance_time")
def _advance_time(camp, ui, i):
    return camp.advance_time(minutes=int(i.get("minutes", 0)), hours=int(i.get("hours", 0)), **_ov(i))


def _milestone(i, noun: str, done):
    """A quest completed or a room explored: prepared (its row's ``name``) or typed in the form."""
    name = i.get("name") or _text(_args(i).get("name"))
    if not name:
        raise FormError(f"name the {noun}")
    return done(name, **_ov(i))


@intent("complete_quest")
def _quest(camp, ui, i):
    return _milestone(i, "quest", camp.complete_quest)


@intent("explore_room")
def _room(camp, ui, i):
    return _milestone(i, "room", camp.explore_room)


def _amount(text: Any) -> Any:
    t = _text(text)
    if t is None:
        raise FormError("say how much money, like '3C 5T'")
    return int(t) if t.isdigit() else t


@intent("earn")
def _earn(camp, ui, i):
    a = _args(i)
    return camp.earn(_amount(a.get("amount")), who=_text(a.get("who")), reason=_text(a.get("reason")), **_ov(i))


@intent("spend")
def _spend(camp, ui, i):
    a = _args(i)
    return camp.spend(_text(a.get("who")), _amount(a.get("amount")), reason=_text(a.get("reason")), **_ov(i))


@intent("award_xp")
def _award_xp(camp, ui, i):
    a = _args(i)
    return camp.award_xp(_int(a.get("amount"), "XP"), reason=_text(a.get("reason")) or "keeper's award", **_ov(i))


def _by_hand(i) -> tuple[str, int, str]:
    a = _args(i)
    who = _text(a.get("who"))
    if not who:
        raise FormError("pick who it happens to")
    return who, _int(a.get("amount"), "hearts"), _text(a.get("source")) or "keeper"


@intent("damage")
def _damage(camp, ui, i):
    who, n, source = _by_hand(i)
    return camp.damage(who, n, source=source, armor=bool(_args(i).get("armor")), **_ov(i))


@intent("heal")
def _heal(camp, ui, i):
    who, n, source = _by_hand(i)
    return camp.heal(who, n, source=source, **_ov(i))


@intent("roll")
def _roll(camp, ui, i):
    a = _args(i)
    expr = _text(a.get("expr"))
    if not expr:
        raise FormError("type the dice to roll, like 'd66' or '2d6+1'")
    return camp.roll(expr, why=_text(a.get("why")))


@intent("condition")
def _condition(camp, ui, i):
    a = _args(i)
    name = _text(a.get("name"))
    if not name:
        raise FormError("name the condition, like 'cursed'")
    return camp.act("condition", who=_text(a.get("who")), name=name, duration=_text(a.get("duration")))


@intent("end_condition")
def _end_condition(camp, ui, i):
    return camp.act("end_condition", id=int(i["id"]))


@intent("give")
def _give(camp, ui, i):
    a = _args(i)
    item = _text(a.get("item"))
    if not item:
        raise FormError("pick the item found")
    details: dict = {}
    if _text(a.get("name")):
        details["name"] = _text(a.get("name"))
    bonus = _int(a.get("bonus"), "bonus", required=False)
    if bonus:
        details["bonus"] = bonus
    count = _int(a.get("count"), "how many", required=False) or 1
    return camp.give(_text(a.get("who")), item, count=count, **details)


@intent("npc")
def _npc(camp, ui, i):
    a = _args(i)
    name = _text(a.get("name"))
    if not name:
        raise FormError("name the NPC")
    foe = _text(a.get("foe"))
    if foe is not None:
        foe = _foe(camp, foe, "")
    hearts = _int(a.get("hearts"), "hearts", required=False)
    if foe is None and hearts is None:
        raise FormError("an NPC comes from the bestiary, or is typed with its hearts")
    typed = {"hearts": hearts} if hearts is not None else {}
    camp.npc(name, foe, note=_text(a.get("note")), **typed)
    return camp.events[-1]


@intent("remove_npc")
def _remove_npc(camp, ui, i):
    return camp.remove_npc(i["name"], **_ov(i))


@intent("show_recap")
def _show_recap(camp, ui, i):
    """The last session's recap on the players' screen (``session``), or taken down (none)."""
    if camp.read_only:
        raise Refused("this campaign is open read-only")
    try:
        show_on_screen(camp.path, i.get("session"))
    except (RequestError, OSError) as err:
        raise FormError(f"the players' screen cannot be told: {err}") from None
    return None


@intent("download")
def _download(camp, ui, i):
    return None  # the widget sends the zip itself (bytes, not view model)
