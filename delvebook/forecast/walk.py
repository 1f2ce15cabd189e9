"""One walk over a campaign's log: each fight as it was played, where the table made the choices the forecast's
policy makes, and what happened in it.

The walk folds the log with ``History`` (as opening the campaign does) and, beside it, the core's collectors of
hearts and fights (``core.collect``, which the analysis frames read too, so "what happened" is one definition). At
each action of a fight it notes, from the state just before it, what the forecast's policy reads:

- **leaving**: how many of the fight's delvers were down and the lowest share of its hearts a standing one had, at
  every action (the party stayed for it) and when the fight ended (did it leave with foes standing?);
- **whom to attack**: at every attack with a choice of target, which target each named rule would have picked
  (``policy.ties``: its best equals) among the foes standing (the party's attacks) or the delvers (the foes');
- **luck**: each failed death save, whether a luck die was at hand (the delver's player's, the table's), how many
  were spent on it and by whom; each foe's blow that harmed a delver and each delver's attack that did its foe no
  harm while the table had luck dice, and whether one was spent against it (-) or on it (+);
- and what the report tells beside the policy: abilities used, creatures' attacks, initiative chosen, ambushes.

Only what stands counts: an action undone is left out, and an action a luck die (or typed dice) replaced is read
as the choice it first was, from the state before it. ``Walk.fights`` holds one ``FightRecord`` a fight;
``starts=True`` keeps each fight's state at its start (what the calibration forecasts from).

Standard library only.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from typing import Any, Callable, Iterable, Mapping

from ..core.collect import Follower
from ..core.collect.fights import Fights
from ..core.collect.hearts import Hearts
from ..core.events import History, clone
from ..core.model import STATUS_ALIVE, present
from ..core.roles import CREATURES, FOES, PARTY, damage_entries
from .policy import DELVER_TARGET_KEYS, FOE_TARGET_KEYS, FightView, Policy, ties

__all__ = ["walk", "Walker", "Walk", "FightRecord", "EPSILON", "PLAYED"]

EPSILON = 0.1
"""How often a table that follows a rule for whom to attack is taken to pick another target (at random): what keeps
one attack against the rule from ruling it out."""

PLAYED = ("foe_attacks", "foe_as_policy", "delver_attacks", "delver_as_policy", "creature_attacks",
          "initiative_chosen", "before_initiative", "joined", "actions")
"""What the walk counts of how the fights were played, for the report's words (``played``)."""

_NOT_CHOICES = frozenset({"death_save", "next_turn", "initiative", "end_encounter", "add_foes", "encounter"})


class FightRecord:
    """One fight of the log as the walk read it (see the module). ``outcome``: ``"won"`` (every foe vanquished),
    ``"left"`` (it ended with foes standing), ``"wiped"`` (every delver dead), or None while it runs."""

    __slots__ = ("number", "session", "start_seq", "start", "party", "outcome", "rounds", "dropped", "died",
                 "stay_down", "stay_low", "end_down", "end_low", "targets", "saves", "luck_rolls")

    def __init__(self, number: int, session: Any, start_seq: int, party: list[str], start: dict | None):
        self.number = number
        self.session = session
        self.start_seq = start_seq
        self.start = start
        self.party = party
        self.outcome: str | None = None
        self.rounds = 0
        self.dropped = {n: False for n in party}  # fell below 1 heart (hearts to 0, a death save, a death)
        self.died = {n: False for n in party}     # died in it, or of a death save failed after it
        self.stay_down = 0       # the most delvers down at an action of the fight (the party stayed)
        self.stay_low = 1.0      # the lowest share of its hearts a standing delver had at one
        self.end_down = 0        # the same when it ended
        self.end_low = 1.0
        # per side ("party": the delvers' attacks, "foes": the foes'): attacks with a choice, and per rule the
        # targets it matched (a tie shared) and the log-likelihood of the targets chosen (EPSILON off the rule)
        self.targets: dict[str, dict] = {}
        # failed death saves: (total, the player's own luck at hand, the table's, dice spent, dice by others)
        self.saves: list[tuple] = []
        # luck dice on attacks: per roll a die could turn ("hit": a foe's on a delver, "miss": a delver's), with a
        # die at the table, [such rolls, those a luck die was spent on]
        self.luck_rolls: dict[str, list] = {}

    def __repr__(self) -> str:
        return f"<FightRecord {self.number} (session {self.session}): {self.outcome}>"


