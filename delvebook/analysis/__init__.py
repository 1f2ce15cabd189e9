"""Tidy pandas frames from a campaign's log: events, rolls, hearts, XP, encounters (and damage, luck, fairness).

Every frame is built from the log in one fold. The log keeps everything the table did, including actions
later undone or replaced (a luck die, typed dice): the ``events`` frame has every event, with an
``in_force`` column saying whether its changes are part of the campaign as it stands; every other frame
is made from the in-force events only, folded in log order, so a hearts row shows the hearts exactly as
``camp.state_at(seq)`` has them.

Each function takes a :class:`~delvebook.Campaign` or a campaign folder (opened read-only, without the
writer's lock). ``frames(x)`` gives them all as a dict. ``calibration(x)`` (``calibrate.py``) sets the danger
forecast of each fight, made again from the state at its start, beside what happened. This package imports
pandas; ``import delvebook`` does not.
"""

from __future__ import annotations

import math
import os
import weakref
from fractions import Fraction
from typing import Any, Callable, Mapping

from ..extras import require

require("analysis", "delvebook.analysis", "pandas")  # before the imports: names the extra

import numpy as np
import pandas as pd

from ..campaign import Campaign
from ..events import standing as events_standing
from ..model import STATUS_DEAD
from ..roles import CREATURES, FOES, PARTY, SIDES, damage_entries, healing_entries
from ..typed_columns import json_column, typed_columns
from .calibrate import Calibration, calibration

__all__ = ["frames", "events", "rolls", "hearts", "xp", "encounters", "damage", "luck", "fairness",
           "levels", "chi_squared_p", "fairness_verdict", "face_probabilities", "FAIR_LEVEL", "FRAME_NAMES",
           "calibration", "Calibration"]

FRAME_NAMES = ("events", "rolls", "hearts", "xp", "encounters", "damage", "luck", "fairness", "levels")
FAIR_LEVEL = 0.10
"""Fair dice look at least this even 9 times in 10: a p-value below it is outside that."""

_UNDO, _REDO = "undo", "redo"
_D_FIELDS = ("hearts", "max_hearts", "status", "xp", "level", "player", "class_id")
_F_FIELDS = ("hearts", "max_hearts", "status", "kind")
_COMBATANTS = frozenset({PARTY, FOES, CREATURES})

Source = Any  # a Campaign, a folder path, or a dict of frames already built


# ---------------------------------------------------------------- opening and caching

_CACHE: "weakref.WeakKeyDictionary[Campaign, tuple[int, dict]]" = weakref.WeakKeyDictionary()


def _campaign(x: Any) -> tuple[Campaign, bool]:
    """The campaign for ``x`` and whether we opened it (and so must close it)."""
    if isinstance(x, Campaign):
        return x, False
    if isinstance(x, (str, os.PathLike)):
        return Campaign.open(x, read_only=True), True
    raise TypeError(f"expected a Campaign or a campaign folder, got {type(x).__name__}")


def frames(x: Source, *, copy: bool = True, progress: Callable[[str], None] | None = None) -> dict[str, pd.DataFrame]:
    """Every frame of the campaign (a Campaign or a folder path), by name: ``events``, ``rolls``, ``hearts``,
    ``xp``, ``encounters``, ``damage``, ``luck``, ``fairness``, ``levels``.

    Copies you may change freely; ``copy=False`` gives the frames shared by charts and the report (built once
    per open campaign and state, and rebuilt when the log grows): read them, do not change them.
    ``progress`` is called with a line of text at each step of a build."""
    if isinstance(x, Mapping) and "events" in x:
        built = dict(x)
    else:
        camp, opened = _campaign(x)
        try:
            key = len(camp.events)
            hit = _CACHE.get(camp)
            if hit is not None and hit[0] == key:
                built = hit[1]
            else:
                built = _Builder(camp, progress).build()
                if not opened:
                    _CACHE[camp] = (key, built)
        finally:
            if opened:
                camp.close()
    return {k: v.copy() for k, v in built.items()} if copy else built


def events(x: Source) -> pd.DataFrame:
    """One row per event in the log, undone ones included.

    Columns: ``seq``; ``kind`` (category); ``v`` (event format version); ``at`` (game clock, seconds);
    ``ts`` (wall time, datetime64[ns, UTC]); ``session``, ``encounter``, ``round`` (Int64, NA outside);
    ``actor`` (who acts: a name, or ``keeper``) and ``target`` (the first it is aimed at; categories: every
    event's ``targets`` and ``sides`` are columns too); ``in_force`` (bool: its
    changes are part of the campaign as it stands); ``status`` (category: ``in force``, ``undone``,
    ``replaced`` by a luck die or typed dice, ``undo``/``redo`` for those records, ``note`` for a record that
    changes nothing); ``replaced_by``, ``undone_by`` (Int64); ``replaces``, ``undoes``, ``redoes`` (Int64);
    ``luck_player`` (category: who spent the luck die of a replacing event); ``amended`` (bool: the table
    typed the faces); ``n_rolls``, ``n_changes``; ``args``, ``rolls``, ``changes`` (JSON text); then every
    other field of the event, typed by what it holds, so every column has one type and the frame goes to
    Parquet as it is (``frame.to_parquet(...)``): plain values keep theirs (``total`` Int64, ``success``
    boolean, ``skill`` category...); a list of plain values stays a list (``results``, ``vanquished``,
    ``attack_totals``); an exact chance becomes a float with the fraction's text beside (``chance`` and
    ``chance_exact``: 0.2 and "1/5"), a mapping of chances one pair per key (an attack's ``chance_win``,
    ``chance_tie``, ``chance_lose``); a mapping, a list of mappings or a field mixing kinds is JSON text
    (``damage``, ``xp_awards``, ``counter``...: ``json.loads`` it, or reach inside with SQL's JSON functions).
    """
    return frames(x, copy=False)["events"].copy()


