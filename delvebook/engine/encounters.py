"""A fight's course: foes, initiative by side, turns and rounds, and the fight's end with its XP.

How delvebook reads the text where it is silent (each is in the rules data too):
- Turns (``core.turns``): each combatant has its action on its turn; ``turns.take`` refuses an action out of
  turn or a second one, naming whose turn it is, unless the keeper overrides.
- The party's order may change at any moment: it changes who acts next, and no one who has had their turn
  this round gets another (a delver who has done nothing yet on its turn hands it to the new first).
- An order set before initiative is kept; a delver who joins a running fight acts at the end of the party.

Standard library only: part of the pure core.
"""

from __future__ import annotations

from typing import Any, Literal, Mapping

from ..core.declared import Action, Record, field, rename
from ..core.events import clone
from ..core.model import FOES, PARTY, current_actor, is_dead, present, used_this_turn
from ..core.names import NameIndex
from .base import Ctx, Reader, command
from .creatures import creature_from, names_in_play
from .progress import Awarded, award

__all__ = ["FoeJoined", "Encounter", "AddFoes", "Sides", "Initiative", "SetOrder", "NextTurn", "EndEncounter",
           "start_encounter", "add_foes", "initiative", "set_order", "next_turn", "end_encounter"]


# ---------------------------------------------------------------- foes and encounters

def _new_foe(ctx: Ctx, spec: Any, taken: NameIndex, numbered: dict | None = None) -> dict:
    if isinstance(spec, str):
        spec = {"foe": spec}
    if not isinstance(spec, Mapping) or not ("foe" in spec or "npc" in spec):
        ctx.refuse(f"a foe is a bestiary id like 'goblin', {{foe: goblin, name: ...}}, or a named NPC "
                   f"{{npc: Grak}}; got {spec!r}")
    if "npc" in spec:  # a named creature joins the fight, and comes back out of it when the fight ends
        name = spec["npc"]
        c = ctx.state.get("creatures", {}).get(name)
        if c is None or c.get("role") == "familiar":
            ctx.refuse(f"there is no NPC named {name!r} to join the fight")
        if is_dead(c):
            ctx.refuse(f"{name} is dead")
        foe = clone(c)
        foe["npc"] = True
        return foe
    # a prepared encounter may give one foe its own name and hearts
    return creature_from(ctx, spec.get("name"), {"foe": spec["foe"], "hearts": spec.get("hearts")}, taken,
                         "a foe's name", numbered)


class FoeJoined(Record):
    """A foe who joins a fight as it begins: its name, its kind (a bestiary id) and hearts."""

    name: str
    kind: str
    hearts: int


class Encounter(Action, kind="encounter", targets=("foes",)):
    """A fight begins: its name and the foes in it, and whether it is fought in darkness."""

    name: str
    foes: list[FoeJoined]
    dark: bool = False


@command(Encounter)
def start_encounter(ctx: Ctx, foes: list, name: str | None = None, dark: bool = False) -> None:
    """A fight begins: foes from the bestiary (or named NPCs) join; initiative comes next. ``dark``: it is fought in
    darkness (``core.sight``: whoever cannot see attacks with disadvantage)."""
    if not isinstance(dark, bool):
        ctx.refuse(f"dark is true or false, not {dark!r}")
    if ctx.state["encounter"] is not None:
        ctx.refuse("a fight is already running: end it before starting another")
    if not foes:
        ctx.refuse("an encounter needs at least one foe")
    taken = NameIndex(names_in_play(ctx))
    made: dict = {}
    numbered: dict = {}  # the last number given each bestiary name: naming n foes is linear, not quadratic
    for spec in foes:
        f = _new_foe(ctx, spec, taken, numbered)
        if f["name"] in made:
            ctx.refuse(f"{f['name']!r} is already a name in this fight")
        made[f["name"]] = f
        taken.add(f["name"], "a foe in this fight")
    joining = [n for n, f in made.items() if f.get("npc")]
    if joining:
        ctx.set(["creatures"], {n: c for n, c in ctx.state["creatures"].items() if n not in joining})
    number = ctx.state["encounters_fought"] + 1
    enc = {"number": number, "name": name or f"Encounter {number}", "foes": made, "round": 0, "side": None,
           "turn": 0, "first": None, "order": {PARTY: [], FOES: list(made)}, "started_at": ctx.state["clock"],
           "vanquished": [], "acted": [], "used": {}}
    if dark:
        enc["dark"] = True
    ctx.set(["encounter"], enc)
    ctx.out(name=enc["name"], foes=[{"name": f["name"], "kind": f["kind"], "hearts": f["hearts"]}
                                    for f in made.values()], **({"dark": True} if dark else {}))


