"""Prepared encounters in the Keeper panel (``encounters`` in prepare.js): the list (each to build on, forecast, start
or drop), and the encounter builder: its foes with one more or one less in a click, the delvers sitting it out, the
forecast for the party as it stands refining live with its progress and Cancel (by how this party plays, learned
from its fights and said in words, or by the documented default one click away; the other policy's chance beside
where they differ by more than ``FEW``), the check of both against the campaign's fights (Brier scores, reliability
bins), the tuner with each count's forecast, Save and Start fight. The forecasts, the tuner and the check run
between the table's messages (``table.forecasting`` writes ``ui.forecast``, ``ui.tuning`` and
``ui.builder["check"]``); this module only lays them out."""

from __future__ import annotations

from typing import Any, Mapping

from ..engine import queries
from ..forecast.tune import TARGETS
from ..narrate import plural
from ..narrate.preparing import foes_text
from .shared import UI, field_, field_error, foe_field, option

__all__ = ["encounters_section", "builder_view", "forecast_view", "check_view", "tuning_view", "draft_foes", "FEW"]


def draft_foes(builder: Mapping) -> list[dict]:
    """The builder's foes as a prepared encounter writes them: ``[{foe, count}]``."""
    return [{"foe": f, "count": n} for f, n in builder.get("foes", ()) if n > 0]


def encounters_section(camp, ui: UI) -> dict:
    where = "keeper:encounters"
    found = queries.encounters(camp.state, camp.rules)
    fighting = camp.state["encounter"] is not None
    rows = []
    for eid, enc in found.items():
        rows.append({"id": eid, "name": str(enc.get("name") or eid), "foes": foes_text(enc.get("foes"), camp),
                     "note": str(enc.get("note") or ""), "own": found.by_table(eid),
                     "open": {"do": "builder_open", "id": eid, "where": where},
                     "start": None if fighting else {"do": "start_fight", "prepared": eid, "where": where},
                     "remove": {"do": "remove_encounter", "id": eid, "where": where}})
    return {"where": where, "rows": rows, "new": {"do": "builder_open", "where": where},
            "builder": builder_view(camp, ui) if ui.builder is not None else None,
            "fighting": "a fight is running: end it to start another" if fighting else ""}


def builder_view(camp, ui: UI) -> dict:
    b = ui.builder or {}
    where = "keeper:builder"
    types = queries.foe_types(camp.state, camp.rules)
    foes = []
    for fid, n in b.get("foes", ()):
        name = str(types[fid].get("name", fid)) if fid in types else f"{fid} (no longer in the bestiary)"
        foes.append({"id": fid, "name": name, "count": n,
                     "more": {"do": "builder_foe", "foe": fid, "delta": 1, "where": where},
                     "fewer": {"do": "builder_foe", "foe": fid, "delta": -1, "where": where}})
    out = set(b.get("out", ()))
    sitting = [{"name": n, "out": n in out, "intent": {"do": "builder_out", "who": n, "where": where}}
               for n in camp.state["seats"]]
    form = {"id": "builder", "fields": [field_("name", "text", "name", b.get("name", ""), required=True,
                                               hint="The hag's hut"),
                                        field_("note", "text", "note", b.get("note", ""),
                                               hint="what the foes plan (the keeper's only)")],
            "submit": [{"label": "Save encounter", "intent": {"do": "builder_save", "where": where}}]}
    if camp.state["encounter"] is None and foes:
        form["submit"].append({"label": "Start fight", "intent": {"do": "builder_start", "where": where}})
    add = {"id": "builder_add", "fields": [foe_field(camp, "foe", "add"),
                                           field_("count", "number", "how many", 1, min=1)],
           "submit": {"label": "Add", "intent": {"do": "builder_add", "where": where}}}
    tune_foes = [option(f["id"], f["name"]) for f in foes]
    tune = {"id": "tune", "fields": [
        field_("foe", "choice", "how many", tune_foes[0]["value"], tune_foes) if tune_foes else
        foe_field(camp, "foe", "how many"),
        field_("target", "choice", "for", "nobody dies",
               [option(t, f"{t} ({TARGETS[t].words})") for t in TARGETS])],
        "submit": {"label": "Tune", "intent": {"do": "tune", "where": where}}}
    dark = {"label": "in darkness" if b.get("dark") else "lit", "on": bool(b.get("dark")),
            "intent": {"do": "builder_dark", "where": where}}
    return {"where": where, "title": f"Encounter: {b['name']}" if b.get("id") else "A new encounter",
            "id": b.get("id"), "foes": foes, "sitting": sitting, "dark": dark,
            "form": field_error(form, ui, where), "add": field_error(add, ui, where),
            "forecast": forecast_view(ui.forecast, bool(foes), where),
            "check": check_view(b.get("check"), ui.forecast, where),
            "tune": field_error(tune, ui, where), "tuning": tuning_view(ui.tuning, where),
            "close": {"do": "builder_close", "where": where}}


