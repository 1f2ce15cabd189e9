"""Was the forecast right? Each fight of a campaign forecast again from the state at its start, beside what happened.

``calibration(camp)`` walks the log once with ``History``, keeping the state just after each fight in force began
(before initiative), and plays the danger forecast (``delvebook.forecast``, its documented ``Policy`` unless given
another) from each of those states. Each forecast is set beside the fight as the log tells it (the ``encounters``
and ``hearts`` frames): whether a delver dropped below 1 heart, whether one died (a death save failed after the
fight counts, as in the frames), whether the party won (every foe vanquished), how many rounds it lasted. For each
chance the forecast gives, the fights are binned by the forecast (0-10%, 10-20%, ...) and each bin's share that
happened is given with its 95% Wilson interval (the reliability table), with the Brier score (the mean squared gap
between forecast and outcome, 0 best) beside the score of always forecasting the campaign's base rate.

The same walk reads how the fights were played where the policy makes a choice (whom foes and delvers attack, which
actions delvers take, luck dice, initiative, leaving a fight), so the report can say where the forecast's table and
the campaign's table differ.

Each forecast plays ``fights`` simulated fights (100: each chance within about ±10 points; a bin's mean
forecast is far closer, and the noise adds at most 0.0025 to a Brier score) with a seed of its own (the fight's
seq), over every core. The forecasts are cached, as a speed-up only, never as the truth: in memory per open campaign, and on disk in the user's cache folder
(``$DELVEBOOK_CACHE``, else ``$XDG_CACHE_HOME/delvebook``, else ``~/.cache/delvebook``; then ``calibration/``),
one JSON file named by a digest of the log, the setup, the rules, the forecast's settings and the source of the
code that plays the fights. Any change to one of those is a new name, so a stale file is never read; deleting the
folder costs only the time to play the fights again. It lives outside the campaign folder because that folder is
the keeper's (kept in git, shared, perhaps read-only or a zip), and a cache is not part of the campaign.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import sys
import time
import warnings
import weakref
from collections import Counter
from pathlib import Path
from typing import Any, Callable, Mapping

import numpy as np
import pandas as pd

from ..campaign import Campaign
from ..engine import Refused
from ..core.cache import cache_folder
from ..core.events import History, clone
from ..forecast import FightView, Policy, default_workers, forecast, wilson
from ..core.roles import CREATURES, FOES, PARTY
from ..store.careful import read_small
from .fold import open_campaign, shared_frames
from .tables import fight_of_hearts

__all__ = ["calibration", "Calibration", "QUANTITIES", "FIGHTS", "cache_folder"]

FIGHTS = 100
"""Simulated fights a forecast: each chance within about ±10 points (95%); the long delve's 606 fights in about 45 s
of processor time (bench/calibration.py)."""

QUANTITIES = {
    "drop": ("a delver drops below 1 heart", "delvers", "p_drop", "dropped"),
    "death": ("a delver dies", "delvers", "p_death", "died"),
    "any_death": ("a death in the party", "fights", "p_any_death", "any_death"),
    "win": ("the party wins", "fights", "p_win", "won"),
}
"""Each chance checked: (words, the frame it is read from, the forecast's column, what happened's column)."""

BINS = np.linspace(0, 1, 11)
_FORMAT = 1  # the cache file's layout
_MEMO: "weakref.WeakKeyDictionary[Campaign, tuple[str, dict]]" = weakref.WeakKeyDictionary()
_CODE = ("engine", "forecast", "rules", "dice.py", "distribution.py", "model.py", "events.py")


# ---------------------------------------------------------------- the result

class Calibration:
    """Each fight's forecast beside what happened (``fights``: one row a fight; ``delvers``: one row per delver of
    each fight), the ``reliability`` table (per chance and bin: ``n``, mean ``forecast``, ``observed`` share and its
    95% interval ``lo``..``hi``), the ``brier`` table (per chance: ``n``, ``brier``, ``base_rate``, ``reference``:
    the score of always forecasting the base rate, ``skill``: 1 - brier / reference), the ``policy`` the forecasts
    played by, and ``played``: how the campaign's fights were played where the policy makes a choice."""

    def __init__(self, fights: pd.DataFrame, delvers: pd.DataFrame, *, policy: list[str], played: list[str],
                 fights_per_forecast: int, seconds: float, cache: Path | None, from_cache: bool):
        self.fights = fights
        self.delvers = delvers
        self.policy = policy
        self.played = played
        self.fights_per_forecast = fights_per_forecast
        self.seconds = seconds
        self.cache = cache
        self.from_cache = from_cache
        self.reliability = _reliability(self)
        self.brier = _brier(self)

    def pairs(self, quantity: str) -> pd.DataFrame:
        """The (``forecast``, ``happened``) pairs of one chance (a key of ``QUANTITIES``), fights forecast only."""
        _, frame, p, y = QUANTITIES[quantity]
        df = getattr(self, frame)
        df = df[df[p].notna()]
        return pd.DataFrame({"forecast": df[p].astype(float).to_numpy(), "happened": df[y].astype(bool).to_numpy()})

    def summary(self) -> list[str]:
        """What the calibration shows, a line each: every chance's forecast against what happened, the rounds,
        the policy's table against the campaign's."""
        f = self.fights
        n = int(f["p_win"].notna().sum())
        lines = [f"{n:,} fights forecast again from the state at their start, {self.fights_per_forecast} simulated "
                 "fights each, beside what happened in them."]
        for key, (words, frame, *_rest) in QUANTITIES.items():
            b = self.brier.loc[key]
            if not b["n"]:
                continue
            pairs = self.pairs(key)
            said = pairs["forecast"].mean()
            lo, hi = wilson(int(pairs["happened"].sum()), len(pairs))
            verdict = ("the forecast said it more often than it happened" if said > hi else
                       "the forecast said it less often than it happened" if said < lo else
                       "about as often as the forecast said")
            lines.append(f"{words[0].upper() + words[1:]}: forecast {_pct(said)} on average, happened "
                         f"{_pct(b['base_rate'])} of the time ({int(b['n']):,} "
                         f"{'delvers in fights' if frame == 'delvers' else 'fights'}): {verdict}. Brier score "
                         f"{b['brier']:.3f}, against {b['reference']:.3f} for always saying {_pct(b['base_rate'])}"
                         + (" (better than the base rate)." if b["skill"] > 0 else " (no better than the base rate)."))
        played = f[f["p_win"].notna() & f["rounds"].notna()]
        if len(played):
            within = (played["rounds"] <= played["rounds_p90"]).mean()
            lines.append(f"Rounds: the forecast's median {played['rounds_median'].median():.0f} against "
                         f"{played['rounds'].median():.0f} played (the medians over the fights); {within:.0%} of "
                         "the fights lasted no longer than the forecast's 90th percentile.")
        return lines

    def __repr__(self) -> str:
        return f"<Calibration: {len(self.fights)} fights, Brier {dict(self.brier['brier'].round(3))}>"


