"""One schema for the rules data, a campaign's house rules and the campaign file (``campaign.yaml``).

Every check reports structured problems, each a ``Problem(path, reason)``: ``path`` is the tuple of keys and
list indexes from the top of the data (``("delvers", 1, "class")``), ``reason`` says what was wrong and what was
expected. Whoever parsed the YAML maps a path to its file and line (the store does, through the node tree); no
one parses the text of a message. ``delvebook validate`` and ``Campaign.open`` both go through
``check_campaign``, so they cannot disagree.

Fields are checked for what the engine reads: a luck die is one die (``d6``, not ``2d4``), a die that is rolled
against a target or re-rolled on a tie must roll dice, a delver's starting choices must be choices the class
offers. Standard library only: part of the pure core.

The schema is four modules: ``words`` (``Problem``, ``RulesError``, how values and paths are shown, the fields
each file holds), ``data`` (the rules files), ``house`` (house rules merged over them) and ``campaign`` (the
campaign file).
"""

from __future__ import annotations

from .campaign import campaign_rules, check_campaign
from .data import bestiary_problems, foe_problems, rules_problems
from .house import merge_overrides
from .words import (ALL, NUMBERED,
                    CAMPAIGN_FIELDS, ENCOUNTER_FIELDS, ENCOUNTER_MAX_FOES, FILES, FOE_FIELDS, FOE_REQUIRED,
                    FORMAT_VERSION, OPEN_TABLES, PLACE_FIELDS, PROVENANCE_KEYS, SHEET_FIELDS, SHEET_MAX_HEARTS, SOURCES,
                    Problem, RulesError, _thaw, dotted, field_name, show)  # noqa: F401 (_thaw: for rules)

__all__ = [
    "ALL",
    "NUMBERED",
    "Problem",
    "RulesError",
    "FORMAT_VERSION",
    "FILES",
    "PROVENANCE_KEYS",
    "SOURCES",
    "OPEN_TABLES",
    "CAMPAIGN_FIELDS",
    "SHEET_FIELDS",
    "FOE_FIELDS",
    "FOE_REQUIRED",
    "ENCOUNTER_FIELDS",
    "ENCOUNTER_MAX_FOES",
    "SHEET_MAX_HEARTS",
    "PLACE_FIELDS",
    "rules_problems",
    "bestiary_problems",
    "foe_problems",
    "merge_overrides",
    "campaign_rules",
    "check_campaign",
    "field_name",
    "dotted",
    "show",
]
