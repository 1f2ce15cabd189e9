"""What the keeper keeps told: sessions, time and rests, XP and coins, delvers joining and levelling up, gear,
NPCs, conditions, checks and rolls, and undo and redo."""

from __future__ import annotations

from typing import Any, Mapping

from .words import (duration, money, names, pct, plural, rules_of, said, skill_name, spaced, spell_name, story,
                    tells, verdict)

__all__ = ["xp_lines", "level_line", "learned"]


def xp_lines(e: Mapping, ctx: Any = None) -> list[str]:
    """How each award split: '100 XP for quest: ... split 5 ways: 20 each; 0 waits in the pool'."""
    out = []
    for a in e.get("xp_awards", ()) or ():
        shares = a.get("shares", {})
        ways = len(shares)
        amounts = set(shares.values())
        if not shares:
            split = "too little to split" if a.get("pool_after") else "no one present to share it"
        elif len(amounts) == 1:
            split = f"split {plural(ways, 'way')}: {next(iter(amounts))} each" if ways > 1 else \
                f"all to {next(iter(shares))}"
        else:
            split = "; ".join(f"{n} +{x}" for n, x in shares.items())
        pool = a.get("pool_before", 0)
        carried = f" (with {pool} from the pool)" if pool else ""
        waits = f"; {a['pool_after']} waits in the pool" if a.get("pool_after") else ""
        out.append(f"{a['amount']} XP for {a['reason']}{carried}, {split}{waits}")
    for u in e.get("level_ups", ()) or ():
        out.append(level_line(u, ctx))
    return out


def level_line(u: Mapping, ctx: Any = None) -> str:
    text = f"{u['who']} reaches level {u['level']}"
    if u.get("max_hearts") is not None:
        gained = u.get("hearts_gained")
        text += f" ({u['max_hearts']} hearts" + (f", +{gained}" if gained else "") + ")"
    if u.get("spells_learned"):
        text += f"; learns {names(spell_name(ctx, s) for s in u['spells_learned'])}"
    if u.get("true_names_learned"):
        text += f"; new true names: {names(u['true_names_learned'])}"
    if u.get("choices"):
        text += f"; to choose: {names([spaced(c) for c in u['choices']])}"
    return text


def _gained(e: Mapping) -> list:
    return list(e.get("weapons", [])) + list(e.get("armor", [])) + list(e.get("items", []))


# ---------------------------------------------------------------- checks and rolls

def _check_title(e: Mapping, ctx: Any) -> str:
    what = "save" if e.get("save") else "check"
    skill = skill_name(ctx, e["who"], e.get("skill"))
    vs = f" against {e['vs']}" if e.get("vs") else ""
    return f"{e['who']}'s {skill + ' ' if skill else ''}{what}{vs}"


@tells("check", title=_check_title)
def _check(e: Mapping, ctx: Any, pre: str, hidden: tuple) -> dict:
    who = e["who"]
    skill = skill_name(ctx, who, e.get("skill"))
    what = ("save" if e.get("save") else "check") if not e.get("why", "").startswith("Hide") else "Hide"
    head = f"{who}: {skill + ' ' if skill and what != 'Hide' else ''}{what}"
    if "target" in e:
        ok = bool(e["success"])
        text = f"{pre}{head} {e['total']} vs {e['target']}: {'succeeds' if ok else 'fails'} " \
               f"({pct(e.get('chance'))} chance)"
        return story(text, [], verdict("success" if ok else "failure", ok))
    res = e["result"]
    word = {"win": f"{who} wins", "lose": f"{e['vs']} wins",
            "tie": f"a tie: {e['vs']} holds (the keeper may rule otherwise)"}[res]
    text = f"{pre}{head} {e['total']} vs {e['vs']} {e['vs_total']}: {word} ({pct(e.get('chance'))} to win)"
    return story(text, [], verdict({"win": "win", "lose": "loss", "tie": "tie"}[res],
                                   {"win": True, "lose": False}.get(res)))


