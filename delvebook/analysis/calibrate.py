"""Was the forecast right? Each fight of a campaign forecast again from the state at its start, by the documented
default and by this party's habits, beside what happened: the forecast's check (``forecast.check``) as pandas frames.

``calibration(camp)`` walks the log once (``forecast.walk``: the state just after each fight in force began, what
happened in it: whether a delver dropped below 1 heart, whether one died (a death save failed after the fight
counts, as in the frames), whether the party won (every foe vanquished), its rounds), fits the party's habits once
per session on every other session's fights (``forecast.habits.held_out``) and plays the danger forecast from each
start by both policies. For each chance the forecast gives, the fights are binned by the forecast (0-10%, 10-20%,
...) and each bin's share that happened is given with its 95% Wilson interval (the reliability table), with the
Brier score (the mean squared gap between forecast and outcome, 0 best) of each policy beside the score of always
forecasting the campaign's base rate. The habits are scored on fights they were not fitted on (leave one session
out): fitting and scoring on the same fights would flatter them.

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
import sys
import time
import weakref
from pathlib import Path
from typing import Any, Callable, Mapping

import pandas as pd

from ..campaign import Campaign
from ..core.cache import cache_folder
from ..forecast import Policy, wilson
from ..forecast.check import FIGHTS, POLICIES, QUANTITIES, Check, plan, score
from ..store.careful import read_small
from .fold import open_campaign, shared_frames

__all__ = ["calibration", "Calibration", "QUANTITIES", "POLICIES", "FIGHTS", "cache_folder"]

_FORMAT = 2  # the cache file's layout
_MEMO: "weakref.WeakKeyDictionary[Campaign, tuple[str, dict]]" = weakref.WeakKeyDictionary()
_CODE = ("engine", "forecast", "core")  # the code that walks the log and plays the fights
_FRAME = {"drop": "delvers", "death": "delvers", "any_death": "fights", "win": "fights"}
_COLUMNS = {"drop": ("p_drop", "dropped"), "death": ("p_death", "died"), "any_death": ("p_any_death", "any_death"),
            "win": ("p_win", "won")}


# ---------------------------------------------------------------- the result

class Calibration:
    """Each fight's forecasts beside what happened (``fights``: one row a fight; ``delvers``: one row per delver of
    each fight; the default policy's chances as ``p_*``, the habits' as ``habits_p_*``), the ``reliability`` table
    (per ``policy``, chance and bin: ``n``, mean ``forecast``, ``observed`` share and its 95% interval ``lo``..``hi``),
    the ``brier`` table (per ``policy`` and chance: ``n``, ``brier``, ``base_rate``, ``reference``: the score of
    always forecasting the base rate, ``skill``: 1 - brier / reference), the ``policies`` checked (``"default"``, and
    ``"habits"`` when the party's habits play otherwise), the default ``policy`` in words, the ``habits`` learned from
    every fight in words, and ``played``: how the campaign's fights were played where the policy makes a choice."""

    def __init__(self, fights: pd.DataFrame, delvers: pd.DataFrame, *, policies: list[str], policy: list[str],
                 habits: list[str], played: list[str], fights_per_forecast: int, seconds: float,
                 cache: Path | None, from_cache: bool):
        self.fights = fights
        self.delvers = delvers
        self.policies = policies
        self.policy = policy
        self.habits = habits
        self.played = played
        self.fights_per_forecast = fights_per_forecast
        self.seconds = seconds
        self.cache = cache
        self.from_cache = from_cache
        self.scores = {w: {q: score(list(zip(*(self.pairs(q, w)[c] for c in ("forecast", "happened")))))
                           for q in QUANTITIES} for w in policies}
        self.reliability = _reliability(self.scores)
        self.brier = _brier(self.scores)

    def pairs(self, quantity: str, policy: str = "default") -> pd.DataFrame:
        """The (``forecast``, ``happened``) pairs of one chance (a key of ``QUANTITIES``) by ``policy``, over the
        fights forecast that ended."""
        p, y = _COLUMNS[quantity]
        df = getattr(self, _FRAME[quantity])
        col = p if policy == "default" else f"habits_{p}"
        df = df[df[col].notna() & df["ended"]]
        return pd.DataFrame({"forecast": df[col].astype(float).to_numpy(), "happened": df[y].astype(bool).to_numpy()})

    def summary(self) -> list[str]:
        """What the calibration shows, a line each: every chance's forecast by each policy against what happened,
        the rounds."""
        f = self.fights
        n = int(f["p_win"].notna().sum())
        both = len(self.policies) > 1
        lines = [f"{n:,} fights forecast again from the state at their start, {self.fights_per_forecast} simulated "
                 "fights each" + (" by the documented default and by this party's habits (each fight by the habits "
                                  "learned from the other sessions' fights)" if both else "")
                 + ", beside what happened in them."]
        for key, (words, unit) in QUANTITIES.items():
            s = self.scores["default"][key]
            if not s.n:
                continue
            said = []
            for w in self.policies:
                got = self.pairs(key, w)
                mean = got["forecast"].mean()
                lo, hi = wilson(int(got["happened"].sum()), len(got))
                verdict = ("more often than it happened" if mean > hi else "less often than it happened"
                           if mean < lo else "about as often as it happened")
                b = self.scores[w][key]
                said.append(f"{'by ' + POLICIES[w] if both else 'the forecast'} said {_pct(mean)} on average, "
                            f"{verdict}, Brier score {b.brier:.3f}, in {b.on_diagonal} of {len(b.bins)} bins within "
                            "the 95% interval of what happened")
            best = min(self.policies, key=lambda w: self.scores[w][key].brier)
            lines.append(f"{words[0].upper() + words[1:]}: happened {_pct(s.base_rate)} of the time ({s.n:,} "
                         f"{'delvers in fights' if unit == 'delvers' else 'fights'}); " + "; ".join(said)
                         + f"; always saying {_pct(s.base_rate)} scores {s.reference:.3f}"
                         + (f" ({'the habits' if best == 'habits' else 'the default'} score best"
                            + (", better than the base rate)." if self.scores[best][key].skill > 0
                               else ", no better than the base rate).") if both else
                            (" (better than the base rate)." if s.skill > 0 else " (no better than the base rate).")))
        played = f[f["p_win"].notna() & f["rounds"].notna() & f["ended"]]
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


def _reliability(scores: Mapping) -> pd.DataFrame:
    rows = [{"policy": w, "quantity": q, "bin_lo": b.lo, "bin_hi": b.hi, "n": b.n, "forecast": b.forecast,
             "observed": b.observed, "lo": b.ci_lo, "hi": b.ci_hi}
            for w, by in scores.items() for q, s in by.items() for b in s.bins]
    return pd.DataFrame(rows, columns=["policy", "quantity", "bin_lo", "bin_hi", "n", "forecast", "observed", "lo",
                                       "hi"])


def _brier(scores: Mapping) -> pd.DataFrame:
    rows = [{"policy": w, "quantity": q, "n": s.n, "brier": s.brier, "base_rate": s.base_rate,
             "reference": s.reference, "skill": s.skill} for w, by in scores.items() for q, s in by.items()]
    return pd.DataFrame(rows).set_index(["policy", "quantity"])


# ---------------------------------------------------------------- the entry point

def calibration(x: Any, *, fights: int = FIGHTS, policy: Policy | None = None,
                progress: Callable[[int, int], Any] | bool | None = None, workers: int | None = None,
                cache: bool | str | os.PathLike = True) -> Calibration:
    """Each fight in force of the campaign (a Campaign or a folder) forecast again from the state at its start, by
    the documented default and by the party's held-out habits, beside what happened, with the reliability tables and
    the Brier scores (see ``Calibration``).

    ``fights``: simulated fights a forecast; ``policy``: the default the habits are compared with (the forecast's
    documented one); ``progress``: called with (forecasts done, forecasts in all) as they finish (True: a bar in a
    notebook, a line on stderr elsewhere); ``workers``: processes (default: every core); ``cache``: False to play
    every fight again, a folder to keep the cache in, True for the user's cache folder (``cache_folder()``)."""
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
            raw = _checked(camp, fights, policy, workers, progress)
            _store(file, raw)
        elif progress:
            progress(len(raw["forecasts"]), len(raw["forecasts"]))
        if not opened:
            _MEMO[camp] = (key, raw)
        f = shared_frames(camp, keep=not opened)
    finally:
        if opened:
            camp.close()
    fights_df, delvers_df = _beside(raw, f)
    return Calibration(fights_df, delvers_df, policies=["default"] + (["habits"] if raw["learns"] else []),
                       policy=policy.describe(), habits=raw["learned"], played=_played_lines(raw["played"], f),
                       fights_per_forecast=raw["fights_per_forecast"], seconds=time.perf_counter() - began,
                       cache=file, from_cache=from_cache)


def _checked(camp: Campaign, fights: int, policy: Policy, workers: int | None,
             progress: Callable[[int, int], Any] | None) -> dict:
    """The check played (``forecast.check``), as the plain data the cache keeps."""
    p = plan(camp, policy)
    check = Check(camp.rules, p, fights=fights, workers=workers, progress=progress).run()
    return {"format": _FORMAT, "fights_per_forecast": fights, "played": p.walk.played, "learns": p.learns,
            "learned": p.learned.describe(), "forecasts": check.rows["default"], "habits": check.rows["habits"],
            "happened": [{"seq": r.start_seq, "encounter": r.number, "outcome": r.outcome,
                          "dropped": [r.dropped[n] for n in r.party], "died": [r.died[n] for n in r.party],
                          "party": r.party} for r in p.fights]}


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
_HAPPENED = {"seq", "encounter", "outcome", "dropped", "died", "party"}


def _whole(raw: Any) -> bool:
    """Whether a cache file holds what this module writes, every value of the type and in the range it writes: it
    is read as untrusted input (a file cut short or edited, ``p_win: 7.5``, text where a number goes, is a miss,
    and its fights are played again)."""
    try:
        played, forecasts, habits, happened = raw["played"], raw["forecasts"], raw["habits"], raw["happened"]
        return (raw["format"] == _FORMAT and _count(raw["fights_per_forecast"]) and raw["fights_per_forecast"] > 0
                and isinstance(played, dict) and set(played) == _PLAYED and isinstance(played["actions"], dict)
                and all(_count(v) for k, v in played.items() if k != "actions")
                and all(isinstance(k, str) and _count(v) for k, v in played["actions"].items())
                and isinstance(raw["learns"], bool) and isinstance(raw["learned"], list)
                and all(isinstance(x, str) for x in raw["learned"])
                and isinstance(forecasts, list) and isinstance(habits, list) and isinstance(happened, list)
                and len(forecasts) == len(habits) == len(happened)
                and all(_row(r) for r in forecasts) and all(_row(r) for r in habits)
                and all(map(_happened, happened))
                and len({r["seq"] for r in forecasts}) == len(forecasts))
    except (TypeError, KeyError, AttributeError):
        return False


def _count(v: Any) -> bool:
    return type(v) is int and 0 <= v <= 2 ** 53


def _chance(v: Any) -> bool:
    return type(v) in (int, float) and 0 <= v <= 1  # (NaN is no chance: every comparison with it is false)


def _happened(h: Any) -> bool:
    """What happened in one fight as ``_raw`` writes it: the party, and for each whether they dropped and died."""
    if not isinstance(h, dict) or set(h) != _HAPPENED or not _count(h["seq"]):
        return False
    party = h["party"]
    return (isinstance(party, list) and all(isinstance(n, str) for n in party)
            and (h["encounter"] is None or _count(h["encounter"])) and (h["outcome"] is None or isinstance(h["outcome"], str))
            and all(isinstance(h[k], list) and len(h[k]) == len(party) and all(type(x) is bool for x in h[k])
                    for k in ("dropped", "died")))


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


# ---------------------------------------------------------------- how the fights were played

def _played_lines(p: dict, f: Mapping[str, pd.DataFrame]) -> list[str]:
    """How the campaign's fights were played, against the policy, in words (only where they differ)."""
    enc = f["encounters"]
    lines = []
    ended = enc[enc["ended"]]
    left = int(((ended["vanquished"] < ended["foes"]) & (ended["foes"] > 0)).sum())
    if left:
        lines.append(f"Leaving a fight: {left:,} of {len(ended):,} fights ({left / len(ended):.0%}) ended with foes "
                     "still standing (the party withdrew, or kept a foe as a prisoner); the documented default fights "
                     "on, the party's habits leave when this party leaves.")
    for who, n, k in (("foes'", p["foe_attacks"], p["foe_as_policy"]),
                      ("delvers'", p["delver_attacks"], p["delver_as_policy"])):
        if n:
            lines.append(f"Whom to attack: {k / n:.0%} of the {who} {n:,} attacks with a choice of target went "
                         "where the documented default sends them.")
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


# ---------------------------------------------------------------- beside what happened

def _beside(raw: Mapping, f: Mapping[str, pd.DataFrame]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The fights and the delvers' frames: each fight's forecasts beside what happened in it (the walk's reading,
    kept with the forecasts), named as the encounters frame names it."""
    enc = f["encounters"].set_index("encounter")
    fight_rows, delver_rows = [], []
    for r, h, g in zip(raw["forecasts"], raw["happened"], raw["habits"]):
        number = r["encounter"]
        e = enc.loc[number] if number in enc.index else None
        row = {"encounter": number, "start_seq": r["seq"],
               "name": None if e is None else e["name"], "session": None if e is None else e["session"],
               "foes": [] if e is None else list(e["foe_kinds"]), "refused": r.get("refused")}
        for k in ("p_any_drop", "p_any_death", "p_win", "p_wipe", "rounds_median", "rounds_p90"):
            row[k] = r.get(k)
            row[f"habits_{k}"] = g.get(k)
        party, dropped, deaths = h["party"], h["dropped"], h["died"]
        row.update(any_drop=any(dropped), any_death=any(deaths), won=h["outcome"] == "won",
                   wiped=h["outcome"] == "wiped", rounds=None if e is None else e["rounds"],
                   ended=h["outcome"] is not None)
        fight_rows.append(row)
        by_name = {n: i for i, n in enumerate(r.get("party") or ())}
        by_name_h = {n: i for i, n in enumerate(g.get("party") or ())}
        for i, n in enumerate(party):
            if n not in by_name:
                continue
            delver_rows.append({"encounter": number, "who": n, "p_drop": r["p_drop"][by_name[n]],
                                "p_death": r["p_death"][by_name[n]],
                                "habits_p_drop": g["p_drop"][by_name_h[n]] if n in by_name_h else None,
                                "habits_p_death": g["p_death"][by_name_h[n]] if n in by_name_h else None,
                                "dropped": dropped[i], "died": deaths[i], "ended": h["outcome"] is not None})
    chances = ("p_any_drop", "p_any_death", "p_win", "p_wipe", "rounds_median", "rounds_p90")
    fights = pd.DataFrame(fight_rows, columns=[
        "encounter", "start_seq", "name", "session", "foes", "refused", *chances,
        *(f"habits_{k}" for k in chances), "any_drop", "any_death", "won", "wiped", "rounds", "ended"])
    for col in ("encounter", "start_seq", "session", "rounds"):
        fights[col] = pd.array(fights[col], dtype="Int64")
    for col in (*chances, *(f"habits_{k}" for k in chances)):
        fights[col] = fights[col].astype(float)
    for col in ("any_drop", "any_death", "won", "wiped", "ended"):
        fights[col] = fights[col].astype(bool)
    fights["name"] = pd.array(fights["name"], dtype="string")
    fights["refused"] = pd.array(fights["refused"], dtype="string")
    delvers = pd.DataFrame(delver_rows, columns=["encounter", "who", "p_drop", "p_death", "habits_p_drop",
                                                 "habits_p_death", "dropped", "died", "ended"])
    delvers["encounter"] = pd.array(delvers["encounter"], dtype="Int64")
    delvers["who"] = pd.Categorical(delvers["who"])
    for col in ("p_drop", "p_death", "habits_p_drop", "habits_p_death"):
        delvers[col] = delvers[col].astype(float)
    for col in ("dropped", "died", "ended"):
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