def rolls(x: Source) -> pd.DataFrame:
    """One row per die rolled in an in-force event, luck dice included (one row each, ``luck`` True).

    Columns: ``seq``, ``session``, ``encounter`` (Int64), ``kind`` (the event's), ``roll`` (its name in the
    event: ``check``, ``attack``, ``resist``, ``damage``...), ``who`` (who the roll is for: a delver, a foe,
    ``keeper``, ``party``/``foes`` for initiative), ``player`` (who threw this die: the delver's player, the
    player who spent a luck die, else ``keeper``), ``why``, ``expr``; ``die`` (0-based place in the roll),
    ``sides``, ``face``, ``kept`` (False for a die dropped by advantage), ``luck`` (a luck die), ``sign``
    (+1, or -1 for a subtracted luck die); per roll: ``luck_applied`` (signed sum of its luck dice),
    ``base_total`` (before luck), ``total``, ``success`` (boolean, NA when the roll has no success of its own:
    a check or death save succeeded; an attack roll hit; a resist roll held off every hit).
    """
    return frames(x, copy=False)["rolls"].copy()


def hearts(x: Source) -> pd.DataFrame:
    """Each combatant's hearts after every in-force event that changed them (or their status).

    One row per (event, combatant). Delvers start with a row at ``seq`` 0 (the setup); a foe's first row is
    the event it entered. Columns: ``seq``, ``ts``, ``at``, ``session``, ``encounter``, ``round``, ``kind``
    (the event's, category), ``who`` (category), ``side`` (``party``/``foes``), ``foe_kind``, ``player``,
    ``hearts``, ``max_hearts``, ``change`` (hearts gained (+) or lost (-) here; NA on a first row),
    ``status`` (``alive``, ``dying``, ``dead``), ``source`` (what did it: the damage or healing source, or the
    event kind), ``down`` (hearts reached 0 here), ``death`` (died here), ``death_save`` (a death save was rolled
    here), ``death_save_success`` (boolean). A foe's name is reused across fights: (``encounter``, ``who``)
    names one foe.
    """
    return frames(x, copy=False)["hearts"].copy()


def xp(x: Source) -> pd.DataFrame:
    """Each delver's cumulative XP and level after each award (one row per delver's share of an award).

    Columns: ``seq``, ``ts``, ``at``, ``session``, ``encounter``, ``kind``, ``who``, ``player``, ``amount``
    (this delver's share), ``award`` (the whole award), ``reason``, ``source`` (``room``, ``coins``,
    ``vanquished``, ``quest``...), ``pool_before``, ``pool_after`` (the party's undivided XP pool), ``xp``
    (cumulative, after this share), ``level`` (after the event), ``level_up`` (this event raised the level;
    marked on the delver's last row of the event). An award that only fills the pool has no rows.
    """
    return frames(x, copy=False)["xp"].copy()


def encounters(x: Source) -> pd.DataFrame:
    """One row per fight in force: ``encounter`` (its number), ``name``, ``session``, ``start_seq``,
    ``end_seq`` (NA while running), ``start_ts``, ``end_ts``, ``rounds``, ``foes`` (how many), ``foe_kinds``
    (a list: each foe's kind, in order of entry), ``party_dealt``/``party_taken`` (hearts of damage after armor
    dealt by and to delvers), ``foes_dealt``/``foes_taken``, ``armor_absorbed`` (by the party's armor),
    ``vanquished`` (foes),
    ``delvers_down`` (times a delver hit 0 hearts), ``deaths`` (delvers who died), ``death_saves`` (the
    last two count the death saves rolled after the fight too, until the next one begins in that session),
    ``xp`` (for the vanquished), ``ended``.
    """
    return frames(x, copy=False)["encounters"].copy()


def damage(x: Source) -> pd.DataFrame:
    """One row per hit that did damage, in in-force events (attacks, counter-attacks, spells, abilities, damage
    by the keeper's hand).

    Columns: ``seq``, ``session``, ``encounter``, ``round``, ``kind``, ``by`` (who or what dealt it, as the event
    names it), ``by_side`` (``party``, ``foes``, ``creatures``, ``keeper``, ``hazard``: a trap named as the dealer),
    ``target``, ``target_side``, ``source`` (what: a weapon, a spell, the keeper's words), ``counter`` (a
    counter-attack),
    ``raw`` (rolled), ``av`` (armor value), ``absorbed`` (by armor), ``dealt`` (after armor:
    ``raw == absorbed + dealt``), ``hearts_before``, ``hearts_after``, ``hearts_lost`` (``hearts_before -
    hearts_after``), ``overkill`` (``dealt - hearts_lost``: damage past 0 hearts, else 0), ``vanquished``,
    ``death_save_due``.
    """
    return frames(x, copy=False)["damage"].copy()


def luck(x: Source) -> pd.DataFrame:
    """One row per luck die spent and still in force: ``seq``, ``session``, ``encounter``, ``kind``,
    ``player`` (who spent it), ``roll``, ``who`` (whose roll), ``sign``, ``face``, ``total_before``,
    ``total_after``, ``outcome_before``, ``outcome_after`` (``success``/``failure``, or the attack's results),
    ``flipped`` (the outcome changed), ``effect`` (``turned to success``, ``turned to failure``, ``changed
    the total only``)."""
    return frames(x, copy=False)["luck"].copy()