class Walk:
    """The walk's result: ``fights`` (a ``FightRecord`` each, in the order they began) and ``played`` (counts of how
    the fights were played beside ``policy``: its targets, the actions used, creatures' attacks...)."""

    def __init__(self, fights: list[FightRecord], played: dict):
        self.fights = fights
        self.played = played

    @property
    def finished(self) -> list[FightRecord]:
        return [f for f in self.fights if f.outcome is not None]


def _party(state: Mapping) -> list[str]:
    enc = state["encounter"]
    return list(enc["order"][PARTY]) or present(state)


def _standing_share(state: Mapping, party: Iterable[str]) -> tuple[int, float]:
    """(delvers of ``party`` down, the lowest share of its hearts a standing one has)."""
    down, low = 0, 1.0
    delvers = state["delvers"]
    for n in party:
        d = delvers.get(n)
        if d is None:
            continue
        if d["status"] != STATUS_ALIVE or d["hearts"] < 1:  # down: dying, dead, or saved at 0 hearts
            down += 1
        elif d["max_hearts"]:
            low = min(low, d["hearts"] / d["max_hearts"])
    return down, low


def _target_note(view: FightView, side: str, attacker: str, target: str, candidates: list[str]) -> tuple | None:
    """(per rule: the share of the target in its picks, the log-likelihood of the target), for one attack with a
    choice; None without one."""
    k = len(candidates)
    if k < 2 or target not in candidates:
        return None
    keys = DELVER_TARGET_KEYS if side == PARTY else FOE_TARGET_KEYS
    out = {}
    for rule in keys:
        best = ties(rule, keys, view, attacker, candidates)
        share = 1 / k if best is None else (1 / len(best) if target in best else 0.0)
        p = share if best is None else (1 - EPSILON) * share + EPSILON / k
        out[rule] = (share, math.log(p))
    return out


class Walker:
    """The walk kept open over a log that grows: ``feed(events)`` folds the events past those it has seen (a log only
    grows: an undo is an event too), ``result()`` says what all of them say (see the module). What a table keeps so
    that learning from a long campaign again, after a few more events, costs those events, not the whole log."""

    def __init__(self, camp, *, starts: bool = False, policy: Policy | None = None):
        self.policy = Policy() if policy is None else policy
        self.rules = camp.rules
        self.starts = starts
        self.history = History(clone(camp.setup))
        self.hearts, self.fights_seen = Hearts(), Fights()
        self.follower = Follower([self.hearts, self.fights_seen])
        self.follower.start(self.history.state)
        self.rng = random.Random(0)
        self.by_seq: dict[int, Mapping] = {}
        self.notes: dict[int, tuple] = {}  # seq -> what was noted before it (resolved to what stands at the end)
        self.begun: dict[int, tuple] = {}  # a fight's start's seq -> (number, session, party, state or None)
        self.cache: dict = {}
        self.fight_now = None
        self.seen: list[int] = []  # the seqs folded, in order

    def follows(self, events: list) -> bool:
        """Whether ``events`` begin with the events this walker folded (the same log, grown)."""
        n = len(self.seen)
        return len(events) >= n and (not n or events[n - 1]["seq"] == self.seen[-1])

    def feed(self, events: list, each: Callable[[int], Any] | None = None) -> "Walker":
        """Fold the events of ``events`` past those already folded (``follows`` must hold)."""
        if not self.follows(events):
            raise ValueError("the log is not the one this walk folded, grown: walk it again")
        for i in range(len(self.seen), len(events)):
            self._fold(events[i])
            if each is not None and (i + 1) % 1000 == 0:
                each(i + 1)
        return self

    def result(self) -> Walk:
        return _assemble(self.history, self.by_seq, self.notes, self.begun, self.hearts, self.fights_seen)

    def _fold(self, e: Mapping) -> None:
        history, notes, rules, policy = self.history, self.notes, self.rules, self.policy
        seq, kind = e["seq"], e.get("kind")
        self.by_seq[seq] = e
        self.seen.append(seq)
        state = history.state
        enc = state["encounter"]
        if enc is not None and enc.get("number") != self.fight_now:
            self.fight_now, self.cache = enc.get("number"), {}  # the policy's answers hold for one fight
        if enc is not None and "replaces" not in e:
            side = (e.get("sides") or {}).get(e.get("actor"))
            party = _party(state)
            if kind == "end_encounter":
                notes[seq] = ("end", enc["number"], *_standing_share(state, party))
            elif kind not in _NOT_CHOICES and side in (PARTY, FOES):
                target_note = None
                targets = e.get("targets") or []
                if kind == "attack" and targets and enc["side"] is not None:
                    view = FightView(state, rules, self.rng, self.cache)
                    who = e.get("actor")
                    if side == PARTY:
                        cands = view.standing(FOES)
                        pick = policy.delver_target(view, who) if len(cands) > 1 else None
                    else:
                        cands = view.standing(PARTY) or view.dying()
                        pick = policy.foe_target(view, who) if len(cands) > 1 else None
                    target_note = (_target_note(view, side, who, targets[0], cands), pick == targets[0])
                luck_at = None  # a roll a luck die could turn: a foe's blow that harmed a delver, a delver's
                # attack that did its foe no harm (a luck die at the table)
                if kind == "attack" and targets and sum(state["luck"].values()) > 0:
                    harmed = any(d.get("target") == targets[0] and (d.get("dealt") or 0) > 0
                                 for d, counter in damage_entries(e) if not counter)
                    if side == FOES and harmed and targets[0] in state["delvers"]:
                        luck_at = "hit"
                    elif side == PARTY and not harmed:
                        luck_at = "miss"
                notes[seq] = ("act", enc["number"], *_standing_share(state, party), side, target_note,
                              enc["side"] is None, kind == "attack", luck_at)
            elif kind == "attack" and side == CREATURES:
                notes[seq] = ("creature", enc["number"])
        if kind == "death_save" and "replaces" not in e:
            who = e.get("who") or e.get("actor")
            d = state["delvers"].get(who) or {}
            own = state["luck"].get(d.get("player"), 0)
            notes[seq] = ("save", None if enc is None else enc["number"], e.get("session"), who, d.get("player"),
                          e.get("total"), bool(e.get("success")), own, sum(state["luck"].values()))
        touched = history.apply(e)
        self.follower.follow(history, e, touched)
        if kind == "encounter":
            now = history.state
            self.begun[seq] = (now["encounter"]["number"], e.get("session"), _party(now),
                               clone(now) if self.starts else None)


