"""No input stalls the table: every number and every size a keeper or a forged message can set has a limit, checked
before any work that grows with it and named in the refusal; dice are refused by their cost before they are worked
out; a chain of roll tables too deep is refused when made; a refusal is said in words, a long value cut; text is
checked as names are, ids too. After each, the campaign opens and ``validate`` agrees."""
from __future__ import annotations

import logging
import re
import shutil

import pytest

import delvebook as db
from delvebook.core import distribution
from delvebook.core.dice import DiceError
from delvebook.core.rules.prepared import ROLL_DEPTH
from delvebook.core.rules.schema.bounds import FOE_MAX_HEARTS, MAX_SAID, MULTI_ATTACK
from delvebook.engine import COMMANDS, Invalid
from delvebook.store import LOG_HEADER, StoreError, read_log, validate

from conftest import CAMPAIGNS

RLO, ZWSP = "\u202e", "\u200b"


@pytest.fixture
def table(kept):
    from delvebook.table import Table
    return Table(kept)


def sound(camp) -> None:
    """What every test ends with: nothing half-written, the campaign opens, and validate agrees."""
    assert validate(camp.path) == []
    with db.Campaign.open(camp.path, read_only=True) as again:
        assert len(again.events) == len(camp.events)


@pytest.fixture
def untouched(monkeypatch):
    """``untouched("prepare_foe")``: the command is refused before it runs (its body is never entered)."""
    def spy(kind: str) -> list:
        entered: list = []
        real = COMMANDS[kind]

        def command(ctx, **args):
            entered.append(args)
            return real(ctx, **args)
        command.__dict__.update(real.__dict__)
        command.__annotations__ = real.__annotations__
        monkeypatch.setitem(COMMANDS, kind, command)
        return entered
    return spy


def clicked(table, kind: str, **args) -> str:
    """What the keeper sees after a form of the table (the ``act`` intent) sends ``args``: the refusal's words."""
    table.handle({"do": "act", "kind": kind, "args": args, "where": kind})
    refusal = table.view.get("refusal") or {}
    return refusal.get("text", "")


def folder_with(tmp_path, extra: str):
    folder = tmp_path / "c"
    folder.mkdir()
    (folder / "campaign.yaml").write_text(f"format: 1\nname: C\n{extra}", encoding="utf-8")
    (folder / "log.yaml").write_text(LOG_HEADER)
    return folder


def refused_alike(folder, field: str, says: str) -> None:
    """``validate`` refuses the file at ``field`` saying ``says``, and an open refuses the same."""
    found = validate(folder)
    assert found and found[0].field == field and says in found[0].reason, [str(e) for e in found]
    with pytest.raises(StoreError, match=re.escape(says)):
        db.Campaign.open(folder, read_only=True)


# ---------------------------------------------------------------- a limit for every number

def test_a_multi_attack_past_ten_is_refused_naming_the_limit_before_the_command_runs(table, untouched):
    entered = untouched("prepare_foe")
    table.handle({"do": "prepare_foe", "where": "keeper:bestiary:form",  # the bestiary's form, as typed
                  "args": {"name": "Hydra", "hearts": "3", "multi_attack": "100000"}})
    refusal = table.view["refusal"]
    assert refusal["text"] == f"multi_attack: at most {MULTI_ATTACK}, not 100,000" and entered == []
    assert refusal["field"] == "multi_attack", "said beside the field"
    with pytest.raises(Invalid, match="multi_attack: at most 10") as err:
        table.camp.npc("Grak", hearts=5, multi_attack=50)
    assert err.value.field == "multi_attack"
    fight = table.camp.encounter("causeway_ambush")
    fight.initiative(first="party")
    with pytest.raises(Invalid, match="multi: at most 10, not 5,000"):
        fight.attack("Brakka", fight.foes[0].name, multi=5000)
    sound(table.camp)


