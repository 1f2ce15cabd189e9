"""What the keeper keeps told: sessions, time and rests, XP and coins, delvers joining and levelling up, gear,
NPCs, conditions, checks and rolls, and undo and redo."""

from __future__ import annotations

from typing import Any

from ..core.records import LevelUp, XpAward
from ..engine.checks import Check, Checked, PlainRoll
from ..engine.conditions import AddCondition, EndCondition
from ..engine.creation import AddDelver, Choose, LevelUpEvent
from ..engine.creatures import Npc, RemoveNpc
from ..engine.gear import Drop, Give, Reload, Take
from ..engine.progress import (AdvanceTime, AwardXp, Awarded, Buy, CompleteQuest, Earn, EndSession, ExploreRoom, Rest,
                               Spend, StartSession)
from .words import (duration, money, names, pct, plural, rules_of, said, skill_name, spaced, spell_name, story,
                    tells, untold, verdict)

__all__ = ["xp_lines", "level_line", "check_story", "learned"]

untold(XpAward, source="its reason says what earned it")


def xp_lines(e: Awarded, ctx: Any = None) -> list[str]:
    """How each award split: '100 XP for quest: ... split 5 ways: 20 each; 0 waits in the pool'."""
    out = []
    for a in e.xp_awards:
        shares = a.shares or {}
        ways = len(shares)
        amounts = set(shares.values())
        if not shares:
            split = "too little to split" if a.pool_after else "no one present to share it"
        elif len(amounts) == 1:
            split = f"split {plural(ways, 'way')}: {next(iter(amounts))} each" if ways > 1 else \
                f"all to {next(iter(shares))}"
        else:
            split = "; ".join(f"{n} +{x}" for n, x in shares.items())
        pool = a.pool_before or 0
        carried = f" (with {pool} from the pool)" if pool else ""
        waits = f"; {a.pool_after} waits in the pool" if a.pool_after else ""
        out.append(f"{a.amount} XP for {a.reason}{carried}, {split}{waits}")
    for u in e.level_ups:
        out.append(level_line(u, ctx))
    return out


def level_line(u: LevelUp, ctx: Any = None) -> str:
    text = f"{u.who} reaches level {u.level}"
    if u.max_hearts is not None:
        gained = u.hearts_gained
        text += f" ({u.max_hearts} hearts" + (f", +{gained}" if gained else "") + ")"
    if u.hearts_held_back:
        text += f"; the hearts it adds wait: {u.hearts_held_back}"
    if u.spells_learned:
        text += f"; learns {names(spell_name(ctx, s) for s in u.spells_learned)}"
    if u.true_names_learned:
        text += f"; new true names: {names(u.true_names_learned)}"
    if u.choices:
        text += f"; to choose: {names([spaced(c) for c in u.choices])}"
    return text


def _gained(e: Give) -> list:
    return list(e.weapons) + list(e.armor) + list(e.items)


# ---------------------------------------------------------------- checks and rolls

def _check_title(e: Check, ctx: Any) -> str:
    what = "save" if e.save else "check"
    skill = skill_name(ctx, e.who, e.skill)
    vs = f" against {e.vs}" if e.vs else ""
    return f"{e.who}'s {skill + ' ' if skill else ''}{what}{vs}"


def check_story(e: Checked, ctx: Any, pre: str) -> dict:
    """A check or a save told, wherever it was rolled (a check, a Hide)."""
    who = e.who
    skill = skill_name(ctx, who, e.skill)
    what = ("save" if e.save else "check") if not (e.why or "").startswith("Hide") else "Hide"
    head = f"{who}: {skill + ' ' if skill and what != 'Hide' else ''}{what}"
    if e.target is not None and e.vs is None:
        ok = bool(e.success)
        text = f"{pre}{head} {e.total} vs {e.target}: {'succeeds' if ok else 'fails'} " \
               f"({pct(e.chance)} chance)"
        return story(text, [], verdict("success" if ok else "failure", ok))
    res = e.result
    word = {"win": f"{who} wins", "lose": f"{e.vs} wins",
            "tie": f"a tie: {e.vs} holds (the keeper may rule otherwise)"}[res]
    tie = f", {pct(e.tie_chance)} a tie" if e.tie_chance else ""
    text = f"{pre}{head} {e.total} vs {e.vs} {e.vs_total}: {word} ({pct(e.chance)} to win{tie})"
    return story(text, [], verdict({"win": "win", "lose": "loss", "tie": "tie"}[res],
                                   {"win": True, "lose": False}.get(res)))