def walk(camp, *, starts: bool = False, policy: Policy | None = None,
         each: Callable[[int], Any] | None = None) -> Walk:
    """Walk ``camp``'s log (anything with ``setup``, ``events`` and ``rules``: a Campaign) once (see the module).
    ``starts``: keep each fight's state at its start; ``policy``: the one ``played`` compares the targets with (the
    documented default); ``each``: called with the count of events walked, every 1,000."""
    return Walker(camp, starts=starts, policy=policy).feed(camp.events, each).result()


def _root(by_seq: Mapping[int, Mapping], seq: int) -> int:
    """The first of the actions a chain of luck dice (or typed dice) replaced, one after another."""
    e = by_seq[seq]
    while "replaces" in e and e["replaces"] in by_seq:
        seq = e["replaces"]
        e = by_seq[seq]
    return seq


def _assemble(history: History, by_seq: Mapping, notes: Mapping, begun: Mapping, hearts: Hearts,
              fights_seen: Fights) -> Walk:
    standing = history.standing
    seen = fights_seen.fights()
    records: dict[int, FightRecord] = {}
    for seq, (number, session, party, start) in begun.items():
        if standing.in_force(seq) and number in seen:
            records[number] = FightRecord(number, session, seq, party, start)
    played: dict = dict.fromkeys(PLAYED, 0)
    actions: Counter = Counter()
    for seq in sorted(by_seq):
        e = by_seq[seq]
        if e.get("kind") in ("undo", "redo") or not standing.in_force(seq):
            continue
        note = notes.get(_root(by_seq, seq))
        kind = e.get("kind")
        number = (note[1] if note else None)
        if kind == "initiative" and (e.get("args") or {}).get("first"):
            played["initiative_chosen"] += 1
        elif kind == "add_foes":
            played["joined"] += 1
        if kind in ("use", "cast") and e.get("encounter") is not None and \
                (e.get("sides") or {}).get(e.get("actor")) == PARTY:
            actions[e.get("ability_name") or e.get("spell_name") or e.get("ability") or e.get("spell") or kind] += 1
        if note is None:
            continue
        r = records.get(number)
        if note[0] == "act" and r is not None:
            _, _, down, low, side, target_note, before_initiative, attack, luck_at = note
            r.stay_down, r.stay_low = max(r.stay_down, down), min(r.stay_low, low)
            if attack and before_initiative:
                played["before_initiative"] += 1
            if target_note is not None and target_note[0] is not None:
                per_rule, as_policy = target_note
                played["delver_attacks" if side == PARTY else "foe_attacks"] += 1
                played["delver_as_policy" if side == PARTY else "foe_as_policy"] += as_policy
                t = r.targets.setdefault(side, {"n": 0, "share": Counter(), "ll": Counter()})
                t["n"] += 1
                for rule, (share, ll) in per_rule.items():
                    t["share"][rule] += share
                    t["ll"][rule] += ll
            if luck_at is not None:
                dice = ((e.get("rolls") or {}).get("attack") or {}).get("luck") or ()
                spent = any(d.get("sign") == (-1 if luck_at == "hit" else 1) for d in dice)
                tally = r.luck_rolls.setdefault(luck_at, [0, 0])
                tally[0] += 1
                tally[1] += spent
        elif note[0] == "creature":
            played["creature_attacks"] += 1
        elif note[0] == "end" and r is not None:
            _, _, down, low = note
            r.end_down, r.end_low = down, low
        elif note[0] == "save":
            _, _, session, who, player, total, success, own, table = note
            if not success and table > 0:
                dice = ((e.get("rolls") or {}).get("death_save") or {}).get("luck") or ()
                others = sum(1 for d in dice if d.get("who") != player)
                target = r if r is not None else _latest(records, session, seq)
                if target is not None:
                    target.saves.append((total, own, table, len(dice), others))
    played["actions"] = dict(actions)
    _what_happened(records, hearts, seen)
    return Walk([records[n] for n in sorted(records, key=lambda n: records[n].start_seq)], played)


