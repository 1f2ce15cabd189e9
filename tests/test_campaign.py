"""The keeper's API over campaign folders, and the two bundled campaigns."""

from __future__ import annotations

import random
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
import yaml

import delvebook as db
from delvebook.store import LockedError, StoreError, read_log

ROOT = Path(__file__).resolve().parent.parent
KEEP = ROOT / "campaigns" / "the-sunken-keep"
LONG = ROOT / "campaigns" / "the-long-delve"


@pytest.fixture
def keep(tmp_path):
    """A writable copy of the prepared campaign."""
    dest = tmp_path / "the-sunken-keep"
    shutil.copytree(KEEP, dest)
    return dest


def test_the_contract_in_design_md_works(tmp_path):
    r = db.roll("2d6+1", rng=random.Random(1))
    assert r.total == sum(d.face for d in r.dice) + 1 and r.expr == "2d6+1"
    assert db.odds("d20+d6", vs="d20").win + db.odds("d20+d6", vs="d20").tie + db.odds("d20+d6", vs="d20").lose == 1
    camp = db.Campaign.create(tmp_path / "new", name="The New One", seed=7)
    with pytest.raises(StoreError):
        db.Campaign.create(tmp_path / "new", name="Again", seed=7)
    wren = camp.add_delver("Wren", "rogue", player="Ana")
    camp.add_delver("Brakka", "fighter", player="Ben")
    assert [d.name for d in camp.delvers] == ["Wren", "Brakka"]
    assert (wren.name, wren.class_id, wren.level, wren.xp, wren.hearts, wren.max_hearts) == ("Wren", "rogue", 1, 0, 12, 12)
    camp.start_session()
    assert camp.delver("Wren").luck_dice == 3
    camp.award_xp(101, reason="quest: the drowned bell")
    assert [d.xp for d in camp.delvers] == [50, 50] and camp.state["xp_pool"] == 1
    fight = camp.encounter(["goblin", "goblin"])
    fight.initiative(first="party")
    fight.next_turn()  # Brakka's turn: one action a turn, on its turn
    out = fight.attack("Brakka", "Goblin 1")
    assert out["kind"] == "attack" and out.roll.total == out["attack_totals"][0]
    camp.undo()
    camp.redo()
    assert camp.events[-1].get("kind") == "redo"
    fight.end()
    camp.end_session()
    camp.rest()
    camp.close()
    with db.Campaign.open(tmp_path / "new") as again:
        assert again.state == camp.state
    with db.Campaign.open(tmp_path / "new", read_only=True) as ro:
        with pytest.raises(db.Refused, match="read-only"):
            ro.rest()


def test_every_action_is_on_disk_before_the_call_returns(keep):
    camp = db.Campaign.open(keep)
    camp.start_session()
    camp.check("Wren", "stealth", 12)
    events, problems = read_log(keep)
    assert events == camp.events and problems == []
    camp.close()


def test_a_second_writer_is_refused_and_a_reader_is_not(keep):
    camp = db.Campaign.open(keep)
    with pytest.raises(LockedError, match="open for writing"):
        db.Campaign.open(keep)
    with db.Campaign.open(keep, read_only=True) as reader:
        assert reader.state == camp.state
    camp.close()
    db.Campaign.open(keep).close()


def test_state_at_any_event(keep):
    with db.Campaign.open(keep) as camp:
        camp.award_xp(10)
        camp.award_xp(20)
        assert camp.state_at(1)["delvers"]["Wren"]["xp"] == 2
        assert camp.state_at(2)["delvers"]["Wren"]["xp"] == 6


def test_prepared_encounter_and_sheet_values(keep):
    with db.Campaign.open(keep) as camp:
        assert camp.delver("Brakka").max_hearts == 19
        assert camp.delver("Ilse").spells == ["magic_missile", "firebolt", "light"]
        fight = camp.encounter("causeway_ambush")
        assert [f.name for f in fight.foes] == ["Bog goblin 1", "Bog goblin 2", "Bog goblin 3"]


def test_export_zip_opens_again_with_the_same_state_and_log(keep, tmp_path):
    with db.Campaign.open(keep) as camp:
        camp.start_session()
        camp.check("Wren", "stealth", 12)
        data = camp.export_zip()
        state, events = camp.state, list(camp.events)
    z = tmp_path / "download.zip"
    z.write_bytes(data)
    with db.Campaign.open(z) as back:
        assert back.state == state and back.events == events


