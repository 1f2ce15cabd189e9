"""The rules as data: the shipped YAML matches RULES.md, says where each number came from, and takes house rules."""

from __future__ import annotations

import subprocess
import sys
from importlib import resources

import pytest

from delvebook.core.rules import FILES, Assumption, Problem, Rules, RulesError
from delvebook.core.rules.load import base_rules, house_rules_from, load_rules, parse_yaml, rules_for_campaign


@pytest.fixture(scope="module")
def rules() -> Rules:
    return load_rules()


# ---------------------------------------------------------------- the shipped data


def test_shipped_rules_validate(rules):
    assert rules.validate() is rules
    assert set(rules.data) == set(FILES)


def test_true_names_are_a_d66_table_of_36_exact_names(rules):
    expected = {
        11: "Spirit", 12: "Fire", 13: "Water", 14: "Air", 15: "Earth", 16: "Word",
        21: "Create", 22: "Transmute", 23: "Shape", 24: "Remove", 25: "Project", 26: "Curse",
        31: "Taste", 32: "Touch", 33: "Smell", 34: "Sight", 35: "Sound", 36: "Thought",
        41: "Cold", 42: "Gravity", 43: "Lightning", 44: "Thunder", 45: "Light", 46: "Shadow",
        51: "Wand", 52: "Cup", 53: "Sword", 54: "Coin", 55: "Arrow", 56: "Rope",
        61: "Grow", 62: "Shrink", 63: "Bind", 64: "Release", 65: "Locate", 66: "Conceal",
    }
    assert len(rules.true_names) == 36
    assert dict(rules.true_names) == expected
    assert rules.data["true_names"]["die"] == "d66"


def _hearts_row(rules, class_id):
    return [dict(rules.hearts(class_id, lv)) for lv in (1, 2, 3)]


def _max_row(rules, class_id, resource):
    return [rules.resource_max(class_id, resource, lv) for lv in (1, 2, 3)]


def _skills_l1(rules, class_id):
    return dict(rules.level(class_id, 1)["skills"])


def test_rogue_row(rules):
    assert _hearts_row(rules, "rogue") == [{"set": 12}, {"set": 14}, {"set": 16}]
    assert _skills_l1(rules, "rogue") == {"stealth": "proficient", "daggers": "proficient", "bows": "proficient"}
    assert _max_row(rules, "rogue", "grit") == [3, 5, 7]


def test_fighter_row(rules):
    assert _hearts_row(rules, "fighter") == [{"roll": "d6+15"}, {"gain": "d6"}, {"gain": "d6"}]
    assert _skills_l1(rules, "fighter") == {"athletics": "proficient", "intimidation": "proficient",
                                            "weapons": "proficient"}
    assert _max_row(rules, "fighter", "grit") == [3, 5, 7]


def test_mage_row(rules):
    assert _hearts_row(rules, "mage") == [{"set": 11}, {"set": 12}, {"set": 13}]
    assert _skills_l1(rules, "mage") == {"magic": "proficient", "investigation": "proficient",
                                         "lore": "proficient", "persuasion": "proficient"}
    assert _max_row(rules, "mage", "spellbook") == [1, 1, 1]
    assert _max_row(rules, "mage", "wand_charges") == [0, 3, 3]


def test_cleric_row(rules):
    assert _hearts_row(rules, "cleric") == [{"set": 12}, {"set": 14}, {"set": 16}]
    assert _skills_l1(rules, "cleric") == {"magic": "proficient", "insight": "proficient", "medicine": "proficient"}
    assert _max_row(rules, "cleric", "healing_points") == [10, 10, 10]
    assert _max_row(rules, "cleric", "blessings") == [2, 4, 6]


def test_namer_row(rules):
    assert _hearts_row(rules, "namer") == [{"set": 12}, {"set": 14}, {"set": 16}]
    assert _skills_l1(rules, "namer") == {"magic": "proficient", "insight": "proficient", "perception": "proficient"}
    assert _max_row(rules, "namer", "soul_points") == [7, 10, 13]
    assert dict(rules.class_("namer")["true_names_known"]["max"]) == {1: 3, 2: 5, 3: 7}


