"""Who may act now and with what: the able, whose turn it is, the action and a companion's slot used or left, how an
ability sits in the turn economy, and whether someone may be healed. The commands refuse by the same answers a
view shows.

Standard library only: part of the pure core.
"""

from __future__ import annotations

from typing import Mapping, NamedTuple

from ...core.model import CREATURE, combatant, current_actor, is_alive, is_dead, is_dying, owner_of, used_this_turn
from ...core.rules import Rules
from .. import effects
from ..base import Reader

__all__ = ["able", "can_act", "ACTION", "FREE", "REACTION", "Acting", "may_act", "ability_timing", "turn_problem",
           "acting_problem", "healing_banned", "Hearers", "hearers"]


def able(state: dict) -> list[str]:
    """Everyone in play who can act now (neither dying nor dead): the party in seat order, then the foes."""
    out = [n for n in state["seats"] if not (is_dead(state["delvers"][n]) or is_dying(state["delvers"][n]))]
    enc = state["encounter"]
    if enc is not None:
        out += [n for n, f in enc["foes"].items() if not is_dead(f)]
    return out


def can_act(state: dict, name: str) -> str | None:
    """Why ``name`` cannot act now (not here, dead, dying: a death save first), or None if it can."""
    found = combatant(state, name)
    if found is None:
        return f"no one named {name!r} is here"
    return _blocked(name, found[1])


def _blocked(name: str, c: Mapping) -> str | None:
    """``can_act`` for a combatant found."""
    if is_dead(c):
        return f"{name} is dead"
    if is_dying(c):
        return f"{name} is dying and must make a death save before anything else"
    return None


class Hearers(NamedTuple):
    """Who may hear a Commander's order: ``friendly`` every friendly creature that could (the living party, their
    familiars, the named NPCs beside them), ``default`` those an order reaches unless the keeper names others (the
    able party and their familiars)."""

    friendly: list
    default: list


def hearers(state: dict) -> Hearers:
    """The friendly creatures that can hear an order ('all friendly creatures that can hear you')."""
    delvers = state["delvers"]
    party = [n for n in state["seats"] if is_alive(delvers[n])]
    others = [n for n, c in state.get("creatures", {}).items() if not is_dead(c)]
    familiars = [n for n in others if state["creatures"][n].get("owner") in party]
    return Hearers(party + others, party + familiars)


ACTION, FREE, REACTION = "action", "free", "reaction"
"""How a deed sits in the turn economy: it uses the action; it is taken on one's own turn without it (Sprint,
Hide); it answers at any moment (a Sentry's attacks, a Dodge, a counter). A companion's deed names its slot in
its owner's turn (``holy_weapon``)."""


class Acting(NamedTuple):
    """Whether ``who`` may act now, and with what.

    ``tracked``: the turn economy holds now (a fight with turns, rules that enforce them); ``actor``: whose turn
    it is; ``on_turn``: it is ``who``'s turn (a familiar's: its owner's); ``left``: what ``who`` still has this
    turn (``"action"``, and a companion's slot such as ``"holy_weapon"``); ``used``: what it used, by slot;
    ``why``: why ``who`` cannot take an action now, naming whose turn it is (None when it can)."""

    who: str
    tracked: bool
    actor: str | None
    on_turn: bool
    left: tuple
    used: Mapping
    why: str | None

    @property
    def action(self) -> bool:
        """It may take an action now."""
        return self.why is None and (not self.tracked or "action" in self.left)


def _slots(state: dict, rules: Rules, who: str) -> list[str]:
    """The slots ``who`` has in its own turn besides the action (``effects.turn_slots``: a conjured sword's)."""
    hooks = effects.TURN_SLOTS.now(state)
    if not hooks:
        return []
    r = Reader(state, rules)
    return [slot for slots_of in hooks for slot in slots_of(r, who)]


