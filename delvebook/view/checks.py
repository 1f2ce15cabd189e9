"""The checks of the action bar (``checks`` in actor.js): each skill with its exact odds against the target number
or an opponent."""

from __future__ import annotations

from ..engine import queries
from ..core.model import combatant
from .shared import UI, combatant_names, hearts_label, odds_text, option

__all__ = ["checks", "TARGET_PRESETS"]

TARGET_PRESETS = (8, 10, 12, 15, 18)


def checks(camp, ui: UI, who: str) -> dict:
    s, rules = camp.state, camp.rules
    c = combatant(s, who)
    found = c[1] if c is not None else None
    vs = ui.vs if ui.vs in combatant_names(s) and ui.vs != who else None
    skills = []
    sids = list(found.get("skills", ())) if found is not None else []
    for sid in sids:
        label = queries.skill_label(s, rules, who, sid)
        p = queries.check_odds(s, rules, who, sid, None if vs else ui.target, vs)
        spec = (rules.class_(found["class_id"])["skills"].get(sid) if "class_id" in found else None) or {}
        skills.append({"label": label, "odds": odds_text(p), "title": spec.get("scope", ""),
                       "intent": {"do": "check", "who": who, "skill": sid, "where": "checks"}})
    p = queries.check_odds(s, rules, who, None, None if vs else ui.target, vs)
    skills.append({"label": "D20, no skill", "odds": odds_text(p), "title": "a plain D20 (no skill applies)",
                   "intent": {"do": "check", "who": who, "where": "checks"}})
    others = [option(n, hearts_label(camp, n, ui)) for n in combatant_names(s) if n != who]
    return {"target": ui.target, "vs": vs, "against": f"vs {vs}" if vs else f"vs {ui.target}",
            "presets": [{"label": str(t), "on": t == ui.target and not vs,
                         "intent": {"do": "target", "target": t, "where": "checks"}} for t in TARGET_PRESETS],
            "set_target": {"do": "target", "where": "checks"},
            "vs_options": [option("", "a target number")] + others,
            "set_vs": {"do": "vs", "where": "checks"}, "skills": skills}
