"""Fights told: attacks with their hits, counters and choices; damage and healing (by hand too); traps; death
saves; a fight's beginning, turns and end."""

from __future__ import annotations

from typing import Any

from ..core.records import Counter, Damage, Dv, Healing
from ..core.roles import KEEPER
from ..engine.checks import DeathSave
from ..engine.combat import Attack, DamageByHand, HealByHand, OnHitOption, Struck
from ..engine.encounters import AddFoes, EndEncounter, Encounter, FoeJoined, Initiative, NextTurn, SetOrder
from ..engine.scene import Lighting, Moved, Trap
from .keeping import xp_lines
from .words import (dealer, fight_name, hearts, names, pct, plural, said, skill_name, spaced, spell_name, story,
                    tells, untold, verdict)

__all__ = ["dealt", "healed", "attack_story"]

untold(Damage, by="the teller heads it with the dealer", source="the teller says what dealt it",
       raw="what was rolled before reducers and armor: dealt says what landed",
       av="the armor's value: absorbed says what it took", attack="which hit of a multi-attack: in order",
       expr="the damage roll: the roll panel draws it", max_damage="the attack says its rider",
       rolled="before a save halved it: halved says so", lost="a familiar lost: its card leaves the table")
untold(Healing, by="the teller heads it with the healer", source="the teller names the ability or spell")


def dealt(d: Damage, hidden=()) -> str:
    """One hit's damage: 'Bog goblin 2 takes 5 (4 -> 0 hearts), vanquished'."""
    if d.wasted:
        return f"dart {d.dart} finds {d.target} already down"
    bits = [f"{d.target} takes {d.dealt}"]
    if d.target not in hidden:
        bits.append(hearts(d.hearts_before, d.hearts_after))
    extra = []
    if d.dodged:  # (a Dodge's: declared where it plugs in, the rogue's module)
        extra.append(f"dodged {d.dodged}")
    if d.absorbed:
        extra.append(f"armor absorbed {d.absorbed}")
    broken = [x.piece for x in d.dv if x.broken]
    if broken:
        extra.append(f"{names(broken)} broken")
    if d.halved:
        extra.append("halved by the save")
    for a in d.added:  # an on-hit choice's own dice (a smite's)
        extra.append(f"{spaced(a.option or '')} +{a.total}")
    if extra:
        bits.append("[" + ", ".join(extra) + "]")
    text = " ".join(bits)
    if d.vanquished:
        text += ", vanquished"
    if d.death_save_due:
        text += f"; {d.target} is below 1 heart: death save!"
    return text


untold(Dv, dv="the DV left: the armor's card shows it")
untold(Counter, weapon="its damage's source names it")


def healed(h: Healing, hidden=()) -> str:
    """One healing: 'Brakka heals 3 (0 -> 3 hearts)'; what the maximum held back is said."""
    gained = h.hearts_after - h.hearts_before
    text = f"{h.who} heals {gained}"
    if gained != h.amount:
        text += f" of {h.amount}"
    if h.who not in hidden:
        text += " " + hearts(h.hearts_before, h.hearts_after)
        if gained != h.amount:
            text += ", at the maximum"
    return text


def _by_hand(entry: Damage | Healing | None, default: str) -> str:
    """How damage or healing by the keeper's hand is headed: its words ('A falling block: '), else the hazard
    that dealt it, else 'Damage by hand: '."""
    said = dealer(entry) if entry is not None else "the keeper"
    if entry is not None and entry.source not in (None, "", KEEPER):
        said = str(entry.source)  # the keeper's words say what, also for a hazard named by ``by``
    return default if said == "the keeper" else f"{said[:1].upper()}{said[1:]}: "


# ---------------------------------------------------------------- attacks

