"""Players' requests from their phones: one schema for every line, checks against the state, and the keeper's desk
that answers them and records the accepted ones (the keeper's kernel, the one writer of the log).

A request is hostile input: markup, huge numbers, unknown kinds, another player's delver, a stale roll and a flood
are refused with a reason the player's page shows, and nothing is recorded."""

from __future__ import annotations

import io
import json
import zipfile

import pytest

import delvebook as db
from delvebook import narrate
from delvebook.players import allowed, desk as desks, links
from delvebook.players.requests import (MAX_FILE, MAX_FOREIGN, MAX_LINE, Exchange, RequestError, answers_file, append,
                                        decode, encode, file_stem, request_problem, requests_file)

EVIL = "<img src=x onerror=alert(1)>"


@pytest.fixture
def camp(keep):
    c = db.Campaign.open(keep)
    c.start_session()
    yield c
    c.close()


@pytest.fixture
def desk(camp):
    return desks.open_desk(camp)


def ask_for(camp, player: str, **fields) -> dict:
    """A request line as the players' server writes it, appended to the player's file."""
    ex = Exchange(camp.path, player)
    ex.poll()
    line = {"n": ex.last + 1, "player": player, **fields, "ts": "2025-01-01T00:00:00Z"}
    append(requests_file(camp.path, player), line)
    return line


def answer(desk, player: str, n: int) -> dict | None:
    ex = desk.exchange(player)
    ex.poll()
    return ex.answers.get(n)


def luck_on_latest(camp, player="Ana", sign=1, roll="check"):
    return {"kind": "luck", "on": camp.latest_action["seq"], "roll": roll, "sign": sign}


# ---------------------------------------------------------------- the one schema, with hostile lines

GOOD = {"n": 1, "player": "Ana", "kind": "luck", "on": 3, "roll": "check", "sign": 1, "ts": "2025-01-01T00:00:00Z"}


@pytest.mark.parametrize("change, field", [
    ({"kind": "attack"}, "kind"),                      # an unknown kind
    ({"kind": "<script>alert(1)</script>"}, "kind"),   # markup as a kind
    ({"on": 10 ** 30}, "on"),                          # a huge number
    ({"on": -1}, "on"), ({"on": 0}, "on"),
    ({"on": True}, "on"),                              # a bool is not a number here
    ({"on": 3.0}, "on"),
    ({"sign": 2}, "sign"), ({"sign": "+"}, "sign"),
    ({"roll": "x" * 500}, "roll"),                     # an oversized name
    ({"roll": "check\u202e"}, "roll"),                 # a direction-changing character
    ({"roll": "che\u200bck"}, "roll"),                 # an invisible one
    ({"player": ["Ana"]}, "player"),
    ({"extra": 1}, "extra"),                           # a field no request has
    ({"n": None}, "n"),
])
def test_the_schema_refuses_a_request_a_page_never_makes(change, field):
    line = {**GOOD, **change}
    problem = request_problem(line)
    assert problem is not None and field in problem, problem


def test_the_schema_accepts_each_kind_a_player_may_ask():
    assert request_problem(GOOD) is None
    assert request_problem({"n": 2, "player": "Ana", "kind": "roll", "ask": 1, "faces": [14, 3], "ts": "t"}) is None
    assert request_problem({"n": 3, "player": "Ana", "kind": "roll", "ask": 1, "ts": "t"}) is None
    assert request_problem({"n": 4, "player": "Ana", "kind": "choose", "who": "Wren", "choice": "specialty",
                            "option": "bows", "ts": "t"}) is None


@pytest.mark.parametrize("faces", [[], [0], [10 ** 9], list(range(1, 40)), ["14"], [14.0], "14 3"])
def test_typed_faces_are_a_few_whole_numbers(faces):
    assert "faces" in request_problem({"n": 1, "player": "Ana", "kind": "roll", "ask": 1, "faces": faces, "ts": "t"})


@pytest.mark.parametrize("raw", [
    b'- {"n": 1, "n": 2}', b"- [1, 2]", b"n: 1", b'- {"n": NaN}', b"- {" + b"[" * 5000, b"\xff\xfe",
    b'- {"n": 1, "pad": "' + b"x" * MAX_LINE + b'"}',
])
def test_a_line_that_is_not_a_request_line_is_read_as_a_problem_never_as_fields(raw):
    assert isinstance(decode(raw), str)


def test_a_line_is_bounded_and_a_file_is_bounded(tmp_path):
    with pytest.raises(RequestError):
        encode({**GOOD, "roll": "x" * MAX_LINE})
    file = tmp_path / "requests" / "a.yaml"
    append(file, GOOD)
    assert (file.stat().st_mode & 0o777) == 0o600, "a player's requests are readable by their owner only"
    with open(file, "ab") as f:
        f.truncate(MAX_FILE)
    with pytest.raises(RequestError, match="full"):
        append(file, GOOD)