def test_core_numbers_match_the_rules(rules):
    core = rules.core
    assert core["check"]["die"] == "d20"
    assert core["skill_bonus"]["proficient"] == "d6" and core["skill_bonus"]["expert"] == "2d6"
    assert core["luck_dice"]["per_session"] == 3 and core["luck_dice"]["die"] == "d6"
    assert core["death_save"]["die"] == "d6" and core["death_save"]["target"] == 6
    assert core["unarmed"]["damage"] == 2
    assert core["advantage"]["dice"] == "2d20kh1"
    assert core["initiative"]["die"] == "d6" and core["initiative"]["tie"] == "reroll"
    assert dict(rules.level_thresholds) == {1: 0, 2: 100, 3: 200} and rules.level_cap == 3
    assert [rules.level_for_xp(x) for x in (0, 99, 100, 199, 200, 10_000)] == [1, 1, 2, 2, 3, 3]
    xp = core["xp"]
    assert (xp["per_heart_vanquished"], xp["per_crown"], xp["per_quest"], xp["per_room"]) == (1, 1, 100, 15)
    assert rules.talons({"bar": 1}) == rules.talons({"crown": 10}) == 100
    assert rules.duration_rounds("minute") == 10
    assert core["time"]["rest_hours"] == 8


def test_armor_defaults_and_armorer(rules):
    assert (rules.item("leather_armor")["av"], rules.item("leather_armor")["dv"]) == (1, 10)
    assert (rules.item("shield")["av"], rules.item("shield")["dv"]) == (1, 10)
    armorer = rules.level("fighter", 2)["choices"]["specialty"]["options"]["armorer"]["effects"]["armor_bonus"]
    assert (armorer["av"], armorer["dv"], armorer["excludes"]) == (1, 5, "shields")


def test_grimoire_is_numbered_one_to_n_for_a_pick_with_a_face_a_spell(rules):
    by_number = rules.spell_by_number("grimoire")
    assert sorted(by_number) == list(range(1, len(rules.spell_lists["grimoire"]["spells"]) + 1))
    assert rules.spell_lists["grimoire"]["random_pick"] == "numbered"  # d6 for the text's six
    assert {1: "light", 2: "magic_missile", 3: "find_familiar", 4: "firebolt", 5: "invisibility",
            6: "minor_illusion"}.items() <= dict(by_number).items()
    firebolt = rules.spell("firebolt")
    assert firebolt["damage"] == "2d6" and dict(firebolt["keep_on"]) == {"die": "d6", "target": 3}
    missile = rules.spell("magic_missile")
    assert (missile["darts"], missile["damage"], missile["always_hits"]) == (3, 2, True)


def test_divine_spells_cost_one_blessing(rules):
    divine = rules.spell_lists["divine"]
    assert dict(divine["cost"]) == {"blessings": 1}
    assert {s["name"] for _, s in divine["spells"].items()} == {
        "Aid", "Dispel magic", "Inflict wounds", "Locate Creature", "Truth", "Guiding Bolt"}
    assert rules.spell("guiding_bolt")["damage"] == "3d6"


def test_gear_the_text_prices(rules):
    assert rules.price_talons("arrow") == 10 and rules.item("arrow")["bundle"] == 20
    assert rules.price_talons("bolt") == 10
    assert [rules.price_talons(i) for i in ("rock", "sling", "boomerang", "blowdart")] == [0, 1, 10, 100]
    assert all(rules.item(i)["damage"] == 2 for i in ("rock", "sling", "boomerang", "blowdart"))
    assert rules.item("dagger")["damage"] == rules.item("staff")["damage"] == "d6"
    assert rules.price_talons("rope_50ft") is None
    assert rules.item("crossbow")["reload_action"] is True