def test_a_multi_attack_past_ten_in_campaign_yaml_is_refused_by_validate_and_open_alike(tmp_path):
    folder = folder_with(tmp_path, "bestiary:\n  hydra: {name: Hydra, hearts: 3, attack_bonus: 0, damage: d6, "
                                   "tags: [], multi_attack: 100000}\n")
    refused_alike(folder, "bestiary.hydra.multi_attack", "at most 10, not 100,000")


def test_a_number_too_long_to_write_out_is_refused_in_words(kept):
    with pytest.raises(Invalid) as err:
        kept.prepare_foe("Hydra", 10 ** 5000)
    assert str(err.value) == f"hearts: at most {FOE_MAX_HEARTS:,}, not a number of about 5,001 digits"
    with pytest.raises(Invalid, match=r"^armor.av: at most 100, not a number of 31 digits$"):
        kept.prepare_foe("Hydra", 3, armor={"av": 10 ** 30, "dv": 1})
    with pytest.raises(Invalid, match=r"^tags: 40 entries; at most 20$"):
        kept.prepare_foe("Hydra", 3, tags=[f"t{i}" for i in range(40)])
    sound(kept)


# ---------------------------------------------------------------- dice refused by their cost

def test_dice_whose_exact_odds_cost_too_much_are_refused_before_any_is_worked_out(monkeypatch, kept):
    worked: list = []
    monkeypatch.setattr(distribution, "_build", lambda e: worked.append(e))
    for dice in ("3d1000kh2", "1000d1000", "d1000+d1000+d1000"):
        with pytest.raises(DiceError, match=f"at most {distribution.MAX_WORK:,}"):
            db.odds(dice, target=5)
    assert worked == [], "refused from its terms alone"
    with pytest.raises(Invalid, match=r"^dice: 3d1000kh2 rolls 1,999 different totals; a table holds at most 1,000$"):
        kept.prepare_table("Loot", "3d1000kh2", {"2-2000": "a coin"})
    with pytest.raises(Invalid, match=r"damage: '1000d1000' is too large to work out its odds exactly .*at most "
                                      + f"{distribution.MAX_WORK:,}"):
        kept.prepare_foe("Titan", 3, damage="1000d1000")
    assert worked == []
    sound(kept)


def test_the_cost_of_dice_counts_the_steps_their_odds_take():
    """The count is the one the algorithms make, so the budget means time: a sum of n dice of s sides adds a
    sliding window once a die after the first; adding terms multiplies their widths."""
    assert distribution.work("2d6") == 6 + (6 + 5) + 11  # the first die, the second's window, one addition
    assert distribution.work("d20+d6") == 20 + 20 + 6 + 20 * 6
    assert distribution.work("4d6kh3") < distribution.work("3d300kh2") < distribution.work("3d1000kh2")
    for cheap in ("d20+2d6", "2d20kh1", "4d6kh3", "d66", "60d100"):
        assert distribution.work(cheap) <= distribution.MAX_WORK
        assert distribution.distribution(cheap).total > 0


def test_a_foe_whose_dice_cost_too_much_in_campaign_yaml_is_refused_by_validate_and_open_alike(tmp_path):
    folder = folder_with(tmp_path, "bestiary:\n  titan: {name: Titan, hearts: 3, attack_bonus: 3d1000kh2, "
                                   "damage: d6, tags: []}\n")
    refused_alike(folder, "bestiary.titan.attack_bonus", "too large to work out its odds exactly")


# ---------------------------------------------------------------- roll tables chained too deep

def chain(camp, n: int, first: int = 1) -> None:
    """Tables t<first> -> ... -> t<n>, each rolling on the next on a 6, made from the last."""
    for i in range(n, first - 1, -1):
        entries = {"1-5": "a coin", 6: {"roll": f"t{i + 1}"}} if i < n else {"1-6": "a coin"}
        camp.prepare_table(f"Table {i}", "d6", entries, id=f"t{i}")


