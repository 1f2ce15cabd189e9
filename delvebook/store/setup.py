"""What a campaign file sets up before its log: the rules it plays by and the party as it starts.

Both are made from ``campaign.yaml`` alone, the same way every time, so the one check of a log
(``store.playcheck``) and the campaign that plays it start from the same state.
"""

from __future__ import annotations

import random
from typing import Any, Mapping

from ..engine import Engine
from ..core.events import clone
from ..core.model import new_state
from ..core.rules import Rules
from ..core.rules.load import rules_for_campaign

__all__ = ["rules_for", "setup_state"]


def rules_for(campaign: Mapping) -> Rules:
    """The rules with the campaign's house rules and bestiary folded in: the very rules its check of
    campaign.yaml played by (``rules.load.rules_for_campaign``), so a campaign that validates opens."""
    return rules_for_campaign(campaign)


def setup_state(campaign: Mapping, rules: Any) -> dict:
    """The state before the log: the campaign's prepared delvers, built by the same rules as in play.

    Anything random a sheet leaves out is rolled from the campaign's seed and the delver's name, so
    opening the same files always gives the same party."""
    engine = Engine(rules, new_state(campaign.get("name", ""), campaign.get("seed")))
    for i, sheet in enumerate(campaign.get("delvers") or ()):
        rng = random.Random(f"{campaign.get('seed')}:{sheet['name']}")
        args = {"name": sheet["name"], "class_id": sheet["class"], "player": sheet.get("player"),
                "choices": dict(sheet.get("choices") or {}) or None}
        args = {k: v for k, v in args.items() if v is not None}
        event = engine.decide("add_delver", args, rng, seq=i + 1)
        engine.apply(event)
        d = engine.state["delvers"][sheet["name"]]
        if "hearts" in sheet:
            d["hearts"] = d["max_hearts"] = int(sheet["hearts"])
        for f in ("spells", "true_names"):
            if f in sheet:
                d[f] = list(sheet[f])
        if "purse" in sheet:  # talons, or {currency unit: count} in the campaign's currency
            purse = sheet["purse"]
            d["purse"] = purse if isinstance(purse, int) else rules.talons(purse)
    seats = campaign.get("seats")
    if seats:
        engine.state["seats"] = list(seats) + [n for n in engine.state["seats"] if n not in seats]
    return clone(engine.state)
