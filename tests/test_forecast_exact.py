"""The forecast checked against an exact answer: one delver against one foe, solved as a Markov chain.

The chain's states are (the delver's hearts, the foe's hearts, whose turn) and, for the second check, what armor
has left (DV), the luck dice left and whether the delver has dropped yet. Its numbers come from the engine itself:
``engine.queries.attack_odds`` (win, tie, lose of each attack), the damage distributions from
``delvebook.core.distribution``, the armor's AV and DV from the state, the death save from ``queries.death_save``. Its
moves are the engine's as ``engine/combat.py`` plays them: a hit, armor first (AV off, 1 DV a hit that reaches it);
a miss is countered by a melee target; a tie hits both ways, the attacker's blow first, and a target it dropped does
not hit back; a delver left below 1 heart by damage makes its death save (D6, 6 or more) at once, lifted by its
player's luck dice one at a time, and lives at 0 hearts, where any damage calls for a new save. Everything is a
Fraction: the chances are exact, and the simulation's 95% Wilson interval must hold each, over several seeds.
"""

from __future__ import annotations

import random
import sys
from fractions import Fraction


import delvebook as db
from delvebook.core.distribution import distribution, odds
from delvebook.engine import Reader, play, queries
from delvebook.engine.queries import armor_in
from delvebook.core.events import clone
from delvebook.forecast import Policy
from delvebook.store import MemoryStore

sys.setrecursionlimit(10_000)

SEEDS = (1, 2, 3)
FIGHTS = 1500


def _campaign(delver: dict, foe: dict, house_rules: dict | None = None) -> db.Campaign:
    data = {"name": "A duel", "seed": 5, "delvers": [delver], "seats": [delver["name"]],
            "bestiary": {"foe": foe}}
    if house_rules:
        data["house_rules"] = house_rules
    return db.Campaign.open(MemoryStore(data))