untold(Checked, why="said as check, save or Hide", expr="the roll panel draws it", vs_expr="the roll panel draws it")


@tells(Check, title=_check_title)
def _check(e: Check, ctx: Any, pre: str, hidden: tuple) -> dict:
    return check_story(e, ctx, pre)


@tells(PlainRoll, title=lambda e, ctx: f"the {e.expr} roll" + (f" ({e.why})" if e.why else ""))
def _roll(e: PlainRoll, ctx: Any, pre: str, hidden: tuple) -> dict:
    return story(f"{pre}{e.who} rolls {e.expr}: {e.total}" + (f" ({e.why})" if e.why else ""))


# ---------------------------------------------------------------- sessions, time, rests

said(StartSession, lambda e, ctx: f"Session {e.number} begins: every player has "
                                  f"{plural(e.luck_dice, 'luck die', 'luck dice')}",
     title=lambda e, ctx: f"the start of session {e.number}")
said(EndSession, lambda e, ctx: f"Session {e.number} ends",
     title=lambda e, ctx: f"the end of session {e.number}")


@tells(Rest, title=lambda e, ctx: "the party's rest", ended=True)
def _rest(e: Rest, ctx: Any, pre: str, hidden: tuple) -> dict:
    back = []
    for name, what in (e.restored or {}).items():
        bits = [("spellbook charged" if v == "charged" else f"{spaced(res)} +{v}") for res, v in what.items()]
        back.append(f"{name}: {', '.join(bits)}")
    ended = [spaced(c.kind) + f" on {c.who}" for c in e.conditions_ended]
    text = f"The party rests {plural(e.hours if e.hours is not None else 8, 'hour')}: " + \
           ("; ".join(back) if back else "nothing needed restoring")
    return story(text, [f"Ended: {names(ended)}"] if ended else [])


said(AdvanceTime, lambda e, ctx: f"Time passes: {duration(e.seconds or 0)}",
     title=lambda e, ctx: "the time passing")


# ---------------------------------------------------------------- XP, coins, quests and rooms

def _xp_title(e: Awarded, ctx: Any) -> str:
    if isinstance(e, CompleteQuest):
        return f"the quest {e.quest!r}"
    if isinstance(e, ExploreRoom):
        return f"the room {e.room!r}"
    return f"the award of {e.args.get('amount')} XP"


@tells(AwardXp, CompleteQuest, ExploreRoom, title=_xp_title)
def _xp(e: Awarded, ctx: Any, pre: str, hidden: tuple) -> dict:
    xp = xp_lines(e, ctx)
    if isinstance(e, AwardXp):
        return story(xp[0] if xp else "XP awarded", xp[1:])
    head = f"Quest complete: {e.quest}" if isinstance(e, CompleteQuest) else f"Room explored: {e.room}"
    return story(head, xp)


@tells(Earn, title=lambda e, ctx: f"the {money(rules_of(ctx), e.talons or 0)} earned")
def _earn(e: Earn, ctx: Any, pre: str, hidden: tuple) -> dict:
    rules = rules_of(ctx)
    purses = e.purses or {}
    split = (f"to {next(iter(purses))}" if len(purses) == 1 else
             "shared by seat: " + ", ".join(f"{n} {money(rules, t)}" for n, t in purses.items()))
    head = f"{money(rules, e.talons)} earned" + (f" ({e.reason})" if e.reason else "") + f", {split}"
    return story(head, xp_lines(e, ctx))


said(Spend, lambda e, ctx: f"{e.who} spends {money(rules_of(ctx), e.talons)}"
                           + (f" ({e.reason})" if e.reason else ""),
     title=lambda e, ctx: f"{e.who} spending {money(rules_of(ctx), e.talons or 0)}")
said(Buy, lambda e, ctx: f"{e.who} buys {e.count} {spaced(e.item)} for {money(rules_of(ctx), e.talons)}",
     title=lambda e, ctx: f"{e.who}'s purchase")


# ---------------------------------------------------------------- the party: joining, choices, levels

@tells(AddDelver, title=lambda e, ctx: f"{e.who} joining the party")
def _add_delver(e: AddDelver, ctx: Any, pre: str, hidden: tuple) -> dict:
    """A new delver, and what it starts with beyond its class: the spells a mage knows and a namer's true names the
    dice gave, and its starting choices (the table's, or the first option)."""
    rules = rules_of(ctx)
    cls = rules.class_name(e.class_id).lower() if rules is not None and e.class_id in rules.classes else e.class_id
    return story(f"{pre}{e.who} joins the party ({cls}, {e.hearts} hearts, player {e.player})",
                 learned(e.who, e.spells, e.true_names, ctx) + _starting(e))