def attack_story(e: Struck, pre: str, hidden: tuple, ctx: Any = None) -> dict:
    """An attack told, wherever it was made (an attack, an ability's, a spell's touch)."""
    results = list(e.results)
    totals = "/".join(map(str, e.attack_totals))
    n = len(results)
    lines = []
    counter = e.counter
    possible = counter is not None and counter.possible
    if n == 1:
        res = results[0]
        if res == "hit":
            word, good = "hit", True
        elif res == "tie":
            word, good = ("a tie: both hit" if possible else f"a tie: {e.attacker} hits"), True
        else:
            word, good = ("miss, countered" if possible else "miss"), False
    else:
        landed = results.count("hit") + results.count("tie")
        word = f"{landed} of {n} attacks land" if landed else f"all {n} attacks miss"
        if "tie" in results:
            word += (", a tie: both hit" if possible else ", one a tie")
        good = landed > 0
    adv = " with advantage" if e.advantage else " with disadvantage (cannot see)" if e.disadvantage else ""
    multi = f" (multi-attack {n})" if n > 1 else ""
    resist = "/".join(map(str, e.resist_totals or [e.resist_total]))
    thrown = " (thrown)" if e.thrown else ""
    text = f"{pre}{e.attacker} attacks {e.target} with {e.weapon}{thrown}{adv}{multi}: {totals} vs " \
           f"{resist}, {word}"
    chance = e.chance
    if chance is not None and chance.win and n > 1:  # a multi-attack records the odds of each of its attacks
        lines.append(f"odds were {pct(chance.win)} to hit, {pct(chance.tie)} a tie, each attack")
    elif chance is not None and chance.win:
        lines.append(f"odds were {pct(chance.win)} to hit, {pct(chance.tie)} a tie")
    for d in e.damage:
        lines.append(dealt(d, hidden))
    if counter is not None:
        if counter.possible:
            lines.append(f"{counter.by} hits back: " + dealt(counter.damage, hidden))
            if counter.ammo is not None:
                lines.append(f"{plural(counter.ammo.spent, spaced(counter.ammo.item))} spent, {counter.ammo.left} left")
        elif counter.why:
            lines.append(f"no counter: {counter.why}")
    if e.ammo is not None:
        a = e.ammo
        lines.append(f"{plural(a.spent, spaced(a.item))} spent, {a.left} left")
    for o in e.on_hit_options:
        lines.append(f"on the hit, {o.name or o.option} may be chosen"
                     + (f" ({o.cost_text}" + (f", +{o.adds})" if o.adds else ")") if o.cost_text else "")
                     + (f": {o.why}" if o.why else ""))
    lines += [line for line in (say(e, ctx) for say in STRUCK_LINES) if line]
    return story(text, lines, verdict(word.split(":")[0] if n == 1 else word, good))


STRUCK_LINES: list = []
"""What a class brings to an attack, said in a line each (``told_on_attacks``): a smite spent or not, a Sentry's
attacks left, a sword charged. Each says "" for an attack without it."""


def told_on_attacks(fn):
    """Register a line every attack adds when what a class brought to it is there: ``fn(struck, ctx) -> str``."""
    STRUCK_LINES.append(fn)
    return fn


untold(Struck, attack_expr="the attack roll: the roll panel draws it", resist_expr="the resist roll: the roll "
       "panel draws it", multi="said as the number of attack totals")
untold(OnHitOption, cost="said in words (cost_text)", hit="the hit it rides: the first that landed",
       affordable="its why says what is short")


@told_on_attacks
def _smite(e: Struck, ctx: Any) -> str:
    s = e.smite
    if s is None:
        return ""
    return "smite spent" if s.spent else f"smite not spent: {s.why}" if s.why else "smite not spent"


@told_on_attacks
def _charged(e: Struck, ctx: Any) -> str:
    charged = e.blood_magic_charged
    return f"the Blood Magic sword is charged: {spell_name(ctx, charged)}" if charged else ""


@told_on_attacks
def _sentry(e: Struck, ctx: Any) -> str:
    left = e.sentry_attacks_left
    return f"Sentry: {plural(left, 'attack')} left" if left is not None else ""


@tells(Attack, title=lambda e, ctx: f"{e.attacker}'s attack on {e.target}")
def _attack(e: Attack, ctx: Any, pre: str, hidden: tuple) -> dict:
    return attack_story(e, pre, hidden, ctx)


@tells(DamageByHand, title=lambda e, ctx: "the damage to " + names([d.target for d in e.damage]))
def _damage(e: DamageByHand, ctx: Any, pre: str, hidden: tuple) -> dict:
    items = e.damage
    head = _by_hand(items[0] if items else None, "Damage by hand: ")
    return story(pre + head + "; ".join(dealt(d, hidden) for d in items))


@tells(Trap, title=lambda e, ctx: f"{e.trap} springing on {e.who}", untold={"expr": "the roll panel draws it"})
def _trap(e: Trap, ctx: Any, pre: str, hidden: tuple) -> dict:
    ok = bool(e.success)
    skill = skill_name(ctx, e.who, e.skill)
    text = f"{pre}{str(e.trap)[:1].upper()}{str(e.trap)[1:]} springs on {e.who}: " \
           f"{skill + ' ' if skill else ''}save {e.total} vs {e.target}, " \
           f"{'avoided' if ok else 'caught'} ({pct(e.chance)} chance to avoid it)"
    return story(text, [dealt(d, hidden) for d in e.damage], verdict("avoided" if ok else "caught", ok))