def may_act(state: dict, rules: Rules, who: str) -> Acting:
    """May ``who`` act now, and with what: the one answer the commands refuse by and a view shows (whose turn
    it is, whether ``who`` still has its action, what it used). Outside a fight, or where the rules do not
    enforce turns, anyone able may act; the dead and the dying may not (a death save first)."""
    found = combatant(state, who)
    if found is None:
        return Acting(who, False, None, False, (), {}, f"no one named {who!r} is here")
    side, c = found
    blocked = _blocked(who, c)
    enc = state["encounter"]
    turns = rules.core["turns"]
    if enc is None or not turns["enforced"]:
        return Acting(who, False, None, blocked is None, ("action",) if blocked is None else (), {}, blocked)
    if blocked is not None:
        return Acting(who, True, current_actor(state), False, (), {}, blocked)
    if enc["side"] is None:
        return Acting(who, True, None, False, (), {}, "no turns yet in this fight: roll initiative (or say who "
                                                       "goes first) before anyone acts")
    actor = current_actor(state)
    owner = owner_of(state, who) if side == CREATURE else None
    holder = owner or who
    in_fight = side != CREATURE or owner is not None
    used = used_this_turn(state, who)
    on_turn = in_fight and actor == holder
    left: list[str] = []
    if on_turn:
        count = sum(1 for k in used if k == "action" or k.startswith("action#")) if used else 0
        if count < turns["actions"]:
            left.append("action")
        left += [s for s in _slots(state, rules, who) if s not in used]
    if not in_fight:
        why = f"{who} is not in the fight (add it to the fight, or the keeper may override)"
    elif not on_turn:
        whose = f"{actor}'s" if actor else "nobody's"
        why = f"it is {whose} turn, not {holder}'s" + (f" ({who} acts in {owner}'s turn)" if owner else "")
    elif "action" not in left:
        did = used.get("action", "")
        why = f"{who} has used its action this turn{f' ({did})' if did else ''}, and it is still {holder}'s turn"
    else:
        why = None
    return Acting(who, True, actor, on_turn, tuple(left), used, why)


def ability_timing(rules: Rules, a: Mapping) -> str:
    """How an ability sits in the turn economy: the text's 'use your action' (``action``), 'without using an
    action' (``free``), an answer at any moment (``reaction``: Dodge, Focus, a Commander's order); an ability
    the text does not mark is the rules' ``turns.unmarked`` (an action)."""
    mech = a.get("mechanics", {})
    # what the data says, first (a flag set false says the deed is not that: uses_action false is taken without
    # the action, reaction false on one's own turn, free_action false with the action)
    if "uses_action" in mech:
        return ACTION if mech["uses_action"] else FREE
    if mech.get("reaction"):
        return REACTION
    if "free_action" in mech:
        return FREE if mech["free_action"] else ACTION
    if "reaction" in mech:
        return str(rules.core["turns"]["unmarked"])
    # unsaid (a campaign's own ability): a rider on damage or on a roll (a Dodge, a Focus) answers at any moment;
    # one on the next attack is no deed of its own: the attack it shapes takes the action
    if "damage_reduction" in mech or "roll_bonus" in mech:
        return REACTION
    if mech.get("applies_to") == "next_attack":
        return FREE
    return str(rules.core["turns"]["unmarked"])


def turn_problem(state: dict, rules: Rules, who: str, timing: str, what: str) -> str | None:
    """Why ``who`` may not do ``what`` (of ``timing``: action, free, reaction, or a companion's slot) now, or
    None; what a command is refused with (unless the keeper overrides) and what a view greys a button by."""
    if timing == REACTION:
        return can_act(state, who)
    return acting_problem(may_act(state, rules, who), who, timing, what)


def acting_problem(acting: Acting, who: str, timing: str, what: str) -> str | None:
    """``turn_problem`` from ``may_act``'s answer (a command that goes on to mark the action asks once)."""
    if not acting.tracked:
        return acting.why
    if not acting.on_turn:
        if acting.actor is None or acting.why is None or acting.why.startswith(("no turns", f"{who} is not")):
            return acting.why
        tail = "uses" if timing == ACTION else "is taken on"
        return f"{acting.why}: {what} {tail} {who}'s {'action' if timing == ACTION else 'own turn'}"
    if timing == FREE:
        return None
    if timing in acting.left:
        return None
    if timing == ACTION:
        return f"{acting.why}: {what} needs an action (end the turn, or the keeper may override)"
    return f"{who}'s {timing.replace('_', ' ')} has already acted this turn ({acting.used.get(timing, timing)})"


def healing_banned(r: Reader, who: str) -> str | None:
    """Why ``who`` cannot be healed now (Blood Magic's ban until a rest), or None."""
    for guard in effects.HEAL_GUARDS.now(r.state):
        banned = guard(r, who)
        if banned:
            return banned
    return None