FEW = 0.05
"""Two policies' chances are set side by side where they differ by more than this (5 points)."""


def _est(e: Mapping | None) -> str:
    if not e:
        return ""
    return f"{e['p'] * 100:.0f}% ({e['lo'] * 100:.0f}–{e['hi'] * 100:.0f})"


def _beside(mine: Mapping | None, theirs: Mapping | None, label: str) -> str:
    """The other policy's chance in words where it differs by more than ``FEW`` ('38% if it fights on'; '38%' with
    no label), else ''."""
    if not mine or not theirs or abs(mine["p"] - theirs["p"]) <= FEW:
        return ""
    return f"{theirs['p'] * 100:.0f}%" + (f" {label}" if label else "")


def _policies(f: Mapping, where: str) -> dict | None:
    """The habits learned (in words, with what they rest on) and the switch between the two policies."""
    h = f.get("habits")
    if not h:
        return None
    labels = f.get("labels") or {}
    out = {"title": (f"How this party plays, learned from {h['fights']:,} fights" if h["enough"] else
                     "How this party plays"), "lines": list(h["lines"]), "choices": []}
    if h["learned"]:
        out["choices"] = [{"label": words, "on": f.get("policy") == which,
                           "intent": {"do": "forecast_policy", "policy": which, "where": where}}
                          for which, words in (("habits", labels.get("habits", "as this party plays")),
                                               ("default", "by the documented default"))]
    return out


def forecast_view(f: Mapping | None, has_foes: bool, where: str) -> dict:
    """The forecast's progress and numbers as the page shows them."""
    if not has_foes:
        return {"status": "empty", "text": "Add foes: the forecast for the party as it stands shows here."}
    if not f:
        return {"status": "waiting", "text": "The forecast starts…"}
    status = f.get("status")
    done, total = f.get("done", 0), f.get("total", 0)
    widest = f.get("widest")
    precision = f.get("precision") or 0.02
    points = f"±{widest * 100:.1f} points" if widest is not None and done else ""
    if status == "running":
        rate = f.get("rate") or 0
        left = f.get("left")
        pace = (f" · {rate:,.0f} fights/s" if rate else "") + (
            f" · about {left:.0f} s left" if left is not None and left >= 1 else " · nearly there" if left else "")
        text = f"{done:,} fights · {points}{pace}" if done else "playing the first fights…"
    elif status == "done":
        text = (f"done: every chance within ±{precision * 100:g} points after {done:,} fights"
                if f.get("precise") else f"{done:,} fights (the budget), {points}") + f" ({f.get('seconds', 0):.1f} s)"
    elif status == "cancelled":
        text = f"stopped after {done:,} fights, {points}" + (f": {f['why']}" if f.get("why") else "")
    else:
        text = str(f.get("why") or "the forecast could not run")
    frac = 1.0 if status == "done" else min(1.0, (precision / widest) ** 2) if widest else 0.0
    other = f.get("other") if (f.get("other") or {}).get("status") == "done" else None
    labels = f.get("labels") or {}
    mine_label = labels.get(f.get("policy"), "")
    their_label = labels.get((other or {}).get("policy"), "")
    theirs = {d["name"]: d for d in (other or {}).get("delvers", ())}
    stats = [("a death", "death"), ("wipe", "wipe"), ("the party wins", "win")]
    if (f.get("fled") or {}).get("p") or ((other or {}).get("fled") or {}).get("p"):
        stats.append(("the party leaves", "fled"))
    out = {"status": status, "text": text, "frac": frac, "done": done, "total": total,
           "delvers": [{"name": d["name"], "drops": _est(d.get("drops")), "dies": _est(d.get("dies")),
                        "drops_other": _beside(d.get("drops"), theirs.get(d["name"], {}).get("drops"), ""),
                        "dies_other": _beside(d.get("dies"), theirs.get(d["name"], {}).get("dies"), "")}
                       for d in f.get("delvers", ())],
           "heads": ["drops below 1", "dies"] if not other else
           [f"drops below 1 (· {their_label})", f"dies (· {their_label})"],
           "party": [{"label": label, "value": _est(f.get(key)),
                      "other": _beside(f.get(key), (other or {}).get(key), their_label)}
                     for label, key in stats] if done else [],
           "rounds": f.get("rounds", ""), "label": mine_label if done else "",
           "policies": _policies(f, where),
           "other_status": "" if not f.get("other") or other else
           f"then {their_label}: {f['other'].get('done', 0):,} fights…"}
    if status == "running":
        out["cancel"] = {"do": "forecast_cancel", "where": where}
    elif status in ("cancelled", "failed"):
        out["again"] = {"do": "forecast_again", "where": where}
    return out


