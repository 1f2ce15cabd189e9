"""Names a person reads (``delvebook.core.names``): a name with a character that draws nothing or turns the text around
is refused, saying which character and where, and so is a name that reads the same as one already made ("Wren"
beside "wren", "Wren" + U+200B, a Cyrillic e, "Goblin l" beside "Goblin 1"), for delvers, players, NPCs, foes
named in a fight, familiars and foe types: one check in the core that every command making a name calls, and
the campaign file's schema for names written by hand. Nothing is recorded when a name is refused."""
from __future__ import annotations

import unicodedata

import pytest
import yaml
from hypothesis import given, settings, strategies as st

import delvebook as db
from delvebook.engine import Refused
from delvebook.core.events import clone
from delvebook.core.names import CONFUSABLE, check_name, keys, look_alike, name_problem

from enginekit import Table
from test_schema import GOOD, assert_agree, folder_with

ZWSP, RLO = "\u200b", "\u202e"
CYRILLIC_E = "\u0435"


# ---------------------------------------------------------------- the check itself

@pytest.mark.parametrize("name, says", [
    ("Wren" + ZWSP, "U+200B ZERO WIDTH SPACE after 'Wren'"),
    (RLO + "nerW", "direction-changing character"),
    ("Wr\u200den", "U+200D ZERO WIDTH JOINER"),
    ("Wren\u2066", "direction-changing"),
    ("Wr\u00aden", "SOFT HYPHEN"),
    ("Wre\ufe0fn", "VARIATION SELECTOR-16"),
    ("Wren\u3164", "HANGUL FILLER"),
    ("Wren\nAsh", "a control character"),
    ("Wren\ue000", "private-use"),
    ("\u0301Wren", "starts with a combining mark"),
    ("Wre" + "\u0301" * 6 + "n", "marks on one letter"),
    (" Wren", "starts or ends with a space"),
    ("Wren\u00a0", "starts or ends with a space"),
    ("", "cannot be blank"),
    ("x" * 201, "at most 200"),
    (7, "is text"),
])
def test_a_name_with_a_character_that_draws_nothing_or_turns_text_around_is_refused_saying_which(name, says):
    problem = name_problem(name, "a delver's name")
    assert problem is not None and says in problem, problem
    assert problem.startswith("a delver's name")


@pytest.mark.parametrize("name", ["Wren", "Father Odo", "Zoë", "Łucja", "דוד", "Ана", "李白", "O'Brien",
                                  "Bog goblin 2", "<img src=x onerror=alert(1)>", "Jean-Luc"])
def test_names_in_any_script_that_show_what_they_are_are_names(name):
    assert name_problem(name) is None and check_name(name, ["Brakka"]) is None


@pytest.mark.parametrize("new, old", [
    ("wren", "Wren"), ("WREN", "Wren"),
    ("Wren" + ZWSP, "Wren"),                     # refused for its character first
    ("Wr" + CYRILLIC_E + "n", "Wren"),           # a Cyrillic e
    ("wr" + CYRILLIC_E + "n", "Wren"),           # and a case apart
    ("\uff37\uff52\uff45\uff4e", "Wren"),         # fullwidth: NFKC
    ("Goblin l", "Goblin 1"), ("lvan", "Ivan"), ("G0blin", "Goblin"),
    ("Wren  Ash", "Wren Ash"),
    ("\u0391\u03bd\u03b1", "Ava"),               # Greek capital alpha, nu, alpha
])
def test_two_names_that_read_the_same_are_refused(new, old):
    problem = check_name(new, {old: "a delver"}, "a delver's name")
    assert problem is not None, f"{new!r} beside {old!r}"
    assert look_alike(new, [old]) == old and look_alike(old, [new]) == new, "reading alike goes both ways"


@pytest.mark.parametrize("a, b", [("Ilse", "Llse"), ("Bog goblin 1", "Bog goblin 11"), ("Ana", "Ada"),
                                  ("Wren", "Wrens"), ("Zoë", "Zoe")])
def test_names_that_read_differently_are_both_names(a, b):
    assert check_name(b, [a]) is None and check_name(a, [b]) is None