def _starting(e: AddDelver) -> list[str]:
    """The starting choices of a new delver, each the table's or the first option."""
    bits = [f"{spaced(c)}: {spaced(o)}" + (" (the first option)" if c in e.defaulted else "")
            for c, o in (e.choices or {}).items()]
    return [f"{e.who}'s starting choices: {'; '.join(bits)}"] if bits else []


def learned(who: str, spells: Any, true_names: Any, ctx: Any = None) -> list[str]:
    """What the dice gave a delver to know: 'Mira's spellbook: Firebolt, Light and Invisibility', "Sable's true
    names: Fire, Bind and Locate"."""
    out = []
    if spells:
        out.append(f"{who}'s spellbook: {names(spell_name(ctx, s) for s in spells)}")
    if true_names:
        out.append(f"{who}'s true names: {names(true_names)}")
    return out


@tells(Choose, title=lambda e, ctx: f"{e.who}'s choice of {e.option}")
def _choose(e: Choose, ctx: Any, pre: str, hidden: tuple) -> dict:
    rules = rules_of(ctx)
    d = getattr(ctx, "state", {}).get("delvers", {}).get(e.who) if rules is not None else None
    if d is not None:
        from ..engine import queries
        name = queries.option_name(rules, d["class_id"], e.choice, e.option)
    else:
        name = e.option
    return story(f"{e.who} chooses {name} ({spaced(e.choice)})")


@tells(LevelUpEvent, title=lambda e, ctx: f"{e.who}'s level-up")
def _level_up(e: LevelUpEvent, ctx: Any, pre: str, hidden: tuple) -> dict:
    ups = [level_line(u, ctx) for u in e.level_ups]
    return story(ups[0] if ups else "Level up", ups[1:])


# ---------------------------------------------------------------- gear

@tells(Give, title=lambda e, ctx: f"{names(_gained(e))} found by {e.who}",
       untold={"item": "its name says it", "weapons": "said among what was gained",
               "armor": "said among what was gained", "items": "said among what was gained"})
def _give(e: Give, ctx: Any, pre: str, hidden: tuple) -> dict:
    got = _gained(e) or [e.name]
    count = e.count or 1
    return story(f"{e.who} gains {names(got)}" + (f" (x{count})" if count > 1 and e.items else ""))


said(Take, lambda e, ctx: f"{names(e.taken)} taken from {e.who}" + (f", handed to {e.to}" if e.to else ""),
     title=lambda e, ctx: f"{names(e.taken)} taken from {e.who}" + (f" to {e.to}" if e.to else ""),
     untold={"item": "what was taken is said by name", "count": "what was taken is said by name"})
said(Drop, lambda e, ctx: f"{e.who} drops {names(e.dropped)}",
     title=lambda e, ctx: f"{e.who} dropping {names(e.dropped)}",
     untold={"item": "what was dropped is said by name", "count": "what was dropped is said by name"})
said(Reload, lambda e, ctx: f"{e.who} reloads the {e.weapon}",
     title=lambda e, ctx: f"{e.who}'s reload of the {e.weapon}",
     untold={"loaded": "a reload always leaves it loaded"})


# ---------------------------------------------------------------- NPCs and conditions

@tells(Npc, title=lambda e, ctx: f"{e.name} entering the story")
def _npc(e: Npc, ctx: Any, pre: str, hidden: tuple) -> dict:
    rules = rules_of(ctx)
    kind = e.foe
    if rules is not None:
        from ..engine.queries import foe_type
        found = foe_type(getattr(ctx, "state", {}), rules, kind) if kind is not None else None
        kind = found.get("name", kind) if found is not None else "typed"
    shown = "" if e.name in hidden else f", {plural(e.hearts, 'heart')}"
    return story(f"{e.name} enters the story ({kind}{shown})", [e.note] if e.note else [])


said(RemoveNpc, lambda e, ctx: f"{e.name} leaves the story" + (" (dead)" if e.dead else ""),
     title=lambda e, ctx: f"{e.name} leaving the story")
said(AddCondition, lambda e, ctx: f"{e.who} is now {spaced(e.name)} (the keeper's ruling)",
     title=lambda e, ctx: f"{e.name} on {e.who}", untold={"condition": "its id: the keeper's panel lists it"})
said(EndCondition, lambda e, ctx: "Ended: " + (names(spaced(c.kind) + f" on {c.who}" for c in e.conditions_ended)
                                                or "nothing"),
     title=lambda e, ctx: "the condition's end", ended=True)