def _pct(p: float) -> str:
    """A chance in words: one decimal below 10% (0.2%, not 0%), whole points above."""
    return f"{p:.1%}" if p < 0.1 else f"{p:.0%}"


def _reliability(cal: Calibration) -> pd.DataFrame:
    rows = []
    for key in QUANTITIES:
        pairs = cal.pairs(key)
        which = np.clip(np.digitize(pairs["forecast"], BINS[1:-1]), 0, len(BINS) - 2)
        for b in range(len(BINS) - 1):
            sub = pairs[which == b]
            if sub.empty:
                continue
            hits = int(sub["happened"].sum())
            lo, hi = wilson(hits, len(sub))
            rows.append({"quantity": key, "bin_lo": BINS[b], "bin_hi": BINS[b + 1], "n": len(sub),
                         "forecast": float(sub["forecast"].mean()), "observed": hits / len(sub), "lo": lo, "hi": hi})
    return pd.DataFrame(rows, columns=["quantity", "bin_lo", "bin_hi", "n", "forecast", "observed", "lo", "hi"])


def _brier(cal: Calibration) -> pd.DataFrame:
    rows = []
    for key in QUANTITIES:
        pairs = cal.pairs(key)
        n = len(pairs)
        y = pairs["happened"].to_numpy(dtype=float)
        p = pairs["forecast"].to_numpy(dtype=float)
        base = float(y.mean()) if n else float("nan")
        brier = float(((p - y) ** 2).mean()) if n else float("nan")
        reference = base * (1 - base) if n else float("nan")
        rows.append({"quantity": key, "n": n, "brier": brier, "base_rate": base, "reference": reference,
                     "skill": 1 - brier / reference if n and reference > 0 else float("nan")})
    return pd.DataFrame(rows).set_index("quantity")