def test_a_look_alike_refusal_names_the_letter_a_person_cannot_see():
    problem = check_name("Wr" + CYRILLIC_E + "n", {"Wren": "a delver"}, "an NPC's name")
    assert "reads the same as 'Wren' ('Wren' is a delver)" in problem
    assert "CYRILLIC SMALL LETTER IE" in problem


def test_every_confusable_reads_as_its_latin_letter():
    for ch, latin in CONFUSABLE.items():
        assert look_alike(f"Ka{ch}", [f"Ka{latin}"]) is not None, (unicodedata.name(ch, ch), latin)


NAMES = st.text(st.characters(categories=("Lu", "Ll", "Lo", "Nd"), max_codepoint=0x2FFF), min_size=1, max_size=12)


@settings(max_examples=300, deadline=None)
@given(name=NAMES, hidden=st.sampled_from([ZWSP, RLO, "\u200e", "\u2060", "\ufeff", "\u00ad", "\ufe0f", "\u034f"]),
       at=st.integers(0, 12))
def test_any_name_with_a_hidden_character_is_refused_and_reads_as_the_name_without_it(name, hidden, at):
    at = min(at, len(name))
    sly = name[:at] + hidden + name[at:]
    assert name_problem(sly) is not None
    assert look_alike(sly, [name]) == name


@settings(max_examples=300, deadline=None)
@given(name=NAMES)
def test_any_name_reads_the_same_in_another_case_and_in_its_nfkc_form(name):
    for other in (name.swapcase(), name.upper(), unicodedata.normalize("NFKC", name)):
        if other != name and name_problem(other) is None:
            assert look_alike(other, [name]) == name, (name, other)
    assert keys(name) == keys(name)  # a name reads the same as itself


# ---------------------------------------------------------------- the commands that make names

@pytest.fixture
def camp(keep):
    c = db.Campaign.open(keep)
    c.start_session()
    yield c
    c.close()


def refused(camp, fn, *args, **kw) -> str:
    before, n = clone(camp.state), len(camp.events)
    with pytest.raises(Refused) as err:
        fn(*args, **kw)
    assert camp.state == before and len(camp.events) == n, "a refused name made nothing"
    return str(err.value)


@pytest.mark.parametrize("name, says", [
    ("Wren" + ZWSP, "U+200B ZERO WIDTH SPACE"), (RLO + "nerW", "direction-changing"), ("wren", "reads the same as"),
    ("Wr" + CYRILLIC_E + "n", "CYRILLIC SMALL LETTER IE"), ("bog goblin 1", None)])
def test_a_delver_named_like_no_one_else_or_refused(camp, name, says):
    camp.encounter("causeway_ambush")
    if says is None:  # a foe of the fight: the same rule
        assert "reads the same as 'Bog goblin 1' ('Bog goblin 1' is a foe in this fight)" in \
            refused(camp, camp.add_delver, name, "rogue")
    else:
        assert says in refused(camp, camp.add_delver, name, "rogue")


def test_a_new_player_whose_name_reads_like_another_players_is_refused(camp):
    assert "a player's name 'ana' reads the same as 'Ana'" in refused(camp, camp.add_delver, "Tam", "rogue",
                                                                      player="ana")
    assert "U+200B" in refused(camp, camp.add_delver, "Tam", "rogue", player="Ana" + ZWSP)
    camp.add_delver("Tam", "rogue", player="Ana")  # the same player again: one player, two delvers
    assert camp.delver("Tam").player == "Ana"


def test_an_npc_or_a_foe_named_in_a_fight_reads_like_no_name_in_play(camp):
    assert "an NPC's name 'WREN' reads the same as 'Wren' ('Wren' is a delver)" in \
        refused(camp, camp.npc, "WREN", "bandit")
    assert "U+202E" in refused(camp, camp.npc, RLO + "kaŕg", "bandit")
    camp.npc("Grak", "bandit")
    assert "('Grak' is an NPC)" in refused(camp, camp.encounter, [{"foe": "goblin", "name": "grak"}])
    said = refused(camp, camp.encounter, [{"foe": "goblin", "name": "Gob" + ZWSP}])
    assert "foes[0].name" in said and "U+200B" in said  # (refused as every text a command takes, by its field)
    assert "reads the same as 'Gob'" in refused(camp, camp.encounter, [{"foe": "goblin", "name": "Gob"},
                                                                      {"foe": "goblin", "name": "GOB"}])