def fairness(x: Source) -> pd.DataFrame:
    """Per player and die (D20, D6): ``rolls``, observed ``counts`` (list by face), ``chi2``, ``df``,
    ``p_value`` (chance that fair dice look at least this uneven), ``fair`` (p >= 0.10: within what fair
    dice do 9 times in 10; NA with too few rolls to judge) and ``verdict`` in words."""
    return frames(x, copy=False)["fairness"].copy()


def levels(x: Source) -> pd.DataFrame:
    """The XP each level starts at under the campaign's rules: ``level``, ``xp`` (Int64)."""
    return frames(x, copy=False)["levels"].copy()


# ---------------------------------------------------------------- fairness statistics

def _gammaincc(a: float, x: float) -> float:
    """The regularized upper incomplete gamma function Q(a, x) (series or continued fraction)."""
    if x <= 0:
        return 1.0
    lg = math.lgamma(a)
    if x < a + 1:  # series for P, then Q = 1 - P
        term = total = 1.0 / a
        ap = a
        for _ in range(1000):
            ap += 1
            term *= x / ap
            total += term
            if abs(term) < abs(total) * 1e-15:
                break
        return max(0.0, 1.0 - total * math.exp(-x + a * math.log(x) - lg))
    tiny = 1e-300  # Lentz's continued fraction for Q
    b = x + 1 - a
    c = 1 / tiny
    d = 1 / b
    h = d
    for i in range(1, 1000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1 / d
        delta = d * c
        h *= delta
        if abs(delta - 1) < 1e-15:
            break
    return min(1.0, math.exp(-x + a * math.log(x) - lg) * h)


def chi_squared_p(observed: list[int] | np.ndarray, expected_p: list) -> tuple[float, int, float]:
    """Pearson's chi-squared of counts against exact probabilities: (statistic, degrees of freedom, p-value),
    the p-value being the chance that dice with those probabilities look at least this uneven."""
    obs = np.asarray(observed, dtype=float)
    n = obs.sum()
    exp = n * np.asarray([float(p) for p in expected_p])
    stat = float(((obs - exp) ** 2 / exp).sum()) if n else 0.0
    df = len(obs) - 1
    return stat, df, _gammaincc(df / 2, stat / 2)


def fairness_verdict(p: float, n: int, sides: int) -> str:
    """The p-value in a keeper's words."""
    if n < 5 * sides:
        return f"too few rolls to judge ({n}; about {5 * sides} needed)"
    if p >= FAIR_LEVEL:
        return "within what fair dice do 9 times in 10"
    return (f"less even than fair dice roll 9 times in 10 (fair dice look this uneven {p:.1%} of the time)")


def _levels_frame(rules) -> pd.DataFrame:
    """The XP each level starts at, from the campaign's rules (house rules included)."""
    items = sorted((int(lv), int(xp)) for lv, xp in rules.level_thresholds.items())
    return pd.DataFrame({"level": pd.array([lv for lv, _ in items], dtype="Int64"),
                         "xp": pd.array([xp for _, xp in items], dtype="Int64")})


def face_probabilities(sides: int) -> list[Fraction]:
    """The exact chance of each face 1..sides of a fair die."""
    from ..distribution import odds
    probs = odds(f"d{sides}").probabilities()
    return [probs.get(f, Fraction(0)) for f in range(1, sides + 1)]


# ---------------------------------------------------------------- the fold

class _Builder:
    """One fold over the log, filling column lists; frames are made from them at the end."""

    def __init__(self, camp: Campaign, progress: Callable[[str], None] | None):
        self.camp = camp
        self.progress = progress or (lambda msg: None)

    # -- tracked state: delvers and foes, just the fields the frames need
    def _set_delver(self, name: str, d: Mapping | None) -> None:
        if not isinstance(d, Mapping):
            self.delvers.pop(name, None)
            return
        self.delvers[name] = {f: d.get(f) for f in _D_FIELDS}
        self.touched.add(name)

    def _set_foe(self, name: str, f: Mapping | None) -> None:
        if not isinstance(f, Mapping):
            self.foes.pop(name, None)
            return
        self.foes[name] = {k: f.get(k) for k in _F_FIELDS}
        self.touched.add(name)

    def _set_encounter(self, enc: Mapping | None) -> None:
        self.foes = {}
        if isinstance(enc, Mapping):
            self.enc_number = enc.get("number", self.enc_number)
            for name, f in (enc.get("foes") or {}).items():
                self._set_foe(name, f)

    def _apply(self, changes: list) -> None:
        for path, value in changes:
            if not path:
                continue
            head, n = path[0], len(path)
            if head == "delvers":
                if n == 1:
                    self.delvers = {}
                    for name, d in (value or {}).items():
                        self._set_delver(name, d)
                elif n == 2:
                    self._set_delver(path[1], value)
                elif n == 3 and path[2] in _D_FIELDS:
                    d = self.delvers.get(path[1])
                    if d is not None:
                        d[path[2]] = value
                        self.touched.add(path[1])
            elif head == "encounter":
                if n == 1:
                    self._set_encounter(value)
                elif path[1] == "foes":
                    if n == 2:
                        self.foes = {}
                        for name, f in (value or {}).items():
                            self._set_foe(name, f)
                    elif n == 3:
                        self._set_foe(path[2], value)
                    elif n == 4 and path[3] in _F_FIELDS:
                        f = self.foes.get(path[2])
                        if f is not None:
                            f[path[3]] = value
                            self.touched.add(path[2])
                elif path[1] == "number" and n == 2:
                    self.enc_number = value

    def _player_of(self, who: Any) -> str:
        d = self.delvers.get(who)
        if d is not None:
            return d.get("player") or "keeper"
        if who == "party":
            return "party"
        return "keeper"

    def build(self) -> dict[str, pd.DataFrame]:
        camp = self.camp
        log = camp.events
        self.progress(f"working out which of {len(log):,} events are in force")
        standing, replaced_by, undone_by = events_standing(log)
        by_seq = {e["seq"]: e for e in log}

        setup = camp.setup
        self.delvers = {}
        self.foes = {}
        self.enc_number = None
        self.touched = set()
        for name, d in setup.get("delvers", {}).items():
            self._set_delver(name, d)
        enc0 = setup.get("encounter")
        if enc0:
            self._set_encounter(enc0)

        # hearts columns
        H = {k: [] for k in ("seq", "ts", "at", "session", "encounter", "round", "kind", "who", "side",
                             "foe_kind", "player", "hearts", "max_hearts", "change", "status", "source",
                             "death", "death_save", "death_save_success")}
        last: dict[tuple, tuple] = {}  # (side, name, encounter or None) -> (hearts, max, status)

        def emit_hearts(e: dict | None, enc: Any, sources: dict, ds_who: Any, ds_ok: Any) -> None:
            touched = self.touched if ds_who is None else self.touched | {ds_who}
            # delvers in seat order (then recruits as they joined), then foes in order of appearance
            for name in [n for n in self.delvers if n in touched] + [n for n in self.foes if n in touched]:
                if name in self.delvers:
                    t, side, key, fk = self.delvers[name], "party", ("party", name, None), None
                elif name in self.foes:
                    t, side = self.foes[name], "foes"
                    key, fk = ("foes", name, enc), t.get("kind")
                else:
                    continue
                now = (t.get("hearts"), t.get("max_hearts"), t.get("status"))
                before = last.get(key)
                is_ds = name == ds_who
                if before == now and not is_ds:
                    continue
                last[key] = now
                H["seq"].append(e["seq"] if e else 0)
                H["ts"].append(e.get("ts") if e else None)
                H["at"].append(e.get("at") if e else 0)
                H["session"].append(e.get("session") if e else None)
                H["encounter"].append(enc)
                H["round"].append(e.get("round") if e else None)
                H["kind"].append(e["kind"] if e else "setup")
                H["who"].append(name)
                H["side"].append(side)
                H["foe_kind"].append(fk)
                H["player"].append(t.get("player") if side == "party" else "keeper")
                H["hearts"].append(now[0])
                H["max_hearts"].append(now[1])
                H["change"].append(None if before is None or now[0] is None or before[0] is None
                                   else now[0] - before[0])
                H["status"].append(now[2])
                H["source"].append(sources.get(name, e["kind"] if e else "setup"))
                H["death"].append(now[2] == STATUS_DEAD and (before is None or before[2] != STATUS_DEAD))
                H["death_save"].append(is_ds)
                H["death_save_success"].append(ds_ok if is_ds else None)

        emit_hearts(None, None, {}, None, None)
        self.touched = set()

        R = {k: [] for k in ("seq", "session", "encounter", "kind", "roll", "who", "player", "why", "expr",
                             "die", "sides", "face", "kept", "luck", "sign", "luck_applied", "base_total",
                             "total", "success")}
        X = {k: [] for k in ("seq", "ts", "at", "session", "encounter", "kind", "who", "player", "amount",
                             "award", "reason", "source", "pool_before", "pool_after", "xp", "level",
                             "level_up")}
        D = {k: [] for k in ("seq", "session", "encounter", "round", "kind", "by", "by_side", "target",
                             "target_side", "source", "counter", "raw", "av", "absorbed", "dealt",
                             "hearts_before", "hearts_after", "vanquished", "death_save_due")}
        L = {k: [] for k in ("seq", "session", "encounter", "kind", "player", "roll", "who", "sign", "face",
                             "total_before", "total_after", "outcome_before", "outcome_after")}
        encs: dict[int, dict] = {}
        dice_plan = _DicePlan()

        n = len(log)
        step = max(5000, n // 10)
        for i, e in enumerate(log):
            if i and i % step == 0:
                self.progress(f"folded {i:,} of {n:,} events")
            seq = e["seq"]
            if seq not in standing:
                continue
            kind = e["kind"]
            enc = e.get("encounter")
            if enc is None and self.enc_number is not None and kind != "encounter" and self.foes:
                enc = self.enc_number

            # ---- rolls
            rolls_ = e.get("rolls")
            if rolls_:
                results = e.get("results")
                for rname, r in rolls_.items():
                    base = rname.split("#", 1)[0]
                    if base in ("check", "death_save"):
                        ok = e.get("success")
                    elif base == "attack" and results is not None:
                        ok = "hit" in results
                    elif base == "resist" and results is not None:
                        ok = "hit" not in results
                    else:
                        ok = None
                    who = r.get("who")
                    player = self._player_of(who)
                    lucks = r.get("luck") or ()
                    la = sum(l["sign"] * l["face"] for l in lucks)
                    total = r.get("total")
                    bt = r.get("base_total", total)
                    expr = r["expr"]
                    why = r.get("why")
                    sides_kept = dice_plan.dice(expr, r["faces"])
                    for k, ((sides, kept), face) in enumerate(zip(sides_kept, r["faces"])):
                        R["seq"].append(seq); R["session"].append(e.get("session")); R["encounter"].append(enc)
                        R["kind"].append(kind); R["roll"].append(rname); R["who"].append(who)
                        R["player"].append(player); R["why"].append(why); R["expr"].append(expr)
                        R["die"].append(k); R["sides"].append(sides); R["face"].append(face)
                        R["kept"].append(kept); R["luck"].append(False); R["sign"].append(1)
                        R["luck_applied"].append(la); R["base_total"].append(bt); R["total"].append(total)
                        R["success"].append(ok)
                    for k, l in enumerate(lucks, start=len(sides_kept)):
                        R["seq"].append(seq); R["session"].append(e.get("session")); R["encounter"].append(enc)
                        R["kind"].append(kind); R["roll"].append(rname); R["who"].append(who)
                        R["player"].append(l.get("who") or player); R["why"].append(why)
                        R["expr"].append(expr); R["die"].append(k); R["sides"].append(l.get("sides", 6))
                        R["face"].append(l["face"]); R["kept"].append(True); R["luck"].append(True)
                        R["sign"].append(l["sign"]); R["luck_applied"].append(la); R["base_total"].append(bt)
                        R["total"].append(total); R["success"].append(ok)

            # ---- luck spent (the outcome before comes from the action this one replaced)
            lk = e.get("luck")
            if lk and e.get("replaces") is not None:
                old = by_seq.get(e["replaces"], {})
                rname = lk.get("roll")
                new_r = (rolls_ or {}).get(rname) or {}
                old_r = (old.get("rolls") or {}).get(rname) or {}
                L["seq"].append(seq); L["session"].append(e.get("session")); L["encounter"].append(enc)
                L["kind"].append(kind); L["player"].append(lk.get("player")); L["roll"].append(rname)
                L["who"].append(new_r.get("who")); L["sign"].append(lk.get("sign"))
                L["face"].append(lk.get("face")); L["total_before"].append(old_r.get("total"))
                L["total_after"].append(new_r.get("total"))
                L["outcome_before"].append(_outcome(old)); L["outcome_after"].append(_outcome(e))

            # ---- damage: credited to its dealer (``by``), each name on the side the event says
            sides = e.get("sides") or {}
            sources: dict[Any, str] = {}
            for entry, is_counter in damage_entries(e):
                if entry.get("wasted") or "dealt" not in entry:
                    continue
                tgt, by = entry.get("target"), entry.get("by")
                D["seq"].append(seq); D["session"].append(e.get("session")); D["encounter"].append(enc)
                D["round"].append(e.get("round")); D["kind"].append(kind); D["by"].append(by)
                D["by_side"].append(sides.get(by)); D["target"].append(tgt)
                D["target_side"].append(sides.get(tgt)); D["source"].append(entry.get("source"))
                D["counter"].append(is_counter); D["raw"].append(entry.get("raw"))
                D["av"].append(entry.get("av")); D["absorbed"].append(entry.get("absorbed"))
                D["dealt"].append(entry.get("dealt")); D["hearts_before"].append(entry.get("hearts_before"))
                D["hearts_after"].append(entry.get("hearts_after"))
                D["vanquished"].append(bool(entry.get("vanquished")))
                D["death_save_due"].append(bool(entry.get("death_save_due")))
                sources[tgt] = _source(entry, sides, ", counter" if is_counter else "") or kind
            for h in healing_entries(e):
                sources[h.get("who")] = _source(h, sides) or kind

            # ---- XP: shares, then the totals after the event
            awards = e.get("xp_awards")
            level_before = {name: d.get("level") for name, d in self.delvers.items()} if awards else None

            # ---- encounters
            if kind == "encounter":
                self.touched = set()
            changes = e.get("changes")
            if changes:
                self._apply(changes)
            if kind == "encounter":
                number = self.enc_number
                enc = number
                encs[number] = {"encounter": number, "name": e.get("name"), "session": e.get("session"),
                                "start_seq": seq, "end_seq": None, "start_ts": e.get("ts"), "end_ts": None,
                                "rounds": 0, "foe_names": [f.get("name") for f in e.get("foes") or ()],
                                "foe_kinds": [f.get("kind") for f in e.get("foes") or ()], "xp": 0,
                                "ended": False}
            elif kind == "add_foes" and enc in encs:
                for name in e.get("foes") or ():
                    encs[enc]["foe_names"].append(name)
                    encs[enc]["foe_kinds"].append((self.foes.get(name) or {}).get("kind"))
            elif kind == "end_encounter" and enc in encs:
                encs[enc].update(end_seq=seq, end_ts=e.get("ts"), rounds=e.get("rounds") or 0,
                                 xp=e.get("xp") or 0, ended=True)
            if enc in encs and e.get("round"):
                encs[enc]["rounds"] = max(encs[enc]["rounds"], e.get("round") or 0)

            if awards:
                shares_left: dict[str, int] = {}
                for a in awards:
                    for name, amount in (a.get("shares") or {}).items():
                        shares_left[name] = shares_left.get(name, 0) + amount
                last_row: dict[str, int] = {}
                for a in awards:
                    for name, amount in (a.get("shares") or {}).items():
                        shares_left[name] -= amount
                        d = self.delvers.get(name) or {}
                        after = (d.get("xp") or 0) - shares_left[name]
                        last_row[name] = len(X["seq"])
                        X["seq"].append(seq); X["ts"].append(e.get("ts")); X["at"].append(e.get("at"))
                        X["session"].append(e.get("session")); X["encounter"].append(enc)
                        X["kind"].append(kind); X["who"].append(name); X["player"].append(d.get("player"))
                        X["amount"].append(amount); X["award"].append(a.get("amount"))
                        X["reason"].append(a.get("reason")); X["source"].append(a.get("source"))
                        X["pool_before"].append(a.get("pool_before")); X["pool_after"].append(a.get("pool_after"))
                        X["xp"].append(after); X["level"].append(d.get("level")); X["level_up"].append(False)
                for name, row in last_row.items():
                    lb = level_before.get(name)
                    lv = X["level"][row]
                    if lb is not None and lv is not None and lv > lb:
                        X["level_up"][row] = True

            ds_who = e.get("who") if kind == "death_save" else None
            if self.touched or ds_who is not None:
                emit_hearts(e, enc if kind != "encounter" else self.enc_number, sources, ds_who,
                            e.get("success") if ds_who is not None else None)
                self.touched = set()
            if not self.foes and kind == "end_encounter":
                self.enc_number = None

        self.progress("making the frames")
        out = {
            "events": _events_frame(log, standing, replaced_by, undone_by),
            "rolls": _rolls_frame(R),
            "hearts": _hearts_frame(H),
            "xp": _xp_frame(X),
            "damage": _damage_frame(D),
            "luck": _luck_frame(L),
        }
        out["encounters"] = _encounters_frame(encs, out["damage"], out["hearts"])
        out["fairness"] = _fairness_frame(out["rolls"])
        out["levels"] = _levels_frame(camp.rules)
        return out


def _source(entry: Mapping, sides: Mapping, note: str = "") -> str | None:
    """What harmed or healed someone, for a hearts row: 'Brakka (Sword)' for a combatant's deed, the keeper's words
    or the hazard's for the rest."""
    by, what = entry.get("by"), entry.get("source")
    if sides.get(by) in _COMBATANTS:
        return f"{by} ({what}{note})"
    return what


def _outcome(e: Mapping) -> str | None:
    if "success" in e and e.get("success") is not None:
        return "success" if e["success"] else "failure"
    if e.get("results") is not None:
        return ", ".join(e["results"])
    return None


class _DicePlan:
    """(sides, kept) for each die of a recorded roll, from its notation (parsed once per notation)."""

    def __init__(self) -> None:
        self.plans: dict[str, tuple | None] = {}

    def dice(self, expr: str, faces: list) -> list[tuple[int, bool]]:
        plan = self.plans.get(expr, False)
        if plan is False:
            from ..dice import parse
            ex = parse(expr)
            if any(t.keep for t in ex.terms):
                plan = None
            else:
                plan = tuple((6 if t.d66 else t.sides, True) for t in ex.terms if not t.is_constant
                             for _ in range(2 if t.d66 else t.count))
            self.plans[expr] = plan
        if plan is not None and len(plan) == len(faces):
            return list(plan)
        from ..dice import parse
        return [(d.sides, d.kept) for d in parse(expr).roll(faces=faces).dice]


# ---------------------------------------------------------------- frames from columns

def _cat(values) -> pd.Categorical:
    return pd.Categorical(values)


def _int(values) -> pd.array:
    return pd.array(values, dtype="Int64")


def _bool(values) -> pd.array:
    return pd.array(values, dtype="boolean")


def _ts(values) -> pd.Series:
    return pd.to_datetime(pd.Series(values, dtype=object), utc=True, format="ISO8601").astype("datetime64[ns, UTC]")


_EVENT_FIXED = ("seq", "kind", "v", "at", "ts", "session", "encounter", "round", "replaces", "undoes",
                "redoes", "changes", "rolls", "args", "luck", "amended")


def _events_frame(log: list[dict], standing: set, replaced_by: dict, undone_by: dict) -> pd.DataFrame:
    n = len(log)
    # every field as a column, in order of first appearance: one pass over the events
    fields: dict[str, list] = {}
    for i, e in enumerate(log):
        for k, v in e.items():
            col = fields.get(k)
            if col is None:
                col = fields[k] = [None] * n
            col[i] = v
    none = [None] * n
    g = lambda key: fields.get(key, none)  # noqa: E731
    kinds = g("kind")
    seqs = g("seq")
    changes = g("changes")
    status = []
    for s, k, ch in zip(seqs, kinds, changes):
        if k == _UNDO or k == _REDO:
            status.append(k)
        elif ch is None:
            status.append("note")
        elif s in standing:
            status.append("in force")
        elif s in replaced_by:
            status.append("replaced")
        else:
            status.append("undone")
    actor, targets = g("actor"), g("targets")
    luck_ = g("luck")
    df = pd.DataFrame({
        "seq": np.asarray(seqs, dtype=np.int64),
        "kind": _cat(kinds),
        "v": _int(g("v")),
        "at": _int(g("at")),
        "ts": _ts(g("ts")),
        "session": _int(g("session")),
        "encounter": _int(g("encounter")),
        "round": _int(g("round")),
        "actor": _cat([a if isinstance(a, str) else None for a in actor]),
        "target": _cat([t[0] if isinstance(t, list) and t and isinstance(t[0], str) else None for t in targets]),
        "in_force": np.asarray([st == "in force" or st == "note" for st in status], dtype=bool),
        "status": pd.Categorical(status, categories=["in force", "undone", "replaced", "undo", "redo", "note"]),
        "replaced_by": _int([replaced_by.get(s) for s in seqs]),
        "undone_by": _int([undone_by.get(s) if st == "undone" else None for s, st in zip(seqs, status)]),
        "replaces": _int(g("replaces")),
        "undoes": _int(g("undoes")),
        "redoes": _int(g("redoes")),
        "luck_player": _cat([lk.get("player") if isinstance(lk, dict) else None for lk in luck_]),
        "amended": np.asarray([bool(a) for a in g("amended")], dtype=bool),
        "n_rolls": np.asarray([len(r) if r else 0 for r in g("rolls")], dtype=np.int64),
        "n_changes": np.asarray([len(c) if c else 0 for c in changes], dtype=np.int64),
        "args": json_column(g("args")),
        "rolls": json_column(g("rolls")),
        "changes": json_column(changes),
    })
    cols: dict[str, Any] = {}
    for k, values in fields.items():
        if k in _EVENT_FIXED or k in df.columns:
            continue
        for name, column in typed_columns(k, values, n).items():
            if name not in df.columns and name not in cols:
                cols[name] = column
    if cols:
        df = pd.concat([df, pd.DataFrame(cols, index=df.index)], axis=1)
    return df


def _rolls_frame(R: dict) -> pd.DataFrame:
    return pd.DataFrame({
        "seq": np.asarray(R["seq"], dtype=np.int64),
        "session": _int(R["session"]),
        "encounter": _int(R["encounter"]),
        "kind": _cat(R["kind"]),
        "roll": _cat(R["roll"]),
        "who": _cat(R["who"]),
        "player": _cat(R["player"]),
        "why": _cat(R["why"]),
        "expr": _cat(R["expr"]),
        "die": np.asarray(R["die"], dtype=np.int64),
        "sides": np.asarray(R["sides"], dtype=np.int64),
        "face": np.asarray(R["face"], dtype=np.int64),
        "kept": np.asarray(R["kept"], dtype=bool),
        "luck": np.asarray(R["luck"], dtype=bool),
        "sign": np.asarray(R["sign"], dtype=np.int64),
        "luck_applied": np.asarray(R["luck_applied"], dtype=np.int64),
        "base_total": _int(R["base_total"]),
        "total": _int(R["total"]),
        "success": _bool(R["success"]),
    })


def _hearts_frame(H: dict) -> pd.DataFrame:
    hearts_ = _int(H["hearts"])
    change = _int(H["change"])
    return pd.DataFrame({
        "seq": np.asarray(H["seq"], dtype=np.int64),
        "ts": _ts(H["ts"]),
        "at": _int(H["at"]),
        "session": _int(H["session"]),
        "encounter": _int(H["encounter"]),
        "round": _int(H["round"]),
        "kind": _cat(H["kind"]),
        "who": _cat(H["who"]),
        "side": pd.Categorical(H["side"], categories=["party", "foes"]),
        "foe_kind": _cat(H["foe_kind"]),
        "player": _cat(H["player"]),
        "hearts": hearts_,
        "max_hearts": _int(H["max_hearts"]),
        "change": change,
        "status": _cat(H["status"]),
        "source": _cat(H["source"]),
        "down": np.asarray((hearts_ == 0).fillna(False) & (change.fillna(0) < 0), dtype=bool),
        "death": np.asarray(H["death"], dtype=bool),
        "death_save": np.asarray(H["death_save"], dtype=bool),
        "death_save_success": _bool(H["death_save_success"]),
    })


def _xp_frame(X: dict) -> pd.DataFrame:
    return pd.DataFrame({
        "seq": np.asarray(X["seq"], dtype=np.int64),
        "ts": _ts(X["ts"]),
        "at": _int(X["at"]),
        "session": _int(X["session"]),
        "encounter": _int(X["encounter"]),
        "kind": _cat(X["kind"]),
        "who": _cat(X["who"]),
        "player": _cat(X["player"]),
        "amount": np.asarray(X["amount"], dtype=np.int64),
        "award": _int(X["award"]),
        "reason": _cat(X["reason"]),
        "source": _cat(X["source"]),
        "pool_before": _int(X["pool_before"]),
        "pool_after": _int(X["pool_after"]),
        "xp": np.asarray(X["xp"], dtype=np.int64),
        "level": _int(X["level"]),
        "level_up": np.asarray(X["level_up"], dtype=bool),
    })


def _damage_frame(D: dict) -> pd.DataFrame:
    df = pd.DataFrame({
        "seq": np.asarray(D["seq"], dtype=np.int64),
        "session": _int(D["session"]),
        "encounter": _int(D["encounter"]),
        "round": _int(D["round"]),
        "kind": _cat(D["kind"]),
        "by": _cat(D["by"]),
        "by_side": pd.Categorical(D["by_side"], categories=list(SIDES)),
        "target": _cat(D["target"]),
        "target_side": pd.Categorical(D["target_side"], categories=list(SIDES)),
        "source": _cat(D["source"]),
        "counter": np.asarray(D["counter"], dtype=bool),
        "raw": np.asarray(D["raw"], dtype=np.int64),
        "av": np.asarray(D["av"], dtype=np.int64),
        "absorbed": np.asarray(D["absorbed"], dtype=np.int64),
        "dealt": np.asarray(D["dealt"], dtype=np.int64),
        "hearts_before": np.asarray(D["hearts_before"], dtype=np.int64),
        "hearts_after": np.asarray(D["hearts_after"], dtype=np.int64),
        "vanquished": np.asarray(D["vanquished"], dtype=bool),
        "death_save_due": np.asarray(D["death_save_due"], dtype=bool),
    })
    df.insert(df.columns.get_loc("hearts_after") + 1, "hearts_lost", df["hearts_before"] - df["hearts_after"])
    df.insert(df.columns.get_loc("hearts_lost") + 1, "overkill", df["dealt"] - df["hearts_lost"])
    return df


def _luck_frame(L: dict) -> pd.DataFrame:
    df = pd.DataFrame({
        "seq": np.asarray(L["seq"], dtype=np.int64),
        "session": _int(L["session"]),
        "encounter": _int(L["encounter"]),
        "kind": _cat(L["kind"]),
        "player": _cat(L["player"]),
        "roll": _cat(L["roll"]),
        "who": _cat(L["who"]),
        "sign": _int(L["sign"]),
        "face": _int(L["face"]),
        "total_before": _int(L["total_before"]),
        "total_after": _int(L["total_after"]),
        "outcome_before": _cat(L["outcome_before"]),
        "outcome_after": _cat(L["outcome_after"]),
    })
    before = df["outcome_before"].astype(object)
    after = df["outcome_after"].astype(object)
    flipped = (before != after) & before.notna() & after.notna()
    df["flipped"] = np.asarray(flipped, dtype=bool)
    good = {"success", "hit"}

    def effect(b, a, f):
        if not f:
            return "changed the total only"
        hits_after = sum(x in good for x in str(a).split(", "))
        hits_before = sum(x in good for x in str(b).split(", "))
        return "turned to success" if hits_after > hits_before else "turned to failure"
    df["effect"] = pd.Categorical([effect(b, a, f) for b, a, f in zip(before, after, df["flipped"])],
                                  categories=["turned to success", "turned to failure", "changed the total only"])
    return df


def _encounters_frame(encs: dict, dmg: pd.DataFrame, hts: pd.DataFrame) -> pd.DataFrame:
    rows = list(encs.values())
    df = pd.DataFrame({
        "encounter": _int([r["encounter"] for r in rows]),
        "name": _cat([r["name"] for r in rows]),
        "session": _int([r["session"] for r in rows]),
        "start_seq": _int([r["start_seq"] for r in rows]),
        "end_seq": _int([r["end_seq"] for r in rows]),
        "start_ts": _ts([r["start_ts"] for r in rows]),
        "end_ts": _ts([r["end_ts"] for r in rows]),
        "rounds": _int([r["rounds"] for r in rows]),
        "foes": _int([len(r["foe_names"]) for r in rows]),
        "foe_kinds": pd.Series([[str(k) for k in r["foe_kinds"]] for r in rows], dtype=object),
        "xp": _int([r["xp"] for r in rows]),
        "ended": np.asarray([r["ended"] for r in rows], dtype=bool),
    })
    idx = df["encounter"]
    d = dmg[dmg["encounter"].notna()]

    def total(mask, col="dealt"):
        s = d[mask].groupby(d.loc[mask, "encounter"].astype("int64"))[col].sum()
        return _int(idx.map(s).fillna(0).astype("int64"))
    df["party_dealt"] = total(d["by_side"] == "party")
    df["party_taken"] = total(d["target_side"] == "party")
    df["foes_dealt"] = total(d["by_side"] == "foes")
    df["foes_taken"] = total(d["target_side"] == "foes")
    df["armor_absorbed"] = total(d["target_side"] == "party", "absorbed")
    h = hts[hts["seq"] > 0]
    enc_h = _fight_of_hearts(h, df)

    def count(mask):
        s = mask.groupby(enc_h).sum()
        return _int(idx.map(s).fillna(0).astype("int64"))
    party = h["side"] == "party"
    df["vanquished"] = count((h["side"] == "foes") & (h["status"].astype(object) == STATUS_DEAD)
                             & h["death"])
    df["delvers_down"] = count(party & h["down"])
    df["deaths"] = count(party & h["death"])
    df["death_saves"] = count(party & h["death_save"])
    return df


def _fight_of_hearts(h: pd.DataFrame, encounters: pd.DataFrame) -> pd.Series:
    """The fight each hearts row belongs to (-1: none): the one it happened in, or, for a death save rolled (or a
    death) after a fight ended, that fight, if no other began since in the same session."""
    starts = encounters.sort_values("start_seq")
    pos = np.searchsorted(starts["start_seq"].to_numpy(dtype=np.int64), h["seq"].to_numpy(), side="right") - 1
    latest = starts["encounter"].to_numpy(dtype=np.int64)[np.maximum(pos, 0)] if len(starts) else np.zeros(len(h), np.int64)
    same_session = (starts["session"].to_numpy(dtype="float")[np.maximum(pos, 0)] if len(starts)
                    else np.zeros(len(h))) == h["session"].to_numpy(dtype="float", na_value=np.nan)
    after = np.where((pos >= 0) & same_session, latest, -1)
    return pd.Series(np.where(h["encounter"].notna(), h["encounter"].fillna(-1).to_numpy(dtype=np.int64), after),
                     index=h.index)


def _fairness_frame(r: pd.DataFrame) -> pd.DataFrame:
    rows = []
    real = r[r["player"].astype(object) != "party"]
    for sides in (20, 6):
        probs = face_probabilities(sides)
        sub = real[real["sides"] == sides]
        table = pd.crosstab(sub["player"].astype(object), sub["face"]).reindex(
            columns=range(1, sides + 1), fill_value=0)
        for player, counts in table.iterrows():
            obs = counts.to_numpy()
            n = int(obs.sum())
            if n == 0:
                continue
            stat, df_, p = chi_squared_p(obs, probs)
            enough = n >= 5 * sides
            rows.append({"player": player, "sides": sides, "die": f"D{sides}", "rolls": n,
                         "counts": [int(c) for c in obs], "chi2": stat, "df": df_, "p_value": p,
                         "fair": (p >= FAIR_LEVEL) if enough else None,
                         "verdict": fairness_verdict(p, n, sides)})
    df = pd.DataFrame(rows, columns=["player", "sides", "die", "rolls", "counts", "chi2", "df", "p_value",
                                     "fair", "verdict"])
    df["player"] = _cat(df["player"])
    df["die"] = _cat(df["die"])
    df["fair"] = _bool(list(df["fair"]))
    df["sides"] = df["sides"].astype("int64")
    df["rolls"] = df["rolls"].astype("int64")
    df["df"] = df["df"].astype("int64")
    df["chi2"] = df["chi2"].astype(float)
    df["p_value"] = df["p_value"].astype(float)
    return df