# ---------------------------------------------------------------- the entry point

def calibration(x: Any, *, fights: int = FIGHTS, policy: Policy | None = None,
                progress: Callable[[int, int], Any] | bool | None = None, workers: int | None = None,
                cache: bool | str | os.PathLike = True) -> Calibration:
    """Each fight in force of the campaign (a Campaign or a folder) forecast again from the state at its start,
    beside what happened, with the reliability table and the Brier scores (see ``Calibration``).

    ``fights``: simulated fights a forecast; ``policy``: how the simulated table plays (the forecast's own by
    default); ``progress``: called with (forecasts done, forecasts in all) as they finish (True: a bar in a notebook,
    a line on stderr elsewhere); ``workers``: processes (default: every core); ``cache``: False to play every fight
    again, a folder to keep the cache in, True for the user's cache folder (``cache_folder()``)."""
    if isinstance(fights, bool) or not isinstance(fights, int) or fights < 1:
        raise ValueError(f"fights is a whole number of at least 1, not {fights!r}")
    policy = Policy() if policy is None else policy
    if progress is True:
        progress = _auto_bar()
    began = time.perf_counter()
    camp, opened = open_campaign(x)
    try:
        key = _key(camp, fights, policy)
        folder = None if cache is False else (cache_folder() if cache is True else Path(cache))
        file = folder / "calibration" / f"{key}.json" if folder is not None else None
        raw, from_cache = _cached(camp, key, file) if cache is not False else (None, False)
        if raw is None:
            starts, played = _walk(camp, policy)
            raw = {"format": _FORMAT, "fights_per_forecast": fights, "played": played,
                   "forecasts": _forecast_all(camp.rules, starts, fights, policy, workers, progress)}
            _store(file, raw)
        elif progress:
            progress(len(raw["forecasts"]), len(raw["forecasts"]))
        if not opened:
            _MEMO[camp] = (key, raw)
        f = shared_frames(camp, keep=not opened)
    finally:
        if opened:
            camp.close()
    fights_df, delvers_df = _beside(raw["forecasts"], f)
    return Calibration(fights_df, delvers_df, policy=policy.describe(), played=_played_lines(raw["played"], f),
                       fights_per_forecast=raw["fights_per_forecast"], seconds=time.perf_counter() - began,
                       cache=file, from_cache=from_cache)


# ---------------------------------------------------------------- the cache

def _key(camp: Campaign, fights: int, policy: Policy) -> str:
    """A digest of everything a calibration is made from: the log, the setup, the rules, the settings, the code."""
    h = hashlib.sha256()
    for part in (_FORMAT, fights, type(policy).__qualname__, repr(policy), camp.setup, camp.rules.to_dict()):
        h.update(json.dumps(part, sort_keys=True, default=str).encode())
        h.update(b"\0")
    encode = json.JSONEncoder(separators=(",", ":"), default=str).encode
    for e in camp.events:
        h.update(encode(e).encode())
        h.update(b"\n")
    root = Path(__file__).resolve().parent.parent
    for name in _CODE:
        path = root / name
        for file in sorted(path.rglob("*")) if path.is_dir() else [path]:
            if file.suffix in (".py", ".yaml") and file.is_file():
                h.update(file.relative_to(root).as_posix().encode())
                h.update(file.read_bytes())
    return h.hexdigest()[:32]


