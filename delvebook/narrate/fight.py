"""Fights told: attacks with their hits, counters and choices; damage and healing (by hand too); traps; death
saves; a fight's beginning, turns and end."""

from __future__ import annotations

from typing import Any, Mapping

from ..core.roles import KEEPER
from .keeping import xp_lines
from .words import (dealer, fight_name, hearts, names, pct, plural, said, skill_name, spaced, spell_name, story,
                    tells, verdict)

__all__ = ["dealt", "healed"]


def dealt(d: Mapping, hidden=()) -> str:
    """One hit's damage: 'Bog goblin 2 takes 5 (4 -> 0 hearts), vanquished'."""
    if d.get("wasted"):
        return f"dart {d.get('dart')} finds {d['target']} already down"
    bits = [f"{d['target']} takes {d['dealt']}"]
    if d["target"] not in hidden:
        bits.append(hearts(d["hearts_before"], d["hearts_after"]))
    extra = []
    if d.get("dodged"):
        extra.append(f"dodged {d['dodged']}")
    if d.get("absorbed"):
        extra.append(f"armor absorbed {d['absorbed']}")
    broken = [x["piece"] for x in d.get("dv", ()) if x.get("broken")]
    if broken:
        extra.append(f"{names(broken)} broken")
    if d.get("halved"):
        extra.append("halved by the save")
    for a in d.get("added", ()):  # an on-hit choice's own dice (a smite's)
        extra.append(f"{spaced(a.get('option', ''))} +{a.get('total')}")
    if extra:
        bits.append("[" + ", ".join(extra) + "]")
    text = " ".join(bits)
    if d.get("vanquished"):
        text += ", vanquished"
    if d.get("death_save_due"):
        text += f"; {d['target']} is below 1 heart: death save!"
    return text


def healed(h: Mapping, hidden=()) -> str:
    """One healing: 'Brakka heals 3 (0 -> 3 hearts)'; what the maximum held back is said."""
    gained = h["hearts_after"] - h["hearts_before"]
    text = f"{h['who']} heals {gained}"
    if gained != h["amount"]:
        text += f" of {h['amount']}"
    if h["who"] not in hidden:
        text += " " + hearts(h["hearts_before"], h["hearts_after"])
        if gained != h["amount"]:
            text += ", at the maximum"
    return text


def _by_hand(entry: Mapping | None, default: str) -> str:
    """How damage or healing by the keeper's hand is headed: its words ('A falling block: '), else the hazard
    that dealt it, else 'Damage by hand: '."""
    said = dealer(entry) if entry is not None else "the keeper"
    if entry is not None and entry.get("source") not in (None, "", KEEPER):
        said = str(entry["source"])  # the keeper's words say what, also for a hazard named by ``by``
    return default if said == "the keeper" else f"{said[:1].upper()}{said[1:]}: "


# ---------------------------------------------------------------- attacks

def attack_story(e: Mapping, pre: str, hidden: tuple, ctx: Any = None) -> dict:
    results = e.get("results", [])
    totals = "/".join(map(str, e["attack_totals"]))
    n = len(results)
    lines = []
    counter = e.get("counter") or {}
    if n == 1:
        res = results[0]
        if res == "hit":
            word, good = "hit", True
        elif res == "tie":
            word, good = ("a tie: both hit" if counter.get("possible") else f"a tie: {e['attacker']} hits"), True
        else:
            word, good = ("miss, countered" if counter.get("possible") else "miss"), False
    else:
        landed = results.count("hit") + results.count("tie")
        word = f"{landed} of {n} attacks land" if landed else f"all {n} attacks miss"
        if "tie" in results:
            word += (", a tie: both hit" if counter.get("possible") else ", one a tie")
        good = landed > 0
    adv = " with advantage" if e.get("advantage") else " with disadvantage (cannot see)" \
        if e.get("disadvantage") else ""
    multi = f" (multi-attack {n})" if n > 1 else ""
    resist = "/".join(map(str, e.get("resist_totals") or [e["resist_total"]]))
    text = f"{pre}{e['attacker']} attacks {e['target']} with {e['weapon']}{adv}{multi}: {totals} vs " \
           f"{resist}, {word}"
    chance = e.get("chance") or {}
    if chance.get("win") and n > 1:  # a multi-attack records the odds of each of its attacks
        lines.append(f"odds were {pct(chance['win'])} to hit, {pct(chance.get('tie'))} a tie, each attack")
    elif chance.get("win"):
        lines.append(f"odds were {pct(chance['win'])} to hit, {pct(chance.get('tie'))} a tie")
    for d in e.get("damage", []):
        lines.append(dealt(d, hidden))
    if counter:
        if counter.get("possible"):
            lines.append(f"{counter['by']} hits back: " + dealt(counter["damage"], hidden))
        elif counter.get("why"):
            lines.append(f"no counter: {counter['why']}")
    if e.get("ammo"):
        a = e["ammo"]
        lines.append(f"{plural(a['spent'], spaced(a['item']))} spent, {a['left']} left")
    for o in e.get("on_hit_options") or ():
        lines.append(f"on the hit, {o.get('name', o['option'])} may be chosen"
                     + (f" ({o['cost_text']}" + (f", +{o['adds']})" if o.get("adds") else ")") if o.get("cost_text")
                        else ""))
    if e.get("blood_magic_charged"):
        lines.append(f"the Blood Magic sword is charged: {spell_name(ctx, e['blood_magic_charged'])}")
    if "sentry_attacks_left" in e:
        lines.append(f"Sentry: {plural(e['sentry_attacks_left'], 'attack')} left")
    return story(text, lines, verdict(word.split(":")[0] if n == 1 else word, good))