@tells(HealByHand, title=lambda e, ctx: "the healing of " + names([h.who for h in e.healing]))
def _heal(e: HealByHand, ctx: Any, pre: str, hidden: tuple) -> dict:
    items = e.healing
    head = _by_hand(items[0] if items else None, "Healing by hand: ")
    return story(head + "; ".join(healed(h, hidden) for h in items))


@tells(DeathSave, title=lambda e, ctx: f"{e.who}'s death save")
def _death_save(e: DeathSave, ctx: Any, pre: str, hidden: tuple) -> dict:
    ok = bool(e.success)
    needs = f"needs {e.target}: {pct(e.chance)}" if e.target is not None else ""
    text = f"{pre}{e.who}'s death save: {e.total}" + (f" ({needs})" if needs else "") + \
           (f": defies death, alive at {_hearts_set(e, e.who)} hearts" if ok else f": {e.who} dies")
    return story(text, [], verdict("defies death" if ok else "dies", ok))


def _hearts_set(e: DeathSave, who: str) -> Any:
    """The hearts an event set on ``who`` (from its own changes: the log tells each event as it was)."""
    for path, value in e.changes:
        if list(path) == ["delvers", who, "hearts"]:
            return value
    return "?"


# ---------------------------------------------------------------- a fight's course

@tells(Encounter, title=lambda e, ctx: f"the start of the fight ({fight_name(e.name, ctx)})")
def _encounter(e: Encounter, ctx: Any, pre: str, hidden: tuple) -> dict:
    foes = [f.name for f in e.foes]
    dark = [DARK] if e.dark else []
    return story(f"A fight begins ({fight_name(e.name, ctx)}): {names(foes)}",
                 dark + ["Roll initiative, or say which side goes first."])


untold(FoeJoined, kind="the foe's card says what it is", hearts="the foe's card shows its hearts")

DARK = "in darkness: whoever cannot see attacks with disadvantage, and is attacked with advantage"

said(Moved, lambda e, ctx: f"{e.who} moves this turn", title=lambda e, ctx: f"{e.who}'s move")
said(Lighting, lambda e, ctx: "The fight is " + (DARK if e.dark else "lit: everyone can see"),
     title=lambda e, ctx: "the darkness" if e.dark else "the light")


said(AddFoes, lambda e, ctx: f"{names(e.foes)} {'joins' if len(e.foes) == 1 else 'join'} the fight, acting "
                             f"last on the foes' side",
     title=lambda e, ctx: f"{names(e.foes)} joining the fight")


@tells(Initiative, title=lambda e, ctx: "the initiative roll", untold={"order": "the fight panel lays it out"})
def _initiative(e: Initiative, ctx: Any, pre: str, hidden: tuple) -> dict:
    rolls = e.initiative_rolls
    side = "the party goes" if e.first == "party" else "the foes go"
    if rolls:
        said = "; ".join(f"party {p} vs foes {f}" + (" (a tie: rolled again)" if p == f else "") for p, f in rolls)
        text = f"{pre}Initiative: {said}: {side} first"
    else:
        text = f"Initiative: {side} first (the keeper's call)"
    return story(text, [f"Round 1: {e.turn_of} acts"] if e.turn_of else [])


said(NextTurn, lambda e, ctx: f"Round {e.round}: {e.turn_of or e.side}'s turn"
                              + (" (a new round)" if e.new_round else ""),
     title=lambda e, ctx: f"the turn of {e.turn_of or e.side}")
said(SetOrder, lambda e, ctx: f"The party's order: {', '.join(e.order)}"
                              + (f" ({e.turn_of} acts)" if e.turn_of else ""),
     title=lambda e, ctx: "the new order")


@tells(EndEncounter, title=lambda e, ctx: f"the end of the fight ({fight_name(e.name, ctx)})")
def _end_encounter(e: EndEncounter, ctx: Any, pre: str, hidden: tuple) -> dict:
    gone = list(e.vanquished)
    text = f"The fight ends after {plural(e.rounds, 'round')}: " + \
           (f"vanquished {names(gone)}, {e.xp} XP" if gone else "no foe vanquished, no XP")
    kept = list(e.kept)
    more = [f"{names(kept)} {'stays' if len(kept) == 1 else 'stay'} in the story as "
            f"{'an NPC' if len(kept) == 1 else 'NPCs'}"] if kept else []
    return story(text, more + xp_lines(e, ctx))
