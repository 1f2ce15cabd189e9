"""Sessions, time and rests, XP and levels, quests, rooms, and money."""

from __future__ import annotations

from typing import Literal, Mapping

from ..core.declared import Action, Record, Text, field
from ..core.events import clone
from ..core.model import format_purse, is_dead, present
from ..core.records import LevelUp, XpAward
from .base import Ctx, command, data_items
from .creation import level_up_in
from .gear import add_to_sheet, items_to_gear
from .queries import coin_talons

__all__ = ["award", "talons_of", "Awarded", "StartSession", "EndSession", "AdvanceTime", "Rest", "AwardXp",
           "CompleteQuest", "ExploreRoom", "Earn", "Spend", "Buy"]


class Awarded(Record):
    """What an event that awards XP adds (``award``): each award and how it split, and the levels reached."""

    xp_awards: list[XpAward] = field(())
    level_ups: list[LevelUp] = field(())


# ---------------------------------------------------------------- sessions, time, rests

class StartSession(Action, kind="start_session"):
    """A session begins: its number, and the luck dice each player has for it."""

    number: int
    luck_dice: int


@command(StartSession)
def start_session(ctx: Ctx) -> None:
    """A session begins: every player's luck dice reset to 3 (they do not stack, unless the house rules say
    ``core.luck_dice.stack``: then the new ones add to those left)."""
    s = ctx.state["session"]
    if s["active"]:
        ctx.refuse(f"session {s['number']} is still running: end it first")
    per = ctx.core["luck_dice"]["per_session"]
    left = ctx.state["luck"] if ctx.core["luck_dice"]["stack"] else {}
    ctx.set(["session"], {"number": s["number"] + 1, "active": True})
    delvers = ctx.state["delvers"]  # the players at the table: a retired delver's player left with them
    players = sorted({delvers[n]["player"] for n in ctx.state["seats"]} | set(ctx.state["luck"]))
    ctx.set(["luck"], {p: per + left.get(p, 0) for p in players})
    ctx.out(number=s["number"] + 1, luck_dice=per)


class EndSession(Action, kind="end_session"):
    """A session ends."""

    number: int


@command(EndSession)
def end_session(ctx: Ctx) -> None:
    s = ctx.state["session"]
    if not s["active"]:
        ctx.refuse("no session is running")
    ctx.set(["session", "active"], False)
    ctx.out(number=s["number"])


class AdvanceTime(Action, kind="advance_time"):
    """The keeper moves the clock on by ``seconds``."""

    seconds: int


@command(AdvanceTime)
def advance_time(ctx: Ctx, minutes: int = 0, hours: int = 0, seconds: int = 0) -> None:
    """The keeper moves the clock on (exploring, travelling); conditions past their time end."""
    total = seconds + 60 * minutes + 3600 * hours
    if total <= 0:
        ctx.refuse("time only moves forward")
    if ctx.state["encounter"] is not None:
        ctx.refuse("in a fight, time moves a round at a time (next turn)")
    ctx.advance_clock(total)
    ctx.out(seconds=total)


class Rest(Action, kind="rest"):
    """A night's rest of ``hours``: what came back to each delver (a resource's gain, or the spellbook charged)."""

    restored: dict[str, dict[str, int | Literal["charged"]]]
    hours: int


@command(Rest)
def rest(ctx: Ctx) -> None:
    """A night's rest: grit, soul points, healing points, blessings, spellbook and wand come back;
    blood-magic bans and charges end; the clock moves on by the rest's hours."""
    if ctx.state["encounter"] is not None:
        ctx.refuse("no resting in the middle of a fight")
    restores = set(ctx.core["rest"]["restores"])
    restored = {}
    for name, d in ctx.state["delvers"].items():
        if is_dead(d):
            continue
        for rid, have in d["resources"].items():
            top = d["resource_max"].get(rid, have)
            if rid in restores and have != top:
                ctx.set(["delvers", name, "resources", rid], top)
                restored.setdefault(name, {})[rid] = top - have
        if d.get("spellbook_used"):
            ctx.set(["delvers", name, "spellbook_used"], [])
            restored.setdefault(name, {})["spellbook"] = "charged"
    ctx.end_conditions(lambda c: c["ends_on"] != "rest", "a rest")
    ctx.advance_clock(3600 * ctx.core["time"]["rest_hours"])
    ctx.out(restored=restored, hours=ctx.core["time"]["rest_hours"])


