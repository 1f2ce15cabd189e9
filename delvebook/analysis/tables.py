"""The frames' columns and types: the rows the collectors gathered (``delvebook.core.collect``) made into typed pandas
frames, each column's type chosen so that pandas' own ``to_parquet`` writes it (lists as lists, mappings as JSON): the
events frame's from the events' declarations (``typed_columns``). Column names read well in SQL: none is a word
DuckDB reserves (the game clock is ``clock``, a damage's dealer ``dealer``)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ..core.events import REDO, UNDO, Standing
from ..core.model import STATUS_DEAD
from ..core.roles import SIDES
from .typed_columns import column_types, declared_columns, json_column

__all__ = ["category", "integers", "boolean", "timestamps", "events_frame", "rolls_frame", "hearts_frame",
           "xp_frame", "damage_frame", "luck_frame", "encounters_frame", "fight_of_hearts", "levels_frame"]


def levels_frame(rules) -> pd.DataFrame:
    """The XP each level starts at, from the campaign's rules (house rules included)."""
    items = sorted((int(lv), int(xp)) for lv, xp in rules.level_thresholds.items())
    return pd.DataFrame({"level": pd.array([lv for lv, _ in items], dtype="Int64"),
                         "xp": pd.array([xp for _, xp in items], dtype="Int64")})


def category(values) -> pd.Categorical:
    return pd.Categorical(values)


def integers(values) -> pd.array:
    return pd.array(values, dtype="Int64")


def boolean(values) -> pd.array:
    return pd.array(values, dtype="boolean")


def timestamps(values) -> pd.Series:
    return pd.to_datetime(pd.Series(values, dtype=object), utc=True, format="ISO8601").astype("datetime64[ns, UTC]")


_EVENT_FIXED = frozenset({"seq", "kind", "v", "at", "ts", "session", "encounter", "round", "replaces", "undoes",
                          "redoes", "changes", "rolls", "args", "luck", "amended", "actor"})
"""The frame's own columns: the fields every event has (and its actor; ``target`` is the first of its ``targets``)."""


def events_frame(log: list[dict], standing: Standing) -> pd.DataFrame:
    """One row per event of the log, each action marked as History's ``standing`` says it stands."""
    n = len(log)
    # every field as a column, in order of first appearance: one pass over the events (a field no declaration of
    # its kind names, on a line a hand wrote, is left out: only what is declared is typed)
    fields: dict[str, list] = {}
    columns = column_types()
    declared: dict[str, Any] = {}  # the events frame's columns from declared fields, in order of first appearance
    for i, e in enumerate(log):
        kind = e.get("kind")
        for k, v in e.items():
            col = fields.get(k)
            if col is None:
                col = fields[k] = [None] * n
            col[i] = v
            if k not in _EVENT_FIXED:
                column = columns.get((kind, k))
                if column is not None:
                    got = declared.get(column.name)
                    if got is None:
                        got = declared[column.name] = (column, [None] * n)
                    got[1][i] = v
    none = [None] * n
    g = lambda key: fields.get(key, none)  # noqa: E731
    kinds = g("kind")
    seqs = g("seq")
    changes = g("changes")
    status = []
    for s, k, ch in zip(seqs, kinds, changes):
        if k == UNDO or k == REDO:
            status.append(k)
        elif ch is None:
            status.append("note")
        elif standing.in_force(s):
            status.append("in force")
        elif standing.replaced_by(s) is not None:
            status.append("replaced")
        else:
            status.append("undone")
    actor, targets = g("actor"), g("targets")
    luck_ = g("luck")
    df = pd.DataFrame({
        "seq": np.asarray(seqs, dtype=np.int64),
        "kind": category(kinds),
        "v": integers(g("v")),
        "clock": integers(g("at")),
        "ts": timestamps(g("ts")),
        "session": integers(g("session")),
        "encounter": integers(g("encounter")),
        "round": integers(g("round")),
        "actor": category([a if isinstance(a, str) else None for a in actor]),
        "target": category([t[0] if isinstance(t, list) and t and isinstance(t[0], str) else None for t in targets]),
        "in_force": np.asarray([st == "in force" or st == "note" for st in status], dtype=bool),
        "status": pd.Categorical(status, categories=["in force", "undone", "replaced", "undo", "redo", "note"]),
        "replaced_by": integers([standing.replaced_by(s) for s in seqs]),
        "undone_by": integers([standing.undone_by(s) if st == "undone" else None for s, st in zip(seqs, status)]),
        "replaces": integers(g("replaces")),
        "undoes": integers(g("undoes")),
        "redoes": integers(g("redoes")),
        "luck_player": category([lk.get("player") if isinstance(lk, dict) else None for lk in luck_]),
        "amended": np.asarray([bool(a) for a in g("amended")], dtype=bool),
        "n_rolls": np.asarray([len(r) if r else 0 for r in g("rolls")], dtype=np.int64),
        "n_changes": np.asarray([len(c) if c else 0 for c in changes], dtype=np.int64),
        "args": json_column(g("args")),
        "rolls": json_column(g("rolls")),
        "changes": json_column(changes),
    })
    cols: dict[str, Any] = {}
    for column, values in declared.values():
        for name, array in declared_columns(column, values).items():
            if name in df.columns or name in cols:
                raise ValueError(f"two columns of the events frame are named {name!r}: give one of the fields a "
                                 f"column of its own (declared.field(column=...))")
            cols[name] = array
    if cols:
        df = pd.concat([df, pd.DataFrame(cols, index=df.index)], axis=1)
    return df