def test_a_chain_of_roll_tables_deeper_than_eight_is_refused_when_made_naming_the_limit(kept):
    chain(kept, ROLL_DEPTH + 1, first=2)  # t2 -> ... -> t9: eight tables
    out = kept.roll_table("t2", faces={"table": [6], **{f"table#{k}": [6] for k in range(2, ROLL_DEPTH)},
                                       f"table#{ROLL_DEPTH}": [1]})
    deepest = out
    for _ in range(ROLL_DEPTH - 1):
        deepest = deepest["then"]
    assert deepest["table"] == "t9" and deepest["result"] == "a coin", "eight deep rolls to its end"
    with pytest.raises(Invalid, match=f"a roll here goes through 9 tables, one inside another .t1 -> t2 -> .* "
                                      f"at most {ROLL_DEPTH} tables roll one inside another") as err:
        kept.prepare_table("Table 1", "d6", {"1-5": "a coin", 6: {"roll": "t2"}}, id="t1")
    assert err.value.field == "entries[1].roll"
    assert "t1" not in kept.roll_tables
    sound(kept)


def test_a_chain_of_roll_tables_deeper_than_eight_in_campaign_yaml_is_refused_by_validate_and_open(tmp_path):
    tables = "".join(f"  t{i}:\n    dice: d6\n    entries:\n      - {{range: 1-5, result: a coin}}\n"
                     f"      - {{range: 6, roll: t{i + 1}}}\n" for i in range(1, 10))
    tables += "  t10:\n    dice: d6\n    entries:\n      - {range: 1-6, result: a coin}\n"
    refused_alike(folder_with(tmp_path, "tables:\n" + tables), "tables.t1.entries[1].roll",
                  "goes through 10 tables, one inside another")


# ---------------------------------------------------------------- refusals in words

FORGED = [  # what a forged act message sets, and the field the refusal names
    ("award_xp", {"amount": "1" + "0" * 30}, "amount: at most 1,000,000, not a number of 31 digits"),
    ("advance_time", {"seconds": "1" + "0" * 30}, "seconds: at most 31,622,400, not a number of 31 digits"),
    ("damage", {"who": "Wren", "amount": "1" + "0" * 30}, "amount: at most 1,000,000"),
    ("heal", {"who": "Wren", "amount": "1" + "0" * 30}, "amount: at most 1,000,000"),
    ("trap", {"who": "Wren", "target": "1" + "0" * 30}, "target: at most 100"),
    ("condition", {"who": "Wren", "name": "x" * 20_000}, "name: a text of 20,000 characters; at most 2,000"),
]


@pytest.mark.parametrize("kind, args, says", FORGED, ids=[k for k, _, _ in FORGED])
def test_a_forged_act_message_is_refused_in_words_naming_the_limit(table, caplog, kind, args, says):
    before = [e["kind"] for e in read_log(table.camp.path)[0]]
    with caplog.at_level(logging.ERROR):
        said = clicked(table, kind, **args)
    assert said.startswith(says), said
    assert "Error" not in said and str(table.camp.path) not in said and "log.yaml" not in said
    assert [r for r in caplog.records if r.levelno >= logging.ERROR] == [], "no traceback: a refusal, not a fault"
    assert [e["kind"] for e in read_log(table.camp.path)[0]] == before
    sound(table.camp)


def test_a_refusal_quoting_a_long_typed_value_cuts_it_and_says_its_length(table):
    said = clicked(table, "remove_foe", id="x" * 1999)
    assert said == f"there is no foe type {'x' * 37!r}... (1,999 characters) in the bestiary"
    said = clicked(table, "retire_delver", who="é" * 1500)
    assert "(1,500 characters)" in said and len(said) < 200
    table.handle({"do": "act", "kind": "x" * 5000, "where": "x"})
    assert len(table.view["refusal"]["text"]) <= MAX_SAID
    sound(table.camp)