class AddFoes(Action, kind="add_foes", targets=("foes",)):
    """Foes who join a running fight, by name."""

    foes: list[str]


@command(AddFoes)
def add_foes(ctx: Ctx, foes: list) -> None:
    """Foes join a running fight; they act at the end of the foes' order."""
    enc = _encounter(ctx)
    taken = NameIndex(names_in_play(ctx))
    joined = []
    numbered: dict = {}
    for spec in foes:
        f = _new_foe(ctx, spec, taken, numbered)
        if f["name"] in enc["foes"]:
            ctx.refuse(f"{f['name']!r} is already a name in this fight")
        taken.add(f["name"], "a foe in this fight")
        if f.get("npc"):
            ctx.set(["creatures"], {n: c for n, c in ctx.state["creatures"].items() if n != f["name"]})
        ctx.set(["encounter", "foes", f["name"]], f)
        joined.append(f["name"])
    ctx.set(["encounter", "order", FOES], enc["order"][FOES] + joined)
    ctx.out(foes=joined)


def _encounter(ctx: Ctx) -> dict:
    enc = ctx.state["encounter"]
    if enc is None:
        ctx.refuse("no fight is running")
    return enc


def _party_order(ctx: Ctx) -> list[str]:
    """The party's order for a fight: one the players set (before initiative too), then anyone present it does not
    name, in seat order (clockwise)."""
    enc = ctx.state["encounter"]
    here = present(ctx.state)
    chosen = [n for n in (enc["order"][PARTY] if enc else ()) if n in here]
    return chosen + [n for n in here if n not in chosen]


class _TurnBegins(Action):
    """An event after which someone's turn begins (``turn_of``); version 1 called it ``actor``."""

    turn_of: str | None = None

    @classmethod
    def upcast_v1_v2(cls, event: dict, state_before: Mapping) -> dict:
        if "actor" in event:
            rename(event, "actor", "turn_of")
        return super().upcast_v1_v2(event, state_before)


class Sides(Record):
    """The order of each side in a fight."""

    party: list[str]
    foes: list[str]


class Initiative(_TurnBegins, kind="initiative", targets=("turn_of",)):
    """Which side goes first: each side's D6 until they differ (none: the keeper said), and the order."""

    first: Literal["party", "foes"]
    initiative_rolls: list[list[int]]
    order: Sides = field(column="sides_order")