def _cached(camp: Campaign, key: str, file: Path | None) -> tuple[dict | None, bool]:
    memo = _MEMO.get(camp)
    if memo is not None and memo[0] == key:
        return memo[1], True
    if file is None:
        return None, False
    text, _ = read_small(file, _MOST_CACHE)  # a regular file only, never a pipe waited on (a miss otherwise)
    try:
        raw = json.loads(text.decode("utf-8")) if text is not None else None
    except (ValueError, RecursionError):
        return None, False
    return (raw, True) if _whole(raw) else (None, False)


_MOST_CACHE = 256 << 20  # bytes of a cache file: a campaign of 100,000 fights


_PLAYED = {"foe_attacks", "foe_as_policy", "delver_attacks", "delver_as_policy", "creature_attacks",
           "initiative_chosen", "before_initiative", "joined", "actions"}
_FORECAST = {"seq", "encounter", "party", "p_drop", "p_death", "p_any_drop", "p_any_death", "p_win", "p_wipe",
             "rounds_median", "rounds_p90"}


def _whole(raw: Any) -> bool:
    """Whether a cache file holds what this module writes, every value of the type and in the range it writes: it
    is read as untrusted input (a file cut short or edited, ``p_win: 7.5``, text where a number goes, is a miss,
    and its fights are played again)."""
    try:
        played, forecasts = raw["played"], raw["forecasts"]
        return (raw["format"] == _FORMAT and _count(raw["fights_per_forecast"]) and raw["fights_per_forecast"] > 0
                and isinstance(played, dict) and set(played) == _PLAYED and isinstance(played["actions"], dict)
                and all(_count(v) for k, v in played.items() if k != "actions")
                and all(isinstance(k, str) and _count(v) for k, v in played["actions"].items())
                and isinstance(forecasts, list) and all(_row(r) for r in forecasts)
                and len({r["seq"] for r in forecasts}) == len(forecasts))
    except (TypeError, KeyError, AttributeError):
        return False


def _count(v: Any) -> bool:
    return type(v) is int and 0 <= v <= 2 ** 53


def _chance(v: Any) -> bool:
    return type(v) in (int, float) and 0 <= v <= 1  # (NaN is no chance: every comparison with it is false)


def _row(r: Any) -> bool:
    """One forecast as ``_forecast_row`` writes it: chances from 0 to 1, one a delver of the party, rounds."""
    if not isinstance(r, dict) or not _count(r.get("seq")) or not (r.get("encounter") is None
                                                                    or _count(r.get("encounter"))):
        return False
    if set(r) == {"seq", "encounter", "refused"}:
        return isinstance(r["refused"], str)
    party = r.get("party")
    return (set(r) == _FORECAST and isinstance(party, list) and all(isinstance(n, str) for n in party)
            and all(isinstance(r[k], list) and len(r[k]) == len(party) and all(map(_chance, r[k]))
                    for k in ("p_drop", "p_death"))
            and all(_chance(r[k]) for k in ("p_any_drop", "p_any_death", "p_win", "p_wipe"))
            and all(type(r[k]) in (int, float) and 0 <= r[k] <= 10 ** 6 for k in ("rounds_median", "rounds_p90")))