@tells("attack", title=lambda e, ctx: f"{e['attacker']}'s attack on {e['target']}")
def _attack(e: Mapping, ctx: Any, pre: str, hidden: tuple) -> dict:
    return attack_story(e, pre, hidden, ctx)


@tells("damage", title=lambda e, ctx: "the damage to " + names([d["target"] for d in e.get("damage", ())]))
def _damage(e: Mapping, ctx: Any, pre: str, hidden: tuple) -> dict:
    items = e.get("damage") or []
    head = _by_hand(items[0] if items else None, "Damage by hand: ")
    return story(pre + head + "; ".join(dealt(d, hidden) for d in items))


@tells("trap", title=lambda e, ctx: f"{e['trap']} springing on {e['who']}")
def _trap(e: Mapping, ctx: Any, pre: str, hidden: tuple) -> dict:
    ok = bool(e["success"])
    skill = skill_name(ctx, e["who"], e.get("skill"))
    text = f"{pre}{str(e['trap'])[:1].upper()}{str(e['trap'])[1:]} springs on {e['who']}: " \
           f"{skill + ' ' if skill else ''}save {e['total']} vs {e['target']}, " \
           f"{'avoided' if ok else 'caught'} ({pct(e.get('chance'))} chance to avoid it)"
    return story(text, [dealt(d, hidden) for d in e.get("damage", ())], verdict("avoided" if ok else "caught", ok))


@tells("heal", title=lambda e, ctx: "the healing of " + names([h["who"] for h in e.get("healing", ())]))
def _heal(e: Mapping, ctx: Any, pre: str, hidden: tuple) -> dict:
    items = e.get("healing") or []
    head = _by_hand(items[0] if items else None, "Healing by hand: ")
    return story(head + "; ".join(healed(h, hidden) for h in items))


@tells("death_save", title=lambda e, ctx: f"{e['who']}'s death save")
def _death_save(e: Mapping, ctx: Any, pre: str, hidden: tuple) -> dict:
    ok = bool(e["success"])
    needs = f"needs {e['target']}: {pct(e.get('chance'))}" if "target" in e else ""
    text = f"{pre}{e['who']}'s death save: {e['total']}" + (f" ({needs})" if needs else "") + \
           (f": defies death, alive at {_hearts_set(e, e['who'])} hearts" if ok else f": {e['who']} dies")
    return story(text, [], verdict("defies death" if ok else "dies", ok))


def _hearts_set(e: Mapping, who: str) -> Any:
    """The hearts an event set on ``who`` (from its own changes: the log tells each event as it was)."""
    for path, value in e.get("changes", ()):
        if list(path) == ["delvers", who, "hearts"]:
            return value
    return "?"


# ---------------------------------------------------------------- a fight's course

@tells("encounter", title=lambda e, ctx: f"the start of the fight ({fight_name(e.get('name'), ctx)})")
def _encounter(e: Mapping, ctx: Any, pre: str, hidden: tuple) -> dict:
    foes = [f["name"] for f in e.get("foes", [])]
    dark = [DARK] if e.get("dark") else []
    return story(f"A fight begins ({fight_name(e.get('name'), ctx)}): {names(foes)}",
                 dark + ["Roll initiative, or say which side goes first."])


DARK = "in darkness: whoever cannot see attacks with disadvantage, and is attacked with advantage"

said("moved", lambda e, ctx: f"{e['who']} moves this turn", title=lambda e, ctx: f"{e['who']}'s move")
said("lighting", lambda e, ctx: "The fight is " + (DARK if e.get("dark") else "lit: everyone can see"),
     title=lambda e, ctx: "the darkness" if e.get("dark") else "the light")


said("add_foes", lambda e, ctx: f"{names(e['foes'])} {'joins' if len(e['foes']) == 1 else 'join'} the fight, acting "
                                f"last on the foes' side",
     title=lambda e, ctx: f"{names(e.get('foes', []))} joining the fight")


@tells("initiative", title=lambda e, ctx: "the initiative roll")
def _initiative(e: Mapping, ctx: Any, pre: str, hidden: tuple) -> dict:
    rolls = e.get("initiative_rolls") or []
    side = "the party goes" if e["first"] == "party" else "the foes go"
    if rolls:
        said = "; ".join(f"party {p} vs foes {f}" + (" (a tie: rolled again)" if p == f else "") for p, f in rolls)
        text = f"{pre}Initiative: {said}: {side} first"
    else:
        text = f"Initiative: {side} first (the keeper's call)"
    return story(text, [f"Round 1: {e['turn_of']} acts"] if e.get("turn_of") else [])


said("next_turn", lambda e, ctx: f"Round {e['round']}: {e.get('turn_of') or e.get('side')}'s turn"
                                 + (" (a new round)" if e.get("new_round") else ""),
     title=lambda e, ctx: f"the turn of {e.get('turn_of') or e.get('side')}")
said("set_order", lambda e, ctx: f"The party's order: {', '.join(e.get('order', []))}",
     title=lambda e, ctx: "the new order")


@tells("end_encounter", title=lambda e, ctx: f"the end of the fight ({fight_name(e.get('name'), ctx)})")
def _end_encounter(e: Mapping, ctx: Any, pre: str, hidden: tuple) -> dict:
    gone = e.get("vanquished") or []
    text = f"The fight ends after {plural(e['rounds'], 'round')}: " + \
           (f"vanquished {names(gone)}, {e['xp']} XP" if gone else "no foe vanquished, no XP")
    kept = e.get("kept") or []
    more = [f"{names(kept)} {'stays' if len(kept) == 1 else 'stay'} in the story as "
            f"{'an NPC' if len(kept) == 1 else 'NPCs'}"] if kept else []
    return story(text, more + xp_lines(e, ctx))