@command(Initiative)
def initiative(ctx: Ctx, first: str | None = None) -> None:
    """Each side rolls D6 and the higher goes first (ties re-rolled), unless one side obviously goes first."""
    enc = _encounter(ctx)
    if enc["round"] > 0:
        ctx.refuse("initiative is rolled once, at the start of the fight")
    rolls = []
    if first is None:
        die = str(ctx.core["initiative"]["die"])
        while True:
            p = ctx.roll("initiative_party", die, who="party", why="initiative")
            f = ctx.roll("initiative_foes", die, who="foes", why="initiative")
            rolls.append([p.total, f.total])
            if p.total != f.total:
                break
            if len(rolls) > 100:
                ctx.refuse("initiative tied a hundred times: the keeper should say who goes first")
        first = PARTY if rolls[-1][0] > rolls[-1][1] else FOES
    elif first not in (PARTY, FOES):
        ctx.refuse(f"the side that goes first is 'party' or 'foes', not {first!r}")
    ctx.set(["encounter", "first"], first)
    ctx.set(["encounter", "order", PARTY], _party_order(ctx))
    ctx.set(["encounter", "side"], first)
    ctx.set(["encounter", "round"], 1)
    ctx.set(["encounter", "acted"], [])
    order = ctx.state["encounter"]["order"][first]
    passed: list = []
    nxt = _next_in(ctx, order, [], passed)
    ctx.set(["encounter", "turn"], order.index(nxt) if nxt is not None else 0)
    ctx.out(first=first, initiative_rolls=rolls, order=ctx.state["encounter"]["order"])
    _turns_passed(ctx, passed)
    _start_turn(ctx)


def _takes_a_turn(ctx: Reader, name: str) -> bool:
    """The dead are skipped; the dying still take their turn (for the death save)."""
    _, c = ctx.combatant(name)
    return not is_dead(c)


def _next_in(ctx: Reader, order: list, acted: list, passed: list | None = None) -> str | None:
    """The first in ``order`` who has not had their turn this round and takes one; those before it who take none
    (the dead) are added to ``passed``: their turn would have come now."""
    for n in order:
        if n not in acted:
            if _takes_a_turn(ctx, n):
                return n
            if passed is not None:
                passed.append(n)
    return None


def _turns_passed(ctx: Ctx, passed: list) -> None:
    """What lasted until the start of a turn that is skipped (a dead cleric's Guiding Bolt mark) ends when that turn
    would have come."""
    if passed:
        ends = {f"turn:{n}": n for n in passed}
        ctx.end_conditions(lambda c: c["ends_on"] not in ends, "the turn it lasted until passed")


def _start_turn(ctx: Ctx) -> None:
    """A turn begins: its action is fresh, and what lasted until the start of this one's next turn ends."""
    enc = ctx.state["encounter"]
    if enc.get("used") or "used" not in enc:
        ctx.set(["encounter", "used"], {})
    actor = current_actor(ctx.state)
    if actor is not None:
        ctx.end_conditions(lambda c: c["ends_on"] != f"turn:{actor}", f"{actor}'s turn began")
        ctx.out(turn_of=actor)


class SetOrder(_TurnBegins, kind="set_order", targets=("turn_of",)):
    """The party's new order in the fight."""

    order: list[str] = field(column="party_order")


@command(SetOrder)
def set_order(ctx: Ctx, order: list[str]) -> None:
    """The party changes its order (the default is clockwise around the table): it changes who acts next; no one
    gets a second turn in a round, and a delver who has done nothing yet on its turn hands it to the new first."""
    enc = _encounter(ctx)
    current = enc["order"][PARTY] or _party_order(ctx)
    if not isinstance(order, (list, tuple)) or sorted(order) != sorted(current):
        ctx.refuse(f"the new order must name each delver in the fight once: {', '.join(current)}")
    actor = current_actor(ctx.state) if enc["side"] == PARTY else None
    ctx.set(["encounter", "order", PARTY], list(order))
    if actor is not None:
        acted = enc.get("acted", [])
        nxt = actor
        if not used_this_turn(ctx.state, actor):  # it has done nothing yet: the new first in line acts
            nxt = _next_in(ctx, list(order), acted) or actor
        ctx.set(["encounter", "turn"], list(order).index(nxt))
        if nxt != actor:
            _start_turn(ctx)
    ctx.out(order=list(order))


class NextTurn(_TurnBegins, kind="next_turn", targets=("turn_of",)):
    """The next turn: the side whose it is, and whether a new round began (the event's ``round``)."""

    side: Literal["party", "foes"]
    new_round: bool