@tells("roll", title=lambda e, ctx: f"the {e.get('expr')} roll" + (f" ({e['why']})" if e.get("why") else ""))
def _roll(e: Mapping, ctx: Any, pre: str, hidden: tuple) -> dict:
    return story(f"{pre}{e.get('who')} rolls {e.get('expr')}: {e.get('total')}" +
                 (f" ({e['why']})" if e.get("why") else ""))


# ---------------------------------------------------------------- sessions, time, rests

said("start_session", lambda e, ctx: f"Session {e['number']} begins: every player has "
                                     f"{plural(e['luck_dice'], 'luck die', 'luck dice')}",
     title=lambda e, ctx: f"the start of session {e.get('number')}")
said("end_session", lambda e, ctx: f"Session {e['number']} ends",
     title=lambda e, ctx: f"the end of session {e.get('number')}")


@tells("rest", title=lambda e, ctx: "the party's rest")
def _rest(e: Mapping, ctx: Any, pre: str, hidden: tuple) -> dict:
    back = []
    for name, what in (e.get("restored") or {}).items():
        bits = [("spellbook charged" if v == "charged" else f"{spaced(res)} +{v}") for res, v in what.items()]
        back.append(f"{name}: {', '.join(bits)}")
    ended = [spaced(c["kind"]) + f" on {c['who']}" for c in e.get("conditions_ended", ())]
    text = f"The party rests {plural(e.get('hours', 8), 'hour')}: " + \
           ("; ".join(back) if back else "nothing needed restoring")
    return story(text, [f"Ended: {names(ended)}"] if ended else [])


said("advance_time", lambda e, ctx: f"Time passes: {duration(e.get('seconds', 0))}",
     title=lambda e, ctx: "the time passing")


# ---------------------------------------------------------------- XP, coins, quests and rooms

_XP_HEADS = {"award_xp": lambda e: "XP awarded", "complete_quest": lambda e: f"Quest complete: {e.get('quest')}",
             "explore_room": lambda e: f"Room explored: {e.get('room')}"}


@tells("award_xp", "complete_quest", "explore_room",
       title=lambda e, ctx: {"award_xp": lambda: f"the award of {e['args'].get('amount')} XP",
                             "complete_quest": lambda: f"the quest {e.get('quest')!r}",
                             "explore_room": lambda: f"the room {e.get('room')!r}"}[e["kind"]]())
def _xp(e: Mapping, ctx: Any, pre: str, hidden: tuple) -> dict:
    xp = xp_lines(e, ctx)
    head = _XP_HEADS[e["kind"]](e)
    if e["kind"] == "award_xp":
        return story(xp[0] if xp else head, xp[1:])
    return story(head, xp)


@tells("earn", title=lambda e, ctx: f"the {money(rules_of(ctx), e.get('talons', 0))} earned")
def _earn(e: Mapping, ctx: Any, pre: str, hidden: tuple) -> dict:
    rules = rules_of(ctx)
    purses = e.get("purses") or {}
    split = (f"to {next(iter(purses))}" if len(purses) == 1 else
             "shared by seat: " + ", ".join(f"{n} {money(rules, t)}" for n, t in purses.items()))
    head = f"{money(rules, e['talons'])} earned" + (f" ({e['reason']})" if e.get("reason") else "") + f", {split}"
    return story(head, xp_lines(e, ctx))


said("spend", lambda e, ctx: f"{e['who']} spends {money(rules_of(ctx), e['talons'])}"
                             + (f" ({e['reason']})" if e.get("reason") else ""),
     title=lambda e, ctx: f"{e['who']} spending {money(rules_of(ctx), e.get('talons', 0))}")
said("buy", lambda e, ctx: f"{e['who']} buys {e['count']} {spaced(e['item'])} for {money(rules_of(ctx), e['talons'])}",
     title=lambda e, ctx: f"{e['who']}'s purchase")


# ---------------------------------------------------------------- the party: joining, choices, levels

@tells("add_delver", title=lambda e, ctx: f"{e['who']} joining the party")
def _add_delver(e: Mapping, ctx: Any, pre: str, hidden: tuple) -> dict:
    """A new delver, and what the dice gave them: the spells a mage knows, a namer's true names."""
    rules = rules_of(ctx)
    cls = rules.class_name(e["class_id"]).lower() if rules is not None and e["class_id"] in rules.classes \
        else e["class_id"]
    return story(f"{pre}{e['who']} joins the party ({cls}, {e['hearts']} hearts, player {e['player']})",
                 learned(e["who"], e.get("spells"), e.get("true_names"), ctx))


