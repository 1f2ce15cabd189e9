"""Read the rules shipped in this package and a campaign's house rules, through the one safe YAML loader.

This module reads YAML with PyYAML (via ``delvebook.core.yamlsafe``, imported when a file is parsed); the shipped
rules come from their prepared form (``core.cache``) when this delvebook has made one, with no YAML read. A problem in
a shipped rules file is reported with its file and line.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Mapping
from importlib import resources
from typing import Any

from . import FILES, Rules, RulesError
from .schema import campaign_rules, dotted

__all__ = ["load_rules", "base_rules", "house_rules_from", "rules_for_campaign", "parse_yaml", "rules_digest"]


def parse_yaml(text: str) -> Any:
    """Parse YAML text with the safe loader (``delvebook.core.yamlsafe``): no Python objects, no duplicate keys,
    no alias bombs. Raises ``yamlsafe.YamlError`` (a ValueError) naming the line."""
    from .. import yamlsafe
    return yamlsafe.load(text)


@functools.lru_cache(maxsize=None)
def _bytes(name: str) -> bytes:
    """A shipped rules file's bytes, read once per process."""
    if name not in FILES:
        raise RulesError(f"no rules file {name!r} (known: {', '.join(FILES)})")
    return resources.files(__package__).joinpath(f"{name}.yaml").read_bytes()


@functools.lru_cache(maxsize=1)
def rules_digest() -> str:
    """The SHA-256 of the shipped rules files' bytes: what a prepared form of them, or a snapshot, was made from."""
    h = hashlib.sha256()
    for name in FILES:
        h.update(b"%s\0%d\0" % (name.encode(), len(_bytes(name))))
        h.update(_bytes(name))
    return h.hexdigest()


def _read(name: str) -> "yamlsafe.Document":
    from .. import yamlsafe  # PyYAML: only when a YAML file is read, not when its prepared form is
    text = _bytes(name).decode("utf-8")
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
    """The shipped rules, read once per process and validated; a problem names its file and line.

    Parsing and checking the YAML is most of what a fresh process pays to open a campaign, so the data, once checked,
    is kept in a prepared form (plain JSON in the user's cache, ``core.cache``) named by the digest of the YAML's
    bytes and of this delvebook: the next process reads that instead, and the YAML stays the only copy of the rules
    in the package. A prepared form that is missing, or does not read back, is made again from the YAML."""
    from ..cache import read_prepared, write_prepared
    data = read_prepared("rules", rules_digest())
    if data.__class__ is dict and sorted(data) == sorted(FILES):
        try:
            rules = Rules(data)
        except (ValueError, TypeError, KeyError):
            pass
        else:
            rules._checked = True  # checked when it was prepared: the same bytes, by the same delvebook
            return rules
    rules = _checked_base_rules()
    write_prepared("rules", rules_digest(), {name: _read(name).data for name in FILES})
    return rules


def _checked_base_rules() -> Rules:
    """The shipped rules read from their YAML and checked."""
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
