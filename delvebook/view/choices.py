"""A delver's level-up choices (``choices`` in actor.js): each pending choice with what each option does."""

from __future__ import annotations

from ..engine import queries
from .shared import UI

__all__ = ["choices"]


def choices(camp, ui: UI, who: str) -> list[dict]:
    s, rules = camp.state, camp.rules
    d = s["delvers"].get(who)
    if d is None:
        return []
    out = []
    for p in d.get("pending_choices", ()):
        spec = queries.find_choice(rules, d, p)
        options = []
        for label, oid in queries.choice_options(s, rules, who, p):
            effect = ""
            if "options" in spec and oid in spec["options"]:
                effect = spec["options"][oid].get("effect", "")
            elif "from_skills" in spec:
                label = queries.skill_label(s, rules, who, oid)
                effect = f"raised to {spec['raise_to']}"
            options.append({"label": label, "effect": effect,
                            "intent": {"do": "choose", "who": who, "choice": p["choice"], "option": oid,
                                       "where": f"choice:{who}:{p['choice']}"}})
        out.append({"key": f"choice:{who}:{p['choice']}",
                    "title": f"Level {p['level']}: {spec.get('prompt', p['choice'].replace('_', ' '))}",
                    "options": options})
    return out