def rolls_frame(R: dict) -> pd.DataFrame:
    return pd.DataFrame({
        "seq": np.asarray(R["seq"], dtype=np.int64),
        "session": integers(R["session"]),
        "encounter": integers(R["encounter"]),
        "kind": category(R["kind"]),
        "roll": category(R["roll"]),
        "who": category(R["who"]),
        "player": category(R["player"]),
        "why": category(R["why"]),
        "expr": category(R["expr"]),
        "die": np.asarray(R["die"], dtype=np.int64),
        "sides": np.asarray(R["sides"], dtype=np.int64),
        "face": np.asarray(R["face"], dtype=np.int64),
        "kept": np.asarray(R["kept"], dtype=bool),
        "luck": np.asarray(R["luck"], dtype=bool),
        "sign": np.asarray(R["sign"], dtype=np.int64),
        "luck_applied": np.asarray(R["luck_applied"], dtype=np.int64),
        "base_total": integers(R["base_total"]),
        "total": integers(R["total"]),
        "success": boolean(R["success"]),
    })


def hearts_frame(H: dict) -> pd.DataFrame:
    hearts_ = integers(H["hearts"])
    change = integers(H["change"])
    return pd.DataFrame({
        "seq": np.asarray(H["seq"], dtype=np.int64),
        "ts": timestamps(H["ts"]),
        "clock": integers(H["at"]),
        "session": integers(H["session"]),
        "encounter": integers(H["encounter"]),
        "round": integers(H["round"]),
        "kind": category(H["kind"]),
        "who": category(H["who"]),
        "side": pd.Categorical(H["side"], categories=["party", "foes"]),
        "foe_kind": category(H["foe_kind"]),
        "player": category(H["player"]),
        "hearts": hearts_,
        "max_hearts": integers(H["max_hearts"]),
        "change": change,
        "status": category(H["status"]),
        "source": category(H["source"]),
        "down": np.asarray((hearts_ == 0).fillna(False) & (change.fillna(0) < 0), dtype=bool),
        "death": np.asarray(H["death"], dtype=bool),
        "death_save": np.asarray(H["death_save"], dtype=bool),
        "death_save_success": boolean(H["death_save_success"]),
    })