def learned(who: str, spells: Any, true_names: Any, ctx: Any = None) -> list[str]:
    """What the dice gave a delver to know: 'Mira's spellbook: Firebolt, Light and Invisibility', "Sable's true
    names: Fire, Bind and Locate"."""
    out = []
    if spells:
        out.append(f"{who}'s spellbook: {names(spell_name(ctx, s) for s in spells)}")
    if true_names:
        out.append(f"{who}'s true names: {names(true_names)}")
    return out


@tells("choose", title=lambda e, ctx: f"{e['who']}'s choice of {e.get('option')}")
def _choose(e: Mapping, ctx: Any, pre: str, hidden: tuple) -> dict:
    rules = rules_of(ctx)
    d = getattr(ctx, "state", {}).get("delvers", {}).get(e["who"]) if rules is not None else None
    if d is not None:
        from ..engine import queries
        name = queries.option_name(rules, d["class_id"], e["choice"], e["option"])
    else:
        name = e["option"]
    return story(f"{e['who']} chooses {name} ({spaced(e['choice'])})")


@tells("level_up", title=lambda e, ctx: f"{e['who']}'s level-up")
def _level_up(e: Mapping, ctx: Any, pre: str, hidden: tuple) -> dict:
    ups = [level_line(u, ctx) for u in e.get("level_ups", ())]
    return story(ups[0] if ups else "Level up", ups[1:])


# ---------------------------------------------------------------- gear

@tells("give", title=lambda e, ctx: f"{names(_gained(e))} found by {e['who']}")
def _give(e: Mapping, ctx: Any, pre: str, hidden: tuple) -> dict:
    got = _gained(e) or [e.get("name")]
    count = e.get("count", 1)
    return story(f"{e['who']} gains {names(got)}" + (f" (x{count})" if count > 1 and e.get("items") else ""))


said("take", lambda e, ctx: f"{names(e.get('taken', []))} taken from {e['who']}"
                            + (f", handed to {e['to']}" if e.get("to") else ""),
     title=lambda e, ctx: f"{names(e.get('taken', []))} taken from {e['who']}"
                          + (f" to {e['to']}" if e.get("to") else ""))
said("drop", lambda e, ctx: f"{e['who']} drops {names(e.get('dropped', []))}",
     title=lambda e, ctx: f"{e['who']} dropping {names(e.get('dropped', []))}")
said("reload", lambda e, ctx: f"{e['who']} reloads the {e['weapon']}",
     title=lambda e, ctx: f"{e['who']}'s reload of the {e['weapon']}")


# ---------------------------------------------------------------- NPCs and conditions

@tells("npc", title=lambda e, ctx: f"{e['name']} entering the story")
def _npc(e: Mapping, ctx: Any, pre: str, hidden: tuple) -> dict:
    rules = rules_of(ctx)
    kind = e.get("foe")
    if rules is not None:
        from ..engine.queries import foe_type
        found = foe_type(getattr(ctx, "state", {}), rules, kind) if kind is not None else None
        kind = found.get("name", kind) if found is not None else "typed"
    shown = "" if e["name"] in hidden else f", {plural(e['hearts'], 'heart')}"
    return story(f"{e['name']} enters the story ({kind}{shown})", [e["note"]] if e.get("note") else [])


said("remove_npc", lambda e, ctx: f"{e['name']} leaves the story",
     title=lambda e, ctx: f"{e['name']} leaving the story")
said("condition", lambda e, ctx: f"{e['who']} is now {spaced(e['name'])} (the keeper's ruling)",
     title=lambda e, ctx: f"{e.get('name')} on {e['who']}")
said("end_condition", lambda e, ctx: "Ended: " + (names(spaced(c["kind"]) + f" on {c['who']}"
                                                       for c in e.get("conditions_ended", ())) or "nothing"),
     title=lambda e, ctx: "the condition's end")