def test_a_store_refusal_is_said_without_the_logs_path(table, monkeypatch):
    """The writer's last guard (a state the reader would refuse) reaches the keeper as its reason alone."""
    def would_not_hold(event):
        raise StoreError("after this rest the state would not hold: clock: too far; nothing was recorded",
                         table.camp.path / "log.yaml")
    monkeypatch.setattr(table.camp, "_fold_checked", would_not_hold)
    table.handle({"do": "rest", "where": "keeper:session"})
    said = table.view["refusal"]["text"]
    assert said == "after this rest the state would not hold: clock: too far; nothing was recorded"


# ---------------------------------------------------------------- text as names are, ids too

def test_a_result_a_tag_or_a_note_with_a_character_that_turns_text_around_is_refused(kept):
    with pytest.raises(Invalid, match=r"entries\[0\].result holds a direction-changing character.*U\+202E") as err:
        kept.prepare_table("Loot", "d6", {"1-6": RLO + "dlog"})
    assert err.value.field == "entries[0].result"
    with pytest.raises(Invalid, match=r"tags\[1\] holds a direction-changing character"):
        kept.prepare_foe("Wisp", 2, tags=["fae", "evil" + RLO])
    with pytest.raises(Invalid, match=r"note holds an invisible character \(U\+200B"):
        kept.npc("Grak", "bandit", note="owes" + ZWSP + " us")
    kept.prepare_table("Loot", "d6", {"1-6": "a line\nand another, ❤️ café"})  # lines, emoji, accents: text's own
    sound(kept)


def test_text_that_turns_around_in_campaign_yaml_is_refused_by_validate_and_open_alike(tmp_path):
    folder = folder_with(tmp_path, f"tables:\n  loot:\n    dice: d6\n    entries:\n"
                                   f"      - {{range: 1-6, result: \"{RLO}dlog\"}}\n")
    refused_alike(folder, "tables.loot.entries[0].result", "U+202E")


def test_an_id_given_is_checked_as_ids_are(kept):
    for bad, says in (("../../etc", "is not an id: letters, digits, _ and - only"), ("a b", "is not an id"),
                      ("_x", "starting with a letter or a digit"), ("loot" + ZWSP, "U+200B ZERO WIDTH SPACE")):
        with pytest.raises(Invalid, match=re.escape(says)) as err:
            kept.prepare_foe("Hydra", 3, id=bad)
        assert err.value.field == "id"
    kept.prepare_foe("Hydra", 3, id="hydra-2")
    assert "hydra-2" in kept.foe_types
    sound(kept)


def test_an_id_in_campaign_yaml_is_checked_as_the_table_checks_it(tmp_path):
    folder = folder_with(tmp_path, "rooms:\n  \"../../etc\": {name: The cellar}\n")
    refused_alike(folder, "rooms.../../etc", "is not a room id")


def test_the_bundled_campaigns_keep_within_every_limit(tmp_path):
    for name in ("the-sunken-keep", "the-long-delve"):
        shutil.copytree(CAMPAIGNS / name, tmp_path / name)
        assert validate(tmp_path / name) == [], name


# ---------------------------------------------------------------- the commands' options

@pytest.mark.parametrize("option, value, says", [
    ("--fights", "10000000000", "--fights is 1 to 1,000,000, not 10,000,000,000"),
    ("--fights", "0", "--fights is 1 to 1,000,000, not 0"),
    ("--workers", "100000", "--workers is 1 to 1,024, not 100,000"),
])
def test_a_commands_number_past_its_limit_is_refused_naming_it_before_a_fight_is_played(keep, capsys, option,
                                                                                        value, says):
    from delvebook import cli
    assert cli.main(["danger", str(keep), "causeway_ambush", "--as-prepared", option, value, "--quiet"]) == 2
    assert capsys.readouterr().err.strip() == f"delvebook danger: {says}"


def test_a_forecast_of_more_fights_than_the_limit_is_refused_before_one_is_played(kept):
    with pytest.raises(Invalid, match=r"^fights: at most 1,000,000, not 1,000,000,000,000$"):
        kept.danger("causeway_ambush", fights=10 ** 12)
    with pytest.raises(Invalid, match="fights: at most 1,000,000"):
        kept.danger_job("causeway_ambush", fights=10 ** 7)