def xp_frame(X: dict) -> pd.DataFrame:
    return pd.DataFrame({
        "seq": np.asarray(X["seq"], dtype=np.int64),
        "ts": timestamps(X["ts"]),
        "clock": integers(X["at"]),
        "session": integers(X["session"]),
        "encounter": integers(X["encounter"]),
        "kind": category(X["kind"]),
        "who": category(X["who"]),
        "player": category(X["player"]),
        "amount": np.asarray(X["amount"], dtype=np.int64),
        "award": integers(X["award"]),
        "reason": category(X["reason"]),
        "source": category(X["source"]),
        "pool_before": integers(X["pool_before"]),
        "pool_after": integers(X["pool_after"]),
        "xp": np.asarray(X["xp"], dtype=np.int64),
        "level": integers(X["level"]),
        "level_up": np.asarray(X["level_up"], dtype=bool),
    })


def damage_frame(D: dict) -> pd.DataFrame:
    df = pd.DataFrame({
        "seq": np.asarray(D["seq"], dtype=np.int64),
        "session": integers(D["session"]),
        "encounter": integers(D["encounter"]),
        "round": integers(D["round"]),
        "kind": category(D["kind"]),
        "dealer": category(D["by"]),
        "dealer_side": pd.Categorical(D["by_side"], categories=list(SIDES)),
        "target": category(D["target"]),
        "target_side": pd.Categorical(D["target_side"], categories=list(SIDES)),
        "source": category(D["source"]),
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


def luck_frame(L: dict) -> pd.DataFrame:
    df = pd.DataFrame({
        "seq": np.asarray(L["seq"], dtype=np.int64),
        "session": integers(L["session"]),
        "encounter": integers(L["encounter"]),
        "kind": category(L["kind"]),
        "player": category(L["player"]),
        "roll": category(L["roll"]),
        "who": category(L["who"]),
        "sign": integers(L["sign"]),
        "face": integers(L["face"]),
        "total_before": integers(L["total_before"]),
        "total_after": integers(L["total_after"]),
        "outcome_before": category(L["outcome_before"]),
        "outcome_after": category(L["outcome_after"]),
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


def encounters_frame(encs: dict, dmg: pd.DataFrame, hts: pd.DataFrame) -> pd.DataFrame:
    rows = list(encs.values())
    df = pd.DataFrame({
        "encounter": integers([r["encounter"] for r in rows]),
        "name": category([r["name"] for r in rows]),
        "session": integers([r["session"] for r in rows]),
        "start_seq": integers([r["start_seq"] for r in rows]),
        "end_seq": integers([r["end_seq"] for r in rows]),
        "start_ts": timestamps([r["start_ts"] for r in rows]),
        "end_ts": timestamps([r["end_ts"] for r in rows]),
        "rounds": integers([r["rounds"] for r in rows]),
        "foes": integers([len(r["foe_names"]) for r in rows]),
        "foe_kinds": pd.Series([[str(k) for k in r["foe_kinds"]] for r in rows], dtype=object),
        "xp": integers([r["xp"] for r in rows]),
        "ended": np.asarray([r["ended"] for r in rows], dtype=bool),
    })
    idx = df["encounter"]
    d = dmg[dmg["encounter"].notna()]

    def total(mask, col="dealt"):
        s = d[mask].groupby(d.loc[mask, "encounter"].astype("int64"))[col].sum()
        return integers(idx.map(s).fillna(0).astype("int64"))
    df["party_dealt"] = total(d["dealer_side"] == "party")
    df["party_taken"] = total(d["target_side"] == "party")
    df["foes_dealt"] = total(d["dealer_side"] == "foes")
    df["foes_taken"] = total(d["target_side"] == "foes")
    df["armor_absorbed"] = total(d["target_side"] == "party", "absorbed")
    h = hts[hts["seq"] > 0]
    enc_h = fight_of_hearts(h, df)

    def count(mask):
        s = mask.groupby(enc_h).sum()
        return integers(idx.map(s).fillna(0).astype("int64"))
    party = h["side"] == "party"
    df["vanquished"] = count((h["side"] == "foes") & (h["status"].astype(object) == STATUS_DEAD)
                             & h["death"])
    df["delvers_down"] = count(party & h["down"])
    df["deaths"] = count(party & h["death"])
    df["death_saves"] = count(party & h["death_save"])
    return df


def fight_of_hearts(h: pd.DataFrame, encounters: pd.DataFrame) -> pd.Series:
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