def test_a_request_file_behind_a_link_is_never_written(tmp_path):
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "camp").mkdir()
    (tmp_path / "camp" / "requests").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(RequestError, match="not a plain folder"):
        append(requests_file(tmp_path / "camp", "Ana"), GOOD)
    assert list((tmp_path / "elsewhere").iterdir()) == []


def test_two_names_that_read_alike_never_share_a_file():
    assert file_stem("Ana") != file_stem("ana") != file_stem("Ana ")
    assert file_stem("../../etc/passwd").startswith("etc-passwd-") and "/" not in file_stem("../x")
    assert file_stem(EVIL).replace("-", "").isalnum()


# ---------------------------------------------------------------- what the state allows

def test_a_player_spends_luck_on_their_own_roll_or_a_foes_roll_against_them(camp):
    camp.check("Wren", "stealth", 12, faces={"check": [9, 2]})
    assert allowed.luck_rolls(camp, "Ana") == ["check"]
    assert allowed.luck_rolls(camp, "Ben") == [], "Brakka's player cannot change Wren's check from a phone"
    fight = camp.encounter(["drowned_dead"])
    fight.initiative(first="foes")
    fight.attack("Drowned dead 1", "Wren", faces={"attack": [3], "resist": [15], "counter_damage": [2]})
    assert "attack" in allowed.luck_rolls(camp, "Ana"), "a foe's roll against Ana's delver"
    assert allowed.luck_rolls(camp, "Ben") == []


def test_a_luck_request_on_a_roll_that_no_longer_stands_is_stale(camp, desk):
    check = camp.check("Wren", "stealth", 12, faces={"check": [9, 2]})
    line = ask_for(camp, "Ana", kind="luck", on=check["seq"], roll="check", sign=1)
    camp.undo()
    n = len(camp.events)
    desk.poll()
    said = answer(desk, "Ana", line["n"])
    assert said["verdict"] == "refused" and "stale" in said["why"] and "undid" in said["why"]
    assert len(camp.events) == n, "nothing recorded"
    camp.redo()
    camp.check("Ilse", "lore", 10)
    line = ask_for(camp, "Ana", kind="luck", on=check["seq"], roll="check", sign=1)
    desk.poll()
    assert "moved on" in answer(desk, "Ana", line["n"])["why"]


def test_a_request_for_another_players_delver_is_refused_and_nothing_recorded(camp, desk):
    camp.award_xp(500)
    camp.level_up("Brakka")
    waiting = camp.state["delvers"]["Brakka"]["pending_choices"][0]
    option = db.engine.queries.choice_options(camp.state, camp.rules, "Brakka", waiting)[0][1]
    line = ask_for(camp, "Ana", kind="choose", who="Brakka", choice=waiting["choice"], option=option)
    forged = {"n": line["n"] + 1, "player": "Ben", "kind": "luck", "on": 1, "roll": "check", "sign": 1, "ts": "t"}
    append(requests_file(camp.path, "Ana"), forged)  # a line naming another player, in Ana's file
    n = len(camp.events)
    desk.poll()
    assert answer(desk, "Ana", line["n"]) == {**answer(desk, "Ana", line["n"]), "verdict": "refused"}
    assert "Brakka is not your delver" in answer(desk, "Ana", line["n"])["why"]
    assert answer(desk, "Ana", forged["n"])["verdict"] == "refused"
    assert len(camp.events) == n and desk.waiting() == []


def test_markup_and_huge_numbers_in_a_request_file_are_refused_with_a_reason(camp, desk):
    ask_for(camp, "Ana", kind="luck", on=10 ** 12, roll="check", sign=1)  # written by another hand
    with open(requests_file(camp.path, "Ana"), "ab") as f:
        f.write(encode({"n": 2, "player": "Ana", "kind": EVIL, "ts": "t"}))
        f.write(b"- {not json}\n")
        f.write(encode({"n": 3, "player": "Ana", "kind": "choose", "who": EVIL, "choice": "x", "option": "y",
                        "ts": "t"}))
    n = len(camp.events)
    desk.poll()
    said = {k: answer(desk, "Ana", k) for k in (1, 2, 3)}
    assert all(a["verdict"] == "refused" for a in said.values()), said
    assert "on: expected a number" in said[1]["why"] and "kind" in said[2]["why"]
    assert f"{EVIL} is not your delver" in said[3]["why"], "markup is said as text (the page sets it as text)"
    assert len(camp.events) == n


