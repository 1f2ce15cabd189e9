"""The fields of the rules data that are not house rules: each documents how delvebook reads the text (one reading
the engine plays), or describes a feature in words that its code plays, so a campaign that changes one would change
nothing. The schema refuses such an override (``schema.merge_overrides``) with the reason given here, so a house
rule either changes play or is told, at its line in ``campaign.yaml``, that it cannot.

A path is a tuple of keys from the top of the rules data; ``*`` matches any key. Only an existing field changed to
another value is refused: a campaign's own class, spell or foe (a new key in an open table) may hold these fields,
and setting one to the value it already has changes nothing.

Standard library only: part of the pure core.
"""

from __future__ import annotations

from typing import Iterable

__all__ = ["FIXED", "fixed_reason"]

_ONE_READING = "the engine plays one reading of this rule"
_WORDS = "words that describe the feature for a reader of the rules; its code plays it"

FIXED: tuple[tuple[tuple, str], ...] = (
    (("core", "check", "rule"), f"{_ONE_READING}: a check meets or beats its target (the text's words)"),
    (("core", "save", "rule"), f"{_ONE_READING}: a save is a check, meeting or beating its target"),
    (("core", "opposed_check", "tie"), f"{_ONE_READING}: a tied opposed check is reported as a tie for the keeper "
                                       "to decide, and the defender holds until the keeper says otherwise"),
    (("core", "initiative", "by"), f"{_ONE_READING}: each side rolls (the text's 'each side of the conflict')"),
    (("core", "initiative", "tie"), f"{_ONE_READING}: a tie is rolled again; the keeper may say who goes first "
                                    "(initiative(first=...))"),
    (("core", "initiative", "party_order"), f"{_ONE_READING}: clockwise by seat; the players reorder in play "
                                            "(set_order)"),
    (("core", "turns", "checks"), f"{_ONE_READING}: the keeper calls for checks at any moment"),
    (("core", "turns", "companions"), f"{_ONE_READING}: a familiar and a Holy Weapon act in their owner's turn"),
    (("core", "ammunition", "thrown"), f"{_ONE_READING}: whether a thrown weapon is lost is the keeper's call "
                                       "(drop it)"),
    (("core", "roll_tables", "past_ends"), f"{_ONE_READING}: a total shifted past a table's ends stays on its "
                                           "first or last range"),
    (("core", "roll_tables", "between"), f"{_ONE_READING}: a total shifted between two ranges goes on to the next "
                                         "result the way it was shifted"),
    (("core", "roll_tables", "without_replacement"), f"{_ONE_READING}: an entry drawn already is rolled again, "
                                                     "then the next not drawn is taken"),
    (("core", "xp", "split"), f"{_ONE_READING}: XP is divided equally (the text's words)"),
    (("core", "xp", "remainder"), f"{_ONE_READING}: what does not divide waits in the party's pool"),
    (("core", "levels", "cap"), "the highest level the text describes: every class's levels and the thresholds "
                                "run 1..3"),
    (("core", "levels", "thresholds", 1), "every delver starts at level 1, with 0 XP"),
    (("core", "currency", "base"), "the smallest unit is the one worth 1 talon (core.currency.units.*.talons); "
                                   "change the units instead"),
    (("classes", "*", "resources", "*", "restores_on"), "what a rest restores is core.rest.restores"),
    (("classes", "*", "levels", "*", "choices", "*", "pick"), f"{_ONE_READING}: one option a choice"),
    (("classes", "*", "levels", "*", "choices", "*", "options", "*", "choices", "*", "pick"),
     f"{_ONE_READING}: one option a choice"),
    (("classes", "*", "starting_gear", "choices", "*", "pick"), f"{_ONE_READING}: one option a choice"),
    (("classes", "*", "levels", "*", "choices", "*", "options", "*", "effects", "armor_bonus", "applies_to"),
     "armor_bonus goes on worn armor; excludes says whether shields take it"),
    (("classes", "*", "abilities", "*", "requires"), "which option brings an ability is that option's grants "
                                                     "(change those); requires names it in the messages"),
    *((("classes", "fighter", "abilities", aid, "level"), "it comes with its technique, chosen at level 3")
      for aid in ("smite", "blood_magic_sword", "command_retreat", "command_charge", "command_fire",
                  "command_hold_the_line")),
    (("classes", "*", "abilities", "*", "variable_cost", "set_by"), f"{_ONE_READING}: the keeper sets the cost"),
    (("classes", "*", "abilities", "*", "mechanics", "when"), _WORDS),
    (("classes", "*", "abilities", "*", "mechanics", "limit"), _WORDS),
    (("classes", "*", "abilities", "*", "mechanics", "target"), _WORDS),
    (("classes", "*", "abilities", "*", "mechanics", "touch"), _WORDS),
    (("classes", "*", "abilities", "*", "mechanics", "applies_to"), "the ability's own code plays what it applies "
                                                                    "to (a campaign's own ability reads it)"),
    (("classes", "*", "abilities", "*", "mechanics", "on_hit"), f"{_ONE_READING}: a smite is chosen once the hit "
                                                                "is seen, or declared with the attack"),
    (("classes", "*", "abilities", "*", "mechanics", "shares_turn"), "core.turns.companions says it for every "
                                                                     "companion"),
    (("classes", "*", "abilities", "*", "mechanics", "repeat_death_save"), _WORDS),
    (("classes", "*", "abilities", "*", "mechanics", "change"), f"{_ONE_READING}: the bard's spell changes once "
                                                                "between one rest and the next"),
    (("classes", "*", "abilities", "*", "mechanics", "charges"), f"{_ONE_READING}: charges do not stack (the "
                                                                 "text's words)"),
    (("classes", "rogue", "abilities", "bard_magic", "mechanics", "spells_known"),
     f"{_ONE_READING}: a bard plays one spell at a time"),
    (("classes", "cleric", "abilities", "heal_at_range", "mechanics", "range_ft"),
     "the table measures no distance: the keeper says who is within 60 ft"),
    (("classes", "namer", "abilities", "blood_magic", "mechanics", "duration"),
     "the ban lasts until a rest, as everything that lasts until one"),
    (("spells", "divine", "random_pick"), "no class picks a divine spell at random"),
    (("spells", "grimoire", "spells", "firebolt", "duration"), "an instant spell: nothing of it lasts"),
    (("spells", "grimoire", "spells", "magic_missile", "duration"), "an instant spell: nothing of it lasts"),
    (("spells", "*", "caster"), "which class casts from a list is its abilities' spells_from"),
    (("spells", "*", "cost"), "what a spell costs is the casting ability's cost (a spellbook charge, a blessing, "
                              "grit)"),
    (("spells", "*", "name"), "a label for a reader of spells.yaml; the table names a spell by its own name"),
    (("spells", "*", "spells", "*", "attack"), "each spell's code makes its attack (or none); this says which"),
    (("spells", "*", "spells", "*", "touch"), _WORDS),
    (("spells", "*", "spells", "*", "always_hits"), _WORDS),
    (("spells", "*", "spells", "*", "ends_early"), "Invisibility ends when its creature attacks or casts (its "
                                                   "code)"),
    (("spells", "*", "spells", "*", "limit"), _WORDS),
    (("spells", "*", "spells", "*", "touch_damage"), "the blinding touch is an unarmed attack: core.unarmed.damage"),
    (("spells", "*", "spells", "*", "resist"), f"{_ONE_READING}: a contested Magic check"),
    (("spells", "*", "spells", "*", "familiar", "lost_below"), "a familiar below 1 heart is lost, as any creature "
                                                               "is vanquished (core.death_save.retrigger_below)"),
    (("spells", "*", "spells", "*", "save", "effect"), "each spell's code says what a save does (Inflict wounds "
                                                       "halves, Truth negates)"),
    (("true_names", "die"), "the true names are a D66 table (36 results, 11..66)"),
    (("true_names", "reroll_known"), f"{_ONE_READING}: a name already known is rolled again"),
)
"""(path, why it is not a house rule), ``*`` matching any key."""


def _matches(pattern: tuple, path: tuple) -> bool:
    return len(pattern) <= len(path) and all(p == "*" or p == k for p, k in zip(pattern, path))


def fixed_reason(path: Iterable) -> str | None:
    """Why the rules field at ``path`` (keys from the top of the rules data), or the field it lies in, is not a
    house rule; None when a campaign may change it."""
    path = tuple(path)
    for pattern, reason in FIXED:
        if _matches(pattern, path):
            return reason
    return None