@command(NextTurn)
def next_turn(ctx: Ctx) -> None:
    """The current actor is done; the next in the side's order who has not had a turn this round acts (the other
    side when all have; a new round when both sides have acted)."""
    enc = _encounter(ctx)
    if enc["side"] is None:
        ctx.refuse("roll initiative (or say who goes first) before taking turns")
    actor = current_actor(ctx.state)
    acted = list(enc.get("acted", []))
    if actor is not None and actor not in acted:
        acted.append(actor)
    side, rnd = enc["side"], enc["round"]
    passed: list = []  # the dead whose turn comes and goes
    nxt = _next_in(ctx, enc["order"][side], acted, passed)
    sides_ended = []
    for _ in range(2):
        if nxt is not None:
            break
        sides_ended.append(side)
        other = FOES if side == PARTY else PARTY
        if other == enc["first"]:
            rnd += 1
        side, acted = other, []
        nxt = _next_in(ctx, enc["order"][side], acted, passed)
    order = enc["order"][side]
    new_round = rnd != enc["round"]
    ctx.set(["encounter", "side"], side)
    ctx.set(["encounter", "turn"], order.index(nxt) if nxt is not None else len(order))
    ctx.set(["encounter", "acted"], acted)
    for ended in sides_ended:  # what lasted this side's turn (a Commander's order) ends with it
        ctx.end_conditions(lambda c, s=ended: c["ends_on"] != f"side:{s}", f"the {ended}' turn ended")
    if new_round:
        ctx.set(["encounter", "round"], rnd)
        ctx.advance_clock(ctx.core["time"]["round_seconds"])
    ctx.out(side=side, round=rnd, new_round=new_round)
    _turns_passed(ctx, passed)
    _start_turn(ctx)


class EndEncounter(Awarded, Action, kind="end_encounter"):
    """The fight ends: its name and rounds, the foes vanquished and their XP (``xp_awards``: how it split), and
    the foes who stay in the story as NPCs (``kept``)."""

    name: str
    rounds: int
    vanquished: list[str]
    xp: int
    kept: list[str] = field(())


@command(EndEncounter)
def end_encounter(ctx: Ctx, keep: list | None = None) -> None:
    """The fight ends: XP for the vanquished (their maximum hearts), split across the party. NPCs who fought go
    back to being NPCs; ``keep`` names foes still standing who stay in the story as NPCs (a prisoner)."""
    enc = _encounter(ctx)
    keep = list(keep or [])
    for n in keep:
        if n not in enc["foes"]:
            ctx.refuse(f"there is no foe named {n!r} to keep ({', '.join(enc['foes'])})")
        if is_dead(enc["foes"][n]):
            ctx.refuse(f"{n} is dead: there is no one to keep")
    vanquished = [f for f in enc["foes"].values() if is_dead(f)]
    xp = sum(f["max_hearts"] for f in vanquished) * ctx.core["xp"]["per_heart_vanquished"]
    staying = {n: f for n, f in enc["foes"].items() if f.get("npc") or n in keep}
    leaving = set(enc["foes"]) - set(staying)
    ctx.out(name=enc["name"], rounds=enc["round"], vanquished=[f["name"] for f in vanquished], xp=xp,
            **({"kept": sorted(staying)} if staying else {}))
    ctx.end_conditions(lambda c: not (c["ends_on"] or "").startswith(("turn:", "side:")) and c["who"] not in leaving,
                       "the fight ended")
    if staying:
        creatures = dict(ctx.state.get("creatures", {}))
        for n, f in staying.items():
            c = clone(f)
            c.pop("npc", None)
            c["role"] = "npc"
            creatures[n] = c
        ctx.set(["creatures"], creatures)
    ctx.set(["encounter"], None)
    ctx.set(["encounters_fought"], enc["number"])
    if xp:
        award(ctx, xp, f"vanquished: {', '.join(f['name'] for f in vanquished)}", "vanquished")