def test_a_torn_last_line_is_set_aside_and_reported(keep):
    with db.Campaign.open(keep) as camp:
        camp.award_xp(5)
    with open(keep / "log.yaml", "a") as f:
        f.write('- {"seq": 2, "kind": "award_x')
    with db.Campaign.open(keep) as camp:
        assert len(camp.events) == 1 and any("torn" in p or "set aside" in p for p in camp.problems)
        assert list(keep.glob("log.torn-*.yaml"))


@pytest.mark.parametrize("folder", [KEEP, LONG], ids=lambda p: p.name)
def test_bundled_campaigns_pass_delvebook_validate(folder):
    out = subprocess.run([sys.executable, "-m", "delvebook", "validate", str(folder)],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "valid" in out.stdout


def test_validate_lists_every_problem_and_exits_1(tmp_path):
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "campaign.yaml").write_text("format: 1\nname: 7\nbestairy: {}\n")
    out = subprocess.run([sys.executable, "-m", "delvebook", "validate", str(bad)],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 1
    assert "campaign.yaml:2: name" in out.stdout and "campaign.yaml:3: bestairy" in out.stdout


def _sample_lines(lines: list[str], n: int = 600) -> list[str]:
    """The first, the last and an even spread of the lines between: every shape a log holds, in seconds."""
    if len(lines) <= n:
        return lines
    step = len(lines) // (n // 3)
    return lines[: n // 3] + lines[n // 3: -(n // 3): step] + lines[-(n // 3):]


@pytest.mark.parametrize("folder", [KEEP, LONG], ids=lambda p: p.name)
def test_bundled_files_parse_the_same_under_pyyaml_and_yaml_1_2(folder):
    """Both YAML readings agree; the long log is sampled (pure-Python YAML 1.2 reads 6 MB in a minute)."""
    from ruamel.yaml import YAML
    ruamel = YAML(typ="safe", pure=True)
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    text = (folder / "campaign.yaml").read_text(encoding="utf-8")
    assert yaml.load(text, Loader=loader) == ruamel.load(text)
    lines = (folder / "log.yaml").read_text(encoding="utf-8").splitlines(keepends=True)
    sample = "".join(_sample_lines(lines))
    assert yaml.load(sample, Loader=loader) == ruamel.load(sample)
    events, _ = read_log(folder)
    assert (yaml.load("".join(lines), Loader=loader) or []) == events


def test_the_finished_campaign_is_a_long_realistic_log():
    with db.Campaign.open(LONG, read_only=True) as camp:
        kinds = Counter(e["kind"] for e in camp.events)
        assert len(camp.events) >= 10_000 and kinds["start_session"] >= 20
        for kind in ("attack", "death_save", "rest", "complete_quest", "explore_room", "earn", "undo", "redo",
                     "check", "use", "cast", "choose"):
            assert kinds[kind] > 0, kind
        assert sum(1 for e in camp.events if e.get("luck")) > 100
        assert any(d.status == "dead" for d in camp.delvers)
        assert any(e["kind"] == "death_save" and e["success"] for e in camp.events)
        assert sum(1 for d in camp.delvers if d.level == 3) >= 5


def test_the_finished_campaign_is_not_due_to_be_made_again():
    """What made the bundled long delve (the engine, the rules, its script: every source it read, each reduced to
    what can change the log) still reads the same; else ``make long-delve`` plays it again and records them anew.
    The fast tier's word, beside the slow tier's full comparison below."""
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        from sources_digest import due
    finally:
        sys.path.remove(str(ROOT / "scripts"))
    changed = due(ROOT / "scripts" / "the-long-delve.sources.json")
    assert changed == [], (f"campaigns/the-long-delve is due to be made again: `make long-delve` (then commit it "
                           f"and scripts/the-long-delve.sources.json); what it read that changed: {', '.join(changed)}")


def test_what_makes_the_finished_campaign_due_is_what_can_change_its_log(tmp_path):
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        from sources_digest import digests, normalized
    finally:
        sys.path.remove(str(ROOT / "scripts"))
    code = tmp_path / "m.py"
    code.write_text('"""Says what."""\n\ndef f(x):\n    """Twice."""\n    return 2 * x  # the double\n')
    before = normalized(code)
    code.write_text('"""Says more."""\n\n\ndef f(x):\n    return 2 * x\n')  # docstrings, comments, layout
    assert normalized(code) == before
    code.write_text('def f(x):\n    return 3 * x\n')
    assert normalized(code) != before
    rules = tmp_path / "r.yaml"
    rules.write_text("check:\n  die: d20\n  quote: \"the text\"\n")
    before = normalized(rules)
    rules.write_text("# a comment\ncheck:\n  quote: \"the text, read again\"\n  die: d20\n")
    assert normalized(rules) == before
    rules.write_text("check:\n  die: d12\n")
    assert normalized(rules) != before
    package = tmp_path / "engine"
    package.mkdir()
    (package / "combat.py").write_text("x = 1\n")
    before = normalized(package)
    (package / "notes.txt").write_text("a keeper's notes\n")
    assert normalized(package) == before
    (package / "weather.py").write_text("x = 2\n")  # a new module is found and imported: it may change play
    assert normalized(package) != before
    recorded = digests(["delvebook/engine/combat.py", "delvebook/core/rules/core.yaml", "delvebook/engine/"])
    assert all(recorded.values()) and digests(["no/such.py"]) == {"no/such.py": None}


@pytest.mark.slow
def test_the_finished_campaign_regenerates_from_its_script(tmp_path):
    out = tmp_path / "the-long-delve"
    subprocess.run([sys.executable, str(ROOT / "scripts" / "make_finished_campaign.py"), str(out)],
                   check=True, capture_output=True, timeout=600)
    assert (out / "log.yaml").read_bytes() == (LONG / "log.yaml").read_bytes()
    assert yaml.safe_load((out / "campaign.yaml").read_text()) == yaml.safe_load((LONG / "campaign.yaml").read_text())


def test_a_read_only_campaign_catches_up_with_what_the_keeper_records(tmp_path):
    keeper = db.Campaign.create(tmp_path / "c", name="Followed", seed=4)
    keeper.add_delver("Wren", "rogue", player="Ana")
    players = db.Campaign.open(tmp_path / "c", read_only=True)
    assert players.catch_up() == []
    seen = []
    players.listeners.append(seen.append)
    keeper.start_session()
    check = keeper.check("Wren", "stealth", 12)
    got = players.catch_up()
    assert [o["seq"] for o in got] == [2, 3] and [o["seq"] for o in seen] == [2, 3]
    assert players.state == keeper.state and got[-1]["total"] == check["total"]
    assert got[0].touched.session and not got[-1].touched  # a check changes nothing it keeps
    keeper.undo()
    assert [o["kind"] for o in players.catch_up()] == ["undo"] and players.state == keeper.state
    with pytest.raises(db.Refused, match="has every event"):
        keeper.catch_up()
    keeper.close()


def test_open_campaigns_stay_out_of_the_collectors_full_passes_until_the_last_one_closes(tmp_path):
    """An open campaign's events and state (millions of objects at 100k events) are frozen out of the cycle
    collector's full passes (a pass over them stalled a click for seconds); closing the last campaign that froze
    gives them back. Run in a fresh process, so no campaign another test left open holds the freeze."""
    for name in ("a", "b"):
        shutil.copytree(Path(__file__).resolve().parent.parent / "campaigns" / "the-sunken-keep", tmp_path / name)
    script = f"""
import gc, os, shutil
import delvebook as db
first = db.Campaign.open({str(tmp_path / "a")!r})
assert gc.get_freeze_count() > 0, "an open campaign is frozen"
second = db.Campaign.open({str(tmp_path / "b")!r}, read_only=True)
first.close()
assert gc.get_freeze_count() > 0, "the campaign still open stays frozen when another closes"
second.close()
assert gc.get_freeze_count() == 0, "the last one closed gives everything back to the collector"
second.close()
assert gc.get_freeze_count() == 0, "closing twice changes nothing"
with db.Campaign.open({str(tmp_path / "a")!r}) as keeper:
    keeper.start_session()
follower = db.Campaign.open({str(tmp_path / "a")!r}, read_only=True)
assert follower.catch_up() == []
os.replace(shutil.copy({str(tmp_path / "a" / "log.yaml")!r}, {str(tmp_path / "a" / "log.new")!r}),
           {str(tmp_path / "a" / "log.yaml")!r})
assert [o.touched for o in follower.catch_up()] == [None], "the log replaced: read again"
follower.close()
assert gc.get_freeze_count() == 0, "a campaign that read its log again holds the freeze once"
"""
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