def test_a_flood_of_a_thousand_requests_records_nothing_and_keeps_a_few_waiting(camp, desk):
    camp.check("Wren", "stealth", 12, faces={"check": [9, 2]})
    on = camp.latest_action["seq"]
    file = requests_file(camp.path, "Ana")
    with open(file.parent.mkdir(mode=0o700, exist_ok=True) or file, "ab") as f:
        for k in range(1, 1001):
            f.write(encode({"n": k, "player": "Ana", "kind": "luck", "on": on, "roll": "check", "sign": 1,
                            "ts": "t"}))
    n = len(camp.events)
    for _ in range(40):  # a flood is read a bounded piece at a time
        if not desk.poll():
            break
    ex = desk.exchange("Ana")
    assert len(camp.events) == n, "nothing recorded without the keeper"
    assert len(desk.waiting()) == desks.MAX_WAITING
    refused = [a for a in ex.answers.values() if a["verdict"] == "refused"]
    assert len(refused) == MAX_FOREIGN and "already wait" in refused[0]["why"], "a page writes none of them"
    [aside] = desk.set_aside()
    assert aside.startswith(f"requests/{file.name} was set aside: more than {MAX_FOREIGN} of its lines"), \
        "said once, in words"
    assert answers_file(camp.path, "Ana").stat().st_size < 4 * MAX_LINE, "the answers file is not filled"
    assert desk.ask("Wren", "check", "stealth", 12) == 1, "the keeper can still send Ana a roll"


# ---------------------------------------------------------------- the keeper's answers

def test_an_accepted_luck_die_is_the_keepers_own_event_with_who_asked_it_and_undo_takes_it_back(camp, desk):
    check = camp.check("Wren", "stealth", 12, faces={"check": [9, 2]})
    line = ask_for(camp, "Ana", **luck_on_latest(camp))
    desk.poll()
    [waiting] = desk.waiting()
    assert waiting["n"] == line["n"] and camp.latest_action["seq"] == check["seq"], "it waits for the keeper"
    out = desk.accept("Ana", line["n"])
    assert out["kind"] == "check" and out["replaces"] == check["seq"] and out["luck"]["player"] == "Ana"
    assert out["asked_by"] == {"player": "Ana", "request": line["n"]}
    assert camp.state["luck"]["Ana"] == 2
    assert answer(desk, "Ana", line["n"]) | {"ts": None} == {"re": line["n"], "verdict": "accepted",
                                                             "seq": out["seq"], "ts": None}
    camp.undo()
    assert camp.latest_action["seq"] == check["seq"] and camp.state["luck"]["Ana"] == 3
    assert db.store.validate(camp.path) == [], "a log with asked_by validates"
    again = db.Campaign.open(camp.path, read_only=True)
    assert again.event(out["seq"])["asked_by"]["player"] == "Ana"
    again.close()


def test_a_declined_request_is_said_declined_and_records_nothing(camp, desk):
    camp.check("Brakka", "athletics", 12)
    line = ask_for(camp, "Ben", **luck_on_latest(camp, sign=-1))
    desk.poll()
    n = len(camp.events)
    desk.decline("Ben", line["n"])
    assert answer(desk, "Ben", line["n"])["verdict"] == "declined" and len(camp.events) == n
    with pytest.raises(db.Refused, match="no request"):
        desk.accept("Ben", line["n"])


def test_luck_dice_are_accepted_without_asking_when_the_keeper_says_so(camp, desk):
    camp.check("Wren", "stealth", 12, faces={"check": [9, 2]})
    desk.auto_luck = True
    line = ask_for(camp, "Ana", **luck_on_latest(camp))
    desk.poll()
    assert camp.events[-1]["asked_by"] == {"player": "Ana", "request": line["n"]} and desk.waiting() == []


def test_a_roll_the_keeper_asked_for_is_recorded_when_the_player_rolls_it(camp, desk):
    k = desk.ask("Wren", "check", "stealth", 12)
    ex = desk.exchange("Ana")
    assert ex.open_asks()[0]["label"] == "Wren: Stealth check against 12"
    line = ask_for(camp, "Ana", kind="roll", ask=k)
    desk.poll()
    rolled = camp.events[-1]
    assert rolled["kind"] == "check" and rolled["args"]["target"] == 12 and rolled["asked_by"]["request"] == line["n"]
    assert ex.open_asks() == [] and ex.closed[k]["why"] == "rolled"
    k = desk.ask("Wren", "save", None, 10)
    bad = ask_for(camp, "Ana", kind="roll", ask=k, faces=[30, 2])  # a d20 shows no 30
    desk.poll()
    assert answer(desk, "Ana", bad["n"])["verdict"] == "refused" and ex.open_asks(), "typed again, it can be made"
    typed = ask_for(camp, "Ana", kind="roll", ask=k, faces=[14])
    desk.poll()
    assert camp.events[-1]["rolls"]["check"]["faces"] == [14] and camp.events[-1]["args"]["save"] is True
    again = ask_for(camp, "Ana", kind="roll", ask=k)
    desk.poll()
    assert "done" in answer(desk, "Ana", again["n"])["why"] and typed["n"] < again["n"]