# ---------------------------------------------------------------- XP and levels

def award(ctx: Ctx, amount: int, reason: str, source: str) -> None:
    """Split ``amount`` XP equally across the party present; the remainder waits in the party pool."""
    party = present(ctx.state)
    pool = ctx.state["xp_pool"]
    total = amount + pool
    shares, level_ups = {}, []
    if party:
        share, left = divmod(total, len(party))
        for name in party:
            d = ctx.state["delvers"][name]
            if share == 0:
                continue
            xp = d["xp"] + share
            if d["level"] < ctx.rules.level_cap and ctx.rules.level_for_xp(xp) > d["level"]:
                delver = clone(d)
                delver["xp"] = xp
                while delver["level"] < ctx.rules.level_cap and ctx.rules.level_for_xp(xp) > delver["level"]:
                    level_ups.append(level_up_in(ctx, delver))
                ctx.update(["delvers", name], delver)
            else:
                ctx.set(["delvers", name, "xp"], xp)
            shares[name] = share
    else:
        left = total
    ctx.set(["xp_pool"], left)
    ctx.set(["xp_awarded"], ctx.state["xp_awarded"] + amount)
    prior = ctx.fields.get("xp_awards", [])
    ctx.out(xp_awards=prior + [{"amount": amount, "reason": reason, "source": source, "shares": shares,
                                "pool_before": pool, "pool_after": left}])
    if level_ups:
        ctx.out(level_ups=ctx.fields.get("level_ups", []) + level_ups)


class AwardXp(Awarded, Action, kind="award_xp"):
    """XP the keeper awards, split across the party."""


@command(AwardXp)
def award_xp(ctx: Ctx, amount: int, reason: str = "keeper's award") -> None:
    if not isinstance(amount, int) or isinstance(amount, bool) or amount < 0:
        ctx.refuse(f"XP is a whole number of 0 or more, not {amount!r}")
    award(ctx, amount, reason, "keeper")


def _first_time(ctx: Ctx, table: str, name: str, what: str, done: str, xp_key: str, source: str) -> None:
    """A quest completed or a room explored: recorded once, and its XP split across the party."""
    if not isinstance(name, str) or not name.strip():
        ctx.refuse(f"a {what} needs a name")
    if name in ctx.state[table]:
        ctx.refuse(f"the {what} {name!r} was already {done}: it gives XP once")
    ctx.append([table], name)
    ctx.out(**{what: name})
    award(ctx, ctx.core["xp"][xp_key], f"{what}: {name}", source)


class CompleteQuest(Awarded, Action, kind="complete_quest"):
    """A quest completed, and its XP."""

    quest: str


@command(CompleteQuest)
def complete_quest(ctx: Ctx, name: str) -> None:
    """100 XP per completed quest, split across the party."""
    _first_time(ctx, "quests", name, "quest", "completed", "per_quest", "quest")


class ExploreRoom(Awarded, Action, kind="explore_room"):
    """A room explored, and its XP."""

    room: str


@command(ExploreRoom)
def explore_room(ctx: Ctx, name: str) -> None:
    """15 XP per new room explored in a megadungeon; a room already explored gives nothing."""
    _first_time(ctx, "rooms", name, "room", "explored", "per_room", "room")


# ---------------------------------------------------------------- money

def _largest_first(units: Mapping) -> list:
    return sorted((u for _, u in data_items(units)), key=lambda u: -u["talons"])


def _example(units: Mapping) -> str:
    return " ".join(f"{n}{u['symbol']}" for n, u in zip(range(2, 9), _largest_first(units)))


def talons_of(ctx: Ctx, amount) -> int:
    """An amount of money in talons: an int of talons, {"crown": 3, "talon": 4}, or text like '2C 5T'."""
    if isinstance(amount, bool):
        ctx.refuse(f"{amount!r} is not an amount of money")
    if isinstance(amount, int):
        return amount
    units = {u: spec for u, spec in data_items(ctx.core["currency"]["units"])}
    if isinstance(amount, Mapping):
        try:
            return ctx.rules.talons(amount)
        except ValueError as err:
            ctx.refuse(str(err))
    if isinstance(amount, str):
        by_symbol = {spec["symbol"].upper(): spec["talons"] for spec in units.values()}
        total = 0
        for part in amount.replace(",", " ").split():
            num, sym = part[:-1], part[-1:].upper()
            if not num.isdigit() or sym not in by_symbol:
                ctx.refuse(f"{amount!r}: write money like {_example(units)!r} "
                           f"({', '.join(u['name'].lower() for u in _largest_first(units))})")
            total += int(num) * by_symbol[sym]
        return total
    ctx.refuse(f"{amount!r} is not an amount of money")


