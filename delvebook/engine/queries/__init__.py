"""The questions views and the danger forecast ask, answered from ``(state, rules)`` without changing anything.

What a check or an attack rolls, its exact odds, which weapons a combatant can attack with, whose turn it is,
which abilities and spells a delver has now with their costs and inputs, the options of a level-up choice,
the death save. The commands ask the same functions before they roll (an attack builds its expressions with
``plan_attack``, the one the odds come from), so a button's odds are always the rules' odds.

Each public function takes the state and the rules; the ``*_in`` / ``plan_*`` helpers take a ``Reader`` (a
command's ``Ctx`` is one). A question about someone who is not there answers None (or an empty list).

By topic, one module each, every name re-exported here (``queries.attack_odds``):
``rolls`` (skills, D20 rolls, checks, saves, the death save, the luck die), ``attacks`` (weapons, attacks and
spell attacks, sight), ``acting`` (who may act, turns, healing, who hears an order), ``gear`` (armor, ammunition,
carried gear, the XP coin), ``abilities`` (abilities and spells now, level-up choices), ``writings`` (spells in
books and scrolls carried), ``prepared`` (the foe types, prepared encounters and roll tables as they stand:
campaign.yaml's with the table's laid over).

Standard library only: part of the pure core.
"""

from __future__ import annotations

from ...core.model import current_actor, present
from .rolls import (skill_id, skill_bonus, skill_label, D20, d20_in, check_expr, opposed_expr, check_odds,
    save_roll, DeathSave, death_save, luck_die_sides, luck_sign_refused)
from .attacks import (unarmed, weapon_of, ANY_WEAPON_SKILL, weapon_skill, weapons, plan_attack, plan_attack_on,
    attack_exprs, attack_odds, AttackChances, each_attack, chances_of, attack_chances, attack_problem, hit_chance, SpellAttack, plan_spell_attack, spell_attack_odds,
    dark, cannot_see, attack_result, countered_after)
from .acting import (able, can_act, ACTION, FREE, REACTION, Acting, may_act, ability_timing, turn_problem,
    acting_problem, healing_banned, Hearers, hearers)
from .gear import (armor_in, armor_value, ammo_of, reloads, ammo_left, free_reload, attack_ready, Reload,
    reloadable, Carried, carried, coin_talons, Priced, priced)
from .writings import SCROLL, spell_spec, Writing, writings, copyable, traceable, scrolls_of
from .abilities import (option_name, ability_refusal, cost_text, AbilityChoice, abilities_available,
    ability_available, SpellChoice, spell_inputs, ability_ready, signature_choice, spells_available, find_choice,
    raisable_skills, choice_options)
from .prepared import (Prepared, foe_types, foe_type, foe_id, encounters, encounter, encounter_foes, roll_tables,
    roll_table, drawn)

__all__ = ["current_actor", "present", "skill_id", "skill_bonus", "skill_label", "D20", "d20_in", "check_expr",
    "opposed_expr", "check_odds", "save_roll", "DeathSave", "death_save", "luck_die_sides", "luck_sign_refused", "unarmed", "weapon_of",
    "ANY_WEAPON_SKILL", "weapon_skill", "weapons", "plan_attack", "plan_attack_on", "attack_exprs", "attack_odds",
    "AttackChances", "each_attack", "chances_of", "attack_chances", "attack_problem", "hit_chance", "SpellAttack", "plan_spell_attack", "spell_attack_odds", "dark", "cannot_see", "attack_result", "countered_after", "able", "can_act",
    "ACTION", "FREE", "REACTION", "Acting", "may_act", "ability_timing", "turn_problem", "acting_problem",
    "healing_banned", "Hearers", "hearers", "armor_in", "armor_value", "ammo_of", "reloads", "ammo_left", "free_reload", "attack_ready",
    "Reload", "reloadable", "Carried", "carried", "coin_talons", "Priced", "priced", "option_name", "ability_refusal", "cost_text",
    "AbilityChoice", "abilities_available", "ability_available", "SpellChoice", "spell_inputs", "ability_ready",
    "signature_choice", "spells_available", "find_choice", "raisable_skills", "choice_options", "SCROLL",
    "spell_spec", "Writing", "writings", "copyable", "traceable", "scrolls_of", "Prepared", "foe_types", "foe_type",
    "foe_id", "encounters", "encounter", "encounter_foes", "roll_tables", "roll_table", "drawn"]