class Duel:
    """The chain of one delver against one foe, its numbers read from the engine at the fight's start."""

    def __init__(self, camp: db.Campaign, luck: bool):
        state = clone(camp.state)
        play(state, camp.rules, "encounter", {"foes": ["foe"]}, random.Random(0))
        rules = camp.rules
        r = Reader(state, rules)
        (self.d_name,) = state["seats"]
        (self.f_name,) = state["encounter"]["foes"]
        d, f = state["delvers"][self.d_name], state["encounter"]["foes"][self.f_name]
        self.d_odds = queries.attack_odds(state, rules, self.d_name, self.f_name)
        self.f_odds = queries.attack_odds(state, rules, self.f_name, self.d_name)
        for a, t in ((self.d_name, self.f_name), (self.f_name, self.d_name)):
            plan = queries.plan_attack(r, a, t)
            assert plan.counter and plan.n == 1 and not plan.extra_damage and not plan.max_damage
        self.d_damage = _damage(queries.weapon_of(r, self.d_name, d))
        self.f_damage = _damage(queries.weapon_of(r, self.f_name, f))
        self.d_av, self.d_dv = _armor(r, self.d_name, d)
        self.f_av, self.f_dv = _armor(r, self.f_name, f)
        self.hearts = (d["hearts"], f["hearts"])
        rule = queries.death_save(state, rules)
        self.save = distribution(rule.die)
        self.save_target = rule.target
        self.success_hearts = rules.core["death_save"]["success_hearts"]
        assert self.success_hearts == 0
        self.luck_die = distribution(f"d{queries.luck_die_sides(rules)}")
        self.luck = state["luck"][d["player"]] if luck else 0
        die = str(rules.core["initiative"]["die"])
        o = odds(die, vs=die)
        self.party_first = o.win / (o.win + o.lose)  # ties are rolled again
        self._memo: dict = {}
        self._saves: dict = {}

    # ---- one blow
    @staticmethod
    def _blow(hearts: int, dv: int, av: int, raw: int) -> tuple[int, int, bool]:
        """(hearts after, DV after, left below 1 heart) for raw damage on a wearer of AV while its DV holds."""
        intact = dv > 0
        dealt = max(0, raw - (av if intact else 0))
        return max(0, hearts - dealt), (dv - 1 if intact else 0), dealt > 0 and hearts - dealt < 1

    def _saved(self, luck: int) -> list[tuple[Fraction, bool, int]]:
        """(chance, defied death, luck dice spent) of a death save with ``luck`` luck dice to lift it."""
        if luck not in self._saves:
            out: dict = {}

            def lift(total: int, used: int, p: Fraction) -> None:
                if total >= self.save_target:
                    out[(True, used)] = out.get((True, used), 0) + p
                elif used == luck:
                    out[(False, used)] = out.get((False, used), 0) + p
                else:
                    for g, pg in self.luck_die.probabilities().items():
                        lift(total + g, used + 1, p * pg)
            for face, pf in self.save.probabilities().items():
                lift(face, 0, pf)
            self._saves[luck] = [(p, ok, used) for (ok, used), p in out.items()]
        return self._saves[luck]

    # ---- the chain
    def _after(self, s: tuple, hd: int, hf: int, dvd: int, dvf: int, due: bool, p: Fraction, out: list) -> None:
        """The act is over: a foe below 1 heart is vanquished; a delver left below 1 makes its save; the other side's
        turn comes."""
        _, _, _, _, luck, turn, dropped = s
        nxt = "foes" if turn == "party" else "party"
        if hf < 1:
            out.append((p, ("won", dropped or due)))
        elif due:
            for ps, ok, used in self._saved(luck):
                if ok:
                    out.append((p * ps, (self.success_hearts, hf, dvd, dvf, luck - used, nxt, True)))
                else:
                    out.append((p * ps, ("died", True)))
        else:
            out.append((p, (hd, hf, dvd, dvf, luck, nxt, dropped)))

    def moves(self, s: tuple) -> list[tuple[Fraction, tuple]]:
        hd, hf, dvd, dvf, luck, turn, dropped = s
        out: list = []
        if turn == "party":  # the delver attacks the foe
            o, mine, theirs = self.d_odds, self.d_damage, self.f_damage
        else:
            o, mine, theirs = self.f_odds, self.f_damage, self.d_damage
        for raw, pr in mine.probabilities().items():  # the attack lands: the target takes the attacker's blow
            if turn == "party":
                hf2, dvf2, down = self._blow(hf, dvf, self.f_av, raw)
                self._after(s, hd, hf2, dvd, dvf2, False, o.win * pr, out)
                if down:  # a tie: the foe it vanquished does not hit back
                    self._after(s, hd, hf2, dvd, dvf2, False, o.tie * pr, out)
                else:
                    for back, pb in theirs.probabilities().items():
                        hd2, dvd2, due = self._blow(hd, dvd, self.d_av, back)
                        self._after(s, hd2, hf2, dvd2, dvf2, due, o.tie * pr * pb, out)
            else:
                hd2, dvd2, due = self._blow(hd, dvd, self.d_av, raw)
                self._after(s, hd2, hf, dvd2, dvf, due, o.win * pr, out)
                if due:  # a tie: the delver it dropped does not hit back
                    self._after(s, hd2, hf, dvd2, dvf, due, o.tie * pr, out)
                else:
                    for back, pb in theirs.probabilities().items():
                        hf2, dvf2, _ = self._blow(hf, dvf, self.f_av, back)
                        self._after(s, hd2, hf2, dvd2, dvf2, False, o.tie * pr * pb, out)
        for back, pb in theirs.probabilities().items():  # the attack fails: the target counters
            if turn == "party":
                hd2, dvd2, due = self._blow(hd, dvd, self.d_av, back)
                self._after(s, hd2, hf, dvd2, dvf, due, o.lose * pb, out)
            else:
                hf2, dvf2, _ = self._blow(hf, dvf, self.f_av, back)
                self._after(s, hd, hf2, dvd, dvf2, False, o.lose * pb, out)
        return out

    def value(self, s: tuple) -> tuple:
        """(P(win), P(the delver dies), P(it drops below 1 heart)) from state ``s``."""
        if s[0] == "won":
            return (Fraction(1), Fraction(0), Fraction(int(s[1])))
        if s[0] == "died":
            return (Fraction(0), Fraction(1), Fraction(1))
        if s in self._memo:
            return self._memo[s]
        hd, hf, dvd, dvf, luck, turn, dropped = s
        if hd == 0 and dvd == 0:
            # a delver at 0 hearts without armor can defy death and be back where it was, the other side to act:
            # solve this state and its partner (the same, the other's turn) together
            other = (hd, hf, dvd, dvf, luck, "foes" if turn == "party" else "party", dropped)
            a1, b1 = self._expand(s, other)
            a2, b2 = self._expand(other, s)
            v1 = tuple((x + b1 * y) / (1 - b1 * b2) for x, y in zip(a1, a2))
            v2 = tuple(y + b2 * x for x, y in zip(v1, a2))
            self._memo[s], self._memo[other] = v1, v2
            return v1
        self._memo[s] = self._expand(s, None)[0]
        return self._memo[s]

    def _expand(self, s: tuple, partner) -> tuple[tuple, Fraction]:
        acc = [Fraction(0)] * 3
        back = Fraction(0)
        for p, t in self.moves(s):
            if t == partner:
                back += p
                continue
            assert t != s, "the chain only loops through a delver at 0 hearts and its partner state"
            for i, v in enumerate(self.value(t)):
                acc[i] += p * v
        return tuple(acc), back

    def outcome(self) -> dict[str, Fraction]:
        hd, hf = self.hearts
        start = [(hd, hf, self.d_dv, self.f_dv, self.luck, turn, False) for turn in ("party", "foes")]
        first = self.party_first
        v = [first * a + (1 - first) * b for a, b in zip(self.value(start[0]), self.value(start[1]))]
        return {"win": v[0], "death": v[1], "drop": v[2]}