def test_ability_costs_from_the_text(rules):
    assert dict(rules.ability("fighter", "second_wind")["cost"]) == {"grit": 2}
    assert dict(rules.ability("fighter", "smite")["cost"]) == {"grit": 2}
    assert dict(rules.ability("rogue", "bow_volley")["cost"]) == {"grit": 1}
    assert dict(rules.ability("namer", "blood_magic")["cost"]) == {"hearts": 1}
    assert rules.ability("cleric", "lay_on_hands")["cost_per"] == "heart"


def test_bestiary_has_at_least_eight_assumed_foes(rules):
    assert len(rules.bestiary) >= 8
    for fid, foe in rules.bestiary.items():
        assert foe["source"] == "assumed" and foe["reason"], fid
    assert "undead" in rules.foe("skeleton")["tags"]


# ---------------------------------------------------------------- provenance


def test_every_assumption_has_a_reason(rules):
    found = rules.assumptions()
    assert found and all(isinstance(a, Assumption) and a.reason.strip() for a in found)
    paths = {a.path for a in found}
    assert "core.luck_dice.die" in paths
    assert "classes.rogue.levels.1" in paths
    assert {"gear.armor.leather_armor.av", "gear.armor.leather_armor.dv"} <= paths
    assert "core.time.round_seconds" in paths


def test_assumed_block_without_a_reason_is_refused(rules):
    data = rules.to_dict()
    data["bestiary"]["goblin"].pop("reason")
    with pytest.raises(RulesError, match=r"bestiary\.goblin: source: assumed needs a reason"):
        Rules(data).validate()


def test_value_without_any_source_is_refused(rules):
    data = rules.to_dict()
    del data["core"]["unarmed"]["source"], data["core"]["unarmed"]["quote"]
    with pytest.raises(RulesError, match=r"core\.unarmed\.damage: no source"):
        Rules(data).validate()


# ---------------------------------------------------------------- house rules


def test_house_rule_changes_a_number(rules):
    house = rules.with_overrides({"core": {"luck_dice": {"per_session": 4}}})
    assert house.core["luck_dice"]["per_session"] == 4
    assert rules.core["luck_dice"]["per_session"] == 3
    assert "core.luck_dice.per_session" in house.house_paths


def test_house_rule_renames_a_class(rules):
    house = rules.with_overrides({"classes": {"namer": {"name": "Wordsmith"}}})
    assert house.class_name("namer") == "Wordsmith"
    assert house.hearts("namer", 1) == rules.hearts("namer", 1)


def test_house_rule_adds_gear_and_a_foe(rules):
    house = rules.with_overrides({
        "gear": {"weapons": {"spear": {"name": "Spear", "damage": "2d6", "skill": None, "price": {"crown": 2}}}},
        "bestiary": {"kobold": {"name": "Kobold", "hearts": 3, "attack_bonus": 0, "damage": "d6", "tags": []}},
    })
    assert house.item("spear")["damage"] == "2d6" and house.price_talons("spear") == 20
    assert house.foe("kobold")["source"] == "house"
    assert not any(a.path.startswith("bestiary.kobold") for a in house.assumptions())


def test_house_rule_replaces_a_hearts_rule(rules):
    house = rules.with_overrides({"classes": {"mage": {"levels": {1: {"hearts": {"roll": "d6+8"}}}}}})
    assert dict(house.hearts("mage", 1)) == {"roll": "d6+8"}


def test_house_rule_with_an_unknown_key_names_the_path(rules):
    with pytest.raises(RulesError, match=r"^house rules: core\.luck_dice\.per_sesion: unknown key"):
        rules.with_overrides({"core": {"luck_dice": {"per_sesion": 4}}})


def test_house_rule_with_a_wrong_type_names_the_path(rules):
    with pytest.raises(RulesError) as err:
        rules.with_overrides({"core": {"luck_dice": {"per_session": "three"}}})
    assert str(err.value) == "house rules: core.luck_dice.per_session: expected a whole number, got 'three'"
    assert err.value.problems == (Problem(("core", "luck_dice", "per_session"), "expected a whole number, got 'three'"),)
    with pytest.raises(RulesError, match=r"gear\.weapons\.dagger\.damage: expected dice \(like d6\+1\) or a whole"):
        rules.with_overrides({"gear": {"weapons": {"dagger": {"damage": "sharp"}}}})


