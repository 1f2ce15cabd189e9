"""Read the rules shipped in this package (YAML, safe loaders only) and a campaign's house rules.

This module imports PyYAML; ``delvebook.rules`` itself does not, so the pure core stays import-light.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from importlib import resources
from typing import Any

import yaml

from . import FILES, Rules, RulesError

__all__ = ["load_rules", "base_rules", "house_rules_from", "rules_for_campaign", "parse_yaml", "read_rules_file"]

try:
    _SafeLoader = yaml.CSafeLoader
except AttributeError:  # PyYAML built without libyaml
    _SafeLoader = yaml.SafeLoader


def parse_yaml(text: str) -> Any:
    """Parse YAML text with the safe loader (C if available); never constructs Python objects."""
    return yaml.load(text, Loader=_SafeLoader)


def read_rules_file(name: str) -> dict:
    """One packaged rules file (``core``, ``classes``, ...) parsed into plain data."""
    if name not in FILES:
        raise RulesError(f"no rules file {name!r} (known: {', '.join(FILES)})")
    text = resources.files(__package__).joinpath(f"{name}.yaml").read_text(encoding="utf-8")
    data = parse_yaml(text)
    if not isinstance(data, dict):
        raise RulesError(f"rules file {name}.yaml: expected a mapping at the top, got {type(data).__name__}")
    return data


@functools.lru_cache(maxsize=1)
def base_rules() -> Rules:
    """The shipped rules, read once per process and validated."""
    return Rules({name: read_rules_file(name) for name in FILES}).validate()


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
    """The rules a campaign plays by: the shipped rules with its house rules."""
    return load_rules(house_rules_from(campaign))
