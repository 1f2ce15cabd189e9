"""The `delvebook` command line: reproducible rolls, clean errors, exact odds."""
from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction
from itertools import product

import pytest

from delvebook.cli import commands as cli
from conftest import REPO


def delvebook(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "delvebook", *args],
                          capture_output=True, text=True, timeout=60)


def _die(sides: int) -> range:
    return range(1, sides + 1)


def test_a_seeded_roll_is_the_same_every_time():
    first, second = delvebook("roll", "2d20kh1+d6", "--seed", "7"), delvebook("roll", "2d20kh1+d6", "--seed", "7")
    assert first.returncode == 0, first.stderr
    assert first.stdout == second.stdout
    assert "2d20kh1" in first.stdout.lower()


def test_roll_as_json_keeps_every_die():
    out = delvebook("roll", "3d6+1", "--seed", "3", "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert isinstance(data, dict)
    assert data["total"] == json.loads(delvebook("roll", "3d6+1", "--seed", "3", "--json").stdout)["total"]
    assert 4 <= data["total"] <= 19


def test_bad_notation_exits_2_with_a_message():
    out = delvebook("roll", "2d")
    assert out.returncode == 2
    assert out.stdout == ""
    assert "delvebook roll:" in out.stderr and len(out.stderr.strip()) > len("delvebook roll:")
    assert "Traceback" not in out.stderr


def test_odds_vs_prints_the_exact_win_tie_lose():
    rolls = list(product(_die(20), _die(6), _die(20)))
    win = Fraction(sum(a + b > c for a, b, c in rolls), len(rolls))
    tie = Fraction(sum(a + b == c for a, b, c in rolls), len(rolls))
    lose = 1 - win - tie
    out = delvebook("odds", "d20+d6", "--vs", "d20")
    assert out.returncode == 0, out.stderr
    for word, p in [("win", win), ("tie", tie), ("lose", lose)]:
        line = next(l for l in out.stdout.splitlines() if l.split()[:1] == [word])
        assert f"({p.numerator}/{p.denominator})" in line


def test_odds_target_prints_the_exact_chance_to_meet_or_beat():
    rolls = list(product(_die(20), _die(6), _die(6)))
    p = Fraction(sum(sum(r) >= 15 for r in rolls), len(rolls))
    out = delvebook("odds", "d20+2d6", "--target", "15")
    assert out.returncode == 0, out.stderr
    assert f"({p.numerator}/{p.denominator})" in out.stdout


def test_odds_alone_prints_the_distribution():
    out = delvebook("odds", "2d6")
    assert out.returncode == 0, out.stderr
    assert "(1/6)" in out.stdout  # a 7 on 2d6
    assert "(1/36)" in out.stdout  # a 2 or a 12


def test_rules_assumptions_lists_each_with_its_path_and_reason():
    out = delvebook("rules", "--assumptions")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.strip().splitlines()
    assert lines and all(line.startswith("- ") and ": " in line for line in lines)
    assert any(line.startswith("- core.luck_dice.die: ") for line in lines)


RULES_MD_ASSUMED = (
    ("A luck die is a **D6** (assumed; the text does not name the die).", "core.luck_dice.die"),
    ("On a success the delver lives at 0 hearts (assumed)", "core.death_save.success_hearts"),
    ("Hearts never go below 0 in the record (assumed); damage past 0 is still logged.", "core.hearts"),
    ("on a tie both re-roll (assumed).", "core.initiative.tie"),
    ("The target rolls **one** D20 against them all (assumed).", "core.multi_attack.target_rolls"),
    ("**A tie inside a multi-attack** (assumed; ...): the tied attack hits, and the target ... hits back **once**",
     "core.multi_attack.counter_only_if_all_fail"),
    ("**Blindness and darkness** (assumed; ...): a creature that cannot see ... attacks with disadvantage",
     "core.sight"),
    ("Defaults (assumed): leather armor AV 1 DV 10;", "gear.armor.leather_armor.av"),
    ("Defaults (assumed): leather armor AV 1 DV 10;", "gear.armor.leather_armor.dv"),
    ("shield AV 1 DV 10.", "gear.armor.shield.av"),
    ("shield AV 1 DV 10.", "gear.armor.shield.dv"),
    ("A combat round is 6 seconds (assumed: the text gives no length)", "core.time.round_seconds"),
    ("a night's rest is 8 hours, assumed", "core.time.rest_hours"),
    ("the remainder is kept in the party's pool and added to the next award (assumed; ...)", "core.xp.remainder"),
    ("| rogue | 12 (assumed) / 14 / 16 | Stealth, Daggers, Bows (assumed: the level-1 block is lost; ...)",
     "classes.rogue.levels.1"),
    ("\"Advantage\" is not defined by the text: read it as rolling two D20 and keeping the higher (assumed).",
     "core.advantage"),
    ("Lay on Hands' repeated death save is spent once per death, whether the repeat succeeds or fails (assumed: ...)",
     "classes.cleric.abilities.lay_on_hands_revive.mechanics.once_per_death"),
    ("a luck die shifts the total ... (clamped to the table's first and last range, assumed).",
     "core.roll_tables.past_ends"),
    ("a table may be drawn without replacement (assumed: for decks and unique treasures).",
     "core.roll_tables.without_replacement"),
)
"""Every reading RULES.md calls assumed, in its words, and where the rules data labels it: each sentence of RULES.md
with '(assumed' or 'assumed)' in it, one or more entries each."""


def test_rules_assumptions_lists_every_reading_rules_md_calls_assumed():
    out = delvebook("rules", "--assumptions")
    assert out.returncode == 0, out.stderr
    listed = {line[2:].split(": ", 1)[0]: line.split(": ", 1)[1] for line in out.stdout.strip().splitlines()}
    missing = [f"{path} ({said})" for said, path in RULES_MD_ASSUMED if not listed.get(path)]
    assert not missing, f"RULES.md calls these assumed, and `delvebook rules --assumptions` does not list them: " \
                        f"{missing}"
    assert "18 -> 21" in listed["core.roll_tables.between"], "the D66 reading a luck die needs is listed too"


def test_lab_opens_the_session_notebook_for_the_campaign(monkeypatch, tmp_path):
    calls = []
    monkeypatch.setattr(cli.subprocess, "call", lambda cmd, env, cwd: calls.append((cmd, env, cwd)) or 0)
    monkeypatch.chdir(tmp_path)  # the notebook is still found beside the package
    assert cli.main(["lab", "campaigns/keep", "--port", "8899", "--no-browser"]) == 0
    (cmd, env, cwd), = calls
    assert cmd[:3] == [sys.executable, "-m", "jupyterlab"]
    assert cmd[cmd.index("--port"):][:3] == ["--port", "8899", "--no-browser"]
    assert any(a.endswith("run-a-session.ipynb") for a in cmd)
    assert env["DELVEBOOK_CAMPAIGN"] == str(tmp_path / "campaigns" / "keep")


def _campaign(tmp_path, text: str):
    folder = tmp_path / "c"
    folder.mkdir()
    (folder / "campaign.yaml").write_text(text)
    (folder / "log.yaml").write_text("")
    return folder


def test_validate_names_a_foe_without_tags_by_file_line_and_field(tmp_path):
    folder = _campaign(tmp_path, "format: 1\nname: Pond\nbestiary:\n  newt:\n    name: Newt\n    hearts: 1\n"
                                 "    attack_bonus: 0\n    damage: 1\n")
    out = delvebook("validate", str(folder))
    assert out.returncode == 1
    assert f"{folder / 'campaign.yaml'}:4: bestiary.newt.tags: missing: a foe has tags" in out.stdout


def test_validate_refuses_a_luck_die_the_engine_cannot_roll(tmp_path):
    folder = _campaign(tmp_path, "format: 1\nname: Pond\nhouse_rules:\n  core:\n    luck_dice:\n      die: 2d4\n")
    out = delvebook("validate", str(folder))
    assert out.returncode == 1
    assert "campaign.yaml:6: house_rules.core.luck_dice.die: expected a single die" in out.stdout


def test_validate_replays_the_log_of_a_well_formed_folder(tmp_path):
    folder = _campaign(tmp_path, "format: 1\nname: Pond\n")
    (folder / "log.yaml").write_text('- {"seq": 1, "kind": "undo", "undoes": 1}\n')
    out = delvebook("validate", str(folder))
    assert out.returncode == 1 and "log.yaml:1: undo: " in out.stdout and "undo with nothing to undo" in out.stdout
    (folder / "log.yaml").write_text("")
    assert delvebook("validate", str(folder)).stdout.strip().endswith("valid (0 events)")


def test_version_prints_the_installed_version_and_exits_0():
    from importlib.metadata import version

    from delvebook import __version__
    out = delvebook("--version")
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == f"delvebook {__version__}"
    assert __version__ == version("delvebook")


def test_lab_without_jupyterlab_names_the_extra(monkeypatch, capsys):
    from delvebook.core import extras
    monkeypatch.setattr(extras, "missing", lambda *names: [n for n in names if n == "jupyterlab"])
    monkeypatch.setattr(cli.subprocess, "call", lambda *a, **k: pytest.fail("started JupyterLab"))
    assert cli.main(["lab"]) == 2
    assert "pip install 'delvebook[lab]'" in capsys.readouterr().err


def test_lab_outside_the_repository_lays_out_the_packaged_notebook_and_campaign(monkeypatch, tmp_path):
    calls = []
    monkeypatch.setattr(cli.subprocess, "call", lambda cmd, env, cwd: calls.append((cmd, cwd)) or 0)
    monkeypatch.setattr(cli, "_find_notebook", lambda: None)  # as from a wheel: no examples/ anywhere
    monkeypatch.chdir(tmp_path)
    assert cli.main(["lab", "--no-browser"]) == 0
    folder = tmp_path / "delvebook-lab"
    (cmd, cwd), = calls
    assert cwd == folder and f"--ServerApp.root_dir={folder}" in cmd
    assert "examples/run-a-session.ipynb" in cmd
    assert (folder / "examples" / "run-a-session.ipynb").read_bytes() == \
        (REPO / "examples" / "run-a-session.ipynb").read_bytes()  # (a checkout: the session's one source)
    assert (folder / "campaigns" / "the-sunken-keep" / "campaign.yaml").is_file()
    (folder / "examples" / "run-a-session.ipynb").write_text("{}")  # the keeper's own edits survive a rerun
    assert cli.main(["lab"]) == 0
    assert (folder / "examples" / "run-a-session.ipynb").read_text() == "{}"


def _players_command(monkeypatch, *args: str) -> dict:
    from delvebook.core import extras
    from delvebook.pages import alone as server
    seen = {}
    monkeypatch.setattr(extras, "missing", lambda *names: [])
    monkeypatch.setattr(server, "serve", lambda campaign, **options: seen.update(campaign=campaign, **options) or 0)
    keep = __import__("pathlib").Path(__file__).resolve().parent.parent / "campaigns" / "the-sunken-keep"
    assert cli.main(["players", str(keep), *args]) == 0
    return seen


def test_players_serves_this_machine_only_by_default(monkeypatch):
    seen = _players_command(monkeypatch)
    assert seen["ip"] == "127.0.0.1" and seen["port"] == 8866 and not seen["new_links"]


def test_players_for_the_phones_listens_beyond_this_machine_with_no_secret_on_the_command_line(monkeypatch, capsys):
    seen = _players_command(monkeypatch, "--ip", "0.0.0.0", "--allow-host", "keeper.local", "--hide-hearts")
    assert seen["ip"] == "0.0.0.0" and seen["allow_hosts"] == ("keeper.local",) and seen["hide_hearts"]
    with pytest.raises(SystemExit):
        cli.main(["players", "campaigns/the-sunken-keep", "--token", "mine"])  # a secret is never an argument
    assert "unrecognized arguments: --token" in capsys.readouterr().err


def test_validate_prints_what_opening_noted(tmp_path, capsys):
    folder = _campaign(tmp_path, "format: 1\nname: Pond\n")
    (folder / "log.yaml").write_text('- {"seq": 1, "kind": "rest", "v": 1, "at": 0, "session": 0, "args": {}, '
                                     '"changes": []}\n- {"seq": 2, "ki')
    assert cli.main(["validate", str(folder)]) == 1  # a torn tail is a problem until a writable open sets it aside
    assert "torn last line" in capsys.readouterr().out


def test_new_writes_the_campaigns_table_notebook_beside_it_and_says_the_next_step(tmp_path, monkeypatch, capsys):
    from delvebook.view.slot import as_written
    monkeypatch.chdir(tmp_path)
    assert cli.main(["new", "club-night"]) == 0
    out = capsys.readouterr().out.strip().splitlines()
    nb = json.loads((tmp_path / "club-night.ipynb").read_text())
    assert as_written(nb), "the table's slot: a reload finds the live table under any Jupyter server"
    code, about = nb["cells"]
    assert code["source"].endswith("camp = playing('club-night')\ncamp.dashboard()")
    assert about["source"].startswith("# Club Night: the keeper's table")
    assert out[-1] == "  next: delvebook lab club-night  (or open club-night.ipynb in any JupyterLab and Run All)"
    (tmp_path / "club-night.ipynb").write_text("{}")  # a notebook of the keeper's own is never written over
    assert cli.main(["new", "club-night", "--name", "Other"]) == 1
    assert (tmp_path / "club-night.ipynb").read_text() == "{}"


def test_lab_opens_a_campaigns_own_table_notebook_with_the_campaign_in_the_file_browser(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert cli.main(["new", "club-night"]) == 0
    calls = []
    monkeypatch.setattr(cli.subprocess, "call", lambda cmd, env, cwd: calls.append((cmd, cwd)) or 0)
    assert cli.main(["lab", "club-night", "--no-browser"]) == 0
    (cmd, cwd), = calls
    assert cwd == tmp_path and f"--ServerApp.root_dir={tmp_path}" in cmd and "club-night.ipynb" in cmd
    assert "--no-browser" in cmd