def _damage(w) -> object:
    expr = str(w["damage"]) + (f"+{w['bonus']}" if w.get("bonus") else "")
    d = distribution(expr)
    assert d.min >= 1  # every blow that lands does something: the chain only loops at 0 hearts
    return d


def _armor(r: Reader, name: str, c) -> tuple[int, int]:
    pieces = c.get("armor", [])
    assert len(pieces) <= 1
    return (armor_in(r, name, c)[0], pieces[0]["dv"]) if pieces else (0, 0)


def _check(camp: db.Campaign, policy: Policy, luck: bool) -> dict:
    exact = Duel(camp, luck).outcome()
    assert exact["win"] + exact["death"] == 1  # no fight runs on for ever
    found = {}
    for seed in SEEDS:
        d = camp.danger(["foe"], fights=FIGHTS, seed=seed, policy=policy, precision=0, workers=1)
        name = d.party[0]
        got = {"win": d.p_win, "death": d.p_death[name], "drop": d.p_drop[name]}
        for what, e in got.items():
            assert float(exact[what]) in e, f"seed {seed}: P({what}) is {float(exact[what]):.4f}, simulated {e}"
        assert d.p_wipe == d.p_death[name] and d.p_stalemate.hits == 0
        found[seed] = got
    return {"exact": exact, "found": found}


# ---------------------------------------------------------------- the checks

def test_a_duel_without_armor_or_resources_matches_its_markov_chain():
    """A mage with a staff (D20 against D20, D6 damage) and a foe with no armor: no death save can succeed (house
    rules: 7 or more on a D6), so the chain is (hearts, hearts, whose turn) and dropping is dying."""
    camp = _campaign({"name": "Ilse", "class": "mage", "player": "Cleo", "hearts": 6, "choices": {"weapon": "staff"}},
                     {"name": "Brute", "hearts": 5, "attack_bonus": 0, "damage": "d6", "tags": ["humanoid"]},
                     {"core": {"death_save": {"target": 7}}})
    got = _check(camp, Policy(luck=False), luck=False)
    assert got["exact"]["drop"] == got["exact"]["death"]
    assert 0.2 < got["exact"]["win"] < 0.8  # a real contest, not a foregone one


def test_a_duel_with_armor_and_a_death_save_matches_its_markov_chain():
    """A fighter (Weapons +D6, a 2d6 weapon, leather armor AV 1 with 3 DV) against an armored foe (AV 1, DV 2, +D6
    to hit), with the death save of the rules (6 on a D6) lifted by the player's three luck dice, and no grit
    spent."""
    camp = _campaign({"name": "Brakka", "class": "fighter", "player": "Ben", "hearts": 6,
                      "choices": {"weapon": "weapon_and_bow"}},
                     {"name": "Sentinel", "hearts": 9, "attack_bonus": "d6", "damage": "d6",
                      "armor": {"av": 1, "dv": 2}, "tags": ["construct"]},
                     {"gear": {"armor": {"leather_armor": {"dv": 3}}}})
    d = camp.state["delvers"]["Brakka"]
    assert [(a["av"], a["dv"]) for a in d["armor"]] == [(1, 3)]
    got = _check(camp, Policy(grit_below=0), luck=True)
    exact = got["exact"]
    assert exact["drop"] > 3 * exact["death"] > 0  # death saves and luck dice bring most back
    assert 0.5 < exact["win"] < 0.95


def test_the_chain_knows_a_tie_hits_both_ways_and_a_miss_is_countered():
    """The chain's arithmetic on a one-blow duel (1 heart each, no save can succeed), against its closed form: the
    delver striking first wins on a hit or a tie (the foe it vanquishes cannot hit back) and loses to the counter
    of a miss; the foe striking first wins on a hit or a tie (it strikes first, and the dropped delver cannot hit
    back) and loses to the counter of a miss. Each side goes first half the time."""
    camp = _campaign({"name": "Ilse", "class": "mage", "player": "Cleo", "hearts": 1, "choices": {"weapon": "staff"}},
                     {"name": "Gnat", "hearts": 1, "attack_bonus": 0, "damage": "d6", "tags": ["beast"]},
                     {"core": {"death_save": {"target": 7}}})
    duel = Duel(camp, luck=False)
    a, b = duel.d_odds, duel.f_odds
    assert a.win == a.lose == Fraction(19, 40) and a.tie == Fraction(1, 20) and b == a
    assert duel.party_first == Fraction(1, 2)
    assert duel.value((1, 1, 0, 0, 0, "party", False))[0] == a.win + a.tie
    assert duel.value((1, 1, 0, 0, 0, "foes", False))[0] == b.lose
    assert duel.outcome() == {"win": Fraction(1, 2), "death": Fraction(1, 2), "drop": Fraction(1, 2)}
