"""Read the rules shipped in this package and a campaign's house rules, through the one safe YAML loader.

This module imports PyYAML (via ``delvebook.core.yamlsafe``); ``delvebook.core.rules`` itself does not, so the pure core
stays import-light. A problem in a shipped rules file is reported with its file and line.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from importlib import resources
from typing import Any

from .. import yamlsafe
from . import FILES, Rules, RulesError
from .schema import campaign_rules, dotted

__all__ = ["load_rules", "base_rules", "house_rules_from", "rules_for_campaign", "parse_yaml"]


def parse_yaml(text: str) -> Any:
    """Parse YAML text with the safe loader (``delvebook.core.yamlsafe``): no Python objects, no duplicate keys,
    no alias bombs. Raises ``yamlsafe.YamlError`` (a ValueError) naming the line."""
    return yamlsafe.load(text)


def _read(name: str) -> yamlsafe.Document:
    if name not in FILES:
        raise RulesError(f"no rules file {name!r} (known: {', '.join(FILES)})")
    text = resources.files(__package__).joinpath(f"{name}.yaml").read_text(encoding="utf-8")
    try:
        doc = yamlsafe.load_document(text)
    except yamlsafe.YamlError as err:
        where = f":{err.line}" if err.line else ""
        raise RulesError(f"rules file {name}.yaml{where}: {err.reason}") from None
    if not isinstance(doc.data, dict):
        raise RulesError(f"rules file {name}.yaml: expected a mapping at the top, got {type(doc.data).__name__}")
    return doc


@functools.lru_cache(maxsize=1)
def base_rules() -> Rules:
    """The shipped rules, read once per process and validated; a problem names its file and line."""
    docs = {name: _read(name) for name in FILES}
    rules = Rules({name: doc.data for name, doc in docs.items()})
    problems = rules.problems()
    if problems:
        lines = []
        for p in problems:
            doc = docs.get(p.path[0]) if p.path else None
            line = doc.line_of(p.path[1:]) if doc is not None else None
            where = f"{p.path[0]}.yaml:{line}: " if doc is not None and line else ""
            lines.append(f"{where}{dotted(p.path)}: {p.reason}")
        message = lines[0] if len(lines) == 1 else f"{len(lines)} problems in the shipped rules:\n  " + \
            "\n  ".join(lines)
        raise RulesError(message, problems, "rules: ")
    return rules


def load_rules(overrides: Mapping | None = None) -> Rules:
    """The shipped rules with a campaign's house rules (if any) laid over them."""
    rules = base_rules()
    return rules.with_overrides(overrides) if overrides else rules


def house_rules_from(campaign: Mapping | None) -> dict:
    """The ``house_rules`` mapping of a parsed ``campaign.yaml`` ({} when absent or null)."""
    if not campaign:
        return {}
    if not isinstance(campaign, Mapping):
        raise RulesError(f"campaign: expected a mapping, got {type(campaign).__name__}")
    house = campaign.get("house_rules")
    if house is None:
        return {}
    if not isinstance(house, Mapping):
        raise RulesError(f"house rules: expected a mapping of rules to change, got {house!r}")
    return dict(house)


def rules_for_campaign(campaign: Mapping | None) -> Rules:
    """The rules a campaign plays by: the shipped rules, its house rules, then its own bestiary laid over them.

    The same function the store's check of ``campaign.yaml`` uses (``schema.campaign_rules``), so what opens
    plays by exactly what was checked. RulesError's problems are at campaign-file paths (``house_rules...``)."""
    if not campaign:
        return base_rules()
    if not isinstance(campaign, Mapping):
        raise RulesError(f"campaign: expected a mapping, got {type(campaign).__name__}")
    rules, problems = campaign_rules(campaign, base_rules())
    if problems:
        raise RulesError.of(problems, "campaign: ")
    return rules