def test_a_roll_a_player_asked_the_table_to_make_reads_on_their_phone_as_what_came_of_it(camp, desk):
    from delvebook.players.allowed import request_words
    k = desk.ask("Wren", "check", "stealth", 12)
    ex = desk.exchange("Ana")
    line = ask_for(camp, "Ana", kind="roll", ask=k)
    ex.poll()
    assert request_words(camp, ex, ex.requests[line["n"]]) == "Wren: Stealth check against 12: the keeper's table " \
                                                               "rolls it"
    desk.poll()
    ex.poll()
    said = request_words(camp, ex, ex.requests[line["n"]], ex.answers[line["n"]])
    assert said == narrate.tell(camp.events[-1], camp)["text"] and said.startswith("Wren: Stealth check ")
    assert "rolled by the table" not in said


def test_a_level_up_choice_from_a_phone(camp, desk):
    camp.award_xp(500)
    camp.level_up("Wren")
    waiting = camp.state["delvers"]["Wren"]["pending_choices"][0]
    line = ask_for(camp, "Ana", kind="choose", who="Wren", choice=waiting["choice"], option="bows")
    desk.poll()
    out = desk.accept("Ana", line["n"])
    assert out["kind"] == "choose" and out["asked_by"]["player"] == "Ana"
    assert waiting not in camp.state["delvers"]["Wren"]["pending_choices"]


def test_export_and_the_static_site_leave_the_requests_out(camp, desk):
    camp.check("Wren", "stealth", 12)
    ask_for(camp, "Ana", **luck_on_latest(camp))
    links.ensure_keys(camp.path, ["Ana"])
    assert (camp.path / "requests" / "keys.json").is_file()
    names = zipfile.ZipFile(io.BytesIO(camp.export_zip())).namelist()
    assert names == [f"{camp.path.name}/campaign.yaml", f"{camp.path.name}/log.yaml"]
    from delvebook.share import lite
    site_files = camp.path.parent / "site-files"
    lite._campaign_files(camp.path, site_files)  # what a static site carries: what the zip holds
    assert sorted(p.name for p in site_files.rglob("*") if p.is_file()) == ["campaign.yaml", "log.yaml"]


def test_the_keys_are_the_owners_alone_and_a_wrong_secret_is_no_one(camp):
    keys = links.ensure_keys(camp.path, ["Ana", "Ben"])
    assert (camp.path / "requests" / "keys.json").stat().st_mode & 0o777 == 0o600
    assert keys.who(keys.players["Ana"]) == ("player", "Ana") and keys.who(keys.table) == ("table", None)
    assert keys.who("") is None and keys.who(keys.players["Ana"][:-1]) is None and keys.who(None) is None
    assert links.ensure_keys(camp.path, ["Ana", "Ben"]).players == keys.players, "links stay the same"
    fresh = links.ensure_keys(camp.path, ["Ana", "Ben"], new=True)
    assert fresh.players["Ana"] != keys.players["Ana"]


def test_a_link_becomes_a_qr_code_the_page_draws_as_one_path():
    pytest.importorskip("segno")
    q = links.qr("http://192.168.1.20:8866/?key=abc")
    assert q["size"] >= 21 and set(q["d"]) <= set("Mhvz0123456789 -")


# ---------------------------------------------------------------- the keeper's table and the player's page

def test_the_keepers_table_shows_a_request_and_accepts_it_by_a_click(camp, desk):
    from delvebook.table import UI, perform, table_view
    camp.check("Wren", "stealth", 12, faces={"check": [9, 2]})
    line = ask_for(camp, "Ana", **luck_on_latest(camp))
    desk.poll()
    ui = UI()
    [row] = table_view(camp, ui)["requests"]["rows"]
    assert row["text"] == "Ana (Wren) asks: a luck die (+) on Wren's Stealth check" and row["why_not"] is None
    out = perform(camp, ui, row["accept"])
    assert ui.refusal is None and out["asked_by"] == {"player": "Ana", "request": line["n"]}
    assert table_view(camp, ui)["requests"] is None, "nothing left to say: no request, no server, no ask"
    assert table_view(camp, ui)["log"][0]["asked_by"] == "Ana"