def _store(file: Path | None, raw: dict) -> None:
    """Write the cache file beside itself and rename it in; a cache that cannot be written is only slower."""
    if file is None:
        return
    try:
        file.parent.mkdir(parents=True, exist_ok=True)
        tmp = file.with_name(f".{file.name}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps(raw), encoding="utf-8")
        os.replace(tmp, file)
    except OSError:
        pass


# ---------------------------------------------------------------- one walk over the log

def _walk(camp: Campaign, policy: Policy) -> tuple[list[tuple[int, dict]], dict]:
    """The state just after each fight in force began, and how the fights were played where the policy chooses:
    whom each attack with a choice of target went to (the policy's choice or another), the abilities and spells
    delvers used in fights, creatures' attacks, initiative chosen, attacks before initiative, foes joining."""
    standing = camp.standing
    history = History(clone(camp.setup))
    rules = camp.rules
    starts: list[tuple[int, dict]] = []
    played: dict = dict.fromkeys(_PLAYED, 0)
    played["actions"] = Counter()
    cache: dict = {}
    rng = random.Random(0)
    for e in camp.events:
        kind = e.get("kind")
        if standing.in_force(e["seq"]):
            state = history.state
            enc = state["encounter"]
            side = (e.get("sides") or {}).get(e.get("actor"))
            if kind == "attack" and enc is not None:
                _note_attack(played, FightView(state, rules, rng, cache), policy, e, side)
            elif kind in ("use", "cast") and enc is not None and side == PARTY:
                played["actions"][e.get("ability_name") or e.get("spell_name") or e.get("ability")
                                   or e.get("spell") or kind] += 1
            elif kind == "initiative" and (e.get("args") or {}).get("first"):
                played["initiative_chosen"] += 1
            elif kind == "add_foes":
                played["joined"] += 1
        history.fold(e)
        if kind == "encounter" and standing.in_force(e["seq"]):
            starts.append((e["seq"], clone(history.state)))
            cache = {}  # the policy's answers hold for one fight: sheets change between fights
    played["actions"] = dict(played["actions"])
    return starts, played


def _note_attack(played: dict, view: FightView, policy: Policy, e: Mapping, side: str | None) -> None:
    """Whether an attack went where the policy would send it (when its side had a choice of target)."""
    attacker, targets = e.get("actor"), e.get("targets") or [None]
    if view.state["encounter"]["side"] is None:
        played["before_initiative"] += 1
    elif side == PARTY:
        if len(view.standing(FOES)) > 1:
            played["delver_attacks"] += 1
            played["delver_as_policy"] += policy.delver_target(view, attacker) == targets[0]
    elif side == FOES:
        if len(view.standing(PARTY)) > 1:
            played["foe_attacks"] += 1
            played["foe_as_policy"] += policy.foe_target(view, attacker) == targets[0]
    elif side == CREATURES:
        played["creature_attacks"] += 1


def _played_lines(p: dict, f: Mapping[str, pd.DataFrame]) -> list[str]:
    """How the campaign's fights were played, against the policy, in words (only where they differ)."""
    enc = f["encounters"]
    lines = []
    ended = enc[enc["ended"]]
    left = int(((ended["vanquished"] < ended["foes"]) & (ended["foes"] > 0)).sum())
    if left:
        lines.append(f"Leaving a fight: {left:,} of {len(ended):,} fights ({left / len(ended):.0%}) ended with foes "
                     "still standing (the party withdrew, or kept a foe as a prisoner); the forecast's party fights "
                     "on unless its policy says when to retreat.")
    for who, n, k in (("foes'", p["foe_attacks"], p["foe_as_policy"]),
                      ("delvers'", p["delver_attacks"], p["delver_as_policy"])):
        if n:
            lines.append(f"Whom to attack: {k / n:.0%} of the {who} {n:,} attacks with a choice of target went "
                         "where the policy sends them.")
    actions = p["actions"]
    if actions:
        top = sorted(actions.items(), key=lambda kv: -kv[1])
        lines.append(f"Actions: delvers used abilities and spells {sum(actions.values()):,} times in fights ("
                     + ", ".join(f"{name} ×{n:,}" for name, n in top[:5])
                     + (", ..." if len(top) > 5 else "") + "); the forecast's delvers attack, and use only what its "
                     "policy names (Second Wind, a Dodge).")
    if p["creature_attacks"]:
        lines.append(f"Creatures: familiars and NPCs attacked {p['creature_attacks']:,} times beside the party; in "
                     "the forecast they do not act.")
    lk = f["luck"]
    in_fights = lk[lk["encounter"].notna()]
    other = int((in_fights["roll"].astype(str) != "death_save").sum())
    if other:
        lines.append(f"Luck dice: {len(in_fights):,} spent in fights, {other:,} of them on rolls other than a death "
                     "save (attacks, foes' hits); the forecast spends them on failed death saves only.")
    if p["initiative_chosen"]:
        lines.append(f"Initiative: the keeper chose who went first in {p['initiative_chosen']:,} fights; the "
                     "forecast rolls it.")
    if p["before_initiative"] or p["joined"]:
        lines.append(f"Surprises: {p['before_initiative']:,} attacks came before initiative (an ambush), and foes "
                     f"joined {p['joined']:,} fights; the forecast sees the foes at the start only.")
    return lines


# ---------------------------------------------------------------- the forecasts

def _forecast_row(rules, policy: Policy, fights: int, seq: int, state: dict) -> dict:
    """One fight's forecast from the state at its start, as plain data (what the cache keeps)."""
    number = state["encounter"].get("number")
    try:
        d = forecast(rules, state, None, fights=fights, seed=seq, precision=0, workers=1, policy=policy)
    except Refused as err:
        return {"seq": seq, "encounter": number, "refused": str(err)}
    return {"seq": seq, "encounter": number, "party": d.party,
            "p_drop": [d.p_drop[n].p for n in d.party], "p_death": [d.p_death[n].p for n in d.party],
            "p_any_drop": sum(any(r.dropped) for r in d.results) / d.fights, "p_any_death": d.p_any_death.p,
            "p_win": d.p_win.p, "p_wipe": d.p_wipe.p, "rounds_median": d.rounds.median, "rounds_p90": d.rounds.p90}


_JOB: tuple | None = None


def _worker_init(job: tuple) -> None:
    global _JOB
    _JOB = job


def _worker_row(item: tuple[int, dict]) -> dict:
    return _forecast_row(*_JOB, *item)


def _forecast_all(rules, starts: list[tuple[int, dict]], fights: int, policy: Policy, workers: int | None,
                  progress: Callable[[int, int], Any] | None) -> list[dict]:
    """Every start's forecast, in order: on every core where processes fork (their rules are the parent's), else
    here."""
    import multiprocessing as mp
    total = len(starts)
    workers = default_workers() if workers is None else max(1, int(workers))
    rows: list[dict] = []

    def took(row: dict) -> None:
        rows.append(row)
        if progress:
            progress(len(rows), total)

    fork = sys.platform.startswith("linux") and "fork" in mp.get_all_start_methods()
    if workers > 1 and total > 1 and fork:
        from concurrent.futures import ProcessPoolExecutor
        with warnings.catch_warnings():
            # forking from a notebook kernel (which has threads) warns on Python 3.12+; the children run the core
            warnings.filterwarnings("ignore", message=r".*fork\(\).*", category=DeprecationWarning)
            with ProcessPoolExecutor(min(workers, total), mp_context=mp.get_context("fork"),
                                     initializer=_worker_init, initargs=((rules, policy, fights),)) as ex:
                for row in ex.map(_worker_row, starts, chunksize=2):
                    took(row)
        return rows
    for seq, state in starts:
        took(_forecast_row(rules, policy, fights, seq, state))
    return rows


# ---------------------------------------------------------------- beside what happened

def _beside(forecasts: list[dict], f: Mapping[str, pd.DataFrame]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The fights and the delvers' frames: each forecast beside the fight as the frames tell it."""
    enc = f["encounters"].set_index("encounter")
    h = f["hearts"]
    h = h[h["side"] == "party"].assign(fight=fight_of_hearts(h[h["side"] == "party"], f["encounters"]))
    fell = h[h["down"] | h["death_save"] | h["death"]].groupby(["fight", "who"], observed=True).size()
    died = h[h["death"]].groupby(["fight", "who"], observed=True).size()
    fight_rows, delver_rows = [], []
    for r in forecasts:
        number = r["encounter"]
        e = enc.loc[number] if number in enc.index else None
        row = {"encounter": number, "start_seq": r["seq"],
               "name": None if e is None else e["name"], "session": None if e is None else e["session"],
               "foes": [] if e is None else list(e["foe_kinds"]), "refused": r.get("refused")}
        party = r.get("party") or []
        dropped = [bool(fell.get((number, n), 0)) for n in party]
        deaths = [bool(died.get((number, n), 0)) for n in party]
        for k in ("p_any_drop", "p_any_death", "p_win", "p_wipe", "rounds_median", "rounds_p90"):
            row[k] = r.get(k)
        row.update(any_drop=any(dropped), any_death=any(deaths),
                   won=bool(e is not None and e["ended"] and e["foes"] > 0 and e["vanquished"] >= e["foes"]),
                   wiped=bool(party) and all(deaths), rounds=None if e is None else e["rounds"],
                   ended=bool(e is not None and e["ended"]))
        fight_rows.append(row)
        for i, n in enumerate(party):
            delver_rows.append({"encounter": number, "who": n, "p_drop": r["p_drop"][i], "p_death": r["p_death"][i],
                                "dropped": dropped[i], "died": deaths[i]})
    fights = pd.DataFrame(fight_rows, columns=[
        "encounter", "start_seq", "name", "session", "foes", "refused", "p_any_drop", "p_any_death", "p_win",
        "p_wipe", "rounds_median", "rounds_p90", "any_drop", "any_death", "won", "wiped", "rounds", "ended"])
    for col in ("encounter", "start_seq", "session", "rounds"):
        fights[col] = pd.array(fights[col], dtype="Int64")
    for col in ("p_any_drop", "p_any_death", "p_win", "p_wipe", "rounds_median", "rounds_p90"):
        fights[col] = fights[col].astype(float)
    for col in ("any_drop", "any_death", "won", "wiped", "ended"):
        fights[col] = fights[col].astype(bool)
    fights["name"] = pd.array(fights["name"], dtype="string")
    fights["refused"] = pd.array(fights["refused"], dtype="string")
    delvers = pd.DataFrame(delver_rows, columns=["encounter", "who", "p_drop", "p_death", "dropped", "died"])
    delvers["encounter"] = pd.array(delvers["encounter"], dtype="Int64")
    delvers["who"] = pd.Categorical(delvers["who"])
    for col in ("p_drop", "p_death"):
        delvers[col] = delvers[col].astype(float)
    for col in ("dropped", "died"):
        delvers[col] = delvers[col].astype(bool)
    return fights, delvers


# ---------------------------------------------------------------- progress

def _auto_bar() -> Callable[[int, int], None]:
    """A bar in the notebook inside a Jupyter kernel, a line on stderr anywhere else."""
    shell = sys.modules.get("IPython")
    ip = shell.get_ipython() if shell is not None and hasattr(shell, "get_ipython") else None
    if ip is not None and getattr(ip, "kernel", None) is not None:
        from IPython.display import HTML, display
        handle = None

        def show(done: int, total: int) -> None:
            nonlocal handle
            body = HTML(f'<progress value="{done}" max="{total}"></progress> {done:,} of {total:,} fights forecast')
            if handle is None:
                handle = display(body, display_id=True)
            else:
                handle.update(body)
        return show

    def line(done: int, total: int, width: int = 30) -> None:
        out = sys.stderr
        final = done >= total
        if not final and not getattr(out, "isatty", lambda: False)():
            return
        filled = int(width * done / total) if total else width
        out.write(f"\rforecasts [{'#' * filled}{'-' * (width - filled)}] {done:,}/{total:,}" + ("\n" if final else ""))
        out.flush()
    return line