class Earn(Awarded, Action, kind="earn", targets=("who",)):
    """Coins earned (in talons), who got them (``purses``: each one's share), why, and the XP for them."""

    talons: int
    purses: dict[str, int]
    reason: Text | None


@command(Earn)
def earn(ctx: Ctx, amount, who: str | None = None, reason: str | None = None) -> None:
    """Coins earned: into one delver's purse (or shared out by seat), and XP per coin (the unit the XP rules
    name, ``core.xp.coin``) to the party; talons short of a coin wait in the coin pool."""
    talons = talons_of(ctx, amount)
    if talons <= 0:
        ctx.refuse("earnings must be more than nothing")
    party = present(ctx.state)
    if who is not None:
        if is_dead(ctx.delver(who)):
            ctx.refuse(f"{who} is dead and earns nothing: the living share it")
        split = {who: talons}
    elif party:
        share, left = divmod(talons, len(party))
        split = {n: share + (1 if i < left else 0) for i, n in enumerate(party)}
    else:
        ctx.refuse("there is no one to hold the money")
    for name, t in split.items():
        if t:
            ctx.set(["delvers", name, "purse"], ctx.state["delvers"][name]["purse"] + t)
    coins, rest = divmod(ctx.state["coin_pool"] + talons, coin_talons(ctx.rules))
    ctx.set(["coin_pool"], rest)
    ctx.out(talons=talons, purses=split, reason=reason)
    if coins:
        award(ctx, coins * ctx.core["xp"]["per_crown"], f"coins: {reason or 'earned'}", "coins")


class Spend(Action, kind="spend", actor="who"):
    """Coins a delver spends (in talons), and on what."""

    who: str
    talons: int
    reason: Text | None


@command(Spend)
def spend(ctx: Ctx, who: str, amount, reason: str | None = None) -> None:
    talons = talons_of(ctx, amount)
    d = ctx.delver(who)
    if talons <= 0:
        ctx.refuse("spending must be more than nothing")
    if d["purse"] < talons:
        units = ctx.core["currency"]["units"]
        ctx.refuse(f"{who} has {format_purse(d['purse'], units)}, not enough for {format_purse(talons, units)}")
    ctx.set(["delvers", who, "purse"], d["purse"] - talons)
    ctx.out(who=who, talons=talons, reason=reason)


class Buy(Action, kind="buy", actor="who"):
    """Gear a delver buys at the rules' price: the item, how many, what it cost (in talons)."""

    who: str
    item: str
    count: int
    talons: int


@command(Buy)
def buy(ctx: Ctx, who: str, item: str, count: int = 1) -> None:
    """Buy gear at the price the rules give (a bundle counts once: 20 arrows for 1 crown)."""
    if item not in ctx.rules.gear:
        ctx.refuse(f"there is no {item!r} in the gear list")
    price = ctx.rules.price_talons(item)
    if price is None:
        ctx.refuse(f"the rules give no price for {ctx.rules.item(item)['name']}: the keeper sets it (spend, then give)")
    bundle = ctx.rules.item(item).get("bundle", 1)
    cost = price * count
    d = ctx.delver(who)
    if is_dead(d):
        ctx.refuse(f"{who} is dead and buys nothing")
    if d["purse"] < cost:
        units = ctx.core["currency"]["units"]
        ctx.refuse(f"{who} has {format_purse(d['purse'], units)}, not enough for {format_purse(cost, units)}")
    delver = clone(d)
    delver["purse"] -= cost
    w, a, o = items_to_gear(ctx, [{"item": item, "count": count * bundle if bundle > 1 else count}])
    add_to_sheet(delver, w, a, o)  # armor fitted to its wearer (an Armorer's bonus); arrows join the quiver
    ctx.update(["delvers", who], delver)
    ctx.out(who=who, item=item, count=count * bundle, talons=cost)