def test_a_foe_joining_a_fight_reads_like_no_name_in_play(camp):
    fight = camp.encounter("causeway_ambush")
    assert "reads the same as 'Bog goblin 2'" in refused(camp, fight.add_foes, [{"foe": "goblin",
                                                                                "name": "bog goblin 2"}])


def test_a_foe_numbered_by_the_table_skips_a_number_whose_name_reads_like_one_in_play(camp):
    camp.npc("goblin 1", "bandit")
    camp.encounter(["goblin"])
    foes = list(camp.state["encounter"]["foes"])
    assert foes == ["Goblin 2"]


def test_a_familiar_reads_like_no_name_in_play():
    t = Table()
    t.party(("Mo", "mage"))
    t.state["delvers"]["Mo"]["spells"] = ["find_familiar", "light", "magic_missile"]
    assert "a familiar's name 'MO' reads the same as 'Mo' ('Mo' is a delver)" in \
        t.refused("cast", who="Mo", spell="find_familiar", name="MO")
    assert "U+200B" in t.refused("cast", who="Mo", spell="find_familiar", name="Pip" + ZWSP)
    t.do("cast", who="Mo", spell="find_familiar", name="Pip")
    assert "Pip" in t.state["creatures"]


def test_the_table_refuses_a_look_alike_name_next_to_the_click_and_keeps_answering(camp):
    pytest.importorskip("anywidget")
    from delvebook.table import UI, perform, table_view
    ui = UI(panel="keeper")
    form = table_view(camp, ui)["keeper"]["npcs"]["form"]
    n = len(camp.events)
    perform(camp, ui, {**form["submit"]["intent"], "args": {"name": "Wr" + CYRILLIC_E + "n", "foe": "bandit"}})
    view = table_view(camp, ui)
    assert view["refusal"]["where"] == "keeper:npcs" and "reads the same as 'Wren'" in view["refusal"]["text"]
    assert len(camp.events) == n
    perform(camp, ui, {**form["submit"]["intent"], "args": {"name": "Grak", "foe": "bandit"}})
    assert table_view(camp, ui)["refusal"] is None and "Grak" in camp.state["creatures"]


# ---------------------------------------------------------------- names written by hand in campaign.yaml

@pytest.mark.parametrize("change, field, says", [
    (("delvers", 1, "name"), "delvers[1].name", "reads the same as 'Wren'"),
    (("seats", 1), "seats[1]", "reads the same as 'Wren'"),
    (("players", 1), "players[1]", "reads the same as 'Ana'"),
    (("delvers", 2, "player"), "delvers[2].player", "U+200B ZERO WIDTH SPACE"),
    (("bestiary", "newt", "name"), "bestiary.newt.name", "direction-changing"),
    (("bestiary", "newt", "name"), "bestiary.newt.name", "reads the same as 'Goblin'"),
])
def test_a_name_written_by_hand_is_held_to_the_same_check_by_validate_and_open_alike(tmp_path, change, field, says):
    data = yaml.safe_load(GOOD)
    value = {"delvers": "wren", "seats": "WREN", "players": "ana", "bestiary": RLO + "tweN"}[change[0]]
    if change[0] == "delvers" and change[-1] == "player":
        value = "Cleo" + ZWSP
    if "Goblin" in says:
        value = "G" + "\u043e" + "blin"  # a Cyrillic o: the shipped goblin's name, to the eye
    node = data
    for key in change[:-1]:
        node = node[key]
    node[change[-1]] = value
    found = assert_agree(folder_with(tmp_path, yaml.safe_dump(data, sort_keys=False, allow_unicode=True)))
    assert any(e.field == field and says in e.reason for e in found), [str(e) for e in found]