def check_view(c: Mapping | None, f: Mapping | None, where: str) -> dict:
    """Whether to believe the forecast: the check's button, its progress, then per chance each policy's Brier score
    beside the base rate's and how many reliability bins were right, with the bins themselves (folded)."""
    learned = bool(((f or {}).get("habits") or {}).get("learned"))
    if not c or c.get("status") in ("cancelled", "failed"):
        return {"status": (c or {}).get("status", "none"),
                "text": str((c or {}).get("why") or ("stopped" if c else "")),
                "ask": {"label": "Check the forecast against this campaign's fights" + (
                    " (by both policies)" if learned else ""), "intent": {"do": "forecast_check", "where": where}}}
    if c.get("status") in ("asked", "running"):
        return {"status": "running", "text": f"forecasting {c.get('done', 0):,} of {c.get('total', 0):,} fights "
                                             "again from their start…",
                "frac": c.get("done", 0) / c["total"] if c.get("total") else 0.0,
                "cancel": {"do": "check_cancel", "where": where}}
    from ..forecast.check import POLICIES, QUANTITIES
    scores = c.get("scores") or {}
    which = [w for w in ("habits", "default") if w in scores]
    rows, bins = [], []
    for q, (words, unit) in QUANTITIES.items():
        base = scores["default"][q]
        if not base["n"]:
            continue
        best = min(which, key=lambda w: scores[w][q]["brier"])
        rows.append({"chance": words, "n": f"{base['n']:,} {'delvers in fights' if unit == 'delvers' else 'fights'}",
                     "happened": f"{base['base_rate'] * 100:.1f}%",
                     "cells": [{"policy": w, "brier": f"{scores[w][q]['brier']:.3f}",
                                "right": f"{sum(b[5] <= b[3] <= b[6] for b in scores[w][q]['bins'])} of "
                                         f"{len(scores[w][q]['bins'])} bins",
                                "best": w == best and scores[w][q]["brier"] < base["reference"]} for w in which],
                     "reference": f"{base['reference']:.3f}"})
        for w in which:
            for lo, hi, n, said, seen, ci_lo, ci_hi in scores[w][q]["bins"]:
                bins.append({"policy": POLICIES[w], "chance": words, "range": f"{lo * 100:.0f}–{hi * 100:.0f}%",
                             "n": f"{n:,}", "said": f"{said * 100:.1f}%", "happened": f"{seen * 100:.1f}%",
                             "interval": f"{ci_lo * 100:.1f}–{ci_hi * 100:.1f}%", "right": ci_lo <= said <= ci_hi})
    from ..forecast.habits import MIN_FIGHTS
    return {"status": "done", "text": f"{c.get('fights', 0):,} fights forecast again from their start, "
                                      f"{c.get('simulated', 0)} simulated each" + (
                                          "; this party's habits learned from the other sessions' fights"
                                          if "habits" in which else
                                          f"; this party's habits are scored only on sessions whose other sessions "
                                          f"hold {MIN_FIGHTS} finished fights, and none does yet" if learned else ""),
            "heads": ["chance", "happened", *(f"Brier: {POLICIES[w]}" for w in which), "always the base rate"],
            "rows": rows, "bins": bins, "ask": {"label": "Check again", "intent": {"do": "forecast_check",
                                                                                    "where": where}}}


def tuning_view(t: Mapping | None, where: str) -> dict | None:
    if not t:
        return None
    rows = [{"count": c["count"], "text": f"{c['count']}: a death {_est(c['death'])}, the party wins "
                                          f"{_est(c['win'])}, rounds {c['rounds']}",
             "meets": c["meets"]} for c in t.get("candidates", ())]
    status = t.get("status")
    name = t.get("name") or t.get("foe")
    if status == "running":
        now = t.get("now") or {}
        text = f"trying {plural(now.get('count', 1), name)}… ({now.get('done', 0):,} fights)"
    elif status == "done":
        text = (f"{t['proposed']} {name} meet{'s' if t['proposed'] == 1 else ''} {t['target']!r}"
                if t.get("proposed") is not None else f"no count of {name} tried meets {t['target']!r}")
    else:
        text = str(t.get("why") or "stopped")
    out: dict[str, Any] = {"status": status, "text": text, "rows": rows}
    if status == "running":
        out["cancel"] = {"do": "tune_cancel", "where": where}
    if status == "done" and t.get("proposed") is not None:
        out["use"] = {"label": f"Use {t['proposed']}", "intent": {"do": "tune_use", "foe": t["foe"],
                                                                  "count": t["proposed"], "where": where}}
    return out