def test_the_keeper_sends_a_roll_to_a_players_page_from_the_action_bar(camp, desk):
    from delvebook.table import UI, perform, table_view
    desk.server = {"pid": 1, "port": 8866, "hosts": ["192.168.1.20"]}  # as a running players' server says
    ui = UI(selected="Wren", target=12)
    form = table_view(camp, ui)["actor"]["ask"]
    assert form["submit"]["label"] == "Send to Ana"
    assert ("check:stealth", "Stealth check") in [(o["value"], o["label"]) for o in form["fields"][0]["options"]]
    perform(camp, ui, {**form["submit"]["intent"], "args": {"what": "check:stealth", "target": "12"}})
    assert ui.refusal is None and desk.exchange("Ana").open_asks()[0]["label"] == "Wren: Stealth check against 12"
    perform(camp, ui, {**form["submit"]["intent"], "args": {"what": "death_save:", "target": "12"}})
    assert "no death save" in ui.refusal["text"]
    perform(camp, ui, {**form["submit"]["intent"], "args": {"what": "check:stealth", "target": "<b>"}})
    assert "a target number" in ui.refusal["text"]


def test_a_players_page_offers_only_their_own_and_hides_the_foes_hearts(camp):
    from delvebook.table import UI, table_view
    fight = camp.encounter(["drowned_dead"])
    fight.initiative(first="foes")
    fight.attack("Drowned dead 1", "Wren", faces={"attack": [9], "resist": [7], "damage": [2]})
    ana = table_view(camp, UI(mode="player", who="Ana"))
    assert [d["name"] for d in ana["delvers"]] == ["Wren"] and ana["luck"] == {"left": 3, "max": 3}
    assert {r["roll"] for r in ana["spend"]["rows"]} >= {"attack"}, "a foe's roll against her delver"
    assert all((r["plus"] or r["minus"])["on"] == camp.latest_action["seq"] for r in ana["spend"]["rows"])
    ben = table_view(camp, UI(mode="player", who="Ben"))
    assert ben["spend"]["rows"] == [] and "No roll of yours" in ben["spend"]["note"]
    foe = camp.fight.foes[0]
    assert f"{foe.hearts}/{foe.max_hearts}" not in json.dumps(ana), "a foe's hearts stay the keeper's"
    intents = json.dumps(ana)
    assert '"do": "select"' not in intents and '"do": "attack"' not in intents and '"do": "undo"' not in intents


def test_luck_on_a_players_page_is_offered_only_where_it_can_change_the_outcome(camp):
    from delvebook.table import UI, table_view
    fight = camp.encounter(["drowned_dead"])
    fight.initiative(first="foes")
    fight.attack("Drowned dead 1", "Wren", faces={"attack": [3], "resist": [16], "counter_damage": [1]})
    spend = table_view(camp, UI(mode="player", who="Ana"))["spend"]
    assert "attack" not in {r["roll"] for r in spend["rows"]}, "the foe's attack already missed by more than a die"
    assert "cannot change the outcome of Drowned dead 1's attack roll" in spend["note"]
    damage = next(r for r in spend["rows"] if r["roll"] == "counter_damage")
    assert damage["plus"] and damage["minus"], "her own damage hitting back: any face changes it"
    fight.attack("Drowned dead 1", "Wren", faces={"attack": [12], "resist": [10], "damage": [2]},
                 keeper_override="a second blow")
    rows = {r["roll"]: r for r in table_view(camp, UI(mode="player", who="Ana"))["spend"]["rows"]}
    assert rows["attack"]["minus"] and rows["attack"]["plus"] is None, "only taking off the foe's roll helps"
    assert rows["resist"]["plus"] and rows["resist"]["minus"] is None


def test_a_dying_delvers_death_save_is_sent_to_its_player_and_rolled_with_their_die(camp, desk):
    with pytest.raises(db.Refused, match="no death save"):
        desk.ask("Wren", "death_save")
    camp.damage("Wren", 40, source="a fall")
    assert camp.delver("Wren").status == "dying"
    k = desk.ask("Wren", "death_save")
    assert desk.exchange("Ana").asks[k]["label"] == "Wren: death save (D6, needs 6)"
    line = ask_for(camp, "Ana", kind="roll", ask=k, faces=[6])
    desk.poll()
    saved = camp.events[-1]
    assert saved["kind"] == "death_save" and saved["rolls"]["death_save"]["faces"] == [6]
    assert saved["asked_by"] == {"player": "Ana", "request": line["n"]} and camp.delver("Wren").status != "dying"