def test_added_entry_with_a_bad_shape_names_the_path(rules):
    with pytest.raises(RulesError, match=r"house rules: bestiary\.kobold\.hearts: expected a whole number of 1 or more"):
        rules.with_overrides({"bestiary": {"kobold": {"name": "Kobold", "hearts": "many", "attack_bonus": 0,
                                                      "damage": "d6", "tags": []}}})


def test_house_rules_read_from_a_campaign():
    campaign = {"name": "The Sunken Keep", "house_rules": {"core": {"xp": {"per_room": 20}}}}
    assert house_rules_from(campaign) == {"core": {"xp": {"per_room": 20}}}
    assert house_rules_from({"name": "x"}) == {}
    assert rules_for_campaign(campaign).core["xp"]["per_room"] == 20


def test_base_rules_are_cached_and_read_only():
    assert base_rules() is load_rules()
    with pytest.raises(TypeError):
        load_rules().core["luck_dice"]["per_session"] = 9  # type: ignore[index]


# ---------------------------------------------------------------- purity and parsing


def test_import_rules_does_not_import_yaml():
    code = "import sys, delvebook.core.rules; print('yaml' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


@pytest.mark.parametrize("name", FILES)
def test_rules_file_parses_the_same_under_yaml_1_1_and_1_2(name):
    ruamel_yaml = pytest.importorskip("ruamel.yaml")
    text = resources.files("delvebook.core.rules").joinpath(f"{name}.yaml").read_text(encoding="utf-8")
    loader = ruamel_yaml.YAML(typ="safe", pure=True)
    assert parse_yaml(text) == loader.load(text)


def test_a_field_that_only_documents_a_reading_is_marked_so_in_the_rules_data_where_it_is_defined():
    from delvebook.core.rules.fixed import READING, fixed_reason, marked
    data = base_rules().data
    marks = dict(marked(data))
    assert marks[("core", "check", "rule")].startswith("the engine plays one reading of this rule: a check meets")
    assert data["core"]["check"][READING]["rule"]  # beside the field itself, in core.yaml
    assert fixed_reason(("core", "check", "die"), data) is None  # its sibling is a house rule
    assert fixed_reason(("classes", "rogue", "abilities", "dagger_ambush", "requires", "option"), data) == \
        marks[("classes", "rogue", "abilities", "dagger_ambush", "requires")]  # a mark covers what lies below
    own = {"my_class": {"speed": 3, "note_only": "fast", READING: {"note_only": "words"}}}
    assert fixed_reason(("my_class", "note_only"), own).startswith("words that describe the feature")
    assert fixed_reason(("my_class", "speed"), own) is None
    # a table keyed by numbers is marked from the mapping above it, so its keys stay numbers only
    assert fixed_reason(("core", "levels", "thresholds", 1), data).startswith("every delver starts at level 1")
    assert fixed_reason(("core", "levels", "thresholds", 2), data) is None
    assert READING not in data["core"]["levels"]["thresholds"]
    assert marks[("core", "levels", "thresholds", 1)] == fixed_reason(("core", "levels", "thresholds", 1), data)


def test_every_mapping_of_the_rules_keeps_keys_of_one_kind_so_it_sorts():
    import json

    def kinds(node, path=()):
        if isinstance(node, dict):
            assert len({type(k) for k in node}) <= 1, path
            for k, v in node.items():
                kinds(v, path + (k,))
        elif isinstance(node, list):
            for i, v in enumerate(node):
                kinds(v, path + (i,))
    kinds(base_rules().to_dict())
    json.dumps(base_rules().to_dict(), sort_keys=True, default=str)  # as a calibration's cache key does