def _latest(records: Mapping[int, FightRecord], session: Any, seq: int) -> FightRecord | None:
    """The fight a death save after a fight belongs to: the latest begun before it, in the same session."""
    best = None
    for r in records.values():
        if r.start_seq < seq and r.session == session and (best is None or r.start_seq > best.start_seq):
            best = r
    return best


def _what_happened(records: Mapping[int, FightRecord], hearts: Hearts, seen: Mapping[int, dict]) -> None:
    """Who dropped and who died in each fight, and whether the party won, from the hearts the collectors kept (as
    the analysis frames read them): a row in a fight is its own; a death save or a death after it belongs to it if
    no other fight began since in the same session."""
    fields = Hearts.FIELDS
    i_seq, i_session, i_fight, i_who, i_side = (fields.index(k) for k in ("seq", "session", "encounter", "who", "side"))
    i_hearts, i_change, i_status = (fields.index(k) for k in ("hearts", "change", "status"))
    i_death, i_save = fields.index("death"), fields.index("death_save")
    starts = sorted((r.start_seq, r.number, r.session) for r in records.values())
    vanquished: Counter = Counter()
    for row in hearts.rows:
        number = row[i_fight]
        if number is None:
            k = _bisect(starts, row[i_seq])
            if k < 0 or starts[k][2] != row[i_session]:
                continue
            number = starts[k][1]
        r = records.get(number)
        if r is None:
            continue
        if row[i_side] == FOES:
            vanquished[number] += bool(row[i_death]) and row[i_status] == "dead"
            continue
        who = row[i_who]
        if row[i_side] != PARTY or who not in r.dropped:
            continue
        down = row[i_hearts] == 0 and row[i_change] is not None and row[i_change] < 0
        if down or row[i_save] or row[i_death]:
            r.dropped[who] = True
        if row[i_death]:
            r.died[who] = True
    for number, r in records.items():
        fight = seen[number]
        r.rounds = fight.get("rounds") or 0
        if not fight.get("ended"):
            r.outcome = None
            continue
        foes = len(fight.get("foe_names") or ())
        if foes and vanquished[number] >= foes:
            r.outcome = "won"
        elif r.party and all(r.died.values()):
            r.outcome = "wiped"
        else:
            r.outcome = "left"


def _bisect(starts: list[tuple], seq: int) -> int:
    """The index of the latest fight begun at or before ``seq`` (-1: none)."""
    lo, hi = 0, len(starts)
    while lo < hi:
        mid = (lo + hi) // 2
        if starts[mid][0] <= seq:
            lo = mid + 1
        else:
            hi = mid
    return lo - 1
